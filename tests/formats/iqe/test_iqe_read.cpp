// IQE reader: one test per command on fixtures written here, expected values computed here, and
// malformed inputs that must give a line:col error (docs/iqe.md §1; docs/iqm.md §5 bugs 2 and 7, §9 rule 14).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "formats/iqe/iqe.hpp"
#include "rigport/io.hpp"

namespace rigport::test {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

Expected<iqe::Document> parse(const std::string& body) {
    static std::string text;
    text = "# Inter-Quake Export\n" + body;
    return iqe::parse(bytes_of(text), LoadOptions{});
}

iqe::Document ok(const std::string& body) {
    auto d = parse(body);
    EXPECT_TRUE(d) << (d ? "" : d.error().to_string());
    if (!d) return {};
    return std::move(*d);
}

const std::string tri = "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\n";

// load() of an IQE without `vn` lines gives the normals its smoothing rules describe
// (as the compiler does), not none. Two triangles folded 90 degrees along a shared edge: smooth
// by default (180 degrees), split into flat faces under `smoothangle 45`.
TEST(IqeRead, LoadGivesTheNormalsOfTheSmoothingRules) {
    const std::string fold = "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvp 0 0 1\nfm 0 1 2\nfm 1 0 3\n";
    auto smooth = load_bytes(bytes_of("# Inter-Quake Export\nmesh m\n" + fold), "fold.iqe");
    ASSERT_TRUE(smooth) << smooth.error().to_string();
    const Mesh& m = smooth->meshes[0];
    ASSERT_EQ(m.normals.size(), m.positions.size());
    EXPECT_EQ(m.positions.size(), 4u);
    // The shared edge's vertices (0 and 1) average the two faces: 45 degrees between them.
    for (uint32_t v : {0u, 1u}) EXPECT_NEAR(std::fabs(m.normals[v][1]), std::fabs(m.normals[v][2]), 1e-6) << v;
    auto flat = load_bytes(bytes_of("# Inter-Quake Export\nmesh m\nsmoothangle 45\n" + fold), "fold.iqe");
    ASSERT_TRUE(flat) << flat.error().to_string();
    const Mesh& f = flat->meshes[0];
    EXPECT_EQ(f.positions.size(), 6u) << "the shared edge is split";
    for (const Vec3& n : f.normals) EXPECT_NEAR(std::fabs(n[0]) + std::fabs(n[1]) + std::fabs(n[2]), 1.0f, 1e-6) << "an axis: a flat face";
    // Stored normals are kept as they are.
    auto stored = load_bytes(bytes_of("# Inter-Quake Export\nmesh m\nvp 0 0 0\nvn 1 0 0\nvp 1 0 0\nvn 1 0 0\nvp 0 1 0\nvn 1 0 0\nfm 0 1 2\n"), "x.iqe");
    ASSERT_TRUE(stored) << stored.error().to_string();
    EXPECT_EQ(stored->meshes[0].normals[2], (Vec3{1, 0, 0}));
}

TEST(IqeRead, DetectNeedsHeaderOnFirstLine) {
    std::string a = "# Inter-Quake Export\nvp 0 0 0\n", b = "\n# Inter-Quake Export\n";
    EXPECT_TRUE(iqe::detect(bytes_of(a)));
    EXPECT_FALSE(iqe::detect(bytes_of(b)));
    auto r = iqe::parse(bytes_of(b), LoadOptions{});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().line, 1u);
}

