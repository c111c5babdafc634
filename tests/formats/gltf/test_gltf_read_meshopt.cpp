// EXT_meshopt_compression read from hand-made streams (docs/gltf.md §7.1): streams made by
// meshoptimizer's own encoders decode to the values encoded, through every mode and filter; and a
// hostile stream (truncated, flipped bytes, strides and counts the extension forbids, unknown
// modes and filters, a fallback buffer read) is an error naming the bufferView, never a crash.
#include <gtest/gtest.h>
#include <meshoptimizer.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>

#include "formats/gltf/gltf_fixture.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

using nlohmann::json;

bool mentions(const Error& e, const std::string& text) { return e.message.find(text) != std::string::npos; }

// A quad of two triangles: positions FLOAT VEC3 compressed as ATTRIBUTES, indices UNSIGNED_SHORT
// compressed as TRIANGLES (or INDICES), the uncompressed views on a fallback buffer 1 with no data.
struct MeshoptQuad {
    GltfFixture f;
    std::vector<float> positions = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    std::vector<uint16_t> indices = {0, 1, 2, 0, 2, 3};
    uint32_t position_view = 0, index_view = 0;
    uint64_t fallback_bytes = 0;

    // A view on buffer 0 holding `stream`, and the compressed view on the fallback buffer; its index.
    uint32_t compressed(const std::vector<uint8_t>& stream, uint64_t count, uint64_t stride, const char* mode, const char* filter = nullptr) {
        while (f.bin.size() % 4) f.bin.push_back(0);
        const size_t at = f.bin.size();
        f.bin.insert(f.bin.end(), stream.begin(), stream.end());
        json ext = {{"buffer", 0}, {"byteOffset", at}, {"byteLength", stream.size()},
                    {"byteStride", stride}, {"count", count}, {"mode", mode}};
        if (filter) ext["filter"] = filter;
        json view = {{"buffer", 1}, {"byteOffset", fallback_bytes}, {"byteLength", count * stride}, {"extensions", {{"EXT_meshopt_compression", ext}}}};
        if (std::string(mode) == "ATTRIBUTES") view["byteStride"] = stride;
        fallback_bytes += (count * stride + 3) / 4 * 4;
        return f.push("bufferViews", view);
    }

    MeshoptQuad(const char* index_mode = "TRIANGLES") {
        f.doc["extensionsUsed"] = {"EXT_meshopt_compression"};
        f.doc["extensionsRequired"] = {"EXT_meshopt_compression"};
        std::vector<uint8_t> vbuf(meshopt_encodeVertexBufferBound(4, 12));
        vbuf.resize(meshopt_encodeVertexBuffer(vbuf.data(), vbuf.size(), positions.data(), 4, 12));
        std::vector<uint8_t> ibuf(meshopt_encodeIndexBufferBound(6, 4));
        if (std::string(index_mode) == "TRIANGLES") {
            const std::vector<uint32_t> i32(indices.begin(), indices.end());
            ibuf.resize(meshopt_encodeIndexBuffer(ibuf.data(), ibuf.size(), i32.data(), 6));
        } else {
            ibuf.resize(meshopt_encodeIndexSequenceBound(6, 4));
            const std::vector<uint32_t> i32(indices.begin(), indices.end());
            ibuf.resize(meshopt_encodeIndexSequence(ibuf.data(), ibuf.size(), i32.data(), 6));
        }
        position_view = compressed(vbuf, 4, 12, "ATTRIBUTES");
        index_view = compressed(ibuf, 6, 2, index_mode);
        const uint32_t p = f.push("accessors", {{"bufferView", position_view}, {"componentType", 5126}, {"count", 4}, {"type", "VEC3"}});
        const uint32_t i = f.push("accessors", {{"bufferView", index_view}, {"componentType", 5123}, {"count", 6}, {"type", "SCALAR"}});
        f.mesh_node({{"POSITION", p}}, int(i));
    }
    json& ext(uint32_t view) { return f.doc["bufferViews"][view]["extensions"]["EXT_meshopt_compression"]; }
    Expected<Scene> load() {
        f.more_buffers = {{{"byteLength", fallback_bytes}, {"extensions", {{"EXT_meshopt_compression", {{"fallback", true}}}}}}};
        return load_bytes(f.glb(), "quad.glb");
    }
};

