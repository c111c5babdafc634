// Quake 3 MD3 reader (docs/md3.md): the corpus's watercan against its stored bounds, the Khronos
// validator and assimp; the normal code as Quake 3 decodes it; frames grouped into animations;
// malformed files refused with errors at byte offsets.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "assimp_oracle.hpp"
#include "convert_checks.hpp"
#include "formats/md3/md3.hpp"
#include "gltf_oracle.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

fs::path watercan() { return corpus_dir() / "md3" / "assimp_assimp__watercan.md3"; }

uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) { uint32_t v; std::memcpy(&v, b.data() + at, 4); return v; }
float f32_at(const std::vector<uint8_t>& b, size_t at) { float v; std::memcpy(&v, b.data() + at, 4); return v; }
void set_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

TEST(Md3Read, NormalCodesDecodeAsQuake3AndEncodeToTheNearest) {
    auto near = [](Vec3 a, Vec3 b) { return std::fabs(a[0] - b[0]) < 1e-6 && std::fabs(a[1] - b[1]) < 1e-6 && std::fabs(a[2] - b[2]) < 1e-6; };
    EXPECT_TRUE(near(md3::decode_normal(0), {0, 0, 1}));
    EXPECT_TRUE(near(md3::decode_normal(128), {0, 0, -1}));            // low byte: a half turn from +Z
    EXPECT_TRUE(near(md3::decode_normal(0x0040), {1, 0, 0}));          // a quarter turn down, none around
    EXPECT_TRUE(near(md3::decode_normal(0x4040), {0, 1, 0}));          // high byte: a quarter turn about Z
    EXPECT_TRUE(near(md3::decode_normal(0x8040), {-1, 0, 0}));
    EXPECT_EQ(md3::encode_normal({0, 0, 1}), 0);
    EXPECT_EQ(md3::encode_normal({0, 0, -2}), 128);
    EXPECT_EQ(md3::encode_normal({0, 3, 0}), 0x4040);
    // Any direction comes back within half a code step on each angle: under 2 degrees.
    double worst = 0;
    for (int i = 0; i < 2000; ++i) {
        const double z = 1 - 2 * (i + 0.5) / 2000, r = std::sqrt(1 - z * z), a = i * 2.399963;
        const Vec3 n{float(r * std::cos(a)), float(r * std::sin(a)), float(z)};
        const Vec3 d = md3::decode_normal(md3::encode_normal(n));
        const double dot = double(n[0]) * d[0] + double(n[1]) * d[1] + double(n[2]) * d[2];
        worst = std::max(worst, std::acos(std::min(1.0, dot)) * 180 / std::numbers::pi);
    }
    EXPECT_LT(worst, 2.0);
    std::cout << "[ note ] MD3 normal code: worst angle after encode + decode " << worst << " degrees over 2000 directions\n";
}

