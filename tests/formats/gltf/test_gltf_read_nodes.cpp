// glTF 2.0 reader, nodes and skins: static transforms baked into meshes (a mirror flips the
// winding), animated nodes made joints with rigid binding, joints sorted parent-first with JOINTS
// remapped, inverse bind matrices that are not the inverse rest pose baked (docs/gltf.md §8.3),
// static ancestors folded into root joints, and errors for cycles and second parents.
#include <gtest/gtest.h>

#include <cmath>

#include "formats/gltf/gltf_fixture.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"

namespace rigport::test {
namespace {

using json = nlohmann::json;
using P3 = std::array<double, 3>;

const std::vector<float> triangle = {0, 0, 0, 1, 0, 0, 0, 1, 0};
const float half_sqrt2 = float(std::sqrt(0.5));  // float: it fills float arrays (accessors, quaternions)

Mat4 trs(Vec3 t, Quat r = {0, 0, 0, 1}, Vec3 s = {1, 1, 1}) { return transform_matrix(Transform{t, r, s}); }

void expect_near(const P3& a, const P3& b, double tol, const std::string& what) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(a[k], b[k], tol) << what << " [" << k << "]";
}

std::vector<float> column_major(const Mat4& m) {
    std::vector<float> out;
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) out.push_back(float(m[c][r]));
    return out;
}

// Skinned positions of mesh m at time t of animation a (the scene's own sampler and skinning).
std::vector<P3> posed(const Scene& s, size_t m, size_t a, float t) {
    return skin_positions(s.meshes[m], skinning_matrices(s.skeleton, sample_pose(s.skeleton, s.animations.at(a), t)));
}

