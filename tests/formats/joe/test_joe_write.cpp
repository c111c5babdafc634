// JOE writer rules (docs/joe.md §9 rules 7-8; docs/joe.md): header, conventions of other sources
// converted on a copy, VDrift's limits refused unless forced, several meshes merged, materials reported.
#include <gtest/gtest.h>

#include "formats/joe/joe.hpp"
#include "formats/joe/test_joe_builder.hpp"
#include "gltf_oracle.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

Scene quad_scene(Winding winding, UpAxis up) {
    Scene s;
    s.meta.front_face = winding;
    s.meta.up = up;
    Mesh m;
    m.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    m.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    m.texcoords = {{{0, 1}, {1, 1}, {1, 0}, {0, 0}}};
    m.triangles = {{0, 1, 2}, {0, 2, 3}};
    s.meshes.push_back(m);
    return s;
}

bool has_warning(const Warnings& w, const std::string& part) {
    for (auto& i : w.items)
        if (i.message.find(part) != std::string::npos) return true;
    return false;
}

TEST(JoeWrite, HeaderAndLayout) {
    auto out = save_bytes(quad_scene(Winding::CounterClockwise, UpAxis::Z), "q.joe");
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_EQ(get_u32_at(*out, 0), 0x32504449u);  // "IDP2"
    EXPECT_EQ((*out)[0], 'I');
    EXPECT_EQ(get_u32_at(*out, 4), 3u);
    EXPECT_EQ(get_u32_at(*out, 8), 2u);   // faces
    EXPECT_EQ(get_u32_at(*out, 12), 1u);  // frames
    // Arrays deduplicated: 4 verts, 4 texcoords, 1 normal; the file is exactly the formula's size.
    EXPECT_EQ(get_u32_at(*out, 16 + 36), 4u);
    EXPECT_EQ(get_u32_at(*out, 16 + 40), 4u);
    EXPECT_EQ(get_u32_at(*out, 16 + 44), 1u);
    EXPECT_EQ(out->size(), 16u + 36 + 12 + 48 + 12 + 32);
    EXPECT_TRUE(joe::detect(*out));
    auto again = save_bytes(quad_scene(Winding::CounterClockwise, UpAxis::Z), "q.joe");
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *out);  // deterministic
}

TEST(JoeWrite, ClockwiseSourcesAreRewoundOnACopy) {
    const Scene cw = quad_scene(Winding::Clockwise, UpAxis::Z);  // IQM conventions
    auto out = save_bytes(cw, "q.joe");
    ASSERT_TRUE(out);
    auto back = load_bytes(*out, "q.joe");
    ASSERT_TRUE(back);
    EXPECT_EQ(back->meshes[0].triangles[0], (Triangle{0, 1, 2}));  // first-seen renumbering ...
    EXPECT_EQ(back->meshes[0].positions[1], (Vec3{1, 1, 0}));      // ... of corners (0, 2, 1)
    EXPECT_EQ(back->meshes[0].positions[2], (Vec3{1, 0, 0}));
    EXPECT_EQ(cw.meshes[0].triangles[0], (Triangle{0, 1, 2}));  // the input is untouched
}

TEST(JoeWrite, YUpSourcesAreTurnedZUpExactly) {
    Scene y = quad_scene(Winding::CounterClockwise, UpAxis::Y);  // glTF conventions
    y.meshes[0].positions[2] = {1, 2, 3};
    auto out = save_bytes(y, "q.joe");
    ASSERT_TRUE(out);
    auto back = load_bytes(*out, "q.joe");
    ASSERT_TRUE(back);
    EXPECT_EQ(back->meshes[0].positions[2], (Vec3{1, -3, 2}));  // (x, y, z) -> (x, -z, y)
    EXPECT_EQ(back->meshes[0].normals[0], (Vec3{0, -1, 0}));
    EXPECT_EQ(back->meshes[0].texcoords[0][2], (Vec2{1, 0}));  // V unchanged: both top-down
}

