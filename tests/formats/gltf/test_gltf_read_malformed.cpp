// The glTF 2.0 reader given a small hand-built .gltf broken in each way the spec forbids: each must
// give an Error that names the place (a JSON path or a byte offset). Damage in general (truncation,
// mutations, hostile counts) is the registry-driven harness's (test_robustness.cpp).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <functional>

#include "gltf_oracle.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Keeps a failing input for a regression fixture (docs/fuzzing.md).
void keep_failure(const std::vector<uint8_t>& bytes, const std::string& name) {
    const fs::path keep = temp_dir() / ("failing-" + name);
    write_bytes(keep, bytes);
    ADD_FAILURE() << "input kept in " << keep;
}

// ---------------------------------------------------------------------------------------------
// A small hand-built .gltf, broken on purpose
// ---------------------------------------------------------------------------------------------

std::string base64(const std::vector<uint8_t>& b) {
    static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (size_t i = 0; i < b.size(); i += 3) {
        const uint32_t n = uint32_t(b[i]) << 16 | (i + 1 < b.size() ? uint32_t(b[i + 1]) << 8 : 0) | (i + 2 < b.size() ? b[i + 2] : 0);
        out += digits[n >> 18 & 63];
        out += digits[n >> 12 & 63];
        out += i + 1 < b.size() ? digits[n >> 6 & 63] : '=';
        out += i + 2 < b.size() ? digits[n & 63] : '=';
    }
    return out;
}

// Byte offsets of the fixture's bufferViews in its one buffer.
enum : size_t {
    at_positions = 0,      // 4 x VEC3 float (48)
    at_joints = 48,        // 4 x VEC4 ubyte (16)
    at_weights = 64,       // 4 x VEC4 float (64)
    at_indices = 128,      // 6 x ushort (12)
    at_ibm = 140,          // 2 x MAT4 float (128)
    at_times = 268,        // 3 x float (12)
    at_rotations = 280,    // 3 x VEC4 float (48)
    at_sparse_index = 328, // 1 x ushort (2, padded to 4)
    at_sparse_value = 332, // 1 x VEC3 float (12)
    buffer_size = 344,
};

struct Fixture {
    json doc;
    std::vector<uint8_t> buffer;
    bool keep_uri = false;  // a case set its own buffers[0].uri

