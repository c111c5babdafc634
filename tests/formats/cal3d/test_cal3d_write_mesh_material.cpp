// Cal3D mesh and material writers on small fixtures built here: scene -> CMF/XMF/CRF/XRF in every
// dialect (IMVU 919, classic 1100, trunk 1301) -> read back (docs/cal3d.md §2.3, §2.4, §3.5, §3.6,
// §4.7, §9 rule 10).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>

#include "formats/cal3d/cal3d_write.hpp"
#include "formats/cal3d/test_cal3d_write_mesh_compare.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

using cal3d::Dialect;
using namespace cal3d_mesh;

constexpr Dialect dialects[] = {Dialect::Imvu919, Dialect::Classic1100, Dialect::Trunk1301};

SaveOptions options_for(Dialect d, Warnings* w = nullptr) {
    SaveOptions o;
    o.cal3d.dialect = d;
    o.warnings = w;
    return o;
}

// Two meshes: a skinned one with everything Cal3D can hold (2 texcoord sets, colours, springs +
// PHYSIQUE, LOD, two morph targets with position and normal deltas) far from the origin (so the
// §4.7 classification sees small targets), and a plain unskinned one. Bone ids are a permutation
// (joint j = bone source_ids[j]) so influences must go through them.
Scene mesh_scene() {
    Scene s;
    s.meta.up = UpAxis::Z;
    s.meta.front_face = Winding::CounterClockwise;
    s.skeleton.joints = {Joint{"root", -1, {}}, Joint{"spine", 0, {}}, Joint{"head", 1, {}}};
    s.skeleton.source_ids = {2, 0, 1};
    Mesh m;
    m.name = "body";
    m.material = 1;
    m.positions = {{10.5f, -3.25f, 101.f}, {12.1f, -2.9f, 100.3f}, {11.7f, -4.4f, 103.9f}, {9.8f, -3.3f, 104.2f}, {13.3f, -1.1f, 99.07f}};
    m.normals = {{0, 0, 1}, {0.6f, 0, 0.8f}, {0, -0.6f, 0.8f}, {-0.48f, 0.6f, 0.64f}, {1, 0, 0}};
    m.texcoords = {{{0, 0}, {1, 0}, {0.5f, 1}, {0.25f, 0.75f}, {1e-7f, 0.333333f}},
                   {{0.1f, 0.2f}, {0.3f, 0.4f}, {0.5f, 0.6f}, {0.7f, 0.8f}, {0.9f, -1.5f}}};
    m.colors = {{{1, 0, 0, 1}, {0, 1, 0, 1}, {0.2f, 0.4f, 0.6f, 1}, {1, 1, 1, 1}, {0, 0, 0, 1}}};
    m.skin.offsets = {0, 1, 3, 6, 6, 7};
    m.skin.influences = {{0, 1}, {1, 0.25f}, {2, 0.75f}, {0, 0.2f}, {1, 0.3f}, {2, 0.5f}, {2, 1}};
    m.triangles = {{0, 1, 2}, {0, 2, 3}, {1, 4, 2}};
    m.springs = {{0, 1, 1000, 1.75f}, {2, 4, 500.5f, 0.1f}};
    m.spring_weights = {0, 0.5f, 1, 0, 0.25f};
    m.lod = {{-1, 0}, {0, 1}, {1, 2}, {-1, 0}, {2, 1}};
    m.lod_steps = 3;
    MorphTarget smile{"smile", std::vector<Vec3>(5, Vec3{0, 0, 0}), std::vector<Vec3>(5, Vec3{0, 0, 0}), {}, 0};
    smile.position_deltas[1] = {0.125f, -0.03f, 0.7f};
    smile.position_deltas[3] = {-0.2f, 0.01f, 0.05f};
    smile.normal_deltas[1] = {0.01f, 0, -0.02f};
    smile.normal_deltas[3] = {0.003f, -0.1f, 0.05f};
    MorphTarget blink{"blink & <wink>", std::vector<Vec3>(5, Vec3{0, 0, 0}), std::vector<Vec3>(5, Vec3{0, 0, 0}), {}, 0};
    blink.position_deltas[4] = {0.3f, 0.3f, -0.11f};
    blink.position_deltas[0] = {-0.0625f, 0.5f, 0.01f};
    m.morph_targets = {smile, blink};
    s.meshes.push_back(m);

    Mesh plain;
    plain.name = "plain";
    plain.positions = {{-1, -2, 50}, {3, 2, 51}, {0, 4, 52}};
    plain.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, -1}};
    plain.texcoords = {{{0.5f, 0.5f}, {0.25f, 0.125f}, {2, 3}}};
    plain.triangles = {{0, 1, 2}};
    s.meshes.push_back(plain);
    s.materials.resize(2);
    return s;
}

