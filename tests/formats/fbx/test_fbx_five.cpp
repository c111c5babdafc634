// FBX 5.x (docs/fbx.md §2.1, §2.3): our hand-written 5.8 scene (top-level models holding their
// geometry, material and Link skin; places from take and model channel defaults) read exactly, as
// ASCII and as a binary 5.0 twin (header 3000); `&quot;` in ASCII strings read as a quote; broken
// 5.x files refused with a place; and 3ds Max's 5.x files from the corpus read and converted to a
// GLB the Khronos validator passes, the 5.8 one at the points 3ds Max's own OBJ export gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "formats/fbx/fbx_document.hpp"
#include "formats/fbx/fbx_fixtures.hpp"
#include "gltf_oracle.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace rigport;
using namespace rigport::test;

namespace {

std::vector<uint8_t> five_bytes() {
    const std::string s = fbx_five_skinned_quad_ascii();
    return {s.begin(), s.end()};
}

Expected<Scene> load_changed(const std::string& from, const std::string& to) {
    std::string t = fbx_five_skinned_quad_ascii();
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    return load_bytes(std::vector<uint8_t>(t.begin(), t.end()), "five.fbx");
}

void expect_near3(const Vec3& a, std::array<float, 3> b, const char* what) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(a[k], b[k], 1e-6) << what << " component " << k;
}

std::string all_warnings(const Scene& s) {
    std::string out;
    for (const Warning& w : s.warnings.items) out += w.to_string() + "\n";
    return out;
}

const Mesh* mesh_named(const Scene& s, const std::string& name) {
    for (const Mesh& m : s.meshes)
        if (m.name == name) return &m;
    return nullptr;
}

// What fbx_five_skinned_quad_ascii() holds, worked out by hand (see its comment).
void expect_five_quad(const Scene& s) {
    ASSERT_EQ(s.meshes.size(), 2u);
    const Mesh* quad = mesh_named(s, "Quad");
    ASSERT_NE(quad, nullptr);
    const Mesh& m = *quad;
    ASSERT_EQ(m.vertex_count(), 4u);
    expect_near3(m.positions[0], {5, 0, 0}, "vertex 0");
    expect_near3(m.positions[1], {6, 0, 0}, "vertex 1");
    expect_near3(m.positions[2], {6, 1, 0}, "vertex 2");
    expect_near3(m.positions[3], {5, 1, 0}, "vertex 3");
    ASSERT_EQ(m.normals.size(), 4u);
    for (auto& n : m.normals) expect_near3(n, {0, 0, 1}, "normal");
    // GeometryUVInfo "ByPolygon" with an index per corner: read by corner through the index.
    ASSERT_EQ(m.texcoords.size(), 1u);
    EXPECT_EQ(m.texcoords[0], (std::vector<Vec2>{{0, 1}, {1, 1}, {1, 0}, {0, 0}}));
    EXPECT_EQ(m.triangles, (std::vector<Triangle>{{0, 1, 2}, {0, 2, 3}}));
    ASSERT_EQ(s.materials.size(), 1u);
    EXPECT_EQ(m.material, 0);
    EXPECT_EQ(s.materials[0].name, "Skin \"red\"");
    EXPECT_EQ(s.materials[0].diffuse, (Vec4{1, 0, 0, 1}));
    // The skeleton: the bones the Links name, bound where their TransformLinks say.
    ASSERT_EQ(s.skeleton.joints.size(), 2u);
    EXPECT_EQ(s.skeleton.joints[0].name, "Root");
    EXPECT_EQ(s.skeleton.joints[1].name, "Tip");
    EXPECT_EQ(s.skeleton.joints[0].parent, -1);
    EXPECT_EQ(s.skeleton.joints[1].parent, 0);
    expect_near3(s.skeleton.joints[0].bind.translate, {0, 1, 0}, "Root");
    expect_near3(s.skeleton.joints[1].bind.translate, {0, 1, 0}, "Tip");
    const Quat q = s.skeleton.joints[1].bind.rotate;
    EXPECT_NEAR(std::fabs(q[2]), std::sqrt(0.5), 1e-6);
    EXPECT_NEAR(std::fabs(q[3]), std::sqrt(0.5), 1e-6);
    EXPECT_GT(q[2] * q[3], 0);  // +90 degrees about Z
    ASSERT_EQ(m.skin.offsets.size(), 5u);
    for (uint32_t v = 0; v < 4; ++v) {
        ASSERT_EQ(m.skin.count(v), 1u);
        EXPECT_EQ(m.skin.begin(v)->joint, v < 2 ? 0u : 1u);
        EXPECT_EQ(m.skin.begin(v)->weight, 1.0f);
    }
    // Marker: a child of Tip by name (with quotes), placed by its own channels' defaults,
    // rigid on Tip.
    const Mesh* marker = mesh_named(s, "Marker \"1\"");
    ASSERT_NE(marker, nullptr);
    ASSERT_EQ(marker->vertex_count(), 3u);
    expect_near3(marker->positions[0], {0, 2, 3}, "marker 0");
    expect_near3(marker->positions[1], {0, 3, 3}, "marker 1");
    expect_near3(marker->positions[2], {-1, 2, 3}, "marker 2");
    EXPECT_EQ(marker->material, -1);
    for (uint32_t v = 0; v < 3; ++v) {
        ASSERT_EQ(marker->skin.count(v), 1u);
        EXPECT_EQ(marker->skin.begin(v)->joint, 1u);
    }
    // The take "Bend": Tip from 90 to 180 degrees about Z in 1 s, at 24 fps (Settings/FrameRate).
    ASSERT_EQ(s.animations.size(), 1u);
    const Animation& bend = s.animations[0];
    EXPECT_EQ(bend.name, "Bend");
    EXPECT_EQ(bend.frame_rate, 24.0f);
    EXPECT_FLOAT_EQ(bend.duration(), 1.0f);
    const auto start = sample_pose(s.skeleton, bend, 0.0f), end = sample_pose(s.skeleton, bend, 1.0f);
    EXPECT_NEAR(std::fabs(start[1].rotate[2]), std::sqrt(0.5), 1e-6);
    EXPECT_NEAR(std::fabs(end[1].rotate[2]), 1.0, 1e-6);  // 180 degrees about Z
    expect_near3(end[1].translate, {0, 1, 0}, "Tip at the end");
    expect_near3(end[0].translate, {0, 1, 0}, "Root at the end");
    EXPECT_EQ(s.meta.source_format, "fbx");
    EXPECT_EQ(s.meta.source_version, 5800u);
    EXPECT_EQ(s.meta.up, UpAxis::Y);
    EXPECT_FLOAT_EQ(s.meta.unit_scale, 0.01f);
}

}  // namespace

