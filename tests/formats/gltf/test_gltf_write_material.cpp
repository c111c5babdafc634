// glTF 2.0 writer: materials and the image rules of GltfOptions::images, custom `_NAME` attributes
// (docs/gltf.md §2.3, §5.1-§5.2; io.hpp GltfImage).
#include <gtest/gtest.h>

#include <limits>

#include "formats/gltf/gltf_parse.hpp"
#include "rigport/io.hpp"

namespace rigport::test {
namespace {

const std::vector<uint8_t> png_bytes = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3};  // sniffed, not decoded

// Four materials over four one-triangle meshes (the last material unused).
Scene with_materials() {
    Scene s;
    s.meta.up = UpAxis::Y;
    Material a;
    a.name = "Body.tga";
    a.diffuse = {0.5f, 0.25f, 1, 1};
    a.emissive = {0.1f, 0.2f, 0.3f, 1};
    a.maps = {{TextureType::Diffuse, "tex/Body.tga", ""}, {TextureType::Specular, "spec.png", "specular_map"},
              {TextureType::Normal, "my normal.png", ""}};
    Material b;
    b.name = "shared";
    b.maps = {{TextureType::Diffuse, "tex/Body.tga", ""}, {TextureType::Emissive, "glow.jpg", ""}};
    Material c;
    c.name = "unresolved";
    c.maps = {{TextureType::Diffuse, "raw.tga", ""}, {TextureType::Normal, "none.png", ""}};
    Material d;
    d.name = "unused";
    s.materials = {a, b, c, d};
    for (int i = 0; i < 3; ++i) {
        Mesh m;
        m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
        m.triangles = {{0, 1, 2}};
        m.material = i;
        s.meshes.push_back(m);
    }
    Mesh plain = s.meshes[0];
    plain.material = -1;
    s.meshes.push_back(plain);
    return s;
}

TEST(GltfMaterial, ImageRules) {
    SaveOptions o;
    Warnings w;
    o.warnings = &w;
    o.gltf.images = {{"tex/Body.tga", "", "", png_bytes},  // converted by the caller: embedded
                     {"my normal.png", "my normal.png", "", {}},  // found on disk: referenced
                     {"none.png", "", "", {}},                    // resolved to nothing
                     {"glow.jpg", "", "image/jpeg", {0xFF, 0xD8, 0xFF, 0xE0}}};
    auto out = save_output(with_materials(), "m.glb", o);
    ASSERT_TRUE(out) << out.error().to_string();
    ParsedGltf g = parse_glb(out->bytes);
    const auto& images = g.json["images"];
    ASSERT_EQ(images.size(), 4u);  // Body once for two materials, normal, glow, raw.tga
    EXPECT_EQ(g.json["textures"].size(), 4u);
    EXPECT_FALSE(g.json["textures"][0].contains("sampler"));
    EXPECT_EQ(images[0]["mimeType"], "image/png");
    const auto& view = g.json["bufferViews"][images[0]["bufferView"].get<size_t>()];
    EXPECT_FALSE(view.contains("target"));
    const size_t at = view.value("byteOffset", size_t(0));
    EXPECT_EQ(std::vector<uint8_t>(g.bin.begin() + at, g.bin.begin() + at + png_bytes.size()), png_bytes);
    EXPECT_EQ(images[1]["uri"], "my%20normal.png");
    EXPECT_EQ(images[2]["mimeType"], "image/jpeg");
    EXPECT_EQ(images[3]["uri"], "raw.tga");

    const auto& mats = g.json["materials"];
    ASSERT_EQ(mats.size(), 4u);  // the unused one kept
    const auto& a = mats[0];
    EXPECT_EQ(a["name"], "Body.tga");
    EXPECT_EQ(a["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
    EXPECT_EQ(a["pbrMetallicRoughness"]["baseColorFactor"], nlohmann::json::array({0.5, 0.25, 1, 1}));
    EXPECT_EQ(a["pbrMetallicRoughness"]["metallicFactor"], 0);
    EXPECT_EQ(a["pbrMetallicRoughness"]["roughnessFactor"], 1);
    EXPECT_EQ(a["normalTexture"]["index"], 1);
    EXPECT_EQ(a["emissiveFactor"].size(), 3u);
    EXPECT_EQ(a["extras"]["maps"][0]["type"], "specular");
    EXPECT_EQ(a["extras"]["maps"][0]["typeName"], "specular_map");
    const auto& b = mats[1];
    EXPECT_EQ(b["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
    EXPECT_FALSE(b["pbrMetallicRoughness"].contains("baseColorFactor"));
    EXPECT_EQ(b["emissiveTexture"]["index"], 2);
    EXPECT_EQ(b["emissiveFactor"], nlohmann::json::array({1, 1, 1}));  // else the texture is black
    const auto& c = mats[2];
    EXPECT_EQ(c["pbrMetallicRoughness"]["baseColorTexture"]["index"], 3);
    EXPECT_FALSE(c.contains("normalTexture"));  // resolved to no image
    EXPECT_EQ(g.json["meshes"][2]["primitives"][0]["material"], 2);
    EXPECT_FALSE(g.json["meshes"][3]["primitives"][0].contains("material"));

    // Only the unresolved TGA warns: glTF core has PNG and JPEG only.
    ASSERT_TRUE(w.has(WarningCode::ImageFormatNotGltf));
    size_t image_warnings = 0;
    for (auto& item : w.items)
        if (item.code == WarningCode::ImageFormatNotGltf) {
            ++image_warnings;
            EXPECT_NE(item.message.find("raw.tga"), std::string::npos) << item.message;
        }
    EXPECT_EQ(image_warnings, 1u);
}

TEST(GltfMaterial, UnresolvedMapsAreReferencedAsWritten) {
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    auto out = save_output(with_materials(), "m.gltf", o);
    ASSERT_TRUE(out);
    ParsedGltf g = parse_gltf(out->bytes, out->side_files.at(0).bytes);
    const auto& images = g.json["images"];
    ASSERT_EQ(images.size(), 5u);
    EXPECT_EQ(images[0]["uri"], "tex/Body.tga");
    EXPECT_EQ(images[1]["uri"], "my%20normal.png");
    EXPECT_TRUE(w.has(WarningCode::ImageFormatNotGltf));
}

TEST(GltfMaterial, CustomArraysAsUnderscoreAttributes) {
    Scene s;
    s.meta.up = UpAxis::Y;
    Mesh m;
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    m.triangles = {{0, 1, 2}};
    m.custom.push_back({"extra", ComponentType::Int16, 2, {-5, 7, 0, 1, 32767, -32768}});
    m.custom.push_back({"bytes", ComponentType::UInt8, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}});
    m.custom.push_back({"dbl", ComponentType::Float64, 1, {0.1, 0.5, 1e300}});
    m.custom.push_back({"ids", ComponentType::Int32, 1, {1, -2, 16777217}});
    m.custom.push_back({"my-array", ComponentType::Float32, 4, std::vector<double>(12, 0.5)});
    s.meshes.push_back(m);
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    auto out = save_output(s, "c.glb", o);
    ASSERT_TRUE(out) << out.error().to_string();
    ParsedGltf g = parse_glb(out->bytes);
    auto type = [&](const char* name) { return g.accessor_json(g.attribute(0, name))["componentType"].get<int>(); };
    EXPECT_EQ(type("_EXTRA"), 5122);
    EXPECT_EQ(g.accessor(g.attribute(0, "_EXTRA")), (std::vector<double>{-5, 7, 0, 1, 32767, -32768}));
    EXPECT_EQ(type("_BYTES"), 5121);
    // 3-byte elements: padded to a 4-byte stride (vertex attributes are 4-aligned per element).
    const auto& view = g.json["bufferViews"][g.accessor_json(g.attribute(0, "_BYTES"))["bufferView"].get<size_t>()];
    EXPECT_EQ(view["byteStride"], 4);
    EXPECT_EQ(g.accessor(g.attribute(0, "_BYTES")), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
    EXPECT_EQ(type("_DBL"), 5126);
    EXPECT_EQ(float(g.accessor(g.attribute(0, "_DBL"))[2]), std::numeric_limits<float>::max());  // clamped
    EXPECT_EQ(type("_IDS"), 5126);
    EXPECT_EQ(type("_MY_ARRAY"), 5126);
    EXPECT_FALSE(g.accessor_json(g.attribute(0, "_EXTRA")).contains("normalized"));
    EXPECT_TRUE(w.has(WarningCode::DroppedData));  // 0.1, 1e300 and 16777217 are not exact floats
}

}  // namespace
}  // namespace rigport::test
