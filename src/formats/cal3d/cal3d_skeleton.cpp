// Cal3D bones -> parent-first joints (docs/cal3d.md §4.1, §4.2, §5 steps 1-3, §9 rule 5).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "support/excerpt.hpp"
#include "model/quatd.hpp"
#include "formats/cal3d/cal3d.hpp"

namespace rigport::cal3d {

namespace {

using quatd::D3;
using quatd::D4;
using quatd::mul;
using quatd::rotate;

// Standard unit quaternion from a file one; all-zero / non-finite -> identity.
Quat standard_unit(const Quat& q_file, bool& changed) {
    Quat q = to_standard(q_file);
    const double n2 = double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3];
    const double n = std::sqrt(n2);
    changed = !(std::abs(n - 1.0) <= 1e-3);
    if (!std::isfinite(n) || n < 1e-12) return {0, 0, 0, 1};
    // Unit to float rounding (|n² − 1| <= 1e-6, the animation keys' rule): kept bit for bit, so a
    // skeleton read and written again keeps its ROTATION values.
    if (std::abs(n2 - 1.0) <= 1e-6) return q;
    return {float(q[0] / n), float(q[1] / n), float(q[2] / n), float(q[3] / n)};
}

}  // namespace

Expected<Skeleton> build_skeleton(const std::vector<Bone>& bones, bool binary, Warnings& warnings) {
    const int32_t n = int32_t(bones.size());
    std::vector<int32_t> parent(bones.size());
    for (int32_t i = 0; i < n; ++i) {
        parent[i] = bones[i].parent;
        if (parent[i] < -1 || parent[i] >= n || parent[i] == i) {
            warnings.add(WarningCode::PoseParentMismatch,
                         fmt::format("bone {} '{}': PARENTID {} is not a bone; made a root", i, detail::excerpt(bones[i].name), parent[i]),
                         bones[i].offset);
            parent[i] = -1;
        }
    }
    // CHILDID must agree with PARENTID (§3.3: UP follows CHILDID, IM ignores it; we follow PARENTID).
    uint64_t listed = 0;
    for (int32_t i = 0; i < n; ++i)
        for (int32_t c : bones[i].children) {
            ++listed;
            if (c < 0 || c >= n || parent[c] != i)
                warnings.add(WarningCode::PoseParentMismatch,
                             fmt::format("bone {} lists child {} whose PARENTID says otherwise; PARENTID is used", i, c),
                             bones[i].offset);
        }
    // Parent-first order: roots in id order, then each joint's children in id order (breadth
    // first). Bones on a cycle are never reached: they become roots.
    std::vector<std::vector<int32_t>> kids(bones.size());
    for (int32_t i = 0; i < n; ++i)
        if (parent[i] >= 0) kids[parent[i]].push_back(i);
    std::vector<int32_t> order, joint_of(bones.size(), -1);
    order.reserve(bones.size());
    auto walk_from = [&](int32_t root) {
        size_t head = order.size();
        joint_of[root] = int32_t(order.size());
        order.push_back(root);
        for (; head < order.size(); ++head)
            for (int32_t c : kids[order[head]])
                if (joint_of[c] < 0) {
                    joint_of[c] = int32_t(order.size());
                    order.push_back(c);
                }
    };
    for (int32_t i = 0; i < n; ++i)
        if (parent[i] < 0) walk_from(i);
    for (int32_t i = 0; i < n; ++i)
        if (joint_of[i] < 0) {
            warnings.add(WarningCode::PoseParentMismatch, fmt::format("bone {} '{}' is on a parent cycle; made a root", i, detail::excerpt(bones[i].name)),
                         bones[i].offset);
            parent[i] = -1;
            walk_from(i);
        }

    Skeleton sk;
    sk.joints.resize(bones.size());
    sk.source_ids.resize(bones.size());
    uint64_t roots = 0, renormalized = 0;
    std::vector<D4> world_q(bones.size());
    std::vector<D3> world_t(bones.size());
    double extent = 1.0, worst_t = 0.0, worst_angle = 0.0;
    for (size_t j = 0; j < order.size(); ++j) {
        const Bone& b = bones[order[j]];
        Joint& jt = sk.joints[j];
        jt.name = b.name;
        jt.parent = parent[order[j]] < 0 ? -1 : joint_of[parent[order[j]]];
        roots += jt.parent < 0;
        bool changed = false;
        jt.bind.translate = b.translation;
        jt.bind.rotate = standard_unit(b.rotation, changed);
        renormalized += changed;
        sk.source_ids[j] = order[j];
        const D4 q{jt.bind.rotate[0], jt.bind.rotate[1], jt.bind.rotate[2], jt.bind.rotate[3]};
        const D3 t{b.translation[0], b.translation[1], b.translation[2]};
        if (jt.parent < 0) {
            world_q[j] = q;
            world_t[j] = t;
        } else {
            const size_t p = size_t(jt.parent);
            world_q[j] = mul(world_q[p], q);
            D3 r = rotate(world_q[p], t);
            world_t[j] = {world_t[p][0] + r[0], world_t[p][1] + r[1], world_t[p][2] + r[2]};
        }
        extent = std::max(extent, std::sqrt(world_t[j][0] * world_t[j][0] + world_t[j][1] * world_t[j][1] + world_t[j][2] * world_t[j][2]));
        // §4.2: B · [R(conj(LOCALROTATION)) | LOCALTRANSLATION] should be the identity.
        bool lchanged = false;
        const Quat lq = standard_unit(b.local_rotation, lchanged);
        const D4 l{lq[0], lq[1], lq[2], lq[3]};
        const D3 lt{b.local_translation[0], b.local_translation[1], b.local_translation[2]};
        D3 r = rotate(world_q[j], lt);
        const double dt = std::sqrt(std::pow(world_t[j][0] + r[0], 2) + std::pow(world_t[j][1] + r[1], 2) + std::pow(world_t[j][2] + r[2], 2));
        const D4 qq = mul(world_q[j], l);
        const double angle = 2.0 * std::acos(std::min(1.0, std::abs(qq[3])));
        worst_t = std::max(worst_t, dt);
        worst_angle = std::max(worst_angle, angle);
    }
    if (renormalized)
        warnings.add(WarningCode::NonUnitQuaternion, fmt::format("{} bone rotations were not unit quaternions; normalized", renormalized));
    if (roots > 1) warnings.add(WarningCode::SeveralRoots, fmt::format("{} root bones", roots));
    // Suggested tolerance (§4.2): 1e-3 x extent for 6-digit XML, 1e-4 x extent for binary.
    const double tolerance = (binary ? 1e-4 : 1e-3) * extent;
    if (worst_t > tolerance || worst_angle > 1e-2)
        warnings.add(WarningCode::BindPoseMismatch,
                     fmt::format("LOCALTRANSLATION/LOCALROTATION are not the inverse of the bind pose: residual up to {:.3g} "
                                 "units (extent {:.3g}) and {:.3g} degrees; recompute inverse binds from the bind pose",
                                 worst_t, extent, worst_angle * 180.0 / 3.141592653589793));
    (void)listed;
    return sk;
}

}  // namespace rigport::cal3d
