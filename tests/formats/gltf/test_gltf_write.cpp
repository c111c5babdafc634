// glTF 2.0 writer: GLB container and padding, .gltf + .bin, embedded buffers, accessors against
// the scene, determinism, errors, registry (docs/gltf.md §2, §5). Output parsed independently.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "formats/gltf/gltf_parse.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

std::vector<uint8_t> write_glb(const Scene& s, const SaveOptions& o = {}) {
    auto out = save_output(s, "out.glb", o);
    EXPECT_TRUE(out) << out.error().to_string();
    if (!out) return {};
    EXPECT_TRUE(out->side_files.empty());
    return out->bytes;
}

TEST(GltfWrite, GlbHeaderChunksAndPadding) {
    const std::vector<uint8_t> b = write_glb(make_sample_scene());
    ASSERT_GT(b.size(), 28u);
    EXPECT_EQ(b.size() % 4, 0u);
    const uint32_t json_length = glb_u32(b, 12);
    // The JSON chunk ends in spaces up to the 4-byte boundary, never in NULs.
    size_t end = 20 + json_length;
    while (end > 20 && b[end - 1] == ' ') --end;
    EXPECT_EQ(b[end - 1], '}');
    EXPECT_LT(20 + json_length - end, 4u);
    ParsedGltf g = parse_glb(b);
    ASSERT_EQ(g.json["buffers"].size(), 1u);
    EXPECT_FALSE(g.json["buffers"][0].contains("uri"));
    EXPECT_EQ(g.json["buffers"][0]["byteLength"].get<size_t>(), g.bin.size());
    EXPECT_EQ(g.json["asset"]["version"], "2.0");
    EXPECT_EQ(g.json["asset"]["generator"], "rigport");
    EXPECT_EQ(g.json["scene"], 0);
    // Every bufferView starts 4-aligned and stays inside the buffer.
    for (auto& v : g.json["bufferViews"]) {
        const size_t offset = v.value("byteOffset", size_t(0));
        EXPECT_EQ(offset % 4, 0u);
        EXPECT_LE(offset + v["byteLength"].get<size_t>(), g.bin.size());
    }
}

TEST(GltfWrite, NoBinChunkWithoutData) {
    Scene s;  // nothing to put in a buffer
    s.materials.push_back(Material{});
    const std::vector<uint8_t> b = write_glb(s);
    ASSERT_GE(b.size(), 20u);
    EXPECT_EQ(20 + glb_u32(b, 12), b.size());
    ParsedGltf g = parse_glb(b);
    EXPECT_FALSE(g.json.contains("buffers"));
    EXPECT_EQ(g.json["materials"].size(), 1u);
}

TEST(GltfWrite, MinMaxEqualDecodedData) {
    ParsedGltf g = parse_glb(write_glb(make_sample_scene()));
    size_t checked = 0;
    for (size_t a = 0; a < g.json["accessors"].size(); ++a) {
        const auto& acc = g.accessor_json(a);
        if (!acc.contains("min")) continue;
        const std::vector<double> d = g.accessor(a);
        const size_t n = g.components(a);
        for (size_t c = 0; c < n; ++c) {
            double lo = d[c], hi = d[c];
            for (size_t i = c; i < d.size(); i += n) lo = std::min(lo, d[i]), hi = std::max(hi, d[i]);
            // min/max are float32 values printed shortest: they read back as the same float.
            EXPECT_EQ(float(acc["min"][c].get<double>()), float(lo)) << "accessor " << a;
            EXPECT_EQ(float(acc["max"][c].get<double>()), float(hi)) << "accessor " << a;
        }
        ++checked;
    }
    EXPECT_GE(checked, 3u);  // POSITION and the two animations' inputs
}

