// The glTF extensions the reader understands besides meshopt and quantization (docs/gltf.md §7.1),
// on small hand-made files: a Draco mesh made with libdraco's own encoder (decoded back to its
// triangles; every flipped byte refused naming the bufferView or read safely), KHR_texture_transform
// applied to the texcoords, and the KHR_materials_* values that have a place in a Material.
#include <gtest/gtest.h>

#include <draco/compression/decode.h>
#include <draco/compression/encode.h>
#include <draco/mesh/triangle_soup_mesh_builder.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "formats/gltf/gltf_fixture.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

using nlohmann::json;

bool mentions(const Error& e, const std::string& text) { return e.message.find(text) != std::string::npos; }

// A unit cube's 12 triangles (counter-clockwise seen from outside) as corner positions.
std::vector<std::array<Vec3, 3>> cube_triangles() {
    const Vec3 c[8] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    const int f[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4}, {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
    std::vector<std::array<Vec3, 3>> out;
    for (auto& t : f) out.push_back({c[t[0]], c[t[1]], c[t[2]]});
    return out;
}

// The cube as a Draco mesh: POSITION (unique id 0) and a per-corner TEXCOORD (id 1), encoded
// losslessly (no quantization) by libdraco with the edgebreaker at speed 5.
std::vector<uint8_t> draco_cube() {
    const auto tris = cube_triangles();
    draco::TriangleSoupMeshBuilder builder;
    builder.Start(int(tris.size()));
    const int pos = builder.AddAttribute(draco::GeometryAttribute::POSITION, 3, draco::DT_FLOAT32);
    const int uv = builder.AddAttribute(draco::GeometryAttribute::TEX_COORD, 2, draco::DT_FLOAT32);
    for (size_t t = 0; t < tris.size(); ++t) {
        float uvs[3][2];
        for (int k = 0; k < 3; ++k) uvs[k][0] = tris[t][k][0], uvs[k][1] = tris[t][k][1] + tris[t][k][2];
        builder.SetAttributeValuesForFace(pos, draco::FaceIndex(uint32_t(t)), tris[t][0].data(), tris[t][1].data(), tris[t][2].data());
        builder.SetAttributeValuesForFace(uv, draco::FaceIndex(uint32_t(t)), uvs[0], uvs[1], uvs[2]);
    }
    auto mesh = builder.Finalize();
    EXPECT_TRUE(mesh);
    draco::Encoder encoder;
    encoder.SetSpeedOptions(5, 5);
    draco::EncoderBuffer out;
    const draco::Status status = encoder.EncodeMeshToBuffer(*mesh, &out);
    EXPECT_TRUE(status.ok()) << status.error_msg_string();
    return {out.data(), out.data() + out.size()};
}

struct DracoCube {
    GltfFixture f;
    std::vector<uint8_t> stream = draco_cube();
    uint32_t view = 0;
    uint64_t points = 0;
    DracoCube() {
        f.doc["extensionsUsed"] = {"KHR_draco_mesh_compression"};
        f.doc["extensionsRequired"] = {"KHR_draco_mesh_compression"};
        view = f.view(stream.data(), stream.size());
        // The decoded point count, as an encoder writes it in the accessors: decode once here.
        draco::DecoderBuffer buffer;
        buffer.Init(reinterpret_cast<const char*>(stream.data()), stream.size());
        draco::Decoder decoder;
        auto mesh = decoder.DecodeMeshFromBuffer(&buffer);
        EXPECT_TRUE(mesh.ok());
        points = mesh.ok() ? mesh.value()->num_points() : 0;
        const uint32_t p = f.push("accessors", {{"componentType", 5126}, {"count", points}, {"type", "VEC3"}});
        const uint32_t t = f.push("accessors", {{"componentType", 5126}, {"count", points}, {"type", "VEC2"}});
        const uint32_t i = f.push("accessors", {{"componentType", 5123}, {"count", 36}, {"type", "SCALAR"}});
        f.mesh_node({{"POSITION", p}, {"TEXCOORD_0", t}}, int(i));
        f.doc["meshes"][0]["primitives"][0]["extensions"] = {
            {"KHR_draco_mesh_compression", {{"bufferView", view}, {"attributes", {{"POSITION", 0}, {"TEXCOORD_0", 1}}}}}};
    }
    Expected<Scene> load() { return load_bytes(f.glb(), "cube.glb"); }
};

TEST(GltfDraco, LibdracoCubeDecodesToItsTriangles) {
    DracoCube cube;
    auto s = cube.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 1u);
    const Mesh& m = s->meshes[0];
    EXPECT_EQ(m.vertex_count(), cube.points);
    ASSERT_EQ(m.triangles.size(), 12u);
    ASSERT_EQ(m.texcoords.size(), 1u);
    // Draco renumbers corners and may rotate a triangle's corner order: compare each triangle as its
    // corners rotated to start at the smallest, as a sorted list.
    auto canonical = [](std::array<Vec3, 3> t) {
        const size_t first = size_t(std::min_element(t.begin(), t.end()) - t.begin());
        std::rotate(t.begin(), t.begin() + first, t.end());
        return t;
    };
    std::vector<std::array<Vec3, 3>> want, got;
    for (auto& t : cube_triangles()) want.push_back(canonical(t));
    for (auto& t : m.triangles) {
        got.push_back(canonical({m.positions[t[0]], m.positions[t[1]], m.positions[t[2]]}));
        for (uint32_t c : t) {
            const Vec3& p = m.positions[c];
            EXPECT_EQ(m.texcoords[0][c], (std::array<float, 2>{p[0], p[1] + p[2]})) << "the texcoord travels with its corner";
        }
    }
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want);
}

