// The Half-Life studio model reader on files built here (docs/hlmdl.md): the run-length animation
// values decoded to known numbers, Euler angles to quaternions as the engine turns them, and
// broken runs, cut files and hostile counts refused with the byte offset, nothing allocated.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/hlmdl/hlmdl.hpp"
#include "formats/hlmdl/hlmdl_builder.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + size_t(i)] = uint8_t(v >> (8 * i));
}
void putf(std::vector<uint8_t>& b, size_t at, float f) {
    uint32_t v;
    std::memcpy(&v, &f, 4);
    put32(b, at, v);
}
void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
    b[at] = uint8_t(v), b[at + 1] = uint8_t(v >> 8);
}

// One bone "root" (position scale 0.5, rotation z scale pi/200), one group, one sequence "walk"
// of 5 frames at 10 fps, looping. Channel 0 (position x): a run of 3 frames storing 10, 20 and a
// run of 2 frames storing -5, so x = 5, 10, 10, -2.5, -2.5. Channel 5 (rotation z): one run of 5
// frames storing 100, so z = pi/2 at every frame.
constexpr size_t bone_at = 244, group_at = 356, seq_at = 460, anim_at = 636, x_values_at = 648, z_values_at = 658, file_size = 662;

std::vector<uint8_t> tiny_model() {
    std::vector<uint8_t> b(file_size, 0);
    std::memcpy(b.data(), "IDST", 4);
    put32(b, 4, 10);
    std::memcpy(b.data() + 8, "tiny.mdl", 8);
    put32(b, 72, uint32_t(file_size));
    put32(b, 140, 1), put32(b, 144, bone_at);   // bones
    put32(b, 164, 1), put32(b, 168, seq_at);    // sequences
    put32(b, 172, 1), put32(b, 176, group_at);  // sequence groups
    std::memcpy(b.data() + bone_at, "root", 4);
    put32(b, bone_at + 32, uint32_t(-1));
    for (int c = 0; c < 6; ++c) put32(b, bone_at + 40 + 4 * size_t(c), uint32_t(-1));  // no controllers
    putf(b, bone_at + 88, 0.5f);                                                         // scale x
    putf(b, bone_at + 88 + 20, float(M_PI / 200));                                       // scale rotation z
    std::memcpy(b.data() + group_at, "default", 7);
    std::memcpy(b.data() + seq_at, "walk", 4);
    putf(b, seq_at + 32, 10.0f);   // fps
    put32(b, seq_at + 36, 1);      // looping
    put32(b, seq_at + 56, 5);      // frames
    put32(b, seq_at + 120, 1);     // blends
    put32(b, seq_at + 124, anim_at);
    put16(b, anim_at + 0, uint16_t(x_values_at - anim_at));
    put16(b, anim_at + 10, uint16_t(z_values_at - anim_at));
    b[x_values_at] = 2, b[x_values_at + 1] = 3;
    put16(b, x_values_at + 2, 10), put16(b, x_values_at + 4, 20);
    b[x_values_at + 6] = 1, b[x_values_at + 7] = 2;
    put16(b, x_values_at + 8, uint16_t(int16_t(-5)));
    b[z_values_at] = 1, b[z_values_at + 1] = 5;
    put16(b, z_values_at + 2, 100);
    return b;
}

const JointTrack* track(const Animation& a, Channel c) {
    for (auto& t : a.tracks)
        if (t.channel == c) return &t;
    return nullptr;
}

