// FBX joints and skins (docs/fbx.md "Writing FBX", §2.4 for how they are read): a LimbNode Model
// with a Skeleton NodeAttribute per joint, a Skin deformer per skinned geometry with one Cluster
// per joint that moves it, and one BindPose holding every joint's and mesh's bind matrix.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "formats/fbx/fbx_write.hpp"

namespace rigport::fbx::out {

namespace {

constexpr double degrees = 180.0 / std::numbers::pi;

// The nearest turn of `a` by whole turns of 360 degrees to `near`.
double nearest_turn(double a, double near) { return a + 360.0 * std::round((near - a) / 360.0); }

}  // namespace

std::array<double, 3> euler_xyz_degrees(const Quat& q) { return euler_xyz_degrees(quatd::D4{q[0], q[1], q[2], q[3]}); }

std::array<double, 3> euler_xyz_degrees(const quatd::D4& q) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    const double n = std::sqrt(x * x + y * y + z * z + w * w);
    if (n > 0) x /= n, y /= n, z /= n, w /= n;
    // The rotation matrix's entries (row, column) that R = Rz(c) Ry(b) Rx(a) fixes.
    const double r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - w * z);
    const double r10 = 2 * (x * y + w * z), r11 = 1 - 2 * (x * x + z * z);
    const double r20 = 2 * (x * z - w * y), r21 = 2 * (y * z + w * x), r22 = 1 - 2 * (x * x + y * y);
    const double b = std::asin(std::clamp(-r20, -1.0, 1.0));
    double a, c;
    if (std::fabs(r20) < 1 - 1e-12) {
        a = std::atan2(r21, r22);
        c = std::atan2(r10, r00);
    } else {
        // Gimbal lock (b = +-90 degrees): only a - c (or a + c) is fixed; c is taken as 0.
        c = 0;
        a = r20 < 0 ? std::atan2(r01, r11) : std::atan2(-r01, r11);
    }
    return {a * degrees, b * degrees, c * degrees};
}

std::array<double, 3> euler_xyz_degrees(const quatd::D4& q, const std::array<double, 3>& near) {
    const auto e = euler_xyz_degrees(q);
    // The same rotation as (a + 180, 180 - b, c + 180); each triple turned to lie nearest `near`,
    // and the nearer kept, so a track's keys never jump by 360 degrees.
    std::array<double, 3> best{}, other{e[0] + 180, 180 - e[1], e[2] + 180};
    double best_distance = INFINITY;
    for (const auto& candidate : {e, other}) {
        std::array<double, 3> turned{};
        double d = 0;
        for (int k = 0; k < 3; ++k) {
            turned[size_t(k)] = nearest_turn(candidate[size_t(k)], near[size_t(k)]);
            d += std::fabs(turned[size_t(k)] - near[size_t(k)]);
        }
        if (d < best_distance) best_distance = d, best = turned;
    }
    return best;
}

quatd::D4 joint_rotation(const Document& doc, uint32_t joint, const Quat& q) {
    return quatd::mul(quatd::conj(doc.joint_pre[joint]), quatd::D4{q[0], q[1], q[2], q[3]});
}

void add_model_properties(Node& model, const Transform& local, const quatd::D4& pre) {
    model.add("Version", {i32(232)});
    Node& p = model.add("Properties70");
    // Plain composition under the parent (InheritType 1, RSrs), as rigport's transforms compose;
    // FBX's default RrSs would scale children differently under a non-uniform scale (§2.2).
    property_enum(p, "InheritType", 1);
    property_enum(p, "RotationOrder", 0);
    property_int(p, "DefaultAttributeIndex", 0);
    // FBX's rotation is PreRotation x Lcl Rotation (both XYZ Euler: docs/fbx.md §2.2).
    if (pre[3] != 1) {
        const auto e = euler_xyz_degrees(pre);
        property_bool(p, "RotationActive", true);
        property_vector(p, "PreRotation", "Vector3D", "Vector", "", {e[0], e[1], e[2]});
    }
    const auto r = euler_xyz_degrees(quatd::mul(quatd::conj(pre), quatd::D4{local.rotate[0], local.rotate[1], local.rotate[2], local.rotate[3]}));
    const double t[3] = {local.translate[0], local.translate[1], local.translate[2]};
    const double e[3] = {r[0], r[1], r[2]};
    const double s[3] = {local.scale[0], local.scale[1], local.scale[2]};
    property_vector(p, "Lcl Translation", "Lcl Translation", "", "A", t);
    property_vector(p, "Lcl Rotation", "Lcl Rotation", "", "A", e);
    property_vector(p, "Lcl Scaling", "Lcl Scaling", "", "A", s);
    model.add("Shading", {boolean(true)});
    model.add("Culling", {str("CullingOff")});
}

