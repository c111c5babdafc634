// glTF 2.0 writer on the corpus through the CLI: mrfixit's skin and animation, the glTF options,
// and our own skinning of the written GLB against rigport's skinning of the source (docs/gltf.md
// §1, §3, §4; the three.js and validator oracles are in test_gltf_corpus.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "formats/gltf/gltf_parse.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

fs::path mrfixit() { return corpus_dir() / "iqm" / "mrfixit.iqm"; }

ParsedGltf convert(const fs::path& out, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"convert", mrfixit().string(), "-o", out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return parse_glb(read_bytes(out));
}

// Skin joint and key counts of mrfixit: GltfCorpusMrfixit.SkinJointsAndIdleKeys (test_gltf_corpus.cpp).

TEST(GltfCorpusWrite, CliOptions) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path dir = temp_dir();
    RunResult bad = run_cli({"convert", mrfixit().string(), "-o", (dir / "x.glb").string(), "--axis", "sideways"});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.err.find("--axis"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(dir / "x.glb"));
    // A .gltf output gets its .bin beside it.
    RunResult r = run_cli({"convert", mrfixit().string(), "-o", (dir / "m.gltf").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(fs::exists(dir / "m.bin"));
    ParsedGltf g = parse_gltf(read_bytes(dir / "m.gltf"), read_bytes(dir / "m.bin"));
    EXPECT_EQ(g.json["buffers"][0]["uri"], "m.bin");
    EXPECT_EQ(g.json["buffers"][0]["byteLength"].get<uint64_t>(), fs::file_size(dir / "m.bin"));
    // --loop-key on the sample's looping "wave" (25 frames): 26 keys, the last at 25/24 s.
    ASSERT_EQ(run_cli({"sample", "-o", (dir / "s.iqm").string()}).exit_code, 0);
    ASSERT_EQ(run_cli({"convert", (dir / "s.iqm").string(), "-o", (dir / "s.glb").string(), "--loop-key"}).exit_code, 0);
    ParsedGltf s = parse_glb(read_bytes(dir / "s.glb"));
    const auto& input = s.accessor_json(s.json["animations"][0]["samplers"][0]["input"]);
    EXPECT_EQ(input["count"], 26);
    EXPECT_FLOAT_EQ(input["max"][0].get<float>(), 25.0f / 24.0f);
}

// Skins the written GLB at key `frame` of animation 0 ourselves: node TRS with the channels' key
// values, world matrices through the node tree (axis node included), joint matrices world * IBM.
std::vector<std::array<double, 3>> skin_glb(const ParsedGltf& g, size_t mesh, size_t frame) {
    std::vector<Transform> local;
    for (size_t n = 0; n < g.json["nodes"].size(); ++n) local.push_back(g.node_trs(n));
    const auto& anim = g.json["animations"][0];
    for (auto& c : anim["channels"]) {
        const auto& sampler = anim["samplers"][c["sampler"].get<size_t>()];
        const std::vector<double> v = g.accessor(sampler["output"]);
        const size_t keys = g.accessor_json(sampler["input"])["count"];
        const size_t k = std::min(frame, keys - 1), n = c["target"]["node"], w = v.size() / keys;
        const std::string path = c["target"]["path"];
        float* out = path == "translation" ? local[n].translate.data() : path == "rotation" ? local[n].rotate.data() : local[n].scale.data();
        for (size_t i = 0; i < w; ++i) out[i] = float(v[k * w + i]);
    }
    const std::vector<Mat4> world = g.world(local);
    const auto& skin = g.json["skins"][0];
    const std::vector<double> ibm = g.accessor(skin["inverseBindMatrices"]);
    std::vector<Mat4> joint;
    for (size_t j = 0; j < skin["joints"].size(); ++j) {
        Mat4 m;
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r) m[c][r] = ibm[j * 16 + c * 4 + r];
        joint.push_back(multiply(world[skin["joints"][j].get<size_t>()], m));
    }
    const std::vector<double> pos = g.accessor(g.attribute(mesh, "POSITION")), js = g.accessor(g.attribute(mesh, "JOINTS_0")),
                              ws = g.accessor(g.attribute(mesh, "WEIGHTS_0"));
    std::vector<std::array<double, 3>> out(pos.size() / 3, {0, 0, 0});
    for (size_t v = 0; v < out.size(); ++v)
        for (size_t k = 0; k < 4; ++k) {
            const auto p = transform_point(joint[size_t(js[v * 4 + k])], {pos[v * 3], pos[v * 3 + 1], pos[v * 3 + 2]});
            for (int i = 0; i < 3; ++i) out[v][i] += ws[v * 4 + k] * p[i];
        }
    return out;
}

TEST(GltfCorpusWrite, MrfixitSkinningMatchesSourceInBothAxisModes) {
    RIGPORT_REQUIRE_CORPUS();
    auto scene = load(mrfixit().string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    const fs::path dir = temp_dir();
    for (const char* mode : {"bake", "root"}) {
        ParsedGltf g = convert(dir / (std::string(mode) + ".glb"), {"--axis", mode});
        for (size_t frame : {0u, 37u, 100u}) {
            const auto skinning = skinning_matrices(scene->skeleton, frame_pose(scene->skeleton, scene->animations[0], uint32_t(frame)));
            for (size_t m = 0; m < scene->meshes.size(); ++m) {
                const auto expected = skin_positions(scene->meshes[m], skinning);
                const auto got = skin_glb(g, m, frame);
                ASSERT_EQ(got.size(), expected.size());
                std::array<double, 3> lo{1e30, 1e30, 1e30}, hi{-1e30, -1e30, -1e30};
                for (auto& p : expected)
                    for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], p[i]), hi[i] = std::max(hi[i], p[i]);
                const double diagonal = std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
                double worst = 0;
                for (size_t v = 0; v < got.size(); ++v) {  // the axis map (x, y, z) -> (x, z, -y)
                    const std::array<double, 3> e{expected[v][0], expected[v][2], -expected[v][1]};
                    for (int i = 0; i < 3; ++i) worst = std::max(worst, std::fabs(got[v][i] - e[i]));
                }
                EXPECT_LT(worst, 1e-4 * diagonal) << mode << " frame " << frame << " mesh " << m;
            }
        }
    }
}

}  // namespace
}  // namespace rigport::test