TEST(HlmdlRead, RunLengthValuesDecodeToKnownNumbers) {
    auto scene = hlmdl::read(tiny_model(), LoadOptions{});
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->skeleton.joints.size(), 1u);
    EXPECT_EQ(scene->skeleton.joints[0].name, "root");
    ASSERT_EQ(scene->animations.size(), 1u);
    const Animation& a = scene->animations[0];
    EXPECT_EQ(a.name, "walk");
    EXPECT_EQ(a.frame_count, 5u);
    EXPECT_FLOAT_EQ(a.frame_rate, 10.0f);
    EXPECT_TRUE(a.loop);
    const JointTrack* t = track(a, Channel::Translation);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->times.size(), 5u);
    const float x[5] = {5, 10, 10, -2.5f, -2.5f};
    for (size_t f = 0; f < 5; ++f) {
        EXPECT_FLOAT_EQ(t->times[f], float(f) / 10.0f);
        EXPECT_FLOAT_EQ(t->values[3 * f], x[f]) << "frame " << f;
        EXPECT_FLOAT_EQ(t->values[3 * f + 1], 0.0f);
    }
    // Rotation z = 100 * pi/200 = pi/2: the engine's AngleQuaternion gives (0, 0, sin 45°, cos 45°).
    const JointTrack* r = track(a, Channel::Rotation);
    ASSERT_NE(r, nullptr);
    ASSERT_EQ(r->times.size(), 5u);
    EXPECT_NEAR(r->values[0], 0.0f, 1e-6);
    EXPECT_NEAR(r->values[1], 0.0f, 1e-6);
    EXPECT_NEAR(r->values[2], std::sqrt(0.5f), 1e-6);
    EXPECT_NEAR(r->values[3], std::sqrt(0.5f), 1e-6);
    EXPECT_EQ(scene->meta.source_format, "hlmdl");
    EXPECT_EQ(scene->meta.front_face, Winding::Clockwise);
}

TEST(HlmdlRead, DecodeAnimValuesRepeatsTheLastValueOfARun) {
    const std::vector<uint8_t> b = tiny_model();
    auto values = hlmdl::decode_anim_values(b, x_values_at, 5);
    ASSERT_TRUE(values) << values.error().to_string();
    EXPECT_EQ(*values, (std::vector<int16_t>{10, 20, 20, -5, -5}));
    // Fewer frames than the runs cover: the first ones.
    auto two = hlmdl::decode_anim_values(b, x_values_at, 2);
    ASSERT_TRUE(two);
    EXPECT_EQ(*two, (std::vector<int16_t>{10, 20}));
}

TEST(HlmdlRead, EulerAnglesTurnAsTheEngineTurnsThem) {
    // R = Rz(z) Ry(y) Rx(x): a quarter turn about x then about z takes +y to +z, then stays on +z.
    const auto q = hlmdl::angle_quaternion(M_PI / 2, 0, M_PI / 2);
    auto rotate = [&](std::array<double, 3> v) {
        const double x = q[0], y = q[1], z = q[2], w = q[3];
        const double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
        return std::array<double, 3>{v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz, v[2] + w * tz + x * ty - y * tx};
    };
    const auto y_axis = rotate({0, 1, 0});
    EXPECT_NEAR(y_axis[2], 1.0, 1e-12);
    const auto x_axis = rotate({1, 0, 0});  // Rx keeps x; Rz turns it to +y
    EXPECT_NEAR(x_axis[1], 1.0, 1e-12);
}

TEST(HlmdlRead, BrokenRunsNameTheirOffset) {
    std::vector<uint8_t> b = tiny_model();
    b[x_values_at + 1] = 0;  // a run over 0 frames: the engine would loop forever
    auto scene = hlmdl::read(b, LoadOptions{});
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().code, ErrorCode::Malformed);
    ASSERT_TRUE(scene.error().offset);
    EXPECT_EQ(*scene.error().offset, x_values_at);
    EXPECT_NE(scene.error().message.find("walk"), std::string::npos) << scene.error().message;

    b = tiny_model();
    b[z_values_at] = 200;  // 200 values stored: past the end
    scene = hlmdl::read(b, LoadOptions{});
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().offset.value_or(0), z_values_at);
}

TEST(HlmdlRead, CutFilesAndHostileCountsAreRefusedWithoutAllocating) {
    const std::vector<uint8_t> whole = tiny_model();
    for (size_t n : {size_t(0), size_t(100), size_t(243), size_t(244), size_t(500), file_size - 1}) {
        auto scene = hlmdl::read(std::span(whole).first(n), LoadOptions{});
        ASSERT_FALSE(scene) << n;
        EXPECT_TRUE(scene.error().offset) << n << ": " << scene.error().message;
    }
    struct Case {
        size_t at;
        uint32_t value;
        uint64_t offset;
    };
    for (const Case c : {Case{140, 0x7fffffffu, 140}, Case{164, 0x40000000u, 164}, Case{172, 0x7fffffffu, 172}, Case{144, 0xfffffff0u, 144},
                         Case{seq_at + 56, 0x7fffffffu, seq_at + 56}, Case{bone_at + 32, 3, bone_at + 32}, Case{seq_at + 124, 660, seq_at + 124}}) {
        std::vector<uint8_t> b = whole;
        put32(b, c.at, c.value);
        LoadOptions o;
        o.max_elements = 1u << 20;
        auto scene = hlmdl::read(b, o);
        ASSERT_FALSE(scene) << c.at;
        ASSERT_TRUE(scene.error().offset) << scene.error().message;
        EXPECT_EQ(*scene.error().offset, c.offset) << scene.error().message;
    }
    std::vector<uint8_t> b = whole;
    put32(b, 4, 44);
    auto v44 = hlmdl::read(b, LoadOptions{});
    ASSERT_FALSE(v44);
    EXPECT_EQ(v44.error().code, ErrorCode::Unsupported);
    EXPECT_FALSE(hlmdl::detect(b));
    EXPECT_TRUE(hlmdl::detect(whole));
}

