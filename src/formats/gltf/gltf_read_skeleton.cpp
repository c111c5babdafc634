// glTF reader: which nodes become joints (skins' joints, animated nodes and the nodes between
// them; glTF 2.0 §3.7.3, docs/gltf.md §8.2), in parent-first order, and the fold of static
// ancestors into the root joints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

namespace {

using D3 = std::array<double, 3>;

bool read_skins(Reader& r, Plan& plan) {
    plan.skins.resize(r.count("skins"));
    for (uint32_t s = 0; s < plan.skins.size(); ++s) {
        const std::string path = fmt::format("/skins/{}", s);
        const Json* j = r.item("skins", s);
        const Json* joints = j ? r.array(*j, "joints", path) : nullptr;
        if (!r.ok()) return false;
        if (!joints || joints->empty()) return r.malformed(path + "/joints", "missing or empty");
        if (joints->size() > r.options.max_elements)
            return r.fail(ErrorCode::LimitExceeded, path + "/joints", fmt::format("{} joints exceed max_elements", joints->size()));
        SkinInfo& skin = plan.skins[s];
        for (size_t k = 0; k < joints->size(); ++k) {
            uint32_t node = 0;
            if (!r.index_value((*joints)[k], fmt::format("{}/joints/{}", path, k), node, "nodes", plan.nodes.size())) return false;
            if (std::find(skin.joints.begin(), skin.joints.end(), node) != skin.joints.end())
                return r.malformed(fmt::format("{}/joints/{}", path, k), fmt::format("node {} is listed twice", node));
            skin.joints.push_back(node);
        }
        uint32_t skeleton = none;  // a hint only, but it must name a node
        if (!r.index(*j, "inverseBindMatrices", path, skin.inverse_bind_matrices, false, "accessors", r.count("accessors")) ||
            !r.index(*j, "skeleton", path, skeleton, false, "nodes", plan.nodes.size()))
            return false;
    }
    for (auto& n : plan.nodes)
        if (n.in_scene && n.mesh != none && n.skin != none) plan.skins[n.skin].used = true;
    // A skin no mesh uses still says which nodes are bones: Blender, three.js and Godot build an
    // armature from it, and rigport writes one for every skeleton (docs/gltf.md, "Skins").
    for (auto& skin : plan.skins)
        skin.skeleton = !skin.used && std::any_of(skin.joints.begin(), skin.joints.end(), [&](uint32_t n) { return plan.nodes[n].in_scene; });
    return true;
}

// Nodes a translation / rotation / scale channel targets (the channels are checked fully later).
bool mark_animated(Reader& r, Plan& plan) {
    for (uint32_t a = 0; a < r.count("animations"); ++a) {
        const std::string path = fmt::format("/animations/{}", a);
        const Json* anim = r.item("animations", a);
        const Json* channels = anim ? r.array(*anim, "channels", path) : nullptr;
        if (!r.ok()) return false;
        for (size_t c = 0; channels && c < channels->size(); ++c) {
            const std::string at = fmt::format("{}/channels/{}/target", path, c);
            const Json* target = r.object((*channels)[c], "target", fmt::format("{}/channels/{}", path, c));
            uint32_t node = none;
            std::string what;
            if (!r.ok() || (target && (!r.index(*target, "node", at, node, false, "nodes", plan.nodes.size()) || !r.string(*target, "path", at, what))))
                return false;
            if (node != none && (what == "translation" || what == "rotation" || what == "scale") && plan.nodes[node].in_scene)
                plan.nodes[node].animated = true;
        }
    }
    return true;
}

// The nearest joint above each node, or -1, parent-first.
std::vector<int64_t> joint_above(const Plan& plan, const std::vector<bool>& joint) {
    std::vector<int64_t> above(plan.nodes.size(), -1);
    for (uint32_t n : plan.order) {
        const int64_t p = plan.nodes[n].parent;
        if (p >= 0) above[n] = joint[p] ? p : above[p];
    }
    return above;
}

// A as s * R + t with R a rotation; false when A has non-uniform scale or shear.
bool similarity(const Mat4& a, Fold& fold) {
    D3 c[3] = {{a[0][0], a[0][1], a[0][2]}, {a[1][0], a[1][1], a[1][2]}, {a[2][0], a[2][1], a[2][2]}};
    auto dot = [](const D3& x, const D3& y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]; };
    const double l[3] = {std::sqrt(dot(c[0], c[0])), std::sqrt(dot(c[1], c[1])), std::sqrt(dot(c[2], c[2]))};
    if (!(l[0] > 0) || std::fabs(l[1] - l[0]) > 1e-5 * l[0] || std::fabs(l[2] - l[0]) > 1e-5 * l[0]) return false;
    const double tol = 1e-5 * l[0] * l[0];
    if (std::fabs(dot(c[0], c[1])) > tol || std::fabs(dot(c[0], c[2])) > tol || std::fabs(dot(c[1], c[2])) > tol) return false;
    const D3 x = {c[1][1] * c[2][2] - c[1][2] * c[2][1], c[1][2] * c[2][0] - c[1][0] * c[2][2], c[1][0] * c[2][1] - c[1][1] * c[2][0]};
    const double s = dot(c[0], x) < 0 ? -l[0] : l[0];
    Mat4 rotation = a;
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) rotation[col][row] /= s;
    bool sheared = false;
    fold.identity = false;
    fold.matrix = a;
    fold.rotate = decompose(rotation, sheared).rotate;
    fold.scale = float(s);
    return true;
}