TEST(IqeRead, VertexAttributesBelongToTheirVp) {
    auto d = ok("mesh m\nvp 1 2 3\nvt 0.5 -0.25\nvn 0 0 1\nvx 1 0 0 -1\nvc 0.1 0.2 0.3\nvb 0 0.75 1 0.25\n"
                "vp 4 5 6 1\nvt 1 1\nvn 0 1 0\nvx 1 0 0 1\nvc 1 1 1 0.5\nvb 1 1\nvp 7 8 9\nvt 0 0\nvn 1 0 0\nvx 0 1 0 1\nvc 0 0 0\nvb 0 1\nfm 0 1 2\n"
                "joint a\njoint b 0\n");
    ASSERT_EQ(d.scene.meshes.size(), 1u);
    const Mesh& m = d.scene.meshes[0];
    EXPECT_EQ(m.positions[1], (Vec3{4, 5, 6}));
    EXPECT_EQ(m.texcoords[0][0], (Vec2{0.5f, -0.25f}));
    EXPECT_EQ(m.normals[2], (Vec3{1, 0, 0}));
    EXPECT_EQ(m.tangents[0], (Vec4{1, 0, 0, -1}));
    EXPECT_EQ(m.colors[0][0], (Vec4{0.1f, 0.2f, 0.3f, 1}));  // alpha defaults to 1
    EXPECT_EQ(m.colors[0][1], (Vec4{1, 1, 1, 0.5f}));
    ASSERT_EQ(m.skin.count(0), 2u);
    EXPECT_EQ(m.skin.begin(0)[1].joint, 1u);
    EXPECT_FLOAT_EQ(m.skin.begin(0)[1].weight, 0.25f);
    EXPECT_TRUE(d.has_normals);
    EXPECT_TRUE(d.has_tangents);
    EXPECT_EQ(d.scene.meta.source_format, "iqe");
    EXPECT_EQ(d.scene.meta.up, UpAxis::Z);
    EXPECT_EQ(d.scene.meta.front_face, Winding::Clockwise);
}

TEST(IqeRead, VbKeepsEveryPositiveInfluence) {
    auto d = ok("joint a\njoint b 0\njoint c 1\njoint d 2\njoint e 3\n" + tri + "vb 0 0.2 1 0.2 2 0.2 3 0.2 4 0.1 0 0.1 2 0\nfa 0 1 2\n");
    EXPECT_EQ(d.scene.meshes[0].skin.count(2), 6u);  // six positive weights, the zero one dropped
}

TEST(IqeRead, VxSixNumbersGivesHandedness) {
    auto d = ok("vp 0 0 0\nvn 0 0 1\nvx 1 0 0 0 -1 0\nvp 1 0 0\nvn 0 0 1\nvx 1 0 0 0 1 0\nvp 0 1 0\nvx 1 0 0 0 1 0\nvn 0 0 1\nfa 0 1 2\n");
    const Mesh& m = d.scene.meshes[0];
    // n x t = (0,0,1) x (1,0,0) = (0,1,0): b = (0,-1,0) gives -1, (0,1,0) gives +1 (vn after vx too).
    EXPECT_EQ(m.tangents[0][3], -1.0f);
    EXPECT_EQ(m.tangents[1][3], 1.0f);
    EXPECT_EQ(m.tangents[2][3], 1.0f);
}

TEST(IqeRead, UnequalAttributeArraysWarnAndFillDefaults) {
    auto d = ok("vp 0 0 0\nvn 0 0 1\nvp 1 0 0\nvp 0 1 0\nvn 1 0 0\nfa 0 1 2\n");
    const Mesh& m = d.scene.meshes[0];
    ASSERT_EQ(m.normals.size(), 3u);
    EXPECT_EQ(m.normals[1], (Vec3{0, 0, 0}));
    EXPECT_EQ(m.normals[2], (Vec3{1, 0, 0}));
    EXPECT_TRUE(d.scene.warnings.has(WarningCode::CountMismatch));
}

TEST(IqeRead, FaAbsoluteAndNegative) {
    auto d = ok(tri + "vp 1 1 0\nfa 0 1 2\nfa -1 -2 -3\nfa 3 -3 2\n");
    const auto& t = d.scene.meshes[0].triangles;
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[1], (Triangle{3, 2, 1}));  // -1 = the last vertex read
    EXPECT_EQ(t[2], (Triangle{3, 1, 2}));
}

TEST(IqeRead, FmRelativeToMesh) {
    auto d = ok("mesh a\n" + tri + "fm 0 1 2\nmesh b\n" + tri + "fm 2 1 0\nfa 3 4 5\n");
    ASSERT_EQ(d.scene.meshes.size(), 2u);
    EXPECT_EQ(d.scene.meshes[1].triangles[0], (Triangle{2, 1, 0}));
    EXPECT_EQ(d.scene.meshes[1].triangles[1], (Triangle{0, 1, 2}));  // fa: file-absolute 3..5
    EXPECT_EQ(d.scene.meshes[1].positions[1], (Vec3{1, 0, 0}));
}

TEST(IqeRead, PolygonIsFannedAndShortFaceWarns) {
    auto d = ok("vp 0 0 0\nvp 1 0 0\nvp 1 1 0\nvp 0 1 0\nvp -1 1 0\nfm 0 1 2 3 4\nfm 0 1\n");
    const auto& t = d.scene.meshes[0].triangles;
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[0], (Triangle{0, 1, 2}));
    EXPECT_EQ(t[1], (Triangle{0, 2, 3}));
    EXPECT_EQ(t[2], (Triangle{0, 3, 4}));
    EXPECT_TRUE(d.scene.warnings.has(WarningCode::DegenerateTriangle));
}