TEST(FbxFive, HandWrittenSceneReadsExactly) {
    auto s = load_bytes(five_bytes(), "five.fbx");
    ASSERT_TRUE(s) << s.error().to_string();
    expect_five_quad(*s);
    EXPECT_EQ(s->meta.dialect, "ascii");
    EXPECT_TRUE(s->warnings.items.empty()) << all_warnings(*s);
}

// 3ds Max 7's binary 5.0: header version 3000, 6.1's 32-bit records, names without their class,
// number lists as plain values, key letters as one-byte values. The version is the header
// extension's FBXVersion.
TEST(FbxFive, BinaryFiveTwinReadsAlike) {
    const auto text = five_bytes();  // the tree's strings point into it
    auto doc = fbx::parse_ascii(text, {});
    ASSERT_TRUE(doc) << doc.error().to_string();
    const auto bytes = FbxBinaryWriter(3000, false, false).five().write(*doc);
    auto parsed = fbx::parse_binary(bytes, {});
    ASSERT_TRUE(parsed) << parsed.error().to_string();
    EXPECT_EQ(parsed->version, 5800u);
    const fbx::Node* quad = nullptr;
    for (const fbx::Node& n : parsed->root.children)
        if (n.name == "Model" && n.properties[0].text == "Quad") quad = &n;
    ASSERT_NE(quad, nullptr) << "names written without 'Model::'";
    ASSERT_NE(quad->child("Vertices"), nullptr);
    EXPECT_EQ(quad->child("Vertices")->properties.size(), 12u);  // plain values, not an array
    auto s = load_bytes(bytes, "five.fbx");
    ASSERT_TRUE(s) << s.error().to_string();
    expect_five_quad(*s);
    EXPECT_EQ(s->meta.dialect, "binary");
    // Header versions before 3.0 are refused, naming the version at its place.
    std::vector<uint8_t> old = bytes;
    old[23] = 0xd0, old[24] = 0x07;  // 2000
    auto refused = load_bytes(old, "old.fbx");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::Unsupported);
    EXPECT_NE(refused.error().message.find("2000"), std::string::npos) << refused.error().message;
    EXPECT_EQ(refused.error().offset, 23u);
}

