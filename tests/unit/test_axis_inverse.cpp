// convert_to_z_up (the inverse of convert_to_y_up), set_front_face and iqm_conventions_copy: what
// the IQM / IQE writers do to a glTF (Y up, counter-clockwise) scene.
#include <gtest/gtest.h>

#include <cmath>

#include "rigport/anim.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"

namespace rigport::test {
namespace {

Scene sample_with_morph() {
    Scene s = make_sample_scene();
    MorphTarget mt;
    mt.position_deltas.assign(s.meshes[0].vertex_count(), Vec3{0.25f, -0.5f, 0.125f});
    mt.normal_deltas.assign(s.meshes[0].vertex_count(), Vec3{1, 2, 3});
    s.meshes[0].morph_targets.push_back(mt);
    return s;
}

void expect_quat_near(const Quat& a, const Quat& b, double tol, const std::string& what) {
    const float sign = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1.0f : 1.0f;
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(a[k] * sign, b[k], tol) << what;
}

TEST(AxisInverse, ZUpThroughYUpAndBackIsTheIdentity) {
    const Scene original = sample_with_morph();
    Scene s = original;
    convert_to_y_up(s);
    convert_to_z_up(s);
    EXPECT_EQ(s.meta.up, UpAxis::Z);
    const Mesh &a = original.meshes[0], &b = s.meshes[0];
    EXPECT_EQ(b.positions, a.positions) << "exact: both maps are signed permutations";
    EXPECT_EQ(b.normals, a.normals);
    EXPECT_EQ(b.tangents, a.tangents);
    EXPECT_EQ(b.morph_targets[0].position_deltas, a.morph_targets[0].position_deltas);
    EXPECT_EQ(b.morph_targets[0].normal_deltas, a.morph_targets[0].normal_deltas);
    EXPECT_EQ(b.triangles, a.triangles);
    for (size_t j = 0; j < original.skeleton.joints.size(); ++j) {
        const Transform &x = original.skeleton.joints[j].bind, &y = s.skeleton.joints[j].bind;
        for (int k = 0; k < 3; ++k) EXPECT_EQ(y.translate[k], x.translate[k]) << j;
        expect_quat_near(y.rotate, x.rotate, 1e-7, "joint " + std::to_string(j));
    }
    for (size_t i = 0; i < original.animations.size(); ++i)
        for (size_t t = 0; t < original.animations[i].tracks.size(); ++t) {
            const JointTrack &x = original.animations[i].tracks[t], &y = s.animations[i].tracks[t];
            ASSERT_EQ(x.values.size(), y.values.size());
            for (size_t k = 0; k < x.values.size(); ++k) EXPECT_NEAR(y.values[k], x.values[k], 1e-7) << "track " << t;
        }
}

TEST(AxisInverse, YUpMapAndJointWorldMatrices) {
    Scene s = make_sample_scene();
    convert_to_y_up(s);
    const Scene yup = s;
    convert_to_z_up(s);
    for (size_t v = 0; v < yup.meshes[0].positions.size(); ++v) {
        const Vec3& p = yup.meshes[0].positions[v];
        EXPECT_EQ(s.meshes[0].positions[v], (Vec3{p[0], -p[2], p[1]})) << v;
    }
    // Joint world matrices turned by C: x' = x, y' = -z, z' = y.
    Mat4 c{};
    c[0] = {1, 0, 0, 0};
    c[1] = {0, 0, 1, 0};
    c[2] = {0, -1, 0, 0};
    c[3] = {0, 0, 0, 1};
    for (size_t a = 0; a < yup.animations.size(); ++a)
        for (float t : {0.0f, 0.3f}) {
            const auto before = world_matrices(yup.skeleton, sample_pose(yup.skeleton, yup.animations[a], t));
            const auto after = world_matrices(s.skeleton, sample_pose(s.skeleton, s.animations[a], t));
            for (size_t j = 0; j < before.size(); ++j) {
                const Mat4 want = multiply(c, before[j]);
                for (int col = 0; col < 4; ++col)
                    for (int row = 0; row < 4; ++row) EXPECT_NEAR(after[j][col][row], want[col][row], 1e-5) << "joint " << j;
            }
        }
}

TEST(AxisInverse, XUpGoesThroughYUp) {
    Scene s = make_sample_scene();
    s.meta.up = UpAxis::X;
    const Vec3 p = s.meshes[0].positions[5];
    convert_to_z_up(s);
    EXPECT_EQ(s.meta.up, UpAxis::Z);
    EXPECT_EQ(s.meshes[0].positions[5], (Vec3{-p[1], -p[2], p[0]})) << "X up: +X becomes +Z";
    Scene unknown = make_sample_scene();
    unknown.meta.up = UpAxis::Unknown;
    const Scene kept = unknown;
    convert_to_z_up(unknown);
    EXPECT_EQ(unknown.meshes[0].positions, kept.meshes[0].positions);
}

TEST(AxisInverse, SetFrontFaceReversesOnlyKnownDifferentWindings) {
    Scene s = make_sample_scene();  // clockwise
    s.meta.has_stored_adjacency = true;
    s.meta.stored_adjacency = {{0, 1, 2}};
    const auto before = s.meshes[0].triangles;
    set_front_face(s, Winding::Clockwise);
    EXPECT_EQ(s.meshes[0].triangles, before);
    EXPECT_TRUE(s.meta.has_stored_adjacency);
    set_front_face(s, Winding::CounterClockwise);
    EXPECT_EQ(s.meta.front_face, Winding::CounterClockwise);
    for (size_t t = 0; t < before.size(); ++t) EXPECT_EQ(s.meshes[0].triangles[t], (Triangle{before[t][0], before[t][2], before[t][1]}));
    EXPECT_FALSE(s.meta.has_stored_adjacency);
    EXPECT_TRUE(s.meta.stored_adjacency.empty());
    s.meta.front_face = Winding::Unknown;
    const auto now = s.meshes[0].triangles;
    set_front_face(s, Winding::Clockwise);
    EXPECT_EQ(s.meshes[0].triangles, now) << "unknown winding: nothing to compare with";
}

TEST(AxisInverse, IqmConventionsCopy) {
    EXPECT_FALSE(iqm_conventions_copy(make_sample_scene())) << "already Z up and clockwise";
    Scene gltf = make_sample_scene();
    convert_to_y_up(gltf);
    set_front_face(gltf, Winding::CounterClockwise);
    auto copy = iqm_conventions_copy(gltf);
    ASSERT_TRUE(copy);
    EXPECT_EQ(copy->meta.up, UpAxis::Z);
    EXPECT_EQ(copy->meta.front_face, Winding::Clockwise);
    EXPECT_EQ(copy->meshes[0].positions, make_sample_scene().meshes[0].positions);
    EXPECT_EQ(copy->meshes[0].triangles, make_sample_scene().meshes[0].triangles);
    for (auto& j : copy->skeleton.joints) EXPECT_LE(j.bind.rotate[3], 0.0f) << "w <= 0 as the reference compiler writes";
    for (auto& a : copy->animations)
        for (auto& t : a.tracks)
            if (t.channel == Channel::Rotation) {
                for (size_t k = 3; k < t.values.size(); k += 4) EXPECT_LE(t.values[k], 0.0f);
            }
}

}  // namespace
}  // namespace rigport::test