Expect expect_for(Dialect d, bool binary) {
    Expect e;
    e.colors = d == Dialect::Imvu919 || (d == Dialect::Trunk1301 && !binary);
    e.morphs = d != Dialect::Classic1100;
    e.absolute = d == Dialect::Imvu919;
    e.joint_to_bone = {2, 0, 1};
    return e;
}

Scene read_back(const std::vector<uint8_t>& bytes, const std::string& name) {
    auto s = load_bytes(bytes, name);
    EXPECT_TRUE(s) << name << ": " << s.error().to_string();
    return s ? std::move(*s) : Scene{};
}

// Every dialect, both encodings: the same meshes back. Binary and XML are exact (XML floats are
// shortest round-trip); IMVU morphs pass through absolute positions (tolerance in expect_delta).
TEST(Cal3dWriteMesh, RoundTripEveryDialect) {
    const Scene src = mesh_scene();
    for (Dialect d : dialects)
        for (bool binary : {true, false}) {
            SCOPED_TRACE(std::string(dialect_label(d)) + (binary ? " CMF" : " XMF"));
            Warnings w;
            auto bytes = cal3d::write_mesh(src, {0, 1}, binary, options_for(d, &w));
            ASSERT_TRUE(bytes) << bytes.error().to_string();
            const Scene back = read_back(*bytes, binary ? "m.cmf" : "m.xmf");
            expect_same_meshes(src, back, expect_for(d, binary));
            EXPECT_EQ(int32_t(back.meta.source_version), d == Dialect::Imvu919 ? 919 : d == Dialect::Classic1100 ? 1100 : 1301);
            // Colours (1100, 1301 binary) and morphs (1100) are reported when dropped.
            EXPECT_EQ(w.has(WarningCode::DroppedData), !expect_for(d, binary).colors || d == Dialect::Classic1100);
        }
}

// The registry wrapper writes every mesh, converting a Y-up scene to Cal3D's Z up first.
TEST(Cal3dWriteMesh, RegistryWritesAllMeshesInCal3dConventions) {
    Scene src = mesh_scene();
    auto z_up = save_bytes(src, "out.cmf", options_for(Dialect::Trunk1301));
    ASSERT_TRUE(z_up) << z_up.error().to_string();
    EXPECT_EQ(read_back(*z_up, "out.cmf").meshes.size(), 2u);
    src.meta.up = UpAxis::Y;
    auto y_up = save_bytes(src, "out.xmf", options_for(Dialect::Trunk1301));
    ASSERT_TRUE(y_up) << y_up.error().to_string();
    const Scene back = read_back(*y_up, "out.xmf");
    ASSERT_EQ(back.meshes.size(), 2u);
    // Y up -> Z up is (x, y, z) -> (x, -z, y).
    const Vec3 p = src.meshes[1].positions[2], q = back.meshes[1].positions[2];
    EXPECT_FLOAT_EQ(q[0], p[0]);
    EXPECT_FLOAT_EQ(q[1], -p[2]);
    EXPECT_FLOAT_EQ(q[2], p[1]);
    Scene empty;
    EXPECT_FALSE(save_bytes(empty, "none.cmf", {}));
}

