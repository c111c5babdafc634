// The FBX writer read back by rigport's own FBX reader (docs/fbx.md "Writing FBX"): a skinned,
// animated, blend-shaped scene comes back the same within the tolerances of fbx_write_checks.hpp,
// in every version and encoding the writer offers, and the bytes are the same on every run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "fbx_write_checks.hpp"
#include "formats/fbx/fbx_document.hpp"
#include "rigport/formats.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

using namespace rigport;
using namespace rigport::test;

namespace {

std::vector<uint8_t> write_fbx(const Scene& scene, uint32_t version = 7400, bool ascii = false) {
    SaveOptions o;
    o.fbx.version = version;
    o.fbx.ascii = ascii;
    auto bytes = save_bytes(scene, "out.fbx", o);
    EXPECT_TRUE(bytes) << bytes.error().to_string();
    return bytes ? *bytes : std::vector<uint8_t>{};
}

Scene read_fbx(const std::vector<uint8_t>& bytes) {
    auto scene = load_bytes(bytes, "out.fbx");
    EXPECT_TRUE(scene) << scene.error().to_string();
    return scene ? std::move(*scene) : Scene{};
}

}  // namespace

TEST(FbxWrite, RegistryRowWritesFbx) {
    const FormatInfo* f = find_format("fbx");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->write, nullptr);
    EXPECT_EQ(find_format_by_extension("x.fbx"), f);
}

// Binary 7.4: the magic, version and the FBX SDK's footer; arrays above 128 bytes deflated.
TEST(FbxWrite, BinaryHeaderFooterAndDeflatedArrays) {
    const auto bytes = write_fbx(fbx_write_scene());
    ASSERT_GT(bytes.size(), 200u);
    EXPECT_EQ(std::memcmp(bytes.data(), "Kaydara FBX Binary  \0\x1a\0", 23), 0);
    EXPECT_EQ(bytes[23] | bytes[24] << 8, 7400);
    static const uint8_t magic[16] = {0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e, 0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b};
    EXPECT_EQ(std::memcmp(bytes.data() + bytes.size() - 16, magic, 16), 0);
    auto doc = fbx::parse_binary(bytes, {});
    ASSERT_TRUE(doc) << doc.error().to_string();
    const fbx::Node* objects = doc->root.child("Objects");
    ASSERT_NE(objects, nullptr);
    const fbx::Node* geometry = objects->child("Geometry");
    ASSERT_NE(geometry, nullptr);
    const fbx::Node* vertices = geometry->child("Vertices");
    ASSERT_NE(vertices, nullptr);
    EXPECT_EQ(vertices->properties[0].type, 'd');
    // The vertex array (about 250 x 3 doubles) is stored deflated: the file is smaller than it.
    EXPECT_GT(vertices->properties[0].count * 8, 4000u);
}

TEST(FbxWrite, SkinnedAnimatedSceneReadsBackTheSame) {
    const Scene source = fbx_write_scene();
    const Scene back = read_fbx(write_fbx(source));
    expect_fbx_round_trip(as_fbx_axes(source), back);
}

TEST(FbxWrite, AsciiAnd64BitVersionsReadBackTheSame) {
    const Scene source = fbx_write_scene();
    const Scene expected = as_fbx_axes(source);
    for (auto [version, ascii] : {std::pair{7400u, true}, {7500u, false}, {7700u, false}, {7700u, true}}) {
        SCOPED_TRACE(std::to_string(version) + (ascii ? " ascii" : " binary"));
        const auto bytes = write_fbx(source, version, ascii);
        const Scene back = read_fbx(bytes);
        EXPECT_EQ(back.meta.source_version, version);
        expect_fbx_round_trip(expected, back);
    }
}

TEST(FbxWrite, RefusesOtherVersions) {
    SaveOptions o;
    o.fbx.version = 7300;
    auto bytes = save_bytes(fbx_write_scene(), "out.fbx", o);
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.error().code, ErrorCode::InvalidArgument);
}

// A key time that cannot be a 64-bit FBX tick count (here 1e9 s: 4.6e19 ticks) is refused before
// anything is written, instead of a file whose curve a reader refuses (found by fuzz_roundtrip).
TEST(FbxWrite, KeyTimesBeyondTicksAreRefused) {
    Scene s = fbx_write_scene();
    ASSERT_FALSE(s.animations.empty());
    ASSERT_FALSE(s.animations[0].tracks.empty());
    s.animations[0].tracks[0].times.back() = 1e9f;
    auto bytes = save_bytes(s, "out.fbx", SaveOptions{});
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.error().code, ErrorCode::Unsupported);
    EXPECT_NE(bytes.error().message.find("FBX ticks"), std::string::npos) << bytes.error().message;
}

