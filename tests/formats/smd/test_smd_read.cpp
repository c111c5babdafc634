// SMD reader (docs/smd.md): small texts written here with values computed by hand — the bind
// pose and the Euler convention R = Rz·Ry·Rx checked numerically, link lists and the parent-weight
// rule, GoldSrc 9-field lines, CRLF, animation SMDs and .vta shapes — malformed inputs that must
// give an Error at line:col, and the corpus files with the counts SOURCES gives.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

Expected<Scene> read_text(const std::string& text, const std::string& name = "test.smd") {
    LoadOptions o;
    o.format = "smd";
    return load_bytes(bytes_of(text), name, o);
}

// Node 1 "arm" under "root" at (1 2 3) turned by Euler (0.3 -0.5 1.1); three triangles' corners:
// a GoldSrc line, Source lines with links (one to the parent itself), one short of weight 1.
const std::string reference_text = R"(version 1
// a comment line
nodes
0 "root" -1
1 "arm" 0
end
skeleton
time 0
0 0 0 0 0 0 0
1 1 2 3 0.3 -0.5 1.1
end
triangles
skin.tga
0 0 0 0 0 0 1 0.25 0.75
0 1 0 0 0 0 1 1 0 2 1 0.25 0 0.5
1 0 1 0 0 0 1 0 1 1 1 0.6
end
)";

// Rx, Ry, Rz as matrices, multiplied in the order the convention states.
std::array<double, 3> rotate_euler(double ax, double ay, double az, std::array<double, 3> v) {
    auto rx = [&](std::array<double, 3> p) { return std::array<double, 3>{p[0], std::cos(ax) * p[1] - std::sin(ax) * p[2], std::sin(ax) * p[1] + std::cos(ax) * p[2]}; };
    auto ry = [&](std::array<double, 3> p) { return std::array<double, 3>{std::cos(ay) * p[0] + std::sin(ay) * p[2], p[1], -std::sin(ay) * p[0] + std::cos(ay) * p[2]}; };
    auto rz = [&](std::array<double, 3> p) { return std::array<double, 3>{std::cos(az) * p[0] - std::sin(az) * p[1], std::sin(az) * p[0] + std::cos(az) * p[1], p[2]}; };
    return rz(ry(rx(v)));
}

TEST(SmdRead, BindPoseAndEulerConvention) {
    auto scene = read_text(reference_text);
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->skeleton.joints.size(), 2u);
    const Joint& arm = scene->skeleton.joints[1];
    EXPECT_EQ(arm.name, "arm");
    EXPECT_EQ(arm.parent, 0);
    EXPECT_FALSE(scene->skeleton.animation_only);
    EXPECT_EQ(arm.bind.translate, (Vec3{1, 2, 3}));
    // The quaternion turns each axis as Rz(1.1)·Ry(-0.5)·Rx(0.3) does.
    const Mat4 m = transform_matrix(Transform{{0, 0, 0}, arm.bind.rotate, {1, 1, 1}});
    for (int axis = 0; axis < 3; ++axis) {
        std::array<double, 3> v{0, 0, 0};
        v[size_t(axis)] = 1;
        const auto want = rotate_euler(0.3, -0.5, 1.1, v);
        const auto got = transform_point(m, v);
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(got[size_t(c)], want[size_t(c)], 1e-6) << "axis " << axis;
    }
    EXPECT_EQ(scene->meta.up, UpAxis::Z);
    EXPECT_EQ(scene->meta.front_face, Winding::CounterClockwise);
    EXPECT_EQ(scene->meta.dialect, "source");
}

TEST(SmdRead, LinksParentWeightRuleAndGoldSrcLines) {
    auto scene = read_text(reference_text);
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->meshes.size(), 1u);
    const Mesh& m = scene->meshes[0];
    EXPECT_EQ(m.name, "skin");
    EXPECT_EQ(scene->materials[0].name, "skin.tga");
    ASSERT_EQ(scene->materials[0].maps.size(), 1u);
    ASSERT_EQ(m.vertex_count(), 3u);
    ASSERT_EQ(m.triangles.size(), 1u);
    EXPECT_EQ(m.triangles[0], (Triangle{0, 1, 2}));
    // GoldSrc line: no links, all on the parent; V flipped (0.75 -> 0.25).
    ASSERT_EQ(m.skin.count(0), 1u);
    EXPECT_EQ(m.skin.begin(0)[0].joint, 0u);
    EXPECT_FLOAT_EQ(m.skin.begin(0)[0].weight, 1.0f);
    EXPECT_FLOAT_EQ(m.texcoords[0][0][1], 0.25f);
    // Links 1:0.25 and 0:0.5 (the parent itself), sum 0.75: the parent gets 0.5 + 0.25.
    ASSERT_EQ(m.skin.count(1), 2u);
    EXPECT_EQ(m.skin.begin(1)[0].joint, 0u);
    EXPECT_FLOAT_EQ(m.skin.begin(1)[0].weight, 0.75f);
    EXPECT_EQ(m.skin.begin(1)[1].joint, 1u);
    EXPECT_FLOAT_EQ(m.skin.begin(1)[1].weight, 0.25f);
    // Parent 1 with one link 1:0.6: the parent gets all of it, 0.6 + 0.4.
    ASSERT_EQ(m.skin.count(2), 1u);
    EXPECT_EQ(m.skin.begin(2)[0].joint, 1u);
    EXPECT_NEAR(m.skin.begin(2)[0].weight, 1.0f, 1e-6);
    for (auto& w : scene->warnings.items) EXPECT_NE(w.code, WarningCode::Other) << w.message;
}