    std::vector<uint8_t> bytes() const {
        json j = doc;
        if (!keep_uri && j.contains("buffers") && j["buffers"].is_array() && !j["buffers"].empty() && j["buffers"][0].is_object())
            j["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64(buffer);
        const std::string text = j.dump(1);
        return {text.begin(), text.end()};
    }
    void put_float(size_t at, float v) { std::memcpy(buffer.data() + at, &v, 4); }
    void put_u16(size_t at, uint16_t v) { std::memcpy(buffer.data() + at, &v, 2); }
};

// A quad (two triangles, one vertex moved by a sparse accessor) skinned to a chain of two joints,
// the second one rotating about Z; every required property present, every optional one used once.
Fixture make_fixture() {
    Fixture f;
    f.buffer.assign(buffer_size, 0);
    const float positions[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    for (int v = 0; v < 4; ++v)
        for (int k = 0; k < 3; ++k) f.put_float(at_positions + 12 * v + 4 * k, positions[v][k]);
    const uint8_t joints[4] = {0, 0, 1, 1};
    for (int v = 0; v < 4; ++v) f.buffer[at_joints + 4 * v] = joints[v];
    for (int v = 0; v < 4; ++v) f.put_float(at_weights + 16 * v, 1.0f);
    const uint16_t indices[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; ++i) f.put_u16(at_indices + 2 * i, indices[i]);
    for (int m = 0; m < 2; ++m)
        for (int d = 0; d < 4; ++d) f.put_float(at_ibm + 64 * m + 20 * d, 1.0f);  // identity ...
    f.put_float(at_ibm + 64 + 4 * 13, -1.0f);                                     // ... and translate(0, -1, 0)
    const float times[3] = {0, 0.5f, 1};
    for (int k = 0; k < 3; ++k) f.put_float(at_times + 4 * k, times[k]);
    const float s = std::sqrt(0.5f);
    const float rotations[3][4] = {{0, 0, 0, 1}, {0, 0, s, s}, {0, 0, 1, 0}};
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 4; ++c) f.put_float(at_rotations + 16 * k + 4 * c, rotations[k][c]);
    f.put_u16(at_sparse_index, 3);
    f.put_float(at_sparse_value + 4, 2.0f);  // vertex 3 -> (0, 2, 0)

    auto view = [](size_t offset, size_t length, int target = 0) {
        json v = {{"buffer", 0}, {"byteOffset", offset}, {"byteLength", length}};
        if (target) v["target"] = target;
        return v;
    };
    f.doc = {
        {"asset", {{"version", "2.0"}, {"generator", "rigport test fixture"}}},
        {"scene", 0},
        {"scenes", {{{"nodes", {0, 1}}}}},
        {"nodes",
         {{{"name", "quad"}, {"mesh", 0}, {"skin", 0}},
          {{"name", "root"}, {"children", {2}}},
          {{"name", "tip"}, {"translation", {0, 1, 0}}}}},
        {"meshes",
         {{{"name", "quad"},
           {"primitives",
            {{{"attributes", {{"POSITION", 0}, {"JOINTS_0", 1}, {"WEIGHTS_0", 2}}}, {"indices", 3}, {"material", 0}, {"mode", 4}}}}}}},
        {"materials", {{{"name", "grey"}, {"pbrMetallicRoughness", {{"baseColorFactor", {0.5, 0.5, 0.5, 1}}}}}}},
        {"skins", {{{"joints", {1, 2}}, {"inverseBindMatrices", 4}, {"skeleton", 1}}}},
        {"animations",
         {{{"name", "turn"},
           {"channels", {{{"sampler", 0}, {"target", {{"node", 2}, {"path", "rotation"}}}}}},
           {"samplers", {{{"input", 5}, {"output", 6}, {"interpolation", "LINEAR"}}}}}}},
        {"accessors",
         {{{"bufferView", 0},
           {"componentType", 5126},
           {"count", 4},
           {"type", "VEC3"},
           {"min", {0, 0, 0}},
           {"max", {1, 2, 0}},
           {"sparse", {{"count", 1}, {"indices", {{"bufferView", 7}, {"componentType", 5123}}}, {"values", {{"bufferView", 8}}}}}},
          {{"bufferView", 1}, {"componentType", 5121}, {"count", 4}, {"type", "VEC4"}},
          {{"bufferView", 2}, {"componentType", 5126}, {"count", 4}, {"type", "VEC4"}},
          {{"bufferView", 3}, {"componentType", 5123}, {"count", 6}, {"type", "SCALAR"}},
          {{"bufferView", 4}, {"componentType", 5126}, {"count", 2}, {"type", "MAT4"}},
          {{"bufferView", 5}, {"componentType", 5126}, {"count", 3}, {"type", "SCALAR"}, {"min", {0}}, {"max", {1}}},
          {{"bufferView", 6}, {"componentType", 5126}, {"count", 3}, {"type", "VEC4"}}}},
        {"bufferViews",
         {view(at_positions, 48, 34962), view(at_joints, 16, 34962), view(at_weights, 64, 34962), view(at_indices, 12, 34963),
          view(at_ibm, 128), view(at_times, 12), view(at_rotations, 48), view(at_sparse_index, 2), view(at_sparse_value, 12)}},
        {"buffers", {{{"byteLength", buffer_size}}}},
    };
    return f;
}

// The intact fixture reads as built: 4 vertices (vertex 3 moved by the sparse accessor),
// 2 triangles, 2 joints, one animation with one rotation track of 3 keys.
TEST(GltfReadMalformed, FixtureLoadsAsBuilt) {
    const Fixture f = make_fixture();
    auto scene = load_bytes(f.bytes(), "fixture.gltf");
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_TRUE(check_invariants(*scene));
    ASSERT_EQ(scene->meshes.size(), 1u);
    const Mesh& m = scene->meshes[0];
    ASSERT_EQ(m.vertex_count(), 4u);
    EXPECT_EQ(m.triangles.size(), 2u);
    // Static transforms of non-joint nodes are baked; the mesh node has none, so positions are as stored.
    EXPECT_EQ(m.positions[3], (Vec3{0, 2, 0})) << "sparse accessor not applied";
    EXPECT_EQ(m.positions[2], (Vec3{1, 1, 0}));
    EXPECT_EQ(scene->skeleton.joints.size(), 2u);
    ASSERT_EQ(scene->animations.size(), 1u);
    EXPECT_EQ(scene->animations[0].name, "turn");
    ASSERT_EQ(scene->animations[0].tracks.size(), 1u);
    EXPECT_EQ(scene->animations[0].tracks[0].times.size(), 3u);
}

// The fixture itself is valid glTF by the Khronos validator, so each case below breaks exactly
// what it says.
TEST(GltfReadMalformed, FixtureIsValidGltf) {
    RIGPORT_REQUIRE_JS();
    const fs::path file = temp_dir() / "fixture.gltf";
    write_bytes(file, make_fixture().bytes());
    ValidatorReport r = validate_gltf(file);
    ASSERT_TRUE(r.ran()) << r.error;
    EXPECT_EQ(r.errors, 0) << r.summary();
    EXPECT_EQ(r.warnings, 0) << r.summary();
}

struct BrokenCase {
    std::string name;
    std::function<void(Fixture&)> edit;
    std::vector<std::string> place;  // the error names one of these (a JSON path); empty = a byte offset will do
};

void PrintTo(const BrokenCase& c, std::ostream* os) { *os << c.name; }

json::json_pointer ptr(const std::string& p) { return json::json_pointer(p); }

// Sets the value at a JSON pointer.
std::function<void(Fixture&)> set(const std::string& p, json v) {
    return [p, v](Fixture& f) { f.doc[ptr(p)] = v; };
}
// Deletes the key at a JSON pointer.
std::function<void(Fixture&)> erase(const std::string& p) {
    return [p](Fixture& f) {
        const auto at = ptr(p);
        f.doc[at.parent_pointer()].erase(at.back());
    };
}

std::vector<BrokenCase> broken_cases() {
    std::vector<BrokenCase> out;
    auto add = [&](std::string name, std::function<void(Fixture&)> edit, std::vector<std::string> place) {
        out.push_back({std::move(name), std::move(edit), std::move(place)});
    };
    // Required properties deleted.
    for (const char* p : {"/accessors/0/count", "/accessors/0/componentType", "/accessors/0/type", "/bufferViews/0/byteLength",
                          "/bufferViews/0/buffer", "/buffers/0/byteLength", "/meshes/0/primitives", "/meshes/0/primitives/0/attributes",
                          "/skins/0/joints", "/animations/0/channels/0/target", "/animations/0/channels/0/sampler",
                          "/animations/0/samplers/0/input", "/animations/0/samplers/0/output", "/asset"}) {
        const std::string where = json::json_pointer(p).parent_pointer().to_string();
        add(std::string("deleted ") + p, erase(p), {where.empty() ? p : where});
    }
    // Indices out of range, both ways.
    for (const char* p : {"/meshes/0/primitives/0/attributes/POSITION", "/meshes/0/primitives/0/attributes/JOINTS_0",
                          "/meshes/0/primitives/0/indices", "/meshes/0/primitives/0/material", "/accessors/0/bufferView",
                          "/accessors/0/sparse/indices/bufferView", "/accessors/0/sparse/values/bufferView", "/bufferViews/0/buffer",
                          "/nodes/0/mesh", "/nodes/0/skin", "/nodes/1/children/0", "/skins/0/joints/0", "/skins/0/joints/1",
                          "/skins/0/inverseBindMatrices", "/skins/0/skeleton", "/animations/0/channels/0/sampler",
                          "/animations/0/channels/0/target/node", "/animations/0/samplers/0/input", "/animations/0/samplers/0/output",
                          "/scenes/0/nodes/1", "/scene"}) {
        const std::string parent = json::json_pointer(p).parent_pointer().to_string();
        // An index inside an array (children/0) is named by its array or its own path.
        std::vector<std::string> place{p};
        if (!parent.empty()) place.push_back(parent);
        add(std::string(p) + " = -1", set(p, -1), place);
        add(std::string(p) + " = 1e9", set(p, 1000000000), place);
    }
    // Strings (and other types) where numbers or arrays are expected.
    add("count is a string", set("/accessors/0/count", "4"), {"/accessors/0"});
    add("componentType is a string", set("/accessors/0/componentType", "5126"), {"/accessors/0"});
    add("byteOffset is a string", set("/bufferViews/0/byteOffset", "0"), {"/bufferViews/0"});
    add("count is fractional", set("/accessors/0/count", 4.5), {"/accessors/0"});
    add("translation holds a string", set("/nodes/2/translation", json::array({"a", 1, 0})), {"/nodes/2"});
    add("translation is a number", set("/nodes/2/translation", 5), {"/nodes/2"});
    add("translation has 2 numbers", set("/nodes/2/translation", json::array({0, 1})), {"/nodes/2"});
    add("children is a string", set("/nodes/1/children", "2"), {"/nodes/1"});
    add("accessors is an object", set("/accessors", json::object()), {"/accessors"});
    add("nodes is a number", set("/nodes", 3), {"/nodes"});
    // Node hierarchies that are not trees.
    add("cycle: tip's child is root", set("/nodes/2/children", json::array({1})), {"/nodes/"});
    add("cycle: root is its own child", set("/nodes/1/children", json::array({1, 2})), {"/nodes/1"});
    add("node with two parents", set("/nodes/0/children", json::array({2})), {"/nodes/"});
    // Counts and ranges.
    add("accessor count 1e9", set("/accessors/0/count", 1000000000), {"/accessors/0"});
    add("accessor count 2^32-1", set("/accessors/0/count", 4294967295u), {"/accessors/0"});
    add("accessor count 2^64-1", set("/accessors/0/count", UINT64_MAX), {"/accessors/0"});
    add("accessor count 0", set("/accessors/0/count", 0), {"/accessors/0"});
    add("index accessor reads past its view", set("/accessors/3/count", 9), {"/accessors/3"});
    add("accessor byteOffset past its view", set("/accessors/0/byteOffset", 40), {"/accessors/0"});
    add("bufferView byteOffset beyond the buffer", set("/bufferViews/0/byteOffset", 1000), {"/bufferViews/0"});
    add("bufferView byteLength beyond the buffer", set("/bufferViews/0/byteLength", 1000), {"/bufferViews/0"});
    add("bufferView byteOffset 2^64-1", set("/bufferViews/0/byteOffset", UINT64_MAX), {"/bufferViews/0"});
    add("buffer byteLength beyond its data", set("/buffers/0/byteLength", 1000), {"/buffers/0"});
    add("byteStride below the element size", set("/bufferViews/0/byteStride", 4), {"/bufferViews/0"});
    add("byteStride above 252", set("/bufferViews/0/byteStride", 256), {"/bufferViews/0"});
    add("byteStride not a multiple of 4", set("/bufferViews/0/byteStride", 13), {"/bufferViews/0"});
    add("componentType 5127", set("/accessors/0/componentType", 5127), {"/accessors/0"});
    add("type VEC5", set("/accessors/0/type", "VEC5"), {"/accessors/0"});
    // (Pointed at the weights' 64-byte view, so the data is there and only the type is wrong.)
    add("indices as FLOAT", [](Fixture& f) { f.doc["accessors"][3]["bufferView"] = 2, f.doc["accessors"][3]["componentType"] = 5126; },
        {"/accessors/3", "/meshes/0/primitives/0/indices"});
    add("POSITION as VEC2", set("/accessors/0/type", "VEC2"), {"/accessors/0", "/meshes/0/primitives/0/attributes/POSITION"});
    // Sparse accessors.
    add("sparse index out of range", [](Fixture& f) { f.put_u16(at_sparse_index, 9); }, {"/accessors/0"});
    add("sparse count above the accessor count", set("/accessors/0/sparse/count", 5), {"/accessors/0"});
    add("sparse count 0", set("/accessors/0/sparse/count", 0), {"/accessors/0"});
    add("sparse indices as FLOAT", set("/accessors/0/sparse/indices/componentType", 5126), {"/accessors/0"});
    // Data that breaks the references it holds.
    add("vertex index out of range", [](Fixture& f) { f.put_u16(at_indices + 4, 99); }, {"/meshes/0", "/accessors/3"});
    add("joint index beyond the skin", [](Fixture& f) { f.buffer[at_joints + 8] = 7; }, {"/meshes/0", "/accessors/1", "/skins/0", "/nodes/0"});
    add("fewer inverse bind matrices than joints", set("/accessors/4/count", 1), {"/skins/0", "/accessors/4"});
    add("inverseBindMatrices not MAT4", set("/accessors/4/type", "VEC4"), {"/skins/0", "/accessors/4"});
    add("duplicate skin joint", set("/skins/0/joints", json::array({1, 1})), {"/skins/0"});
    add("sampler input and output counts differ", set("/accessors/6/count", 2), {"/animations/0", "/accessors/6"});
    add("sampler times decrease", [](Fixture& f) { f.put_float(at_times + 4, 2.0f); }, {"/animations/0", "/accessors/5"});
    add("channel path unknown", set("/animations/0/channels/0/target/path", "bogus"), {"/animations/0/channels/0"});
    add("interpolation unknown", set("/animations/0/samplers/0/interpolation", "SQUARE"), {"/animations/0/samplers/0"});
    add("rotation output as VEC3", set("/accessors/6/type", "VEC3"), {"/animations/0", "/accessors/6"});
    // Buffers.
    add("base64 broken", [](Fixture& f) {
        f.keep_uri = true;
        f.doc["buffers"][0]["uri"] = "data:application/octet-stream;base64,@@@@" + base64(f.buffer);
    }, {"/buffers/0"});
    add("external buffer without a resource reader", [](Fixture& f) {
        f.keep_uri = true;
        f.doc["buffers"][0]["uri"] = "missing.bin";
    }, {"/buffers/0", "missing.bin"});
    // Whole-document breakage.
    add("asset version 3.0", set("/asset/version", "3.0"), {"/asset", "version"});
    add("required extension", set("/extensionsRequired", json::array({"EXT_mesh_gpu_instancing"})), {"/extensionsRequired", "EXT_mesh_gpu_instancing"});
    add("document is an array", [](Fixture& f) { f.doc = json::array(); }, {});
    return out;
}

class GltfReadMalformed : public ::testing::TestWithParam<BrokenCase> {};

// Each broken fixture gives an Error (never a scene, never a crash) whose text names the place: one
// of the case's JSON paths, or a byte offset into the file.
TEST_P(GltfReadMalformed, GivesErrorNamingThePlace) {
    const BrokenCase& c = GetParam();
    Fixture f = make_fixture();
    c.edit(f);
    const std::vector<uint8_t> bytes = f.bytes();
    auto scene = load_bytes(bytes, "broken.gltf");
    if (scene) {
        keep_failure(bytes, "broken.gltf");
        FAIL() << c.name << ": loaded (" << scene->vertex_count() << " vertices, " << scene->skeleton.joints.size()
               << " joints) instead of giving an error";
    }
    const Error& e = scene.error();
    const std::string text = e.to_string();
    EXPECT_FALSE(e.message.empty());
    bool named = c.place.empty() ? (e.offset.has_value() || e.line > 0) : false;
    for (const std::string& p : c.place) named = named || text.find(p) != std::string::npos;
    EXPECT_TRUE(named) << c.name << ": the error does not name the place (" << (c.place.empty() ? "offset" : c.place.front()) << "): " << text;
    std::cout << "[ error    ] " << c.name << ": " << text << "\n";
}

INSTANTIATE_TEST_SUITE_P(Cases, GltfReadMalformed, ::testing::ValuesIn(broken_cases()), [](const ::testing::TestParamInfo<BrokenCase>& info) {
    std::string name = info.param.name;
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return std::to_string(info.index) + "_" + name;
});

// Attribute component types outside the core set are read with a NonStandardFormat warning
// (the reader is lenient where the data still means something): JOINTS_0 as FLOAT with whole
// joint numbers binds as the integers would. A FLOAT joint number that is not a whole number
// names no joint: an error, not a silent truncation.
TEST(GltfReadMalformed, FloatJointsReadWithWarningWholeNumbersOnly) {
    Fixture f = make_fixture();
    // JOINTS_0 as FLOAT VEC4 in a view of its own at the end of the buffer: joints 0, 0, 1, 1.
    const size_t at = f.buffer.size();
    f.buffer.resize(at + 64, 0);
    for (int v = 0; v < 4; ++v) f.put_float(at + 16 * v, v < 2 ? 0.0f : 1.0f);
    f.doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", at}, {"byteLength", 64}});
    f.doc["buffers"][0]["byteLength"] = f.buffer.size();
    f.doc["accessors"][1] = {{"bufferView", f.doc["bufferViews"].size() - 1}, {"componentType", 5126}, {"count", 4}, {"type", "VEC4"}};
    auto scene = load_bytes(f.bytes(), "float-joints.gltf");
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_TRUE(scene->warnings.has(WarningCode::NonStandardFormat));
    const SkinInfluences& skin = scene->meshes[0].skin;
    ASSERT_FALSE(skin.empty());
    EXPECT_EQ(scene->skeleton.joints[skin.begin(2)->joint].name, "tip");
    EXPECT_EQ(scene->skeleton.joints[skin.begin(0)->joint].name, "root");

    f.put_float(at + 32, 0.5f);  // vertex 2 bound to joint 0.5
    auto half = load_bytes(f.bytes(), "float-joints.gltf");
    EXPECT_FALSE(half) << "joint 0.5 was read as joint " << (half ? std::to_string(half->meshes[0].skin.begin(2)->joint) : "");
    if (!half) {
        EXPECT_NE(half.error().to_string().find("/meshes/0/primitives/0/attributes/JOINTS_0"), std::string::npos) << half.error().to_string();
    }
}

// Hostile JSON shapes must not exhaust the stack or the memory: deep nesting, huge arrays of
// references, long strings.
TEST(GltfReadMalformed, HostileJsonShapesGiveErrorsOrScenes) {
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    auto r = load_bytes(std::span(reinterpret_cast<const uint8_t*>(deep.data()), deep.size()), "deep.gltf");
    ASSERT_FALSE(r) << "200,000 nested arrays loaded";
    EXPECT_FALSE(r.error().message.empty());

    Fixture f = make_fixture();
    f.doc["nodes"][0]["name"] = std::string(1 << 20, 'n');
    auto long_name = load_bytes(f.bytes(), "long.gltf");
    if (long_name) {
        EXPECT_TRUE(check_invariants(*long_name));
    }

    Fixture g = make_fixture();
    json children = json::array();
    for (int i = 0; i < 100000; ++i) children.push_back(2);
    g.doc["nodes"][1]["children"] = children;  // the same child 100,000 times
    auto many = load_bytes(g.bytes(), "many.gltf");
    ASSERT_FALSE(many) << "a node listed 100,000 times as one parent's child loaded";
}

}  // namespace
}  // namespace rigport::test