TEST(IqeRead, NoFacesMeansVertexTriples) {
    auto d = ok(tri + tri);
    EXPECT_EQ(d.scene.meshes[0].triangles.size(), 2u);
}

TEST(IqeRead, RepeatedMeshBlocksKeepEveryTriangle) {  // bug 2
    auto d = ok("mesh A\n" + tri + "fm 0 1 2\nmesh B\n" + tri + "fm 0 1 2\nmesh A\n" + tri + "fm 0 2 1\n");
    ASSERT_EQ(d.scene.meshes.size(), 2u);
    EXPECT_EQ(d.scene.meshes[0].name, "A");
    EXPECT_EQ(d.scene.meshes[0].triangles.size(), 2u);
    EXPECT_EQ(d.scene.meshes[0].vertex_count(), 6u);
    EXPECT_EQ(d.scene.meshes[0].triangles[1], (Triangle{3, 5, 4}));
    EXPECT_EQ(d.scene.meshes[1].triangles.size(), 1u);
    ASSERT_EQ(d.smoothing.size(), 2u);
    EXPECT_EQ(d.smoothing[0].triangles.size(), 2u);
}

TEST(IqeRead, MaterialsAndQuotedNamesWithSpaces) {
    auto d = ok("mesh \"my mesh\"\nmaterial \"a b/c\"\n" + tri + "fm 0 1 2\nmesh other\nmaterial \"a b/c\"\n" + tri + "fm 0 1 2\n");
    ASSERT_EQ(d.scene.meshes.size(), 2u);
    EXPECT_EQ(d.scene.meshes[0].name, "my mesh");
    ASSERT_EQ(d.scene.materials.size(), 1u);
    EXPECT_EQ(d.scene.materials[0].name, "a b/c");
    EXPECT_EQ(d.scene.meshes[1].material, 0);
}

TEST(IqeRead, SmoothingStateRecordedPerTriangle) {
    auto d = ok("vp 0 0 0\nvs 3\nvp 1 0 0\nvp 0 1 0\nvp 1 1 0\nfm 0 1 2\nsmoothgroup 4\nsmoothuv 1\nsmoothangle 45\nfm 1 3 2 0\nfs 1 0 1 1\nsmoothgroup\nfm 0 2 3\n");
    const MeshSmoothing& s = d.smoothing.at(0);
    ASSERT_EQ(s.triangles.size(), 4u);
    EXPECT_EQ(s.triangles[0].group, -1);
    EXPECT_FALSE(s.triangles[0].smooth_uv);
    EXPECT_EQ(s.triangles[0].angle_degrees, 180.0f);
    EXPECT_EQ(s.triangles[1].group, 4);
    EXPECT_TRUE(s.triangles[1].smooth_uv);
    EXPECT_EQ(s.triangles[1].angle_degrees, 45.0f);
    // The quad 1 3 2 0 fans into (1,3,2), (1,2,0); polygon edges 13, 32, 20, 01 carry 1, 0, 1, 1.
    EXPECT_TRUE(s.triangles[1].has_edge_flags);
    EXPECT_EQ(s.triangles[1].smooth_edge, (std::array<bool, 3>{true, false, true}));
    EXPECT_EQ(s.triangles[2].smooth_edge, (std::array<bool, 3>{true, true, true}));
    EXPECT_EQ(s.triangles[3].group, -1);
    EXPECT_FALSE(s.triangles[3].has_edge_flags);
    ASSERT_EQ(s.vertex_index.size(), 4u);
    EXPECT_EQ(s.vertex_index[0], 3);
}

TEST(IqeRead, PqWithoutWGeneratesNegativeW) {
    auto d = ok("joint a\npq 1 2 3 0.5 0.5 0.5\njoint b 0\npq 0 0 0 0 0 0 2 1 2 3\n");
    const auto& j = d.scene.skeleton.joints;
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0].bind.translate, (Vec3{1, 2, 3}));
    EXPECT_FLOAT_EQ(j[0].bind.rotate[3], float(-std::sqrt(1 - 0.75)));
    EXPECT_EQ(j[0].bind.scale, (Vec3{1, 1, 1}));
    EXPECT_EQ(j[1].bind.rotate, (Quat{0, 0, 0, 1}));  // explicit w renormalized, sign kept
    EXPECT_EQ(j[1].bind.scale, (Vec3{1, 2, 3}));
}

