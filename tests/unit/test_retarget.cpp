// Retargeting (docs/retarget.md): canonical names, the auto map, map files, and the motion measured
// as where the bones point in world space, on figures of our own (unit/retarget_figures.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "unit/retarget_figures.hpp"

namespace rigport {
namespace {

using test::FigureOptions;
using test::Rig;

Scene scene_of(Skeleton s, std::vector<Animation> clips = {}) {
    Scene scene;
    scene.skeleton = std::move(s);
    scene.animations = std::move(clips);
    return scene;
}

Animation retarget_one(const Scene& source, const Skeleton& target, BoneMap* used = nullptr, RetargetOptions options = {}) {
    const Scene to = scene_of(target);
    const BoneMap map = auto_bone_map(source.skeleton, target);
    if (used) *used = map;
    auto done = retarget_clips(source, to, map, options);
    EXPECT_TRUE(done) << (done ? "" : done.error().to_string());
    return done ? done->animations.at(0) : Animation{};
}

// The keys' times: the retargeted clip has keys where the source has them.
const std::vector<float> key_times = {0, 0.25f, 0.5f, 0.75f, 1.0f};

// The largest angle between a compared bone of a and of b over the key times.
double worst_angle(const Skeleton& sa, Rig ra, const Animation& aa, const Skeleton& sb, Rig rb, const Animation& ab) {
    double worst = 0;
    for (float t : key_times)
        for (auto& [from, to] : test::compared_bones())
            worst = std::max(worst, test::bone_angle(sa, ra, aa, sb, rb, ab, t, from, to));
    return worst;
}

TEST(Retarget, CanonicalNamesAcrossRigs) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"mixamorig:Hips", "hips"},           {"mixamorig5:LeftUpLeg", "thigh.l"},     {"ValveBiped.Bip01_L_Thigh", "thigh.l"},
        {"Bip01 R Calf", "shin.r"},           {"pelvis", "hips"},                      {"thigh_l", "thigh.l"},
        {"calf_r", "shin.r"},                 {"DEF-thigh.L", "thigh.l"},              {"ORG-forearm.R", "forearm.r"},
        {"mixamorig:RightForeArm", "forearm.r"}, {"lowerarm_l", "forearm.l"},         {"Lupperarm", "upper_arm.l"},
        {"Rloleg", "shin.r"},                 {"lThigh", "thigh.l"},                   {"mixamorig:LeftHandIndex1", "index.l#1"},
        {"ValveBiped.Bip01_L_Finger0", "thumb.l#1"}, {"ValveBiped.Bip01_L_Finger02", "thumb.l#3"}, {"thumb_02_r", "thumb.r#2"},
        {"mixamorig:LeftToeBase", "toe.l"},   {"ball_l", "toe.l"},                     {"mixamorig:HeadTop_End", "head_end"},
        {"ValveBiped.Bip01_Head1", "head"},   {"neck_01", "neck"},                     {"spine_03", "spine"},
        {"mixamorig:LeftShoulder", "clavicle.l"}, {"clavicle_r", "clavicle.r"},        {"Bip01", "root"},
        {"f_index.01.L", "index.l#1"},        {"weapon_bone", ""},                     {"Legs", ""},
    };
    for (auto& [name, want] : cases) EXPECT_EQ(canonical_joint_name(name), want) << name;
}

TEST(Retarget, AutoMapMixamoOntoValve) {
    const Skeleton mixamo = test::make_figure({.rig = Rig::Mixamo});
    const Skeleton valve = test::make_figure({.rig = Rig::Valve, .weapon = true});
    const BoneMap map = auto_bone_map(mixamo, valve);
    auto target_of = [&](const std::string& part) -> std::string {
        for (auto& [s, t] : map)
            if (s == test::rig_name(Rig::Mixamo, part)) return t;
        return "(none)";
    };
    for (auto& [from, to] : test::compared_bones()) {
        EXPECT_EQ(target_of(from), test::rig_name(Rig::Valve, from));
        EXPECT_EQ(target_of(to), test::rig_name(Rig::Valve, to));
    }
    // Two spine joints spread over three: the ends meet, the middle one is left to follow.
    EXPECT_EQ(target_of("spine0"), "ValveBiped.Bip01_Spine");
    EXPECT_EQ(target_of("spine1"), "ValveBiped.Bip01_Spine2");
    EXPECT_EQ(target_of("head_end"), "(none)");
    for (auto& [s, t] : map) EXPECT_NE(t, "ValveBiped.weapon_bone");
}