// Layout: the 1100 binary header has no morphCount and no colours; IMVU adds 4 + 12·vertices bytes
// and its morph block ends with vertexCount + 1; trunk counts its blend vertices (§2.3).
TEST(Cal3dWriteMesh, BinaryLayoutPerDialect) {
    Scene s = mesh_scene();
    s.meshes[1].morph_targets.push_back(MorphTarget{"up", {{0, 0, 1}, {0, 0, 0}, {0, 0, 0}}, {}, {}, 0});
    auto classic = cal3d::write_mesh(s, {1}, true, options_for(Dialect::Classic1100));
    auto imvu = cal3d::write_mesh(s, {1}, true, options_for(Dialect::Imvu919));
    auto trunk = cal3d::write_mesh(s, {1}, true, options_for(Dialect::Trunk1301));
    ASSERT_TRUE(classic && imvu && trunk);
    // header 12, submesh header 24, per vertex 24 + 8 + 8 + 4, faces 12.
    const size_t base = 12 + 24 + 3 * (24 + 8 + 8 + 4) + 12;
    EXPECT_EQ(classic->size(), base);
    const size_t morph = 4 + 3 /* "up\0" */ + (4 + 24 + 8);
    EXPECT_EQ(imvu->size(), base + 4 + 3 * 12 + morph + 4);
    EXPECT_EQ(trunk->size(), base + 4 + morph + 4);
    int32_t sentinel;
    std::memcpy(&sentinel, imvu->data() + imvu->size() - 12 - 4, 4);
    EXPECT_EQ(sentinel, 4);
    // §4.7: the blend vertex POSITION is absolute in IMVU (base (-1, -2, 50) + delta (0, 0, 1)) and
    // the delta in trunk (our reader classifies either, so only the bytes tell them apart).
    float imvu_pos[3], trunk_pos[3];
    std::memcpy(imvu_pos, imvu->data() + imvu->size() - 12 - 4 - 8 - 24, 12);
    std::memcpy(trunk_pos, trunk->data() + trunk->size() - 12 - 8 - 24, 12);
    EXPECT_EQ(imvu_pos[0], -1.0f);
    EXPECT_EQ(imvu_pos[1], -2.0f);
    EXPECT_EQ(imvu_pos[2], 51.0f);
    EXPECT_EQ(trunk_pos[0], 0.0f);
    EXPECT_EQ(trunk_pos[1], 0.0f);
    EXPECT_EQ(trunk_pos[2], 1.0f);
    auto xml = [&](Dialect d) {
        auto b = cal3d::write_mesh(s, {1}, false, options_for(d));
        return b ? std::string(b->begin(), b->end()) : std::string();
    };
    EXPECT_NE(xml(Dialect::Imvu919).find("<BLENDVERTEX VERTEXID=\"0\" POSDIFF=\"1\">\n"
                                         "                <POSITION>-1 -2 51</POSITION>\n"
                                         "                <NORMAL>0 0 1</NORMAL>"),
              std::string::npos);
    EXPECT_NE(xml(Dialect::Trunk1301).find("<POSITION>0 0 1</POSITION>\n                <NORMAL>0 0 0</NORMAL>"), std::string::npos);
}

// XML forms: IMVU HEADER form with COLOR on every vertex and POSDIFF on blend vertices; 1100 root
// form without COLOR, MORPH or NUMMORPHS; 1301 root form with MORPH.
TEST(Cal3dWriteMesh, XmlFormsPerDialect) {
    const Scene s = mesh_scene();
    auto text = [&](Dialect d) {
        auto b = cal3d::write_mesh(s, {0, 1}, false, options_for(d));
        EXPECT_TRUE(b);
        return b ? std::string(b->begin(), b->end()) : std::string();
    };
    const std::string imvu = text(Dialect::Imvu919), classic = text(Dialect::Classic1100), trunk = text(Dialect::Trunk1301);
    EXPECT_EQ(imvu.rfind("<HEADER MAGIC=\"XMF\" VERSION=\"919\" />\n<MESH NUMSUBMESH=\"2\">", 0), 0u) << imvu.substr(0, 80);
    EXPECT_NE(imvu.find("POSDIFF="), std::string::npos);
    EXPECT_EQ(imvu.find("<COLOR>") != std::string::npos, true);
    EXPECT_NE(imvu.find("NAME=\"blink &amp; &lt;wink&gt;\""), std::string::npos);
    EXPECT_NE(classic.find("<MESH MAGIC=\"XMF\" VERSION=\"1100\" NUMSUBMESH=\"2\">"), std::string::npos);
    for (const char* absent : {"<COLOR>", "<MORPH", "NUMMORPHS", "POSDIFF"}) EXPECT_EQ(classic.find(absent), std::string::npos) << absent;
    EXPECT_NE(classic.find("<COLLAPSEID>0</COLLAPSEID>"), std::string::npos);
    EXPECT_NE(classic.find("<PHYSIQUE>0.5</PHYSIQUE>"), std::string::npos);
    EXPECT_NE(trunk.find("VERSION=\"1301\""), std::string::npos);
    EXPECT_NE(trunk.find("<MORPH NAME=\"smile\" NUMBLENDVERTS=\"2\" MORPHID=\"0\">"), std::string::npos);
    EXPECT_EQ(trunk.find("POSDIFF"), std::string::npos);
}