TEST(GltfReadNodes, StaticTransformsBakedIntoVertices) {
    GltfFixture f;
    const Quat z90{0, 0, float(half_sqrt2), float(half_sqrt2)};
    const uint32_t child = f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")},
                                        {"NORMAL", f.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3")},
                                        {"TANGENT", f.floats({1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, "VEC4")}},
                                       -1, 4, {{"translation", {0, 0, 1}}});
    f.push("nodes", {{"children", {child}}, {"translation", {1, 2, 3}}, {"rotation", {z90[0], z90[1], z90[2], z90[3]}}, {"scale", {2, 2, 2}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_TRUE(s->skeleton.joints.empty()) << "nothing moves: no joints";
    const Mat4 world = multiply(trs({1, 2, 3}, z90, {2, 2, 2}), trs({0, 0, 1}));
    const Mesh& m = s->meshes.at(0);
    for (size_t v = 0; v < 3; ++v) {
        expect_near({m.positions[v][0], m.positions[v][1], m.positions[v][2]},
                    transform_point(world, {triangle[v * 3], triangle[v * 3 + 1], triangle[v * 3 + 2]}), 1e-6, "position");
        expect_near({m.normals[v][0], m.normals[v][1], m.normals[v][2]}, {0, 0, 1}, 1e-6, "normal");
        expect_near({m.tangents[v][0], m.tangents[v][1], m.tangents[v][2]}, {0, 1, 0}, 1e-6, "tangent turned with the node");
        EXPECT_EQ(m.tangents[v][3], 1.0f);
    }
    EXPECT_EQ(m.triangles, (std::vector<Triangle>{{0, 1, 2}}));
}

TEST(GltfReadNodes, MirrorTransformFlipsWinding) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}, {"NORMAL", f.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3")},
                 {"TANGENT", f.floats({1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, "VEC4")}},
                f.indices({0, 1, 2}), 4, {{"scale", {-1, 1, 1}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    const Mesh& m = s->meshes.at(0);
    EXPECT_EQ(m.positions, (std::vector<Vec3>{{0, 0, 0}, {-1, 0, 0}, {0, 1, 0}}));
    // The mirrored triangle (0,0,0) (-1,0,0) (0,1,0) is clockwise seen from +Z: corners swapped back.
    EXPECT_EQ(m.triangles, (std::vector<Triangle>{{0, 2, 1}}));
    EXPECT_EQ(m.normals[0], (Vec3{0, 0, 1}));
    EXPECT_EQ(m.tangents[0], (Vec4{-1, 0, 0, -1})) << "bitangent = cross(n, t) * w keeps pointing along +Y";
}

TEST(GltfReadNodes, AnimatedNodeBecomesAJointWithRigidBinding) {
    GltfFixture f;
    const uint32_t n = f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, -1, 4, {{"name", "lid"}, {"translation", {0, 0, 1}}});
    f.push("nodes", {{"name", "base"}, {"children", {n}}, {"translation", {0, 5, 0}}, {"rotation", {0, 0, half_sqrt2, half_sqrt2}}});
    const uint32_t in = f.floats({0, 1}, "SCALAR"), out = f.floats({0, 0, 1, 2, 0, 1}, "VEC3");
    f.push("animations", {{"channels", {{{"sampler", 0}, {"target", {{"node", n}, {"path", "translation"}}}}}},
                          {"samplers", {{{"input", in}, {"output", out}}}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    // The static parent is a similarity: folded into the joint, which stays alone.
    ASSERT_EQ(s->skeleton.joints.size(), 1u);
    EXPECT_EQ(s->skeleton.joints[0].name, "lid");
    const Mesh& m = s->meshes.at(0);
    ASSERT_FALSE(m.skin.empty());
    for (uint32_t v = 0; v < 3; ++v) {
        ASSERT_EQ(m.skin.count(v), 1u);
        EXPECT_EQ(m.skin.begin(v)->joint, 0u);
        EXPECT_EQ(m.skin.begin(v)->weight, 1.0f);
    }
    const Mat4 parent = trs({0, 5, 0}, {0, 0, float(half_sqrt2), float(half_sqrt2)});
    for (float t : {0.0f, 0.25f, 1.0f}) {
        const Mat4 world = multiply(parent, trs({2 * t, 0, 1}));
        const auto got = posed(*s, 0, 0, t);
        for (size_t v = 0; v < 3; ++v)
            expect_near(got[v], transform_point(world, {triangle[v * 3], triangle[v * 3 + 1], triangle[v * 3 + 2]}), 1e-5, "t " + std::to_string(t));
    }
}

TEST(GltfReadNodes, MeshOnAStaticChildOfAJointFollowsTheJoint) {
    GltfFixture f;
    const uint32_t leaf = f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, -1, 4, {{"translation", {3, 0, 0}}});
    const uint32_t arm = f.push("nodes", {{"name", "arm"}, {"children", {leaf}}});
    const uint32_t in = f.floats({0, 1}, "SCALAR"), out = f.floats({0, 0, 0, 1, 0, 0, half_sqrt2, half_sqrt2}, "VEC4");
    f.push("animations", {{"name", "swing"}, {"channels", {{{"sampler", 0}, {"target", {{"node", arm}, {"path", "rotation"}}}}}},
                          {"samplers", {{{"input", in}, {"output", out}}}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->skeleton.joints.size(), 1u);
    EXPECT_EQ(s->animations.at(0).name, "swing");
    const auto got = posed(*s, 0, 0, 1.0f);  // 90 degrees about Z: (3,0,0) -> (0,3,0)
    expect_near(got[0], {0, 3, 0}, 1e-5, "vertex 0");
    expect_near(got[1], {0, 4, 0}, 1e-5, "vertex 1");
}

TEST(GltfReadNodes, JointsListedChildFirstAreSortedAndJointsRemapped) {
    GltfFixture f;
    const std::vector<uint8_t> joints = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    const std::vector<float> weights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}, {"JOINTS_0", f.accessor(joints, 5121, "VEC4")}, {"WEIGHTS_0", f.floats(weights, "VEC4")}},
                -1, 4, {{"skin", 0}});
    const uint32_t child = f.push("nodes", {{"name", "child"}, {"translation", {0, 1, 0}}});
    const uint32_t parent = f.push("nodes", {{"name", "parent"}, {"children", {child}}});
    std::vector<float> ibm = column_major(trs({0, -1, 0}));
    const std::vector<float> identity = column_major(identity_matrix());
    ibm.insert(ibm.end(), identity.begin(), identity.end());
    f.push("skins", {{"joints", {child, parent}}, {"inverseBindMatrices", f.floats(ibm, "MAT4")}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->skeleton.joints.size(), 2u);
    EXPECT_EQ(s->skeleton.joints[0].name, "parent");
    EXPECT_EQ(s->skeleton.joints[0].parent, -1);
    EXPECT_EQ(s->skeleton.joints[1].name, "child");
    EXPECT_EQ(s->skeleton.joints[1].parent, 0);
    const SkinInfluences& skin = s->meshes.at(0).skin;
    EXPECT_EQ(skin.begin(0)->joint, 1u) << "skin slot 0 = node 'child' = joint 1";
    EXPECT_EQ(skin.begin(1)->joint, 0u);
    EXPECT_EQ(skin.begin(2)->joint, 1u);
    EXPECT_FALSE(s->warnings.has(WarningCode::BindPoseMismatch)) << "IBMs are the inverse rest pose: nothing baked";
    EXPECT_EQ(s->meshes[0].positions, (std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})) << "untouched, bit for bit";
}

// glTF skins a vertex with jointWorld(t) * IBM * v. When the IBMs hold an extra transform B (a
// folded bind-shape matrix), rigport's vertices become B * v and its skinning reproduces glTF's.
TEST(GltfReadNodes, InverseBindMatricesOtherThanTheRestPoseAreBaked) {
    GltfFixture f;
    const std::vector<uint8_t> joints(12, 0);
    const std::vector<float> weights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}, {"NORMAL", f.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3")},
                 {"JOINTS_0", f.accessor(joints, 5121, "VEC4")}, {"WEIGHTS_0", f.floats(weights, "VEC4")}},
                -1, 4, {{"skin", 0}, {"translation", {100, 100, 100}}});  // ignored: a skinned mesh's node transform
    const uint32_t bone = f.push("nodes", {{"name", "bone"}, {"translation", {0, 1, 0}}});
    const Mat4 rest = trs({0, 1, 0});
    const Mat4 bind_shape = trs({0, 0, 5}, {half_sqrt2, 0, 0, half_sqrt2}, {2, 2, 2});
    const Mat4 ibm = multiply(inverse_affine(rest), bind_shape);
    f.push("skins", {{"joints", {bone}}, {"inverseBindMatrices", f.floats(column_major(ibm), "MAT4")}});
    const uint32_t in = f.floats({0, 1}, "SCALAR"), out = f.floats({0, 0, 0, 1, 0, 0, half_sqrt2, half_sqrt2}, "VEC4");
    f.push("animations", {{"channels", {{{"sampler", 0}, {"target", {{"node", bone}, {"path", "rotation"}}}}}}, {"samplers", {{{"input", in}, {"output", out}}}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_TRUE(s->warnings.has(WarningCode::BindPoseMismatch));
    const Mesh& m = s->meshes.at(0);
    for (size_t v = 0; v < 3; ++v) {
        const P3 local{triangle[v * 3], triangle[v * 3 + 1], triangle[v * 3 + 2]};
        expect_near({m.positions[v][0], m.positions[v][1], m.positions[v][2]}, transform_point(bind_shape, local), 1e-5, "baked");
        expect_near({m.normals[v][0], m.normals[v][1], m.normals[v][2]}, {0, -1, 0}, 1e-6, "normal turned by B");
    }
    for (float t : {0.0f, 0.5f, 1.0f}) {
        const Quat q = sample_pose(s->skeleton, s->animations[0], t)[0].rotate;
        const Mat4 joint_world = trs({0, 1, 0}, q);  // the bone is a root: world = local
        const auto got = posed(*s, 0, 0, t);
        for (size_t v = 0; v < 3; ++v)
            expect_near(got[v], transform_point(multiply(joint_world, ibm), {triangle[v * 3], triangle[v * 3 + 1], triangle[v * 3 + 2]}), 1e-5,
                        "glTF skinning at t " + std::to_string(t));
    }
}

TEST(GltfReadNodes, SeveralSkinsShareOneSkeleton) {
    GltfFixture f;
    const std::vector<uint8_t> joints(12, 0);
    const std::vector<float> weights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const json attributes = {{"POSITION", f.floats(triangle, "VEC3")}, {"JOINTS_0", f.accessor(joints, 5121, "VEC4")}, {"WEIGHTS_0", f.floats(weights, "VEC4")}};
    f.mesh_node(attributes, -1, 4, {{"skin", 0}});
    f.mesh_node(attributes, -1, 4, {{"skin", 1}});
    const uint32_t c = f.push("nodes", {{"name", "c"}, {"translation", {0, 1, 0}}});
    const uint32_t b = f.push("nodes", {{"name", "b"}, {"children", {c}}, {"translation", {0, 1, 0}}});
    const uint32_t a = f.push("nodes", {{"name", "a"}, {"children", {b}}});
    f.push("skins", {{"joints", {a, b}}});
    f.push("skins", {{"joints", {b, c}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->skeleton.joints.size(), 3u);
    EXPECT_EQ(s->skeleton.joints[0].name, "a");
    EXPECT_EQ(s->skeleton.joints[1].name, "b");
    EXPECT_EQ(s->skeleton.joints[2].name, "c");
    EXPECT_EQ(s->meshes.at(0).skin.begin(0)->joint, 0u);
    EXPECT_EQ(s->meshes.at(1).skin.begin(0)->joint, 1u) << "skin 1's slot 0 is node b";
}

TEST(GltfReadNodes, MatrixDecomposedToTrs) {
    GltfFixture f;
    const Transform t{{1, 2, 3}, {0, float(half_sqrt2), 0, float(half_sqrt2)}, {2, 3, 4}};
    const uint32_t n = f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, -1, 4, {{"matrix", column_major(transform_matrix(t))}});
    f.push("animations", {{"channels", {{{"sampler", 0}, {"target", {{"node", n}, {"path", "scale"}}}}}},
                          {"samplers", {{{"input", f.floats({0}, "SCALAR")}, {"output", f.floats({2, 3, 4}, "VEC3")}}}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->skeleton.joints.size(), 1u);
    const Transform& b = s->skeleton.joints[0].bind;
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(b.translate[k], t.translate[k], 1e-6);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(b.scale[k], t.scale[k], 1e-6);
    const float sign = b.rotate[3] * t.rotate[3] < 0 ? -1.0f : 1.0f;
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(b.rotate[k] * sign, t.rotate[k], 1e-6);
}

TEST(GltfReadNodes, NonUniformStaticAncestorBecomesAJoint) {
    GltfFixture f;
    const uint32_t n = f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, -1, 4, {{"name", "spin"}, {"translation", {1, 0, 0}}});
    f.push("nodes", {{"name", "squash"}, {"children", {n}}, {"scale", {1, 2, 1}}});
    const uint32_t in = f.floats({0, 1}, "SCALAR"), out = f.floats({0, 0, 0, 1, 0, 0, half_sqrt2, half_sqrt2}, "VEC4");
    f.push("animations", {{"channels", {{{"sampler", 0}, {"target", {{"node", n}, {"path", "rotation"}}}}}}, {"samplers", {{{"input", in}, {"output", out}}}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->skeleton.joints.size(), 2u) << "a non-uniform scale cannot fold into the child's TRS";
    EXPECT_EQ(s->skeleton.joints[0].name, "squash");
    EXPECT_EQ(s->skeleton.joints[1].parent, 0);
    const auto got = posed(*s, 0, 0, 1.0f);
    const Mat4 world = multiply(trs({0, 0, 0}, {0, 0, 0, 1}, {1, 2, 1}), trs({1, 0, 0}, {0, 0, float(half_sqrt2), float(half_sqrt2)}));
    for (size_t v = 0; v < 3; ++v) expect_near(got[v], transform_point(world, {triangle[v * 3], triangle[v * 3 + 1], triangle[v * 3 + 2]}), 1e-5, "posed");
}

TEST(GltfReadNodes, TheChosenSceneOnly) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, -1, 4, {{"name", "first"}});
    f.mesh_node({{"POSITION", f.floats({0, 0, 0, 2, 0, 0, 0, 2, 0}, "VEC3")}}, -1, 4, {{"name", "second"}});
    f.doc["scenes"] = {{{"nodes", {0}}}, {{"nodes", {1}}}};
    f.doc["scene"] = 1;
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 1u);
    EXPECT_EQ(s->meshes[0].name, "second");
    EXPECT_TRUE(s->warnings.has(WarningCode::DroppedData));
}

TEST(GltfReadNodes, CyclesAndSecondParentsAreErrors) {
    {
        GltfFixture f;
        f.doc["nodes"] = {{{"name", "a"}, {"children", {1}}}, {{"name", "b"}, {"children", {0}}}};
        auto s = f.load();
        ASSERT_FALSE(s);
        EXPECT_NE(s.error().message.find("/nodes/0: node 0 'a' is part of a cycle"), std::string::npos) << s.error().to_string();
    }
    {
        GltfFixture f;
        f.doc["nodes"] = {{{"children", {0}}}};
        auto s = f.load();
        ASSERT_FALSE(s);
        EXPECT_NE(s.error().message.find("/nodes/0/children/0: node 0 is its own child"), std::string::npos) << s.error().to_string();
    }
    {
        GltfFixture f;
        f.doc["nodes"] = {{{"children", {2}}}, {{"children", {2}}}, json::object()};
        auto s = f.load();
        ASSERT_FALSE(s);
        EXPECT_NE(s.error().message.find("/nodes/1/children/0: node 2 has two parents: node 0 and node 1"), std::string::npos) << s.error().to_string();
    }
}

}  // namespace
}  // namespace rigport::test