TEST(IqeRead, PmScaleAndNegativeDeterminant) {
    // Rows of R(z, 90°) * diag(2, 3, -4): columns (0,2,0), (-3,0,0), (0,0,-4); det < 0.
    auto d = ok("joint a\npm 1 2 3 0 -3 0 2 0 0 0 0 -4\n");
    const Transform& t = d.scene.skeleton.joints[0].bind;
    EXPECT_EQ(t.translate, (Vec3{1, 2, 3}));
    EXPECT_FLOAT_EQ(t.scale[0], -2);
    EXPECT_FLOAT_EQ(t.scale[1], -3);
    EXPECT_FLOAT_EQ(t.scale[2], -4);
    // Normalized matrix: columns (0,-1,0), (1,0,0), (0,0,1) = rotation about Z by -90°;
    // w <= 0: q = -(0, 0, -sin45, cos45).
    const float h = float(std::sqrt(0.5));
    EXPECT_NEAR(t.rotate[0], 0, 1e-6);
    EXPECT_NEAR(t.rotate[1], 0, 1e-6);
    EXPECT_NEAR(t.rotate[2], h, 1e-6);
    EXPECT_NEAR(t.rotate[3], -h, 1e-6);
}

// Rotates p by quaternion q (x y z w): p + 2w(v x p) + 2 v x (v x p).
std::array<double, 3> rotate(const Quat& q, std::array<double, 3> p) {
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double c1[3] = {y * p[2] - z * p[1], z * p[0] - x * p[2], x * p[1] - y * p[0]};
    const double c2[3] = {y * c1[2] - z * c1[1], z * c1[0] - x * c1[2], x * c1[1] - y * c1[0]};
    return {p[0] + 2 * (w * c1[0] + c2[0]), p[1] + 2 * (w * c1[1] + c2[1]), p[2] + 2 * (w * c1[2] + c2[2])};
}

TEST(IqeRead, PaAppliesXThenYThenZ) {
    const double rx = 0.3, ry = -0.7, rz = 1.1;
    auto d = ok("joint a\npa 0 0 0 0.3 -0.7 1.1 2 2 2\n");
    const Transform& t = d.scene.skeleton.joints[0].bind;
    EXPECT_LE(t.rotate[3], 0.0f);
    EXPECT_EQ(t.scale, (Vec3{2, 2, 2}));
    // Independent: matrices Rx, then Ry, then Rz applied to p.
    const std::array<double, 3> p{0.2, -1.3, 0.7};
    std::array<double, 3> a{p[0], std::cos(rx) * p[1] - std::sin(rx) * p[2], std::sin(rx) * p[1] + std::cos(rx) * p[2]};
    std::array<double, 3> b{std::cos(ry) * a[0] + std::sin(ry) * a[2], a[1], -std::sin(ry) * a[0] + std::cos(ry) * a[2]};
    std::array<double, 3> c{std::cos(rz) * b[0] - std::sin(rz) * b[1], std::sin(rz) * b[0] + std::cos(rz) * b[1], b[2]};
    auto r = rotate(t.rotate, p);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(r[k], c[k], 1e-6);
}

TEST(IqeRead, JointsParentsAndMissingBindPose) {
    auto d = ok("joint \"root bone\"\njoint b 0\njoint c -5\npq 1 0 0 0 0 0 1\n");
    const auto& j = d.scene.skeleton.joints;
    ASSERT_EQ(j.size(), 3u);
    EXPECT_EQ(j[0].name, "root bone");
    EXPECT_EQ(j[1].parent, 0);
    EXPECT_EQ(j[2].parent, -1);
    EXPECT_EQ(j[1].bind.rotate, (Quat{0, 0, 0, 1}));  // no pose: identity
    EXPECT_TRUE(d.scene.warnings.has(WarningCode::SeveralRoots));
}

