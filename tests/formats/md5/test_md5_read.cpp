// MD5 reader (docs/md5.md): small .md5mesh / .md5anim texts written here with values computed by
// hand — bind pose to parent-relative, weights to positions, the sign of the restored w, flagged
// components — and malformed inputs that must give an Error at line:col (assimp's invalid_*
// files among them).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "rigport/anim.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// Root at (1 2 3) turned by the stored (0 0 0.6), i.e. q = (0 0 0.6 -0.8); child at (1 2 5)
// unturned in object space. Vertex 0 is one weight on the root, vertex 1 half root half child,
// vertex 2 one weight on the child.
const std::string mesh_text = R"(MD5Version 10
commandline "hand-written"

numJoints 2
numMeshes 1

joints {
	"root"	-1 ( 1 2 3 ) ( 0 0 0.6 )		//
	"child"	0 ( 1 2 5 ) ( 0 0 0 )		// root
}

mesh {
	// meshes: body
	shader "models/test/skin"

	numverts 3
	vert 0 ( 0 0 ) 0 1
	vert 1 ( 1 0 ) 1 2
	vert 2 ( 0 1 ) 3 1

	numtris 1
	tri 0 0 2 1

	numweights 4
	weight 0 0 1 ( 1 0 0 )
	weight 1 0 0.5 ( 0 1 0 )
	weight 2 1 0.5 ( 0 0 1 )
	weight 3 1 1 ( 2 0 0 )
}
)";

// Root: Tx animated (flags 1, component 0); child: Qx Qy Qz animated (flags 56, components 1-3).
const std::string anim_text = R"(MD5Version 10
commandline ""

numFrames 3
numJoints 2
frameRate 24
numAnimatedComponents 4

hierarchy {
	"root"	-1 1 0	//
	"child"	0 56 1	// root
}

bounds {
	( 0 0 0 ) ( 1 1 1 )
	( 0 0 0 ) ( 1 1 1 )
	( 0 0 0 ) ( 1 1 1 )
}

baseframe {
	( 1 2 3 ) ( 0 0 0.6 )
	( 0 0 2 ) ( 0 0 0 )
}

frame 0 {
	1 0 0 0
}

frame 1 {
	2 0.6 0 0
}

frame 2 {
	3 0 0.6 0
}
)";

Expected<Scene> read(const std::string& text, const std::string& name = "t.md5mesh") { return load_bytes(bytes_of(text), name); }

Scene ok(const std::string& text, const std::string& name = "t.md5mesh") {
    auto s = read(text, name);
    EXPECT_TRUE(s) << (s ? "" : s.error().to_string());
    return s ? std::move(*s) : Scene{};
}

// text with the first `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

// The 1-based line:col of the first `needle` at or after the first `after` in text.
std::pair<uint32_t, uint32_t> place(const std::string& text, const std::string& needle, const std::string& after = "") {
    const size_t at = text.find(needle, after.empty() ? 0 : text.find(after));
    EXPECT_NE(at, std::string::npos) << needle;
    uint32_t line = 1;
    size_t begin = 0;
    for (size_t i = 0; i < at; ++i)
        if (text[i] == '\n') ++line, begin = i + 1;
    return {line, uint32_t(at - begin + 1)};
}

void expect_error_at(const std::string& text, std::pair<uint32_t, uint32_t> where, const std::string& words, const std::string& name = "t.md5mesh") {
    auto s = read(text, name);
    ASSERT_FALSE(s) << "read although malformed (" << words << ")";
    EXPECT_EQ(s.error().line, where.first) << s.error().to_string();
    EXPECT_EQ(s.error().column, where.second) << s.error().to_string();
    EXPECT_NE(s.error().message.find(words), std::string::npos) << s.error().to_string();
    EXPECT_EQ(s.error().path, name);
}

std::array<double, 3> world_position(const Scene& s, size_t joint) {
    const auto world = world_matrices(s.skeleton, bind_pose(s.skeleton));
    return {world[joint][3][0], world[joint][3][1], world[joint][3][2]};
}

