// glTF 2.0 reader: containers, accessors (every componentType, normalized decoding by the spec's
// formulas, byteStride, sparse, no bufferView), primitive modes, attributes, materials, extensions,
// and errors that name the JSON path or byte offset. Fixtures are built in code (gltf_fixture.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "formats/gltf/gltf_fixture.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

using json = nlohmann::json;

const std::vector<float> triangle = {0, 0, 0, 1, 0, 0, 0, 1, 0};

bool mentions(const Error& e, const std::string& text) { return e.message.find(text) != std::string::npos; }

TEST(GltfRead, MetaRecordsGltfConventions) {
    GltfFixture f;
    f.doc["asset"]["generator"] = "unit test";
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_EQ(s->meta.source_format, "gltf");
    EXPECT_EQ(s->meta.source_version, 2u);
    EXPECT_EQ(s->meta.up, UpAxis::Y);
    EXPECT_EQ(s->meta.handedness, Handedness::Right);
    EXPECT_EQ(s->meta.front_face, Winding::CounterClockwise);
    EXPECT_EQ(s->meta.unit_scale, 1.0f);
    EXPECT_EQ(s->meta.comment, "glTF generator: unit test");
    ASSERT_EQ(s->meshes.size(), 1u);
    EXPECT_EQ(s->meshes[0].triangles, (std::vector<Triangle>{{0, 1, 2}}));  // non-indexed: vertices in order
    EXPECT_TRUE(s->skeleton.joints.empty());
}

// Every component type, normalized as glTF 2.0 §3.11 says: signed max(c / (2^(n-1) - 1), -1),
// unsigned c / (2^n - 1); custom `_NAME` attributes keep the raw stored numbers.
TEST(GltfRead, ComponentTypesAndNormalizedDecoding) {
    GltfFixture f;
    f.doc["extensionsUsed"] = {"KHR_mesh_quantization"};
    f.doc["extensionsRequired"] = {"KHR_mesh_quantization"};
    const std::vector<int16_t> pos = {-32768, 0, 32767, 100, -100, 7, 1, 2, 3};  // SHORT, not normalized
    const std::vector<int8_t> nrm = {-128, 0, 127, 64, -64, 0, 0, 127, 0};         // BYTE normalized
    const std::vector<int16_t> tan = {-32768, 0, 32767, 32767, 1, 2, 3, -32767, 0, 0, 16384, 32767};
    const std::vector<uint8_t> uv0 = {0, 255, 128, 1, 254, 77};        // UNSIGNED_BYTE normalized
    const std::vector<uint16_t> uv1 = {0, 65535, 32768, 1, 12345, 7};  // UNSIGNED_SHORT normalized
    const std::vector<int8_t> uv2 = {-128, 127, -1, 1, 50, -50};       // BYTE normalized (quantization)
    const std::vector<uint8_t> col = {255, 0, 51, 0, 255, 102, 10, 20, 30};  // VEC3: alpha 1
    const std::vector<uint16_t> col1 = {65535, 0, 0, 32768, 1, 2, 3, 4, 5, 6, 7, 8};
    const std::vector<uint32_t> custom_u32 = {4000000000u, 1, 2};
    const std::vector<int8_t> custom_i8 = {-5, 0, 5, 6, 7, -128};
    const std::vector<float> custom_f = {0.25f, -1.5f, 3};
    json attributes = {{"POSITION", f.accessor(pos, 5122, "VEC3")},       {"NORMAL", f.accessor(nrm, 5120, "VEC3", true)},
                       {"TANGENT", f.accessor(tan, 5122, "VEC4", true)},  {"TEXCOORD_0", f.accessor(uv0, 5121, "VEC2", true)},
                       {"TEXCOORD_1", f.accessor(uv1, 5123, "VEC2", true)}, {"TEXCOORD_2", f.accessor(uv2, 5120, "VEC2", true)},
                       {"COLOR_0", f.accessor(col, 5121, "VEC3", true)},  {"COLOR_1", f.accessor(col1, 5123, "VEC4", true)},
                       {"_BIG", f.accessor(custom_u32, 5125, "SCALAR")},  {"_PAIR", f.accessor(custom_i8, 5120, "VEC2", true)},
                       {"_F", f.accessor(custom_f, 5126, "SCALAR")}};
    f.mesh_node(attributes);
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_FALSE(s->warnings.has(WarningCode::NonStandardFormat)) << "KHR_mesh_quantization was declared";
    const Mesh& m = s->meshes.at(0);
    ASSERT_EQ(m.vertex_count(), 3u);
    for (size_t i = 0; i < 9; ++i) EXPECT_EQ(m.positions[i / 3][i % 3], float(pos[i])) << i;
    auto snorm8 = [](int8_t c) { return float(std::max(c / 127.0, -1.0)); };
    auto snorm16 = [](int16_t c) { return float(std::max(c / 32767.0, -1.0)); };
    for (size_t i = 0; i < 9; ++i) EXPECT_EQ(m.normals[i / 3][i % 3], snorm8(nrm[i])) << i;
    EXPECT_EQ(m.normals[0][0], -1.0f);  // -128 clamps to -1
    for (size_t i = 0; i < 12; ++i) EXPECT_EQ(m.tangents[i / 4][i % 4], snorm16(tan[i])) << i;
    ASSERT_EQ(m.texcoords.size(), 3u);
    for (size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(m.texcoords[0][i / 2][i % 2], float(uv0[i] / 255.0)) << i;
        EXPECT_EQ(m.texcoords[1][i / 2][i % 2], float(uv1[i] / 65535.0)) << i;
        EXPECT_EQ(m.texcoords[2][i / 2][i % 2], snorm8(uv2[i])) << i;
    }
    ASSERT_EQ(m.colors.size(), 2u);
    for (size_t v = 0; v < 3; ++v) {
        for (int c = 0; c < 3; ++c) EXPECT_EQ(m.colors[0][v][c], float(col[v * 3 + c] / 255.0));
        EXPECT_EQ(m.colors[0][v][3], 1.0f) << "VEC3 colours get alpha 1";
        for (int c = 0; c < 4; ++c) EXPECT_EQ(m.colors[1][v][c], float(col1[v * 4 + c] / 65535.0));
    }
    ASSERT_EQ(m.custom.size(), 3u);
    for (const CustomArray& c : m.custom) {
        if (c.name == "BIG") {
            EXPECT_EQ(c.type, ComponentType::UInt32);
            EXPECT_EQ(c.values, (std::vector<double>{4000000000.0, 1, 2}));
        } else if (c.name == "PAIR") {
            EXPECT_EQ(c.type, ComponentType::Int8);
            EXPECT_EQ(c.size, 2u);
            EXPECT_EQ(c.values, (std::vector<double>{-5, 0, 5, 6, 7, -128})) << "raw numbers, not normalized";
        } else {
            EXPECT_EQ(c.name, "F");
            EXPECT_EQ(c.type, ComponentType::Float32);
            EXPECT_EQ(c.values, (std::vector<double>{0.25, -1.5, 3}));
        }
    }
}

