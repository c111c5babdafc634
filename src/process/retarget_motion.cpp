// Retargeting's motion: each mapped bone made to point in world space where its source bone points,
// twist kept, the root's travel scaled by leg length (docs/retarget.md "The motion").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "model/quatd.hpp"
#include "process/retarget_names.hpp"
#include "rigport/anim.hpp"
#include "rigport/retarget.hpp"

namespace rigport {

namespace {

using quatd::D3;
using quatd::D4;

D3 sub(const D3& a, const D3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
D3 add(const D3& a, const D3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
D3 mul(const D3& a, double k) { return {a[0] * k, a[1] * k, a[2] * k}; }
double dot(const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
D3 cross(const D3& a, const D3& b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
double norm(const D3& a) { return std::sqrt(dot(a, a)); }

// The shortest rotation taking the direction a to the direction b (both non-zero). Opposite
// directions turn half way round an axis perpendicular to a.
D4 arc(const D3& a, const D3& b) {
    const D3 u = mul(a, 1 / norm(a)), v = mul(b, 1 / norm(b));
    const double c = dot(u, v);
    if (c < -1 + 1e-12) {
        D3 axis = cross(u, std::abs(u[0]) < 0.9 ? D3{1, 0, 0} : D3{0, 1, 0});
        axis = mul(axis, 1 / norm(axis));
        return {axis[0], axis[1], axis[2], 0};
    }
    const D3 x = cross(u, v);
    return quatd::unit(D4{x[0], x[1], x[2], 1 + c});
}

// Each joint's rotation in world space (the product of the local rotations, parent first): the
// rotation part of world_matrices when scales are uniform.
std::vector<D4> world_rotations(const Skeleton& skeleton, const std::vector<Transform>& local) {
    std::vector<D4> w(skeleton.joints.size());
    for (size_t j = 0; j < w.size(); ++j) {
        const D4 q = quatd::unit(local[j].rotate);
        const int32_t p = skeleton.joints[j].parent;
        w[j] = p >= 0 ? quatd::unit(quatd::mul(w[size_t(p)], q)) : q;
    }
    return w;
}

std::vector<D3> world_positions(const Skeleton& skeleton, const std::vector<Transform>& local) {
    std::vector<D3> out;
    for (const Mat4& m : world_matrices(skeleton, local)) out.push_back({m[3][0], m[3][1], m[3][2]});
    return out;
}

bool is_descendant(const Skeleton& skeleton, size_t child, size_t ancestor) {
    for (int32_t p = skeleton.joints[child].parent; p >= 0; p = skeleton.joints[size_t(p)].parent)
        if (size_t(p) == ancestor) return true;
    return false;
}

size_t depth(const Skeleton& skeleton, size_t j) {
    size_t d = 0;
    for (int32_t p = skeleton.joints[j].parent; p >= 0; p = skeleton.joints[size_t(p)].parent) ++d;
    return d;
}

// One skeleton at rest, with what the motion looks up in it.
struct Rest {
    const Skeleton* skeleton = nullptr;
    std::vector<std::string> names;  // canonical
    std::vector<D4> rotation;        // world
    std::vector<D3> position;        // world

    explicit Rest(const Skeleton& s) : skeleton(&s), names(canonical_names(s)) {
        const auto pose = bind_pose(s);
        rotation = world_rotations(s, pose);
        position = world_positions(s, pose);
    }
    std::optional<size_t> find(std::string_view canonical, bool last = false) const {
        std::optional<size_t> found;
        for (size_t j = 0; j < names.size(); ++j)
            if (names[j] == canonical) {
                found = j;
                if (!last) break;
            }
        return found;
    }
};

// The signed coordinate axis nearest to v.
D3 snap(const D3& v) {
    size_t k = 0;
    for (size_t i = 1; i < 3; ++i)
        if (std::abs(v[i]) > std::abs(v[k])) k = i;
    D3 a{0, 0, 0};
    a[k] = v[k] < 0 ? -1 : 1;
    return a;
}

// The skeleton's up and left at rest, each snapped to a coordinate axis: up from the hips to the
// head (or the top of the spine), left from the right leg (or arm) to the left one; the up axis
// the file states when the skeleton does not say.
struct Frame {
    std::optional<D3> up, left;
};

Frame rest_frame(const Rest& r, UpAxis stated) {
    Frame f;
    auto at = [&](std::string_view name, bool last = false) { return r.find(name, last); };
    auto hips = at("hips");
    std::optional<size_t> top = at("head");
    if (!top) top = at("neck", true);
    if (!top) top = at("spine", true);
    if (hips && top && norm(sub(r.position[*top], r.position[*hips])) > 0) f.up = snap(sub(r.position[*top], r.position[*hips]));
    if (!f.up) {
        if (stated == UpAxis::X) f.up = D3{1, 0, 0};
        if (stated == UpAxis::Y) f.up = D3{0, 1, 0};
        if (stated == UpAxis::Z) f.up = D3{0, 0, 1};
    }
    for (auto [l, r_] : {std::pair{"thigh.l", "thigh.r"}, std::pair{"upper_arm.l", "upper_arm.r"}}) {
        auto a = at(l), b = at(r_);
        if (!a || !b || !f.up) continue;
        D3 v = sub(r.position[*a], r.position[*b]);
        v = sub(v, mul(*f.up, dot(v, *f.up)));
        if (norm(v) > 0) {
            f.left = snap(v);
            break;
        }
    }
    return f;
}

// The rotation from the source's world to the target's: their frames onto each other (identity
// when neither says anything).
D4 world_alignment(const Frame& s, const Frame& t) {
    if (!s.up || !t.up) return {0, 0, 0, 1};
    if (!s.left || !t.left) return arc(*s.up, *t.up);
    // Rows of the source frame, columns of the target frame: C = Ft * Fs^T.
    const D3 fs[3] = {*s.left, *s.up, cross(*s.left, *s.up)}, ft[3] = {*t.left, *t.up, cross(*t.left, *t.up)};
    double m[3][3] = {};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) m[i][j] += ft[k][i] * fs[k][j];
    return quatd::unit(quatd::from_matrix(m));
}

// Thigh to shin to foot at rest, on the left, else the right; 0 when the legs are not found.
double leg_length(const Rest& r) {
    for (const char* side : {".l", ".r"}) {
        auto thigh = r.find(std::string("thigh") + side), shin = r.find(std::string("shin") + side), foot = r.find(std::string("foot") + side);
        if (thigh && shin && foot)
            return norm(sub(r.position[*shin], r.position[*thigh])) + norm(sub(r.position[*foot], r.position[*shin]));
    }
    return 0;
}

Quat to_float(const D4& q) { return {float(q[0]), float(q[1]), float(q[2]), float(q[3])}; }

std::string list_names(const std::vector<std::string>& names, size_t max) {
    std::string out;
    for (size_t i = 0; i < names.size() && i < max; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > max) out += fmt::format(" and {} more", names.size() - max);
    return out;
}

}  // namespace

const char* to_string(RootMotion mode) {
    switch (mode) {
        case RootMotion::Scale: return "scale";
        case RootMotion::Keep: return "keep";
        case RootMotion::InPlace: return "in-place";
    }
    return "scale";
}

std::optional<RootMotion> parse_root_motion(std::string_view word) {
    for (RootMotion m : {RootMotion::Scale, RootMotion::Keep, RootMotion::InPlace})
        if (word == to_string(m)) return m;
    return std::nullopt;
}

Expected<Retargeted> retarget_clips(const Scene& source, const Scene& target, const BoneMap& map, const RetargetOptions& options) {
    const Skeleton &ss = source.skeleton, &ts = target.skeleton;
    const size_t ns = ss.joints.size(), nt = ts.joints.size();
    if (ns == 0) return make_error(ErrorCode::Unsupported, "the clips have no skeleton to retarget from");
    if (nt == 0) return make_error(ErrorCode::Unsupported, "the target has no skeleton to retarget onto");
    auto index_of = [](const Skeleton& s, const std::string& name) -> std::optional<size_t> {
        for (size_t j = 0; j < s.joints.size(); ++j)
            if (s.joints[j].name == name) return j;
        return std::nullopt;
    };
    std::vector<int> to(ns, -1), from(nt, -1);
    for (auto& [sn, tn] : map) {
        auto s = index_of(ss, sn), t = index_of(ts, tn);
        if (!s) return make_error(ErrorCode::InvalidArgument, fmt::format("bone map: the clips' skeleton has no joint '{}'", sn));
        if (!t) return make_error(ErrorCode::InvalidArgument, fmt::format("bone map: the target skeleton has no joint '{}'", tn));
        if (from[*t] >= 0) return make_error(ErrorCode::InvalidArgument, fmt::format("bone map: two source joints map to '{}'", tn));
        to[*s] = int(*t);
        from[*t] = int(*s);
    }
    Retargeted out;
    const Rest rs(ss), rt(ts);
    const Frame fs = rest_frame(rs, source.meta.up), ft = rest_frame(rt, target.meta.up);
    const D4 c = world_alignment(fs, ft), c_inv = quatd::conj(c);
    const D3 up = ft.up.value_or(D3{0, 1, 0});

    // The root whose travel moves the figure: the source's hips when mapped, else its first mapped joint.
    std::optional<size_t> root_s;
    if (auto h = rs.find("hips"); h && to[*h] >= 0) root_s = *h;
    for (size_t s = 0; s < ns && !root_s; ++s)
        if (to[s] >= 0) root_s = s;
    if (options.root_motion != RootMotion::Keep) {
        const double ls = leg_length(rs), lt = leg_length(rt);
        if (ls > 0 && lt > 0)
            out.root_scale = lt / ls;
        else if (options.root_motion == RootMotion::Scale)
            out.warnings.add(WarningCode::Unmapped, "the legs (thigh, shin, foot) were not found in both skeletons: the root's travel is not scaled");
    }

    // The direction of each mapped bone at rest: towards its nearest mapped descendant whose
    // target is below the bone's target (a joint in the middle of the body before one to a side).
    std::vector<std::optional<D3>> dir_s(ns), dir_t(nt);
    for (size_t s = 0; s < ns; ++s) {
        if (to[s] < 0) continue;
        const size_t t = size_t(to[s]);
        std::optional<size_t> best;
        std::tuple<size_t, bool, size_t> best_key{};
        for (size_t d = s + 1; d < ns; ++d) {
            if (to[d] < 0 || !is_descendant(ss, d, s) || !is_descendant(ts, size_t(to[d]), t)) continue;
            const std::string& n = rs.names[d];
            const bool sided = n.find(".l") != std::string::npos || n.find(".r") != std::string::npos;
            std::tuple<size_t, bool, size_t> key{depth(ss, d), sided, d};
            if (!best || key < best_key) best = d, best_key = key;
        }
        if (!best) continue;
        const D3 a = sub(rs.position[*best], rs.position[s]), b = sub(rt.position[size_t(to[*best])], rt.position[t]);
        if (norm(a) > 1e-9 && norm(b) > 1e-9) {
            dir_s[s] = quatd::rotate(c, a);
            dir_t[t] = b;
        }
    }
    // The target turned into the source's rest pose, parent first: each bone carried by its parent's
    // turn, then turned the shortest way onto its source bone's direction.
    std::vector<D4> aligned(nt);
    for (size_t t = 0; t < nt; ++t) {
        const int32_t p = ts.joints[t].parent;
        const D4 carry = p >= 0 ? quatd::mul(aligned[size_t(p)], quatd::conj(rt.rotation[size_t(p)])) : D4{0, 0, 0, 1};
        aligned[t] = quatd::unit(quatd::mul(carry, rt.rotation[t]));
        if (from[t] >= 0 && dir_s[size_t(from[t])] && dir_t[t])
            aligned[t] = quatd::unit(quatd::mul(arc(quatd::rotate(carry, *dir_t[t]), *dir_s[size_t(from[t])]), aligned[t]));
    }

    const auto target_rest = bind_pose(ts);
    const size_t root_t = root_s ? size_t(to[*root_s]) : 0;
    for (const Animation& clip : source.animations) {
        Animation a;
        a.name = options.name.empty() ? clip.name : source.animations.size() == 1 ? options.name : options.name + "_" + clip.name;
        a.frame_rate = clip.frame_rate;
        a.loop = clip.loop;
        a.stated_duration = clip.stated_duration;
        a.source_start = clip.source_start;
        std::set<float> time_set;
        for (auto& track : clip.tracks) time_set.insert(track.times.begin(), track.times.end());
        const std::vector<float> times(time_set.begin(), time_set.end());
        if (clip.frame_count == times.size()) a.frame_count = clip.frame_count;
        if (!clip.morph_tracks.empty())
            out.warnings.add(WarningCode::Unmapped, fmt::format("animation '{}': its morph weights are not retargeted (the target's meshes are not the source's)", clip.name));
        std::vector<JointTrack> rotation(nt);
        for (size_t t = 0; t < nt; ++t) {
            rotation[t].joint = uint32_t(t);
            rotation[t].channel = Channel::Rotation;
        }
        JointTrack travel;
        travel.joint = uint32_t(root_t);
        travel.channel = Channel::Translation;
        for (float time : times) {
            const auto pose = sample_pose(ss, clip, time, EndMode::Clamp);
            const auto world = world_rotations(ss, pose);
            std::vector<D4> w(nt);
            std::vector<Transform> local = target_rest;
            for (size_t t = 0; t < nt; ++t) {
                const int32_t p = ts.joints[t].parent;
                if (from[t] < 0) {
                    const D4 rest = quatd::unit(target_rest[t].rotate);
                    w[t] = p >= 0 ? quatd::unit(quatd::mul(w[size_t(p)], rest)) : rest;
                    continue;
                }
                const size_t s = size_t(from[t]);
                // The source bone's turn from its rest, in world space, carried into the target's world.
                const D4 turn = quatd::mul(quatd::mul(c, quatd::mul(world[s], quatd::conj(rs.rotation[s]))), c_inv);
                w[t] = quatd::unit(quatd::mul(turn, aligned[t]));
                D4 q = p >= 0 ? quatd::unit(quatd::mul(quatd::conj(w[size_t(p)]), w[t])) : w[t];
                // Successive keys on one hemisphere, so the writer's and the player's interpolation agree.
                auto& values = rotation[t].values;
                if (values.size() >= 4 && q[0] * values[values.size() - 4] + q[1] * values[values.size() - 3] + q[2] * values[values.size() - 2] +
                                                   q[3] * values[values.size() - 1] < 0)
                    for (double& v : q) v = -v;
                local[t].rotate = to_float(q);
                rotation[t].times.push_back(time);
                values.insert(values.end(), {float(q[0]), float(q[1]), float(q[2]), float(q[3])});
            }
            if (!root_s) continue;
            // The root's travel from its rest, turned into the target's world and scaled.
            D3 moved = sub(world_positions(ss, pose)[*root_s], rs.position[*root_s]);
            moved = mul(quatd::rotate(c, moved), out.root_scale);
            if (options.root_motion == RootMotion::InPlace) moved = mul(up, dot(moved, up));
            const D3 at = add(rt.position[root_t], moved);
            const int32_t p = ts.joints[root_t].parent;
            std::array<double, 3> in_parent = at;
            if (p >= 0) in_parent = transform_point(inverse_affine(world_matrices(ts, local)[size_t(p)]), at);
            travel.times.push_back(time);
            travel.values.insert(travel.values.end(), {float(in_parent[0]), float(in_parent[1]), float(in_parent[2])});
        }
        for (auto& track : rotation)
            if (!track.times.empty()) a.tracks.push_back(std::move(track));
        if (!travel.times.empty()) a.tracks.push_back(std::move(travel));
        out.animations.push_back(std::move(a));
    }
    for (size_t t = 0; t < nt; ++t)
        if (from[t] < 0) out.unmapped.push_back(ts.joints[t].name);
    if (!out.unmapped.empty())
        out.warnings.add(WarningCode::Unmapped, fmt::format("{} target joint{} no source joint drives, kept at rest: {}", out.unmapped.size(),
                                                            out.unmapped.size() == 1 ? "" : "s", list_names(out.unmapped, 40)));
    return out;
}

}  // namespace rigport