// The same scene gives the same bytes (ids from the scene's order, a fixed creation time).
TEST(FbxWrite, SameSceneSameBytes) {
    const Scene s = fbx_write_scene();
    EXPECT_EQ(write_fbx(s), write_fbx(s));
    EXPECT_EQ(write_fbx(s, 7400, true), write_fbx(s, 7400, true));
}

// A scene in centimetres says so (UnitScaleFactor 1), and reads back at that unit.
TEST(FbxWrite, UnitScaleFactorIsTheScenesUnit) {
    Scene s = fbx_write_scene();
    s.meta.unit_scale = 0.01f;
    const Scene back = read_fbx(write_fbx(s));
    EXPECT_NEAR(back.meta.unit_scale, 0.01, 1e-9);
    // --unit m scales the numbers by save_output and says metres.
    SaveOptions o;
    o.unit = "m";
    auto bytes = save_bytes(s, "out.fbx", o);
    ASSERT_TRUE(bytes);
    const Scene metres = read_fbx(*bytes);
    EXPECT_NEAR(metres.meta.unit_scale, 1.0, 1e-9);
    EXPECT_NEAR(metres.meshes[0].positions[0][1], as_fbx_axes(s).meshes[0].positions[0][1] * 0.01, 1e-7);
}

// Rotation keys that go round more than half a turn: the Euler curves never jump by 360 degrees.
TEST(FbxWrite, EulerKeysAreUnwrapped) {
    Scene s = make_sample_scene();
    s.meta.up = UpAxis::Y;
    s.animations.resize(1);
    Animation& a = s.animations[0];
    a.tracks.clear();
    JointTrack r;
    r.joint = 1;
    r.channel = Channel::Rotation;
    for (int i = 0; i <= 16; ++i) {
        const double angle = i * 0.5;  // radians about Y: past 360 degrees in 16 steps
        r.times.push_back(float(i) / 8.0f);
        r.values.insert(r.values.end(), {0.0f, float(std::sin(angle / 2)), 0.0f, float(std::cos(angle / 2))});
    }
    a.tracks.push_back(r);
    const auto bytes = write_fbx(s);
    auto doc = fbx::parse_binary(bytes, {});
    ASSERT_TRUE(doc);
    size_t curves = 0, bind_curves = 0;  // the rotation's, and the joint's translation and scale at the bind pose
    for (const fbx::Node& n : doc->root.child("Objects")->children) {
        if (n.name != "AnimationCurve") continue;
        std::vector<double> v;
        ASSERT_TRUE(n.child("KeyValueFloat")->numbers_of(v));
        for (size_t i = 1; i < v.size(); ++i) EXPECT_LT(std::fabs(v[i] - v[i - 1]), 30.0) << "key " << i;
        ++(v.size() == 1 ? bind_curves : curves);
    }
    EXPECT_EQ(curves, 3u);
    EXPECT_EQ(bind_curves, 6u);
    expect_fbx_round_trip(as_fbx_axes(s), read_fbx(bytes));
}

// A joint some clip moves is keyed in every clip, at the bind pose where that clip leaves it (a
// reader keeping one transform per joint across stacks, as Blender's, poses it as rigport then):
// every AnimationLayer of the sample ("wave", "pulse" scaling one joint, "smile" moving none) has
// a curve node on each of the moved joints' Lcl Translation, Rotation and Scaling.
TEST(FbxWrite, EveryClipKeysEveryMovedJoint) {
    const Scene source = as_fbx_axes(fbx_write_scene());
    const auto bytes = write_fbx(source);  // the parsed document points into them
    auto doc = fbx::parse_binary(bytes, {});
    ASSERT_TRUE(doc);
    std::map<int64_t, std::string> models;  // id -> name
    std::set<int64_t> layers;
    for (const fbx::Node& n : doc->root.child("Objects")->children) {
        if (n.name == "Model") models[n.properties[0].integer] = std::string(n.properties[1].text.substr(0, n.properties[1].text.find('\0')));
        if (n.name == "AnimationLayer") layers.insert(n.properties[0].integer);
    }
    std::map<int64_t, int64_t> node_layer;
    std::map<int64_t, std::pair<std::string, std::string>> node_target;  // curve node -> (model name, property)
    for (const fbx::Node& c : doc->root.child("Connections")->children) {
        const int64_t child = c.properties[1].integer, parent = c.properties[2].integer;
        if (c.properties[0].text == "OO" && layers.count(parent)) node_layer[child] = parent;
        if (c.properties[0].text == "OP" && models.count(parent)) node_target[child] = {models[parent], std::string(c.properties[3].text)};
    }
    std::map<int64_t, std::set<std::pair<std::string, std::string>>> keyed;  // layer -> (joint, property)
    for (auto& [node, layer] : node_layer)
        if (node_target.count(node)) keyed[layer].insert(node_target[node]);
    std::set<std::string> moved;
    for (const Animation& a : source.animations)
        for (const JointTrack& t : a.tracks) moved.insert(source.skeleton.joints[t.joint].name);
    ASSERT_FALSE(moved.empty());
    ASSERT_EQ(layers.size(), source.animations.size());
    for (int64_t layer : layers)
        for (const std::string& joint : moved)
            for (const char* property : {"Lcl Translation", "Lcl Rotation", "Lcl Scaling"})
                EXPECT_TRUE(keyed[layer].count({joint, property})) << joint << " " << property << " in layer " << layer;
    // And the round trip still poses as the source.
    expect_fbx_round_trip(source, read_fbx(bytes));
}