TEST(GltfRead, QuantizedAttributesWithoutTheExtensionWarn) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.accessor(std::vector<uint16_t>{0, 0, 0, 1, 0, 0, 0, 1, 0}, 5123, "VEC3")}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_TRUE(s->warnings.has(WarningCode::NonStandardFormat));
    EXPECT_EQ(s->meshes[0].positions[1], (Vec3{1, 0, 0}));
}

TEST(GltfRead, InterleavedByteStride) {
    GltfFixture f;
    // position xyz, normal xyz per vertex: stride 24, normals at byteOffset 12.
    const std::vector<float> data = {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1};
    const uint32_t view = f.view(data.data(), data.size() * 4, 24);
    const uint32_t p = f.push("accessors", {{"bufferView", view}, {"componentType", 5126}, {"count", 3}, {"type", "VEC3"}});
    const uint32_t n = f.push("accessors", {{"bufferView", view}, {"byteOffset", 12}, {"componentType", 5126}, {"count", 3}, {"type", "VEC3"}});
    f.mesh_node({{"POSITION", p}, {"NORMAL", n}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    const Mesh& m = s->meshes[0];
    EXPECT_EQ(m.positions, (std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}));
    EXPECT_EQ(m.normals, (std::vector<Vec3>{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}));
}

TEST(GltfRead, SparseAccessorAndAccessorWithoutBufferView) {
    GltfFixture f;
    const uint32_t base = f.floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, "VEC3");
    const std::vector<uint16_t> which = {1, 3};
    const std::vector<float> values = {5, 6, 7, 8, 9, 10};
    const uint32_t iv = f.view(which.data(), 4), vv = f.view(values.data(), 24);
    f.doc["accessors"][base]["sparse"] = {{"count", 2}, {"indices", {{"bufferView", iv}, {"componentType", 5123}}}, {"values", {{"bufferView", vv}}}};
    // Normals: no bufferView at all (zeros), but a sparse entry for vertex 2.
    const std::vector<float> n2 = {0, 0, 1};
    const std::vector<uint8_t> at2 = {2};
    const uint32_t niv = f.view(at2.data(), 1), nvv = f.view(n2.data(), 12);
    const uint32_t normals = f.push("accessors", {{"componentType", 5126}, {"count", 4}, {"type", "VEC3"},
                                                  {"sparse", {{"count", 1}, {"indices", {{"bufferView", niv}, {"componentType", 5121}}}, {"values", {{"bufferView", nvv}}}}}});
    const uint32_t colors = f.push("accessors", {{"componentType", 5126}, {"count", 4}, {"type", "VEC4"}});
    f.mesh_node({{"POSITION", base}, {"NORMAL", normals}, {"COLOR_0", colors}}, f.indices({0, 1, 2, 2, 1, 3}));
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    const Mesh& m = s->meshes[0];
    EXPECT_EQ(m.positions, (std::vector<Vec3>{{0, 0, 0}, {5, 6, 7}, {0, 1, 0}, {8, 9, 10}}));
    EXPECT_EQ(m.normals, (std::vector<Vec3>{{0, 0, 0}, {0, 0, 0}, {0, 0, 1}, {0, 0, 0}}));
    EXPECT_EQ(m.colors.at(0), (std::vector<Vec4>(4, Vec4{0, 0, 0, 0})));
    EXPECT_EQ(m.triangles, (std::vector<Triangle>{{0, 1, 2}, {2, 1, 3}}));
}

