// JOE reader rules on small fixtures written here (docs/joe.md §1-§5, §9 rules 1-4): identification
// against MD2, magic 0, u16 indices, welding, missing texcoords, V convention, frames, counted warnings.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "formats/joe/joe.hpp"
#include "formats/joe/test_joe_builder.hpp"
#include "rigport/io.hpp"
#include "rigport/jpk.hpp"
#include "rigport/validate.hpp"

namespace rigport::test {
namespace {

const Warning* find_warning(const Scene& s, WarningCode code) {
    for (auto& w : s.warnings.items)
        if (w.code == code) return &w;
    return nullptr;
}

bool has_finding(const ValidationReport& r, const std::string& code) {
    for (auto& f : r.findings)
        if (f.code == code) return true;
    return false;
}

TEST(JoeRead, QuadWeldsCornersInFirstSeenOrderAndKeepsConventions) {
    auto bytes = build_joe({.frames = {quad_frame()}});
    ASSERT_EQ(bytes.size(), 16u + 2 * 18 + 12 + 12 * 4 + 12 * 1 + 8 * 4);
    EXPECT_TRUE(joe::detect(bytes));
    auto scene = load_bytes(bytes, "quad.joe");
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->meshes.size(), 1u);
    const Mesh& m = scene->meshes[0];
    // Corners (v,t,n): (0,0,0) (1,1,0) (2,2,0) | (0,0,0) (2,2,0) (3,3,0): 4 unique triples.
    ASSERT_EQ(m.vertex_count(), 4u);
    EXPECT_EQ(m.triangles[0], (Triangle{0, 1, 2}));
    EXPECT_EQ(m.triangles[1], (Triangle{0, 2, 3}));  // corner order unchanged: never re-wound
    EXPECT_EQ(m.positions[2], (Vec3{1, 1, 0}));
    EXPECT_EQ(m.normals[3], (Vec3{0, 0, 1}));
    // V is stored top-down, which is the scene's convention (glTF's): copied unchanged, exactly.
    ASSERT_EQ(m.texcoords.size(), 1u);
    EXPECT_EQ(m.texcoords[0][0], (Vec2{0, 1}));
    EXPECT_EQ(m.texcoords[0][2], (Vec2{1, 0}));
    EXPECT_EQ(scene->meta.source_format, "joe");
    EXPECT_EQ(scene->meta.source_version, 3u);
    EXPECT_EQ(scene->meta.up, UpAxis::Z);
    EXPECT_EQ(scene->meta.handedness, Handedness::Right);
    EXPECT_EQ(scene->meta.front_face, Winding::CounterClockwise);
    EXPECT_EQ(scene->meta.unit_scale, 1.0f);
    EXPECT_TRUE(scene->warnings.items.empty());
    EXPECT_TRUE(check_invariants(*scene));
}

TEST(JoeRead, SamePositionWithAnotherNormalOrTexcoordIsAnotherVertex) {
    JoeFrameSpec f = quad_frame();
    f.normals.push_back({0, 0, -1});
    f.faces[1].n = {1, 0, 0};  // corner (0, t0, n1): not the (0, t0, n0) of face 0
    f.faces[1].t = {0, 2, 1};  // corner (2, t2, n0) is shared, (3, t1, n0) is new
    auto scene = load_bytes(build_joe({.frames = {f}}), "seams.joe");
    ASSERT_TRUE(scene) << scene.error().to_string();
    const Mesh& m = scene->meshes[0];
    ASSERT_EQ(m.vertex_count(), 5u);
    EXPECT_EQ(m.triangles[1], (Triangle{3, 2, 4}));
    EXPECT_EQ(m.positions[3], m.positions[0]);
    EXPECT_EQ(m.normals[3], (Vec3{0, 0, -1}));
    EXPECT_EQ(m.texcoords[0][4], (Vec2{1, 1}));
}

TEST(JoeRead, Md2VersionEightIsRefusedNotConfused) {
    auto bytes = build_joe({.version = 8, .frames = {quad_frame()}});
    EXPECT_FALSE(joe::detect(bytes));
    auto scene = joe::read(bytes, LoadOptions{});
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().code, ErrorCode::Unsupported);
    EXPECT_EQ(scene.error().offset, 4u);
    EXPECT_NE(scene.error().message.find("MD2"), std::string::npos) << scene.error().message;
    // By content it is an MD2 (IDP2, version 8): the MD2 reader takes it and refuses these JOE-shaped
    // bytes as a broken MD2 rather than the JOE reader misreading them.
    auto by_content = load_bytes(bytes, "player.md2");
    ASSERT_FALSE(by_content);
    EXPECT_EQ(by_content.error().code, ErrorCode::Malformed) << by_content.error().to_string();
    EXPECT_TRUE(by_content.error().offset.has_value());
}

