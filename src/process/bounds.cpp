// Per-frame bounds of the skinned mesh, measured from the origin as IQM stores them
// (iqm-iqe.md §1.8, §3.2 step 9).
#include <algorithm>
#include <cmath>

#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

// Frames the IQM writer emits for an animation: its own frames, else the keys resampled at the
// frame rate over [0, duration]; an animation without keys has none. Must match iqm_write.cpp.
uint64_t written_frames(const Animation& anim) {
    if (anim.frame_count > 0) return anim.frame_count;
    bool keyed = std::any_of(anim.tracks.begin(), anim.tracks.end(), [](auto& t) { return !t.times.empty(); });
    if (!keyed) return 0;
    double rate = anim.frame_rate > 0 ? anim.frame_rate : default_frame_rate;
    double frames = std::floor(double(anim.duration()) * rate + 0.5) + 1;
    return frames < 4294967296.0 ? uint64_t(frames) : 4294967296ull;  // beyond IQM's uint32 counts
}

bool has_skinned_vertex(const Scene& scene) {
    for (auto& mesh : scene.meshes) {
        const auto& s = mesh.skin;
        if (s.offsets.size() != mesh.positions.size() + 1) continue;
        for (uint32_t v = 0; v < mesh.positions.size(); ++v)
            if (s.offsets[v + 1] > s.offsets[v]) return true;
    }
    return false;
}

}  // namespace

std::vector<FrameBounds> compute_frame_bounds(const Scene& scene) {
    std::vector<FrameBounds> out;
    if (scene.skeleton.joints.empty() || scene.animations.empty() || !has_skinned_vertex(scene)) return out;
    for (auto& anim : scene.animations) {
        const uint64_t frames = written_frames(anim);
        if (frames > UINT32_MAX) return {};  // no file can hold these; the writer rejects them
        for (uint64_t f = 0; f < frames; ++f) {
            auto skinning = skinning_matrices(scene.skeleton, frame_pose(scene.skeleton, anim, uint32_t(f)));
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
            out.push_back(b);
        }
    }
    return out;
}

}  // namespace rigport