TEST(GltfRead, SparseIndicesMustIncrease) {
    GltfFixture f;
    const uint32_t base = f.floats(triangle, "VEC3");
    const std::vector<uint8_t> which = {2, 1};
    const std::vector<float> values = {5, 6, 7, 8, 9, 10};
    f.doc["accessors"][base]["sparse"] = {{"count", 2}, {"indices", {{"bufferView", f.view(which.data(), 2)}, {"componentType", 5121}}},
                                          {"values", {{"bufferView", f.view(values.data(), 24)}}}};
    f.mesh_node({{"POSITION", base}});
    auto s = f.load();
    ASSERT_FALSE(s);
    EXPECT_TRUE(mentions(s.error(), "/accessors/0/sparse/indices")) << s.error().to_string();
}

// TRIANGLE_STRIP: triangle i is (v_i, v_i+1, v_i+2) for even i and (v_i+1, v_i, v_i+2) for odd i,
// so every triangle keeps the strip's winding; TRIANGLE_FAN: (v_i+1, v_i+2, v_0) (glTF 2.0 §3.7.2.1).
TEST(GltfRead, StripAndFanTriangulated) {
    GltfFixture f;
    const std::vector<float> five = {0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 2, 0, 0};
    f.mesh_node({{"POSITION", f.floats(five, "VEC3")}}, f.indices({0, 1, 2, 3, 4}), 5);
    f.mesh_node({{"POSITION", f.floats(five, "VEC3")}}, f.indices({0, 1, 2, 3, 4}), 6);
    // A strip with a repeated index: the degenerate triangles it makes are dropped.
    f.mesh_node({{"POSITION", f.floats(five, "VEC3")}}, f.indices({0, 1, 2, 2, 3, 4}), 5);
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 3u);
    EXPECT_EQ(s->meshes[0].triangles, (std::vector<Triangle>{{0, 1, 2}, {2, 1, 3}, {2, 3, 4}}));
    EXPECT_EQ(s->meshes[1].triangles, (std::vector<Triangle>{{1, 2, 0}, {2, 3, 0}, {3, 4, 0}}));
    // One repeated index shifts the parity: (3,2,4) is the strip's rule applied to index 3.
    EXPECT_EQ(s->meshes[2].triangles, (std::vector<Triangle>{{0, 1, 2}, {3, 2, 4}}));
    // Every strip triangle faces the same way as the first (z of the face normal).
    const auto& p = s->meshes[0].positions;
    for (auto& t : s->meshes[0].triangles) {
        const float ax = p[t[1]][0] - p[t[0]][0], ay = p[t[1]][1] - p[t[0]][1], bx = p[t[2]][0] - p[t[0]][0], by = p[t[2]][1] - p[t[0]][1];
        EXPECT_LT(ax * by - ay * bx, 0) << t[0] << " " << t[1] << " " << t[2];
    }
}