TEST(JoeRead, MagicZeroIsAcceptedOtherMagicWarns) {
    auto zero = build_joe({.magic = 0, .frames = {quad_frame()}});
    EXPECT_TRUE(joe::detect(zero));
    auto scene = load_bytes(zero, "dof2joe.bin");  // detected by content, not by name
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(scene->meta.dialect, "magic 0 (dof2joe)");
    ValidationReport report = validate_bytes(zero, "dof2joe.joe");
    EXPECT_TRUE(has_finding(report, "joe.magic_zero"));

    auto other = build_joe({.magic = 0x12345678, .frames = {quad_frame()}});
    EXPECT_FALSE(joe::detect(other));
    auto read = joe::read(other, LoadOptions{});
    ASSERT_TRUE(read);
    EXPECT_TRUE(find_warning(*read, WarningCode::Tolerated));
}

TEST(JoeRead, NoTexcoordsGetZeroAsVdriftDoes) {
    JoeFrameSpec f = quad_frame();
    f.texcoords.clear();
    for (auto& face : f.faces) face.t = {0, 0, 0};
    auto bytes = build_joe({.frames = {f}});
    EXPECT_TRUE(joe::detect(bytes));
    auto scene = load_bytes(bytes, "glass.joe");
    ASSERT_TRUE(scene) << scene.error().to_string();
    const Mesh& m = scene->meshes[0];
    ASSERT_EQ(m.texcoords.size(), 1u);
    for (auto& uv : m.texcoords[0]) EXPECT_EQ(uv, (Vec2{0, 0}));
    EXPECT_EQ(m.vertex_count(), 4u);
    ASSERT_TRUE(find_warning(*scene, WarningCode::Substituted));
    EXPECT_NE(find_warning(*scene, WarningCode::Substituted)->message.find("no texcoords"), std::string::npos);

    // A texture index other than 0 has nothing to point at: an error at that index's offset.
    f.faces[1].t = {0, 1, 0};
    auto bad = joe::read(build_joe({.frames = {f}}), LoadOptions{});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().offset, 16u + 18 + 12 + 2);  // face 1, texture index 1
}

TEST(JoeRead, IndicesAreUnsignedSixteenBit) {
    // 40,000 verts: index 39,999 is negative as a signed short but valid as VDrift reads it.
    JoeFrameSpec f;
    f.verts.resize(40000);
    for (size_t i = 0; i < f.verts.size(); ++i) f.verts[i] = {float(i), float(i % 7), 1.0f};
    f.normals = {{0, 0, 1}};
    f.texcoords = {{0, 0}};
    f.faces = {{{0, 39998, 39999}, {0, 0, 0}, {0, 0, 0}}};
    auto bytes = build_joe({.frames = {f}});
    auto scene = joe::read(bytes, LoadOptions{});
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(scene->meshes[0].positions[2], (Vec3{39999.0f, float(39999 % 7), 1.0f}));
    ValidationReport report = validate_bytes(bytes, "big.joe");
    EXPECT_TRUE(has_finding(report, "compat.signed_index"));
    EXPECT_TRUE(has_finding(report, "joe.unused"));  // 39,997 verts no face uses
}

TEST(JoeRead, OutOfRangeIndicesNameTheirOffset) {
    for (int kind = 0; kind < 3; ++kind) {
        JoeFrameSpec f = quad_frame();
        JoeFaceSpec& face = f.faces[1];
        (kind == 0 ? face.v : kind == 1 ? face.n : face.t)[2] = 9;
        auto scene = joe::read(build_joe({.frames = {f}}), LoadOptions{});
        ASSERT_FALSE(scene) << kind;
        EXPECT_EQ(scene.error().code, ErrorCode::Malformed);
        EXPECT_EQ(scene.error().offset, 16u + 18 + 6 * kind + 4) << scene.error().message;
        EXPECT_NE(scene.error().message.find("9 >="), std::string::npos) << scene.error().message;
    }
}