TEST(GltfWrite, VertexOrderAndAttributesKept) {
    Scene s = make_sample_scene();
    s.meta.up = UpAxis::Y;  // no axis change: compare as stored
    ParsedGltf g = parse_glb(write_glb(s));
    const Mesh& m = s.meshes[0];
    ASSERT_EQ(g.json["meshes"][0]["name"], m.name);
    std::vector<double> pos = g.accessor(g.attribute(0, "POSITION")), uv = g.accessor(g.attribute(0, "TEXCOORD_0")),
                        col = g.accessor(g.attribute(0, "COLOR_0")), tan = g.accessor(g.attribute(0, "TANGENT"));
    ASSERT_EQ(pos.size(), m.vertex_count() * 3);
    for (size_t v = 0; v < m.vertex_count(); ++v) {
        for (int k = 0; k < 3; ++k) EXPECT_EQ(float(pos[v * 3 + k]), m.positions[v][k]);
        for (int k = 0; k < 2; ++k) EXPECT_EQ(float(uv[v * 2 + k]), m.texcoords[0][v][k]);
        for (int k = 0; k < 4; ++k) EXPECT_EQ(float(col[v * 4 + k]), m.colors[0][v][k]);
        EXPECT_TRUE(tan[v * 4 + 3] == 1.0 || tan[v * 4 + 3] == -1.0);
        EXPECT_EQ(tan[v * 4 + 3], m.tangents[v][3]);
    }
    // Unknown winding is written as stored (taken as glTF's counter-clockwise).
    s.meta.front_face = Winding::Unknown;
    ParsedGltf u = parse_glb(write_glb(s));
    std::vector<double> idx = u.accessor(u.json["meshes"][0]["primitives"][0]["indices"].get<size_t>());
    for (size_t t = 0; t < m.triangles.size(); ++t)
        for (int k = 0; k < 3; ++k) ASSERT_EQ(idx[t * 3 + k], m.triangles[t][k]);
}

TEST(GltfWrite, ClockwiseWindingReversed) {
    Scene s = make_sample_scene();
    ASSERT_EQ(s.meta.front_face, Winding::Clockwise);
    ParsedGltf g = parse_glb(write_glb(s));
    const auto& prim = g.json["meshes"][0]["primitives"][0];
    EXPECT_EQ(prim["mode"], 4);
    EXPECT_EQ(g.accessor_json(prim["indices"])["componentType"], 5123);  // UNSIGNED_SHORT: 255 vertices
    std::vector<double> idx = g.accessor(prim["indices"]);
    const auto& tris = s.meshes[0].triangles;
    ASSERT_EQ(idx.size(), tris.size() * 3);
    for (size_t t = 0; t < tris.size(); ++t) {
        EXPECT_EQ(idx[t * 3], tris[t][0]);
        EXPECT_EQ(idx[t * 3 + 1], tris[t][2]);
        EXPECT_EQ(idx[t * 3 + 2], tris[t][1]);
    }
    s.meta.front_face = Winding::CounterClockwise;
    ParsedGltf ccw = parse_glb(write_glb(s));
    std::vector<double> kept = ccw.accessor(ccw.json["meshes"][0]["primitives"][0]["indices"]);
    EXPECT_EQ(kept[1], tris[0][1]);
}

TEST(GltfWrite, LargeMeshUsesUnsignedInt) {
    Scene s;
    Mesh m;
    for (uint32_t i = 0; i < 65536; ++i) m.positions.push_back({float(i), 0, 0});
    m.triangles = {{0, 1, 65535}};
    s.meshes.push_back(m);
    ParsedGltf g = parse_glb(write_glb(s));
    const auto& prim = g.json["meshes"][0]["primitives"][0];
    EXPECT_EQ(g.accessor_json(prim["indices"])["componentType"], 5125);
    EXPECT_EQ(g.accessor(prim["indices"])[2], 65535.0);
}

TEST(GltfWrite, Deterministic) {
    const Scene s = make_sample_scene();
    EXPECT_EQ(write_glb(s), write_glb(s));
    auto a = save_bytes(s, "x.gltf"), b = save_bytes(s, "x.gltf");
    ASSERT_TRUE(a && b);
    EXPECT_EQ(*a, *b);
}