void expect_quad(const Expected<Scene>& s, const MeshoptQuad& q) {
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 1u);
    const Mesh& m = s->meshes[0];
    ASSERT_EQ(m.vertex_count(), 4u);
    for (size_t v = 0; v < 4; ++v)
        for (int c = 0; c < 3; ++c) EXPECT_EQ(m.positions[v][c], q.positions[v * 3 + c]) << v;
    ASSERT_EQ(m.triangles.size(), 2u);
    for (size_t t = 0; t < 2; ++t)
        for (int c = 0; c < 3; ++c) EXPECT_EQ(m.triangles[t][c], q.indices[t * 3 + c]);
}

TEST(GltfMeshopt, AttributesAndTrianglesDecodeToTheEncodedValues) {
    MeshoptQuad q;
    expect_quad(q.load(), q);
}

TEST(GltfMeshopt, IndexSequenceDecodes) {
    MeshoptQuad q("INDICES");
    expect_quad(q.load(), q);
}

// The filters: octahedral normals (BYTE normalized, stride 4), exponential positions (FLOAT),
// quaternion rotation keys (SHORT normalized, stride 8), each from meshoptimizer's encoder.
TEST(GltfMeshopt, FiltersDecodeOctahedralQuaternionAndExponential) {
    MeshoptQuad q;
    const std::vector<float> normals = {0, 0, 1, 0.6f, 0, 0.8f, 0, -1, 0, -0.48f, 0.6f, 0.64f};
    std::vector<float> normals4;  // the encoder takes 4 floats a vector
    for (size_t v = 0; v < 4; ++v) normals4.insert(normals4.end(), {normals[v * 3], normals[v * 3 + 1], normals[v * 3 + 2], 0});
    std::vector<int8_t> oct(16);
    meshopt_encodeFilterOct(oct.data(), 4, 4, 8, normals4.data());
    std::vector<uint8_t> s(meshopt_encodeVertexBufferBound(4, 4));
    s.resize(meshopt_encodeVertexBuffer(s.data(), s.size(), oct.data(), 4, 4));
    const uint32_t nv = q.compressed(s, 4, 4, "ATTRIBUTES", "OCTAHEDRAL");
    const uint32_t na = q.f.push("accessors", {{"bufferView", nv}, {"componentType", 5120}, {"normalized", true}, {"count", 4}, {"type", "VEC3"}});
    q.f.doc["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = na;

    // Exponential: a second set of positions as a custom float attribute, 15-bit mantissas.
    const std::vector<float> values = {1.5f, -2.25f, 1000.125f, 0.001f, 3, -7, 12.5f, 0, 6.75f, 1e-3f, 42, -0.5f};
    std::vector<uint32_t> exp(12);
    meshopt_encodeFilterExp(exp.data(), 4, 12, 15, values.data());
    s.assign(meshopt_encodeVertexBufferBound(4, 12), 0);
    s.resize(meshopt_encodeVertexBuffer(s.data(), s.size(), exp.data(), 4, 12));
    const uint32_t ev = q.compressed(s, 4, 12, "ATTRIBUTES", "EXPONENTIAL");
    q.f.doc["meshes"][0]["primitives"][0]["attributes"]["_EXP"] =
        q.f.push("accessors", {{"bufferView", ev}, {"componentType", 5126}, {"count", 4}, {"type", "VEC3"}});

    // Quaternion keys of a joint's rotation, 12 bits per component.
    const std::vector<float> quats = {0, 0, 0, 1, 0, 0.6f, 0, 0.8f};
    std::vector<int16_t> qenc(8);
    meshopt_encodeFilterQuat(qenc.data(), 2, 8, 12, quats.data());
    s.assign(meshopt_encodeVertexBufferBound(2, 8), 0);
    s.resize(meshopt_encodeVertexBuffer(s.data(), s.size(), qenc.data(), 2, 8));
    const uint32_t qv = q.compressed(s, 2, 8, "ATTRIBUTES", "QUATERNION");
    const std::vector<float> times = {0, 1};
    const uint32_t ta = q.f.floats(times, "SCALAR");
    q.f.doc["accessors"][ta]["min"] = {0};
    q.f.doc["accessors"][ta]["max"] = {1};
    const uint32_t ra = q.f.push("accessors", {{"bufferView", qv}, {"componentType", 5122}, {"normalized", true}, {"count", 2}, {"type", "VEC4"}});
    q.f.push("nodes", {{"name", "spin"}});
    q.f.push("animations", {{"samplers", {{{"input", ta}, {"output", ra}}}}, {"channels", {{{"sampler", 0}, {"target", {{"node", 1}, {"path", "rotation"}}}}}}});

    auto scene = q.load();
    ASSERT_TRUE(scene) << scene.error().to_string();
    const Mesh& m = scene->meshes.at(0);
    ASSERT_EQ(m.normals.size(), 4u);
    // 8-bit octahedral: each component within 2/127 of the unit normal encoded.
    for (size_t v = 0; v < 4; ++v)
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(m.normals[v][c], normals[v * 3 + c], 2.0 / 127) << v << " " << c;
    ASSERT_EQ(m.custom.size(), 1u);
    // The exponent is shared by a vector's three components: each is within 2^-13 of the
    // vector's largest magnitude (15-bit signed mantissas).
    for (size_t k = 0; k < 12; ++k) {
        const size_t v = k / 3;
        const double largest = std::max({std::fabs(values[v * 3]), std::fabs(values[v * 3 + 1]), std::fabs(values[v * 3 + 2])});
        EXPECT_NEAR(m.custom[0].values[k], values[k], largest * 0x1p-13) << k;
    }
    ASSERT_EQ(scene->animations.size(), 1u);
    ASSERT_EQ(scene->animations[0].tracks.size(), 1u);
    const auto& keys = scene->animations[0].tracks[0].values;
    ASSERT_EQ(keys.size(), 8u);
    // 12-bit components of a unit quaternion: within 1/2047 * sqrt(2) each, sign either way.
    const double sign = keys[3] * quats[3] + keys[7] * quats[7] >= 0 ? 1 : -1;
    for (size_t k = 0; k < 8; ++k) EXPECT_NEAR(keys[k] * sign, quats[k], 1e-3) << k;
}

TEST(GltfMeshopt, TruncatedStreamIsAnErrorNamingTheBufferView) {
    MeshoptQuad q;
    q.ext(q.position_view)["byteLength"] = q.ext(q.position_view)["byteLength"].get<uint64_t>() - 3;
    auto s = q.load();
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Malformed);
    EXPECT_TRUE(mentions(s.error(), "/bufferViews/0: EXT_meshopt_compression stream does not decode")) << s.error().to_string();
}

