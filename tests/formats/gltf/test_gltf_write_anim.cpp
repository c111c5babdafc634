// glTF 2.0 writer: animations (docs/gltf.md §3.7, §4): shared inputs, hemisphere-aligned
// rotations, loop keys, omitted unit scales, STEP, baked root keys, animation-only skeletons.
#include <gtest/gtest.h>

#include <cmath>

#include "formats/gltf/gltf_parse.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"

namespace rigport::test {
namespace {

const nlohmann::json* find_channel(const nlohmann::json& anim, int node, const std::string& path) {
    for (auto& c : anim["channels"])
        if (c["target"]["node"] == node && c["target"]["path"] == path) return &anim["samplers"][c["sampler"].get<size_t>()];
    return nullptr;
}

// One joint, Y up, a rotation track whose keys alternate sign (q, -q', q'' ...), a constant unit
// scale track and a stepped translation track.
Scene flipping() {
    Scene s;
    s.meta.up = UpAxis::Y;
    s.skeleton.joints.resize(1);
    s.skeleton.joints[0].name = "j";
    Animation a;
    a.name = "Take 001";
    a.frame_rate = 10;
    a.frame_count = 4;
    a.loop = true;
    std::vector<float> t = {0, 0.1f, 0.2f, 0.3f};
    // Rotations about Z by 0, 0.6, 1.2, 1.8 rad with alternating signs; key 1 not unit length.
    std::vector<float> q;
    for (int k = 0; k < 4; ++k) {
        float half = 0.3f * k, sign = k % 2 ? -1.0f : 1.0f, scale = k == 1 ? 1.001f : 1.0f;
        q.insert(q.end(), {0, 0, sign * scale * std::sin(half), sign * scale * std::cos(half)});
    }
    a.tracks.push_back({0, Channel::Rotation, Interpolation::Linear, t, q});
    a.tracks.push_back({0, Channel::Scale, Interpolation::Linear, t, std::vector<float>(12, 1.0f)});
    a.tracks.push_back({0, Channel::Translation, Interpolation::Step, t, {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0}});
    a.tracks.push_back({0, Channel::Translation, Interpolation::Linear, {0}, {9, 9, 9}});  // a second one: dropped
    s.animations.push_back(a);
    return s;
}

TEST(GltfAnim, RotationsUnitAndHemisphereAligned) {
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    ParsedGltf g = write_glb(flipping(), o);
    const auto& anim = g.json["animations"][0];
    EXPECT_EQ(anim["name"], "Take 001");
    EXPECT_EQ(anim["extras"]["loop"], true);
    EXPECT_EQ(anim["extras"]["frameRate"], 10);
    const nlohmann::json* rot = find_channel(anim, 0, "rotation");
    ASSERT_NE(rot, nullptr);
    const std::vector<double> q = g.accessor((*rot)["output"]);
    ASSERT_EQ(q.size(), 16u);
    for (size_t k = 0; k < 4; ++k) {
        const double n = std::sqrt(q[k * 4] * q[k * 4] + q[k * 4 + 1] * q[k * 4 + 1] + q[k * 4 + 2] * q[k * 4 + 2] + q[k * 4 + 3] * q[k * 4 + 3]);
        EXPECT_NEAR(n, 1.0, 1e-6);
        EXPECT_NEAR(q[k * 4 + 3], std::cos(0.3 * k), 1e-6) << "key " << k << " on the first key's hemisphere";
        if (k > 0) {
            double dot = 0;
            for (int i = 0; i < 4; ++i) dot += q[k * 4 + i] * q[(k - 1) * 4 + i];
            EXPECT_GT(dot, 0.0);
        }
    }
    EXPECT_EQ((*rot)["interpolation"], "LINEAR");
    EXPECT_EQ(find_channel(anim, 0, "scale"), nullptr);  // constantly 1: omitted
    const nlohmann::json* tr = find_channel(anim, 0, "translation");
    ASSERT_NE(tr, nullptr);
    EXPECT_EQ((*tr)["interpolation"], "STEP");
    EXPECT_EQ((*tr)["input"], (*rot)["input"]);  // equal times share one input accessor
    EXPECT_EQ(anim["channels"].size(), 2u);
    EXPECT_TRUE(w.has(WarningCode::DroppedData));  // the duplicate translation track
    const auto& input = g.accessor_json((*rot)["input"]);
    EXPECT_EQ(input["min"][0], 0);
    EXPECT_FLOAT_EQ(input["max"][0].get<float>(), 0.3f);
}

TEST(GltfAnim, LoopKeyAppendsKeyZero) {
    SaveOptions o;
    o.gltf.loop_key = true;
    ParsedGltf g = write_glb(flipping(), o);
    const nlohmann::json* rot = find_channel(g.json["animations"][0], 0, "rotation");
    const std::vector<double> t = g.accessor((*rot)["input"]), q = g.accessor((*rot)["output"]);
    ASSERT_EQ(t.size(), 5u);
    EXPECT_EQ(float(t[4]), 0.4f);  // frame_count / frame_rate
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(std::fabs(q[16 + i]), std::fabs(q[i]), 1e-7);
    // A non-looping animation keeps its keys.
    Scene s = flipping();
    s.animations[0].loop = false;
    ParsedGltf h = write_glb(s, o);
    EXPECT_EQ(h.accessor_json((*find_channel(h.json["animations"][0], 0, "rotation"))["input"])["count"], 4);
}

// A frame-based clip whose channels all hold still (one key each, as frame-based readers store
// them) keeps its length: each channel gets a hold key at the last frame (IQE idle poses,
// found by the Blender add-on's tests: the action had one frame).
TEST(GltfAnim, StillFrameBasedClipKeepsItsFrames) {
    Scene s = flipping();
    Animation& a = s.animations[0];
    a.loop = false;
    a.frame_count = 11;  // 1 s at 10 fps
    for (auto& t : a.tracks) {
        t.times.resize(1);
        t.values.resize(t.components());
    }
    ParsedGltf g = write_glb(s, {});
    const nlohmann::json* rot = find_channel(g.json["animations"][0], 0, "rotation");
    ASSERT_NE(rot, nullptr);
    const std::vector<double> t = g.accessor((*rot)["input"]), q = g.accessor((*rot)["output"]);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(float(t[1]), 1.0f);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(q[4 + i], q[i]);
    // Moving clips are written as they are.
    Scene moving = flipping();
    moving.animations[0].loop = false;
    ParsedGltf h = write_glb(moving, {});
    EXPECT_EQ(h.accessor_json((*find_channel(h.json["animations"][0], 0, "rotation"))["input"])["count"], 4);
}

TEST(GltfAnim, RepeatedTimesAndNegativeTimes) {
    Scene s = flipping();
    s.animations[0].tracks.resize(1);
    s.animations[0].tracks[0].times = {0, 0.1f, 0.1f, 0.3f};
    ParsedGltf g = write_glb(s);
    const std::vector<double> t = g.accessor((*find_channel(g.json["animations"][0], 0, "rotation"))["input"]);
    EXPECT_EQ(t, (std::vector<double>{0, double(0.1f), double(0.3f)}));
    s.animations[0].tracks[0].times = {-1, 0.1f, 0.2f, 0.3f};
    EXPECT_FALSE(save_output(s, "x.glb"));
}

TEST(GltfAnim, BakedRootKeysAndSampleChannels) {
    const Scene s = make_sample_scene();  // Z up; "wave" moves the root
    ParsedGltf g = write_glb(s);
    ASSERT_EQ(g.json["animations"].size(), 2u);
    const auto& wave = g.json["animations"][0];
    EXPECT_EQ(wave["name"], "wave");
    // Every channel of an animation shares the one key-time input.
    for (auto& sampler : wave["samplers"]) EXPECT_EQ(sampler["input"], wave["samplers"][0]["input"]);
    const Animation& src = s.animations[0];
    for (const JointTrack& t : src.tracks) {
        if (t.joint != 0 || t.channel != Channel::Translation) continue;
        const nlohmann::json* sampler = find_channel(wave, 0, "translation");
        ASSERT_NE(sampler, nullptr);
        const std::vector<double> v = g.accessor((*sampler)["output"]);
        ASSERT_EQ(v.size(), t.values.size());
        for (size_t k = 0; k < t.times.size(); ++k) {  // t' = C t: (x, z, -y)
            EXPECT_EQ(float(v[k * 3]), t.values[k * 3]);
            EXPECT_EQ(float(v[k * 3 + 1]), t.values[k * 3 + 2]);
            EXPECT_EQ(float(v[k * 3 + 2]), -t.values[k * 3 + 1]);
        }
    }
    // "pulse" scales a joint: its scale channel is kept.
    const auto& pulse = g.json["animations"][1];
    bool scaled = false;
    for (auto& c : pulse["channels"]) scaled |= c["target"]["path"] == "scale";
    EXPECT_TRUE(scaled);
}

TEST(GltfAnim, MorphWeightsChannel) {
    Scene s;
    s.meta.up = UpAxis::Y;
    Mesh m;
    m.name = "face";
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    m.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    m.triangles = {{0, 1, 2}};
    m.morph_targets.push_back({"smile", {{0, 0, 1}, {0, 0, 0}, {0, -2, 0}}, {}, {}, 0.25f});
    m.morph_targets.push_back({"blink", {}, {{0.5f, 0, 0}, {0, 0, 0}, {0, 0, 0}}, {}, 0.0f});
    s.meshes.push_back(m);
    Animation a;
    a.name = "talk";
    a.morph_tracks.push_back({0, Interpolation::Linear, {0, 1, 2}, {0, 0, 1, 0.5f, 0, 1}});
    s.animations.push_back(a);
    ParsedGltf g = write_glb(s);
    const auto& mesh = g.json["meshes"][0];
    EXPECT_EQ(mesh["weights"], nlohmann::json::array({0.25, 0}));
    EXPECT_EQ(mesh["extras"]["targetNames"], nlohmann::json::array({"smile", "blink"}));
    const auto& targets = mesh["primitives"][0]["targets"];
    ASSERT_EQ(targets.size(), 2u);
    for (auto& t : targets) {  // both carry POSITION (with min/max) and NORMAL
        ASSERT_TRUE(t.contains("POSITION") && t.contains("NORMAL"));
        EXPECT_TRUE(g.accessor_json(t["POSITION"]).contains("min"));
    }
    EXPECT_EQ(g.accessor(targets[0]["POSITION"]), (std::vector<double>{0, 0, 1, 0, 0, 0, 0, -2, 0}));
    EXPECT_EQ(g.accessor(targets[1]["POSITION"]), std::vector<double>(9, 0.0));
    const nlohmann::json* w = find_channel(g.json["animations"][0], 0, "weights");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(g.accessor_json((*w)["output"])["count"], 6);  // keys x targets
    EXPECT_EQ(g.accessor_json((*w)["output"])["type"], "SCALAR");
}

}  // namespace
}  // namespace rigport::test
