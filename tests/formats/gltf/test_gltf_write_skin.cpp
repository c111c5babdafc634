// glTF 2.0 writer: skins, joints and weights, inverse bind matrices, axis modes, common roots and
// animations (docs/gltf.md §1-§4). Output parsed independently (gltf_parse.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "formats/gltf/gltf_parse.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"

namespace rigport::test {
namespace {

// Two root joints (the second named "root"), a child, one skinned triangle fan with messy weights
// and an unskinned mesh.
Scene two_roots() {
    Scene s;
    s.meta.up = UpAxis::Z;
    s.meta.front_face = Winding::Clockwise;
    s.skeleton.joints.resize(3);
    s.skeleton.joints[0].name = "hips";
    s.skeleton.joints[0].bind.translate = {0, 0, 1};
    s.skeleton.joints[1].name = "spine";
    s.skeleton.joints[1].parent = 0;
    s.skeleton.joints[1].bind.translate = {0, 0, 1};
    s.skeleton.joints[1].bind.rotate = {0, 0, 0.6f, 0.8f};
    s.skeleton.joints[2].name = "root";
    s.skeleton.joints[2].bind.translate = {2, 0, 0};
    Mesh m;
    m.name = "skinned";
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 2}, {1, 1, 1}};
    m.triangles = {{0, 1, 2}, {0, 2, 3}, {1, 3, 4}};
    // v0: joint 1 twice (merged to 0.75); v1: a zero weight; v2: six influences; v3, v4: one each.
    m.skin.offsets = {0, 3, 5, 11, 12, 13};
    m.skin.influences = {{1, 0.5f}, {0, 0.25f}, {1, 0.25f}, {2, 0.0f}, {0, 2.0f},
                         {0, 0.125f}, {1, 0.25f}, {2, 0.375f}, {0, 0.125f}, {1, 0.25f}, {2, 0.125f}, {1, 1}, {2, 1}};
    Mesh rigid;
    rigid.name = "rigid";
    rigid.positions = {{5, 6, 7}, {5, 7, 7}, {6, 6, 7}};
    rigid.triangles = {{0, 1, 2}};
    s.meshes = {m, rigid};
    return s;
}

// A joint whose rest pose scales an axis to 0 has no inverse bind matrix: rounding made one
// with entries near 1e17 that rigport's own reader could not bake (a fuzz finding). The writer
// now writes the inverse of its rest place and rotation, says so, and the file reads back.
TEST(GltfSkin, AJointFlattenedAtRestGetsTheInverseOfItsPlaceAndRotation) {
    Scene s = two_roots();
    s.meta.up = UpAxis::Y;  // no axis change: the matrices as the scene has them
    s.skeleton.joints[1].bind.scale = {0, 1, 1};
    Warnings warnings;
    SaveOptions options;
    options.format = "glb";
    options.warnings = &warnings;
    auto out = save_bytes(s, "flat.glb", options);
    ASSERT_TRUE(out) << out.error().to_string();
    const bool said = std::any_of(warnings.items.begin(), warnings.items.end(), [](const Warning& w) { return w.message.find("joint 'spine'") != std::string::npos; });
    EXPECT_TRUE(said);
    LoadOptions back;
    back.format = "gltf";
    auto read = load_bytes(*out, "flat.glb", back);
    ASSERT_TRUE(read) << read.error().to_string();
    // The inverse bind matrix of 'spine' is that of its place and rotation alone.
    ParsedGltf g = write_glb(s);
    const std::vector<double> ibm = g.accessor(g.json["skins"][0]["inverseBindMatrices"].get<int>());
    Transform unflat = s.skeleton.joints[1].bind;
    unflat.scale = {1, 1, 1};
    const Mat4 expected = inverse_affine(multiply(transform_matrix(s.skeleton.joints[0].bind), transform_matrix(unflat)));
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r) EXPECT_NEAR(ibm[16 + size_t(c) * 4 + size_t(r)], expected[size_t(c)][size_t(r)], 1e-6) << c << " " << r;
}