TEST(Retarget, HierarchyPairsWhatNamesLeaveOpen) {
    Skeleton a = test::make_figure({.rig = Rig::Mixamo}), b = test::make_figure({.rig = Rig::Mixamo});
    // One child under the head on each side, named in no vocabulary.
    a.joints.push_back(Joint{.name = "hat", .parent = test::joint_index(a, "mixamorig:Head"), .bind = {}});
    b.joints.push_back(Joint{.name = "Helmet", .parent = test::joint_index(b, "mixamorig:Head"), .bind = {}});
    const BoneMap map = auto_bone_map(a, b);
    EXPECT_NE(std::find(map.begin(), map.end(), std::pair<std::string, std::string>{"hat", "Helmet"}), map.end());
}

// The motion, with every difference at once: joints turned 90 degrees, other bone lengths, an A
// pose onto a T pose, another rig's names; and back again.
TEST(Retarget, BonesPointWhereTheSourceBonesPoint) {
    const Skeleton source = test::make_figure({.rig = Rig::Mixamo});
    const Scene clip = scene_of(source, {test::make_walk(source)});
    const Animation& walk = clip.animations[0];
    const struct {
        const char* what;
        FigureOptions figure;
    } targets[] = {
        {"turned joints", {.rig = Rig::Mixamo, .turned_joints = true}},
        {"other lengths", {.rig = Rig::Mixamo, .leg_scale = 1.3, .arm_scale = 0.8}},
        {"valve, A pose, turned, other lengths", {.rig = Rig::Valve, .leg_scale = 0.7, .arm_scale = 1.25, .arm_drop_degrees = 45, .turned_joints = true, .weapon = true}},
    };
    for (auto& target_case : targets) {
        SCOPED_TRACE(target_case.what);
        const Skeleton target = test::make_figure(target_case.figure);
        const Rig rig = target_case.figure.rig;
        const Animation there = retarget_one(clip, target);
        // Where the source's bones point at every key (0, 0.25 ... 1 s): within 0.5 degree.
        const double forth = worst_angle(source, Rig::Mixamo, walk, target, rig, there);
        EXPECT_LT(forth, 0.5);
        // Back onto the source: its own motion again.
        const Animation back = retarget_one(scene_of(target, {there}), source);
        const double again = worst_angle(source, Rig::Mixamo, walk, source, Rig::Mixamo, back);
        EXPECT_LT(again, 0.5);
        std::printf("[ figures  ] %s: worst bone angle %.2e degrees there, %.2e back\n", target_case.what, forth, again);
        // Without the rest poses matched the A pose would be 45 degrees off: the test can fail.
        if (target_case.figure.arm_drop_degrees > 0) {
            EXPECT_NEAR(test::bone_angle(source, Rig::Mixamo, Animation{}, target, rig, Animation{}, 0, "upper_arm.l", "forearm.l"), 45, 0.01);
        }
    }
}