bool is_identity(const Mat4& m) {
    const Mat4 i = identity_matrix();
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            if (std::fabs(m[c][r] - i[c][r]) > 1e-12) return false;
    return true;
}

}  // namespace

Vec3 Fold::point(const Vec3& p) const {
    if (identity) return p;
    const auto q = transform_point(matrix, {p[0], p[1], p[2]});
    return {float(q[0]), float(q[1]), float(q[2])};
}

Quat Fold::rotation(const Quat& q) const {
    if (identity) return q;
    const double ax = rotate[0], ay = rotate[1], az = rotate[2], aw = rotate[3];
    const double bx = q[0], by = q[1], bz = q[2], bw = q[3];
    const double o[4] = {aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                         aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz};
    const double n = std::sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);
    if (!(n > 0)) return q;
    return Quat{float(o[0] / n), float(o[1] / n), float(o[2] / n), float(o[3] / n)};
}

bool build_skeleton(Reader& r, Plan& plan) {
    if (!read_skins(r, plan) || !mark_animated(r, plan)) return false;
    auto& nodes = plan.nodes;
    std::vector<bool> joint(nodes.size(), false);
    for (auto& s : plan.skins)
        if (s.counts())
            for (uint32_t n : s.joints) joint[n] = joint[n] || s.used || nodes[n].in_scene;
    for (uint32_t n = 0; n < nodes.size(); ++n) joint[n] = joint[n] || nodes[n].animated;

    // Nodes between a joint and a joint above it are joints too: one connected hierarchy.
    std::vector<int64_t> above = joint_above(plan, joint);
    for (uint32_t n : plan.order) {
        if (!joint[n] || above[n] < 0) continue;
        for (int64_t p = nodes[n].parent; p >= 0 && !joint[p]; p = nodes[p].parent) joint[p] = true;
    }
    // Root joints: the static ancestors' world A folds into them when it is a similarity;
    // otherwise the ancestors become joints (their own TRS, exact).
    above = joint_above(plan, joint);
    std::vector<Fold> fold_of(nodes.size());
    bool added = false;
    for (uint32_t n : plan.order) {
        if (!joint[n] || above[n] >= 0 || nodes[n].parent < 0) continue;
        const Mat4& a = nodes[nodes[n].parent].world;
        if (is_identity(a) || similarity(a, fold_of[n])) continue;
        for (int64_t p = nodes[n].parent; p >= 0; p = nodes[p].parent) joint[p] = true;
        added = true;
    }
    if (added) {
        above = joint_above(plan, joint);
        for (uint32_t n : plan.order)
            if (above[n] >= 0) fold_of[n] = Fold{};
    }

    // Parent-first: skins' joints in their own order, then the others in node index order, each
    // preceded by its joint ancestors not placed yet (so an order that is already parent-first,
    // as rigport's own output is, stays as it is).
    std::vector<uint32_t> priority, order, chain;
    for (auto& s : plan.skins)
        if (s.counts())
            for (uint32_t n : s.joints)
                if (joint[n]) priority.push_back(n);
    for (uint32_t n = 0; n < nodes.size(); ++n) priority.push_back(n);
    for (uint32_t n : priority) {
        chain.clear();
        for (int64_t x = n; x >= 0 && joint[x] && nodes[x].joint < 0; x = nodes[x].parent) {
            chain.push_back(uint32_t(x));
            nodes[x].joint = -2;  // placed below
        }
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            nodes[*it].joint = int32_t(order.size());
            order.push_back(*it);
        }
    }

    auto& joints = r.scene.skeleton.joints;
    for (uint32_t n : order) {
        const NodeInfo& node = nodes[n];
        Joint j;
        j.name = node.name.empty() ? fmt::format("node_{}", n) : node.name;
        j.parent = node.parent >= 0 ? nodes[node.parent].joint : -1;
        j.bind = node.trs;
        const Fold& f = fold_of[n];
        if (j.parent < 0 && !f.identity) j.bind = Transform{f.point(node.trs.translate), f.rotation(node.trs.rotate), f.scaled(node.trs.scale)};
        if (node.sheared) r.warn(WarningCode::BindPoseMismatch, fmt::format("joint '{}': its matrix has shear, which TRS cannot hold; the pose is approximate", detail::excerpt(j.name)));
        plan.fold.push_back(j.parent < 0 ? f : Fold{});
        joints.push_back(std::move(j));
    }
    uint32_t roots = 0;
    for (auto& j : joints) roots += j.parent < 0;
    if (roots > 1) r.warn(WarningCode::SeveralRoots, fmt::format("{} root joints", roots));
    return true;
}

}  // namespace rigport::gltf::read_detail
