// Compressed glTF output (docs/gltf.md "Compressed output"): KHR_mesh_quantization and
// EXT_meshopt_compression decoded in the test with meshoptimizer's own decoders and compared with
// the uncompressed output; the corpus models through the Khronos validator, three.js with its
// meshopt decoder, and against gltfpack -cc's size.
#include <gtest/gtest.h>
#include <meshoptimizer.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "formats/gltf/gltf_keys.hpp"
#include "formats/gltf/gltf_parse.hpp"
#include "formats/gltf/gltf_quantize.hpp"
#include "gltf_oracle.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

SaveOptions compressed(GltfCompression::Level level = GltfCompression::Level::Small, uint32_t bits = 0) {
    SaveOptions o;
    o.gltf.compression.enabled = true;
    o.gltf.compression.level = level;
    o.gltf.compression.position_bits = bits;
    return o;
}

// Every EXT_meshopt_compression view decoded with meshoptimizer's decoders (filters included)
// into a copy of the fallback buffer, which then serves as the parsed file's buffer: the views
// already point into it. Fails the test when a view does not decode.
ParsedGltf decode_meshopt(const ParsedGltf& g) {
    ParsedGltf d;
    d.json = g.json;
    const auto& buffers = g.json["buffers"];
    EXPECT_EQ(buffers.size(), 2u);
    if (buffers.size() != 2) return d;
    EXPECT_TRUE(buffers[1]["extensions"]["EXT_meshopt_compression"]["fallback"].get<bool>());
    EXPECT_FALSE(buffers[1].contains("uri"));
    d.bin.assign(buffers[1]["byteLength"].get<size_t>(), 0);
    for (const auto& view : g.json["bufferViews"]) {
        if (!view.contains("extensions")) {
            EXPECT_EQ(view["buffer"], 0);
            continue;
        }
        EXPECT_EQ(view["buffer"], 1);
        const auto& m = view["extensions"]["EXT_meshopt_compression"];
        const size_t offset = m.value("byteOffset", size_t(0)), length = m["byteLength"], stride = m["byteStride"], count = m["count"];
        const size_t target = view.value("byteOffset", size_t(0));
        EXPECT_EQ(count * stride, view["byteLength"].get<size_t>());
        EXPECT_EQ(m["buffer"], 0);
        if (offset + length > g.bin.size() || target + count * stride > d.bin.size()) {
            ADD_FAILURE() << "a compressed view lies outside its buffer";
            continue;
        }
        const unsigned char* src = g.bin.data() + offset;
        uint8_t* dst = d.bin.data() + target;
        const std::string mode = m["mode"];
        int rc = -1;
        if (mode == "ATTRIBUTES") {
            EXPECT_EQ(stride % 4, 0u);
            rc = meshopt_decodeVertexBuffer(dst, count, stride, src, length);
            const std::string filter = m.value("filter", "NONE");
            if (filter == "OCTAHEDRAL") meshopt_decodeFilterOct(dst, count, stride);
            if (filter == "QUATERNION") meshopt_decodeFilterQuat(dst, count, stride);
            if (filter == "EXPONENTIAL") meshopt_decodeFilterExp(dst, count, stride);
        } else if (mode == "TRIANGLES") {
            EXPECT_EQ(src[0], 0xe1) << "index codec version 1, as the extension requires";
            rc = meshopt_decodeIndexBuffer(dst, count, stride, src, length);
        } else {
            rc = meshopt_decodeIndexSequence(dst, count, stride, src, length);
        }
        EXPECT_EQ(rc, 0) << "mode " << mode;
    }
    return d;
}

Mat4 column_major(const std::vector<double>& v, size_t at) {
    Mat4 m{};
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) m[c][r] = v[at + c * 4 + r];
    return m;
}

Vec3 apply(const Mat4& m, const std::array<double, 3>& p) {
    Vec3 r;
    for (int k = 0; k < 3; ++k) r[k] = float(m[0][k] * p[0] + m[1][k] * p[1] + m[2][k] * p[2] + m[3][k]);
    return r;
}

