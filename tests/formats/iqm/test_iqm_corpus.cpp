// Corpus IQM files (../shared/corpus/iqm or $RIGPORT_CORPUS/iqm): load, the facts recorded in
// the files (docs/testing.md "Corpus counts"), and the round trip IQM -> IQM -> IQM.
#include <gtest/gtest.h>

#include <cmath>

#include "anim_compare.hpp"
#include "formats/iqm/iqm.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

Scene load_ok(const std::filesystem::path& path) {
    auto scene = load(path.string());
    EXPECT_TRUE(scene) << scene.error().to_string();
    return scene ? std::move(*scene) : Scene{};
}

TEST(IqmCorpus, EveryFileLoads) {
    RIGPORT_REQUIRE_CORPUS();
    auto files = corpus_files("iqm", ".iqm");
    ASSERT_FALSE(files.empty()) << "no .iqm files in " << corpus_dir() / "iqm";
    for (auto& f : files) {
        SCOPED_TRACE(f.filename().string());
        Scene s = load_ok(f);
        EXPECT_TRUE(check_invariants(s));
        EXPECT_EQ(s.meta.source_format, "iqm");
    }
}

TEST(IqmCorpus, MrFixitFacts) {
    RIGPORT_REQUIRE_CORPUS();
    Scene s = load_ok(corpus_dir() / "iqm" / "mrfixit.iqm");
    ASSERT_EQ(s.meshes.size(), 2u);
    EXPECT_EQ(s.meshes[0].name, "Body");
    EXPECT_EQ(s.materials.at(s.meshes[0].material).name, "Body.tga");
    EXPECT_EQ(s.meshes[0].vertex_count(), 1476u);
    EXPECT_EQ(s.meshes[0].triangles.size(), 2386u);
    EXPECT_EQ(s.meshes[1].vertex_count(), 385u);
    EXPECT_EQ(s.meshes[1].triangles.size(), 602u);
    EXPECT_EQ(s.vertex_count(), 1861u);
    EXPECT_EQ(s.triangle_count(), 2988u);
    ASSERT_EQ(s.skeleton.joints.size(), 75u);
    int roots = 0;
    for (auto& j : s.skeleton.joints) roots += j.parent < 0;
    EXPECT_EQ(roots, 3);
    EXPECT_EQ(s.skeleton.joints[73].name, "ElbowRot.L");
    ASSERT_EQ(s.animations.size(), 1u);
    EXPECT_EQ(s.animations[0].name, "idle");
    EXPECT_EQ(s.animations[0].frame_count, 101u);
    EXPECT_FLOAT_EQ(s.animations[0].frame_rate, 24.0f);
    EXPECT_FALSE(s.animations[0].loop);
    // Every vertex's ubyte weights sum to 255 in the file.
    for (auto& m : s.meshes)
        for (uint32_t v = 0; v < m.vertex_count(); ++v) {
            float sum = 0;
            for (uint32_t k = 0; k < m.skin.count(v); ++k) sum += m.skin.begin(v)[k].weight * 255.0f;
            ASSERT_NEAR(sum, 255.0f, 1e-3f);
        }
    ASSERT_EQ(s.meta.stored_bounds.size(), 101u);
    EXPECT_NEAR(s.meta.stored_bounds[0].max[2], 7.836f, 1e-3f);
    EXPECT_EQ(s.meta.stored_adjacency.size(), 2988u);
}

TEST(IqmCorpus, RaylibGuyAnimIsAnimationOnly) {
    RIGPORT_REQUIRE_CORPUS();
    Scene s = load_ok(corpus_dir() / "iqm" / "raylib_guyanim.iqm");
    EXPECT_TRUE(s.skeleton.animation_only);
    EXPECT_EQ(s.skeleton.joints.size(), 14u);
    EXPECT_TRUE(s.meshes.empty());
    ASSERT_EQ(s.animations.size(), 2u);
    EXPECT_EQ(s.animations[0].name, "jump");
    EXPECT_EQ(s.animations[1].name, "dance");
    EXPECT_EQ(s.animations[0].frame_count, 61u);
    const int parents[14] = {-1, 0, 0, 0, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8};
    for (int j = 0; j < 14; ++j) EXPECT_EQ(s.skeleton.joints[j].parent, parents[j]);
}

