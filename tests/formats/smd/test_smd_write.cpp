// SMD writer (docs/smd.md): the sample scene -> SMD (+ animation SMDs beside it) -> scene keeps
// every triangle corner, the skin and the animated joint positions within stated tolerances; a
// corpus SMD -> glTF -> SMD keeps its corners and weights; what SMD cannot hold is a typed warning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "convert_checks.hpp"
#include "rigport/anim.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// Every triangle corner's position, triangle by triangle, in the scene's own winding: a
// clockwise scene's (a, b, c) is SMD's (a, c, b).
std::vector<Vec3> corners(const Scene& s) {
    std::vector<Vec3> out;
    const bool cw = s.meta.front_face == Winding::Clockwise;
    for (auto& m : s.meshes)
        for (auto& t : m.triangles)
            for (uint32_t k : {0u, cw ? 2u : 1u, cw ? 1u : 2u}) out.push_back(m.positions[t[k]]);
    return out;
}

double size_of(const std::vector<Vec3>& ps) {
    double size = 0;
    for (auto& p : ps) size = std::max({size, double(std::fabs(p[0])), double(std::fabs(p[1])), double(std::fabs(p[2]))});
    return size;
}

// The weight a vertex gives each joint, by joint name.
std::map<std::string, float> weights_of(const Scene& s, const Mesh& m, uint32_t v) {
    std::map<std::string, float> out;
    for (uint32_t k = 0; k < m.skin.count(v); ++k) out[s.skeleton.joints[m.skin.begin(v)[k].joint].name] += m.skin.begin(v)[k].weight;
    return out;
}

TEST(SmdWrite, SampleRoundTrip) {
    const Scene sample = make_sample_scene();
    Warnings warnings;
    SaveOptions o;
    o.warnings = &warnings;
    const fs::path dir = files_dir();
    const std::string path = (dir / "sample.smd").string();
    auto out = save_output(sample, path, o);
    ASSERT_TRUE(out) << out.error().to_string();
    ASSERT_EQ(out->side_files.size(), 3u);
    EXPECT_EQ(out->side_files[0].name, "sample_wave.smd");
    EXPECT_EQ(out->side_files[1].name, "sample_pulse.smd");
    // The .qc that compiles them: the reference as $body, each animation SMD as a $sequence.
    EXPECT_EQ(out->side_files[2].name, "sample.qc");
    const std::string qc(out->side_files[2].bytes.begin(), out->side_files[2].bytes.end());
    EXPECT_NE(qc.find("$body \"body\" \"sample\"\n"), std::string::npos) << qc;
    EXPECT_NE(qc.find("$sequence \"wave\" \"sample_wave\" fps "), std::string::npos) << qc;
    const ModelList list = find_format("smd")->model_list(out->side_files[2].bytes);
    EXPECT_EQ(list.meshes, std::vector<std::string>{"sample.smd"});
    EXPECT_TRUE(std::find(list.animations.begin(), list.animations.end(), "sample_wave.smd") != list.animations.end());
    EXPECT_TRUE(std::find(list.animations.begin(), list.animations.end(), "sample_pulse.smd") != list.animations.end());
    EXPECT_TRUE(warnings.has(WarningCode::DroppedData));       // scales, colours, tangents
    EXPECT_TRUE(warnings.has(WarningCode::ReaderDifference));  // 24 fps is not stored
    for (auto& w : warnings.items) EXPECT_NE(w.code, WarningCode::Other) << w.message;
    // Deterministic.
    auto again = save_output(sample, path, SaveOptions{});
    ASSERT_TRUE(again);
    EXPECT_EQ(again->bytes, out->bytes);

    write_files(*out, path);
    auto back = compile({CompileInput{{path}, {}}, CompileInput{{(dir / "sample_wave.smd").string()}, {}}}, CompileOptions{});
    ASSERT_TRUE(back) << back.error().to_string();

    // Geometry: every corner within 1e-6 of the model size (shortest float text is exact).
    const auto a = corners(sample), b = corners(*back);
    ASSERT_EQ(a.size(), b.size());
    const double size = size_of(a);
    for (size_t i = 0; i < a.size(); ++i)
        for (int c = 0; c < 3; ++c) ASSERT_NEAR(a[i][size_t(c)], b[i][size_t(c)], 1e-6 * size) << "corner " << i;
    // Skin: the same weights per joint name (the writer normalizes; the sample's sum to 1).
    const Mesh& ms = sample.meshes[0];
    const Mesh& mb = back->meshes[0];
    const auto& ts = ms.triangles[0];
    const auto& tb = mb.triangles[0];
    for (auto [i, j] : {std::pair{0, 0}, {1, 2}, {2, 1}}) {
        const auto ws = weights_of(sample, ms, ts[size_t(i)]), wb = weights_of(*back, mb, tb[size_t(j)]);
        ASSERT_EQ(ws.size(), wb.size());
        for (auto& [name, w] : ws) EXPECT_NEAR(wb.at(name), w, 1e-6) << name;
    }
    EXPECT_NEAR(back->meshes[0].texcoords[0][tb[0]][1], ms.texcoords[0][ts[0]][1], 1e-6);

    // Animation: "wave" frame f (24 fps in the sample, 30 in SMD) puts every joint where the
    // sample does, within 1e-5 of the model size; Euler angles go through double.
    ASSERT_EQ(back->animations.size(), 1u);
    const Animation& wave = sample.animations[0];
    ASSERT_EQ(back->animations[0].frame_count, wave.frame_count);
    // Its name, rate and looping from the $sequence of sample.qc beside it, not from its file name.
    EXPECT_EQ(back->animations[0].name, "wave");
    EXPECT_FLOAT_EQ(back->animations[0].frame_rate, sampling_rate(wave));
    EXPECT_EQ(back->animations[0].loop, wave.loop);
    // Without the .qc: named after its file, at SMD's 30 frames per second.
    fs::remove(dir / "sample.qc");
    auto alone = load((dir / "sample_wave.smd").string());
    ASSERT_TRUE(alone) << alone.error().to_string();
    EXPECT_EQ(alone->animations.at(0).name, "");
    EXPECT_FLOAT_EQ(alone->animations.at(0).frame_rate, 30.0f);
    for (uint32_t f = 0; f < wave.frame_count; ++f) {
        const auto ws = world_matrices(sample.skeleton, frame_pose(sample.skeleton, wave, f));
        const auto wb = world_matrices(back->skeleton, frame_pose(back->skeleton, back->animations[0], f));
        for (size_t j = 0; j < ws.size(); ++j)
            for (int c = 0; c < 3; ++c) ASSERT_NEAR(ws[j][3][size_t(c)], wb[j][3][size_t(c)], 1e-5 * size) << "frame " << f << " joint " << j;
    }
}