TEST(Md5Read, DetectsBothFilesByTheirHeader) {
    const FormatInfo* f = detect_format(bytes_of("// a comment first\nMD5Version 10\n"), "x.bin");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->name, "md5");
    EXPECT_EQ(detect_format(bytes_of(anim_text), "x.bin"), f);
    EXPECT_EQ(f->max_influences, 4u);
    EXPECT_NE(f->write, nullptr);
}

TEST(Md5Read, WIsRestoredNegative) {
    const Scene s = ok(mesh_text);
    ASSERT_EQ(s.skeleton.joints.size(), 2u);
    const Quat& q = s.skeleton.joints[0].bind.rotate;  // a root: object space is its local space
    EXPECT_FLOAT_EQ(q[2], 0.6f);
    EXPECT_FLOAT_EQ(q[3], -0.8f);
}

TEST(Md5Read, BindPoseIsMadeParentRelativeExactly) {
    const Scene s = ok(mesh_text);
    const Joint& child = s.skeleton.joints[1];
    EXPECT_EQ(child.name, "child");
    EXPECT_EQ(child.parent, 0);
    // (1 2 5) − (1 2 3) turned back by the root's rotation about Z: (0 0 2).
    EXPECT_NEAR(child.bind.translate[0], 0.0, 1e-7);
    EXPECT_NEAR(child.bind.translate[1], 0.0, 1e-7);
    EXPECT_FLOAT_EQ(child.bind.translate[2], 2.0f);
    // conj(root) · identity: (0 0 -0.6 -0.8), up to sign.
    const Quat& r = child.bind.rotate;
    const float sign = r[3] < 0 ? 1.0f : -1.0f;
    EXPECT_NEAR(sign * r[2], -0.6f, 1e-7);
    EXPECT_NEAR(sign * r[3], -0.8f, 1e-7);
    const auto p = world_position(s, 1);
    EXPECT_NEAR(p[0], 1.0, 1e-6);
    EXPECT_NEAR(p[1], 2.0, 1e-6);
    EXPECT_NEAR(p[2], 5.0, 1e-6);
}

TEST(Md5Read, WeightsGivePositions) {
    const Scene s = ok(mesh_text);
    ASSERT_EQ(s.meshes.size(), 1u);
    const Mesh& m = s.meshes[0];
    EXPECT_EQ(m.name, "body");
    ASSERT_EQ(m.material, 0);
    EXPECT_EQ(s.materials[0].name, "models/test/skin");
    ASSERT_EQ(m.vertex_count(), 3u);
    // R(q) for q = (0 0 0.6 -0.8): x -> (0.28 -0.96 0), y -> (0.96 0.28 0). A positive w would
    // turn the other way and put vertex 0 at y = 2.96.
    const Vec3 expected[3] = {{1.28f, 1.04f, 3.0f}, {0.5f * (1.96f + 1.0f), 0.5f * (2.28f + 2.0f), 0.5f * (3.0f + 6.0f)}, {3.0f, 2.0f, 5.0f}};
    for (int v = 0; v < 3; ++v)
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(m.positions[v][c], expected[v][c], 1e-6) << "vertex " << v << " component " << c;
    ASSERT_EQ(m.skin.count(1), 2u);
    EXPECT_EQ(m.skin.begin(1)[0].joint, 0u);
    EXPECT_FLOAT_EQ(m.skin.begin(1)[0].weight, 0.5f);
    EXPECT_EQ(m.skin.begin(2)[0].joint, 1u);
    EXPECT_EQ(m.texcoords[0][1], (Vec2{1, 0}));  // V as stored: top-left origin, as IQM and glTF
    EXPECT_EQ(m.triangles[0], (Triangle{0, 2, 1}));  // winding as stored: clockwise front faces
    EXPECT_EQ(s.meta.front_face, Winding::Clockwise);
    EXPECT_EQ(s.meta.up, UpAxis::Z);
    EXPECT_EQ(s.meta.comment, "hand-written");
    // Smooth normals (MD5 has none): one flat triangle, so its face normal, clockwise-outward.
    ASSERT_EQ(m.normals.size(), 3u);
    for (auto& n : m.normals) EXPECT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-5);
}

