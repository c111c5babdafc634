// IQM reader tests on files built by the independent test builder (iqm_builder.hpp).
#include <gtest/gtest.h>

#include <cmath>

#include "formats/iqm/iqm_builder.hpp"
#include "formats/iqm/iqm.hpp"
#include "rigport/io.hpp"

namespace rigport::test {
namespace {

// Text: "" then "quad" (1), "skin.png" (6), "root" (15), "tip" (20), "bend" (24), "extra" (29).
const std::string text = std::string("\0quad\0skin.png\0root\0tip\0bend\0extra\0\0\0", 38);

// A 4-vertex quad of 2 triangles skinned to a 2-joint chain, with an animation of 3 frames.
RawIqm quad_model(uint32_t version = 2) {
    const bool v1 = version == 1;
    RawIqm m;
    m.version = version;
    m.text = text;
    m.num_vertexes = 4;
    m.meshes = {{{1, 6, 0, 4, 0, 2}}};
    m.arrays.push_back({0, 7, 3, floats({0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0})});
    m.arrays.push_back({1, 7, 2, floats({0, 0, 1, 0, 1, 1, 0, 1})});
    m.arrays.push_back({2, 7, 3, floats({0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1})});
    m.arrays.push_back({4, 1, 4, {0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}});
    m.arrays.push_back({5, 1, 4, {255, 0, 0, 0, 128, 127, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0}});
    m.triangles = {0, 1, 2, 0, 2, 3};
    m.num_joints = 2;
    put_joint(m.joints, 15, -1, {0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}, v1);
    put_joint(m.joints, 20, 0, {1, 0, 0}, {0, 0, 0.6f, -0.8f}, {1, 1, 1}, v1);
    m.num_poses = 2;
    const uint32_t n = v1 ? 9 : 10;
    auto channels = [&](std::vector<float> v2) {
        if (!v1) return v2;
        return std::vector<float>{v2[0], v2[1], v2[2], v2[3], v2[4], v2[5], v2[7], v2[8], v2[9]};
    };
    // Pose 0 constant; pose 1 animates translate x (bit 0) and rotate z (bit 5).
    put_pose(m.poses, -1, 0, channels({0, 0, 0, 0, 0, 0, -1, 1, 1, 1}), std::vector<float>(n, 0));
    put_pose(m.poses, 0, (1u << 0) | (1u << 5), channels({1, 0, 0, 0, 0, 0.5f, -0.8f, 1, 1, 1}),
             channels({0.001f, 0, 0, 0, 0, 0.0001f, 0, 0, 0, 0}));
    m.num_anims = 1;
    put_anim(m.anims, 24, 0, 3, 24.0f, 1);
    m.num_frames = 3;
    m.num_framechannels = 2;
    m.frames = {0, 0, 1000, 2000, 65535, 1000};
    return m;
}

Expected<Scene> read(const std::vector<uint8_t>& bytes) { return iqm::read(bytes, LoadOptions{}); }

TEST(IqmRead, QuadModelV2) {
    auto scene = read(build_iqm(quad_model()));
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->meshes.size(), 1u);
    const Mesh& mesh = scene->meshes[0];
    EXPECT_EQ(mesh.name, "quad");
    ASSERT_EQ(scene->materials.size(), 1u);
    EXPECT_EQ(scene->materials[0].name, "skin.png");
    ASSERT_EQ(mesh.vertex_count(), 4u);
    EXPECT_EQ(mesh.positions[2], (Vec3{1, 1, 0}));
    EXPECT_EQ(mesh.texcoords.at(0)[1], (Vec2{1, 0}));
    EXPECT_EQ(mesh.triangles[1], (Triangle{0, 2, 3}));
    // Vertex 1: two influences 128/255 and 127/255; zero slots dropped.
    ASSERT_EQ(mesh.skin.count(1), 2u);
    EXPECT_EQ(mesh.skin.begin(1)[0].joint, 0u);
    EXPECT_FLOAT_EQ(mesh.skin.begin(1)[0].weight, 128.0f / 255.0f);
    EXPECT_EQ(mesh.skin.begin(1)[1].joint, 1u);
    EXPECT_EQ(mesh.skin.count(0), 1u);
    ASSERT_EQ(scene->skeleton.joints.size(), 2u);
    EXPECT_EQ(scene->skeleton.joints[1].name, "tip");
    EXPECT_EQ(scene->skeleton.joints[1].parent, 0);
    EXPECT_FLOAT_EQ(scene->skeleton.joints[1].bind.rotate[3], -0.8f);
    EXPECT_EQ(scene->meta.up, UpAxis::Z);
    EXPECT_EQ(scene->meta.front_face, Winding::Clockwise);
}

TEST(IqmRead, FramesDequantizedAsSpecSays) {
    auto scene = read(build_iqm(quad_model()));
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->animations.size(), 1u);
    const Animation& a = scene->animations[0];
    EXPECT_EQ(a.name, "bend");
    EXPECT_TRUE(a.loop);
    EXPECT_EQ(a.frame_count, 3u);
    EXPECT_FLOAT_EQ(a.frame_rate, 24.0f);
    const JointTrack* t = nullptr;
    const JointTrack* r = nullptr;
    for (auto& tr : a.tracks) {
        if (tr.joint == 1 && tr.channel == Channel::Translation) t = &tr;
        if (tr.joint == 1 && tr.channel == Channel::Rotation) r = &tr;
    }
    ASSERT_TRUE(t && r);
    ASSERT_EQ(t->times.size(), 3u);
    EXPECT_FLOAT_EQ(t->times[2], 2.0f / 24.0f);
    // v = offset + sample * scale, in float, per frame: frame 1 has samples (1000, 2000).
    EXPECT_EQ(t->values[3], 1.0f + 1000 * 0.001f);
    EXPECT_EQ(t->values[6], 1.0f + 65535 * 0.001f);
    EXPECT_EQ(r->values[4 + 2], 0.5f + 2000 * 0.0001f);
    EXPECT_EQ(r->values[4 + 3], -0.8f);  // w constant
    // Constant channels of pose 0 are one key holding the offset.
    for (auto& tr : a.tracks)
        if (tr.joint == 0) { EXPECT_EQ(tr.times.size(), 1u); }
}