TEST(HlmdlRead, DetectionPicksTheRowByMagicWhateverTheExtension) {
    const std::vector<uint8_t> b = tiny_model();
    const FormatInfo* f = detect_format(b, "model.mdl");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->name, "hlmdl");
    auto scene = load_bytes(b, "renamed.bin", LoadOptions{});
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(scene->meta.source_format, "hlmdl");
}

// The fixture's strip: triangles (0 1 2) and (2 1 3) by the strip rule, vertices moved out of
// their bones' space, texels divided by the texture's size, one influence each, the masked
// texture's index 255 transparent.
TEST(HlmdlRead, StripVerticesTexelsAndTextureOfABuiltModel) {
    auto scene = hlmdl::read(hlmdl_fixture::model(), LoadOptions{});
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->meshes.size(), 1u);
    const Mesh& m = scene->meshes[0];
    ASSERT_EQ(m.vertex_count(), 4u);
    EXPECT_EQ(m.triangles, (std::vector<Triangle>{{0, 1, 2}, {2, 1, 3}}));
    const Vec3 expected[4] = {{0, 0, 10}, {1, 0, 10}, {0, 0, 10}, {0, 1, 10}};  // child: at (1 0 10), a quarter turn about z
    const Vec2 uv[4] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    for (uint32_t v = 0; v < 4; ++v) {
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(m.positions[v][size_t(c)], expected[v][size_t(c)], 1e-6) << "vertex " << v;
        EXPECT_EQ(m.texcoords[0][v], uv[v]);
        ASSERT_EQ(m.skin.count(v), 1u);
        EXPECT_EQ(m.skin.begin(v)->joint, v < 2 ? 0u : 1u);
        EXPECT_EQ(m.skin.begin(v)->weight, 1.0f);
    }
    EXPECT_NEAR(m.normals[2][2], 1.0f, 1e-6);
    ASSERT_EQ(scene->materials.size(), 1u);
    EXPECT_EQ(scene->materials[0].name, "skin.bmp");
    ASSERT_EQ(scene->images.size(), 1u);
    EXPECT_EQ(scene->images[0].mime_type, "image/png");
    EXPECT_EQ(scene->materials[0].maps.at(0).image, 0);
    EXPECT_TRUE(scene->warnings.has(WarningCode::Interpreted));  // masked
    ASSERT_EQ(scene->animations.size(), 1u);
    const JointTrack* t = track(scene->animations[0], Channel::Translation);  // root's: z 10, 11, 12
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->times.size(), 3u);
    for (size_t f = 0; f < 3; ++f) EXPECT_NEAR(t->values[3 * f + 2], 10.0f + float(f), 1e-5);
}

// The texture file beside a model without textures, asked for by the stem of the header's name.
TEST(HlmdlRead, TexturesFromTheTextureFileNamedAfterTheModel) {
    std::vector<uint8_t> model = hlmdl_fixture::model();
    std::vector<uint8_t> textures = model;  // the same file serves as NAMEt.mdl: its textures are read
    hlmdl_fixture::set32(model, 180, 0);
    std::vector<std::string> asked;
    std::string present = "fixtureT.mdl";
    LoadOptions o;
    o.read_resource = [&](const std::string& uri) -> Expected<std::vector<uint8_t>> {
        asked.push_back(uri);
        if (uri == present) return textures;
        return make_error(ErrorCode::NotFound, "no such file");
    };
    auto scene = hlmdl::read(model, o);
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(asked, std::vector<std::string>{"fixtureT.mdl"});
    EXPECT_EQ(scene->images.size(), 1u);
    EXPECT_EQ(scene->meshes.at(0).material, 0);
    // Missing: a warning, meshes without materials or texture coordinates.
    present.clear();
    asked.clear();
    scene = hlmdl::read(model, o);
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(asked, (std::vector<std::string>{"fixtureT.mdl", "fixturet.mdl"}));
    EXPECT_TRUE(scene->warnings.has(WarningCode::TextureNotFound));
    EXPECT_EQ(scene->meshes.at(0).material, -1);
    EXPECT_TRUE(scene->meshes.at(0).texcoords.empty());
}

