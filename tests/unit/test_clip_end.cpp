// apply_clip_end: keys at a Cal3D DURATION past the last key (docs/cal3d.md §4.4, §5 step 5),
// against hand-computed values and against Cal3D's own slerp formula continued past 1.
#include <gtest/gtest.h>

#include <cmath>

#include "rigport/process.hpp"
#include "rigport/validate.hpp"

namespace rigport::test {
namespace {

const float s45 = std::sqrt(0.5f);

// One joint: a translation and a rotation track at t = 0 and 1, DURATION 1.5; a second joint whose
// single rotation key at 0 is constant; a third whose STEP translation track ends at 0.5.
Scene clip_scene() {
    Scene s;
    s.skeleton.joints.resize(3);
    s.skeleton.joints[1].parent = 0;
    s.skeleton.joints[2].parent = 0;
    Animation a;
    a.name = "walk";
    a.stated_duration = 1.5f;
    JointTrack t;
    t.joint = 0;
    t.channel = Channel::Translation;
    t.times = {0, 1};
    t.values = {0, 0, 0, 1, 2, 3};
    a.tracks.push_back(t);
    JointTrack r;
    r.joint = 0;
    r.channel = Channel::Rotation;
    r.times = {0, 1};
    r.values = {0, 0, 0, 1, 0, 0, s45, s45};  // identity, then 90 degrees about Z
    a.tracks.push_back(r);
    JointTrack one;
    one.joint = 1;
    one.channel = Channel::Rotation;
    one.times = {0};
    one.values = {s45, 0, 0, s45};
    a.tracks.push_back(one);
    JointTrack step;
    step.joint = 2;
    step.channel = Channel::Translation;
    step.interpolation = Interpolation::Step;
    step.times = {0, 0.5f};
    step.values = {0, 0, 0, 4, 0, 0};
    a.tracks.push_back(step);
    s.animations.push_back(a);
    return s;
}

void expect_key(const JointTrack& t, size_t k, std::vector<float> expected, float tol = 1e-6f) {
    ASSERT_LT(k, t.times.size());
    const size_t c = t.components();
    for (size_t i = 0; i < c; ++i) EXPECT_NEAR(t.values[k * c + i], expected[i], tol) << "component " << i;
}

TEST(ClipEnd, ClampHoldsTheLastKeyAtDuration) {
    Scene s = clip_scene();
    EXPECT_EQ(apply_clip_end(s, ClipEnd::Clamp), 4u);
    const Animation& a = s.animations[0];
    for (auto& t : a.tracks) {
        ASSERT_EQ(t.times.back(), 1.5f);
    }
    expect_key(a.tracks[0], 2, {1, 2, 3});
    expect_key(a.tracks[1], 2, {0, 0, s45, s45});
    expect_key(a.tracks[2], 1, {s45, 0, 0, s45});
    expect_key(a.tracks[3], 2, {4, 0, 0});
    EXPECT_EQ(a.duration(), 1.5f);
    ASSERT_EQ(s.warnings.items.size(), 1u);
    EXPECT_NE(s.warnings.items[0].message.find("4 of 4 tracks end before DURATION 1.5 s (last key 1 s)"), std::string::npos)
        << s.warnings.items[0].message;
}

TEST(ClipEnd, ExtrapolateContinuesTheLastTwoKeys) {
    Scene s = clip_scene();
    EXPECT_EQ(apply_clip_end(s, ClipEnd::Extrapolate), 4u);
    const Animation& a = s.animations[0];
    // Translation: (1,2,3) + 0.5 * ((1,2,3) - (0,0,0)).
    expect_key(a.tracks[0], 2, {1.5f, 3, 4.5f});
    // Rotation: 90 degrees about Z per second, continued half a second: 135 degrees about Z.
    expect_key(a.tracks[1], 2, {0, 0, 0.92387953f, 0.38268343f});
    // A single key and a STEP track hold.
    expect_key(a.tracks[2], 1, {s45, 0, 0, s45});
    expect_key(a.tracks[3], 2, {4, 0, 0});
    // From (0,0,0) at 0 to (4,0,0) at 0.5 would be (16,0,0) at 1.5 if it were extrapolated.
}

// Cal3D's CalQuaternion::blend(d, q) for d > 1 (UP's extrapolating sampler): the formula itself,
// written independently of the implementation.
std::array<double, 4> cal3d_blend(std::array<double, 4> a, std::array<double, 4> b, double d) {
    double norm = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    bool flip = false;
    if (norm < 0) norm = -norm, flip = true;
    const double theta = std::acos(norm);
    const double s = 1 / std::sin(theta);
    const double inv_d = std::sin((1 - d) * theta) * s;
    double dd = std::sin(d * theta) * s;
    if (flip) dd = -dd;
    return {inv_d * a[0] + dd * b[0], inv_d * a[1] + dd * b[1], inv_d * a[2] + dd * b[2], inv_d * a[3] + dd * b[3]};
}

TEST(ClipEnd, ExtrapolatedRotationIsCal3dSlerpPastOne) {
    // Rotations that do not commute, keys at 0.2 and 0.6, DURATION 1.3: d = (1.3 - 0.2) / 0.4.
    // The second key is on the other hemisphere (negated), which must not matter.
    const std::array<double, 4> a{0.5, 0.5, 0.5, 0.5};               // 120 degrees about (1,1,1)
    const std::array<double, 4> b{-0.6, 0.0, -0.0, -0.8};            // about X, negated
    Scene s;
    s.skeleton.joints.resize(1);
    Animation anim;
    anim.stated_duration = 1.3f;
    JointTrack r;
    r.channel = Channel::Rotation;
    r.times = {0.2f, 0.6f};
    r.values = {float(a[0]), float(a[1]), float(a[2]), float(a[3]), float(b[0]), float(b[1]), float(b[2]), float(b[3])};
    anim.tracks.push_back(r);
    s.animations.push_back(anim);
    apply_clip_end(s, ClipEnd::Extrapolate);
    const JointTrack& t = s.animations[0].tracks[0];
    ASSERT_EQ(t.times.size(), 3u);
    const double d = (1.3 - 0.2) / (0.6 - 0.2);
    const auto expected = cal3d_blend(a, b, d);
    // Same rotation: q or -q.
    double dot = 0;
    for (int i = 0; i < 4; ++i) dot += expected[i] * t.values[8 + i];
    EXPECT_NEAR(std::fabs(dot), 1.0, 1e-6);
    // A unit quaternion (a sum of the two keys far from unit would still pass the dot test at 1).
    double n = 0;
    for (int i = 0; i < 4; ++i) n += double(t.values[8 + i]) * t.values[8 + i];
    EXPECT_NEAR(n, 1.0, 1e-6);
}

TEST(ClipEnd, MorphWeightsExtrapolateLinearly) {
    Scene s;
    s.meshes.resize(1);
    s.meshes[0].morph_targets.resize(2);
    Animation a;
    a.stated_duration = 1.0f;
    MorphWeightTrack m;
    m.mesh = 0;
    m.times = {0, 0.5f};
    m.weights = {0, 1, 0.5f, 0.5f};
    a.morph_tracks.push_back(m);
    s.animations.push_back(a);
    Scene held = s;
    EXPECT_EQ(apply_clip_end(s, ClipEnd::Extrapolate), 1u);
    ASSERT_EQ(s.animations[0].morph_tracks[0].times.size(), 3u);
    EXPECT_EQ(s.animations[0].morph_tracks[0].times[2], 1.0f);
    EXPECT_FLOAT_EQ(s.animations[0].morph_tracks[0].weights[4], 1.0f);
    EXPECT_FLOAT_EQ(s.animations[0].morph_tracks[0].weights[5], 0.0f);
    EXPECT_EQ(apply_clip_end(held, ClipEnd::Clamp), 1u);
    EXPECT_FLOAT_EQ(held.animations[0].morph_tracks[0].weights[4], 0.5f);
    EXPECT_FLOAT_EQ(held.animations[0].morph_tracks[0].weights[5], 0.5f);
}

TEST(ClipEnd, NoneChangesNothingAndValidationReportsTheGap) {
    Scene s = clip_scene();
    const Scene before = s;
    EXPECT_EQ(apply_clip_end(s, ClipEnd::None), 0u);
    for (size_t i = 0; i < s.animations[0].tracks.size(); ++i) {
        EXPECT_EQ(s.animations[0].tracks[i].times, before.animations[0].tracks[i].times);
        EXPECT_EQ(s.animations[0].tracks[i].values, before.animations[0].tracks[i].values);
    }
    EXPECT_TRUE(s.warnings.items.empty());
    ValidationReport report;
    validate_scene(s, report);
    bool gap = false;
    for (auto& f : report.findings) gap = gap || (f.code == "anim.ends-before-duration" && f.severity == Severity::Warning);
    EXPECT_TRUE(gap);
}

TEST(ClipEnd, NothingWithoutAGap) {
    Scene s = clip_scene();
    s.animations[0].stated_duration = 0;  // no DURATION of its own
    Scene reaches = clip_scene();
    reaches.animations[0].stated_duration = 0.8f;  // DURATION before the last key: not extended
    for (auto& t : reaches.animations[0].tracks) t.times.back() = std::max(t.times.back(), 0.8f);
    Scene noise = clip_scene();
    for (auto& t : noise.animations[0].tracks) t.times.back() = 1.5f;
    noise.animations[0].stated_duration = std::nextafter(1.5f, 2.0f);  // float noise, not a gap
    for (Scene* x : {&s, &reaches, &noise}) {
        EXPECT_EQ(apply_clip_end(*x, ClipEnd::Extrapolate), 0u);
        EXPECT_TRUE(x->warnings.items.empty());
    }
    EXPECT_EQ(s.animations[0].tracks[0].times.size(), 2u);
}

}  // namespace
}  // namespace rigport::test