void write_joints(Document& doc) {
    const auto& joints = doc.scene.skeleton.joints;
    std::vector<Transform> bind;
    for (const Joint& j : joints) bind.push_back(j.bind);
    doc.joint_world = world_matrices(doc.scene.skeleton, bind);
    for (size_t i = 0; i < joints.size(); ++i) {
        const Joint& j = joints[i];
        const std::string name = name_or(j.name, "joint", i);
        const int64_t attribute = doc.id("NodeAttribute", i);
        Node& a = doc.object("NodeAttribute", attribute, name, "NodeAttribute", "LimbNode");
        property_double(a.add("Properties70"), "Size", 1.0);
        a.add("TypeFlags", {str("Skeleton")});
        const int64_t model = doc.id("Model/joint", i);
        // The rest orientation as the joint's PreRotation (Maya's joint orient), so its rotation
        // curves hold the turn from rest: 0 at rest, far from the Euler angles' gimbal lock.
        quatd::D4 pre{0, 0, 0, 1};
        const Quat& r = j.bind.rotate;
        const double n = std::sqrt(double(r[0]) * r[0] + double(r[1]) * r[1] + double(r[2]) * r[2] + double(r[3]) * r[3]);
        if (doc.options.fbx.pre_rotation && n > 0 && std::fabs(double(r[3])) / n < 1 - 1e-12)
            pre = {r[0] / n, r[1] / n, r[2] / n, r[3] / n};
        doc.joint_pre.push_back(pre);
        add_model_properties(doc.object("Model", model, name, "Model", "LimbNode"), j.bind, pre);
        doc.joint_models.push_back(model);
        doc.connect(attribute, model);
        doc.connect(model, j.parent >= 0 ? doc.joint_models[size_t(j.parent)] : 0);
    }
}

void write_skins(Document& doc) {
    const Scene& scene = doc.scene;
    const size_t joints = scene.skeleton.joints.size();
    bool any_skin = false;
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        if (mesh.skin.empty() || joints == 0) continue;
        any_skin = true;
        // Per joint: the control points it moves and their weights (a joint named twice in one
        // vertex's influences is one weight, their sum).
        std::vector<std::vector<int32_t>> indexes(joints);
        std::vector<std::vector<double>> weights(joints);
        for (uint32_t v = 0; v < mesh.vertex_count(); ++v)
            for (const Influence* in = mesh.skin.begin(v); in != mesh.skin.begin(v) + mesh.skin.count(v); ++in) {
                if (in->weight == 0 || in->joint >= joints) continue;
                auto& ix = indexes[in->joint];
                if (!ix.empty() && ix.back() == int32_t(v)) weights[in->joint].back() += in->weight;
                else ix.push_back(int32_t(v)), weights[in->joint].push_back(in->weight);
            }
        const std::string mesh_name = name_or(mesh.name, "mesh", m);
        const int64_t skin = doc.id("Deformer/skin", m);
        Node& s = doc.object("Deformer", skin, mesh_name, "Deformer", "Skin");
        s.add("Version", {i32(101)});
        s.add("Link_DeformAcuracy", {f64(50)});
        doc.connect(skin, doc.mesh_geometries[m]);
        for (size_t j = 0; j < joints; ++j) {
            if (indexes[j].empty()) continue;
            const int64_t cluster = doc.id("Deformer/cluster", m, j);
            Node& c = doc.object("Deformer", cluster, name_or(scene.skeleton.joints[j].name, "joint", j), "SubDeformer", "Cluster");
            c.add("Version", {i32(100)});
            c.add("UserData", {str(""), str("")});
            c.add("Indexes", {ints(std::move(indexes[j]))});
            c.add("Weights", {doubles(std::move(weights[j]))});
            // Transform: the mesh relative to the joint when bound (the mesh stands at the
            // origin, so the joint's inverse); TransformLink: the joint's world matrix then.
            c.add("Transform", {doubles(matrix_values(inverse_affine(doc.joint_world[j])))});
            c.add("TransformLink", {doubles(matrix_values(doc.joint_world[j]))});
            doc.connect(cluster, skin);
            doc.connect(doc.joint_models[j], cluster);
        }
    }
    if (!any_skin && joints == 0) return;
    // One BindPose: every joint's world matrix and every mesh's (the identity) when bound.
    const int64_t pose = doc.id("Pose", 0);
    Node& p = doc.object("Pose", pose, "BindPose", "Pose", "BindPose");
    p.add("Type", {str("BindPose")});
    p.add("Version", {i32(100)});
    p.add("NbPoseNodes", {i32(int64_t(scene.meshes.size() + joints))});
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        Node& n = p.add("PoseNode");
        n.add("Node", {i64(doc.mesh_models[m])});
        n.add("Matrix", {doubles(matrix_values(identity_matrix()))});
    }
    for (size_t j = 0; j < joints; ++j) {
        Node& n = p.add("PoseNode");
        n.add("Node", {i64(doc.joint_models[j])});
        n.add("Matrix", {doubles(matrix_values(doc.joint_world[j]))});
    }
}

}  // namespace rigport::fbx::out