TEST(SmdRead, CrlfAndSharedCorners) {
    std::string crlf;
    for (char c : reference_text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    auto a = read_text(reference_text), b = read_text(crlf);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->meshes[0].positions, b->meshes[0].positions);
    EXPECT_EQ(a->skeleton.joints[1].bind.rotate, b->skeleton.joints[1].bind.rotate);
    // Two triangles over the same three corners: the corners are shared; a second material, a mesh.
    const std::string text = "version 1\nnodes\n0 \"r\" -1\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\n"
                             "m\n0 0 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 1\n0 1 0 0 0 0 1 1 0\nother\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n";
    auto s = read_text(text);
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 2u);
    EXPECT_EQ(s->meshes[0].vertex_count(), 3u);
    EXPECT_EQ(s->meshes[0].triangles.size(), 2u);
    EXPECT_EQ(s->meta.dialect, "goldsrc");
    EXPECT_TRUE(s->warnings.has(WarningCode::Substituted));  // no skeleton: identity bind
}

TEST(SmdRead, AnimationSmdGivesAnAnimationOnlySkeleton) {
    const std::string text = "version 1\nnodes\n0 \"root\" -1\n1 \"arm\" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 1 0 0 0 0 0\n"
                             "time 1\n0 0 0 0 0 0 0\n1 2 0 0 0 0 1.5\ntime 2\n0 0 0 0 0 0 0\n1 3 0 0 0 0 1.5\nend\n";
    auto s = read_text(text);
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_TRUE(s->skeleton.animation_only);
    EXPECT_EQ(s->skeleton.joints[1].name, "arm");
    ASSERT_EQ(s->animations.size(), 1u);
    const Animation& a = s->animations[0];
    EXPECT_EQ(a.frame_rate, 30.0f);
    EXPECT_EQ(a.frame_count, 3u);
    EXPECT_NEAR(a.duration(), 2.0f / 30.0f, 1e-6);
    const auto pose = sample_pose(s->skeleton, a, 2.0f / 30.0f);
    EXPECT_FLOAT_EQ(pose[1].translate[0], 3.0f);
    EXPECT_NEAR(std::fabs(pose[1].rotate[2]), std::sin(0.75), 1e-6);
    EXPECT_TRUE(s->warnings.has(WarningCode::AnimationOnly));
    EXPECT_FALSE(s->warnings.has(WarningCode::Interpreted));
    // A frame that leaves out a node: interpolated, and said.
    const std::string gap = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\ntime 2\n0 2 0 0 0 0 0\nend\n";
    auto g = read_text(gap);
    ASSERT_TRUE(g) << g.error().to_string();
    EXPECT_TRUE(g->warnings.has(WarningCode::Interpreted));
    EXPECT_FLOAT_EQ(sample_pose(g->skeleton, g->animations[0], 1.0f / 30.0f)[0].translate[0], 1.0f);
}

TEST(SmdRead, VtaShapesAreMorphTargets) {
    const std::string text = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1 # Smile\nend\nvertexanimation\ntime 0\n"
                             "0 0 0 0 0 0 1\n1 1 0 0 0 0 1\n2 0 1 0 0 0 1\ntime 1\n1 1 0 0.5 0 0 1\nend\n";
    auto s = read_text(text, "face.vta");
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 1u);
    const Mesh& m = s->meshes[0];
    EXPECT_EQ(m.vertex_count(), 3u);
    ASSERT_EQ(m.morph_targets.size(), 1u);
    EXPECT_EQ(m.morph_targets[0].name, "Smile");
    EXPECT_EQ(m.morph_targets[0].position_deltas[1], (Vec3{0, 0, 0.5f}));
    EXPECT_EQ(m.morph_targets[0].position_deltas[0], (Vec3{0, 0, 0}));
    EXPECT_EQ(s->meta.dialect, "vta");
}

