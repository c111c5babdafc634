// convert_to_y_up: the exact (x,y,z) -> (x,z,-y) map of a Z-up scene (docs/gltf.md §1 choice A):
// geometry permuted bit for bit, joints' world matrices turned by C, skinned poses follow.
#include <gtest/gtest.h>

#include <cmath>

#include "rigport/anim.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"

namespace rigport::test {
namespace {

// C as a column-major matrix: x' = x, y' = z, z' = -y.
Mat4 c_matrix() {
    Mat4 c{};
    c[0] = {1, 0, 0, 0};   // image of x
    c[1] = {0, 0, -1, 0};  // image of y
    c[2] = {0, 1, 0, 0};   // image of z
    c[3] = {0, 0, 0, 1};
    return c;
}

void expect_matrix_near(const Mat4& a, const Mat4& b, double tol, const std::string& what) {
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) EXPECT_NEAR(a[c][r], b[c][r], tol) << what << " [" << c << "][" << r << "]";
}

Scene sample_with_extras() {
    Scene s = make_sample_scene();
    MorphTarget mt;
    mt.name = "bulge";
    mt.position_deltas.assign(s.meshes[0].vertex_count(), Vec3{0.25f, -0.5f, 0.125f});
    s.meshes[0].morph_targets.push_back(mt);
    s.meshes[0].custom.push_back({"id", ComponentType::Float32, 3, std::vector<double>(s.meshes[0].vertex_count() * 3, 7.0)});
    s.meta.stored_bounds.push_back({});
    return s;
}

TEST(Axis, ZUpGeometryPermutedExactly) {
    const Scene before = sample_with_extras();
    ASSERT_EQ(before.meta.up, UpAxis::Z);
    Scene after = before;
    convert_to_y_up(after);
    EXPECT_EQ(after.meta.up, UpAxis::Y);
    const Mesh &a = before.meshes[0], &b = after.meshes[0];
    for (size_t v = 0; v < a.positions.size(); ++v) {
        EXPECT_EQ(b.positions[v], (Vec3{a.positions[v][0], a.positions[v][2], -a.positions[v][1]})) << v;
        EXPECT_EQ(b.normals[v], (Vec3{a.normals[v][0], a.normals[v][2], -a.normals[v][1]})) << v;
        EXPECT_EQ(b.tangents[v], (Vec4{a.tangents[v][0], a.tangents[v][2], -a.tangents[v][1], a.tangents[v][3]})) << v;
        EXPECT_EQ(b.morph_targets[0].position_deltas[v], (Vec3{0.25f, 0.125f, 0.5f}));
    }
    EXPECT_EQ(b.custom[0].values, a.custom[0].values);
    EXPECT_EQ(b.triangles, a.triangles);  // a rotation keeps the winding
    EXPECT_TRUE(after.meta.stored_bounds.empty());
    // Only root joints change.
    for (size_t j = 1; j < before.skeleton.joints.size(); ++j)
        EXPECT_EQ(after.skeleton.joints[j].bind.rotate, before.skeleton.joints[j].bind.rotate);
}

TEST(Axis, JointWorldMatricesTurnedByC) {
    const Scene before = make_sample_scene();
    Scene after = before;
    convert_to_y_up(after);
    const Mat4 c = c_matrix();
    auto bind_before = world_matrices(before.skeleton, bind_pose(before.skeleton));
    auto bind_after = world_matrices(after.skeleton, bind_pose(after.skeleton));
    for (size_t j = 0; j < bind_before.size(); ++j) expect_matrix_near(bind_after[j], multiply(c, bind_before[j]), 1e-6, "bind");
    for (size_t a = 0; a < before.animations.size(); ++a)
        for (float t : {0.0f, 0.3f, 0.55f}) {
            auto wa = world_matrices(before.skeleton, sample_pose(before.skeleton, before.animations[a], t));
            auto wb = world_matrices(after.skeleton, sample_pose(after.skeleton, after.animations[a], t));
            for (size_t j = 0; j < wa.size(); ++j) expect_matrix_near(wb[j], multiply(c, wa[j]), 1e-5, "pose");
        }
}

TEST(Axis, SkinnedPosesRotated) {
    const Scene before = make_sample_scene();
    Scene after = before;
    convert_to_y_up(after);
    const Animation& anim = before.animations[0];
    for (uint32_t f : {0u, 7u, 24u}) {
        auto pa = skin_positions(before.meshes[0], skinning_matrices(before.skeleton, frame_pose(before.skeleton, anim, f)));
        auto pb = skin_positions(after.meshes[0], skinning_matrices(after.skeleton, frame_pose(after.skeleton, after.animations[0], f)));
        for (size_t v = 0; v < pa.size(); ++v) {
            EXPECT_NEAR(pb[v][0], pa[v][0], 1e-5);
            EXPECT_NEAR(pb[v][1], pa[v][2], 1e-5);
            EXPECT_NEAR(pb[v][2], -pa[v][1], 1e-5);
        }
    }
}

TEST(Axis, YUpAndUnknownUntouched) {
    for (UpAxis up : {UpAxis::Y, UpAxis::Unknown}) {
        Scene s = make_sample_scene();
        s.meta.up = up;
        const Scene copy = s;
        convert_to_y_up(s);
        EXPECT_EQ(s.meshes[0].positions, copy.meshes[0].positions);
        EXPECT_EQ(s.skeleton.joints[0].bind.rotate, copy.skeleton.joints[0].bind.rotate);
        EXPECT_EQ(s.meta.up, up);
    }
    EXPECT_EQ(y_up_rotation(UpAxis::Y), (Quat{0, 0, 0, 1}));
}

TEST(Axis, XUpMapsXToY) {
    Scene s;
    s.meta.up = UpAxis::X;
    Mesh m;
    m.positions = {{1, 2, 3}};
    s.meshes.push_back(m);
    s.skeleton.joints.resize(1);
    convert_to_y_up(s);
    EXPECT_EQ(s.meshes[0].positions[0], (Vec3{-2, 1, 3}));
    // The root's rotation is now the axis rotation: it maps +X to +Y.
    const auto p = transform_point(transform_matrix(s.skeleton.joints[0].bind), {1, 0, 0});
    EXPECT_NEAR(p[0], 0, 1e-7);
    EXPECT_NEAR(p[1], 1, 1e-7);
    EXPECT_NEAR(p[2], 0, 1e-7);
}

TEST(Axis, ZUpRotationQuaternion) {
    const Quat q = y_up_rotation(UpAxis::Z);
    EXPECT_FLOAT_EQ(q[0], -0.70710678f);
    EXPECT_EQ(q[1], 0.0f);
    EXPECT_EQ(q[2], 0.0f);
    EXPECT_FLOAT_EQ(q[3], 0.70710678f);
}

}  // namespace
}  // namespace rigport::test