TEST(IqmRead, Version1JointsAndPosesGetNegativeW) {
    auto scene = read(build_iqm(quad_model(1)));
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(scene->meta.source_version, 1u);
    // Joint 1 stores xyz (0,0,0.6): w = -sqrt(1 - 0.36) = -0.8.
    EXPECT_NEAR(scene->skeleton.joints[1].bind.rotate[3], -0.8f, 1e-6);
    const Animation& a = scene->animations[0];
    for (auto& tr : a.tracks) {
        if (tr.joint != 1 || tr.channel != Channel::Rotation) continue;
        for (size_t k = 0; k < tr.times.size(); ++k) {
            const float z = tr.values[4 * k + 2];
            if (k == 1) { EXPECT_EQ(z, 0.5f + 2000 * 0.0001f); }
            EXPECT_NEAR(tr.values[4 * k + 3], -std::sqrt(1 - z * z), 1e-6);
        }
    }
    // Scale (v1 channels 6-8) lands in the scale track.
    for (auto& tr : a.tracks)
        if (tr.channel == Channel::Scale) { EXPECT_EQ(tr.values[0], 1.0f); }
}

TEST(IqmRead, EveryComponentFormatOfCustomArrays) {
    RawIqm m = quad_model();
    // One custom array per format 0..8, size 1, named "extra" (text offset 29).
    const std::vector<std::vector<uint8_t>> data = {
        {0x80, 0x7F, 0xFF, 0x00},                                         // byte: -128 127 -1 0
        {0, 1, 254, 255},                                                 // ubyte
        {0x00, 0x80, 0xFF, 0x7F, 0x01, 0x00, 0xFF, 0xFF},                 // short: -32768 32767 1 -1
        {0, 0, 0xFF, 0xFF, 1, 0, 0, 1},                                   // ushort: 0 65535 1 256
        {}, {}, {0x00, 0x3C, 0x00, 0xC0, 0x00, 0x7C, 0x01, 0x00},         // half: 1 -2 inf 2^-24
        floats({0.25f, -1.5f, 3e38f, 0}), {}};
    std::vector<uint8_t> ints, uints, doubles;
    for (int32_t v : {-2147483647 - 1, 2147483647, 5, -5}) put_i32(ints, v);
    for (uint32_t v : {0u, 4294967295u, 7u, 8u}) put_u32(uints, v);
    for (double d : {0.1, -2.5, 1e300, 0.0}) {
        uint64_t u;
        std::memcpy(&u, &d, 8);
        for (int i = 0; i < 8; ++i) doubles.push_back(static_cast<uint8_t>(u >> (8 * i)));
    }
    std::vector<std::vector<uint8_t>> all = data;
    all[4] = ints, all[5] = uints, all[8] = doubles;
    for (uint32_t f = 0; f <= 8; ++f) m.arrays.push_back({16 + 29, f, 1, all[f]});
    m.align = 8;
    auto scene = read(build_iqm(m));
    ASSERT_TRUE(scene) << scene.error().to_string();
    const auto& custom = scene->meshes[0].custom;
    ASSERT_EQ(custom.size(), 9u);
    const std::vector<std::vector<double>> expected = {
        {-128, 127, -1, 0}, {0, 1, 254, 255}, {-32768, 32767, 1, -1}, {0, 65535, 1, 256},
        {-2147483648.0, 2147483647.0, 5, -5}, {0, 4294967295.0, 7, 8},
        {1, -2, INFINITY, std::ldexp(1.0, -24)}, {0.25, -1.5, double(3e38f), 0}, {0.1, -2.5, 1e300, 0}};
    for (uint32_t f = 0; f <= 8; ++f) {
        EXPECT_EQ(custom[f].name, "extra");
        EXPECT_EQ(custom[f].type, static_cast<ComponentType>(f));
        EXPECT_EQ(custom[f].values, expected[f]) << "format " << f;
    }
    EXPECT_FALSE(scene->warnings.has(WarningCode::UnalignedOffset));
}