// The sample's compressed positions, decoded and dequantised through the inverse bind matrices
// (skinned) or the node (static), lie within half a grid step of the uncompressed ones, and half
// a step is at most 1/4096 of the longest side; weights sum to exactly 255; indices are the same.
void check_sample(GltfCompression::Level level, uint32_t bits) {
    Scene scene = make_sample_scene();
    Scene ordered = scene;
    optimize_vertex_cache(ordered);  // the compressed writer's vertex order
    const ParsedGltf plain = write_glb(ordered);
    const ParsedGltf packed_file = write_glb(scene, compressed(level, bits));
    const ParsedGltf packed = decode_meshopt(packed_file);
    ASSERT_FALSE(::testing::Test::HasFailure());
    EXPECT_EQ(packed.json["extensionsRequired"], json({"KHR_mesh_quantization", "EXT_meshopt_compression"}));

    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (auto& m : ordered.meshes)
        for (auto& p : m.positions)
            for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], double(p[k])), hi[k] = std::max(hi[k], double(p[k]));
    const double side = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    const uint32_t b = bits ? bits : 12;
    const double half_step = 0.5 * side / double((1u << b) - 1);
    if (!bits) {
        EXPECT_LE(half_step, side / 4096);
    }

    const auto& nodes = packed.json["nodes"];
    ASSERT_EQ(packed.json["meshes"].size(), plain.json["meshes"].size());
    for (size_t m = 0; m < plain.json["meshes"].size(); ++m) {
        SCOPED_TRACE("mesh " + std::to_string(m));
        const std::vector<double> want = plain.accessor(size_t(plain.attribute(m, "POSITION")));
        const int pos = packed.attribute(m, "POSITION");
        const uint32_t type = packed.accessor_json(size_t(pos))["componentType"];
        EXPECT_EQ(type, b <= 8 ? 5121u : 5123u);
        const std::vector<double> q = packed.accessor(size_t(pos));
        ASSERT_EQ(q.size(), want.size());
        // The mesh's node, and its dequantisation: the inverse bind matrices' (IBM' = IBM * D,
        // so D = inverse(IBM) * IBM', the same for every joint) or the node's TRS.
        size_t node = 0;
        while (node < nodes.size() && nodes[node].value("mesh", -1) != int(m)) ++node;
        ASSERT_LT(node, nodes.size());
        Mat4 dequantize;
        if (nodes[node].contains("skin")) {
            EXPECT_FALSE(nodes[node].contains("translation") || nodes[node].contains("scale"));
            const std::vector<double> ibm = plain.accessor(plain.json["skins"][0]["inverseBindMatrices"].get<size_t>());
            const std::vector<double> ibm2 = packed.accessor(packed.json["skins"][0]["inverseBindMatrices"].get<size_t>());
            ASSERT_EQ(ibm.size(), ibm2.size());
            for (size_t j = 0; j < ibm.size() / 16; ++j) {
                const Mat4 d = multiply(inverse_affine(column_major(ibm, j * 16)), column_major(ibm2, j * 16));
                if (j == 0) dequantize = d;
                for (int c = 0; c < 4; ++c)
                    for (int r = 0; r < 3; ++r) EXPECT_NEAR(d[c][r], dequantize[c][r], 1e-4 * std::max(1.0, side)) << "joint " << j;
            }
        } else {
            dequantize = transform_matrix(packed.node_trs(node));
        }
        double worst = 0;
        for (size_t v = 0; v * 3 < q.size(); ++v) {
            const Vec3 p = apply(dequantize, {q[v * 3], q[v * 3 + 1], q[v * 3 + 2]});
            for (int k = 0; k < 3; ++k) worst = std::max(worst, std::fabs(double(p[k]) - want[v * 3 + k]));
        }
        EXPECT_LE(worst, half_step * 1.001 + 1e-5 * side) << "grid of " << b << " bits";
        EXPECT_GT(worst, 0.0) << "quantised positions that match exactly: the test compares nothing";

        if (int w = packed.attribute(m, "WEIGHTS_0"); w >= 0) {
            EXPECT_TRUE(packed.accessor_json(size_t(w)).value("normalized", false));
            const std::vector<double> weights = packed.accessor(size_t(w));
            for (size_t v = 0; v * 4 < weights.size(); ++v)
                EXPECT_EQ(weights[v * 4] + weights[v * 4 + 1] + weights[v * 4 + 2] + weights[v * 4 + 3], 255.0) << "vertex " << v;
        }
        const auto& prim = packed.json["meshes"][m]["primitives"][0];
        if (prim.contains("indices")) {
            // The index codec may start a triangle at another corner (the same triangle, the same
            // winding): compared with each triangle turned to start at its smallest index.
            auto turned = [](std::vector<double> i) {
                for (size_t t = 0; t + 3 <= i.size(); t += 3)
                    while (i[t] > i[t + 1] || i[t] > i[t + 2]) std::rotate(i.begin() + t, i.begin() + t + 1, i.begin() + t + 3);
                return i;
            };
            const std::vector<double> got = packed.accessor(prim["indices"].get<size_t>());
            EXPECT_EQ(turned(got), turned(plain.accessor(plain.json["meshes"][m]["primitives"][0]["indices"].get<size_t>())));
            EXPECT_FALSE(got.empty());
        }
    }
}