TEST(JoeRead, CountsThatDisagreeWithTheSizeAreErrors) {
    auto bytes = build_joe({.frames = {quad_frame()}});
    auto more_faces = bytes;
    set_u32_at(more_faces, 8, 3);
    EXPECT_FALSE(joe::detect(more_faces));
    auto r1 = joe::read(more_faces, LoadOptions{});
    ASSERT_FALSE(r1);
    EXPECT_TRUE(r1.error().offset.has_value());
    auto more_frames = bytes;
    set_u32_at(more_frames, 12, 2);
    auto r2 = joe::read(more_frames, LoadOptions{});
    ASSERT_FALSE(r2);
    EXPECT_EQ(r2.error().offset, bytes.size()) << r2.error().message;  // where frame 1 would start
    auto huge_verts = bytes;
    set_u32_at(huge_verts, 16 + 36, 0xFFFFFFFFu);
    auto r3 = joe::read(huge_verts, LoadOptions{});
    ASSERT_FALSE(r3);
    EXPECT_EQ(r3.error().code, ErrorCode::LimitExceeded);
    EXPECT_EQ(r3.error().offset, 16u + 36);
    auto trailing = bytes;
    trailing.push_back(0);
    EXPECT_FALSE(joe::detect(trailing));
    auto r4 = joe::read(trailing, LoadOptions{});
    ASSERT_FALSE(r4);
    EXPECT_EQ(r4.error().offset, bytes.size()) << r4.error().message;
    auto no_frames = bytes;
    set_u32_at(no_frames, 12, 0);
    auto r5 = joe::read(no_frames, LoadOptions{});
    ASSERT_FALSE(r5);
    EXPECT_EQ(r5.error().offset, 12u);
}

TEST(JoeRead, FramesBecomeMorphTargetsWithAFrameAnimation) {
    JoeFrameSpec f1 = quad_frame();
    for (auto& v : f1.verts) v[2] += 0.5f;  // the quad raised by 0.5
    f1.normals = {{0, 1, 0}};
    auto bytes = build_joe({.frames = {quad_frame(), f1}});
    EXPECT_TRUE(joe::detect(bytes));
    auto scene = load_bytes(bytes, "anim.joe");
    ASSERT_TRUE(scene) << scene.error().to_string();
    const Mesh& m = scene->meshes[0];
    ASSERT_EQ(m.morph_targets.size(), 1u);
    for (uint32_t v = 0; v < m.vertex_count(); ++v) {
        EXPECT_EQ(m.morph_targets[0].position_deltas[v], (Vec3{0, 0, 0.5f}));
        EXPECT_EQ(m.morph_targets[0].normal_deltas[v], (Vec3{0, 1, -1}));
    }
    ASSERT_EQ(scene->animations.size(), 1u);
    const auto& track = scene->animations[0].morph_tracks.at(0);
    EXPECT_EQ(track.times, (std::vector<float>{0.0f, 1.0f / 30.0f}));
    EXPECT_EQ(track.weights, (std::vector<float>{0.0f, 1.0f}));
    EXPECT_TRUE(check_invariants(*scene));
    // Written back: two frames, the same values.
    auto out = save_bytes(*scene, "anim.joe");
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_EQ(get_u32_at(*out, 12), 2u);
    auto back = load_bytes(*out, "anim.joe");
    ASSERT_TRUE(back);
    EXPECT_EQ(back->meshes[0].morph_targets[0].position_deltas, m.morph_targets[0].position_deltas);
    EXPECT_EQ(back->meshes[0].positions, m.positions);

    // A frame whose corners do not follow frame 0's vertices cannot be a morph target.
    JoeFrameSpec f2 = quad_frame();
    f2.faces[1].v = {1, 2, 3};  // corner 0 of face 1 now names vertex 1, not frame 0's vertex 0
    auto skipped = load_bytes(build_joe({.frames = {quad_frame(), f2}}), "topo.joe");
    ASSERT_TRUE(skipped);
    EXPECT_TRUE(skipped->meshes[0].morph_targets.empty());
    EXPECT_TRUE(find_warning(*skipped, WarningCode::DroppedData));
}

