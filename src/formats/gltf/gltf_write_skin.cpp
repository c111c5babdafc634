// glTF 2.0 joint nodes, axis / common root node and skin with inverse bind matrices
// (formats/gltf.md §1.1-§1.2, §3).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "formats/gltf/gltf_layout.hpp"
#include "formats/gltf/gltf_write_parts.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport::gltf {

namespace {

// base, or base_1, base_2 ... when a joint already has that name.
std::string unique_name(const Skeleton& skeleton, const std::string& base) {
    auto taken = [&](const std::string& n) {
        return std::any_of(skeleton.joints.begin(), skeleton.joints.end(), [&](const Joint& j) { return j.name == n; });
    };
    std::string name = base;
    for (uint32_t i = 1; taken(name); ++i) name = fmt::format("{}_{}", base, i);
    return name;
}

// The node's TRS with identity parts omitted; the rotation normalized in double.
void set_trs(Node& node, const Transform& t) {
    if (t.translate != Vec3{0, 0, 0}) node.translation = t.translate;
    double n = 0;
    for (float c : t.rotate) n += double(c) * c;
    n = std::sqrt(n);
    Quat q{0, 0, 0, 1};
    if (n > 0)
        for (int i = 0; i < 4; ++i) q[i] = float(t.rotate[i] / n);
    if (q != Quat{0, 0, 0, 1}) node.rotation = q;
    if (t.scale != Vec3{1, 1, 1}) node.scale = t.scale;
}

bool has_influences(const Mesh& mesh) {
    return std::any_of(mesh.skin.influences.begin(), mesh.skin.influences.end(), [](const Influence& i) { return i.weight > 0; });
}

}  // namespace

void plan_nodes(WriteContext& ctx) {
    const Scene& scene = ctx.scene;
    const Skeleton& skeleton = scene.skeleton;
    const auto& joints = skeleton.joints;
    auto& nodes = ctx.doc.nodes;

    // An animation-only skeleton has no bind pose: its nodes rest in the first animation's pose
    // at time 0 (the pose a viewer shows before playing), identity without animations.
    std::vector<Transform> rest = bind_pose(skeleton);
    if (skeleton.animation_only && !scene.animations.empty()) rest = sample_pose(skeleton, scene.animations[0], 0.0f);

    std::vector<uint32_t> roots;
    for (uint32_t j = 0; j < joints.size(); ++j) {
        Node node;
        node.name = joints[j].name.empty() ? fmt::format("joint_{}", j) : joints[j].name;
        set_trs(node, rest[j]);
        nodes.push_back(std::move(node));
        if (joints[j].parent >= 0) nodes[uint32_t(joints[j].parent)].children.push_back(j);
        else roots.push_back(j);
    }

    const bool rotate = ctx.options.gltf.axis == GltfOptions::AxisMode::Root &&
                        (scene.meta.up == UpAxis::Z || scene.meta.up == UpAxis::X);
    if (rotate && (!joints.empty() || !scene.meshes.empty())) {
        // Root mode: one axis node carries the rotation; root joints and static meshes hang under it.
        Node axis;
        axis.name = unique_name(skeleton, "axis");
        axis.rotation = y_up_rotation(scene.meta.up);
        axis.children = roots;
        ctx.axis_node = uint32_t(nodes.size());
        nodes.push_back(std::move(axis));
        if (!roots.empty()) ctx.joint_root = roots.size() == 1 ? roots[0] : *ctx.axis_node;
    } else if (roots.size() > 1) {
        // A skin needs a common root (SKIN_NO_COMMON_ROOT): an identity node above the roots.
        Node root;
        root.name = unique_name(skeleton, "root");
        root.children = roots;
        ctx.joint_root = uint32_t(nodes.size());
        nodes.push_back(std::move(root));
    } else if (roots.size() == 1) {
        ctx.joint_root = roots[0];
    }

    ctx.mesh_node.assign(scene.meshes.size(), no_index);
    ctx.mesh_skinned.assign(scene.meshes.size(), false);
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        if (!has_influences(mesh)) continue;
        if (skeleton.animation_only) {
            ctx.warn(WarningCode::DroppedData,
                     "skin influences were not written: the skeleton is animation-only (no bind pose to skin against)");
            continue;
        }
        ctx.mesh_skinned[m] = true;
        ctx.skinning = true;
    }
}

Expected<Ok> write_skin(WriteContext& ctx) {
    if (!ctx.skinning) return Ok{};
    const Skeleton& skeleton = ctx.scene.skeleton;
    // IBM_j = inverse(world bind_j), column-major, last row exactly (0,0,0,1) (§3.3).
    const std::vector<Mat4> world = world_matrices(skeleton, bind_pose(skeleton));
    std::vector<float> values;
    values.reserve(world.size() * 16);
    for (size_t j = 0; j < world.size(); ++j) {
        const Mat4& w = world[j];
        // A rest pose that flattens an axis (a scale of 0, or one lost to rounding) has no
        // inverse: rounding would give one with entries near 1e17, which no reader could use.
        const double c0 = std::hypot(w[0][0], w[0][1], w[0][2]), c1 = std::hypot(w[1][0], w[1][1], w[1][2]), c2 = std::hypot(w[2][0], w[2][1], w[2][2]);
        const double det = w[0][0] * (w[1][1] * w[2][2] - w[2][1] * w[1][2]) - w[1][0] * (w[0][1] * w[2][2] - w[2][1] * w[0][2]) +
                           w[2][0] * (w[0][1] * w[1][2] - w[1][1] * w[0][2]);
        if (!(std::fabs(det) > 1e-9 * c0 * c1 * c2) || !(c0 > 0 && c1 > 0 && c2 > 0))
            return make_error(ErrorCode::InvalidArgument, fmt::format("joint '{}': its rest pose scales an axis to nothing, so it has no inverse bind matrix "
                                                                      "for glTF's skin (give its bind pose a non-zero scale)", skeleton.joints[j].name));
        const Mat4 ibm = inverse_affine(w);
        for (int col = 0; col < 4; ++col)
            for (int row = 0; row < 4; ++row) values.push_back(row < 3 ? float(ibm[col][row]) : col == 3 ? 1.0f : 0.0f);
    }
    Skin skin;
    skin.inverse_bind_matrices = ctx.buffer.floats(values, 16, 0, false);
    for (uint32_t j = 0; j < skeleton.joints.size(); ++j) skin.joints.push_back(j);
    skin.skeleton = ctx.joint_root;
    ctx.doc.skins.push_back(std::move(skin));
    return Ok{};
}

}  // namespace rigport::gltf
