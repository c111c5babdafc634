// Compressed glTF made by other tools, read to the same skinned positions as the uncompressed file
// (docs/gltf.md §7.1): Debian's gltfpack -cc (EXT_meshopt_compression, KHR_mesh_quantization,
// KHR_texture_transform) on CesiumMan, RiggedFigure, mrfixit and the built-in sample, and glTF
// Transform's Draco encoder (tests/js/draco.mjs, KHR_draco_mesh_compression) on CesiumMan and the
// sample. The compressed files are made in each run, never kept.
//
// How positions are compared: gltfpack reorders vertices for the vertex cache, merges equal
// vertices and may merge meshes, and Draco's edgebreaker renumbers points, so no vertex index
// can be matched. Both scenes are skinned at the same times and compared as point sets: the
// symmetric Hausdorff distance (every vertex of each has a vertex of the other within it). That
// is sound for this purpose: a misread (wrong stride, a filter not applied, dequantisation
// dropped, a wrong bind matrix) moves whole attributes or meshes far beyond the quantisation step,
// while a correct read moves each vertex by at most that step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "gltf_oracle.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// Every vertex of every mesh at `time` of the animation named `clip` (the rest pose when the
// scene has none of that name): morph weights, then the skin.
std::vector<std::array<double, 3>> posed_points(const Scene& s, const std::string& clip, float time) {
    const Animation* animation = nullptr;
    for (const Animation& a : s.animations)
        if (a.name == clip) animation = &a;
    const auto local = animation ? sample_pose(s.skeleton, *animation, time) : bind_pose(s.skeleton);
    const auto skinning = skinning_matrices(s.skeleton, local);
    std::vector<std::array<double, 3>> out;
    for (uint32_t m = 0; m < s.meshes.size(); ++m) {
        const Mesh& mesh = s.meshes[m];
        std::vector<float> weights;
        for (const MorphTarget& t : mesh.morph_targets) weights.push_back(t.default_weight);
        if (animation) weights = sample_morph_weights(mesh, m, *animation, time);
        const auto morphed = morph_positions(mesh, weights);
        const auto skinned = skin_positions(mesh, morphed, skinning);
        out.insert(out.end(), skinned.begin(), skinned.end());
    }
    return out;
}

