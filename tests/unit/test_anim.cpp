// Sampler, matrices and skinning against poses worked out by hand (anim.hpp; docs/iqm.md §7).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "rigport/anim.hpp"

namespace rigport {
namespace {

const float s45 = float(std::sqrt(0.5));  // sin / cos of 45 degrees

Quat about_z(double degrees) {
    double h = degrees * 3.14159265358979323846 / 360.0;
    return {0, 0, float(std::sin(h)), float(std::cos(h))};
}

void expect_near3(const std::array<double, 3>& got, std::array<double, 3> want, double tol = 1e-6) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[k], want[k], tol) << "component " << k;
}

bool same_bits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

// Root at the origin, child one unit along x.
Skeleton chain() {
    Skeleton s;
    s.joints.resize(2);
    s.joints[0].name = "root";
    s.joints[1].name = "tip";
    s.joints[1].parent = 0;
    s.joints[1].bind.translate = {1, 0, 0};
    return s;
}

JointTrack track(uint32_t joint, Channel channel, std::vector<float> times, std::vector<float> values,
                 Interpolation interpolation = Interpolation::Linear) {
    JointTrack t;
    t.joint = joint;
    t.channel = channel;
    t.interpolation = interpolation;
    t.times = std::move(times);
    t.values = std::move(values);
    return t;
}

TEST(Anim, TransformMatrixIsTranslateRotateScale) {
    Transform t;
    t.translate = {1, 2, 3};
    t.rotate = about_z(90);
    t.scale = {2, 1, 1};
    // (1,0,0) scaled to (2,0,0), turned to (0,2,0), moved to (1,4,3).
    expect_near3(transform_point(transform_matrix(t), {1, 0, 0}), {1, 4, 3});
    // The quaternion is normalized first.
    t.rotate = {0, 0, 3, 3};
    expect_near3(transform_point(transform_matrix(t), {1, 0, 0}), {1, 4, 3});
}

TEST(Anim, InverseAffineUndoesScaleAndShear) {
    Transform t;
    t.translate = {-3, 0.5f, 7};
    t.rotate = {0.1f, -0.7f, 0.2f, 0.5f};
    t.scale = {0.5f, 2, 3};
    Mat4 m = transform_matrix(t);
    m[1][0] += 0.25;  // a shear
    Mat4 product = multiply(inverse_affine(m), m);
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) EXPECT_NEAR(product[c][r], c == r ? 1.0 : 0.0, 1e-12);
    expect_near3(transform_point(inverse_affine(m), transform_point(m, {1, 2, 3})), {1, 2, 3}, 1e-12);
    // Singular (zero scale): identity rather than NaN.
    t.scale = {0, 1, 1};
    EXPECT_EQ(inverse_affine(transform_matrix(t)), identity_matrix());
}

TEST(Anim, MultiplyIsColumnMajor) {
    Transform a, b;
    a.translate = {10, 0, 0};
    b.rotate = about_z(90);
    // a * b applies b first: (1,0,0) -> (0,1,0) -> (10,1,0).
    expect_near3(transform_point(multiply(transform_matrix(a), transform_matrix(b)), {1, 0, 0}), {10, 1, 0});
}

TEST(Anim, WorldMatricesOfATwoJointChain) {
    Skeleton s = chain();
    auto local = bind_pose(s);
    local[0].rotate = about_z(90);
    auto world = world_matrices(s, local);
    ASSERT_EQ(world.size(), 2u);
    // The tip sits at the root's x axis, which now points along y.
    expect_near3(transform_point(world[1], {0, 0, 0}), {0, 1, 0});
    expect_near3(transform_point(world[1], {1, 0, 0}), {0, 2, 0});
}

TEST(Anim, LinearMidpointsAndStepHolds) {
    Skeleton s = chain();
    Animation a;
    a.tracks.push_back(track(1, Channel::Translation, {0, 1}, {0, 0, 0, 2, 4, -6}));
    a.tracks.push_back(track(1, Channel::Scale, {0, 1}, {1, 1, 1, 3, 1, 2}));
    a.tracks.push_back(track(0, Channel::Translation, {0, 1}, {0, 0, 0, 8, 8, 8}, Interpolation::Step));
    auto pose = sample_pose(s, a, 0.5f);
    EXPECT_EQ(pose[1].translate, (Vec3{1, 2, -3}));
    EXPECT_EQ(pose[1].scale, (Vec3{2, 1, 1.5f}));
    EXPECT_EQ(sample_pose(s, a, 0.25f)[1].translate, (Vec3{0.5f, 1, -1.5f}));
    EXPECT_EQ(sample_pose(s, a, 0.75f)[0].translate, (Vec3{0, 0, 0}));  // step: the earlier key
    EXPECT_EQ(sample_pose(s, a, 1.0f)[0].translate, (Vec3{8, 8, 8}));
}