TEST(JoeWrite, VdriftLimitsAreRefusedUnlessForced) {
    Scene s = quad_scene(Winding::CounterClockwise, UpAxis::Z);
    s.meshes[0].triangles.resize(32001, Triangle{0, 1, 2});
    auto refused = save_bytes(s, "big.joe");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::Unsupported);
    EXPECT_NE(refused.error().message.find("32000"), std::string::npos) << refused.error().message;
    SaveOptions force;
    Warnings w;
    force.joe.force = true;
    force.warnings = &w;
    auto forced = save_bytes(s, "big.joe", force);
    ASSERT_TRUE(forced) << forced.error().to_string();
    EXPECT_TRUE(has_warning(w, "forced"));
    auto back = load_bytes(*forced, "big.joe");
    ASSERT_TRUE(back);
    EXPECT_EQ(back->meshes[0].triangles.size(), 32001u);

    // 40,000 distinct positions: indices above 32,767 need force; 70,000 never fit a u16.
    for (uint32_t n : {40000u, 70000u}) {
        Scene v;
        v.meta.front_face = Winding::CounterClockwise;
        v.meta.up = UpAxis::Z;
        Mesh m;
        for (uint32_t i = 0; i < n; ++i) m.positions.push_back({float(i), 0, 0});
        m.normals.assign(n, Vec3{0, 0, 1});
        m.texcoords = {std::vector<Vec2>(n, Vec2{0, 0})};
        for (uint32_t i = 0; i + 2 < n; i += 3) m.triangles.push_back({i, i + 1, i + 2});
        v.meshes.push_back(m);
        auto plain = save_bytes(v, "v.joe");
        ASSERT_FALSE(plain) << n;
        EXPECT_NE(plain.error().message.find(n > 65536 ? "u16" : "32767"), std::string::npos) << plain.error().message;
        auto f = save_bytes(v, "v.joe", force);
        EXPECT_EQ(bool(f), n <= 65536) << n;
        if (f) {
            auto b = load_bytes(*f, "v.joe");
            ASSERT_TRUE(b);
            EXPECT_EQ(b->meshes[0].positions.back(), (Vec3{float(n - 1 - n % 3), 0, 0}));
        }
    }
    // Through the CLI: refused with exit 3 and a message naming --force... then written with it.
    const auto dir = temp_dir();
    auto big = save_bytes(s, "big.iqm");
    ASSERT_TRUE(big);
    write_bytes(dir / "big.iqm", *big);
    RunResult r = run_cli({"convert", (dir / "big.iqm").string(), "-o", (dir / "big.joe").string()});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("force"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "big.joe"));
    RunResult r2 = run_cli({"convert", (dir / "big.iqm").string(), "-o", (dir / "big.joe").string(), "--force"});
    EXPECT_EQ(r2.exit_code, 0) << r2.err;
}

TEST(JoeWrite, SeveralMeshesAreMergedAndTexturesReported) {
    Scene s = make_sample_scene();  // IQM conventions, skinned, two materials or more
    ASSERT_GE(s.meshes.size(), 1u);
    Scene two = quad_scene(Winding::CounterClockwise, UpAxis::Z);
    two.meshes.push_back(two.meshes[0]);
    for (auto& p : two.meshes[1].positions) p[2] = 1;
    two.materials.push_back({.name = "body", .maps = {{TextureType::Diffuse, "textures/body00.png", ""}}});
    two.meshes[1].material = 0;
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    auto out = save_bytes(two, "two.joe", o);
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_TRUE(has_warning(w, "2 meshes merged"));
    EXPECT_TRUE(has_warning(w, "textures/body00.png"));
    auto back = load_bytes(*out, "two.joe");
    ASSERT_TRUE(back);
    ASSERT_EQ(back->meshes.size(), 1u);
    EXPECT_EQ(back->meshes[0].triangles.size(), 4u);
    EXPECT_EQ(back->meshes[0].positions[back->meshes[0].triangles[2][0]], (Vec3{0, 0, 1}));

    Warnings ws;
    SaveOptions os;
    os.warnings = &ws;
    auto sample = save_bytes(s, "sample.joe", os);
    ASSERT_TRUE(sample) << sample.error().to_string();
    EXPECT_TRUE(has_warning(ws, "skin influences not written (joe holds none)"));  // skin and skeleton dropped, said so
    EXPECT_TRUE(has_warning(ws, "joints) not written (joe holds none)"));
    auto sb = load_bytes(*sample, "sample.joe");
    ASSERT_TRUE(sb);
    EXPECT_EQ(sb->triangle_count(), s.triangle_count());
}