TEST(Md5Read, AnimationTakesOnlyTheFlaggedComponents) {
    const Scene s = ok(anim_text, "walk.md5anim");
    EXPECT_TRUE(s.skeleton.animation_only);
    EXPECT_TRUE(s.warnings.has(WarningCode::AnimationOnly));
    ASSERT_EQ(s.skeleton.joints.size(), 2u);
    EXPECT_EQ(s.skeleton.joints[1].name, "child");
    EXPECT_EQ(s.skeleton.joints[1].parent, 0);
    ASSERT_EQ(s.animations.size(), 1u);
    const Animation& a = s.animations[0];
    EXPECT_EQ(a.frame_count, 3u);
    EXPECT_EQ(a.frame_rate, 24.0f);
    const auto f0 = frame_pose(s.skeleton, a, 0), f1 = frame_pose(s.skeleton, a, 1), f2 = frame_pose(s.skeleton, a, 2);
    // Root: Tx from the frames, Ty Tz and the rotation from the baseframe.
    EXPECT_EQ(f1[0].translate, (Vec3{2, 2, 3}));
    EXPECT_EQ(f2[0].translate, (Vec3{3, 2, 3}));
    EXPECT_NEAR(f2[0].rotate[2], 0.6f, 1e-6);
    EXPECT_NEAR(f2[0].rotate[3], -0.8f, 1e-6);
    // Child: translation from the baseframe, Qx Qy Qz from the frames, w restored negative.
    EXPECT_EQ(f1[1].translate, (Vec3{0, 0, 2}));
    EXPECT_NEAR(f0[1].rotate[3], -1.0f, 1e-7);
    EXPECT_NEAR(f1[1].rotate[0], 0.6f, 1e-6);
    EXPECT_NEAR(f1[1].rotate[3], -0.8f, 1e-6);
    EXPECT_NEAR(f2[1].rotate[1], 0.6f, 1e-6);
    EXPECT_NEAR(f2[1].rotate[3], -0.8f, 1e-6);
    // Constant channels carry one key.
    for (auto& t : a.tracks)
        if (t.joint == 0 && t.channel == Channel::Rotation) EXPECT_EQ(t.times.size(), 1u);
}

TEST(Md5Read, CompileBindsTheAnimationByName) {
    const auto dir = files_dir();
    write_bytes(dir / "m.md5mesh", std::vector<uint8_t>(mesh_text.begin(), mesh_text.end()));
    // The hierarchy in another order than the mesh's joints would be refused by index; by name
    // it binds. Here: the same joints, and the animation is named after its file.
    write_bytes(dir / "walk.md5anim", std::vector<uint8_t>(anim_text.begin(), anim_text.end()));
    auto s = compile({{{(dir / "m.md5mesh").string()}, {}}, {{(dir / "walk.md5anim").string()}, {}}}, CompileOptions{});
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_FALSE(s->skeleton.animation_only);
    ASSERT_EQ(s->animations.size(), 1u);
    EXPECT_EQ(s->animations[0].name, "walk");
    const auto f1 = frame_pose(s->skeleton, s->animations[0], 1);
    EXPECT_EQ(f1[0].translate, (Vec3{2, 2, 3}));

    // Merged onto the mesh, the .md5anim is no longer alone: its reader's note is not passed on.
    EXPECT_FALSE(s->warnings.has(WarningCode::AnimationOnly));

    // A joint the mesh lacks: its channels are left out with one warning, the rest binds.
    const std::string other = with(anim_text, "\"child\"", "\"elbow\"");
    write_bytes(dir / "other.md5anim", std::vector<uint8_t>(other.begin(), other.end()));
    auto partial = compile({{{(dir / "m.md5mesh").string()}, {}}, {{(dir / "other.md5anim").string()}, {}}}, CompileOptions{});
    ASSERT_TRUE(partial) << partial.error().to_string();
    ASSERT_EQ(partial->animations.size(), 1u);
    for (auto& t : partial->animations[0].tracks) EXPECT_EQ(t.joint, 0u);  // the root's only
    const Warning* left_out = nullptr;
    for (auto& w : partial->warnings.items)
        if (w.message.find("'elbow'") != std::string::npos) left_out = &w;
    ASSERT_TRUE(left_out);
    EXPECT_EQ(left_out->code, WarningCode::Ignored);
    // No joint in common: refused.
    const std::string stranger = with(with(anim_text, "\"child\"", "\"elbow\""), "\"root\"", "\"hip\"");
    write_bytes(dir / "stranger.md5anim", std::vector<uint8_t>(stranger.begin(), stranger.end()));
    auto bad = compile({{{(dir / "m.md5mesh").string()}, {}}, {{(dir / "stranger.md5anim").string()}, {}}}, CompileOptions{});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("'hip', 'elbow'"), std::string::npos) << bad.error().to_string();
}

