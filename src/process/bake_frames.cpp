// Sampling a scene into the vertex frames MD2, MD3 and Quake MDL store (docs/formats.md "Vertex
// animation"): morphs first, then the skin, as glTF orders them.
#include <fmt/format.h>

#include <cmath>

#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport {
namespace {

using D3 = std::array<double, 3>;

// Area-weighted face normals summed per vertex (a cross product's length is twice the area).
std::vector<Vec3> face_normals(const Mesh& mesh, const std::vector<D3>& p) {
    std::vector<D3> sum(p.size(), D3{0, 0, 0});
    for (const Triangle& t : mesh.triangles) {
        const D3 &a = p[t[0]], &b = p[t[1]], &c = p[t[2]];
        const D3 u{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const D3 n{u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        for (uint32_t i : t)
            for (int k = 0; k < 3; ++k) sum[i][k] += n[k];
    }
    std::vector<Vec3> out(p.size(), Vec3{0, 0, 0});
    for (size_t i = 0; i < p.size(); ++i) {
        const double len = std::sqrt(sum[i][0] * sum[i][0] + sum[i][1] * sum[i][1] + sum[i][2] * sum[i][2]);
        if (len > 0 && std::isfinite(len))
            for (int k = 0; k < 3; ++k) out[i][k] = float(sum[i][k] / len);
    }
    return out;
}

// The mesh's normals with the morph weights applied, then turned by each vertex's weighted
// skinning matrices (their linear part; exact for rotations and uniform scales).
std::vector<Vec3> skinned_normals(const Mesh& mesh, const std::vector<float>& weights, const std::vector<Mat4>* skinning) {
    std::vector<Vec3> out(mesh.normals.size(), Vec3{0, 0, 0});
    for (uint32_t v = 0; v < mesh.normals.size(); ++v) {
        D3 n{mesh.normals[v][0], mesh.normals[v][1], mesh.normals[v][2]};
        for (size_t t = 0; t < weights.size() && t < mesh.morph_targets.size(); ++t) {
            const auto& d = mesh.morph_targets[t].normal_deltas;
            if (weights[t] != 0 && v < d.size())
                for (int k = 0; k < 3; ++k) n[k] += double(weights[t]) * d[v][k];
        }
        if (skinning && !mesh.skin.empty() && mesh.skin.count(v) > 0) {
            D3 r{0, 0, 0};
            double total = 0;
            for (const Influence* i = mesh.skin.begin(v); i != mesh.skin.begin(v) + mesh.skin.count(v); ++i) total += i->weight;
            for (const Influence* i = mesh.skin.begin(v); i != mesh.skin.begin(v) + mesh.skin.count(v); ++i) {
                if (i->joint >= skinning->size() || total <= 0) continue;
                const Mat4& m = (*skinning)[i->joint];
                const double w = i->weight / total;
                for (int row = 0; row < 3; ++row) r[row] += w * (m[0][row] * n[0] + m[1][row] * n[1] + m[2][row] * n[2]);
            }
            n = r;
        }
        const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (len > 0 && std::isfinite(len))
            for (int k = 0; k < 3; ++k) out[v][k] = float(n[k] / len);
    }
    return out;
}

// One frame: every mesh at the pose (empty = bind) and the animation's morph weights at time t.
BakedFrame bake_one(const Scene& scene, const Animation* animation, float time, const std::vector<Transform>& pose, std::string name) {
    BakedFrame frame;
    frame.name = std::move(name);
    const bool skinned = !scene.skeleton.joints.empty() && !pose.empty();
    std::vector<Mat4> skinning;
    if (skinned) skinning = skinning_matrices(scene.skeleton, pose);
    for (uint32_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        std::vector<float> weights;
        if (!mesh.morph_targets.empty()) {
            if (animation) {
                weights = sample_morph_weights(mesh, m, *animation, time);
            } else {
                for (const MorphTarget& t : mesh.morph_targets) weights.push_back(t.default_weight);
            }
        }
        std::vector<D3> p = weights.empty() ? std::vector<D3>() : morph_positions(mesh, weights);
        if (weights.empty())
            for (const Vec3& v : mesh.positions) p.push_back({v[0], v[1], v[2]});
        if (skinned && !mesh.skin.empty()) p = skin_positions(mesh, p, skinning);
        std::vector<Vec3> positions(p.size());
        for (size_t i = 0; i < p.size(); ++i) positions[i] = {float(p[i][0]), float(p[i][1]), float(p[i][2])};
        frame.positions.push_back(std::move(positions));
        frame.normals.push_back(mesh.normals.empty() ? face_normals(mesh, p) : skinned_normals(mesh, weights, skinned ? &skinning : nullptr));
    }
    return frame;
}

}  // namespace

Expected<BakedFrames> bake_frames(const Scene& scene, const BakeOptions& options) {
    BakedFrames out;
    const uint64_t vertices = std::max<uint64_t>(scene.vertex_count(), 1);
    if (scene.animations.empty()) {
        out.clips.push_back({"base", options.frame_rate > 0 ? options.frame_rate : default_frame_rate, 0, 1, false});
        out.frames.push_back(bake_one(scene, nullptr, 0, scene.skeleton.joints.empty() ? std::vector<Transform>() : bind_pose(scene.skeleton), "base1"));
        return out;
    }
    // Count first: nothing is sampled for a scene whose frames would not fit.
    uint64_t total = 0;
    for (const Animation& a : scene.animations) {
        const float rate = options.frame_rate > 0 ? options.frame_rate : sampling_rate(a);
        const uint64_t n = options.frame_rate > 0 ? uint64_t(std::floor(double(a.duration()) * rate + 0.5)) + 1 : sampled_frame_count(a);
        total += std::max<uint64_t>(n, 1);
        if (total > options.max_frames || total * vertices > options.max_values)
            return make_error(ErrorCode::LimitExceeded,
                              fmt::format("animation '{}': {} frames in all (at {} per second) of {} vertices exceed what a vertex-animation "
                                          "writer samples ({} frames, {} vertex values: BakeOptions)",
                                          a.name, total, rate, vertices, options.max_frames, options.max_values));
    }
    for (const Animation& a : scene.animations) {
        const float rate = options.frame_rate > 0 ? options.frame_rate : sampling_rate(a);
        const uint64_t n = std::max<uint64_t>(
            options.frame_rate > 0 ? uint64_t(std::floor(double(a.duration()) * rate + 0.5)) + 1 : sampled_frame_count(a), 1);
        BakedClip clip{a.name, rate, uint32_t(out.frames.size()), uint32_t(n), a.loop};
        for (uint64_t f = 0; f < n; ++f) {
            const float t = float(double(f) / rate);
            std::vector<Transform> pose;
            if (!scene.skeleton.joints.empty()) pose = sample_pose(scene.skeleton, a, t);
            out.frames.push_back(bake_one(scene, &a, t, pose, fmt::format("{}{}", a.name, f + 1)));
        }
        out.clips.push_back(std::move(clip));
    }
    return out;
}

}  // namespace rigport