// Cal3D's springs and LOD collapses have no JOE form: the warning names the one the mesh has.
TEST(JoeWrite, DroppedSpringsOrLodAreNamed) {
    Scene s = quad_scene(Winding::CounterClockwise, UpAxis::Z);
    s.meshes[0].lod.resize(4);  // entries that collapse nothing are no LOD data
    s.meshes[0].springs = {{0, 1, 1, 1}};
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    ASSERT_TRUE(save_bytes(s, "cloth.joe", o));
    EXPECT_TRUE(has_warning(w, "cloth springs not written (joe holds none)"));
    EXPECT_FALSE(has_warning(w, "level-of-detail"));

    s.meshes[0].springs.clear();
    s.meshes[0].lod[1] = {0, 1};
    Warnings wl;
    o.warnings = &wl;
    ASSERT_TRUE(save_bytes(s, "lod.joe", o));
    EXPECT_TRUE(has_warning(wl, "level-of-detail data not written (joe holds none)"));
    EXPECT_FALSE(has_warning(wl, "springs"));
}

TEST(JoeWrite, MeshesWithoutNormalsGetFlatNormals) {
    Scene s = quad_scene(Winding::CounterClockwise, UpAxis::Z);
    s.meshes[0].normals.clear();
    s.meshes[0].texcoords.clear();
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    auto out = save_bytes(s, "flat.joe", o);
    ASSERT_TRUE(out);
    EXPECT_TRUE(has_warning(w, "flat face normals"));
    EXPECT_TRUE(has_warning(w, "texcoord (0,0)"));
    auto back = load_bytes(*out, "flat.joe");
    ASSERT_TRUE(back);
    for (auto& n : back->meshes[0].normals) EXPECT_EQ(n, (Vec3{0, 0, 1}));  // CCW faces seen from +z
    for (auto& uv : back->meshes[0].texcoords[0]) EXPECT_EQ(uv, (Vec2{0, 0}));

    // Merged with a mesh that has normals: those are kept, only the other mesh's are flat.
    Scene two = quad_scene(Winding::CounterClockwise, UpAxis::Z);
    for (auto& n : two.meshes[0].normals) n = {0, 0, -1};
    two.meshes.push_back(s.meshes[0]);
    auto merged = save_bytes(two, "two.joe");
    ASSERT_TRUE(merged);
    auto mb = load_bytes(*merged, "two.joe");
    ASSERT_TRUE(mb);
    const Mesh& m = mb->meshes[0];
    ASSERT_EQ(m.triangles.size(), 4u);
    for (size_t t = 0; t < 4; ++t)
        for (uint32_t v : m.triangles[t]) EXPECT_EQ(m.normals[v], (Vec3{0, 0, t < 2 ? -1.0f : 1.0f})) << t;
}

TEST(JoeWrite, FramesAsMorphTargetsPassTheKhronosValidator) {
    RIGPORT_REQUIRE_JS();
    JoeFrameSpec f1 = quad_frame();
    for (auto& v : f1.verts) v[2] += 0.25f;
    JoeFrameSpec f2 = quad_frame();
    for (auto& v : f2.verts) v[0] *= 2.0f;
    const auto dir = temp_dir();
    write_bytes(dir / "frames.joe", build_joe({.frames = {quad_frame(), f1, f2}}));
    RunResult r = run_cli({"convert", (dir / "frames.joe").string(), "-o", (dir / "frames.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ValidatorReport v = validate_gltf(dir / "frames.glb");
    ASSERT_TRUE(v.ran()) << v.error;
    EXPECT_EQ(v.errors, 0) << v.summary();
    // The glTF comes back with the two targets and the frame animation.
    auto back = load((dir / "frames.glb").string());
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->meshes.size(), 1u);
    EXPECT_EQ(back->meshes[0].morph_targets.size(), 2u);
    ASSERT_EQ(back->animations.size(), 1u);
    EXPECT_EQ(back->animations[0].morph_tracks.at(0).times.size(), 3u);
}

TEST(JoeWrite, EmptySceneIsRefused) {
    auto out = save_bytes(Scene{}, "none.joe");
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().code, ErrorCode::Unsupported);
}

}  // namespace
}  // namespace rigport::test