// The CLI: --fbx-ascii writes text, --fbx-version is checked before any input is read (exit 1).
TEST(FbxWrite, CliOptions) {
    const auto dir = files_dir();
    ASSERT_TRUE(save(make_sample_scene(), (dir / "in.iqm").string()));
    const auto bad = run_cli({"convert", (dir / "in.iqm").string(), "-o", (dir / "bad.fbx").string(), "--fbx-version", "7300"});
    EXPECT_EQ(bad.exit_code, 1) << bad.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad.fbx"));
    const auto ascii = run_cli({"convert", (dir / "in.iqm").string(), "-o", (dir / "a.fbx").string(), "--fbx-ascii", "-q"});
    ASSERT_EQ(ascii.exit_code, 0) << ascii.err;
    const auto text = read_bytes(dir / "a.fbx");
    EXPECT_EQ(std::string(text.begin(), text.begin() + 22), "; FBX 7.4.0 project fi");
    const auto wide = run_cli({"convert", (dir / "in.iqm").string(), "-o", (dir / "w.fbx").string(), "--fbx-version", "7700", "-q"});
    ASSERT_EQ(wide.exit_code, 0) << wide.err;
    const auto bytes = read_bytes(dir / "w.fbx");
    ASSERT_GT(bytes.size(), 27u);
    EXPECT_EQ(bytes[23] | bytes[24] << 8, 7700);
}

namespace {

// The first Objects child named `type` whose name (before FBX's "\0\1Class") is `name`, or null.
const fbx::Node* object_named(const fbx::Document& doc, const char* type, const std::string& name) {
    for (const fbx::Node& n : doc.root.child("Objects")->children)
        if (n.name == type && n.properties.size() > 1 && n.properties[1].text.substr(0, n.properties[1].text.find('\0')) == name) return &n;
    return nullptr;
}

// A Properties70 entry's numbers (P: name, type, label, flags, values...), or empty.
std::vector<double> property_values(const fbx::Node& model, const std::string& name) {
    std::vector<double> v;
    if (const fbx::Node* p = model.child("Properties70"))
        for (const fbx::Node& e : p->children)
            if (!e.properties.empty() && e.properties[0].text == name)
                for (size_t i = 4; i < e.properties.size(); ++i) v.push_back(e.properties[i].number);
    return v;
}

}  // namespace

// A joint's rest orientation is its PreRotation (Maya's joint orient) and its Lcl Rotation zero at
// rest; FbxOptions::pre_rotation = false keeps it in Lcl Rotation. Both read back as the source
// (fbx_write_checks.hpp tolerances); the peers (ufbx, assimp, three.js, Blender) read the default.
TEST(FbxWrite, RestOrientationsArePreRotations) {
    const Scene source = as_fbx_axes(fbx_write_scene());
    SaveOptions plain;
    plain.fbx.pre_rotation = false;
    for (const bool pre : {true, false}) {
        SCOPED_TRACE(pre ? "PreRotation" : "Lcl Rotation");
        auto bytes = pre ? write_fbx(source) : *save_bytes(source, "out.fbx", plain);
        auto doc = fbx::parse_binary(bytes, {});
        ASSERT_TRUE(doc);
        size_t turned = 0;
        for (const Joint& j : source.skeleton.joints) {
            const fbx::Node* model = object_named(*doc, "Model", j.name);
            ASSERT_NE(model, nullptr) << j.name;
            const bool rest_turned = std::fabs(std::fabs(j.bind.rotate[3]) - 1.0f) > 1e-6f;
            turned += rest_turned;
            const auto pre_rotation = property_values(*model, "PreRotation"), lcl = property_values(*model, "Lcl Rotation");
            ASSERT_EQ(lcl.size(), 3u);
            if (pre && rest_turned) {
                EXPECT_EQ(pre_rotation.size(), 3u) << j.name;
                for (double a : lcl) EXPECT_NEAR(a, 0.0, 1e-9) << j.name;
            } else {
                EXPECT_TRUE(pre_rotation.empty()) << j.name;
            }
        }
        EXPECT_GT(turned, 0u);
        expect_fbx_round_trip(source, read_fbx(bytes));
    }
}