TEST(GltfCompress, SampleWithinHalfStepSmall) { check_sample(GltfCompression::Level::Small, 0); }
TEST(GltfCompress, SampleWithinHalfStepFast) { check_sample(GltfCompression::Level::Fast, 0); }
TEST(GltfCompress, SampleWithinHalfStepEightBits) { check_sample(GltfCompression::Level::Small, 8); }

TEST(GltfCompress, DefaultPositionBitsHoldOneIn4096) {
    EXPECT_EQ(gltf::position_bits_for(gltf::default_position_error), 12u);  // 1/8190 <= 1/4096 < 1/4094
    EXPECT_EQ(gltf::position_bits_for(1.0 / 4094), 11u);
    EXPECT_EQ(gltf::position_bits_for(1e-9), 16u);
}

TEST(GltfCompress, WeightsSumTo255) {
    std::vector<int64_t> q(4);
    for (auto w : {std::vector<double>{1.0 / 3, 1.0 / 3, 1.0 / 3}, std::vector<double>{0.5, 0.25, 0.125, 0.125},
                   std::vector<double>{0.999, 0.0005, 0.0005}, std::vector<double>{1.0}}) {
        q.assign(w.size(), -1);
        gltf::weights_to_unorm8(w, q);
        int64_t sum = 0;
        for (size_t k = 0; k < w.size(); ++k) {
            sum += q[k];
            EXPECT_LE(std::fabs(double(q[k]) - w[k] * 255), 1.0);
        }
        EXPECT_EQ(sum, 255);
    }
}