// Sparse blend vertices: exactly the vertices with a non-zero delta, however small (the reference
// writers drop offsets below 0.01 or 1.0).
TEST(Cal3dWriteMesh, TinyMorphDeltasKept) {
    Scene s = mesh_scene();
    s.meshes[0].morph_targets.resize(1);
    auto& t = s.meshes[0].morph_targets[0];
    t.position_deltas.assign(5, Vec3{0, 0, 0});
    t.normal_deltas.assign(5, Vec3{0, 0, 0});
    t.position_deltas[2] = {0.001f, 0, 0};  // below IM's 0.01
    t.normal_deltas[4] = {0, 0.02f, 0};     // a normal-only delta
    auto b = cal3d::write_mesh(s, {0}, true, options_for(Dialect::Trunk1301));
    ASSERT_TRUE(b);
    const Scene back = read_back(*b, "t.cmf");
    ASSERT_EQ(back.meshes[0].morph_targets.size(), 1u);
    EXPECT_EQ(back.meshes[0].morph_targets[0].position_deltas[2][0], 0.001f);
    EXPECT_EQ(back.meshes[0].morph_targets[0].normal_deltas[4][1], 0.02f);
    auto x = cal3d::write_mesh(s, {0}, false, options_for(Dialect::Trunk1301));
    ASSERT_TRUE(x);
    EXPECT_NE(std::string(x->begin(), x->end()).find("NUMBLENDVERTS=\"2\""), std::string::npos);
}

TEST(Cal3dWriteMesh, RefusesWhatTheDialectCannotHold) {
    Scene s = mesh_scene();
    Mesh big;
    big.positions.assign(70000, Vec3{0, 0, 0});
    big.triangles = {{0, 1, 69999}};
    s.meshes.push_back(big);
    auto imvu = cal3d::write_mesh(s, {2}, true, options_for(Dialect::Imvu919));
    ASSERT_FALSE(imvu);
    EXPECT_EQ(imvu.error().code, ErrorCode::Unsupported);
    EXPECT_NE(imvu.error().message.find("65535"), std::string::npos);
    EXPECT_TRUE(cal3d::write_mesh(s, {2}, true, options_for(Dialect::Trunk1301)));
    Scene no_skeleton = mesh_scene();
    no_skeleton.skeleton = {};
    auto e = cal3d::write_mesh(no_skeleton, {0}, true, options_for(Dialect::Trunk1301));
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().code, ErrorCode::InvalidArgument);
    EXPECT_FALSE(cal3d::write_mesh(s, {7}, true, options_for(Dialect::Trunk1301)));
}

TEST(Cal3dWriteMesh, TangentsAndAlphaReportedAsDropped) {
    Scene s = mesh_scene();
    s.meshes[1].tangents.assign(3, Vec4{1, 0, 0, 1});
    Warnings w;
    ASSERT_TRUE(save_bytes(s, "t.cmf", options_for(Dialect::Imvu919, &w)));  // from the row: tangents
    EXPECT_TRUE(w.has(WarningCode::DroppedData));
    Warnings w2;
    s.meshes[1].tangents.clear();
    s.meshes[1].colors = {{{1, 1, 1, 0.5f}, {1, 1, 1, 1}, {1, 1, 1, 1}}};
    ASSERT_TRUE(cal3d::write_mesh(s, {1}, false, options_for(Dialect::Imvu919, &w2)));
    EXPECT_TRUE(w2.has(WarningCode::DroppedData));
    Warnings w3;
    ASSERT_TRUE(cal3d::write_mesh(mesh_scene(), {1}, true, options_for(Dialect::Trunk1301, &w3)));
    EXPECT_FALSE(w3.has(WarningCode::DroppedData));
}