TEST(GltfMeshopt, CountTimesStrideThatOverflowsOrDisagreesIsRefusedBeforeDecoding) {
    {
        MeshoptQuad q;
        q.ext(q.position_view)["count"] = uint64_t(1) << 62;  // x 12 wraps in 64 bits
        auto s = q.load();
        ASSERT_FALSE(s);
        EXPECT_EQ(s.error().code, ErrorCode::LimitExceeded);
        EXPECT_TRUE(mentions(s.error(), "/bufferViews/0/extensions/EXT_meshopt_compression/count")) << s.error().to_string();
    }
    {
        MeshoptQuad q;
        q.ext(q.position_view)["count"] = 5;  // 60 bytes, the view declares 48
        auto s = q.load();
        ASSERT_FALSE(s);
        EXPECT_TRUE(mentions(s.error(), "/bufferViews/0/extensions/EXT_meshopt_compression: count 5 x byteStride 12 = 60 bytes")) << s.error().to_string();
    }
    {
        MeshoptQuad q;  // a view beyond its (fallback) buffer's declared length
        q.f.doc["bufferViews"][q.position_view]["byteOffset"] = 1 << 20;
        auto s = q.load();
        ASSERT_FALSE(s);
        EXPECT_TRUE(mentions(s.error(), "/bufferViews/0: byteOffset 1048576")) << s.error().to_string();
    }
}