// --timestamp: the header's CreationTimeStamp from SOURCE_DATE_EPOCH (or the clock); the top-level
// CreationTime, FileId and footer stay the fixed ones the FBX SDK checks together. Without it
// the stamp is 1970-01-01 10:00 whatever the environment.
TEST(FbxWrite, TimestampFromSourceDateEpoch) {
    const Scene source = make_sample_scene();
    ::setenv("SOURCE_DATE_EPOCH", "1700000000", 1);  // 2023-11-14 22:13:20 UTC
    SaveOptions o;
    o.fbx.timestamp = true;
    auto stamped = save_bytes(source, "out.fbx", o);
    auto fixed = save_bytes(source, "out.fbx");
    ::unsetenv("SOURCE_DATE_EPOCH");
    ASSERT_TRUE(stamped && fixed);
    auto stamp_of = [](const std::vector<uint8_t>& bytes) {
        auto doc = fbx::parse_binary(bytes, {});
        std::vector<int64_t> v;
        if (!doc) return v;
        const fbx::Node* s = doc->root.child("FBXHeaderExtension")->child("CreationTimeStamp");
        for (const char* f : {"Year", "Month", "Day", "Hour", "Minute", "Second", "Millisecond"}) v.push_back(s->child(f)->properties[0].integer);
        EXPECT_EQ(doc->root.child("CreationTime")->properties[0].text, "1970-01-01 10:00:00:000");
        return v;
    };
    EXPECT_EQ(stamp_of(*stamped), (std::vector<int64_t>{2023, 11, 14, 22, 13, 20, 0}));
    EXPECT_EQ(stamp_of(*fixed), (std::vector<int64_t>{1970, 1, 1, 10, 0, 0, 0}));
    ASSERT_EQ(stamped->size(), fixed->size());
    EXPECT_TRUE(std::equal(stamped->end() - 160, stamped->end(), fixed->end() - 160));  // the footer
    // The clock: this year or later.
    auto now = save_bytes(source, "out.fbx", o);
    ASSERT_TRUE(now);
    EXPECT_GE(stamp_of(*now)[0], 2026);
}

// --images embed: each Video holds its texture's bytes (Content), from the file beside the model
// or from the image a .glb holds, and no image file is written beside the output; rigport's
// reader gets the same bytes back. Without it the texture is named only and a held image goes
// beside the output.
TEST(FbxWrite, ImagesEmbedPutsTheTexturesInTheFile) {
    const auto in = files_dir(), out = in / "out";
    std::filesystem::create_directories(out);
    ASSERT_TRUE(save(make_sample_scene(), (in / "in.iqm").string()));
    const auto texture = make_sample_texture();
    write_bytes(in / "sample_texture.png", texture);
    const auto glb = run_cli({"convert", (in / "in.iqm").string(), "-o", (in / "held.glb").string(), "-q"});  // the .glb holds the texture
    ASSERT_EQ(glb.exit_code, 0) << glb.err;
    for (const char* input : {"in.iqm", "held.glb"}) {
        SCOPED_TRACE(input);
        std::filesystem::remove_all(out);
        std::filesystem::create_directories(out);
        const auto r = run_cli({"convert", (in / input).string(), "-o", (out / "x.fbx").string(), "--images", "embed", "-q"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        size_t files = 0;
        for (auto& e : std::filesystem::directory_iterator(out)) files += e.is_regular_file();
        EXPECT_EQ(files, 1u) << "only x.fbx";
        auto back = load((out / "x.fbx").string());
        ASSERT_TRUE(back) << back.error().to_string();
        ASSERT_EQ(back->images.size(), 1u);
        EXPECT_EQ(back->images[0].bytes, texture);
        ASSERT_FALSE(back->materials.empty());
        ASSERT_FALSE(back->materials[0].maps.empty());
        EXPECT_EQ(back->materials[0].maps[0].image, 0);
    }
    // Named only, by default.
    std::filesystem::remove_all(out);
    std::filesystem::create_directories(out);
    const auto r = run_cli({"convert", (in / "in.iqm").string(), "-o", (out / "x.fbx").string(), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto back = load((out / "x.fbx").string());
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_TRUE(back->images.empty());
}