// ---- materials ---------------------------------------------------------------------------------

Material test_material() {
    Material m;
    m.ambient = {10 / 255.0f, 20 / 255.0f, 30 / 255.0f, 1};
    m.diffuse = {1, 128 / 255.0f, 0, 200 / 255.0f};
    m.specular = {0.5f, 0.25f, 0.125f, 1};  // rounds to 128 64 32
    m.shininess = 96.08f;
    m.maps = {TextureMap{TextureType::Diffuse, "skin & bones.tga", "Diffuse Color"}, TextureMap{TextureType::Opacity, "alpha.tga", ""},
              TextureMap{TextureType::Other, "dir/x.png", "Reflection"}};
    return m;
}

TEST(Cal3dWriteMaterial, RoundTripEveryDialect) {
    const Material src = test_material();
    for (Dialect d : dialects)
        for (bool binary : {true, false}) {
            SCOPED_TRACE(std::string(dialect_label(d)) + (binary ? " CRF" : " XRF"));
            Warnings w;
            auto bytes = cal3d::write_material(src, binary, options_for(d, &w));
            ASSERT_TRUE(bytes) << bytes.error().to_string();
            const Scene back = read_back(*bytes, binary ? "m.crf" : "m.xrf");
            ASSERT_EQ(back.materials.size(), 1u);
            const bool typed = d != Dialect::Classic1100;
            expect_same_material(src, back.materials[0], typed);
            if (typed) {
                EXPECT_EQ(back.materials[0].maps[1].type_name, "Opacity");  // named from the type
            }
            EXPECT_EQ(w.has(WarningCode::DroppedData), !typed);
        }
}

// §2.4: 28-byte header + per map a string, plus a type string in IMVU and trunk files.
TEST(Cal3dWriteMaterial, BinaryLayout) {
    Material m;
    m.maps = {TextureMap{TextureType::Diffuse, "a.tga", ""}};
    auto classic = cal3d::write_material(m, true, options_for(Dialect::Classic1100));
    auto imvu = cal3d::write_material(m, true, options_for(Dialect::Imvu919));
    ASSERT_TRUE(classic && imvu);
    EXPECT_EQ(classic->size(), 8u + 12 + 4 + 4 + (4 + 6));
    EXPECT_EQ(imvu->size(), classic->size() + 4 + 14);  // "Diffuse Color\0"
    const std::string x = [&] {
        auto b = cal3d::write_material(m, false, options_for(Dialect::Classic1100));
        return std::string(b->begin(), b->end());
    }();
    EXPECT_EQ(x.find("TYPE"), std::string::npos);
    EXPECT_NE(x.find("<MAP>a.tga</MAP>"), std::string::npos);
}

// Registry: material 0 of the scene, the rest dropped with a warning; no material -> a default one.
TEST(Cal3dWriteMaterial, RegistryWritesMaterialZero) {
    Scene s;
    s.materials = {test_material(), Material{}};
    Warnings w;
    auto b = save_bytes(s, "out.crf", options_for(Dialect::Imvu919, &w));
    ASSERT_TRUE(b) << b.error().to_string();
    EXPECT_TRUE(w.has(WarningCode::DroppedData));
    expect_same_material(s.materials[0], read_back(*b, "out.crf").materials.at(0), true);
    Warnings w2;
    auto d = save_bytes(Scene{}, "out.xrf", options_for(Dialect::Trunk1301, &w2));
    ASSERT_TRUE(d) << d.error().to_string();
    EXPECT_FALSE(w2.items.empty());
    expect_same_material(Material{}, read_back(*d, "out.xrf").materials.at(0), true);
}

}  // namespace
}  // namespace rigport::test
