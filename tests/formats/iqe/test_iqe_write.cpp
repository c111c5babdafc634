// IQE writer: write -> parse gives the same scene with exact floats; IQM -> IQE keeps geometry;
// every corpus IQE parses with the counts measured from the files (docs/testing.md "Corpus counts").
#include <gtest/gtest.h>

#include <cmath>

#include <cstring>

#include "formats/iqe/iqe.hpp"
#include "formats/iqm/iqm.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Geometry of two meshes bit for bit (tangents too: IQE carries them through).
void expect_same_geometry(const Mesh& a, const Mesh& b, const std::string& what) {
    EXPECT_EQ(a.name, b.name) << what;
    EXPECT_TRUE(same_bits(a.positions, b.positions)) << what;
    EXPECT_TRUE(same_bits(a.normals, b.normals)) << what;
    EXPECT_TRUE(same_bits(a.tangents, b.tangents)) << what;
    ASSERT_EQ(a.texcoords.size(), b.texcoords.size()) << what;
    for (size_t s = 0; s < a.texcoords.size(); ++s) EXPECT_TRUE(same_bits(a.texcoords[s], b.texcoords[s])) << what;
    ASSERT_EQ(a.colors.size(), b.colors.size()) << what;
    for (size_t s = 0; s < a.colors.size(); ++s) EXPECT_TRUE(same_bits(a.colors[s], b.colors[s])) << what;
    EXPECT_EQ(a.triangles, b.triangles) << what;
    EXPECT_EQ(a.skin.offsets, b.skin.offsets) << what;
    ASSERT_EQ(a.skin.influences.size(), b.skin.influences.size()) << what;
    for (size_t i = 0; i < a.skin.influences.size(); ++i) {
        EXPECT_EQ(a.skin.influences[i].joint, b.skin.influences[i].joint) << what;
        EXPECT_EQ(a.skin.influences[i].weight, b.skin.influences[i].weight) << what;
    }
    ASSERT_EQ(a.custom.size(), b.custom.size()) << what;
    for (size_t c = 0; c < a.custom.size(); ++c) {
        EXPECT_EQ(a.custom[c].name, b.custom[c].name) << what;
        EXPECT_EQ(a.custom[c].type, b.custom[c].type) << what;
        EXPECT_EQ(a.custom[c].values, b.custom[c].values) << what;
    }
}

Expected<Scene> reread(const Scene& s) {
    auto bytes = iqe::write(s, SaveOptions{});
    if (!bytes) return bytes.error();
    return iqe::read(*bytes, LoadOptions{});
}

void expect_same_scene(const Scene& a, const Scene& b) {
    ASSERT_EQ(a.meshes.size(), b.meshes.size());
    for (size_t m = 0; m < a.meshes.size(); ++m) expect_same_geometry(a.meshes[m], b.meshes[m], "mesh " + std::to_string(m));
    ASSERT_EQ(a.skeleton.joints.size(), b.skeleton.joints.size());
    for (size_t j = 0; j < a.skeleton.joints.size(); ++j) {
        const Joint &x = a.skeleton.joints[j], &y = b.skeleton.joints[j];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.parent, y.parent);
        EXPECT_EQ(x.bind.translate, y.bind.translate);
        EXPECT_EQ(x.bind.rotate, y.bind.rotate);
        EXPECT_EQ(x.bind.scale, y.bind.scale);
    }
    ASSERT_EQ(a.animations.size(), b.animations.size());
    for (size_t i = 0; i < a.animations.size(); ++i) {
        const Animation &x = a.animations[i], &y = b.animations[i];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.frame_rate, y.frame_rate);
        EXPECT_EQ(x.loop, y.loop);
        const uint64_t frames = sampled_frame_count(x);
        EXPECT_EQ(frames, sampled_frame_count(y));
        for (uint32_t f = 0; f < frames; ++f) {
            auto px = frame_pose(a.skeleton, x, f), py = frame_pose(b.skeleton, y, f);
            for (size_t j = 0; j < px.size(); ++j) {
                EXPECT_EQ(px[j].translate, py[j].translate) << x.name << " frame " << f;
                EXPECT_EQ(px[j].rotate, py[j].rotate) << x.name << " frame " << f;
                EXPECT_EQ(px[j].scale, py[j].scale) << x.name << " frame " << f;
            }
            if (::testing::Test::HasFailure()) return;
        }
    }
    EXPECT_EQ(a.meta.comment, b.meta.comment);
}

TEST(IqeWrite, SampleSceneRoundTripsExactly) {
    Scene s = make_sample_scene();
    s.meta.comment = "made by a test\nsecond line";
    auto back = reread(s);
    ASSERT_TRUE(back) << back.error().to_string();
    expect_same_scene(s, *back);
    // And the text is a fixed point: write(read(write(s))) == write(s).
    auto once = iqe::write(s, SaveOptions{}), twice = iqe::write(*back, SaveOptions{});
    ASSERT_TRUE(once && twice);
    EXPECT_EQ(*once, *twice);
}