TEST(GltfCompress, ThinnedKeysKeepTheBound) {
    // A straight ramp keeps its ends; a bump above the bound stays, one below it goes.
    std::vector<float> t{0, 1, 2, 3, 4}, v{0, 1, 2, 3, 4};
    EXPECT_EQ(gltf::thin_keys(t, v, 1, gltf::KeyKind::Vector, false, 1e-3), 3u);
    EXPECT_EQ(t, (std::vector<float>{0, 4}));
    t = {0, 1, 2, 3, 4}, v = {0, 1, 2.01f, 3, 4};  // each neighbour of the bump is off the line through it
    EXPECT_EQ(gltf::thin_keys(t, v, 1, gltf::KeyKind::Vector, false, 1e-3), 0u);
    EXPECT_EQ(t.size(), 5u);
    // Tracks sharing times drop a key only where both may.
    t = {0, 1, 2};
    std::vector<float> a{0, 1, 2}, b{0, 0.5f, 0};
    std::vector<gltf::KeyTrack> both{{&a, 1, gltf::KeyKind::Vector, false, 1e-3}, {&b, 1, gltf::KeyKind::Vector, false, 1e-3}};
    EXPECT_EQ(gltf::thin_shared_keys(t, both), 0u);
    b = {0, 0, 0};
    EXPECT_EQ(gltf::thin_shared_keys(t, both), 1u);
    EXPECT_EQ(t, (std::vector<float>{0, 2}));
    EXPECT_EQ(a, (std::vector<float>{0, 2}));
    t = {0, 1, 2}, v = {0, 1.0005f, 2};
    EXPECT_EQ(gltf::thin_keys(t, v, 1, gltf::KeyKind::Vector, false, 1e-3), 1u);
    // Rotations: a turn about Y at a steady rate is a slerp; 1e-3 rad off the arc is kept.
    auto about_y = [](double a) { return std::vector<float>{0, float(std::sin(a / 2)), 0, float(std::cos(a / 2))}; };
    t = {0, 1, 2};
    v.clear();
    for (double a : {0.0, 0.5, 1.0}) for (float c : about_y(a)) v.push_back(c);
    EXPECT_EQ(gltf::thin_keys(t, v, 4, gltf::KeyKind::Rotation, false, 1e-4), 1u);
    t = {0, 1, 2};
    v.clear();
    for (double a : {0.0, 0.501, 1.0}) for (float c : about_y(a)) v.push_back(c);
    EXPECT_EQ(gltf::thin_keys(t, v, 4, gltf::KeyKind::Rotation, false, 1e-4), 0u);
    // STEP: only a repeated value goes.
    t = {0, 1, 2, 3}, v = {0, 0, 1, 1};
    EXPECT_EQ(gltf::thin_keys(t, v, 1, gltf::KeyKind::Vector, true, 1e-6), 1u);
    EXPECT_EQ(t, (std::vector<float>{0, 2, 3}));
}

// --- the corpus models: validator, three.js, gltfpack ---

std::string gltfpack_path() {
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty() && fs::exists(fs::path(dir) / "gltfpack")) return (fs::path(dir) / "gltfpack").string();
    }
    return {};
}

struct Model {
    const char* name;
    const char* corpus;  // under the corpus; empty = the built-in sample
};

std::string model_name(const ::testing::TestParamInfo<Model>& info) { return info.param.name; }

class GltfCompressCorpus : public ::testing::TestWithParam<Model> {};