// 3ds Max writes a quote inside an ASCII string as `&quot;` (and line breaks as `&cr;` `&lf;`);
// they are read as the characters, any other '&' as it is.
TEST(FbxFive, QuoteEntitiesInAsciiStringsAreDecoded) {
    const std::string text = "; FBX 7.4.0 project file\nName: \"a&quot;b&lf;c&cr;d&amp;e&quo&\", \"plain\", \"&quot;\"\n";
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    auto doc = fbx::parse_ascii(bytes, {});
    ASSERT_TRUE(doc) << doc.error().to_string();
    const fbx::Node* n = doc->root.child("Name");
    ASSERT_NE(n, nullptr);
    ASSERT_EQ(n->properties.size(), 3u);
    EXPECT_EQ(n->properties[0].text, "a\"b\nc\rd&amp;e&quo&");
    EXPECT_EQ(n->properties[1].text, "plain");
    EXPECT_EQ(n->properties[2].text, "\"");
    // In a 7.x scene: a model's name, linked by id, comes out with real quotes.
    std::string quad = fbx_skinned_quad_ascii();
    const std::string from = "\"Model::Quad\"";
    quad.replace(quad.find(from), from.size(), "\"Model::Quad &quot;big&quot;\"");
    auto s = load_bytes(std::vector<uint8_t>(quad.begin(), quad.end()), "quad.fbx");
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 1u);
    EXPECT_EQ(s->meshes[0].name, "Quad \"big\"");
}

// Damaged 5.x files: errors naming the place (line) and the numbers, or warnings for what is
// left out; never a crash or a silent misread.
TEST(FbxFive, BrokenFilesAreErrorsWithAPlace) {
    auto s = load_changed("Indexes: 2,3\n        Weights: 1,1", "Indexes: 2,3\n        Weights: 1");
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("2 Indexes and 1 Weights"), std::string::npos) << s.error().message;
    EXPECT_GT(s.error().line, 0u);
    s = load_changed("Indexes: 2,3", "Indexes: 2,9");
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("control point 9 of 4"), std::string::npos) << s.error().message;
    EXPECT_GT(s.error().line, 0u);
    s = load_changed("TransformLink: 0,1,0,0,-1,0,0,0,0,0,1,0,0,2,0,1", "TransformLink: 0,1,0,0,-1,0,0,0,0,0,1,0,0,2,0");
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("not 16 numbers"), std::string::npos) << s.error().message;
    EXPECT_GT(s.error().line, 0u);
    s = load_changed("Type: \"Limb\"\n    Children: \"Model::Tip\"", "Type: \"Limb\"\n    Children: \"Model::Tip\", \"Model::Root\"");
    ASSERT_TRUE(s) << "a model naming itself a child is left unlinked: " << s.error().to_string();
    s = load_changed("Children: \"Model::Marker &quot;1&quot;\"", "Children: \"Model::Root\"");  // Root under Tip under Root
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("cycle"), std::string::npos) << s.error().message;
    EXPECT_GT(s.error().line, 0u);
    s = load_changed("PolygonVertexIndex: 0,1,2,-4", "PolygonVertexIndex: 0,1,2,-8");
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("names control point 7 of 4"), std::string::npos) << s.error().message;
    s = load_changed("Key: 0,90,U", "Key: 0,90,Q");
    ASSERT_FALSE(s);
    EXPECT_GT(s.error().line, 0u);
    s = load_changed("KeyCount: 2", "KeyCount: 3");
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("KeyCount 3 but 2 keys"), std::string::npos) << s.error().message;
    // Normals that fit neither the control points nor the corners: left out, with a warning.
    s = load_changed("Normals: 0,0,1,0,0,1,0,0,1,0,0,1", "Normals: 0,0,1,0,0,1");
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_TRUE(s->warnings.has(WarningCode::Ignored));
    EXPECT_NE(all_warnings(*s).find("fit neither its 4 control points nor its 4 polygon corners"), std::string::npos) << all_warnings(*s);
    // A Link naming no model: its influences left out with a warning, the rest of the skin kept.
    s = load_changed("Link: \"Model::Tip\"", "Link: \"Model::Nobody\"");
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_NE(all_warnings(*s).find("'Nobody'"), std::string::npos) << all_warnings(*s);
    // Versions before 3.0.
    s = load_changed("FBXVersion: 5800", "FBXVersion: 2800");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Unsupported);
    EXPECT_NE(s.error().message.find("before 3.0"), std::string::npos) << s.error().message;
}