// Twist kept: where the rest poses agree (joint axes turned, other lengths), each target joint turns
// in world space exactly as its source joint does, about its bone as well as across it.
TEST(Retarget, TwistAboutTheBoneIsKept) {
    const Skeleton source = test::make_figure({.rig = Rig::Mixamo});
    const Scene clip = scene_of(source, {test::make_walk(source)});
    // The world turn from rest of each joint, as a rotation matrix R(t) R(rest)^T.
    auto turns = [](const Skeleton& s, const Animation& a, float t) {
        const auto now = world_matrices(s, sample_pose(s, a, t)), rest = world_matrices(s, bind_pose(s));
        std::vector<std::array<std::array<double, 3>, 3>> out(now.size());
        for (size_t j = 0; j < now.size(); ++j)
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) {
                    double v = 0;
                    for (int k = 0; k < 3; ++k) v += now[j][k][r] * rest[j][k][c];  // m[col][row]
                    out[j][size_t(r)][size_t(c)] = v;
                }
        return out;
    };
    for (const FigureOptions& figure : {FigureOptions{.turned_joints = true}, FigureOptions{.leg_scale = 1.3, .arm_scale = 0.8}}) {
        const Skeleton target = test::make_figure(figure);
        const Animation there = retarget_one(clip, target);
        double worst = 0;
        for (float t : key_times) {
            const auto a = turns(source, clip.animations[0], t), b = turns(target, there, t);
            for (size_t j = 0; j < a.size(); ++j) {
                // The angle of a * b^T, from its trace.
                double trace = 0;
                for (int r = 0; r < 3; ++r)
                    for (int k = 0; k < 3; ++k) trace += a[j][size_t(r)][size_t(k)] * b[j][size_t(r)][size_t(k)];
                worst = std::max(worst, std::acos(std::clamp((trace - 1) / 2, -1.0, 1.0)) * 180 / test::pi);
            }
        }
        std::printf("[ figures  ] world turns, twist included: worst difference %.2e degrees\n", worst);
        EXPECT_LT(worst, 0.5);
    }
}

TEST(Retarget, OntoItselfTheClipIsUnchanged) {
    const Skeleton source = test::make_figure({.rig = Rig::Mixamo, .turned_joints = true});
    const Scene clip = scene_of(source, {test::make_walk(source)});
    const Animation same = retarget_one(clip, source);
    double worst = 0;
    for (float t : {0.0f, 0.1f, 0.25f, 0.6f, 1.0f}) {
        const auto a = sample_pose(source, clip.animations[0], t), b = sample_pose(source, same, t);
        for (size_t j = 0; j < a.size(); ++j) {
            double plus = 0, minus = 0;
            for (int k = 0; k < 4; ++k) {
                plus = std::max(plus, double(std::abs(a[j].rotate[k] - b[j].rotate[k])));
                minus = std::max(minus, double(std::abs(a[j].rotate[k] + b[j].rotate[k])));
            }
            worst = std::max(worst, std::min(plus, minus));
            for (int k = 0; k < 3; ++k) worst = std::max(worst, double(std::abs(a[j].translate[k] - b[j].translate[k])));
        }
    }
    std::printf("[ figures  ] onto itself: largest change %.2e\n", worst);
    EXPECT_LT(worst, 1e-5);
}

// The root's travel: scaled by the leg lengths (1.3 here), kept, or without its horizontal part.
TEST(Retarget, RootMotion) {
    const Skeleton source = test::make_figure({.rig = Rig::Mixamo});
    const Scene clip = scene_of(source, {test::make_walk(source)});
    const Skeleton target = test::make_figure({.rig = Rig::Valve, .leg_scale = 1.3});
    const int32_t hs = test::joint_index(source, "mixamorig:Hips"), ht = test::joint_index(target, "ValveBiped.Bip01_Pelvis");
    auto travel = [&](const Skeleton& s, int32_t joint, const Animation& a, float t) {
        const auto p = test::posed_positions(s, a, t), r = test::posed_positions(s, Animation{}, 0);
        return std::array<double, 3>{p[size_t(joint)][0] - r[size_t(joint)][0], p[size_t(joint)][1] - r[size_t(joint)][1],
                                     p[size_t(joint)][2] - r[size_t(joint)][2]};
    };
    for (RootMotion mode : {RootMotion::Scale, RootMotion::Keep, RootMotion::InPlace}) {
        SCOPED_TRACE(to_string(mode));
        const Animation a = retarget_one(clip, target, nullptr, {.root_motion = mode, .name = {}});
        const double k = mode == RootMotion::Keep ? 1.0 : 1.3;
        for (float t : key_times) {
            const auto want = travel(source, hs, clip.animations[0], t), got = travel(target, ht, a, t);
            EXPECT_NEAR(got[1], k * want[1], 1e-5);  // vertical: kept in every mode (scaled but for keep)
            EXPECT_NEAR(got[0], mode == RootMotion::InPlace ? 0 : k * want[0], 1e-5);
            EXPECT_NEAR(got[2], mode == RootMotion::InPlace ? 0 : k * want[2], 1e-5);
        }
    }
}