TEST(IqmRead, IntegerStandardArraysAreNormalizedLikeTheCompiler) {
    RawIqm m = quad_model();
    // Normals as short x3: 32767 -> 1, -32768 -> -1, 16383 -> (2*16383+1)/65535.
    std::vector<uint8_t> shorts;
    for (int v : {32767, -32768, 16383, 0, 0, 32767, 0, 0, 32767, 0, 0, 32767}) put_u16(shorts, static_cast<uint16_t>(v));
    m.arrays[2] = {2, 2, 3, shorts};
    // Colours as ubyte x4.
    m.arrays.push_back({6, 1, 4, {255, 0, 51, 255, 0, 0, 0, 0, 1, 2, 3, 4, 10, 20, 30, 40}});
    auto scene = read(build_iqm(m));
    ASSERT_TRUE(scene) << scene.error().to_string();
    const Mesh& mesh = scene->meshes[0];
    EXPECT_FLOAT_EQ(mesh.normals[0][0], 1.0f);
    EXPECT_FLOAT_EQ(mesh.normals[0][1], -1.0f);
    EXPECT_FLOAT_EQ(mesh.normals[0][2], 32767.0f / 65535.0f);
    ASSERT_EQ(mesh.colors.size(), 1u);
    EXPECT_FLOAT_EQ(mesh.colors[0][0][2], 51.0f / 255.0f);
    EXPECT_TRUE(scene->warnings.has(WarningCode::NonStandardFormat));
    ASSERT_FALSE(scene->meta.attribute_formats.empty());
}

TEST(IqmRead, QuirksAreWarningsNotErrors) {
    RawIqm m = quad_model();
    m.align = 1;  // FTE-style unaligned sections
    m.text = std::string("\0quad\0skin.png\0root\0tip\0bend\0extra", 35);
    m.comment = {'{', '"', 'a', '"', ':', '1', '}'};  // EXM: no NUL ...
    auto bytes = build_iqm(m);
    set_u32(bytes, H_NUM_COMMENT, 1);                 // ... and num_comment = 1
    auto scene = read(bytes);
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_TRUE(scene->warnings.has(WarningCode::UnalignedOffset));
    EXPECT_TRUE(scene->warnings.has(WarningCode::CommentNotTerminated));
    EXPECT_EQ(scene->meta.comment, "{\"a\":1}");
}

TEST(IqmRead, SeveralRootsAndExtensionsKeptByteForByte) {
    RawIqm m = quad_model();
    m.joints.clear();
    put_joint(m.joints, 15, -1, {0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1});
    put_joint(m.joints, 20, -1, {1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1});
    m.poses.clear();
    m.num_poses = 0, m.num_anims = 0, m.anims.clear(), m.num_frames = 0, m.num_framechannels = 0, m.frames.clear();
    m.extensions.push_back({29, {1, 2, 3, 4, 5}});
    m.extensions.push_back({0, {9}});
    auto scene = read(build_iqm(m));
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_TRUE(scene->warnings.has(WarningCode::SeveralRoots));
    ASSERT_EQ(scene->meta.extensions.size(), 2u);
    EXPECT_EQ(scene->meta.extensions[0].name, "extra");
    EXPECT_EQ(scene->meta.extensions[0].data, (std::vector<uint8_t>{1, 2, 3, 4, 5}));
    EXPECT_EQ(scene->meta.extensions[1].data, (std::vector<uint8_t>{9}));
}