TEST(Md3Read, WatercanIsOneSurfaceInsideItsStoredBounds) {
    RIGPORT_REQUIRE_CORPUS();
    const auto bytes = read_bytes(watercan());
    EXPECT_TRUE(md3::detect(bytes));
    EXPECT_EQ(detect_format(bytes, "x.bin")->name, "md3");
    auto scene = load(watercan().string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(scene->meta.source_format, "md3");
    EXPECT_EQ(scene->meta.up, UpAxis::Z);
    EXPECT_EQ(scene->meta.front_face, Winding::Clockwise);
    ASSERT_EQ(scene->meshes.size(), 1u);
    const Mesh& m = scene->meshes[0];
    EXPECT_EQ(m.name, "watercan");
    EXPECT_EQ(m.vertex_count(), 92u);
    EXPECT_EQ(m.triangles.size(), 78u);
    EXPECT_TRUE(m.morph_targets.empty());  // one frame
    EXPECT_TRUE(scene->animations.empty());
    EXPECT_TRUE(scene->skeleton.joints.empty());
    ASSERT_EQ(scene->materials.size(), 1u);
    ASSERT_EQ(scene->materials[0].maps.size(), 1u);
    EXPECT_EQ(scene->materials[0].maps[0].uri, "models/mapobjects/kt_utilities/water_can.tga");
    // Frame 0's stored bounds (offset 108: min, max) are the positions' bounds.
    const uint32_t ofs_frames = u32_at(bytes, 92);
    for (int k = 0; k < 3; ++k) {
        float lo = 1e9f, hi = -1e9f;
        for (const Vec3& p : m.positions) lo = std::min(lo, p[k]), hi = std::max(hi, p[k]);
        EXPECT_NEAR(lo, f32_at(bytes, ofs_frames + 4 * k), 1.0 / 64) << k;
        EXPECT_NEAR(hi, f32_at(bytes, ofs_frames + 12 + 4 * k), 1.0 / 64) << k;
    }
    // Unit normals, and front faces clockwise: each face's counter-clockwise normal points against its corners'.
    size_t against = 0;
    for (const Triangle& t : m.triangles) {
        const Vec3 &a = m.positions[t[0]], &b = m.positions[t[1]], &c = m.positions[t[2]];
        const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const double g[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        double d = 0;
        for (uint32_t i : t)
            for (int k = 0; k < 3; ++k) d += g[k] * m.normals[i][k];
        against += d < 0;
    }
    EXPECT_EQ(against, m.triangles.size());
}

TEST(Md3Read, WatercanToGlbPassesTheKhronosValidator) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const fs::path glb = files_dir() / "watercan.glb";
    Scene converted;
    ASSERT_NO_FATAL_FAILURE(convert_and_validate({watercan().string()}, glb.string(), converted));
    EXPECT_EQ(converted.meshes.size(), 1u);
    const ValidatorReport report = validate_gltf(glb);
    ASSERT_TRUE(report.ran()) << report.error;
    EXPECT_EQ(report.errors, 0) << report.summary();
    EXPECT_EQ(report.warnings, 0) << report.summary();
}

// assimp turns Quake 3's Z up into its Y up on the root node: (x, y, z) -> (x, z, -y).
TEST(Md3Read, WatercanFirstFrameIsAssimps) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_ASSIMP();
    const fs::path obj = temp_dir() / "watercan.obj";
    ASSERT_TRUE(assimp_export_obj(watercan(), obj));
    const auto theirs = obj_vertex_positions(obj);
    ASSERT_FALSE(theirs.empty());
    auto scene = load(watercan().string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    std::vector<std::array<double, 3>> ours;
    for (const Vec3& p : scene->meshes[0].positions) ours.push_back({p[0], p[2], -p[1]});
    const double size = largest_coordinate(ours);
    EXPECT_LE(point_set_distance(ours, theirs), 1e-3 * size);
    expect_same_points_as_assimp("watercan", ours, theirs, size);
}

// A two-surface, three-frame model with one tag, written by rigport, then edited byte by byte.
std::vector<uint8_t> small_md3(const std::vector<std::string>& tags = {"tip"}) {
    Scene s;
    s.meta.up = UpAxis::Z;
    s.meta.front_face = Winding::Clockwise;
    for (int i = 0; i < 2; ++i) {
        Mesh m;
        m.name = i ? "b" : "a";
        m.material = i;
        m.positions = {{0, 0, float(i)}, {1, 0, float(i)}, {0, 1, float(i)}};
        m.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
        m.texcoords = {{{0, 0}, {1, 0}, {0, 1}}};
        m.triangles = {{0, 2, 1}};
        s.meshes.push_back(m);
        Material mat;
        mat.name = i ? "skin_b" : "skin_a";
        TextureMap map;
        map.uri = mat.name + ".tga";
        mat.maps.push_back(map);
        s.materials.push_back(mat);
    }
    Joint tip;
    tip.name = "tip";
    s.skeleton.joints.push_back(tip);
    for (auto& m : s.meshes) {
        m.skin.offsets = {0, 1, 2, 3};
        m.skin.influences = {{0, 1}, {0, 1}, {0, 1}};
    }
    Animation a;
    a.name = "go";
    a.frame_rate = 10;
    a.frame_count = 3;
    JointTrack move;
    move.times = {0, 0.1f, 0.2f};
    move.values = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    a.tracks.push_back(move);
    s.animations.push_back(a);
    SaveOptions o;
    o.md3.tags = tags;
    auto out = save_output(s, "small.md3", o);
    EXPECT_TRUE(out) << out.error().to_string();
    return out ? out->bytes : std::vector<uint8_t>();
}

TEST(Md3Read, NumberedFrameNamesGroupAndOtherNamesMakeOneAnimationNamedAfterTheModel) {
    auto bytes = small_md3();
    ASSERT_FALSE(bytes.empty());
    auto scene = load_bytes(bytes, "small.md3");
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->animations.size(), 1u);
    EXPECT_EQ(scene->animations[0].name, "go");  // frames "go1" "go2" "go3"
    EXPECT_EQ(scene->animations[0].frame_count, 3u);
    EXPECT_FLOAT_EQ(scene->animations[0].frame_rate, md3::default_frame_rate);
    ASSERT_EQ(scene->meshes.size(), 2u);
    EXPECT_EQ(scene->meshes[1].morph_targets.size(), 2u);
    EXPECT_EQ(scene->meshes[1].morph_targets[0].name, "go2");
    EXPECT_EQ(scene->materials[1].maps[0].uri, "skin_b.tga");
    // The tag: a joint with a translation and a rotation track, one key per frame.
    ASSERT_EQ(scene->skeleton.joints.size(), 1u);
    EXPECT_EQ(scene->skeleton.joints[0].name, "tip");
    ASSERT_EQ(scene->animations[0].tracks.size(), 2u);
    EXPECT_EQ(scene->animations[0].tracks[0].values, (std::vector<float>{0, 0, 0, 1, 0, 0, 2, 0, 0}));
    // Frame names "" and "(from ASE)": one animation named after the header's name ("small.md3").
    const uint32_t ofs_frames = u32_at(bytes, 92);
    for (uint32_t f = 0; f < 3; ++f) {
        std::memset(bytes.data() + ofs_frames + f * md3::frame_size + 40, 0, 16);
        if (f) std::memcpy(bytes.data() + ofs_frames + f * md3::frame_size + 40, "(from ASE)", 10);
    }
    LoadOptions o;
    o.vertex_frame_rate = 20;
    scene = load_bytes(bytes, "small.md3", o);
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->animations.size(), 1u);
    EXPECT_EQ(scene->animations[0].name, "small");
    EXPECT_EQ(scene->animations[0].frame_count, 3u);
    EXPECT_FLOAT_EQ(scene->animations[0].frame_rate, 20.0f);
}