// The same case with a very long axis: a joint chain scaled 2.7e14 along z and sheared by a
// rotation between them (a mutated FBX of ours, found by the sanitizer build). An inverse of place and
// rotation alone left the joints' scale in W * IBM, and baking vertices near 2.7e14 with it went
// beyond float range, so rigport refused its own GLB. The lost axis is now filled in and the
// spanning ones kept: the file reads back and, at rest, the skinned vertices stay within the
// model's size.
TEST(GltfSkin, AJointFlattenedByAHugeShearReadsBackWithinFloatRange) {
    Scene s;
    s.meta.up = UpAxis::Y;
    s.skeleton.joints.resize(2);
    s.skeleton.joints[0].name = "Root";
    s.skeleton.joints[0].bind = {{0, 1, 0}, {0, 0.31622776f, 0, 0.9486833f}, {1, 1, 2.7157937e14f}};
    s.skeleton.joints[1].name = "Tip";
    s.skeleton.joints[1].parent = 0;
    s.skeleton.joints[1].bind = {{0, -4.2657382e8f, 0}, {0, -0.4082483f, 0.8164966f, 0.4082483f}, {1, 1, 2.7157937e14f}};
    Mesh m;
    m.name = "Quad";
    m.positions = {{2.7157937e14f, 0, 1}, {2.8e14f, 0, 1}, {2.8e14f, 1e13f, 1}, {2.7157937e14f, 1e13f, 1}};
    m.triangles = {{0, 1, 2}, {0, 2, 3}};
    m.skin.offsets = {0, 1, 2, 3, 4};
    m.skin.influences = {{1, 1}, {1, 1}, {0, 1}, {1, 1}};
    s.meshes.push_back(m);
    Warnings warnings;
    SaveOptions options;
    options.format = "glb";
    options.warnings = &warnings;
    auto out = save_bytes(s, "shear.glb", options);
    ASSERT_TRUE(out) << out.error().to_string();
    const bool said = std::any_of(warnings.items.begin(), warnings.items.end(), [](const Warning& w) { return w.message.find("joint 'Tip'") != std::string::npos; });
    EXPECT_TRUE(said);
    LoadOptions back;
    back.format = "gltf";
    auto read = load_bytes(*out, "shear.glb", back);
    ASSERT_TRUE(read) << read.error().to_string();
    ASSERT_EQ(read->meshes.size(), 1u);
    // Baked with a W * IBM that maps what the joint keeps to itself and nothing beyond it: every
    // coordinate stays within a few times the model's size (3e14).
    for (const Vec3& p : read->meshes[0].positions)
        for (float v : p) EXPECT_LE(std::fabs(v), 1e15f);
    // The vertex on the unflattened Root is where it was, within float rounding of 3e14.
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(read->meshes[0].positions[2][size_t(k)], m.positions[2][size_t(k)], 1e8) << k;
}

TEST(GltfSkin, JointsMergedWeightsNormalized) {
    ParsedGltf g = write_glb(two_roots());
    ASSERT_EQ(g.attribute(1, "JOINTS_0"), -1);  // the rigid mesh has no skin
    EXPECT_FALSE(g.json["nodes"][g.json["nodes"].size() - 1].contains("skin"));
    const std::vector<double> j0 = g.accessor(g.attribute(0, "JOINTS_0")), w0 = g.accessor(g.attribute(0, "WEIGHTS_0"));
    ASSERT_EQ(g.attribute(0, "JOINTS_1"), -1);  // v2's six influences merge to three
    const std::vector<double> j1(20, 0.0), w1(20, 0.0);
    EXPECT_EQ(g.accessor_json(g.attribute(0, "JOINTS_0"))["componentType"], 5121);
    for (size_t v = 0; v < 5; ++v) {
        float sum = 0;
        std::vector<double> seen;
        for (size_t k = 0; k < 8; ++k) {
            const double joint = k < 4 ? j0[v * 4 + k] : j1[v * 4 + k - 4];
            const double weight = k < 4 ? w0[v * 4 + k] : w1[v * 4 + k - 4];
            sum += float(weight);
            if (weight > 0) {
                EXPECT_EQ(std::count(seen.begin(), seen.end(), joint), 0) << "vertex " << v << " lists joint " << joint << " twice";
                seen.push_back(joint);
            } else {
                EXPECT_EQ(joint, 0.0) << "padding uses joint 0";
            }
        }
        EXPECT_NEAR(sum, 1.0f, 2e-7f) << "vertex " << v;
    }
    // v0: joint 1 merged to 0.75 and first, joint 0 0.25.
    EXPECT_EQ(j0[0], 1);
    EXPECT_FLOAT_EQ(float(w0[0]), 0.75f);
    EXPECT_EQ(j0[1], 0);
    EXPECT_FLOAT_EQ(float(w0[1]), 0.25f);
    EXPECT_EQ(w0[2], 0.0);
    // v1: the zero weight dropped, joint 0 alone.
    EXPECT_EQ(j0[4], 0);
    EXPECT_EQ(w0[4], 1.0);
    EXPECT_EQ(w0[5], 0.0);
    // v2: merged to joint 1 0.4, joint 2 0.4, joint 0 0.2: heaviest first, ties by joint.
    EXPECT_EQ(j0[8], 1);
    EXPECT_EQ(j0[9], 2);
    EXPECT_EQ(j0[10], 0);
    EXPECT_NEAR(w0[8], 0.4, 1e-7);
    EXPECT_NEAR(w0[10], 0.2, 1e-7);
}

