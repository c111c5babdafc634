// Shared by the FBX writer's tests: a skinned, animated, blend-shaped scene, and the comparison
// of a scene with its reading back from FBX (docs/fbx.md "Writing FBX").
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"

namespace rigport::test {

// The built-in sample (Z up, clockwise faces, 4 joints, "wave" and "pulse") with a second UV set,
// a morph target on its mesh ("smile", default weight 0.25, normals turned) and a clip animating
// its weight with step keys.
inline Scene fbx_write_scene() {
    Scene s = make_sample_scene();
    Mesh& m = s.meshes.front();
    std::vector<Vec2> second;
    for (const Vec2& t : m.texcoords[0]) second.push_back({t[1], t[0]});
    m.texcoords.push_back(std::move(second));
    MorphTarget t;
    t.name = "smile";
    t.default_weight = 0.25f;
    for (uint32_t v = 0; v < m.vertex_count(); ++v) t.position_deltas.push_back(v % 3 == 0 ? Vec3{0, 0.1f, 0.05f * float(v % 7)} : Vec3{0, 0, 0});
    t.normal_deltas.assign(m.vertex_count(), Vec3{0, 0, 0});
    m.morph_targets.push_back(std::move(t));
    Animation a;
    a.name = "smile";
    MorphWeightTrack w;
    w.interpolation = Interpolation::Step;
    w.times = {0.0f, 0.5f, 1.0f};
    w.weights = {0.0f, 1.0f, 0.5f};
    a.morph_tracks.push_back(std::move(w));
    s.animations.push_back(std::move(a));
    return s;
}

// The test scene as three.js's FBXLoader and Blender's importer play it: neither applies a blend
// shape channel's DeformPercent outside an animation (FBXLoader 0.187 keeps it as initialWeight and
// never applies it: weights start at 0; Blender's importer sets it as the shape key's value, which
// the channel's action then drives under every clip), and both read DeformPercent keys as linear
// (KeyAttrFlags' constant keys are not read). So the smile starts at weight 0 and its weight clip
// is linear; the skin, the joint clips, the offsets and their animation are the scene's.
inline Scene fbx_write_scene_for_players() {
    Scene s = fbx_write_scene();
    for (Mesh& m : s.meshes)
        for (MorphTarget& t : m.morph_targets) t.default_weight = 0;
    for (Animation& a : s.animations)
        for (MorphWeightTrack& w : a.morph_tracks) w.interpolation = Interpolation::Linear;
    return s;
}

// The scene as FBX holds it: Y up, counter-clockwise (what the writer converts to).
inline Scene as_fbx_axes(Scene s) {
    convert_to_y_up(s);
    set_front_face(s, Winding::CounterClockwise);
    return s;
}

// For each source vertex, the vertex of the FBX reading that it became: the reader numbers
// vertices by their first corner, and the writer's corners are the source triangles in order.
inline std::vector<uint32_t> vertex_map(const Mesh& source) {
    std::vector<uint32_t> map(source.vertex_count(), UINT32_MAX);
    uint32_t next = 0;
    for (const Triangle& t : source.triangles)
        for (uint32_t v : t)
            if (map[v] == UINT32_MAX) map[v] = next++;
    return map;
}

// The largest component difference of two quaternions of the same rotation (either sign).
inline double quat_distance(const Quat& a, const Quat& b) {
    double dot = 0, same = 0, flipped = 0;
    for (int k = 0; k < 4; ++k) dot += double(a[size_t(k)]) * double(b[size_t(k)]);
    for (int k = 0; k < 4; ++k) {
        same = std::max(same, double(std::fabs(a[size_t(k)] - b[size_t(k)])));
        flipped = std::max(flipped, double(std::fabs(a[size_t(k)] + b[size_t(k)])));
    }
    return dot >= 0 ? same : flipped;
}

// Tolerances of the round trip, in units of the scene (the sample is about 2 units long):
// positions, offsets, UVs, colours and weights are floats written as doubles (exact) or, for key
// values, as floats: 1e-6 absolute. Rotations (Euler degrees in double, read back into float
// quaternions through the bind matrices): 2e-6 per quaternion component, a few float steps. Poses
// at keys: world matrices 1e-5.
constexpr double fbx_value_tolerance = 1e-6;
constexpr double fbx_rotation_tolerance = 2e-6;
constexpr double fbx_pose_tolerance = 1e-5;

// `back` (read from FBX) holds what `source` (already as_fbx_axes) held, within the tolerances.
inline void expect_fbx_round_trip(const Scene& source, const Scene& back) {
    EXPECT_NEAR(back.meta.unit_scale, source.meta.unit_scale, 1e-7);
    EXPECT_EQ(back.meta.up, UpAxis::Y);
    ASSERT_EQ(back.skeleton.joints.size(), source.skeleton.joints.size());
    for (size_t j = 0; j < source.skeleton.joints.size(); ++j) {
        const Joint &a = source.skeleton.joints[j], &b = back.skeleton.joints[j];
        EXPECT_EQ(b.name, a.name);
        EXPECT_EQ(b.parent, a.parent);
        for (int k = 0; k < 3; ++k) {
            EXPECT_NEAR(b.bind.translate[size_t(k)], a.bind.translate[size_t(k)], fbx_value_tolerance) << "joint " << j;
            EXPECT_NEAR(b.bind.scale[size_t(k)], a.bind.scale[size_t(k)], fbx_value_tolerance) << "joint " << j;
        }
        EXPECT_LT(quat_distance(b.bind.rotate, a.bind.rotate), fbx_rotation_tolerance) << "joint " << j;
    }
    ASSERT_EQ(back.meshes.size(), source.meshes.size());
    for (size_t m = 0; m < source.meshes.size(); ++m) {
        const Mesh &a = source.meshes[m], &b = back.meshes[m];
        SCOPED_TRACE("mesh " + a.name);
        EXPECT_EQ(b.name, a.name);
        ASSERT_EQ(b.vertex_count(), a.vertex_count());
        ASSERT_EQ(b.triangles.size(), a.triangles.size());
        ASSERT_EQ(b.texcoords.size(), a.texcoords.size());
        ASSERT_EQ(b.colors.size(), a.colors.size());
        ASSERT_EQ(b.normals.empty(), a.normals.empty());
        const auto map = vertex_map(a);
        for (size_t t = 0; t < a.triangles.size(); ++t)
            for (int k = 0; k < 3; ++k) ASSERT_EQ(b.triangles[t][size_t(k)], map[a.triangles[t][size_t(k)]]) << "triangle " << t;
        double worst = 0;
        for (uint32_t v = 0; v < a.vertex_count(); ++v) {
            const uint32_t w = map[v];
            for (int k = 0; k < 3; ++k) {
                worst = std::max(worst, double(std::fabs(b.positions[w][size_t(k)] - a.positions[v][size_t(k)])));
                if (!a.normals.empty()) worst = std::max(worst, double(std::fabs(b.normals[w][size_t(k)] - a.normals[v][size_t(k)])));
            }
            for (size_t s = 0; s < a.texcoords.size(); ++s)
                for (int k = 0; k < 2; ++k) worst = std::max(worst, double(std::fabs(b.texcoords[s][w][size_t(k)] - a.texcoords[s][v][size_t(k)])));
            for (size_t s = 0; s < a.colors.size(); ++s)
                for (int k = 0; k < 4; ++k) worst = std::max(worst, double(std::fabs(b.colors[s][w][size_t(k)] - a.colors[s][v][size_t(k)])));
            // Influences by joint (the reader lists them in its own order).
            std::map<uint32_t, double> wa, wb;
            if (!a.skin.empty())
                for (uint32_t i = 0; i < a.skin.count(v); ++i) wa[a.skin.begin(v)[i].joint] += a.skin.begin(v)[i].weight;
            if (!b.skin.empty())
                for (uint32_t i = 0; i < b.skin.count(w); ++i) wb[b.skin.begin(w)[i].joint] += b.skin.begin(w)[i].weight;
            std::erase_if(wa, [](auto& e) { return e.second == 0; });
            ASSERT_EQ(wa.size(), wb.size()) << "vertex " << v;
            for (auto& [joint, weight] : wa) {
                ASSERT_TRUE(wb.count(joint)) << "vertex " << v << " joint " << joint;
                worst = std::max(worst, std::fabs(wb[joint] - weight));
            }
        }
        EXPECT_LT(worst, fbx_value_tolerance) << "positions, normals, UVs, colours, weights";
        ASSERT_EQ(b.morph_targets.size(), a.morph_targets.size());
        for (size_t t = 0; t < a.morph_targets.size(); ++t) {
            const MorphTarget &x = a.morph_targets[t], &y = b.morph_targets[t];
            EXPECT_EQ(y.name, x.name);
            EXPECT_NEAR(y.default_weight, x.default_weight, fbx_value_tolerance);
            ASSERT_EQ(y.position_deltas.size(), b.vertex_count());
            double off = 0;
            for (uint32_t v = 0; v < a.vertex_count(); ++v)
                for (int k = 0; k < 3; ++k) off = std::max(off, double(std::fabs(y.position_deltas[map[v]][size_t(k)] - x.position_deltas[v][size_t(k)])));
            EXPECT_LT(off, fbx_value_tolerance) << "morph target " << x.name;
        }
    }
    // Animations: names and durations; at every key time of the source, every joint's world place
    // and every morph weight.
    ASSERT_EQ(back.animations.size(), source.animations.size());
    for (size_t i = 0; i < source.animations.size(); ++i) {
        const Animation &a = source.animations[i], &b = back.animations[i];
        SCOPED_TRACE("animation " + a.name);
        EXPECT_EQ(b.name, a.name);
        EXPECT_NEAR(b.duration(), a.duration(), 1e-6);
        std::vector<float> times;
        for (auto& t : a.tracks) times.insert(times.end(), t.times.begin(), t.times.end());
        for (auto& t : a.morph_tracks) times.insert(times.end(), t.times.begin(), t.times.end());
        std::sort(times.begin(), times.end());
        times.erase(std::unique(times.begin(), times.end()), times.end());
        double worst = 0, worst_weight = 0;
        for (float t : times) {
            const auto wa = world_matrices(source.skeleton, sample_pose(source.skeleton, a, t));
            const auto wb = world_matrices(back.skeleton, sample_pose(back.skeleton, b, t));
            for (size_t j = 0; j < wa.size(); ++j)
                for (int c = 0; c < 4; ++c)
                    for (int r = 0; r < 3; ++r) worst = std::max(worst, std::fabs(wa[j][size_t(c)][size_t(r)] - wb[j][size_t(c)][size_t(r)]));
            for (size_t m = 0; m < source.meshes.size(); ++m) {
                const auto xa = sample_morph_weights(source.meshes[m], uint32_t(m), a, t);
                const auto xb = sample_morph_weights(back.meshes[m], uint32_t(m), b, t);
                ASSERT_EQ(xa.size(), xb.size());
                for (size_t k = 0; k < xa.size(); ++k) worst_weight = std::max(worst_weight, double(std::fabs(xa[k] - xb[k])));
            }
        }
        EXPECT_LT(worst, fbx_pose_tolerance) << "joint world matrices at the source's key times (" << times.size() << " times)";
        EXPECT_LT(worst_weight, fbx_value_tolerance) << "morph weights at the source's key times";
    }
}

}  // namespace rigport::test
