// Figures of our own for the retargeting tests (docs/retarget.md): one humanoid built in world
// space and named in two rigs' ways, with rest poses, joint orientations and bone lengths that can
// differ, a clip for it, and the angle between where two skeletons' bones point.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "model/quatd.hpp"
#include "rigport/anim.hpp"
#include "rigport/retarget.hpp"

namespace rigport::test {

inline constexpr double pi = 3.14159265358979323846;

enum class Rig { Mixamo, Valve };

struct FigureOptions {
    Rig rig = Rig::Mixamo;
    double leg_scale = 1.0, arm_scale = 1.0;
    double arm_drop_degrees = 0;  // 0: a T pose; 45: an A pose (arms turned down at the shoulder)
    bool turned_joints = false;   // each joint's own axes turned 90 degrees (about x, y, z in turn)
    bool weapon = false;          // a prop under the right hand (Valve's weapon_bone)
};

// Canonical part -> the rig's name for it.
inline std::string rig_name(Rig rig, const std::string& part) {
    static const std::map<std::string, std::array<const char*, 2>> names = {
        {"hips", {"mixamorig:Hips", "ValveBiped.Bip01_Pelvis"}},
        {"spine0", {"mixamorig:Spine", "ValveBiped.Bip01_Spine"}},
        {"spine1", {"mixamorig:Spine1", "ValveBiped.Bip01_Spine1"}},
        {"spine2", {"", "ValveBiped.Bip01_Spine2"}},
        {"neck", {"mixamorig:Neck", "ValveBiped.Bip01_Neck1"}},
        {"head", {"mixamorig:Head", "ValveBiped.Bip01_Head1"}},
        {"head_end", {"mixamorig:HeadTop_End", ""}},
        {"thigh.l", {"mixamorig:LeftUpLeg", "ValveBiped.Bip01_L_Thigh"}},
        {"shin.l", {"mixamorig:LeftLeg", "ValveBiped.Bip01_L_Calf"}},
        {"foot.l", {"mixamorig:LeftFoot", "ValveBiped.Bip01_L_Foot"}},
        {"toe.l", {"mixamorig:LeftToeBase", "ValveBiped.Bip01_L_Toe0"}},
        {"thigh.r", {"mixamorig:RightUpLeg", "ValveBiped.Bip01_R_Thigh"}},
        {"shin.r", {"mixamorig:RightLeg", "ValveBiped.Bip01_R_Calf"}},
        {"foot.r", {"mixamorig:RightFoot", "ValveBiped.Bip01_R_Foot"}},
        {"toe.r", {"mixamorig:RightToeBase", "ValveBiped.Bip01_R_Toe0"}},
        {"upper_arm.l", {"mixamorig:LeftArm", "ValveBiped.Bip01_L_UpperArm"}},
        {"forearm.l", {"mixamorig:LeftForeArm", "ValveBiped.Bip01_L_Forearm"}},
        {"hand.l", {"mixamorig:LeftHand", "ValveBiped.Bip01_L_Hand"}},
        {"index.l", {"mixamorig:LeftHandIndex1", "ValveBiped.Bip01_L_Finger1"}},
        {"upper_arm.r", {"mixamorig:RightArm", "ValveBiped.Bip01_R_UpperArm"}},
        {"forearm.r", {"mixamorig:RightForeArm", "ValveBiped.Bip01_R_Forearm"}},
        {"hand.r", {"mixamorig:RightHand", "ValveBiped.Bip01_R_Hand"}},
        {"index.r", {"mixamorig:RightHandIndex1", "ValveBiped.Bip01_R_Finger1"}},
        {"weapon", {"", "ValveBiped.weapon_bone"}},
    };
    return names.at(part)[rig == Rig::Mixamo ? 0 : 1];
}

// The bones whose directions the tests compare: (from, to) parts both rigs have.
inline const std::vector<std::pair<std::string, std::string>>& compared_bones() {
    static const std::vector<std::pair<std::string, std::string>> bones = {
        {"hips", "spine0"},          {"neck", "head"},           {"thigh.l", "shin.l"},     {"shin.l", "foot.l"},
        {"foot.l", "toe.l"},         {"thigh.r", "shin.r"},      {"shin.r", "foot.r"},      {"foot.r", "toe.r"},
        {"upper_arm.l", "forearm.l"}, {"forearm.l", "hand.l"},   {"hand.l", "index.l"},     {"upper_arm.r", "forearm.r"},
        {"forearm.r", "hand.r"},     {"hand.r", "index.r"},
    };
    return bones;
}

// A Y-up figure facing +z, its left on +x. Joints parent-first.
inline Skeleton make_figure(const FigureOptions& o) {
    using quatd::D3;
    using quatd::D4;
    struct Part {
        std::string part, parent;
        D3 at;
    };
    const double l = o.leg_scale, a = o.arm_scale;
    std::vector<Part> parts = {
        {"hips", "", {0, 1.0 * l, 0}},
        {"spine0", "hips", {0, 1.0 * l + 0.15, 0}},
        {"spine1", "spine0", {0, 1.0 * l + 0.30, 0}},
        {"spine2", "spine1", {0, 1.0 * l + 0.40, 0}},
        {"neck", o.rig == Rig::Valve ? "spine2" : "spine1", {0, 1.0 * l + 0.50, 0.02}},
        {"head", "neck", {0, 1.0 * l + 0.62, 0.03}},
        {"head_end", "head", {0, 1.0 * l + 0.82, 0.03}},
    };
    for (int side : {1, -1}) {
        const std::string s = side > 0 ? ".l" : ".r";
        const char* chest = o.rig == Rig::Valve ? "spine2" : "spine1";
        parts.push_back({"thigh" + s, "hips", {0.1 * side, 0.95 * l, 0}});
        parts.push_back({"shin" + s, "thigh" + s, {0.1 * side, 0.5 * l, 0.01 * l}});
        parts.push_back({"foot" + s, "shin" + s, {0.1 * side, 0.08 * l, 0}});
        parts.push_back({"toe" + s, "foot" + s, {0.1 * side, 0.0, 0.12 * l}});
        // The arm hangs from the shoulder, turned down by the drop about z (about -z on the right).
        const D3 shoulder{0.18 * side, 1.0 * l + 0.38, 0};
        const D4 drop = quatd::axis_angle({0, 0, 1}, -side * o.arm_drop_degrees * pi / 180);
        auto arm = [&](double reach) {
            const D3 v = quatd::rotate(drop, D3{side * reach * a, 0, 0});
            return D3{shoulder[0] + v[0], shoulder[1] + v[1], shoulder[2] + v[2]};
        };
        parts.push_back({"upper_arm" + s, chest, shoulder});
        parts.push_back({"forearm" + s, "upper_arm" + s, arm(0.3)});
        parts.push_back({"hand" + s, "forearm" + s, arm(0.55)});
        parts.push_back({"index" + s, "hand" + s, arm(0.65)});
    }
    if (o.weapon) parts.push_back({"weapon", "hand.r", {-0.18 - 0.6 * a, 1.0 * l + 0.30, 0.1}});

    Skeleton skeleton;
    std::map<std::string, int32_t> index;
    std::vector<D4> world_rotation;
    std::vector<D3> world_position;
    const D3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (const Part& p : parts) {
        const std::string name = rig_name(o.rig, p.part);
        if (name.empty()) continue;
        std::string parent_part = p.parent;
        // A part this rig lacks hangs from the part above it.
        while (!parent_part.empty() && rig_name(o.rig, parent_part).empty())
            for (const Part& q : parts)
                if (parent_part == q.part) {
                    parent_part = q.parent;
                    break;
                }
        const int32_t parent = parent_part.empty() ? -1 : index.at(parent_part);
        const size_t k = skeleton.joints.size();
        const D4 r = o.turned_joints ? quatd::axis_angle(axes[k % 3], pi / 2) : D4{0, 0, 0, 1};
        Joint j;
        j.name = name;
        j.parent = parent;
        D3 offset = p.at;
        D4 local = r;
        if (parent >= 0) {
            const D4 pr = world_rotation[size_t(parent)];
            const D3& pp = world_position[size_t(parent)];
            offset = quatd::rotate(quatd::conj(pr), D3{p.at[0] - pp[0], p.at[1] - pp[1], p.at[2] - pp[2]});
            local = quatd::mul(quatd::conj(pr), r);
        }
        j.bind.translate = {float(offset[0]), float(offset[1]), float(offset[2])};
        j.bind.rotate = {float(local[0]), float(local[1]), float(local[2]), float(local[3])};
        index[p.part] = int32_t(k);
        world_rotation.push_back(r);
        world_position.push_back(p.at);
        skeleton.joints.push_back(std::move(j));
    }
    return skeleton;
}

inline int32_t joint_index(const Skeleton& s, const std::string& name) {
    for (size_t j = 0; j < s.joints.size(); ++j)
        if (s.joints[j].name == name) return int32_t(j);
    return -1;
}

// A walk of one second for a Mixamo figure in its T pose, keys every quarter second: the hips
// travel 1.2 forward and bob, turn and sway; legs swing, knees bend; arms come down and twist;
// the head turns. Rotations are given in world terms and made local through the rest pose.
inline Animation make_walk(const Skeleton& s) {
    using quatd::D4;
    Animation a;
    a.name = "walk";
    const std::vector<float> times = {0, 0.25f, 0.5f, 0.75f, 1.0f};
    auto rot = [&](const std::string& part, auto at_time) {
        JointTrack t;
        t.joint = uint32_t(joint_index(s, rig_name(Rig::Mixamo, part)));
        t.channel = Channel::Rotation;
        const Quat rest = s.joints[t.joint].bind.rotate;
        for (float time : times) {
            const D4 q = quatd::unit(quatd::mul(at_time(double(time)), quatd::unit(rest)));
            t.times.push_back(time);
            t.values.insert(t.values.end(), {float(q[0]), float(q[1]), float(q[2]), float(q[3])});
        }
        a.tracks.push_back(t);
    };
    auto turn = [](double x, double y, double z) {
        return quatd::mul(quatd::mul(quatd::axis_angle({0, 1, 0}, y * pi / 180), quatd::axis_angle({1, 0, 0}, x * pi / 180)),
                          quatd::axis_angle({0, 0, 1}, z * pi / 180));
    };
    auto wave = [](double t, double phase) { return std::sin(2 * pi * t + phase); };
    rot("hips", [&](double t) { return turn(5 * wave(t, 0), 15 * wave(t, 1), 4 * wave(t, 2)); });
    rot("spine0", [&](double t) { return turn(10 + 5 * wave(t, 0.5), -8 * wave(t, 1), 0); });
    rot("spine1", [&](double t) { return turn(5 * wave(t, 2), 6 * wave(t, 0), 3 * wave(t, 1)); });
    rot("neck", [&](double t) { return turn(-5, 10 * wave(t, 0.3), 0); });
    rot("head", [&](double t) { return turn(8 * wave(t, 1.1), 25 * wave(t, 0), 5); });
    rot("thigh.l", [&](double t) { return turn(-35 * wave(t, 0), 5, 6 * wave(t, 0.4)); });
    rot("shin.l", [&](double t) { return turn(30 + 30 * wave(t, 1), 0, 0); });
    rot("foot.l", [&](double t) { return turn(-15 * wave(t, 2), 3, 0); });
    rot("thigh.r", [&](double t) { return turn(35 * wave(t, 0), -5, -6 * wave(t, 0.4)); });
    rot("shin.r", [&](double t) { return turn(30 - 30 * wave(t, 1), 0, 0); });
    rot("foot.r", [&](double t) { return turn(15 * wave(t, 2), -3, 0); });
    rot("upper_arm.l", [&](double t) { return turn(20 * wave(t, 0), 10, -70 + 10 * wave(t, 1)); });
    rot("forearm.l", [&](double t) { return turn(0, 40 + 20 * wave(t, 0.7), 0); });
    rot("hand.l", [&](double t) { return turn(30 * wave(t, 0), 0, 10); });
    rot("upper_arm.r", [&](double t) { return turn(-20 * wave(t, 0), -10, 70 - 10 * wave(t, 1)); });
    rot("forearm.r", [&](double t) { return turn(0, -40 - 20 * wave(t, 0.7), 0); });
    rot("hand.r", [&](double t) { return turn(-30 * wave(t, 0), 0, -10); });
    JointTrack travel;
    travel.joint = uint32_t(joint_index(s, rig_name(Rig::Mixamo, "hips")));
    travel.channel = Channel::Translation;
    const Vec3 rest = s.joints[travel.joint].bind.translate;
    for (float time : times) {
        travel.times.push_back(time);
        travel.values.insert(travel.values.end(), {rest[0] + 0.05f * float(std::sin(2 * pi * time)), rest[1] + 0.04f * float(std::cos(4 * pi * time)),
                                                    rest[2] + 1.2f * time});
    }
    a.tracks.push_back(travel);
    return a;
}

// World positions of every joint at a time of a clip.
inline std::vector<std::array<double, 3>> posed_positions(const Skeleton& s, const Animation& a, float time) {
    std::vector<std::array<double, 3>> out;
    for (const Mat4& m : world_matrices(s, sample_pose(s, a, time))) out.push_back({m[3][0], m[3][1], m[3][2]});
    return out;
}

// The angle in degrees between bone (from, to) of rig a's skeleton and of rig b's, at a time.
inline double bone_angle(const Skeleton& sa, Rig ra, const Animation& aa, const Skeleton& sb, Rig rb, const Animation& ab, float time,
                         const std::string& from, const std::string& to) {
    const auto pa = posed_positions(sa, aa, time), pb = posed_positions(sb, ab, time);
    auto dir = [](const std::vector<std::array<double, 3>>& p, int32_t i, int32_t j) {
        std::array<double, 3> d{p[size_t(j)][0] - p[size_t(i)][0], p[size_t(j)][1] - p[size_t(i)][1], p[size_t(j)][2] - p[size_t(i)][2]};
        const double n = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (double& c : d) c /= n;
        return d;
    };
    const auto da = dir(pa, joint_index(sa, rig_name(ra, from)), joint_index(sa, rig_name(ra, to)));
    const auto db = dir(pb, joint_index(sb, rig_name(rb, from)), joint_index(sb, rig_name(rb, to)));
    const double c = std::clamp(da[0] * db[0] + da[1] * db[1] + da[2] * db[2], -1.0, 1.0);
    return std::acos(c) * 180 / pi;
}

}  // namespace rigport::test