TEST(GltfWrite, SaveWritesGltfAndBin) {
    const auto dir = temp_dir();
    const Scene s = make_sample_scene();
    ASSERT_TRUE(save(s, (dir / "my model.gltf").string()));
    ASSERT_TRUE(std::filesystem::exists(dir / "my model.bin"));
    const std::vector<uint8_t> bin = read_bytes(dir / "my model.bin");
    ParsedGltf g = parse_gltf(read_bytes(dir / "my model.gltf"), bin);
    EXPECT_EQ(g.json["buffers"][0]["uri"], "my%20model.bin");  // RFC 3986: the space encoded
    EXPECT_EQ(g.json["buffers"][0]["byteLength"].get<size_t>(), bin.size());
    // The same document as the GLB's, apart from the buffer's uri.
    ParsedGltf glb = parse_glb(write_glb(s));
    EXPECT_EQ(g.bin, glb.bin);
    g.json["buffers"][0].erase("uri");
    EXPECT_EQ(g.json, glb.json);
}

TEST(GltfWrite, FailedSaveWritesNothing) {
    const auto dir = temp_dir();
    auto st = save(make_sample_scene(), (dir / "missing" / "m.gltf").string());
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, ErrorCode::WriteFailed);
    EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(GltfWrite, SaveBytesEmbedsDataUri) {
    auto bytes = save_bytes(make_sample_scene(), "one.gltf");
    ASSERT_TRUE(bytes) << bytes.error().to_string();
    ParsedGltf g = parse_gltf(*bytes);
    const std::string uri = g.json["buffers"][0]["uri"];
    EXPECT_EQ(uri.rfind("data:application/octet-stream;base64,", 0), 0u);
    EXPECT_EQ(g.bin.size(), g.json["buffers"][0]["byteLength"].get<size_t>());
    EXPECT_EQ(g.bin, parse_glb(write_glb(make_sample_scene())).bin);
}

TEST(GltfWrite, NonFiniteIsAnErrorNamingThePlace) {
    Scene s = make_sample_scene();
    s.meshes[0].positions[7][1] = std::numeric_limits<float>::quiet_NaN();
    auto r = save_output(s, "x.glb");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("position of vertex 7"), std::string::npos) << r.error().message;
    s = make_sample_scene();
    s.materials[0].diffuse[0] = std::numeric_limits<float>::infinity();
    ASSERT_FALSE(save_output(s, "x.glb"));
    s = make_sample_scene();
    s.meshes[0].texcoords[0][3][0] = std::numeric_limits<float>::infinity();
    ASSERT_FALSE(save_output(s, "x.gltf"));
    // Broken invariants are the invariant error.
    s = make_sample_scene();
    s.meshes[0].triangles[0][0] = 9999;
    ASSERT_FALSE(save_output(s, "x.glb"));
}

TEST(GltfWrite, ZeroNormalGetsFallbackAndWarning) {
    Scene s = make_sample_scene();
    s.meta.up = UpAxis::Y;
    s.meshes[0].normals[3] = {0, 0, 0};
    s.meshes[0].normals[4] = {std::numeric_limits<float>::quiet_NaN(), 0, 0};
    s.meshes[0].normals[5] = {0, 3, 4};
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    ParsedGltf g = parse_glb(write_glb(s, o));
    ASSERT_TRUE(w.has(WarningCode::InvalidNormal));
    EXPECT_NE(w.items[0].message.find("2 zero or non-finite normals"), std::string::npos) << w.items[0].message;
    std::vector<double> n = g.accessor(g.attribute(0, "NORMAL"));
    for (size_t v = 0; v < n.size() / 3; ++v)
        EXPECT_NEAR(std::sqrt(n[v * 3] * n[v * 3] + n[v * 3 + 1] * n[v * 3 + 1] + n[v * 3 + 2] * n[v * 3 + 2]), 1.0, 1e-6);
    EXPECT_EQ(float(n[5 * 3 + 1]), 0.6f);
}

