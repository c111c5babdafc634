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

FrameBounds skinned_bounds(const Scene& scene, const std::vector<Transform>& local_pose) {
    auto skinning = skinning_matrices(scene.skeleton, local_pose);
    std::array<double, 3> lo{}, hi{};
    double xy2 = 0, r2 = 0;
    bool first = true;
    for (auto& mesh : scene.meshes) {
        for (auto& p : skin_positions(mesh, skinning)) {
            if (first) lo = hi = p;
            first = false;
            for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
            double xy = p[0] * p[0] + p[1] * p[1];
            xy2 = std::max(xy2, xy);
            r2 = std::max(r2, xy + p[2] * p[2]);
        }
    }
    FrameBounds b;
    for (int k = 0; k < 3; ++k) b.min[k] = float(lo[k]), b.max[k] = float(hi[k]);
    b.xy_radius = float(std::sqrt(xy2));
    b.radius = float(std::sqrt(r2));
    return b;
}

std::vector<FrameBounds> compute_frame_bounds(const Scene& scene) {
    std::vector<FrameBounds> out;
    if (scene.skeleton.joints.empty() || scene.animations.empty() || !has_skinned_vertices(scene)) return out;
    for (auto& anim : scene.animations) {
        const uint64_t frames = sampled_frame_count(anim);
        if (frames > UINT32_MAX) return {};  // no file can hold these; the writer rejects them
        for (uint64_t f = 0; f < frames; ++f) out.push_back(skinned_bounds(scene, frame_pose(scene.skeleton, anim, uint32_t(f))));
    }
    return out;
}

}  // namespace rigport