double diagonal(const std::vector<std::array<double, 3>>& points) {
    std::array<double, 3> lo{HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (auto& p : points)
        for (int c = 0; c < 3; ++c) lo[c] = std::min(lo[c], p[c]), hi[c] = std::max(hi[c], p[c]);
    return std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

// Every vertex's first texcoord set, as points (u, v, 0).
std::vector<std::array<double, 3>> uv_points(const Scene& s) {
    std::vector<std::array<double, 3>> out;
    for (const Mesh& m : s.meshes)
        if (!m.texcoords.empty())
            for (auto& uv : m.texcoords[0]) out.push_back({uv[0], uv[1], 0});
    return out;
}

struct Compared {
    double rest = 0, posed = 0, size = 0;  // largest distances, and the rest pose's diagonal
};

// The original and the compressed read compared at the rest pose and, per animation, at its
// first key and at the 1/30 s step after it nearest the clip's middle: gltfpack resamples a clip
// at 30 Hz from its first key (CesiumMan's starts at 1/24 s), so both files hold that pose
// itself there, and the difference is gltfpack's quantisation, not its resampling.
Compared compare(const Scene& original, const Scene& compressed) {
    Compared c;
    const auto rest = posed_points(original, "", 0);
    c.size = diagonal(rest);
    c.rest = point_set_distance(rest, posed_points(compressed, "", 0));
    for (const Animation& a : original.animations) {
        float start = HUGE_VALF, end = 0;
        for (auto& t : a.tracks)
            if (!t.times.empty()) start = std::min(start, t.times.front()), end = std::max(end, t.times.back());
        if (start > end) continue;
        for (float time : {start, start + std::round((end - start) * 15.0f) / 30.0f})
            c.posed = std::max(c.posed, point_set_distance(posed_points(original, a.name, time), posed_points(compressed, a.name, time)));
    }
    return c;
}

Scene read(const fs::path& path) {
    auto s = load(path.string());
    EXPECT_TRUE(s) << path << ": " << s.error().to_string();
    return s ? std::move(*s) : Scene{};
}

// The uncompressed GLB a test starts from: a corpus glTF as it is, an IQM converted by rigport.
fs::path original_glb(const std::string& name, const fs::path& dir) {
    if (name == "sample") {
        const fs::path out = dir / "sample.glb";
        // Without its texture map: the GLB would name sample_texture.png beside it, which
        // save_bytes does not write and glTF Transform insists on reading.
        Scene sample = make_sample_scene();
        for (Material& m : sample.materials) m.maps.clear();
        auto bytes = save_bytes(sample, out.string());
        EXPECT_TRUE(bytes) << bytes.error().to_string();
        if (bytes) write_bytes(out, *bytes);
        return out;
    }
    const fs::path source = corpus_dir() / name;
    if (source.extension() == ".glb") return source;
    const fs::path out = dir / (source.stem().string() + ".glb");
    auto scene = load(source.string());
    EXPECT_TRUE(scene) << scene.error().to_string();
    auto bytes = scene ? save_bytes(*scene, out.string()) : Expected<std::vector<uint8_t>>(scene.error());
    EXPECT_TRUE(bytes) << bytes.error().to_string();
    if (bytes) write_bytes(out, *bytes);
    return out;
}

bool have(const char* program) { return run_program("sh", {"-c", std::string("command -v ") + program}).exit_code == 0; }

class GltfReadGltfpack : public ::testing::TestWithParam<std::string> {};

// gltfpack's defaults: positions in 14 bits over the scene's bounds (one step is at most the
// diagonal / (2^14 - 1)), normals 8, texcoords 12; animation resampled at 30 Hz, rotations in
// 12 bits, translations and scales in 16. The rest pose may differ by one position step (half a
// step per axis, rounded, plus the dequantisation's float error); a posed vertex also moves with
// its joints' rotation steps along the chain: allowed 1e-3 of the diagonal, about 16 position
// steps. Measured: rest 0.57-0.81 steps; posed 1.4e-4 (RiggedFigure, mrfixit, sample) to 3.7e-4
// (CesiumMan) of the diagonal.
TEST_P(GltfReadGltfpack, CompressedReadsToTheSameSkinnedPositions) {
    const std::string name = GetParam();
    if (name != "sample") RIGPORT_REQUIRE_CORPUS();
    ASSERT_TRUE(have("gltfpack")) << "gltfpack not found: scripts/setup.sh installs Debian's gltfpack";
    const fs::path dir = files_dir();
    const fs::path in = original_glb(name, dir);
    const fs::path packed = dir / "packed.glb";
    auto run = run_program("gltfpack", {"-i", in.string(), "-o", packed.string(), "-cc"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

    const Scene original = read(in), compressed = read(packed);
    ASSERT_FALSE(compressed.meshes.empty());
    const Compared c = compare(original, compressed);
    const double step = c.size / ((1 << 14) - 1);
    std::cout << "[ measured ] " << name << ": diagonal " << c.size << ", rest " << c.rest << " (" << c.rest / step << " steps), posed " << c.posed
              << " (" << c.posed / c.size << " of the diagonal)\n";
    EXPECT_LE(c.rest, step) << "rest pose beyond one 14-bit step";
    EXPECT_LE(c.posed, 1e-3 * c.size) << "posed beyond 1e-3 of the diagonal";
    // gltfpack stores texcoords as 12-bit integers with a KHR_texture_transform that maps them back;
    // the reader applies it, so the sets of texcoords agree within one step of their extent.
    // gltfpack drops texcoords no texture uses (the sample is written without its map), so they
    // are required only where the original has a textured material.
    const auto a = uv_points(original), b = uv_points(compressed);
    const bool textured = std::any_of(original.materials.begin(), original.materials.end(), [](const Material& m) { return !m.maps.empty(); });
    if (textured && !a.empty()) {
        ASSERT_FALSE(b.empty()) << "texcoords lost";
    }
    if (!b.empty()) {
        const double uv_size = diagonal(a), uv = point_set_distance(a, b);
        std::cout << "[ measured ] " << name << ": texcoords within " << uv << " (extent " << uv_size << ")\n";
        EXPECT_LE(uv, uv_size / ((1 << 12) - 1)) << "texcoords beyond one 12-bit step";
    }
}

INSTANTIATE_TEST_SUITE_P(Models, GltfReadGltfpack, ::testing::Values("gltf/CesiumMan.glb", "gltf/RiggedFigure.glb", "iqm/mrfixit.iqm", "sample"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = fs::path(info.param).stem().string();
                             for (char& ch : n)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return n;
                         });

class GltfReadDraco : public ::testing::TestWithParam<std::string> {};

// tests/js/draco.mjs quantises positions in 14 bits over each primitive's bounds, texcoords 12,
// normals 10, weights 12; joints are kept exactly, and no animation is touched. A vertex moves by
// at most half a step per axis: within one step of the diagonal at rest; posed, the 12-bit
// weights move a vertex a little further, so two steps. Measured: rest 0.64 (CesiumMan) and 0.81
// (sample) steps, posed 0.80 and 1.22 steps.
TEST_P(GltfReadDraco, CompressedReadsToTheSameSkinnedPositions) {
    const std::string name = GetParam();
    if (name != "sample") RIGPORT_REQUIRE_CORPUS();
    RIGPORT_SKIP_PEER_IN_SANITIZER_BUILD();
    RIGPORT_REQUIRE_JS();
    const fs::path dir = files_dir();
    const fs::path in = original_glb(name, dir);
    const fs::path packed = dir / "draco.glb";
    auto run = run_program("node", {std::string(RIGPORT_SOURCE_DIR) + "/tests/js/draco.mjs", in.string(), packed.string(), "14"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

    const Scene original = read(in), compressed = read(packed);
    ASSERT_FALSE(compressed.meshes.empty());
    const Compared c = compare(original, compressed);
    const double step = c.size / ((1 << 14) - 1);
    std::cout << "[ measured ] " << name << " (Draco): diagonal " << c.size << ", rest " << c.rest << " (" << c.rest / step << " steps), posed "
              << c.posed << " (" << c.posed / step << " steps)\n";
    EXPECT_LE(c.rest, step);
    EXPECT_LE(c.posed, step * 2) << "weights quantised in 12 bits move posed vertices a little further";
    size_t triangles = 0, original_triangles = 0;
    for (auto& m : compressed.meshes) triangles += m.triangles.size();
    for (auto& m : original.meshes) original_triangles += m.triangles.size();
    EXPECT_EQ(triangles, original_triangles) << "Draco keeps every triangle";
}

INSTANTIATE_TEST_SUITE_P(Models, GltfReadDraco, ::testing::Values("gltf/CesiumMan.glb", "sample"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = fs::path(info.param).stem().string();
                             for (char& ch : n)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return n;
                         });

// The fuzz target's two compressed seeds (tests/fuzz/regressions/fuzz_gltf/, made by gltfpack -cc
// and tests/js/draco.mjs from a five-vertex tent of ours) read without gltfpack, node or the
// corpus: the tent's corners within one 14-bit step of its diagonal (sqrt 3), four triangles.
TEST(GltfReadCompressed, FuzzSeedsReadToTheTent) {
    const std::vector<std::array<double, 3>> tent = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0.5, 0.5, 1}};
    for (const char* name : {"meshopt-tent.glb", "draco-tent.glb"}) {
        const Scene s = read(fs::path(RIGPORT_SOURCE_DIR) / "tests/fuzz/regressions/fuzz_gltf" / name);
        ASSERT_EQ(s.meshes.size(), 1u) << name;
        EXPECT_EQ(s.meshes[0].triangles.size(), 4u) << name;
        const double d = point_set_distance(mesh_positions(s), tent);
        std::cout << "[ measured ] " << name << ": corners within " << d << "\n";
        EXPECT_LE(d, std::sqrt(3.0) / ((1 << 14) - 1)) << name;
    }
}

}  // namespace
}  // namespace rigport::test
