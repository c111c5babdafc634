// Per-frame bounds of the skinned mesh, measured from the origin as IQM stores them
// (iqm-iqe.md §1.8, §3.2 step 9).
#include <algorithm>
#include <cmath>

#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport {

bool has_skinned_vertices(const Scene& scene) {
    for (auto& mesh : scene.meshes) {
        const auto& s = mesh.skin;
        if (s.offsets.size() != mesh.positions.size() + 1) continue;
        for (uint32_t v = 0; v < mesh.positions.size(); ++v)
            if (s.offsets[v + 1] > s.offsets[v]) return true;
    }
    return false;
}

namespace {

struct Extent {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    float xy2 = 0, r2 = 0;

    void add(float x, float y, float z) {
        lo[0] = std::min(lo[0], x), lo[1] = std::min(lo[1], y), lo[2] = std::min(lo[2], z);
        hi[0] = std::max(hi[0], x), hi[1] = std::max(hi[1], y), hi[2] = std::max(hi[2], z);
        const float xy = x * x + y * y;
        xy2 = std::max(xy2, xy);
        r2 = std::max(r2, xy + z * z);
    }
    FrameBounds bounds() const {
        FrameBounds b;
        if (lo[0] > hi[0]) return b;  // no vertex
        for (int k = 0; k < 3; ++k) b.min[k] = lo[k], b.max[k] = hi[k];
        b.xy_radius = std::sqrt(xy2);
        b.radius = std::sqrt(r2);
        return b;
    }
};

}  // namespace

std::vector<FrameBounds> skinned_bounds(const Scene& scene, const std::vector<std::vector<Transform>>& local_poses) {
    // The top three rows of every frame's skinning matrices, in float. Walking the vertices once
    // for the whole batch keeps this compute-bound: frame by frame it was memory-bound, reading
    // every vertex again for each frame.
    const size_t frames = local_poses.size();
    const size_t joints = scene.skeleton.joints.size();
    std::vector<std::array<float, 12>> rows(frames * joints);
    for (size_t f = 0; f < frames; ++f) {
        const auto skinning = skinning_matrices(scene.skeleton, local_poses[f]);
        for (size_t j = 0; j < joints && j < skinning.size(); ++j)
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 4; ++c) rows[f * joints + j][r * 4 + c] = float(skinning[j][c][r]);
    }
    std::vector<Extent> extent(frames);
    std::vector<Influence> used;
    for (auto& mesh : scene.meshes) {
        const auto& skin = mesh.skin;
        const bool skinned = skin.offsets.size() == mesh.positions.size() + 1;
        for (uint32_t v = 0; v < mesh.positions.size(); ++v) {
            const Vec3& p = mesh.positions[v];
            // The vertex's usable influences with weights normalized once, not once per frame.
            used.clear();
            float total = 0;
            if (skinned)
                for (uint32_t i = skin.offsets[v]; i < skin.offsets[v + 1]; ++i)
                    if (skin.influences[i].weight > 0 && skin.influences[i].joint < joints) {
                        used.push_back(skin.influences[i]);
                        total += skin.influences[i].weight;
                    }
            if (!(total > 0)) {  // unskinned: where it is, in every frame
                for (auto& e : extent) e.add(p[0], p[1], p[2]);
                continue;
            }
            for (auto& inf : used) inf.weight /= total;
            for (size_t f = 0; f < frames; ++f) {
                const auto* frame_rows = rows.data() + f * joints;
                float sx = 0, sy = 0, sz = 0;
                for (const Influence& inf : used) {
                    const float* m = frame_rows[inf.joint].data();
                    sx += inf.weight * (m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3]);
                    sy += inf.weight * (m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7]);
                    sz += inf.weight * (m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11]);
                }
                extent[f].add(sx, sy, sz);
            }
        }
    }
    std::vector<FrameBounds> out;
    out.reserve(frames);
    for (auto& e : extent) out.push_back(e.bounds());
    return out;
}

std::vector<FrameBounds> compute_frame_bounds(const Scene& scene) {
    std::vector<FrameBounds> out;
    if (scene.skeleton.joints.empty() || scene.animations.empty() || !has_skinned_vertices(scene)) return out;
    for (auto& anim : scene.animations) {
        const uint64_t frames = sampled_frame_count(anim);
        if (frames > UINT32_MAX) return {};  // no file can hold these; the writer rejects them
        std::vector<std::vector<Transform>> batch;
        for (uint64_t f = 0; f < frames; ++f) {
            batch.push_back(frame_pose(scene.skeleton, anim, uint32_t(f)));
            if (batch.size() == 64 || f + 1 == frames) {
                for (auto& b : skinned_bounds(scene, batch)) out.push_back(b);
                batch.clear();
            }
        }
    }
    return out;
}

}  // namespace rigport