TEST(IqeRead, AnimationsFramesAndKeys) {
    auto d = ok("joint a\njoint b 0\npq 0 0 0 0 0 0 1\npq 1 0 0 0 0 0 1\n"
                "animation \"Take 001\"\nframerate 30.1\nloop\nframe 0\npq 0 0 0 0 0 0 1\npq 1 0 0 0 0 0 1\n"
                "frame 1\npq 0 0 -0 0 0 0 1\npq 2 0 0 0 0 0 1\nframe 2\npq 0 0 0 0 0 0 1\n"
                "animation\nframe\npq 0 0 0 0 0 0 1\npq 0 0 0 0 0 0 1\n");
    ASSERT_EQ(d.scene.animations.size(), 2u);
    const Animation& a = d.scene.animations[0];
    EXPECT_EQ(a.name, "Take 001");
    EXPECT_FLOAT_EQ(a.frame_rate, 30.1f);
    EXPECT_TRUE(a.loop);
    EXPECT_EQ(a.frame_count, 3u);
    ASSERT_EQ(a.tracks.size(), 6u);
    const JointTrack& bt = a.tracks[3];  // joint b translation: 1, 2, padded with the bind pose (1)
    EXPECT_EQ(bt.joint, 1u);
    ASSERT_EQ(bt.times.size(), 3u);
    EXPECT_EQ(bt.times[1], 1.0f / 30.1f);
    EXPECT_EQ(bt.values[3], 2.0f);
    EXPECT_EQ(bt.values[6], 1.0f);
    // Joint a translation: 0, -0, 0 differ in sign bits only (equal as floats): one key.
    EXPECT_EQ(a.tracks[0].times.size(), 1u);
    EXPECT_EQ(d.scene.animations[1].name, "");
    EXPECT_EQ(d.scene.animations[1].frame_rate, 0.0f);
    EXPECT_TRUE(d.scene.warnings.has(WarningCode::ZeroFrameRate));
}

TEST(IqeRead, NegativeZeroLiteral) {
    auto d = ok("vp -0 0 -0\nvp 1 0 0\nvp 0 1 0\nfa 0 1 2\n");
    EXPECT_TRUE(std::signbit(d.scene.meshes[0].positions[0][0]));
    EXPECT_TRUE(std::signbit(d.scene.meshes[0].positions[0][2]));
}

TEST(IqeRead, CommentIsVerbatimAndStopsParsing) {
    auto d = ok(tri + "comment ignored here\nline one\n  vp 9 9 9\n\"quoted\"");
    EXPECT_EQ(d.scene.meta.comment, "line one\n  vp 9 9 9\n\"quoted\"");
    EXPECT_EQ(d.scene.meshes[0].vertex_count(), 3u);
}

TEST(IqeRead, VertexarrayEveryComponentType) {
    const char* comps[] = {"byte", "ubyte", "short", "ushort", "int", "uint", "half", "float", "double"};
    for (uint32_t i = 0; i < 9; ++i) {
        auto d = ok(std::string("vertexarray TexCoord ") + comps[i] + " 3\n");
        ASSERT_EQ(d.scene.meta.attribute_formats.size(), 1u);
        EXPECT_EQ(d.scene.meta.attribute_formats[0].attribute, Attribute::Texcoord);
        EXPECT_EQ(uint32_t(d.scene.meta.attribute_formats[0].type), i) << comps[i];
        EXPECT_EQ(d.scene.meta.attribute_formats[0].size, 3u);
    }
    auto d = ok("vertexarray color ubyte 7\nvertexarray sparkle float 2\n");
    EXPECT_EQ(d.scene.meta.attribute_formats.at(0).size, 4u);  // clamped, with a warning
    EXPECT_TRUE(d.scene.warnings.has(WarningCode::ValueClamped));
    EXPECT_TRUE(d.scene.warnings.has(WarningCode::Ignored));  // the unknown type
}

TEST(IqeRead, CustomArrays) {
    auto d = ok("vertexarray custom3 ubyte 2 \"bone ids\"\n"
                "vp 0 0 0\nv3 1 2\nv0 0.5\nvp 1 0 0\nv3 3 4\nv0 1 2 3 4\nvp 0 1 0\nv3 255 0\nv0 0 0 0 1.5\nfa 0 1 2\n");
    const Mesh& m = d.scene.meshes[0];
    ASSERT_EQ(m.custom.size(), 2u);
    EXPECT_EQ(m.custom[0].name, "custom0");
    EXPECT_EQ(m.custom[0].type, ComponentType::Float32);
    EXPECT_EQ(m.custom[0].size, 4u);
    EXPECT_EQ(m.custom[0].values, (std::vector<double>{0.5, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 1.5}));
    EXPECT_EQ(m.custom[1].name, "bone ids");
    EXPECT_EQ(m.custom[1].type, ComponentType::UInt8);
    EXPECT_EQ(m.custom[1].values, (std::vector<double>{1, 2, 3, 4, 255, 0}));
}