// Bone controllers, hit boxes and attachments are kept as the .qc lines that make them, and the
// SMD writer's .qc carries them (docs/hlmdl.md "Kept for the .qc"): one of each appended to the
// fixture, plus an attachment on a bone the model lacks (left out with a warning).
TEST(HlmdlRead, ControllersHitBoxesAndAttachmentsReachTheQc) {
    std::vector<uint8_t> b = hlmdl_fixture::model();
    const uint32_t controllers_at = uint32_t(b.size()), hitboxes_at = controllers_at + 24, attachments_at = hitboxes_at + 32;
    b.resize(attachments_at + 2 * 88, 0);
    hlmdl_fixture::set32(b, 72, uint32_t(b.size()));
    hlmdl_fixture::set32(b, 148, 1), hlmdl_fixture::set32(b, 152, controllers_at);
    hlmdl_fixture::set32(b, controllers_at, 1), hlmdl_fixture::set32(b, controllers_at + 4, 0x8 | 0x8000);  // child, XR, looping
    hlmdl_fixture::setf(b, controllers_at + 8, -30.0f), hlmdl_fixture::setf(b, controllers_at + 12, 30.5f);
    hlmdl_fixture::set32(b, controllers_at + 20, 4);  // the mouth
    hlmdl_fixture::set32(b, 156, 1), hlmdl_fixture::set32(b, 160, hitboxes_at);
    hlmdl_fixture::set32(b, hitboxes_at, 0), hlmdl_fixture::set32(b, hitboxes_at + 4, 3);  // root, group 3
    for (uint32_t k = 0; k < 6; ++k) hlmdl_fixture::setf(b, hitboxes_at + 8 + 4 * k, k < 3 ? -1.25f : 2.0f);
    hlmdl_fixture::set32(b, 212, 2), hlmdl_fixture::set32(b, 216, attachments_at);
    hlmdl_fixture::set32(b, attachments_at + 36, 1);  // child
    hlmdl_fixture::setf(b, attachments_at + 40, 10.5f), hlmdl_fixture::setf(b, attachments_at + 48, -2.0f);
    hlmdl_fixture::set32(b, attachments_at + 88 + 36, 7);  // no bone 7
    auto scene = hlmdl::read(b, LoadOptions{});
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->meta.extensions.size(), 1u);
    EXPECT_EQ(scene->meta.extensions[0].name, "studiomdl:qc");
    const std::string lines(scene->meta.extensions[0].data.begin(), scene->meta.extensions[0].data.end());
    EXPECT_EQ(lines, "$controller mouth \"child\" XR -30 30.5\n"
                     "$hbox 3 \"root\" -1.25 -1.25 -1.25 2 2 2\n"
                     "$attachment 0 \"child\" 10.5 0 -2\n");
    EXPECT_TRUE(scene->warnings.has(WarningCode::Ignored));  // the attachment on bone 7

    auto smd = save_output(*scene, "fixture.smd");
    ASSERT_TRUE(smd) << smd.error().to_string();
    const OutputFile* qc = nullptr;
    for (auto& f : smd->side_files)
        if (f.name == "fixture.qc") qc = &f;
    ASSERT_NE(qc, nullptr);
    const std::string qc_text(qc->bytes.begin(), qc->bytes.end());
    EXPECT_NE(qc_text.find("$body \"body\" \"fixture\"\n" + lines), std::string::npos) << qc_text;
    EXPECT_NE(qc_text.find("$sequence \"idle\""), std::string::npos) << qc_text;
}