TEST(GltfMeshopt, StridesModesAndFiltersTheExtensionForbidsAreRefused) {
    struct Case {
        const char* what;
        std::function<void(MeshoptQuad&)> damage;
        const char* message;
        ErrorCode code;
    };
    const std::vector<Case> cases = {
        {"ATTRIBUTES stride 6", [](MeshoptQuad& q) { q.ext(q.position_view)["byteStride"] = 6; q.f.doc["bufferViews"][q.position_view]["byteLength"] = 24; },
         "/bufferViews/0/extensions/EXT_meshopt_compression: byteStride 6 is not a multiple of 4", ErrorCode::Malformed},
        {"TRIANGLES stride 8", [](MeshoptQuad& q) { q.ext(q.index_view)["byteStride"] = 8; }, "byteStride 8 is not 2 or 4 (mode TRIANGLES)", ErrorCode::Malformed},
        {"TRIANGLES count 5", [](MeshoptQuad& q) { q.ext(q.index_view)["count"] = 5; }, "count 5 is not a multiple of 3", ErrorCode::Malformed},
        {"unknown mode", [](MeshoptQuad& q) { q.ext(q.position_view)["mode"] = "POINTS"; }, "/bufferViews/0/extensions/EXT_meshopt_compression/mode: 'POINTS'",
         ErrorCode::Unsupported},
        {"unknown filter", [](MeshoptQuad& q) { q.ext(q.position_view)["filter"] = "WAVELET"; }, "/filter: 'WAVELET'", ErrorCode::Unsupported},
        {"filter on indices", [](MeshoptQuad& q) { q.ext(q.index_view)["filter"] = "OCTAHEDRAL"; }, "a filter is only allowed with mode ATTRIBUTES",
         ErrorCode::Malformed},
        {"QUATERNION stride 12", [](MeshoptQuad& q) { q.ext(q.position_view)["filter"] = "QUATERNION"; }, "byteStride 12 with filter QUATERNION",
         ErrorCode::Malformed},
        {"fallback buffer read plainly", [](MeshoptQuad& q) { q.f.doc["bufferViews"][q.position_view].erase("extensions"); }, "/buffers/1: an EXT_meshopt_compression fallback buffer",
         ErrorCode::Malformed},
        {"stream outside its buffer", [](MeshoptQuad& q) { q.ext(q.position_view)["byteOffset"] = 1 << 20; }, "exceeds the", ErrorCode::Malformed},
    };
    for (const Case& c : cases) {
        MeshoptQuad q;
        c.damage(q);
        auto s = q.load();
        ASSERT_FALSE(s) << c.what;
        EXPECT_EQ(s.error().code, c.code) << c.what;
        EXPECT_TRUE(mentions(s.error(), c.message)) << c.what << ": " << s.error().to_string();
    }
}

// Every bit of both streams flipped in turn: each read either succeeds with a scene that holds
// together or fails naming a place; under the sanitizers nothing reads or writes out of bounds.
TEST(GltfMeshopt, EveryFlippedBitOfTheStreamsIsReadOrRefusedSafely) {
    MeshoptQuad base;
    ASSERT_TRUE(base.load());
    for (uint32_t view : {base.position_view, base.index_view}) {
        const uint64_t at = base.ext(view)["byteOffset"], length = base.ext(view)["byteLength"];
        size_t refused = 0, read = 0;
        for (uint64_t byte = at; byte < at + length; ++byte)
            for (int bit = 0; bit < 8; ++bit) {
                MeshoptQuad q;
                q.f.bin[byte] ^= uint8_t(1u << bit);
                auto s = q.load();
                if (s) {
                    ++read;
                    EXPECT_EQ(s->meshes.size(), 1u);
                } else {
                    ++refused;
                    EXPECT_FALSE(s.error().message.empty());
                    EXPECT_TRUE(mentions(s.error(), "/bufferViews/") || mentions(s.error(), "/meshes/0") || mentions(s.error(), "/accessors/"))
                        << s.error().to_string();
                }
            }
        EXPECT_GT(refused + read, 0u);
        std::cout << "[ measured ] bufferView " << view << ": " << length * 8 << " flipped bits, " << refused << " refused, " << read << " read\n";
    }
}

}  // namespace
}  // namespace rigport::test