// Keys a model holds in its own channels, outside the takes, are not read: a warning says so,
// and their Default values still place the model.
TEST(FbxFive, ModelChannelKeysAreNotReadAndSaidSo) {
    auto s = load_changed("                Default: 3\n", "                Default: 3\n                KeyCount: 1\n                Key: 0,3,L\n");
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_NE(all_warnings(*s).find("1 animation channels with keys held by models themselves"), std::string::npos) << all_warnings(*s);
    const Mesh* marker = mesh_named(*s, "Marker \"1\"");
    ASSERT_NE(marker, nullptr);
    expect_near3(marker->positions[0], {0, 2, 3}, "marker 0");
}

// 3ds Max 2009's ASCII 5.8 blob and 3ds Max 7's binary 5.0 cube: read, converted to a GLB the
// Khronos validator passes. The blob's meshes stand where 3ds Max's own OBJ export of the scene
// (obj/ufbx_ufbx__max2009_blob.obj, four decimals) puts them; the cube where its numbers say,
// worked out by hand: its Fbx_Root turns it -90 degrees about X, so (x, y, z) is (x, z, -y).
TEST(FbxFiveCorpus, MaxFilesReadAndConvert) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const fs::path blob = corpus_dir() / "fbx-cases" / "ufbx_ufbx__max2009_blob_5800_ascii.fbx";
    const fs::path cube = corpus_dir() / "fbx-cases" / "ufbx_ufbx__max7_cube_5000_binary.fbx";
    if (!fs::exists(blob) || !fs::exists(cube)) GTEST_SKIP() << "the 5.x files are not in the corpus's fbx-cases";
    for (const fs::path& f : {blob, cube}) {
        SCOPED_TRACE(f.string());
        auto s = load(f.string());
        ASSERT_TRUE(s) << s.error().to_string();
        EXPECT_TRUE(check_invariants(*s));
        auto info = run_cli({"info", f.string()});
        EXPECT_EQ(info.exit_code, 0) << info.err;
        const fs::path out = temp_dir() / "out.glb";
        auto r = run_cli({"convert", f.string(), "-o", out.string(), "-q"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const ValidatorReport report = validate_gltf(out);
        ASSERT_TRUE(report.ran()) << report.error;
        EXPECT_EQ(report.errors, 0) << report.summary();
    }
    auto b = load(blob.string());
    ASSERT_TRUE(b);
    EXPECT_EQ(b->meta.source_version, 5800u);
    EXPECT_EQ(b->triangle_count(), 832u);  // the OBJ export's count too
    EXPECT_EQ(b->materials.size(), 7u);
    ASSERT_EQ(b->animations.size(), 1u);
    EXPECT_EQ(b->animations[0].name, "Take 001");
    EXPECT_EQ(b->animations[0].frame_rate, 30.0f);
    EXPECT_NEAR(b->animations[0].duration(), 36948926400.0 / 46186158000.0, 1e-6);
    const fs::path obj = corpus_dir() / "obj" / "ufbx_ufbx__max2009_blob.obj";
    if (fs::exists(obj)) {
        const auto ours = mesh_positions(*b), theirs = obj_vertex_positions(obj);
        const double error = point_set_distance(ours, theirs);
        EXPECT_LE(error, 1e-4) << "model size " << largest_coordinate(ours);
        std::cout << "[ note ] max2009_blob: " << ours.size() << " vertices, 3ds Max's OBJ " << theirs.size() << ", farthest " << error
                  << " (size " << largest_coordinate(ours) << ")\n";
    }
    auto c = load(cube.string());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->meta.source_version, 5000u);
    EXPECT_EQ(c->meta.dialect, "binary");
    ASSERT_EQ(c->meshes.size(), 1u);
    EXPECT_EQ(c->meshes[0].name, "Box01");
    EXPECT_EQ(c->meshes[0].triangles.size(), 12u);
    Vec3 lo{1e9f, 1e9f, 1e9f}, hi{-1e9f, -1e9f, -1e9f};
    for (const Vec3& p : c->meshes[0].positions)
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
    expect_near3(lo, {-10.000005f, 0, -10.000005f}, "cube's low corner");
    expect_near3(hi, {10.000005f, 20.00001f, 10.000005f}, "cube's high corner");
}
