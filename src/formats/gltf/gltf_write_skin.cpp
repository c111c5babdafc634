// glTF 2.0 joint nodes, axis / common root node and skin with inverse bind matrices
// (docs/gltf.md §1.1-§1.2, §3).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "formats/gltf/gltf.hpp"
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

// A flattened joint's frame completed so that it has an inverse: the columns that still span
// keep their direction and length, and each lost axis is filled in square to them at the longest
// column's length (in the columns' own order, so the frame stays proper); the translation is kept.
// W * inverse(completed) then maps what the joint keeps to itself and stays within the model's
// size: an inverse of place and rotation alone would scale the skinned vertices by the joint's own
// scale, which for a very long axis takes them beyond float range when a reader bakes them.
Mat4 completed(const Mat4& w) {
    using D3 = std::array<double, 3>;
    auto dot = [](const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; };
    auto cross = [](const D3& a, const D3& b) { return D3{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; };
    auto unit = [&](D3 v, const D3& fallback) {
        const double n = std::sqrt(dot(v, v));
        if (!(n > 1e-300) || !std::isfinite(n)) return fallback;
        for (double& c : v) c /= n;
        return v;
    };
    auto minus = [](D3 v, const D3& d, double along) {
        for (int k = 0; k < 3; ++k) v[size_t(k)] -= along * d[size_t(k)];
        return v;
    };
    D3 col[3];
    for (int c = 0; c < 3; ++c) col[c] = {w[c][0], w[c][1], w[c][2]};
    int order[3] = {0, 1, 2};
    std::stable_sort(order, order + 3, [&](int a, int b) { return dot(col[a], col[a]) > dot(col[b], col[b]); });
    const int i0 = order[0], i1 = order[1], i2 = order[2];
    double longest = std::sqrt(dot(col[i0], col[i0]));
    if (!(longest > 1e-300) || !std::isfinite(longest)) longest = 1;  // nothing spans: a rotation at unit length
    // A column counts as spanning when what is left of it, square to the columns before, is more
    // than 1e-4 of the longest: the completed frame is then well enough conditioned for floats.
    const double spans = 1e-4 * longest;
    D3 own_axis{0, 0, 0};
    own_axis[size_t(i0)] = 1;
    const D3 a = unit(col[i0], own_axis);
    const D3 r1 = minus(col[i1], a, dot(a, col[i1]));
    const bool keep1 = std::sqrt(dot(r1, r1)) > spans;
    // Any direction square to a when the second axis is gone too.
    const D3 any = std::fabs(a[0]) < 0.9 ? cross(a, D3{1, 0, 0}) : cross(a, D3{0, 1, 0});
    const D3 b = unit(r1, unit(any, D3{0, 1, 0}));
    const D3 r2 = minus(minus(col[i2], a, dot(a, col[i2])), b, dot(b, col[i2]));
    const bool keep2 = keep1 && std::sqrt(dot(r2, r2)) > spans;
    const D3 c = i1 == (i0 + 1) % 3 ? cross(a, b) : cross(b, a);
    D3 out[3];
    out[i0] = std::sqrt(dot(col[i0], col[i0])) > 1e-300 ? col[i0] : D3{a[0] * longest, a[1] * longest, a[2] * longest};
    out[i1] = keep1 ? col[i1] : D3{b[0] * longest, b[1] * longest, b[2] * longest};
    out[i2] = keep2 ? col[i2] : D3{c[0] * longest, c[1] * longest, c[2] * longest};
    Mat4 r = identity_matrix();
    for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < 3; ++i) r[size_t(i)][size_t(k)] = out[i][size_t(k)];
        r[3][size_t(k)] = w[3][size_t(k)];
    }
    return r;
}

// IBM * D, D = translate(origin) * scale(step): a skinned mesh's node transform is ignored by
// glTF clients, so the grid of its quantised positions is undone here (docs/gltf.md "Compressed
// output"); every skinned mesh shares the grid, as they share the skin.
Mat4 undo_grid(const Mat4& ibm, const PositionGrid& grid) {
    Mat4 r = ibm;
    for (int row = 0; row < 3; ++row) {
        double t = ibm[3][size_t(row)];
        for (int c = 0; c < 3; ++c) {
            t += ibm[size_t(c)][size_t(row)] * grid.origin[size_t(c)];
            r[size_t(c)][size_t(row)] = ibm[size_t(c)][size_t(row)] * grid.step;
        }
        r[3][size_t(row)] = t;
    }
    return r;
}

}  // namespace

