// Per-frame bounds of the skinned mesh, measured from the origin as IQM stores them
// (iqm-iqe.md §1.8, §3.2 step 9).
#include <algorithm>
#include <cmath>
#include <thread>

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

constexpr size_t lanes = 64;  // frames evaluated together, innermost, so the compiler vectorizes

// Extremes of one batch of frames, one lane per frame (structure of arrays).
struct Extents {
    float lo[3][lanes], hi[3][lanes], xy2[lanes], r2[lanes];

    Extents() {
        for (int k = 0; k < 3; ++k)
            for (size_t f = 0; f < lanes; ++f) lo[k][f] = INFINITY, hi[k][f] = -INFINITY;
        for (size_t f = 0; f < lanes; ++f) xy2[f] = r2[f] = 0;
    }
    void add(const float* x, const float* y, const float* z) {
        for (size_t f = 0; f < lanes; ++f) {
            lo[0][f] = x[f] < lo[0][f] ? x[f] : lo[0][f], hi[0][f] = x[f] > hi[0][f] ? x[f] : hi[0][f];
            lo[1][f] = y[f] < lo[1][f] ? y[f] : lo[1][f], hi[1][f] = y[f] > hi[1][f] ? y[f] : hi[1][f];
            lo[2][f] = z[f] < lo[2][f] ? z[f] : lo[2][f], hi[2][f] = z[f] > hi[2][f] ? z[f] : hi[2][f];
            const float xy = x[f] * x[f] + y[f] * y[f], r = xy + z[f] * z[f];
            xy2[f] = xy > xy2[f] ? xy : xy2[f];
            r2[f] = r > r2[f] ? r : r2[f];
        }
    }
    void merge(const Extents& o) {  // min and max are exact, so the merge order cannot matter
        for (size_t f = 0; f < lanes; ++f) {
            for (int k = 0; k < 3; ++k) lo[k][f] = std::min(lo[k][f], o.lo[k][f]), hi[k][f] = std::max(hi[k][f], o.hi[k][f]);
            xy2[f] = std::max(xy2[f], o.xy2[f]);
            r2[f] = std::max(r2[f], o.r2[f]);
        }
    }
    FrameBounds bounds(size_t f) const {
        FrameBounds b;
        if (lo[0][f] > hi[0][f]) return b;  // no vertex
        for (int k = 0; k < 3; ++k) b.min[k] = lo[k][f], b.max[k] = hi[k][f];
        b.xy_radius = std::sqrt(xy2[f]);
        b.radius = std::sqrt(r2[f]);
        return b;
    }
};

// The top three rows of each joint's skinning matrix for a batch of frames, in float:
// rows[(joint * 12 + element) * lanes + frame]. Lanes past the batch repeat its last frame.
std::vector<float> skinning_rows(const Skeleton& skeleton, const std::vector<std::vector<Transform>>& poses,
                                 size_t first, size_t count) {
    const size_t joints = skeleton.joints.size();
    std::vector<float> rows(joints * 12 * lanes);
    for (size_t f = 0; f < count; ++f) {
        const auto skinning = skinning_matrices(skeleton, poses[first + f]);
        for (size_t j = 0; j < joints && j < skinning.size(); ++j)
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 4; ++c) rows[(j * 12 + r * 4 + c) * lanes + f] = float(skinning[j][c][r]);
    }
    for (size_t i = 0; i < joints * 12; ++i)
        for (size_t f = count; f < lanes; ++f) rows[i * lanes + f] = rows[i * lanes + count - 1];
    return rows;
}

// A vertex with its usable influences, weights normalized once rather than once per frame.
struct SkinnedVertex {
    Vec3 position;
    uint32_t first = 0, count = 0;  // into the influence list; count 0 = unskinned
};

struct SkinnedVertices {
    std::vector<SkinnedVertex> vertices;
    std::vector<Influence> influences;

    SkinnedVertices(const Scene& scene, size_t joints) {
        for (auto& mesh : scene.meshes) {
            const auto& skin = mesh.skin;
            const bool skinned = skin.offsets.size() == mesh.positions.size() + 1;
            for (uint32_t v = 0; v < mesh.positions.size(); ++v) {
                SkinnedVertex sv{mesh.positions[v], uint32_t(influences.size()), 0};
                float total = 0;
                if (skinned)
                    for (uint32_t i = skin.offsets[v]; i < skin.offsets[v + 1]; ++i)
                        if (skin.influences[i].weight > 0 && skin.influences[i].joint < joints) {
                            influences.push_back(skin.influences[i]);
                            total += skin.influences[i].weight;
                        }
                if (total > 0) {
                    sv.count = uint32_t(influences.size() - sv.first);
                    for (uint32_t i = sv.first; i < influences.size(); ++i) influences[i].weight /= total;
                } else {
                    influences.resize(sv.first);  // unskinned: where it is, in every frame
                }
                vertices.push_back(sv);
            }
        }
    }
};