TEST(IqmRead, AnimationOnlyAndConstantFrames) {
    RawIqm m = quad_model();
    m.num_vertexes = 0, m.arrays.clear(), m.meshes.clear(), m.triangles.clear();
    m.num_joints = 0, m.joints.clear();
    // All channels constant: num_framechannels 0 and no frame data, though num_frames is 3.
    m.poses.clear();
    put_pose(m.poses, -1, 0, {0, 0, 0, 0, 0, 0, -1, 1, 1, 1}, std::vector<float>(10, 0));
    put_pose(m.poses, 0, 0, {1, 2, 3, 0, 0, 0, -1, 1, 1, 1}, std::vector<float>(10, 0));
    m.num_framechannels = 0, m.frames.clear();
    auto scene = read(build_iqm(m));
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_TRUE(scene->skeleton.animation_only);
    EXPECT_EQ(scene->skeleton.joints.size(), 2u);
    EXPECT_EQ(scene->skeleton.joints[1].parent, 0);
    EXPECT_TRUE(scene->warnings.has(WarningCode::AnimationOnly));
    EXPECT_TRUE(scene->warnings.has(WarningCode::FramesWithoutData));
    ASSERT_EQ(scene->animations.size(), 1u);
    EXPECT_EQ(scene->animations[0].frame_count, 3u);
    for (auto& tr : scene->animations[0].tracks)
        if (tr.joint == 1 && tr.channel == Channel::Translation) { EXPECT_EQ(tr.values, (std::vector<float>{1, 2, 3})); }
}

// Malformed input: an Error with the byte offset, never a crash.
struct Damage {
    const char* name;
    void (*apply)(std::vector<uint8_t>&);
    uint64_t offset;
    const char* words;  // a fragment the message must contain
};

void PrintTo(const Damage& d, std::ostream* os) { *os << d.name; }

class IqmReadRejects : public ::testing::TestWithParam<Damage> {};

TEST_P(IqmReadRejects, WithOffsetAndReason) {
    auto bytes = build_iqm(quad_model());
    GetParam().apply(bytes);
    auto scene = read(bytes);
    ASSERT_FALSE(scene) << GetParam().name;
    EXPECT_TRUE(scene.error().offset.has_value());
    if (GetParam().offset != UINT64_MAX) { EXPECT_EQ(scene.error().offset.value_or(0), GetParam().offset); }
    EXPECT_NE(scene.error().message.find(GetParam().words), std::string::npos) << scene.error().message;
}

std::vector<uint8_t> base() { return build_iqm(quad_model()); }
size_t joints_at() { return get_u32(base(), H_OFS_JOINTS); }
size_t tris_at() { return get_u32(base(), H_OFS_TRIANGLES); }
size_t poses_at() { return get_u32(base(), H_OFS_POSES); }