void plan_nodes(WriteContext& ctx) {
    const Scene& scene = ctx.scene;
    const Skeleton& skeleton = scene.skeleton;
    const auto& joints = skeleton.joints;
    auto& nodes = ctx.doc.nodes;

    // An animation-only skeleton has no bind pose: its nodes rest in the first animation's pose
    // at time 0 (the pose a viewer shows before playing), identity without animations.
    std::vector<Transform>& rest = ctx.rest;
    rest = bind_pose(skeleton);
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
    // Joints without names are the numbers a mesh read without its skeleton names (a Cal3D
    // .cmf alone): there is no skeleton, and the warning says so.
    const bool named = std::any_of(joints.begin(), joints.end(), [](const Joint& j) { return !j.name.empty(); });
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        if (!has_influences(mesh)) continue;
        if (skeleton.animation_only) {
            ctx.warn(WarningCode::DroppedData,
                     named ? "skin influences were not written: the skeleton is animation-only (no bind pose to skin against)"
                           : "skin influences were not written: the model has no skeleton, only the joint numbers its influences "
                             "name (no bind pose to skin against; read the mesh with its skeleton file)");
            continue;
        }
        ctx.mesh_skinned[m] = true;
        ctx.skinning = true;
    }
}

// Every skeleton gets a skin, also one that no mesh uses (an animation clip, a rig with rigid
// parts): a skin's joints are what Blender, three.js and Godot build an armature from; plain nodes
// arrive as empties, one action each (docs/gltf.md, "Skins").
void write_skin(WriteContext& ctx) {
    const Skeleton& skeleton = ctx.scene.skeleton;
    // Joints without any name are the numbers a mesh read without its skeleton names: no skeleton.
    const bool named = std::any_of(skeleton.joints.begin(), skeleton.joints.end(), [](const Joint& j) { return !j.name.empty(); });
    if (!ctx.skinning && !named) return;
    // IBM_j = inverse(world rest_j), column-major, last row exactly (0,0,0,1) (§3.3).
    const std::vector<Mat4> world = world_matrices(skeleton, ctx.rest);
    std::vector<float> values;
    values.reserve(world.size() * 16);
    for (size_t j = 0; j < world.size(); ++j) {
        const Mat4& w = world[j];
        // A rest pose that flattens an axis (a scale of 0, or one lost to rounding) has no
        // inverse: rounding would make one up with entries near 1e17, which no reader can bake.
        const double c0 = std::hypot(w[0][0], w[0][1], w[0][2]), c1 = std::hypot(w[1][0], w[1][1], w[1][2]), c2 = std::hypot(w[2][0], w[2][1], w[2][2]);
        const double det = w[0][0] * (w[1][1] * w[2][2] - w[2][1] * w[1][2]) - w[1][0] * (w[0][1] * w[2][2] - w[2][1] * w[0][2]) +
                           w[2][0] * (w[0][1] * w[1][2] - w[1][1] * w[0][2]);
        Mat4 ibm;
        if (!(std::fabs(det) > 1e-9 * c0 * c1 * c2) || !(c0 > 0 && c1 > 0 && c2 > 0)) {
            ibm = inverse_affine(completed(w));
            ctx.warn(WarningCode::Interpreted, fmt::format("joint '{}': its rest pose scales an axis to nothing, so no inverse bind matrix exists; "
                                                           "written as the inverse of its rest pose with the lost axes filled in", skeleton.joints[j].name));
        } else {
            ibm = inverse_affine(w);
        }
        if (ctx.grid && ctx.skinning) ibm = undo_grid(ibm, *ctx.grid);
        for (int col = 0; col < 4; ++col)
            for (int row = 0; row < 4; ++row) values.push_back(row < 3 ? float(ibm[col][row]) : col == 3 ? 1.0f : 0.0f);
    }
    Skin skin;
    skin.inverse_bind_matrices = ctx.buffer.floats(values, 16, 0, false);
    for (uint32_t j = 0; j < skeleton.joints.size(); ++j) skin.joints.push_back(j);
    skin.skeleton = ctx.joint_root;
    ctx.doc.skins.push_back(std::move(skin));
}

}  // namespace rigport::gltf