TEST(GltfRead, PointsAndLinesSkippedWithWarning) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, -1, 0);
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, -1, 1);
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, -1, 4);
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_EQ(s->meshes.size(), 1u);
    ASSERT_TRUE(s->warnings.has(WarningCode::DroppedData));
    bool points = false, lines = false;
    for (auto& w : s->warnings.items) points |= w.message.find("points skipped") != std::string::npos, lines |= w.message.find("lines skipped") != std::string::npos;
    EXPECT_TRUE(points && lines);
}

TEST(GltfRead, SeveralPrimitivesBecomeNamedMeshes) {
    GltfFixture f;
    const uint32_t p = f.floats(triangle, "VEC3");
    f.push("materials", {{"name", "red"}, {"pbrMetallicRoughness", {{"baseColorFactor", {1, 0, 0, 1}}}}});
    f.push("meshes", {{"name", "body"}, {"primitives", {{{"attributes", {{"POSITION", p}}}}, {{"attributes", {{"POSITION", p}}}, {"material", 0}}}}});
    f.push("nodes", {{"mesh", 0}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 2u);
    EXPECT_EQ(s->meshes[0].name, "body_0");
    EXPECT_EQ(s->meshes[1].name, "body_1");
    EXPECT_EQ(s->meshes[0].material, -1);
    EXPECT_EQ(s->meshes[1].material, 0);
    EXPECT_EQ(s->materials.at(0).diffuse, (Vec4{1, 0, 0, 1}));
}

TEST(GltfRead, MaterialsAndTextureUris) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}});
    const uint8_t png[] = {0x89, 'P', 'N', 'G'};
    const uint32_t embedded = f.view(png, 4);
    f.doc["images"] = {{{"uri", "tex%20a.png"}}, {{"uri", "data:image/png;base64,iVBORw=="}}, {{"bufferView", embedded}, {"mimeType", "image/png"}},
                       {{"uri", "normals/n.png"}}};
    f.doc["textures"] = {{{"source", 0}}, {{"source", 1}}, {{"source", 2}}, {{"source", 3}}};
    f.doc["materials"] = {{{"name", "a"},
                           {"pbrMetallicRoughness", {{"baseColorFactor", {0.5, 0.25, 1, 0.75}}, {"baseColorTexture", {{"index", 0}}}}},
                           {"normalTexture", {{"index", 3}}},
                           {"emissiveTexture", {{"index", 1}}},
                           {"emissiveFactor", {1, 0.5, 0}}},
                          {{"name", "b"}, {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 2}}}}}}};
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->materials.size(), 2u);
    const Material& a = s->materials[0];
    EXPECT_EQ(a.name, "a");
    EXPECT_EQ(a.diffuse, (Vec4{0.5f, 0.25f, 1, 0.75f}));
    EXPECT_EQ(a.emissive, (Vec4{1, 0.5f, 0, 1}));
    ASSERT_EQ(a.maps.size(), 3u);
    EXPECT_EQ(a.maps[0].type, TextureType::Diffuse);
    EXPECT_EQ(a.maps[0].uri, "tex a.png") << "percent-decoded";
    EXPECT_EQ(a.maps[1].type, TextureType::Normal);
    EXPECT_EQ(a.maps[1].uri, "normals/n.png");
    EXPECT_EQ(a.maps[2].type, TextureType::Emissive);
    // Images the file holds (a data: URI, a bufferView) are loaded and named after their material.
    const std::vector<uint8_t> png_bytes(png, png + 4);
    ASSERT_EQ(s->images.size(), 2u);
    EXPECT_EQ(a.maps[2].image, 0);
    EXPECT_EQ(a.maps[2].uri, "a.png");
    EXPECT_EQ(s->images[0].bytes, png_bytes) << "base64 decoded";
    ASSERT_EQ(s->materials[1].maps.size(), 1u);
    EXPECT_EQ(s->materials[1].maps[0].image, 1);
    EXPECT_EQ(s->materials[1].maps[0].uri, "b.png");
    EXPECT_EQ(s->images[1].bytes, png_bytes);
    EXPECT_EQ(s->images[1].mime_type, "image/png");
    EXPECT_FALSE(s->warnings.has(WarningCode::DroppedData));
}