// A Draco mesh on two nodes is decoded once and placed twice (the second node moved by 5 in x).
TEST(GltfDraco, InstancedMeshIsPlacedOnEveryNode) {
    DracoCube cube;
    cube.f.push("nodes", {{"mesh", 0}, {"translation", {5, 0, 0}}});
    auto s = cube.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 2u);
    for (const Mesh& m : s->meshes) EXPECT_EQ(m.triangles.size(), 12u);
    float lo = 1e9f, hi = -1e9f;
    for (auto& p : s->meshes[1].positions) lo = std::min(lo, p[0]), hi = std::max(hi, p[0]);
    EXPECT_EQ(lo, 5.0f);
    EXPECT_EQ(hi, 6.0f);
}

TEST(GltfDraco, DeclaredCountsThatDisagreeWithTheStreamAreRefused) {
    {
        DracoCube cube;
        cube.f.doc["accessors"][2]["count"] = 33;
        auto s = cube.load();
        ASSERT_FALSE(s);
        EXPECT_TRUE(mentions(s.error(), "/meshes/0/primitives/0/indices: accessor 2 has 33 indices; the Draco mesh in bufferView 0 has 12 triangles"))
            << s.error().to_string();
    }
    {
        DracoCube cube;
        cube.f.doc["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]["attributes"]["TEXCOORD_0"] = 7;
        auto s = cube.load();
        ASSERT_FALSE(s);
        EXPECT_TRUE(mentions(s.error(), "the Draco mesh in bufferView 0 has no attribute 7")) << s.error().to_string();
    }
    {
        DracoCube cube;
        cube.stream.resize(cube.stream.size() / 2);
        cube.f.bin.resize(cube.stream.size());
        cube.f.doc["bufferViews"][0]["byteLength"] = cube.stream.size();
        auto s = cube.load();
        ASSERT_FALSE(s);
        EXPECT_TRUE(mentions(s.error(), "/bufferViews/0: KHR_draco_mesh_compression data does not decode")) << s.error().to_string();
    }
}

// Every byte of the Draco stream replaced by its complement in turn: read with a scene that holds
// together, or refused with an error naming where; never a crash (the sanitizer build runs this).
TEST(GltfDraco, EveryFlippedByteIsReadOrRefusedSafely) {
    DracoCube base;
    size_t refused = 0, read = 0;
    for (size_t byte = 0; byte < base.stream.size(); ++byte) {
        DracoCube cube;
        cube.f.bin[byte] ^= 0xFF;
        auto s = cube.load();
        if (s) {
            ++read;
            for (auto& t : s->meshes.at(0).triangles)
                for (uint32_t c : t) ASSERT_LT(c, s->meshes[0].vertex_count());
        } else {
            ++refused;
            EXPECT_TRUE(mentions(s.error(), "bufferView") || mentions(s.error(), "/accessors/") || mentions(s.error(), "/meshes/0"))
                << s.error().to_string();
        }
    }
    EXPECT_GT(refused, 0u);
    std::cout << "[ measured ] " << base.stream.size() << " Draco bytes flipped: " << refused << " refused, " << read << " read\n";
}

// KHR_texture_transform: uv' = offset + R(rotation) (scale uv) moves the texcoords of the
// primitives whose material's map has it, with a warning; the map itself is kept.
TEST(GltfTextureTransform, AppliedToTheTexcoordsOfItsSet) {
    GltfFixture f;
    f.doc["extensionsUsed"] = {"KHR_texture_transform"};
    f.doc["extensionsRequired"] = {"KHR_texture_transform"};
    const uint32_t p = f.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3");
    const uint32_t t0 = f.floats({0, 0, 1, 0, 0, 1}, "VEC2");
    const uint32_t t1 = f.floats({0.5f, 0.5f, 0.25f, 0.75f, 1, 1}, "VEC2");
    f.mesh_node({{"POSITION", p}, {"TEXCOORD_0", t0}, {"TEXCOORD_1", t1}});
    f.doc["meshes"][0]["primitives"][0]["material"] = 0;
    f.push("images", {{"uri", "skin.png"}});
    f.push("textures", {{"source", 0}});
    const float angle = float(M_PI / 2);
    json transform = {{"offset", {0.5, 0.25}}, {"rotation", angle}, {"scale", {2, 4}}, {"texCoord", 1}};
    json material = {{"name", "m"}};
    material["pbrMetallicRoughness"]["baseColorTexture"] = {{"index", 0}, {"extensions", {{"KHR_texture_transform", transform}}}};
    material["emissiveTexture"] = {{"index", 0}, {"texCoord", 0}};
    f.push("materials", material);
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    const Mesh& m = s->meshes.at(0);
    // Set 0 has no transform; set 1 (the extension's texCoord overrides the map's) does:
    // (u, v) -> (0.5 + 4 v, 0.25 - 2 u) for a quarter turn.
    EXPECT_EQ(m.texcoords.at(0)[1], (std::array<float, 2>{1, 0}));
    const float uv1[3][2] = {{0.5f, 0.5f}, {0.25f, 0.75f}, {1, 1}};
    for (int v = 0; v < 3; ++v) {
        EXPECT_NEAR(m.texcoords.at(1)[v][0], 0.5 + 4 * uv1[v][1], 1e-6) << v;
        EXPECT_NEAR(m.texcoords.at(1)[v][1], 0.25 - 2 * uv1[v][0], 1e-6) << v;
    }
    bool warned = false;
    for (auto& w : s->warnings.items) warned = warned || w.message.find("TEXCOORD_1 moved by the KHR_texture_transform") != std::string::npos;
    EXPECT_TRUE(warned);
    ASSERT_EQ(s->materials.at(0).maps.size(), 2u);
}

// KHR_materials_emissive_strength scales the emissive colour; KHR_materials_specular gives the
// specular colour (colour factor x factor) and its maps; the archived specular-glossiness model
// gives diffuse and specular when there is no metallic-roughness block; unlit keeps what it has.
TEST(GltfMaterialExtensions, ValuesThatMapToAMaterialAreRead) {
    GltfFixture f;
    f.doc["extensionsUsed"] = {"KHR_materials_emissive_strength", "KHR_materials_specular", "KHR_materials_pbrSpecularGlossiness", "KHR_materials_unlit"};
    f.doc["extensionsRequired"] = {"KHR_materials_pbrSpecularGlossiness", "KHR_materials_unlit"};
    f.mesh_node({{"POSITION", f.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3")}});
    f.push("images", {{"uri", "spec.png"}});
    f.push("textures", {{"source", 0}});
    f.push("materials", {{"name", "glow"},
                         {"emissiveFactor", {1, 0.5, 0.25}},
                         {"extensions",
                          {{"KHR_materials_emissive_strength", {{"emissiveStrength", 4}}},
                           {"KHR_materials_specular", {{"specularFactor", 0.5}, {"specularColorFactor", {1, 0.5, 0}}, {"specularColorTexture", {{"index", 0}}}}}}}});
    f.push("materials", {{"name", "old"},
                         {"extensions",
                          {{"KHR_materials_pbrSpecularGlossiness", {{"diffuseFactor", {0.5, 0.25, 1, 1}}, {"specularFactor", {0.1, 0.2, 0.3}}, {"diffuseTexture", {{"index", 0}}}}},
                           {"KHR_materials_unlit", json::object()}}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    const Material& glow = s->materials.at(0);
    EXPECT_EQ(glow.emissive, (Vec4{4, 2, 1, 1}));
    EXPECT_EQ(glow.specular, (Vec4{0.5f, 0.25f, 0, 1}));
    ASSERT_EQ(glow.maps.size(), 1u);
    EXPECT_EQ(glow.maps[0].type, TextureType::Specular);
    EXPECT_EQ(glow.maps[0].uri, "spec.png");
    const Material& old = s->materials.at(1);
    EXPECT_EQ(old.diffuse, (Vec4{0.5f, 0.25f, 1, 1}));
    EXPECT_EQ(old.specular, (Vec4{0.1f, 0.2f, 0.3f, 1}));
    ASSERT_EQ(old.maps.size(), 1u);
    EXPECT_EQ(old.maps[0].type, TextureType::Diffuse);
    for (auto& w : s->warnings.items) EXPECT_EQ(w.message.find("ignored"), std::string::npos) << w.message;
}

}  // namespace
}  // namespace rigport::test