TEST(GltfSkin, MoreThanFourInfluencesUseJointsOne) {
    Scene s = two_roots();
    for (int j = 0; j < 4; ++j) s.skeleton.joints.push_back(Joint{"extra" + std::to_string(j), 1, {}});
    Mesh& m = s.meshes[0];
    m.skin.offsets = {0, 6, 7, 8, 9, 10};
    m.skin.influences = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 1}, {6, 1}, {6, 1}, {6, 1}};
    ParsedGltf g = write_glb(s);
    ASSERT_NE(g.attribute(0, "JOINTS_1"), -1);
    const std::vector<double> j0 = g.accessor(g.attribute(0, "JOINTS_0")), w0 = g.accessor(g.attribute(0, "WEIGHTS_0"));
    const std::vector<double> j1 = g.accessor(g.attribute(0, "JOINTS_1")), w1 = g.accessor(g.attribute(0, "WEIGHTS_1"));
    EXPECT_EQ((std::vector<double>{j0[0], j0[1], j0[2], j0[3], j1[0], j1[1], j1[2], j1[3]}), (std::vector<double>{5, 4, 3, 2, 1, 0, 0, 0}));
    float sum = 0;
    for (int k = 0; k < 4; ++k) sum += float(w0[k]) + float(w1[k]);
    EXPECT_NEAR(sum, 1.0f, 2e-7f);
    EXPECT_NEAR(w1[1], 1.0 / 21, 1e-7);
    EXPECT_EQ(w1[2], 0.0);
    EXPECT_EQ(j1[4], 0.0);  // other vertices: padding only
    EXPECT_EQ(w1[4], 0.0);
}

TEST(GltfSkin, ManyJointsUseUnsignedShort) {
    Scene s = two_roots();
    for (int j = 0; j < 300; ++j) s.skeleton.joints.push_back(Joint{"", j == 0 ? 1 : int32_t(s.skeleton.joints.size() - 1), {}});
    s.meshes[0].skin.influences[0].joint = 302;
    ParsedGltf g = write_glb(s);
    EXPECT_EQ(g.accessor_json(g.attribute(0, "JOINTS_0"))["componentType"], 5123);
    EXPECT_EQ(g.accessor(g.attribute(0, "JOINTS_0"))[0], 302);  // heaviest after merging: 0.5 of 1.0
    EXPECT_EQ(g.json["nodes"][302]["name"], "joint_302");
}

TEST(GltfSkin, MultiRootGetsCommonRoot) {
    ParsedGltf g = write_glb(two_roots());
    const auto& nodes = g.json["nodes"];
    ASSERT_EQ(nodes.size(), 3u + 1 + 2);
    const auto& root = nodes[3];
    EXPECT_EQ(root["name"], "root_1");  // "root" is a joint's name
    EXPECT_EQ(root["children"], nlohmann::json::array({0, 2}));
    EXPECT_FALSE(root.contains("rotation"));  // Bake: identity
    EXPECT_EQ(g.json["skins"][0]["skeleton"], 3);
    EXPECT_EQ(g.json["skins"][0]["joints"], nlohmann::json::array({0, 1, 2}));
    EXPECT_EQ(g.json["scenes"][0]["nodes"], nlohmann::json::array({3, 4, 5}));
    EXPECT_EQ(nodes[4]["skin"], 0);
    EXPECT_FALSE(nodes[4].contains("translation") || nodes[4].contains("rotation") || nodes[4].contains("scale"));
}