TEST(GltfRead, InfluenceSetsMergedAndZeroWeightsDropped) {
    GltfFixture f;
    const uint32_t p = f.floats(triangle, "VEC3");
    const std::vector<uint8_t> j0 = {0, 1, 2, 3, 1, 0, 0, 0, 2, 2, 0, 0};
    const std::vector<float> w0 = {0.5f, 0.25f, 0, 0, 1, 0, 0, 0, 0.5f, 0.25f, 0, 0};
    const std::vector<uint16_t> j1 = {3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    const std::vector<uint8_t> w1 = {64, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0};  // normalized UNSIGNED_BYTE
    f.mesh_node({{"POSITION", p},
                 {"JOINTS_0", f.accessor(j0, 5121, "VEC4")},
                 {"WEIGHTS_0", f.floats(w0, "VEC4")},
                 {"JOINTS_1", f.accessor(j1, 5123, "VEC4")},
                 {"WEIGHTS_1", f.accessor(w1, 5121, "VEC4", true)}},
                -1, 4, {{"skin", 0}});
    for (int i = 0; i < 4; ++i) f.push("nodes", {{"name", "j" + std::to_string(i)}, {"translation", {0, float(i), 0}}});
    const std::vector<float> ibm = [] {
        std::vector<float> out;
        for (int i = 0; i < 4; ++i) out.insert(out.end(), {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -float(i), 0, 1});
        return out;
    }();
    f.push("skins", {{"joints", {1, 2, 3, 4}}, {"inverseBindMatrices", f.floats(ibm, "MAT4")}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->skeleton.joints.size(), 4u);
    const SkinInfluences& skin = s->meshes[0].skin;
    ASSERT_FALSE(skin.empty());
    auto influences = [&](uint32_t v) {
        std::vector<std::pair<uint32_t, float>> out;
        for (uint32_t i = 0; i < skin.count(v); ++i) out.emplace_back(skin.begin(v)[i].joint, skin.begin(v)[i].weight);
        return out;
    };
    // Joint j of the skin is node j+1, named j{j}; the joints keep the skin's order.
    for (uint32_t j = 0; j < 4; ++j) EXPECT_EQ(s->skeleton.joints[j].name, "j" + std::to_string(j));
    EXPECT_EQ(influences(0), (std::vector<std::pair<uint32_t, float>>{{0, 0.5f}, {1, 0.25f}, {3, float(64 / 255.0)}}));
    EXPECT_EQ(influences(1), (std::vector<std::pair<uint32_t, float>>{{1, 1.0f}}));
    EXPECT_EQ(influences(2), (std::vector<std::pair<uint32_t, float>>{{2, 0.75f}, {1, 1.0f}})) << "joint 2 listed twice: one influence";
}

TEST(GltfRead, JointIndexBeyondTheSkinIsAnError) {
    GltfFixture f;
    const std::vector<uint8_t> joints = {0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0};
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}, {"JOINTS_0", f.accessor(joints, 5121, "VEC4")},
                 {"WEIGHTS_0", f.floats({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4")}},
                -1, 4, {{"skin", 0}});
    f.push("nodes", {{"name", "bone"}});
    f.push("skins", {{"joints", {1}}});
    auto s = f.load();
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Malformed);
    EXPECT_TRUE(mentions(s.error(), "/meshes/0/primitives/0/attributes/JOINTS_0")) << s.error().to_string();
    EXPECT_TRUE(mentions(s.error(), "vertex 1 uses joint 5")) << s.error().to_string();
}

TEST(GltfRead, ExtensionsRequiredOutsideTheSupportedSetAreRefused) {
    GltfFixture f;
    // Compression, quantization and texture transforms are read (docs/gltf.md §7.1); instancing
    // and lights are not, and a file that requires them cannot be read correctly.
    const std::vector<std::string> required = {"KHR_draco_mesh_compression", "KHR_mesh_quantization", "EXT_mesh_gpu_instancing",
                                               "EXT_meshopt_compression", "KHR_texture_transform", "KHR_lights_punctual"};
    f.doc["extensionsUsed"] = required;
    f.doc["extensionsRequired"] = required;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}});
    auto s = f.load();
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Unsupported);
    EXPECT_TRUE(mentions(s.error(), "/extensionsRequired: EXT_mesh_gpu_instancing, KHR_lights_punctual not supported")) << s.error().to_string();
}