TEST(SmdRead, MalformedGivesLineAndColumn) {
    struct Case {
        std::string text;
        uint32_t line, column;
        ErrorCode code;
    };
    const std::string head = "version 1\nnodes\n0 \"root\" -1\nend\n";
    const Case cases[] = {
        {"version 2\n", 1, 9, ErrorCode::Unsupported},
        {"nodes\nend\n", 1, 1, ErrorCode::Malformed},
        {head + "skeleton\ntime 0\n0 0 0 x 0 0 0\nend\n", 7, 7, ErrorCode::Malformed},
        {head + "skeleton\ntime 0\n3 0 0 0 0 0 0\nend\n", 7, 1, ErrorCode::Malformed},
        {head + "skeleton\ntime 1\ntime 1\nend\n", 7, 6, ErrorCode::Malformed},
        {head + "triangles\nm\n0 0 0 0 0 0 1 0 0\n0 0 0 0 0 0 1 0 0\nend\n", 9, 1, ErrorCode::Malformed},
        {head + "triangles\nm\n0 0 0 0 0 0 1 0 0 1 7 1\n", 7, 21, ErrorCode::Malformed},
        {head + "triangles\nm\n0 0 0 0 0 0 1 0 0 2 0 1\n", 7, 24, ErrorCode::Malformed},
        {head + "triangles\nm\n0 0 0 0 0 0 1 0\n", 7, 16, ErrorCode::Malformed},
        {"version 1\nnodes\n0 \"a\" -1\n0 \"b\" -1\nend\n", 4, 1, ErrorCode::Malformed},
        {"version 1\nnodes\n0 \"a\" 1\n1 \"b\" 0\nend\n", 3, 1, ErrorCode::Malformed},
        {"version 1\nnodes\n0 \"a -1\nend\n", 3, 3, ErrorCode::Malformed},
        {head + "skeleton\ntime 0\n", 6, 7, ErrorCode::Malformed},
        {"", 1, 1, ErrorCode::Malformed},
    };
    for (const Case& c : cases) {
        auto s = read_text(c.text);
        ASSERT_FALSE(s) << c.text;
        EXPECT_EQ(s.error().line, c.line) << c.text << s.error().to_string();
        EXPECT_EQ(s.error().column, c.column) << c.text << s.error().to_string();
        EXPECT_EQ(s.error().code, c.code) << c.text;
    }
    LoadOptions tight;
    tight.format = "smd";
    tight.max_elements = 2;
    auto s = load_bytes(bytes_of(reference_text), "t.smd", tight);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::LimitExceeded);
}

TEST(SmdRead, CorpusFilesReadWithTheirCounts) {
    RIGPORT_REQUIRE_CORPUS();
    struct Expect {
        const char* name;
        uint64_t triangles;
        size_t joints, animations, morphs;
    };
    const Expect expected[] = {
        {"assimp_assimp__WusonSMD.smd", 3732, 1, 0, 0},
        {"assimp_assimp__holy_grailref.smd", 896, 1, 0, 0},
        {"assimp_assimp__triangle.smd", 1, 1, 0, 0},
        {"Artfunkel_BlenderSourceTools__Cube_Armature_Cube.smd", 12, 2, 0, 0},
        {"Artfunkel_BlenderSourceTools__Cube_Armature_GoldSource_Cube.smd", 12, 2, 0, 0},
        {"Artfunkel_BlenderSourceTools__ActionFilter_X_Axis.smd", 0, 2, 1, 0},
        {"Artfunkel_BlenderSourceTools__Overlapping_DifferentWeights.smd", 2, 2, 0, 0},
        {"Artfunkel_BlenderSourceTools__Curve_Armature_BezierCurve.smd", 24, 2, 0, 0},
        {"Artfunkel_BlenderSourceTools__Cube_NoArmature_Cube.vta", 0, 1, 0, 1},
    };
    // Every SMD and VTA the corpus holds reads (it may hold more than the ones counted below).
    for (const char* ext : {".smd", ".vta"})
        for (auto& f : corpus_files("smd", ext)) {
            auto s = load(f.string());
            EXPECT_TRUE(s) << f << ": " << (s ? "" : s.error().to_string());
        }
    for (const Expect& e : expected) {
        auto s = load((corpus_dir() / "smd" / e.name).string());
        ASSERT_TRUE(s) << s.error().to_string();
        EXPECT_EQ(s->triangle_count(), e.triangles) << e.name;
        EXPECT_EQ(s->skeleton.joints.size(), e.joints) << e.name;
        EXPECT_EQ(s->animations.size(), e.animations) << e.name;
        size_t morphs = 0;
        for (auto& m : s->meshes) morphs += m.morph_targets.size();
        EXPECT_EQ(morphs, e.morphs) << e.name;
        for (auto& w : s->warnings.items) EXPECT_NE(w.code, WarningCode::Other) << e.name << ": " << w.message;
    }
    auto anim = load((corpus_dir() / "smd" / "Artfunkel_BlenderSourceTools__ActionFilter_X_Axis.smd").string());
    ASSERT_TRUE(anim);
    EXPECT_EQ(anim->animations[0].frame_count, 3u);
}

}  // namespace
}  // namespace rigport::test
