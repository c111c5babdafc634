// The compiler's -s / -r / -t on a scene (docs/iqm.md §3.1, §3.2 step 6), checked by hand and by
// skinning before and after.
#include <gtest/gtest.h>

#include <cmath>

#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport {
namespace {

void expect_vec(const Vec3& got, Vec3 want, float tol = 1e-6f) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[k], want[k], tol) << "component " << k;
}

// A root with a child, a skinned two-vertex mesh, and an animation on both joints.
Scene rig() {
    Scene s;
    s.skeleton.joints.resize(2);
    s.skeleton.joints[0].bind.translate = {0, 0, 1};
    s.skeleton.joints[1].parent = 0;
    s.skeleton.joints[1].bind.translate = {1, 0, 0};
    s.skeleton.joints[1].bind.rotate = {0, 0, 0.6f, 0.8f};
    Mesh m;
    m.positions = {{1, 0, 0}, {2, 0.5f, 1}};
    m.normals = {{1, 0, 0}, {0, 0, 1}};
    m.tangents = {{0, 1, 0, -1}, {1, 0, 0, 1}};
    m.skin.offsets = {0, 1, 3};
    m.skin.influences = {{0, 1}, {0, 0.4f}, {1, 0.6f}};
    MorphTarget mt;
    mt.position_deltas = {{1, 0, 0}, {0, 0, 0}};
    m.morph_targets.push_back(mt);
    s.meshes.push_back(m);
    Animation a;
    a.frame_rate = 10;
    a.frame_count = 2;
    JointTrack t0{0, Channel::Translation, Interpolation::Linear, {0, 0.1f}, {0, 0, 1, 0.5f, 0, 1}};
    JointTrack r0{0, Channel::Rotation, Interpolation::Linear, {0, 0.1f}, {0, 0, 0, 1, 0.6f, 0, 0, 0.8f}};
    JointTrack r1{1, Channel::Rotation, Interpolation::Linear, {0, 0.1f}, {0, 0, 0.6f, 0.8f, 0, 0.6f, 0, 0.8f}};
    JointTrack t1{1, Channel::Translation, Interpolation::Linear, {0}, {1, 0, 0}};
    a.tracks = {t0, r0, r1, t1};
    s.animations.push_back(a);
    return s;
}

std::vector<std::array<double, 3>> skinned(const Scene& s, uint32_t frame) {
    return skin_positions(s.meshes[0], skinning_matrices(s.skeleton, frame_pose(s.skeleton, s.animations[0], frame)));
}

TEST(Transform, ScaleMultipliesPositionsAndTranslations) {
    Scene s = rig();
    apply_transform(s, {2.0f, {0, 0, 0}, {0, 0, 0}});
    expect_vec(s.meshes[0].positions[1], {4, 1, 2});
    expect_vec(s.meshes[0].morph_targets[0].position_deltas[0], {2, 0, 0});
    expect_vec(s.meshes[0].normals[1], {0, 0, 1});  // directions do not scale
    expect_vec(s.skeleton.joints[1].bind.translate, {2, 0, 0});
    EXPECT_EQ(s.skeleton.joints[1].bind.rotate, (Quat{0, 0, 0.6f, 0.8f}));
    EXPECT_EQ(s.animations[0].tracks[0].values, (std::vector<float>{0, 0, 2, 1, 0, 2}));
    EXPECT_EQ(s.animations[0].tracks[1].values, rig().animations[0].tracks[1].values);
    // Scaling everything scales the skinned result.
    Scene before = rig();
    for (uint32_t f = 0; f < 2; ++f) {
        auto a = skinned(before, f), b = skinned(s, f);
        for (size_t v = 0; v < a.size(); ++v)
            for (int k = 0; k < 3; ++k) EXPECT_NEAR(b[v][k], 2 * a[v][k], 1e-5);
    }
}

TEST(Transform, ScaleIsClamped) {
    Scene s = rig();
    apply_transform(s, {1e-12f, {0, 0, 0}, {0, 0, 0}});
    EXPECT_FLOAT_EQ(s.meshes[0].positions[0][0], 1e-8f);
    Scene big = rig();
    apply_transform(big, {1e12f, {0, 0, 0}, {0, 0, 0}});
    EXPECT_FLOAT_EQ(big.meshes[0].positions[0][0], 1e8f);
}