TEST(GltfRead, ExtensionsOnlyUsedAreIgnoredWithAWarning) {
    GltfFixture f;
    f.doc["extensionsUsed"] = {"KHR_materials_volume", "KHR_texture_transform", "KHR_lights_punctual", "KHR_materials_emissive_strength"};
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    size_t ignored = 0;
    for (auto& w : s->warnings.items) ignored += w.message.find("ignored") != std::string::npos && w.message.find("KHR_") != std::string::npos;
    EXPECT_EQ(ignored, 2u) << "KHR_materials_volume and KHR_lights_punctual; the other two are read";
}

TEST(GltfRead, GlbContainerWithBinChunk) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, f.indices({0, 1, 2}));
    const std::vector<uint8_t> glb = f.glb();
    EXPECT_EQ(detect_format(glb, "x.bin")->name, "gltf");
    auto s = load_bytes(glb, "fixture.glb");
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_EQ(s->meshes.at(0).positions[1], (Vec3{1, 0, 0}));
    // The header's length beyond the file: an error at byte 8.
    std::vector<uint8_t> cut(glb.begin(), glb.end() - 4);
    auto e = load_bytes(cut, "cut.glb");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().offset, 8u) << e.error().to_string();
    // A GLB of another version is recognised but unsupported.
    std::vector<uint8_t> v1 = glb;
    v1[4] = 1;
    auto u = load_bytes(v1, "v1.glb");
    ASSERT_FALSE(u);
    EXPECT_EQ(u.error().code, ErrorCode::Unsupported);
}

TEST(GltfRead, BadJsonGivesTheByteOffset) {
    const std::string text = R"({"asset": {"version": "2.0"}, "nodes": [}, ])";
    auto s = load_bytes(std::vector<uint8_t>(text.begin(), text.end()), "bad.gltf");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Malformed);
    ASSERT_TRUE(s.error().offset) << s.error().to_string();
    EXPECT_EQ(*s.error().offset, text.find("[}") + 1) << s.error().to_string();
    // Inside a GLB the offset counts from the start of the file.
    GltfFixture f;
    std::vector<uint8_t> glb = f.glb();
    glb[20] = '[';
    glb[21] = ':';
    auto g = load_bytes(glb, "bad.glb");
    ASSERT_FALSE(g);
    ASSERT_TRUE(g.error().offset);
    EXPECT_EQ(*g.error().offset, 21u) << g.error().to_string();
}

TEST(GltfRead, IndexOutOfRangeNamesThePath) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, f.indices({0, 1, 7}));
    auto s = f.load();
    ASSERT_FALSE(s);
    EXPECT_TRUE(mentions(s.error(), "/meshes/0/primitives/0/indices: index 7 at position 2 is out of range (3 vertices)")) << s.error().to_string();
}

TEST(GltfRead, AccessorBeyondItsBufferView) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}});
    f.doc["accessors"][0]["count"] = 4;
    auto s = f.load();
    ASSERT_FALSE(s);
    EXPECT_TRUE(mentions(s.error(), "/accessors/0/count: 4 exceeds the 36-byte bufferView 0")) << s.error().to_string();
    f.doc["accessors"][0]["count"] = 4294967295u;
    auto big = f.load();
    ASSERT_FALSE(big);
    EXPECT_EQ(big.error().code, ErrorCode::LimitExceeded) << big.error().to_string();
    EXPECT_TRUE(mentions(big.error(), "/accessors/0/count")) << big.error().to_string();
}

TEST(GltfRead, BufferViewBeyondItsBuffer) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}});
    f.doc["bufferViews"][0]["byteOffset"] = 8;
    auto s = f.load();
    ASSERT_FALSE(s);
    EXPECT_TRUE(mentions(s.error(), "/bufferViews/0: byteOffset 8 + byteLength 36 exceeds the 36-byte buffer 0")) << s.error().to_string();
}