TEST(SmdWrite, CorpusThroughGltfAndBack) {
    RIGPORT_REQUIRE_CORPUS();
    for (const char* name : {"Artfunkel_BlenderSourceTools__Cube_Armature_Cube.smd", "assimp_assimp__holy_grailref.smd"}) {
        auto smd = load((corpus_dir() / "smd" / name).string());
        ASSERT_TRUE(smd) << smd.error().to_string();
        SaveOptions glb;
        glb.format = "glb";
        auto g = save_output(*smd, "x.glb", glb);
        ASSERT_TRUE(g) << g.error().to_string();
        auto gltf = load_bytes(g->bytes, "x.glb");
        ASSERT_TRUE(gltf) << gltf.error().to_string();
        auto out = save_output(*gltf, "x.smd", SaveOptions{});
        ASSERT_TRUE(out) << out.error().to_string();
        auto back = load_bytes(out->bytes, "x.smd");
        ASSERT_TRUE(back) << back.error().to_string();
        // Y up and back: one rotation each way, 1e-6 of the model size.
        const auto a = corners(*smd), b = corners(*back);
        ASSERT_EQ(a.size(), b.size()) << name;
        const double size = size_of(a);
        for (size_t i = 0; i < a.size(); ++i)
            for (int c = 0; c < 3; ++c) ASSERT_NEAR(a[i][size_t(c)], b[i][size_t(c)], 1e-6 * size) << name << " corner " << i;
        EXPECT_EQ(back->skeleton.joints.size(), smd->skeleton.joints.size());
        EXPECT_EQ(back->materials[0].name, smd->materials[0].name);
        const Mesh& m = back->meshes[0];
        for (uint32_t v = 0; v < m.vertex_count(); ++v) {
            float total = 0;
            for (uint32_t k = 0; k < m.skin.count(v); ++k) total += m.skin.begin(v)[k].weight;
            ASSERT_NEAR(total, 1.0f, 1e-5) << name;
        }
    }
}

TEST(SmdWrite, StaticSceneMaterialNamesAndVta) {
    Scene s;
    s.meta.up = UpAxis::Z;
    s.meta.front_face = Winding::CounterClockwise;
    Mesh m;
    m.name = "quad";
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    m.triangles = {{0, 1, 2}};
    m.material = 0;
    m.morph_targets.push_back(MorphTarget{"shape", {{0, 0, 1}, {0, 0, 0}, {0, 0, 0}}, {}, {}, 0});
    s.meshes.push_back(m);
    s.materials.push_back(Material{"end"});
    Warnings warnings;
    SaveOptions o;
    o.warnings = &warnings;
    auto out = save_output(s, "static.smd", o);
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_TRUE(out->side_files.empty());
    EXPECT_TRUE(warnings.has(WarningCode::DroppedData));  // the morph target
    EXPECT_TRUE(warnings.has(WarningCode::Substituted));  // "end" and face normals
    auto back = load_bytes(out->bytes, "static.smd");
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->materials[0].name, "_end");
    EXPECT_EQ(back->skeleton.joints[0].name, "root");
    EXPECT_EQ(back->meshes[0].normals[0], (Vec3{0, 0, 1}));  // the face's, counter-clockwise
    auto vta = save_output(s, "static.vta", SaveOptions{});
    ASSERT_FALSE(vta);
    EXPECT_EQ(vta.error().code, ErrorCode::Unsupported);
}

}  // namespace
}  // namespace rigport::test
