// MD5 writer (docs/md5.md): rigport's sample scene -> .md5mesh + .md5anim files -> scene, and
// corpus MD5 -> IQM -> MD5, compared within stated tolerances; influence limits, unweighted
// vertices and morph targets give typed warnings.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "convert_checks.hpp"
#include "rigport/anim.hpp"
#include "rigport/compile.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// Writes scene as dir/stem.md5mesh with its side files; the paths of the mesh and the animations.
std::vector<std::string> write_md5(const Scene& scene, const fs::path& dir, const std::string& stem, Warnings* warnings = nullptr) {
    SaveOptions o;
    o.warnings = warnings;
    const std::string path = (dir / (stem + ".md5mesh")).string();
    auto out = save_output(scene, path, o);
    EXPECT_TRUE(out) << (out ? "" : out.error().to_string());
    if (!out) return {};
    EXPECT_EQ(out->format, "md5");
    return write_files(*out, path);
}

// The mesh file first, each animation file after it, as `rigport convert` takes them.
Scene compile_md5(const std::vector<std::string>& paths) {
    std::vector<CompileInput> inputs;
    for (auto& p : paths) inputs.push_back(CompileInput{{p}, {}});
    auto s = compile(inputs, CompileOptions{});
    EXPECT_TRUE(s) << (s ? "" : s.error().to_string());
    return s ? std::move(*s) : Scene{};
}

double extent(const Scene& s) {
    double e = 0;
    for (auto& m : s.meshes)
        for (auto& p : m.positions)
            for (float c : p) e = std::max(e, double(std::fabs(c)));
    return e;
}

// World matrices of two skeletons' local poses agree within tolerance (translation) and
// rotation_tolerance (rotation columns).
void expect_same_world(const Skeleton& a, const std::vector<Transform>& pa, const Skeleton& b, const std::vector<Transform>& pb, double tolerance,
                       const std::string& what, double rotation_tolerance = 1e-5) {
    const auto wa = world_matrices(a, pa), wb = world_matrices(b, pb);
    ASSERT_EQ(wa.size(), wb.size()) << what;
    for (size_t j = 0; j < wa.size(); ++j)
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r)
                ASSERT_NEAR(wa[j][c][r], wb[j][c][r], c == 3 ? tolerance : rotation_tolerance) << what << " joint " << j << " column " << c << " row " << r;
}

TEST(Md5Write, SampleSceneRoundTrips) {
    const Scene sample = make_sample_scene();
    const fs::path dir = files_dir();
    Warnings warnings;
    const auto paths = write_md5(sample, dir, "sample", &warnings);
    ASSERT_EQ(paths.size(), 1 + sample.animations.size());
    EXPECT_EQ(fs::path(paths[1]).filename(), "sample_" + sample.animations[0].name + ".md5anim");
    // The sample's pulse animation scales a joint: MD5 has no scale.
    EXPECT_TRUE(warnings.has(WarningCode::DroppedData));
    for (auto& w : warnings.items) EXPECT_NE(w.code, WarningCode::Other) << w.message;

    const Scene back = compile_md5(paths);
    const double tolerance = 1e-5 * std::max(1.0, extent(sample));
    ASSERT_EQ(back.meshes.size(), sample.meshes.size());
    for (size_t m = 0; m < sample.meshes.size(); ++m) {
        const Mesh& a = sample.meshes[m];
        const Mesh& b = back.meshes[m];
        ASSERT_EQ(a.vertex_count(), b.vertex_count());
        EXPECT_EQ(a.triangles, b.triangles);
        for (uint32_t v = 0; v < a.vertex_count(); ++v)
            for (int c = 0; c < 3; ++c) ASSERT_NEAR(a.positions[v][c], b.positions[v][c], tolerance) << "vertex " << v;
        for (uint32_t v = 0; v < a.vertex_count(); ++v) {
            ASSERT_EQ(a.skin.count(v), b.skin.count(v)) << "vertex " << v;
            for (uint32_t k = 0; k < a.skin.count(v); ++k) {
                EXPECT_EQ(a.skin.begin(v)[k].joint, b.skin.begin(v)[k].joint);
                EXPECT_NEAR(a.skin.begin(v)[k].weight, b.skin.begin(v)[k].weight, 1e-6);
            }
        }
        EXPECT_EQ(a.texcoords[0], b.texcoords[0]);
    }
    ASSERT_EQ(back.skeleton.joints.size(), sample.skeleton.joints.size());
    for (size_t j = 0; j < sample.skeleton.joints.size(); ++j) EXPECT_EQ(back.skeleton.joints[j].name, sample.skeleton.joints[j].name);
    expect_same_world(sample.skeleton, bind_pose(sample.skeleton), back.skeleton, bind_pose(back.skeleton), tolerance, "bind pose");

    // Sampled poses at every frame: translation and rotation as the source's (scale is dropped).
    ASSERT_EQ(back.animations.size(), sample.animations.size());
    for (size_t i = 0; i < sample.animations.size(); ++i) {
        const Animation& a = sample.animations[i];
        const Animation& b = back.animations[i];
        EXPECT_EQ(b.name, "sample_" + a.name);  // an .md5anim names no animation: its file does
        EXPECT_EQ(b.frame_rate, a.frame_rate);
        EXPECT_EQ(b.frame_count, sampled_frame_count(a));
        for (uint32_t f = 0; f < b.frame_count; ++f) {
            auto pa = frame_pose(sample.skeleton, a, f);
            auto pb = frame_pose(back.skeleton, b, f);
            for (auto& t : pa) t.scale = {1, 1, 1};
            expect_same_world(sample.skeleton, pa, back.skeleton, pb, tolerance, a.name + " frame " + std::to_string(f));
        }
    }
}