// world bind_j * IBM_j = `expected` (identity; the axis rotation in Root mode, whose IBMs are in
// source space), with the world computed from the written nodes.
void expect_ibms_invert_world(const ParsedGltf& g, const Mat4& expected = identity_matrix()) {
    const auto& skin = g.json["skins"][0];
    const std::vector<double> ibm = g.accessor(skin["inverseBindMatrices"]);
    std::vector<Transform> local;
    for (size_t n = 0; n < g.json["nodes"].size(); ++n) local.push_back(g.node_trs(n));
    const std::vector<Mat4> world = g.world(local);
    for (size_t i = 0; i < skin["joints"].size(); ++i) {
        Mat4 m;
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r) m[c][r] = ibm[i * 16 + c * 4 + r];
        EXPECT_EQ(m[0][3], 0.0);
        EXPECT_EQ(m[1][3], 0.0);
        EXPECT_EQ(m[2][3], 0.0);
        EXPECT_EQ(m[3][3], 1.0);
        const Mat4 p = multiply(world[skin["joints"][i].get<size_t>()], m);
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r) EXPECT_NEAR(p[c][r], expected[c][r], 1e-5) << "joint " << i;
    }
}

TEST(GltfSkin, InverseBindMatricesInvertWorldBind) {
    expect_ibms_invert_world(write_glb(make_sample_scene()));
    expect_ibms_invert_world(write_glb(two_roots()));
}

// A skeleton that no mesh uses (an animation clip: Mixamo's "without skin" downloads, an
// .md5anim, a Cal3D .caf with its skeleton) is still a skin: Blender, three.js and Godot build an
// armature from a skin's joints and show plain nodes as empties, one action each. Its nodes and
// inverse bind matrices rest in the first animation's pose at time 0, and rigport reads every
// joint back, the ones no channel moves too.
TEST(GltfSkin, ASkeletonWithoutMeshesIsASkinRestingInItsFirstPose) {
    Scene s;
    s.meta.up = UpAxis::Y;
    s.skeleton.joints.resize(3);
    s.skeleton.joints[0].name = "hips";
    s.skeleton.joints[1].name = "spine";
    s.skeleton.joints[1].parent = 0;
    s.skeleton.joints[2].name = "spine_end";  // no channel moves it
    s.skeleton.joints[2].parent = 1;
    s.skeleton.joints[2].bind.translate = {0, 0.5f, 0};
    s.skeleton.animation_only = true;
    Animation a;
    a.name = "walk";
    a.frame_rate = 30;
    a.tracks.push_back({0, Channel::Translation, Interpolation::Linear, {0, 1}, {0, 1, 0, 0, 1.2f, 0}});
    a.tracks.push_back({1, Channel::Rotation, Interpolation::Linear, {0, 1}, {0, 0, 0.6f, 0.8f, 0, 0, 0, 1}});
    a.tracks.push_back({1, Channel::Translation, Interpolation::Linear, {0}, {0, 0.3f, 0}});
    s.animations.push_back(a);
    ParsedGltf g = write_glb(s);
    ASSERT_TRUE(g.json.contains("skins"));
    ASSERT_EQ(g.json["skins"].size(), 1u);
    EXPECT_EQ(g.json["skins"][0]["joints"], nlohmann::json::array({0, 1, 2}));
    const std::vector<float> rotation = g.json["nodes"][1]["rotation"].get<std::vector<float>>();  // the pose at 0
    EXPECT_EQ(rotation, (std::vector<float>{0, 0, 0.6f, 0.8f}));
    expect_ibms_invert_world(g);
    // Read back: three joints, the still one included, and the clip.
    auto bytes = save_bytes(s, "clip.glb", [] {
        SaveOptions o;
        o.format = "glb";
        return o;
    }());
    ASSERT_TRUE(bytes) << bytes.error().to_string();
    LoadOptions back;
    back.format = "gltf";
    auto read = load_bytes(*bytes, "clip.glb", back);
    ASSERT_TRUE(read) << read.error().to_string();
    ASSERT_EQ(read->skeleton.joints.size(), 3u);
    EXPECT_EQ(read->skeleton.joints[2].name, "spine_end");
    EXPECT_EQ(read->skeleton.joints[2].parent, 1);
    ASSERT_EQ(read->animations.size(), 1u);
    EXPECT_EQ(read->animations[0].name, "walk");
}