// Each edit, the error's code and offset, and a word of its message.
TEST(Md3Read, MalformedFilesAreRefusedAtTheirByteOffsets) {
    const auto good = small_md3();
    ASSERT_FALSE(good.empty());
    ASSERT_TRUE(load_bytes(good, "x.md3"));
    const uint32_t surface = u32_at(good, 100), ofs_triangles = u32_at(good, surface + 88);
    struct Case {
        const char* what;
        size_t at;
        uint32_t value;
        ErrorCode code;
        uint64_t offset;
        const char* says;
    } cases[] = {
        {"version", 4, 14, ErrorCode::Unsupported, 4, "version 14"},
        {"no frames", 76, 0, ErrorCode::Malformed, 76, "num_frames is 0"},
        {"frames past the end", 76, 0x7fffffff, ErrorCode::LimitExceeded, 76, "num_frames"},
        {"ofs_end", 104, uint32_t(good.size() + 1), ErrorCode::Malformed, 104, "ofs_end"},
        {"tags", 80, 1000, ErrorCode::Malformed, 96, "tags"},
        {"surfaces", 84, 1000, ErrorCode::Malformed, 100, "surfaces"},
        {"surface frames", surface + 72, 2, ErrorCode::Malformed, surface + 72, "differs"},
        {"vertex count", surface + 80, 0x100000, ErrorCode::Malformed, surface + 96, "st"},
        {"triangle index", surface + ofs_triangles + 4, 3, ErrorCode::Malformed, surface + ofs_triangles + 4, "index 3 >= num_verts 3"},
        {"surface end", surface + 104, 4, ErrorCode::Malformed, surface + 104, "ofs_end 4"},
    };
    for (const Case& c : cases) {
        auto bytes = good;
        set_u32(bytes, c.at, c.value);
        LoadOptions o;
        o.format = "md3";
        o.max_frames = 4096;
        auto scene = load_bytes(bytes, "x.md3", o);
        ASSERT_FALSE(scene) << c.what;
        EXPECT_EQ(scene.error().code, c.code) << c.what << ": " << scene.error().to_string();
        EXPECT_EQ(scene.error().offset, std::optional<uint64_t>(c.offset)) << c.what << ": " << scene.error().to_string();
        EXPECT_NE(scene.error().message.find(c.says), std::string::npos) << c.what << ": " << scene.error().to_string();
    }
    // Cut anywhere, the file is refused (ofs_end names its size).
    for (size_t n = 0; n < good.size(); n += 7) {
        LoadOptions o;
        o.format = "md3";
        auto scene = load_bytes(std::span(good.data(), n), "x.md3", o);
        EXPECT_FALSE(scene) << "cut at " << n;
    }
}

}  // namespace
}  // namespace rigport::test