// The kept lines are lengths in bones' spaces: scaling the scene (--scale, --unit) multiplies a
// hit box's corners, an attachment's offset and a translating controller's range; a rotating
// controller's range and the bone names (one with a space) stay.
TEST(HlmdlRead, KeptQcLinesScaleWithTheScene) {
    Scene scene = make_sample_scene();
    const std::string lines = "$controller 0 \"Bip01 Spine\" XR -30 30.5\n"
                              "$controller 1 \"root\" Z -2 4\n"
                              "$hbox 3 \"Bip01 Spine\" -1.25 -1.25 -1.25 2 2 2\n"
                              "$attachment 0 \"root\" 10.5 0 -2\n";
    scene.meta.extensions.push_back(PreservedExtension{"studiomdl:qc", std::vector<uint8_t>(lines.begin(), lines.end())});
    TransformOptions t;
    t.scale = 2.0f;
    apply_transform(scene, t);
    ASSERT_EQ(scene.meta.extensions.size(), 1u);
    EXPECT_EQ(std::string(scene.meta.extensions[0].data.begin(), scene.meta.extensions[0].data.end()),
              "$controller 0 \"Bip01 Spine\" XR -30 30.5\n"
              "$controller 1 \"root\" Z -4 8\n"
              "$hbox 3 \"Bip01 Spine\" -2.5 -2.5 -2.5 4 4 4\n"
              "$attachment 0 \"root\" 21 0 -4\n");
    // --unit: Quake units (an inch each, as the HL reader states them) to metres.
    scene.meta.unit_scale = 0.0254f;
    ASSERT_TRUE(convert_units(scene, 1.0));
    const std::string metres(scene.meta.extensions[0].data.begin(), scene.meta.extensions[0].data.end());
    EXPECT_NE(metres.find("$attachment 0 \"root\" 0.5334 0 -0.1016\n"), std::string::npos) << metres;
}

// A texture file (IDST without bones or body parts) and a sequence group file (IDSQ) are side
// files: read alone they are refused naming what they are, and a batch over the folder skips
// them with that reason while the model beside it reads its textures from its NAMEt.mdl.
TEST(HlmdlRead, TextureAndSequenceGroupFilesAreSideFilesNotModels) {
    std::vector<uint8_t> model = hlmdl_fixture::model();
    std::vector<uint8_t> textures = model;
    hlmdl_fixture::set32(textures, 140, 0);  // no bones
    hlmdl_fixture::set32(textures, 204, 0);  // no body parts
    hlmdl_fixture::set32(model, 180, 0);     // the model holds no textures
    std::vector<uint8_t> group(76, 0);
    std::memcpy(group.data(), "IDSQ", 4);
    hlmdl_fixture::set32(group, 4, 10);
    EXPECT_EQ(hlmdl::side_file(model), nullptr);
    ASSERT_NE(hlmdl::side_file(textures), nullptr);
    ASSERT_NE(hlmdl::side_file(group), nullptr);
    auto alone = load_bytes(textures, "heroT.mdl", LoadOptions{});
    ASSERT_FALSE(alone);
    EXPECT_EQ(alone.error().code, ErrorCode::Unsupported);
    EXPECT_NE(alone.error().message.find("texture file"), std::string::npos) << alone.error().message;
    auto group_alone = load_bytes(group, "hero01.mdl", LoadOptions{});
    ASSERT_FALSE(group_alone);
    EXPECT_NE(group_alone.error().message.find("sequence group file"), std::string::npos) << group_alone.error().message;

    const auto dir = files_dir();
    std::filesystem::create_directories(dir / "models");
    write_bytes(dir / "models" / "hero.mdl", model);
    write_bytes(dir / "models" / "heroT.mdl", textures);
    write_bytes(dir / "models" / "hero01.mdl", group);
    const RunResult r = run_cli({"batch", (dir / "models").string(), "-o", (dir / "out").string(), "--format", "glb"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir / "out" / "hero.glb"));
    EXPECT_FALSE(std::filesystem::exists(dir / "out" / "heroT.glb"));
    EXPECT_FALSE(std::filesystem::exists(dir / "out" / "hero01.glb"));
    EXPECT_NE(r.err.find("heroT.mdl: a Half-Life texture file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("hero01.mdl: a Half-Life sequence group file"), std::string::npos) << r.err;
    auto glb = load((dir / "out" / "hero.glb").string());
    ASSERT_TRUE(glb) << glb.error().to_string();
    EXPECT_EQ(glb->images.size(), 1u);  // from heroT.mdl
}

}  // namespace
}  // namespace rigport::test