TEST(IqeRead, UnknownCommandsWarnOnceWithCount) {
    auto d = ok("bogus 1\nbogus 2\nbogus 3\n# a comment\n\n" + tri);
    ASSERT_TRUE(d.scene.warnings.has(WarningCode::UnknownCommand));
    for (auto& w : d.scene.warnings.items)
        if (w.code == WarningCode::UnknownCommand) {
            EXPECT_EQ(w.count, 3u);
        }
}

TEST(IqeRead, LimitsBoundAllocations) {
    std::string text = "# Inter-Quake Export\n" + tri + tri;
    LoadOptions o;
    o.max_elements = 4;
    auto r = iqe::parse(bytes_of(text), o);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::LimitExceeded);
    EXPECT_EQ(r.error().line, 6u);
}

struct Bad {
    const char* name;
    std::string body;
    uint32_t line, column;
    const char* words;
};
void PrintTo(const Bad& b, std::ostream* os) { *os << b.name; }

class IqeReadRejects : public ::testing::TestWithParam<Bad> {};

TEST_P(IqeReadRejects, WithLineColumnAndReason) {
    auto r = parse(GetParam().body);
    ASSERT_FALSE(r) << GetParam().name;
    EXPECT_EQ(r.error().line, GetParam().line) << r.error().to_string();
    EXPECT_EQ(r.error().column, GetParam().column) << r.error().to_string();
    EXPECT_NE(r.error().message.find(GetParam().words), std::string::npos) << r.error().message;
}

const std::string quad = "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvp 1 1 0\n";  // lines 2..5

INSTANTIATE_TEST_SUITE_P(
    Malformed, IqeReadRejects,
    ::testing::Values(
        Bad{"fa 99999", quad + "fa 0 1 99999\n", 6, 8, "fa index 99999 is beyond the 4 vertices of the file"},
        Bad{"fm beyond", "mesh a\n" + quad + "fm 0 1 4\n", 7, 8, "beyond the 4 vertices"},
        Bad{"fa negative", quad + "fa 0 -5 1\n", 6, 6, "before the first vertex"},
        Bad{"fa not a number", quad + "fa 0 1 x2\n", 6, 8, "'x2' is not a number"},
        Bad{"bad parent", "joint a\njoint b 3\n", 3, 9, "parent 3 is not an earlier joint"},
        Bad{"self parent", "joint a\njoint b 1\n", 3, 9, "not an earlier joint"},
        Bad{"vertexarray comp", "vertexarray position flaot 3\n", 2, 22, "unknown component type 'flaot'"},
        Bad{"vertexarray no comp", "vertexarray normal\n", 2, 19, "component type is missing"},
        Bad{"truncated name", "mesh \"abc\n", 2, 6, "no closing quote"},
        Bad{"truncated number", "vp 1 2 3e\n", 2, 8, "'3e' is not a number"},
        Bad{"huge number", "vp 1 1e999 0\n", 2, 6, "out of range"},
        Bad{"beyond float", "pq 1e39 0 0 0 0 0\n", 2, 4, "out of range"},
        Bad{"nan", "vn nan 0 0\n", 2, 4, "not a number"},
        Bad{"inf", "vt inf 0\n", 2, 4, "out of range"},
        Bad{"vb joint range", "joint a\n" + quad + "vb 0 0.5 1 0.5\nfa 0 1 2\n", 7, 10, "vb: joint 1 is beyond the 1 joints"},
        Bad{"vb without joints", quad + "vb 0 1\n", 6, 4, "beyond the 0 joints"},
        Bad{"zero quaternion", "joint a\npq 0 0 0 0 0 0 0\n", 3, 1, "zero length"},
        Bad{"singular pm", "joint a\npm 0 0 0 1 0 0 0 1 0 0 0 0\n", 3, 1, "singular"},
        Bad{"custom out of range", "vertexarray custom0 ubyte 1\nvp 0 0 0\nv0 256\n", 4, 4, "outside the range of"}),
    [](const auto& info) {
        std::string n = info.param.name;
        for (auto& c : n)
            if (!isalnum(static_cast<unsigned char>(c))) c = '_';
        return n;
    });

}  // namespace
}  // namespace rigport::test