// Built for AVX2 as well as the baseline, chosen at load time: twice the lanes per instruction.
__attribute__((target_clones("avx2", "default")))
void extend(Extents& e, const SkinnedVertices& sv, size_t begin, size_t end, const std::vector<float>& rows) {
    alignas(64) float x[lanes], y[lanes], z[lanes];
    for (size_t v = begin; v < end; ++v) {
        const SkinnedVertex& vert = sv.vertices[v];
        const float px = vert.position[0], py = vert.position[1], pz = vert.position[2];
        if (vert.count == 0) {
            for (size_t f = 0; f < lanes; ++f) x[f] = px, y[f] = py, z[f] = pz;
        } else {
            for (size_t f = 0; f < lanes; ++f) x[f] = y[f] = z[f] = 0;
            for (uint32_t i = vert.first; i < vert.first + vert.count; ++i) {
                const float w = sv.influences[i].weight;
                const float* m = rows.data() + size_t(sv.influences[i].joint) * 12 * lanes;
                for (size_t f = 0; f < lanes; ++f) {
                    x[f] += w * (m[0 * lanes + f] * px + m[1 * lanes + f] * py + m[2 * lanes + f] * pz + m[3 * lanes + f]);
                    y[f] += w * (m[4 * lanes + f] * px + m[5 * lanes + f] * py + m[6 * lanes + f] * pz + m[7 * lanes + f]);
                    z[f] += w * (m[8 * lanes + f] * px + m[9 * lanes + f] * py + m[10 * lanes + f] * pz + m[11 * lanes + f]);
                }
            }
        }
        e.add(x, y, z);
    }
}

}  // namespace

std::vector<FrameBounds> skinned_bounds(const Scene& scene, const std::vector<std::vector<Transform>>& local_poses) {
    const SkinnedVertices sv(scene, scene.skeleton.joints.size());
    const size_t n = sv.vertices.size();
    // Vertices split over the cores when there is enough work; each part keeps its own
    // extremes, merged exactly afterwards, so the result does not depend on the split.
    const size_t parts = std::clamp<size_t>(std::min<size_t>(std::thread::hardware_concurrency(), 8), 1,
                                            std::max<size_t>(1, n * local_poses.size() / (1u << 18)));
    std::vector<FrameBounds> out;
    out.reserve(local_poses.size());
    for (size_t first = 0; first < local_poses.size(); first += lanes) {
        const size_t count = std::min(lanes, local_poses.size() - first);
        const auto rows = skinning_rows(scene.skeleton, local_poses, first, count);
        std::vector<Extents> extents(parts);
        std::vector<std::thread> workers;
        workers.reserve(parts - 1);
        // A thread that cannot be started (std::system_error, std::bad_alloc) must not leave the
        // started ones joinable when the exception leaves: that would be std::terminate.
        struct JoinAll {
            std::vector<std::thread>& threads;
            ~JoinAll() {
                for (auto& t : threads)
                    if (t.joinable()) t.join();
            }
        } join_all{workers};
        for (size_t p = 1; p < parts; ++p)
            workers.emplace_back([&, p] { extend(extents[p], sv, n * p / parts, n * (p + 1) / parts, rows); });
        extend(extents[0], sv, 0, n / parts, rows);
        for (auto& w : workers) w.join();
        for (size_t p = 1; p < parts; ++p) extents[0].merge(extents[p]);
        for (size_t f = 0; f < count; ++f) out.push_back(extents[0].bounds(f));
    }
    return out;
}

std::vector<FrameBounds> compute_frame_bounds(const Scene& scene) {
    std::vector<FrameBounds> out;
    if (scene.skeleton.joints.empty() || scene.animations.empty() || !has_skinned_vertices(scene)) return out;
    for (auto& anim : scene.animations) {
        const uint64_t frames = sampled_frame_count(anim);
        if (frames > UINT32_MAX) return {};  // no file can hold these; the writer rejects them
        std::vector<std::vector<Transform>> batch;
        const float rate = sampling_rate(anim);
        for (uint64_t f = 0; f < frames; ++f) {
            batch.push_back(frame_pose(scene.skeleton, anim, uint32_t(f), rate));
            if (batch.size() == 1024 || f + 1 == frames) {
                for (auto& b : skinned_bounds(scene, batch)) out.push_back(b);
                batch.clear();
            }
        }
    }
    return out;
}

}  // namespace rigport