INSTANTIATE_TEST_SUITE_P(
    Damage, IqmReadRejects,
    ::testing::Values(
        Damage{"short", [](auto& b) { b.erase(b.begin() + 100, b.end()); }, 100, "shorter than"},
        Damage{"magic", [](auto& b) { b[3] = 'X'; }, 0, "magic"},
        Damage{"truncated", [](auto& b) { b.erase(b.end() - 4, b.end()); }, 20, "truncated"},
        Damage{"meshes past end", [](auto& b) { set_u32(b, H_OFS_MESHES, get_u32(b, H_FILESIZE) - 8); }, H_NUM_MESHES, "past the end"},
        Damage{"count past end", [](auto& b) { set_u32(b, H_NUM_TRIANGLES, 0x03000000u); }, H_NUM_TRIANGLES, "past the end"},
        Damage{"count beyond limit", [](auto& b) { set_u32(b, H_NUM_TRIANGLES, 0xFFFFFFFFu); }, H_NUM_TRIANGLES, "exceed the limit"},
        Damage{"frames beyond limit", [](auto& b) { set_u32(b, H_NUM_FRAMES, 0xFFFFFFF0u); }, H_NUM_FRAMES, "exceed the limit"},
        Damage{"zero offset", [](auto& b) { set_u32(b, H_OFS_JOINTS, 0); }, H_NUM_JOINTS, "offset is 0"},
        Damage{"name out of text", [](auto& b) { set_u32(b, get_u32(b, H_OFS_MESHES), 5000); }, UINT64_MAX, "outside the text"},
        Damage{"triangle index", [](auto& b) { set_u32(b, tris_at() + 4, 4); }, UINT64_MAX, "vertex 4 >= num_vertexes 4"},
        Damage{"parent later", [](auto& b) { set_u32(b, joints_at() + 4, 1); }, UINT64_MAX, "not an earlier joint"},
        Damage{"parent range", [](auto& b) { set_u32(b, joints_at() + 48 + 4, 7); }, UINT64_MAX, "out of range"},
        Damage{"NaN pose", [](auto& b) { set_u32(b, poses_at() + 8, 0x7FC00000u); }, UINT64_MAX, "NaN"},
        Damage{"NaN joint", [](auto& b) { set_u32(b, joints_at() + 8, 0x7F800000u); }, UINT64_MAX, "NaN"},
        Damage{"mask bits", [](auto& b) { set_u32(b, poses_at() + 4, 1u << 12); }, UINT64_MAX, "channel mask"},
        Damage{"channel count", [](auto& b) { set_u32(b, H_NUM_FRAMECHANNELS, 3); }, UINT64_MAX, "num_framechannels"},
        Damage{"anim range", [](auto& b) { set_u32(b, get_u32(b, H_OFS_ANIMS) + 8, 4); }, UINT64_MAX, "exceed num_frames"},
        Damage{"array format", [](auto& b) { set_u32(b, get_u32(b, H_OFS_VERTEXARRAYS) + 8, 9); }, UINT64_MAX, "format 9"},
        Damage{"array size", [](auto& b) { set_u32(b, get_u32(b, H_OFS_VERTEXARRAYS) + 12, 5); }, UINT64_MAX, "size 5"},
        Damage{"text unterminated", [](auto& b) { b[get_u32(b, H_OFS_TEXT) + get_u32(b, H_NUM_TEXT) - 1] = 'x'; }, UINT64_MAX, "NUL"},
        Damage{"blend index", [](auto& b) {
                   size_t rec = get_u32(b, H_OFS_VERTEXARRAYS) + 3 * 20;
                   b[get_u32(b, rec + 16)] = 9;
               }, UINT64_MAX, "not a joint"},
        Damage{"frames missing", [](auto& b) { set_u32(b, H_OFS_FRAMES, 0); }, 100, "ofs_frames is 0"},
        Damage{"extension loop", [](auto& b) {
                   // Append a record whose next pointer is itself.
                   uint32_t at = static_cast<uint32_t>(b.size());
                   put_u32(b, 0), put_u32(b, 0), put_u32(b, 0), put_u32(b, at);
                   set_u32(b, H_OFS_EXTENSIONS, at);
                   set_u32(b, H_NUM_EXTENSIONS, 1);
                   set_u32(b, H_FILESIZE, static_cast<uint32_t>(b.size()));
               }, UINT64_MAX, "loops"}),
    [](const auto& info) {
        std::string n = info.param.name;
        for (auto& c : n)
            if (!isalnum(static_cast<unsigned char>(c))) c = '_';
        return n;
    });

// Regression (found by the mutation test): squaring huge components in float overflowed, so the
// "normalized" quaternion became (0,0,0,0) and the writer produced a file it could not read.
TEST(IqmRead, HugeJointQuaternionNormalizesInsteadOfVanishing) {
    RawIqm m = quad_model();
    m.joints.clear();
    put_joint(m.joints, 15, -1, {0, 0, 0}, {1e30f, 1e30f, 1e30f, -1e30f}, {1, 1, 1});
    put_joint(m.joints, 20, 0, {1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1});
    auto scene = read(build_iqm(m));
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_NEAR(scene->skeleton.joints[0].bind.rotate[0], 0.5f, 1e-6f);
    EXPECT_NEAR(scene->skeleton.joints[0].bind.rotate[3], -0.5f, 1e-6f);
    EXPECT_TRUE(scene->warnings.has(WarningCode::NonUnitQuaternion));
}

TEST(IqmRead, VersionThreeIsUnsupported) {
    auto bytes = build_iqm(quad_model());
    set_u32(bytes, H_VERSION, 3);
    auto scene = read(bytes);
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().code, ErrorCode::Unsupported);
    EXPECT_EQ(scene.error().offset.value_or(0), 16u);
}

TEST(IqmRead, ErrorNamesTheFileThroughLoad) {
    auto bytes = build_iqm(quad_model());
    bytes.resize(bytes.size() - 1);
    auto scene = load_bytes(bytes, "broken.iqm");
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().path, "broken.iqm");
    EXPECT_NE(scene.error().to_string().find("broken.iqm: offset 20:"), std::string::npos) << scene.error().to_string();
}

TEST(IqmRead, DetectsByContentNotExtension) {
    auto bytes = build_iqm(quad_model());
    auto scene = load_bytes(bytes, "model.bin");
    EXPECT_TRUE(scene) << scene.error().to_string();
}

}  // namespace
}  // namespace rigport::test