TEST(Transform, RotateXFirstThenYThenZ) {
    Scene s;
    Mesh m;
    m.positions = {{0, 1, 0}};
    s.meshes.push_back(m);
    apply_transform(s, {1.0f, {90, 90, 0}, {0, 0, 0}});
    // Rx(90) takes y to z, then Ry(90) takes z to x. The other order would give z.
    expect_vec(s.meshes[0].positions[0], {1, 0, 0});
}

TEST(Transform, RotateTurnsGeometryAndRootJointsOnly) {
    Scene s = rig();
    apply_transform(s, {1.0f, {0, 0, 90}, {0, 0, 0}});
    const Mesh& m = s.meshes[0];
    expect_vec(m.positions[0], {0, 1, 0});
    expect_vec(m.positions[1], {-0.5f, 2, 1});
    expect_vec(m.normals[0], {0, 1, 0});
    expect_vec({m.tangents[0][0], m.tangents[0][1], m.tangents[0][2]}, {-1, 0, 0});
    EXPECT_EQ(m.tangents[0][3], -1.0f);  // handedness unchanged
    expect_vec(m.morph_targets[0].position_deltas[0], {0, 1, 0});
    // Root: t' = R t, q' = R q (R = 90 degrees about z = (0,0,s45,s45)).
    const float h = float(std::sqrt(0.5));
    expect_vec(s.skeleton.joints[0].bind.translate, {0, 0, 1});
    const Quat& q = s.skeleton.joints[0].bind.rotate;
    EXPECT_NEAR(q[2], h, 1e-6);
    EXPECT_NEAR(q[3], h, 1e-6);
    // The child is untouched: it turns with its parent.
    EXPECT_EQ(s.skeleton.joints[1].bind.translate, (Vec3{1, 0, 0}));
    EXPECT_EQ(s.skeleton.joints[1].bind.rotate, (Quat{0, 0, 0.6f, 0.8f}));
    const auto& tracks = s.animations[0].tracks;
    expect_vec({tracks[0].values[3], tracks[0].values[4], tracks[0].values[5]}, {0, 0.5f, 1});
    // R * (0.6,0,0,0.8): x = 0.8*... via the Hamilton product.
    const float r1[4] = {tracks[1].values[4], tracks[1].values[5], tracks[1].values[6], tracks[1].values[7]};
    EXPECT_NEAR(r1[0], h * 0.6f, 1e-6);
    EXPECT_NEAR(r1[1], h * 0.6f, 1e-6);
    EXPECT_NEAR(r1[2], h * 0.8f, 1e-6);
    EXPECT_NEAR(r1[3], h * 0.8f, 1e-6);
    EXPECT_EQ(tracks[2].values, rig().animations[0].tracks[2].values);  // child rotation keys
    EXPECT_EQ(tracks[3].values, rig().animations[0].tracks[3].values);  // child translation keys
}

TEST(Transform, RotatedRigSkinsToRotatedPositions) {
    Scene before = rig(), after = rig();
    apply_transform(after, {1.0f, {30, -45, 120}, {0, 0, 0}});
    // The same turn applied to the skinned result, built independently: rotate a probe mesh.
    for (uint32_t f = 0; f < 2; ++f) {
        Scene probe;
        Mesh m;
        for (auto& p : skinned(before, f)) m.positions.push_back({float(p[0]), float(p[1]), float(p[2])});
        probe.meshes.push_back(m);
        apply_transform(probe, {1.0f, {30, -45, 120}, {0, 0, 0}});
        auto got = skinned(after, f);
        for (size_t v = 0; v < got.size(); ++v)
            for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[v][k], probe.meshes[0].positions[v][k], 1e-5) << f << "," << v;
    }
}

TEST(Transform, MeshtransMovesTheMeshOnlyAfterScaling) {
    Scene s = rig();
    apply_transform(s, {2.0f, {0, 0, 0}, {1, 0, -1}});
    expect_vec(s.meshes[0].positions[0], {3, 0, -1});  // (1*2)+1, not (1+1)*2
    expect_vec(s.skeleton.joints[0].bind.translate, {0, 0, 2});
    expect_vec(s.meshes[0].morph_targets[0].position_deltas[0], {2, 0, 0});
}

TEST(Transform, IdentityChangesNothing) {
    Scene s = rig();
    apply_transform(s, {});
    Scene r = rig();
    EXPECT_EQ(s.meshes[0].positions, r.meshes[0].positions);
    EXPECT_EQ(s.skeleton.joints[0].bind.rotate, r.skeleton.joints[0].bind.rotate);
    EXPECT_EQ(s.animations[0].tracks[0].values, r.animations[0].tracks[0].values);
}

}  // namespace
}  // namespace rigport