// A rig whose meshes hang rigidly under joints (no influences) keeps its skeleton as a skin too.
TEST(GltfSkin, ARigWithRigidPartsIsASkin) {
    Scene s = two_roots();
    s.meta.up = UpAxis::Y;
    for (Mesh& m : s.meshes) m.skin = {};
    ParsedGltf g = write_glb(s);
    ASSERT_TRUE(g.json.contains("skins"));
    expect_ibms_invert_world(g);
    for (const auto& n : g.json["nodes"]) EXPECT_FALSE(n.contains("skin")) << "no mesh is skinned";
}

TEST(GltfAxis, BakeMapsPositionsExactly) {
    const Scene s = two_roots();
    ParsedGltf g = write_glb(s);
    for (size_t m = 0; m < 2; ++m) {
        const std::vector<double> p = g.accessor(g.attribute(m, "POSITION"));
        for (size_t v = 0; v < s.meshes[m].vertex_count(); ++v) {
            const Vec3& q = s.meshes[m].positions[v];
            EXPECT_EQ(float(p[v * 3]), q[0]);
            EXPECT_EQ(float(p[v * 3 + 1]), q[2]);
            EXPECT_EQ(float(p[v * 3 + 2]), -q[1]);
        }
    }
    // The root joints carry the rotation (t' = C t): hips at (0,0,1) is now at (0,1,0).
    EXPECT_EQ(g.json["nodes"][0]["translation"], nlohmann::json::array({0, 1, 0}));
}

TEST(GltfAxis, RootModeKeepsDataUnderAxisNode) {
    const Scene s = two_roots();
    SaveOptions o;
    o.gltf.axis = GltfOptions::AxisMode::Root;
    ParsedGltf g = write_glb(s, o);
    for (size_t m = 0; m < 2; ++m) {
        const std::vector<double> p = g.accessor(g.attribute(m, "POSITION"));
        for (size_t v = 0; v < s.meshes[m].vertex_count(); ++v)
            for (int k = 0; k < 3; ++k) EXPECT_EQ(float(p[v * 3 + k]), s.meshes[m].positions[v][k]);
    }
    const auto& nodes = g.json["nodes"];
    const auto& axis = nodes[3];
    EXPECT_EQ(axis["name"], "axis");
    const std::vector<float> q = axis["rotation"].get<std::vector<float>>();
    EXPECT_EQ(q, (std::vector<float>{-0.70710678f, 0, 0, 0.70710678f}));
    // Root joints and the rigid mesh hang under it; the skinned mesh is a scene root without TRS.
    EXPECT_EQ(axis["children"], nlohmann::json::array({0, 2, 5}));
    EXPECT_EQ(g.json["scenes"][0]["nodes"], nlohmann::json::array({3, 4}));
    EXPECT_EQ(nodes[4]["skin"], 0);
    EXPECT_EQ(g.json["skins"][0]["skeleton"], 3);
    EXPECT_EQ(nodes[0]["translation"], nlohmann::json::array({0, 0, 1}));  // source space
    Transform turn;
    turn.rotate = {-0.70710678f, 0, 0, 0.70710678f};
    expect_ibms_invert_world(g, transform_matrix(turn));
}

TEST(GltfAxis, YUpSceneHasNoAxisNode) {
    Scene s = two_roots();
    s.meta.up = UpAxis::Y;
    SaveOptions o;
    o.gltf.axis = GltfOptions::AxisMode::Root;
    ParsedGltf g = write_glb(s, o);
    EXPECT_EQ(g.json["nodes"][3]["name"], "root_1");
    EXPECT_FALSE(g.json["nodes"][3].contains("rotation"));
}

}  // namespace
}  // namespace rigport::test