TEST(IqeWrite, CustomArraysColorsAndQuotedNames) {
    Scene s;
    Mesh m;
    m.name = "a mesh";
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    m.colors = {{{0.1f, 0.2f, 0.3f, 1}, {1, 1, 1, 0.5f}, {0, 0, 0, 1}}};
    m.custom.push_back(CustomArray{"ids", ComponentType::UInt16, 2, {1, 2, 3, 4, 65535, 0}});
    m.custom.push_back(CustomArray{"extra data", ComponentType::Float32, 1, {0.1f, -0.0f, 3e-39f}});
    m.triangles = {{0, 1, 2}};
    s.meshes.push_back(m);
    Material material;
    material.name = "mat with space";
    s.materials.push_back(material);
    s.meshes[0].material = 0;
    auto back = reread(s);
    ASSERT_TRUE(back) << back.error().to_string();
    // Without `vn` lines a loaded IQE has the normals its smoothing rules give: one flat triangle.
    ASSERT_EQ(back->meshes[0].normals.size(), 3u);
    for (const Vec3& n : back->meshes[0].normals) EXPECT_NEAR(std::fabs(n[2]), 1.0f, 1e-6f);
    back->meshes[0].normals.clear();
    expect_same_scene(s, *back);
    EXPECT_EQ(back->materials.at(0).name, "mat with space");
}

TEST(IqeWrite, DroppedDataIsReported) {
    Scene s = make_sample_scene();
    s.meshes.at(0).morph_targets.push_back(MorphTarget{"smile", {}, {}, {}, 0});
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    ASSERT_TRUE(iqe::write(s, o));
    EXPECT_TRUE(w.has(WarningCode::DroppedData));
}

TEST(IqeWrite, MrfixitIqmToIqeKeepsGeometryExactly) {
    RIGPORT_REQUIRE_CORPUS();
    auto bytes = read_bytes(corpus_dir() / "iqm" / "mrfixit.iqm");
    auto iqm_scene = iqm::read(bytes, LoadOptions{});
    ASSERT_TRUE(iqm_scene) << iqm_scene.error().to_string();
    auto back = reread(*iqm_scene);
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->meshes.size(), iqm_scene->meshes.size());
    for (size_t m = 0; m < back->meshes.size(); ++m) expect_same_geometry(iqm_scene->meshes[m], back->meshes[m], "mrfixit mesh " + std::to_string(m));
    ASSERT_EQ(back->animations.size(), iqm_scene->animations.size());
    for (size_t a = 0; a < back->animations.size(); ++a) EXPECT_EQ(back->animations[a].frame_count, iqm_scene->animations[a].frame_count);
    EXPECT_EQ(back->skeleton.joints.size(), iqm_scene->skeleton.joints.size());
}

struct Expect {
    const char* file;
    size_t meshes, vertices, triangles, joints;
    std::vector<std::tuple<std::string, uint32_t, float>> anims;
};

TEST(IqeWrite, CorpusParsesWithDocumentedCountsAndRoundTrips) {
    RIGPORT_REQUIRE_CORPUS();
    const Expect expected[] = {
        {"unvanquished_rocket.iqe", 1, 135, 156, 2, {}},
        {"unvanquished_lgun_view.iqe", 3, 7427, 7716, 47, {{"idle", 121, 30.f}, {"fire", 14, 30.f}, {"raise", 25, 30.f}, {"lower", 13, 30.f}}},
        {"unvanquished_mgturret.iqe", 5, 2606, 2787, 5,
         {{"Take 001", 301, 30.1f}, {"construct", 1, 60.f}, {"idle", 10, 60.f}, {"powerdown", 33, 60.f},
          {"idle_unpowered", 10, 60.f}, {"destroy", 28, 60.f}, {"destroyed", 10, 60.f}, {"destroy_unpowered", 10, 60.f}}},
    };
    for (auto& e : expected) {
        auto bytes = read_bytes(corpus_dir() / "iqe" / e.file);
        ASSERT_FALSE(bytes.empty()) << e.file;
        auto doc = iqe::parse(bytes, LoadOptions{});
        ASSERT_TRUE(doc) << e.file << ": " << doc.error().to_string();
        const Scene& s = doc->scene;
        EXPECT_EQ(s.meshes.size(), e.meshes) << e.file;
        EXPECT_EQ(s.vertex_count(), e.vertices) << e.file;
        EXPECT_EQ(s.triangle_count(), e.triangles) << e.file;
        EXPECT_EQ(s.skeleton.joints.size(), e.joints) << e.file;
        EXPECT_TRUE(s.warnings.items.empty()) << e.file << ": " << (s.warnings.items.empty() ? "" : s.warnings.items[0].message);
        ASSERT_EQ(s.animations.size(), e.anims.size()) << e.file;
        for (size_t a = 0; a < e.anims.size(); ++a) {
            EXPECT_EQ(s.animations[a].name, std::get<0>(e.anims[a]));
            EXPECT_EQ(s.animations[a].frame_count, std::get<1>(e.anims[a]));
            EXPECT_EQ(s.animations[a].frame_rate, std::get<2>(e.anims[a]));
        }
        EXPECT_TRUE(doc->has_normals && doc->has_tangents) << e.file;
        auto back = reread(s);
        ASSERT_TRUE(back) << e.file << ": " << back.error().to_string();
        expect_same_scene(s, *back);
        if (HasFailure()) return;
    }
}

}  // namespace
}  // namespace rigport::test