TEST(Md5Read, BadCountsAndIndicesNameLineAndColumn) {
    const std::string t = mesh_text;
    {
        const std::string bad = with(t, "tri 0 0 2 1", "tri 0 0 2 3");
        expect_error_at(bad, place(bad, "3", "tri 0 0 2 3"), "out of range: numverts 3");
    }
    {
        const std::string bad = with(t, "weight 3 1 1", "weight 3 7 1");
        expect_error_at(bad, place(bad, "7", "weight 3 7"), "joint 7 is beyond the 2 joints");
    }
    {
        const std::string bad = with(t, "vert 2 ( 0 1 ) 3 1", "vert 2 ( 0 1 ) 3 2");
        expect_error_at(bad, place(bad, "2\n", "vert 2 ( 0 1 ) 3 2"), "beyond numweights 4");
    }
    {
        const std::string bad = with(t, "vert 1 ( 1 0 ) 1 2", "vert 0 ( 1 0 ) 1 2");
        expect_error_at(bad, place(bad, "0", "vert 0 ( 1 0 ) 1 2"), "vert 0 is defined twice");
    }
    {
        const std::string bad = with(t, "numverts 3", "numverts -3");
        expect_error_at(bad, place(bad, "-3"), "negative");
    }
    {
        const std::string bad = with(t, "numverts 3", "numverts 9999999");
        expect_error_at(bad, place(bad, "9999999"), "cannot hold them");
    }
    {
        const std::string bad = with(t, "\"child\"\t0", "\"child\"\t1");
        expect_error_at(bad, place(bad, "1", "\"child\"\t1"), "parent 1 is not an earlier joint");
    }
    {
        const std::string bad = with(t, "MD5Version 10", "MD5Version 11");
        expect_error_at(bad, place(bad, "11"), "only version 10");
        EXPECT_EQ(read(bad).error().code, ErrorCode::Unsupported);
    }
    {
        const std::string bad = with(t, "( 1 2 3 ) ( 0 0 0.6 )", "( 1 2 3 ) ( 0 0 x )");
        expect_error_at(bad, place(bad, "x )"), "'x' is not a number");
    }
    {
        const std::string bad = with(t, "\"models/test/skin\"", "\"models/test/skin");
        expect_error_at(bad, place(bad, "\"models"), "closing quote");
    }
    const std::string a = anim_text;
    {
        const std::string bad = with(a, "2 0.6 0 0\n", "2 0.6 0\n");
        expect_error_at(bad, place(bad, "}", "2 0.6 0\n"), "frame 1: 3 values, numAnimatedComponents is 4", "a.md5anim");
    }
    {
        const std::string bad = with(a, "2 0.6 0 0\n", "2 0.6 0 0 9\n");
        expect_error_at(bad, place(bad, "9\n"), "more values than numAnimatedComponents 4", "a.md5anim");
    }
    {
        const std::string bad = with(a, "\"child\"\t0 56 1", "\"child\"\t0 56 2");
        expect_error_at(bad, place(bad, "\"child\"\t0 56 2"), "components 2..4 beyond numAnimatedComponents 4", "a.md5anim");
    }
    {
        const std::string bad = with(a, "frame 2 {", "frame 3 {");
        expect_error_at(bad, place(bad, "3 {"), "frame 3 is out of range: numFrames 3", "a.md5anim");
    }
    {
        const std::string bad = with(a, "frame 2 {", "frame 1 {");
        expect_error_at(bad, place(bad, "1 {\n\t3 0 0.6 0"), "frame 1 is defined twice", "a.md5anim");
    }
    {
        const std::string bad = with(a, "numJoints 2\n", "numJoints 2\njoints {\n}\n");
        expect_error_at(bad, place(bad, "joints {"), "belongs to an .md5mesh", "a.md5anim");
    }
}