// The bounding-box diagonal of a frame's points.
double diagonal(const ThreeFrame& f) {
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (auto& p : f.positions)
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
    return std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

// The Khronos validator reports no error (nor warning) for --compress output; it is no larger
// than 1.1 x gltfpack -cc's from the same input GLB; three.js with its meshopt decoder skins it
// within 5e-3 of the model's size of the uncompressed output (same scene, same vertex order) at
// the bind pose and two times of the first animation.
TEST_P(GltfCompressCorpus, ValidSmallAndSkinnedLikeTheUncompressed) {
    RIGPORT_SKIP_PEER_IN_SANITIZER_BUILD();
    const Model model = GetParam();
    if (*model.corpus) RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const fs::path dir = files_dir();
    // The input both tools compress: the corpus GLB itself, else rigport's uncompressed GLB of it.
    fs::path input;
    std::string source = *model.corpus ? (corpus_dir() / model.corpus).string() : std::string();
    if (fs::path(source).extension() == ".glb") {
        input = source;
    } else {
        input = dir / (std::string(model.name) + ".glb");
        RunResult r = *model.corpus ? run_cli({"convert", source, "-o", input.string(), "-q"}) : run_cli({"sample", "-o", input.string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const fs::path ours = dir / (std::string(model.name) + ".rigport.glb");
    const auto start = std::chrono::steady_clock::now();
    RunResult r = run_cli({"convert", input.string(), "-o", ours.string(), "--compress", "-v"});
    const double our_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("positions: 12-bit grid"), std::string::npos) << r.out;

    ValidatorReport v = validate_gltf(ours);
    ASSERT_TRUE(v.ran()) << v.error;
    EXPECT_EQ(v.errors, 0) << v.summary();
    EXPECT_EQ(v.warnings, 0) << v.summary();
    // The JSON container too: buffer 0 in <stem>.bin, the fallback buffer without uri.
    const fs::path json_out = dir / (std::string(model.name) + ".rigport.gltf");
    r = run_cli({"convert", input.string(), "-o", json_out.string(), "--compress", "--compress-level", "fast", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ValidatorReport vj = validate_gltf(json_out);
    ASSERT_TRUE(vj.ran()) << vj.error;
    EXPECT_EQ(vj.errors, 0) << vj.summary();
    EXPECT_EQ(vj.warnings, 0) << vj.summary();

    const std::string gltfpack = gltfpack_path();
    if (gltfpack.empty()) {
        std::cout << "gltfpack not found (scripts/setup.sh installs it): the size comparison is skipped\n";
    } else {
        const fs::path theirs = dir / (std::string(model.name) + ".gltfpack.glb");
        const auto t0 = std::chrono::steady_clock::now();
        RunResult g = run_program(gltfpack, {"-i", input.string(), "-o", theirs.string(), "-cc"});
        const double their_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ASSERT_EQ(g.exit_code, 0) << g.err;
        const auto our_size = fs::file_size(ours), their_size = fs::file_size(theirs);
        std::cout << model.name << ": input " << fs::file_size(input) << " bytes; rigport --compress " << our_size << " bytes ("
                  << our_seconds << " s); gltfpack -cc " << their_size << " bytes (" << their_seconds << " s); ratio "
                  << double(our_size) / double(their_size) << "\n";
        EXPECT_LE(double(our_size), 1.1 * double(their_size)) << "rigport " << our_size << " bytes, gltfpack -cc " << their_size;
    }

    // The uncompressed reference: the same scene in the compressed writer's vertex order.
    auto scene = load(input.string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    Scene ordered = *scene;
    optimize_vertex_cache(ordered);
    const fs::path plain = dir / (std::string(model.name) + ".plain.glb"), packed = dir / (std::string(model.name) + ".packed.glb");
    auto a = save_output(ordered, plain.string(), SaveOptions{});
    auto b = save_output(*scene, packed.string(), compressed());
    ASSERT_TRUE(a && b);
    write_bytes(plain, a->bytes);
    write_bytes(packed, b->bytes);
    std::vector<SkinRequest> requests{SkinRequest::bind_pose()};
    if (!scene->animations.empty()) {
        const double d = scene->animations[0].duration();
        requests.push_back(SkinRequest::at(0, d / 3));
        requests.push_back(SkinRequest::at(0, d * 2 / 3));
    }
    const ThreeSkinning want = three_skin(plain, requests), got = three_skin(packed, requests);
    ASSERT_TRUE(want.ran()) << want.error;
    ASSERT_TRUE(got.ran()) << got.error;
    ASSERT_EQ(want.meshes.size(), got.meshes.size());
    double size = 0;
    for (auto& m : want.meshes) size = std::max(size, diagonal(m.frames[0]));
    ASSERT_GT(size, 0);
    for (size_t m = 0; m < want.meshes.size(); ++m) {
        ASSERT_EQ(want.meshes[m].vertex_count, got.meshes[m].vertex_count);
        for (size_t f = 0; f < requests.size(); ++f) {
            double worst = 0;
            const auto& pa = want.meshes[m].frames[f].positions;
            const auto& pb = got.meshes[m].frames[f].positions;
            for (size_t i = 0; i < pa.size(); ++i)
                worst = std::max(worst, std::sqrt(std::pow(pa[i][0] - pb[i][0], 2) + std::pow(pa[i][1] - pb[i][1], 2) + std::pow(pa[i][2] - pb[i][2], 2)));
            std::cout << model.name << " mesh " << m << " request " << f << ": largest distance " << worst / size << " of the size " << size << "\n";
            EXPECT_LE(worst, 5e-3 * size) << "mesh " << m << " request " << f;
            EXPECT_GT(worst, 0.0) << "the compressed output equals the uncompressed exactly: nothing was compared";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Models, GltfCompressCorpus,
                         ::testing::Values(Model{"CesiumMan", "gltf/CesiumMan.glb"}, Model{"RiggedFigure", "gltf/RiggedFigure.glb"},
                                           Model{"mrfixit", "iqm/mrfixit.iqm"}, Model{"sample", ""}),
                         model_name);

}  // namespace
}  // namespace rigport::test