// The dropped-data warning names what the mesh has: springs, LOD data, or both; LOD entries that
// collapse nothing (a Cal3D reader gives every vertex one) are no LOD data.
TEST(GltfWrite, DroppedSpringsAndLodNamedAsTheyAre) {
    auto dropped = [](bool springs, int32_t collapse_id) {
        Scene s = make_sample_scene();
        if (springs) s.meshes[0].springs = {{0, 1, 1, 1}};
        s.meshes[0].lod.resize(s.meshes[0].vertex_count());
        s.meshes[0].lod[2].collapse_id = collapse_id;
        Warnings w;
        SaveOptions o;
        o.warnings = &w;
        EXPECT_TRUE(save_bytes(s, "cloth.glb", o));
        std::string messages;
        for (auto& item : w.items)
            if (item.code == WarningCode::DroppedData && item.message.find("(gltf holds none)") != std::string::npos) messages += item.message;
        return messages;
    };
    EXPECT_NE(dropped(true, -1).find(": cloth springs not written"), std::string::npos) << dropped(true, -1);
    EXPECT_NE(dropped(false, 0).find(": level-of-detail data not written"), std::string::npos) << dropped(false, 0);
    EXPECT_NE(dropped(true, 0).find(": cloth springs and level-of-detail data not written"), std::string::npos) << dropped(true, 0);
    EXPECT_EQ(dropped(false, -1), "");
}

TEST(GltfWrite, RegistryDetectionAndLoad) {
    const std::vector<uint8_t> glb = write_glb(make_sample_scene());
    const FormatInfo* f = detect_format(glb, "whatever.bin");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->name, "gltf");
    // The reader takes it back (tests/formats/gltf/test_gltf_read*.cpp test it in depth).
    auto loaded = load_bytes(glb, "x.glb");
    ASSERT_TRUE(loaded) << loaded.error().to_string();
    EXPECT_EQ(loaded->vertex_count(), make_sample_scene().vertex_count());
    // JSON is never claimed by content, only by extension.
    const std::string json = R"({"asset":{"version":"2.0"}})";
    const std::vector<uint8_t> text(json.begin(), json.end());
    EXPECT_EQ(detect_format(text, "x.json"), nullptr);
    ASSERT_NE(find_format_by_extension("A.GLTF"), nullptr);
    EXPECT_EQ(find_format_by_extension("A.GLB")->name, "gltf");
    // --format glb forces the container whatever the name; the upper-case extension picks GLB too.
    SaveOptions o;
    o.format = "glb";
    auto forced = save_output(make_sample_scene(), "model.out", o);
    ASSERT_TRUE(forced);
    EXPECT_EQ(glb_u32(forced->bytes, 0), 0x46546C67u);
    auto upper = save_output(make_sample_scene(), "MODEL.GLB");
    ASSERT_TRUE(upper);
    EXPECT_EQ(upper->bytes, glb);
}

TEST(GltfWrite, UnicodeAndControlCharactersInNames) {
    Scene s = make_sample_scene();
    s.meshes[0].name = "m\xC3\xA9sh \"q\"\n\x01";
    s.skeleton.joints[1].name = std::string("bad\xFF", 4);
    s.meta.comment = "line1\nline2";
    ParsedGltf g = parse_glb(write_glb(s));
    EXPECT_EQ(g.json["meshes"][0]["name"], "m\xC3\xA9sh \"q\"\n\x01");
    EXPECT_EQ(g.json["nodes"][1]["name"], "bad\xEF\xBF\xBD");  // invalid UTF-8 -> U+FFFD
    EXPECT_EQ(g.json["asset"]["extras"]["comment"], "line1\nline2");
}

}  // namespace
}  // namespace rigport::test