TEST(Md5Read, ToleratedQuirksAreWarnings) {
    // numMeshes wrong, an empty mesh block (BoarMan has 13), a joint with x² + y² + z² > 1.
    std::string t = with(mesh_text, "numMeshes 1", "numMeshes 3");
    t = with(t, "( 1 2 5 ) ( 0 0 0 )", "( 1 2 5 ) ( 0.8 0.8 0 )");
    t += "\nmesh {\n\tshader \"\"\n\tnumverts 0\n\tnumtris 0\n\tnumweights 0\n}\n";
    const Scene s = ok(t);
    EXPECT_EQ(s.meshes.size(), 1u);
    EXPECT_TRUE(s.warnings.has(WarningCode::CountMismatch));
    EXPECT_TRUE(s.warnings.has(WarningCode::Ignored));
    EXPECT_TRUE(s.warnings.has(WarningCode::NonUnitQuaternion));
    for (auto& w : s.warnings.items) EXPECT_NE(w.code, WarningCode::Other) << w.message;
}

TEST(Md5Read, LimitsFromLoadOptions) {
    LoadOptions o;
    o.max_elements = 2;
    auto s = load_bytes(bytes_of(mesh_text), "t.md5mesh", o);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::LimitExceeded);
    EXPECT_GT(s.error().line, 0u);
    o = LoadOptions{};
    o.max_frames = 2;
    s = load_bytes(bytes_of(anim_text), "t.md5anim", o);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::LimitExceeded);
    o = LoadOptions{};
    o.max_depth = 1;
    s = load_bytes(bytes_of(mesh_text), "t.md5mesh", o);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::LimitExceeded);
    o = LoadOptions{};
    o.max_file_bytes = 10;
    EXPECT_FALSE(load_bytes(bytes_of(mesh_text), "t.md5mesh", o));
}

// assimp's hand-made negative tests: a clear error at the offending number, never a crash.
TEST(Md5Read, AssimpInvalidFilesGiveErrors) {
    RIGPORT_REQUIRE_CORPUS();
    const struct {
        const char* file;
        const char* words;
        const char* token;
    } cases[] = {
        {"assimp_assimp__invalid_InvalidBoneIndex.md5mesh", "joint 999 is beyond the 1 joints", "999"},
        {"assimp_assimp__invalid_OverflowingTriangleIndex.md5mesh", "tri 4294967295 is out of range: numtris 1", "4294967295"},
        {"assimp_assimp__invalid_OverflowingVertexIndex.md5mesh", "vert 4294967295 is out of range: numverts 1", "4294967295"},
        {"assimp_assimp__invalid_OverflowingWeightIndex.md5mesh", "weight 4294967295 is out of range: numweights 1", "4294967295"},
        {"assimp_assimp__invalid_InvalidCameraCut.md5camera", "holds no model", "numCuts"},
    };
    for (auto& c : cases) {
        const auto path = corpus_dir() / "md5" / c.file;
        const auto bytes = read_bytes(path);
        ASSERT_FALSE(bytes.empty()) << path;
        LoadOptions o;
        o.format = "md5";  // the .md5camera's extension is no model's
        auto s = load_bytes(bytes, path.string(), o);
        ASSERT_FALSE(s) << c.file;
        EXPECT_NE(s.error().message.find(c.words), std::string::npos) << s.error().to_string();
        const std::string text(bytes.begin(), bytes.end());
        const auto where = place(text, c.token);
        EXPECT_EQ(s.error().line, where.first) << s.error().to_string();
        EXPECT_EQ(s.error().column, where.second) << s.error().to_string();
    }
}

}  // namespace
}  // namespace rigport::test