TEST(Anim, JointsWithoutTracksKeepTheBindPose) {
    Skeleton s = chain();
    s.joints[1].bind.rotate = about_z(30);
    Animation a;
    a.tracks.push_back(track(0, Channel::Rotation, {0, 1}, {0, 0, 0, 1, 0, 0, 1, 0}));
    auto pose = sample_pose(s, a, 0.5f);
    EXPECT_EQ(pose[1].translate, (Vec3{1, 0, 0}));
    EXPECT_EQ(pose[1].rotate, about_z(30));
    // A joint with only a rotation track keeps its bind translation.
    EXPECT_EQ(pose[0].translate, (Vec3{0, 0, 0}));
}

TEST(Anim, SlerpTakesTheShorterArc) {
    Skeleton s = chain();
    Animation a;
    Quat end = about_z(90);
    for (auto& c : end) c = -c;  // the same rotation, on the far side of the sphere
    a.tracks.push_back(track(0, Channel::Rotation, {0, 1}, {0, 0, 0, 1, end[0], end[1], end[2], end[3]}));
    auto pose = sample_pose(s, a, 0.5f);
    // Halfway is 45 degrees about z: x goes to (cos45, sin45, 0). The long way would give 135.
    expect_near3(transform_point(transform_matrix(pose[0]), {1, 0, 0}), {s45, s45, 0});
    const Quat& q = pose[0].rotate;
    EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-6);
    // A quarter of the way: 22.5 degrees, which lerp + normalize would miss by ~0.8 degree.
    auto quarter = transform_point(transform_matrix(sample_pose(s, a, 0.25f)[0]), {1, 0, 0});
    EXPECT_NEAR(std::atan2(quarter[1], quarter[0]) * 180 / 3.14159265358979323846, 22.5, 1e-4);
}

TEST(Anim, LoopWrapsAndClampHolds) {
    Skeleton s = chain();
    Animation a;
    a.tracks.push_back(track(0, Channel::Translation, {0, 1, 2}, {0, 0, 0, 10, 0, 0, 20, 0, 0}));
    ASSERT_EQ(a.duration(), 2.0f);
    EXPECT_EQ(sample_pose(s, a, 2.5f, EndMode::Loop)[0].translate[0], 5.0f);
    EXPECT_EQ(sample_pose(s, a, 2.5f, EndMode::Clamp)[0].translate[0], 20.0f);
    EXPECT_EQ(sample_pose(s, a, -0.5f, EndMode::Loop)[0].translate[0], 15.0f);
    EXPECT_EQ(sample_pose(s, a, -0.5f, EndMode::Clamp)[0].translate[0], 0.0f);
    EXPECT_EQ(sample_pose(s, a, 2.0f, EndMode::Loop)[0].translate[0], 0.0f);  // [0, duration)
    EXPECT_EQ(sample_pose(s, a, 6.5f, EndMode::Loop)[0].translate[0], 5.0f);
}

TEST(Anim, KeyTimesGiveKeyValuesBitExactly) {
    Skeleton s = chain();
    for (float rate : {30.0f, 30.1f, 24.0f, 0.0f}) {
        Animation a;
        a.frame_rate = rate;
        const float r = rate > 0 ? rate : default_frame_rate;
        std::vector<float> times, rot, move;
        for (uint32_t i = 0; i < 40; ++i) {
            times.push_back(float(i) / r);
            // Unnormalized, irregular values: anything recomputed would change their bits.
            rot.insert(rot.end(), {0.1f * i, 0.3f, -0.7f / (i + 1), 0.9f + 1e-7f * i});
            move.insert(move.end(), {1.0f / 3 + i, -2.0f / 7 * i, 1e-30f * i});
        }
        a.frame_count = 40;
        a.tracks.push_back(track(1, Channel::Rotation, times, rot));
        a.tracks.push_back(track(1, Channel::Translation, times, move));
        for (uint32_t i = 0; i < 40; ++i) {
            auto pose = frame_pose(s, a, i);
            EXPECT_TRUE(same_bits(pose[1].rotate.data(), &rot[i * 4], 4)) << "rate " << rate << " frame " << i;
            EXPECT_TRUE(same_bits(pose[1].translate.data(), &move[i * 3], 3)) << "rate " << rate << " frame " << i;
            auto direct = sample_pose(s, a, times[i]);
            EXPECT_TRUE(same_bits(direct[1].rotate.data(), &rot[i * 4], 4));
        }
    }
}