TEST(Retarget, UnmappedTargetJointsAreWarnedAndFollowTheirParents) {
    const Skeleton source = test::make_figure({.rig = Rig::Mixamo});
    const Scene clip = scene_of(source, {test::make_walk(source)});
    const Skeleton target = test::make_figure({.rig = Rig::Valve, .weapon = true});
    auto done = retarget_clips(clip, scene_of(target), auto_bone_map(source, target));
    ASSERT_TRUE(done);
    EXPECT_EQ(done->unmapped, (std::vector<std::string>{"ValveBiped.Bip01_Spine1", "ValveBiped.weapon_bone"}));
    ASSERT_TRUE(done->warnings.has(WarningCode::Unmapped));
    EXPECT_NE(done->warnings.items[0].message.find("ValveBiped.weapon_bone"), std::string::npos);
    // The prop keeps its place in the hand: the same offset in the hand's frame at every key.
    const int32_t hand = test::joint_index(target, "ValveBiped.Bip01_R_Hand"), weapon = test::joint_index(target, "ValveBiped.weapon_bone");
    for (float t : key_times) {
        const auto world = world_matrices(target, sample_pose(target, done->animations[0], t));
        const auto local = transform_point(inverse_affine(world[size_t(hand)]), {world[size_t(weapon)][3][0], world[size_t(weapon)][3][1], world[size_t(weapon)][3][2]});
        const Vec3 rest = target.joints[size_t(weapon)].bind.translate;
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(local[size_t(k)], rest[size_t(k)], 1e-5);
    }
}

TEST(Retarget, MapFilesOverrideAndRefuse) {
    const Skeleton source = test::make_figure({.rig = Rig::Mixamo});
    const Skeleton target = test::make_figure({.rig = Rig::Valve});
    auto overrides = parse_bone_map(R"({"mixamorig:LeftUpLeg": "ValveBiped.Bip01_R_Thigh", "mixamorig:RightUpLeg": "ValveBiped.Bip01_L_Thigh",
                                        "mixamorig:Head": null})",
                                    "swap.json");
    ASSERT_TRUE(overrides) << overrides.error().to_string();
    auto map = apply_bone_map(auto_bone_map(source, target), *overrides, source, target, "swap.json");
    ASSERT_TRUE(map) << map.error().to_string();
    auto target_of = [&](const std::string& s) -> std::string {
        for (auto& [a, b] : *map)
            if (a == s) return b;
        return "(none)";
    };
    EXPECT_EQ(target_of("mixamorig:LeftUpLeg"), "ValveBiped.Bip01_R_Thigh");
    EXPECT_EQ(target_of("mixamorig:RightUpLeg"), "ValveBiped.Bip01_L_Thigh");
    EXPECT_EQ(target_of("mixamorig:Head"), "(none)");
    // Saved and read back: the same pairs in the same order.
    auto again = parse_bone_map(bone_map_json(*map), "saved.json");
    ASSERT_TRUE(again);
    auto reread = apply_bone_map({}, *again, source, target, "saved.json");
    ASSERT_TRUE(reread);
    EXPECT_EQ(*reread, *map);

    for (const char* bad : {"{not json", "[1, 2]", R"({"mixamorig:Hips": 3})"}) {
        auto e = parse_bone_map(bad, "bad.json");
        ASSERT_FALSE(e) << bad;
        EXPECT_EQ(e.error().code, ErrorCode::Malformed);
        EXPECT_EQ(e.error().path, "bad.json");
    }
    for (const char* wrong : {R"({"nobody": "ValveBiped.Bip01_Pelvis"})", R"({"mixamorig:Hips": "nobody"})",
                              R"({"mixamorig:Spine": "ValveBiped.Bip01_Pelvis", "mixamorig:Hips": "ValveBiped.Bip01_Pelvis"})"}) {
        auto parsed = parse_bone_map(wrong, "wrong.json");
        ASSERT_TRUE(parsed);
        auto e = apply_bone_map(auto_bone_map(source, target), *parsed, source, target, "wrong.json");
        ASSERT_FALSE(e) << wrong;
        EXPECT_EQ(e.error().code, ErrorCode::Malformed) << wrong;
    }
}

}  // namespace
}  // namespace rigport