TEST(Md5Write, CorpusThroughIqmAndBack) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path md5 = corpus_dir() / "md5";
    const std::string mesh = (md5 / "UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view.md5mesh").string();
    const std::string anim = (md5 / "UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view_fire.md5anim").string();
    const Scene source = compile_md5({mesh, anim});
    ASSERT_EQ(source.animations.size(), 1u);
    EXPECT_EQ(source.animations[0].frame_count, 13u);
    EXPECT_EQ(source.animations[0].frame_rate, 60.0f);

    // MD5 -> IQM (quantized frames) -> MD5 -> scene.
    const fs::path dir = files_dir();
    const std::string iqm = (dir / "rifle.iqm").string();
    ASSERT_TRUE(save(source, iqm));
    auto through = load(iqm);
    ASSERT_TRUE(through) << through.error().to_string();
    const auto paths = write_md5(*through, dir, "rifle");
    ASSERT_EQ(paths.size(), 2u);
    const Scene back = compile_md5(paths);
    const double size = extent(source);
    ASSERT_EQ(back.meshes.size(), source.meshes.size());
    double worst = 0;
    for (size_t m = 0; m < source.meshes.size(); ++m) {
        ASSERT_EQ(back.meshes[m].vertex_count(), source.meshes[m].vertex_count());
        for (uint32_t v = 0; v < source.meshes[m].vertex_count(); ++v)
            for (int c = 0; c < 3; ++c) worst = std::max(worst, double(std::fabs(back.meshes[m].positions[v][c] - source.meshes[m].positions[v][c])));
    }
    EXPECT_LE(worst, 1e-5 * size) << "positions, model size " << size;
    expect_same_world(source.skeleton, bind_pose(source.skeleton), back.skeleton, bind_pose(back.skeleton), 1e-5 * size, "bind pose");
    // IQM quantizes frames to 16 bits per channel over each channel's range: 1e-3 of the size,
    // 1e-3 per rotation matrix entry (0.06 degrees).
    for (uint32_t f = 0; f < 13; ++f)
        expect_same_world(source.skeleton, frame_pose(source.skeleton, source.animations[0], f), back.skeleton,
                          frame_pose(back.skeleton, back.animations[0], f), 1e-3 * size, "frame " + std::to_string(f), 1e-3);
}

TEST(Md5Write, InfluencesLimitedAndUnweightedVerticesBound) {
    Scene s = make_sample_scene();
    Mesh& m = s.meshes[0];
    // Vertex 0 gets five influences, vertex 1 none.
    SkinInfluences skin;
    skin.offsets.push_back(0);
    for (uint32_t v = 0; v < m.vertex_count(); ++v) {
        if (v == 0)
            for (uint32_t j = 0; j < 5; ++j) skin.influences.push_back(Influence{j % uint32_t(s.skeleton.joints.size()), 0.1f + 0.1f * float(j)});
        else if (v != 1)
            for (uint32_t k = 0; k < m.skin.count(v); ++k) skin.influences.push_back(m.skin.begin(v)[k]);
        skin.offsets.push_back(uint32_t(skin.influences.size()));
    }
    m.skin = std::move(skin);
    MorphTarget t;
    t.name = "smile";
    t.position_deltas.assign(m.vertex_count(), Vec3{0, 0.1f, 0});
    m.morph_targets.push_back(std::move(t));
    s.animations.clear();
    Warnings warnings;
    const auto paths = write_md5(s, files_dir(), "limits", &warnings);
    ASSERT_EQ(paths.size(), 1u);
    EXPECT_TRUE(warnings.has(WarningCode::UnweightedVertex));
    bool influences = false, morphs = false;
    for (auto& w : warnings.items) {
        influences = influences || (w.code == WarningCode::DroppedData && w.message.find("more than 4 influences") != std::string::npos);
        morphs = morphs || (w.code == WarningCode::DroppedData && w.message.find("morph targets") != std::string::npos);
    }
    EXPECT_TRUE(influences);
    EXPECT_TRUE(morphs);
    auto back = load(paths[0]);
    ASSERT_TRUE(back) << back.error().to_string();
    const Mesh& b = back->meshes[0];
    EXPECT_EQ(b.skin.count(0), 4u);
    EXPECT_EQ(b.skin.count(1), 1u);  // bound to the first joint
    EXPECT_EQ(b.skin.begin(1)[0].joint, 0u);
    for (uint32_t v : {0u, 1u})
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(b.positions[v][c], m.positions[v][c], 1e-5 * extent(s));
}

TEST(Md5Write, StaticModelGetsAnOriginJoint) {
    Scene s = make_sample_scene();
    s.animations.clear();
    s.skeleton = Skeleton{};
    for (auto& m : s.meshes) m.skin = SkinInfluences{};
    const auto paths = write_md5(s, files_dir(), "static");
    ASSERT_EQ(paths.size(), 1u);
    auto back = load(paths[0]);
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->skeleton.joints.size(), 1u);
    EXPECT_EQ(back->skeleton.joints[0].name, "origin");
    ASSERT_EQ(back->meshes[0].vertex_count(), s.meshes[0].vertex_count());
    for (uint32_t v = 0; v < s.meshes[0].vertex_count(); ++v)  // fixed decimals: 1e-10 absolute
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(back->meshes[0].positions[v][c], s.meshes[0].positions[v][c], 1e-6);
}

}  // namespace
}  // namespace rigport::test