TEST(Anim, SkinningAVertexByHand) {
    Skeleton s = chain();
    auto local = bind_pose(s);
    local[1].rotate = about_z(90);  // bend the tip
    auto skinning = skinning_matrices(s, local);
    // The bind pose skins to identity.
    auto rest = skinning_matrices(s, bind_pose(s));
    expect_near3(transform_point(rest[1], {5, 6, 7}), {5, 6, 7}, 1e-12);

    Mesh m;
    m.positions = {{2, 0, 0}, {2, 0, 0}, {2, 0, 0}, {3, 1, 0}};
    m.skin.offsets = {0, 1, 3, 3, 4};
    // Vertex 0 on the tip only; vertex 1 half and half (weights 3 and 3: normalized);
    // vertex 2 no influences; vertex 3 a zero weight only.
    m.skin.influences = {{1, 1.0f}, {0, 3.0f}, {1, 3.0f}, {1, 0.0f}};
    auto p = skin_positions(m, skinning);
    // Tip frame: (2,0,0) is (1,0,0) from the tip, turned to (0,1,0), so (1,1,0).
    expect_near3(p[0], {1, 1, 0});
    expect_near3(p[1], {1.5, 0.5, 0});
    expect_near3(p[2], {2, 0, 0}, 0);
    expect_near3(p[3], {3, 1, 0}, 0);
}

// The run-time sampler's blend (anim.hpp): weight 0 and 1 give the poses bit for bit;
// between them translations and scales lerp and rotations take the shorter arc, also when one
// pose stores the rotation as -q.
TEST(Anim, BlendPosesLerpsAndSlerpsOnTheShorterArc) {
    const float h = float(std::sqrt(0.5));
    std::vector<Transform> a{{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}, {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}}};
    std::vector<Transform> b{{{2, 4, 6}, {0, 0, h, h}, {3, 3, 3}}, {{1, 2, 3}, {0, 0, -h, -h}, {1, 1, 1}}};  // 90 deg about z
    auto same = [](const std::vector<Transform>& x, const std::vector<Transform>& y) {
        return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(Transform)) == 0;
    };
    EXPECT_TRUE(same(blend_poses(a, b, 0), a));
    const auto one = blend_poses(a, b, 1);
    EXPECT_EQ(one[0].translate, b[0].translate);
    EXPECT_EQ(one[0].scale, b[0].scale);
    const auto mid = blend_poses(a, b, 0.5f);
    EXPECT_EQ(mid[0].translate, (Vec3{1, 2, 3}));
    EXPECT_EQ(mid[0].scale, (Vec3{2, 2, 2}));
    for (const Transform& t : mid) {  // 45 degrees about +z, whichever sign b stored
        const double angle = 2 * std::atan2(std::hypot(t.rotate[0], t.rotate[1], t.rotate[2]), std::fabs(t.rotate[3]));
        EXPECT_NEAR(angle, M_PI / 4, 1e-6);
        EXPECT_NEAR(std::fabs(t.rotate[2]), std::sin(M_PI / 8), 1e-6);
        EXPECT_GT(t.rotate[2] * t.rotate[3], 0) << "a positive turn about z";
    }
}

// Morph weights at a time: defaults without a track, linear between keys, step held, ends held,
// Loop wrapping by the animation's duration.
TEST(Anim, MorphWeightsAtATime) {
    Mesh mesh;
    mesh.positions = {{0, 0, 0}, {1, 0, 0}};
    mesh.morph_targets = {{"up", {{0, 1, 0}, {0, 1, 0}}, {}, {}, 0.25f}, {"out", {{0, 0, 2}, {0, 0, 2}}, {}, {}, 0}};
    Animation a;
    a.morph_tracks.push_back({1, Interpolation::Linear, {0, 1, 2}, {0, 0, 1, 0.5f, 0, 1}});  // mesh 1
    EXPECT_EQ(sample_morph_weights(mesh, 0, a, 0.5f), (std::vector<float>{0.25f, 0}));  // no track for mesh 0
    EXPECT_EQ(sample_morph_weights(mesh, 1, a, 0.5f), (std::vector<float>{0.5f, 0.25f}));
    EXPECT_EQ(sample_morph_weights(mesh, 1, a, 1.0f), (std::vector<float>{1, 0.5f}));
    EXPECT_EQ(sample_morph_weights(mesh, 1, a, 7.0f), (std::vector<float>{0, 1}));  // clamped: the last key
    EXPECT_EQ(sample_morph_weights(mesh, 1, a, -1.0f), (std::vector<float>{0, 0}));
    EXPECT_EQ(sample_morph_weights(mesh, 1, a, 2.5f, EndMode::Loop), (std::vector<float>{0.5f, 0.25f}));
    a.morph_tracks[0].interpolation = Interpolation::Step;
    EXPECT_EQ(sample_morph_weights(mesh, 1, a, 0.9f), (std::vector<float>{0, 0}));
    const auto p = morph_positions(mesh, {0.5f, 0.25f});
    EXPECT_EQ(p[1], (std::array<double, 3>{1, 0.5, 0.5}));
}

}  // namespace
}  // namespace rigport