TEST(JoeRead, BadValuesAreWarningsWithCounts) {
    JoeFrameSpec f = quad_frame();
    f.verts.push_back({std::numeric_limits<float>::quiet_NaN(), 0, 0});
    f.normals.push_back({0, 0, 0});
    f.normals.push_back({0, std::numeric_limits<float>::infinity(), 0});
    // Two degenerate faces (a repeated vertex index) and one using the bad values.
    f.faces.push_back({{1, 1, 2}, {1, 1, 1}, {0, 1, 2}});
    f.faces.push_back({{3, 3, 3}, {0, 0, 0}, {0, 0, 0}});
    f.faces.push_back({{4, 0, 1}, {2, 2, 2}, {0, 0, 0}});
    auto bytes = build_joe({.frames = {f}});
    auto scene = load_bytes(bytes, "bad.joe");
    ASSERT_TRUE(scene) << scene.error().to_string();
    // Degenerate faces are kept as VDrift keeps them, without a reader warning: convert drops
    // them and says so once (test_warnings_cli.cpp), validate counts them (joe.degenerate).
    EXPECT_FALSE(find_warning(*scene, WarningCode::DegenerateTriangle));
    EXPECT_EQ(scene->meshes[0].triangles.size(), 5u);
    int invalid_normals = 0, others = 0;
    for (auto& w : scene->warnings.items) {
        if (w.code == WarningCode::InvalidNormal) invalid_normals += w.count;
        if (w.code == WarningCode::NonFiniteValue && w.message.find("non-finite coordinate") != std::string::npos) others += w.count;
    }
    EXPECT_EQ(invalid_normals, 2);  // one zero-length, one infinite
    EXPECT_EQ(others, 1);
    // Non-finite values never reach the scene.
    for (auto& p : scene->meshes[0].positions)
        for (float x : p) EXPECT_TRUE(std::isfinite(x));
    for (auto& n : scene->meshes[0].normals)
        for (float x : n) EXPECT_TRUE(std::isfinite(x));
    ValidationReport report = validate_bytes(bytes, "bad.joe");
    EXPECT_TRUE(has_finding(report, "joe.degenerate"));
    EXPECT_TRUE(has_finding(report, "joe.non_finite"));
    EXPECT_TRUE(has_finding(report, "joe.zero_normal"));
}

TEST(JoeRead, FaceLimitIsACompatibilityErrorNotAParseError) {
    JoeFrameSpec f = quad_frame();
    f.faces.resize(32001, f.faces[0]);
    auto bytes = build_joe({.frames = {f}});
    auto scene = load_bytes(bytes, "many.joe");
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(scene->meshes[0].triangles.size(), 32001u);
    ValidationReport report = validate_bytes(bytes, "many.joe");
    ASSERT_TRUE(has_finding(report, "vdrift.face_limit"));
    EXPECT_EQ(report.count(Severity::Error), 1u);
}

TEST(JoeRead, NormalSwapHeuristicAndFix) {
    // Normals in the plane of the faces: perpendicular on both faces (2 > 2/4), so VDrift swaps.
    JoeFrameSpec f = quad_frame();
    f.normals = {{0, 1, 0}};  // swapped to (x, -z, y) = (0, -0, 1): +z, which agrees with the CCW faces
    auto bytes = build_joe({.frames = {f}});
    ValidationReport report = validate_bytes(bytes, "swap.joe");
    ASSERT_TRUE(has_finding(report, "vdrift.normal_swap"));
    auto scene = load_bytes(bytes, "swap.joe");
    ASSERT_TRUE(scene);
    NormalSwapTest t = test_vdrift_normal_swap(scene->meshes[0]);
    EXPECT_EQ(t.faces, 2u);
    EXPECT_EQ(t.perpendicular, 2u);
    EXPECT_EQ(t.limit, 0u);
    EXPECT_TRUE(t.fires);
    auto tests = fix_vdrift_normals(*scene);
    ASSERT_EQ(tests.size(), 1u);
    for (auto& n : scene->meshes[0].normals) EXPECT_EQ(n, (Vec3{0, -0.0f, 1}));
    EXPECT_FALSE(test_vdrift_normal_swap(scene->meshes[0]).fires);
    // A mesh whose normals agree is left alone.
    auto good = load_bytes(build_joe({.frames = {quad_frame()}}), "good.joe");
    ASSERT_TRUE(good);
    EXPECT_FALSE(fix_vdrift_normals(*good)[0].fires);
    EXPECT_EQ(good->meshes[0].normals[0], (Vec3{0, 0, 1}));
}

}  // namespace
}  // namespace rigport::test