TEST(GltfRead, ExternalBuffers) {
    const std::filesystem::path dir = temp_dir();
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}});
    write_bytes(dir / "my data.bin", f.bin);
    write_bytes(dir / "model.gltf", f.gltf("my%20data.bin"));
    auto s = load((dir / "model.gltf").string());
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_EQ(s->meshes.at(0).positions[2], (Vec3{0, 1, 0}));
    // The compiler (rigport convert) reads it too.
    CompileInput input;
    input.paths.push_back((dir / "model.gltf").string());
    auto compiled = compile({input}, CompileOptions{});
    ASSERT_TRUE(compiled) << compiled.error().to_string();
    EXPECT_EQ(compiled->vertex_count(), 3u);
    // From bytes there is no folder to read it from.
    auto bytes = load_bytes(read_bytes(dir / "model.gltf"), "model.gltf");
    ASSERT_FALSE(bytes);
    EXPECT_TRUE(mentions(bytes.error(), "external buffer 'my data.bin': no folder to read it from (use load with a path)")) << bytes.error().to_string();
    // A missing file: the URI, the JSON path and NotFound.
    write_bytes(dir / "missing.gltf", f.gltf("gone.bin"));
    auto missing = load((dir / "missing.gltf").string());
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
    EXPECT_TRUE(mentions(missing.error(), "/buffers/0/uri: external buffer 'gone.bin'")) << missing.error().to_string();
    // An absolute path outside the model's folder is refused like "../" (confinement: docs/cli.md, "Inputs: what rigport will read");
    // other schemes are not followed at all.
    write_bytes(dir / "abs.gltf", f.gltf("/etc/hostname"));
    auto absolute = load((dir / "abs.gltf").string());
    ASSERT_FALSE(absolute);
    EXPECT_EQ(absolute.error().code, ErrorCode::ReadFailed) << absolute.error().to_string();
    EXPECT_TRUE(mentions(absolute.error(), "outside")) << absolute.error().to_string();
    write_bytes(dir / "scheme.gltf", f.gltf("file:///etc/hostname"));
    auto scheme = load((dir / "scheme.gltf").string());
    ASSERT_FALSE(scheme);
    EXPECT_EQ(scheme.error().code, ErrorCode::Unsupported) << scheme.error().to_string();
    // A caller may supply its own reader.
    LoadOptions o;
    o.read_resource = [&](const std::string& uri) -> Expected<std::vector<uint8_t>> {
        EXPECT_EQ(uri, "gone.bin");
        return f.bin;
    };
    auto supplied = load_bytes(f.gltf("gone.bin"), "x.gltf", o);
    ASSERT_TRUE(supplied) << supplied.error().to_string();
}

TEST(GltfRead, LimitsApplyBeforeAllocation) {
    GltfFixture f;
    const uint32_t p = f.push("accessors", {{"componentType", 5126}, {"count", 1000}, {"type", "VEC3"}});  // zeros, no data
    f.mesh_node({{"POSITION", p}});
    LoadOptions o;
    o.max_elements = 999;
    auto s = f.load(o);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::LimitExceeded);
    o.max_elements = 1000;
    EXPECT_TRUE(f.load(o));
    // The same accessor instanced by many nodes: the total is bounded too (4 x max_elements).
    for (int i = 0; i < 5; ++i) f.push("nodes", {{"mesh", 0}});
    f.doc.erase("scenes");  // every node in the scene again
    auto many = f.load(o);
    ASSERT_FALSE(many);
    EXPECT_EQ(many.error().code, ErrorCode::LimitExceeded) << many.error().to_string();
}

TEST(GltfRead, NonFiniteFloatsAreRefused) {
    GltfFixture f;
    std::vector<float> p = triangle;
    p[4] = std::numeric_limits<float>::quiet_NaN();
    f.mesh_node({{"POSITION", f.floats(p, "VEC3")}});
    auto s = f.load();
    ASSERT_FALSE(s);
    EXPECT_TRUE(mentions(s.error(), "/accessors/0: element 1 is not a finite number")) << s.error().to_string();
}

TEST(GltfRead, AssetVersionChecked) {
    GltfFixture f;
    f.doc["asset"]["version"] = "1.0";
    auto s = f.load();
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Unsupported);
    f.doc.erase("asset");
    auto none = f.load();
    ASSERT_FALSE(none);
    EXPECT_TRUE(mentions(none.error(), "/asset")) << none.error().to_string();
}

}  // namespace
}  // namespace rigport::test