TEST(IqmCorpus, RaylibGuyAnimatedScaleAndColors) {
    RIGPORT_REQUIRE_CORPUS();
    Scene guy = load_ok(corpus_dir() / "iqm" / "raylib_guy.iqm");
    float max_scale = 0;
    for (auto& a : guy.animations)
        for (auto& t : a.tracks)
            if (t.joint == 1 && t.channel == Channel::Scale)
                for (float v : t.values) max_scale = std::max(max_scale, v);
    EXPECT_NEAR(max_scale, 2.8f, 0.05f);
    Scene cube = load_ok(corpus_dir() / "iqm" / "raylib_vertex_colored_object.iqm");
    ASSERT_EQ(cube.meshes.size(), 1u);
    ASSERT_EQ(cube.meshes[0].colors.size(), 1u);
    EXPECT_EQ(cube.meshes[0].colors[0].size(), 24u);
}

// ---- round trip --------------------------------------------------------------------------

void expect_same_geometry(const Scene& a, const Scene& b) {
    ASSERT_EQ(a.meshes.size(), b.meshes.size());
    for (size_t m = 0; m < a.meshes.size(); ++m) {
        SCOPED_TRACE("mesh " + std::to_string(m));
        const Mesh& x = a.meshes[m];
        const Mesh& y = b.meshes[m];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.positions, y.positions);
        EXPECT_EQ(x.normals, y.normals);
        EXPECT_EQ(x.tangents, y.tangents);
        EXPECT_EQ(x.texcoords, y.texcoords);
        EXPECT_EQ(x.colors, y.colors);
        EXPECT_EQ(x.triangles, y.triangles);
        EXPECT_EQ(x.skin.offsets, y.skin.offsets);
        ASSERT_EQ(x.skin.influences.size(), y.skin.influences.size());
        for (size_t i = 0; i < x.skin.influences.size(); ++i) {
            EXPECT_EQ(x.skin.influences[i].joint, y.skin.influences[i].joint);
            EXPECT_EQ(x.skin.influences[i].weight, y.skin.influences[i].weight);
        }
        ASSERT_EQ(x.custom.size(), y.custom.size());
        for (size_t c = 0; c < x.custom.size(); ++c) EXPECT_EQ(x.custom[c].values, y.custom[c].values);
        EXPECT_EQ(x.material < 0 ? "" : a.materials[x.material].name, y.material < 0 ? "" : b.materials[y.material].name);
    }
    ASSERT_EQ(a.skeleton.joints.size(), b.skeleton.joints.size());
    for (size_t j = 0; j < a.skeleton.joints.size(); ++j) {
        EXPECT_EQ(a.skeleton.joints[j].name, b.skeleton.joints[j].name);
        EXPECT_EQ(a.skeleton.joints[j].parent, b.skeleton.joints[j].parent);
        EXPECT_EQ(a.skeleton.joints[j].bind.translate, b.skeleton.joints[j].bind.translate);
        EXPECT_EQ(a.skeleton.joints[j].bind.rotate, b.skeleton.joints[j].bind.rotate);
        EXPECT_EQ(a.skeleton.joints[j].bind.scale, b.skeleton.joints[j].bind.scale);
    }
    EXPECT_EQ(a.skeleton.animation_only, b.skeleton.animation_only);
    EXPECT_EQ(a.meta.comment, b.meta.comment);
}


TEST(IqmCorpus, RoundTripKeepsDataAndSecondTripIsByteIdentical) {
    RIGPORT_REQUIRE_CORPUS();
    for (auto& path : corpus_files("iqm", ".iqm")) {
        SCOPED_TRACE(path.filename().string());
        auto original = read_bytes(path);
        Warnings w;
        auto file = iqm::parse(original, LoadOptions{}, w);
        ASSERT_TRUE(file) << file.error().to_string();
        Scene a = load_ok(path);

        auto first = save_bytes(a, "first.iqm");
        ASSERT_TRUE(first) << first.error().to_string();
        auto b = load_bytes(*first, "first.iqm");
        ASSERT_TRUE(b) << b.error().to_string();
        expect_same_geometry(a, *b);
        expect_animation_within_one_step(*file, a, *b);

        auto second = save_bytes(*b, "second.iqm");
        ASSERT_TRUE(second) << second.error().to_string();
        EXPECT_TRUE(*first == *second) << "second round trip differs: " << first->size() << " vs " << second->size() << " bytes";
        auto c = load_bytes(*second, "second.iqm");
        ASSERT_TRUE(c);
        expect_same_geometry(*b, *c);
    }
}

}  // namespace
}  // namespace rigport::test
