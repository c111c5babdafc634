// Per-frame bounds of the skinned mesh, measured from the origin as IQM stores them
// (docs/iqm.md §1.8, §3.2 step 9).
#include <algorithm>
#include <cmath>

#include "support/thread_pool.hpp"
#include "process/threaded.hpp"

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

// Frames evaluated together, innermost, so the compiler vectorizes. A batch is `width` frames
// wide (8, 16, 32 or 64): 100 frames take 64 + 32 + 8 lanes rather than 2 x 64.
constexpr size_t max_lanes = 64;

// Extremes of one batch of frames, one lane per frame (structure of arrays).
struct Extents {
    float lo[3][max_lanes], hi[3][max_lanes], xy2[max_lanes], r2[max_lanes];

    Extents() {
        for (int k = 0; k < 3; ++k)
            for (size_t f = 0; f < max_lanes; ++f) lo[k][f] = INFINITY, hi[k][f] = -INFINITY;
        for (size_t f = 0; f < max_lanes; ++f) xy2[f] = r2[f] = 0;
    }
    void merge(const Extents& o) {  // min and max are exact, so the merge order cannot matter
        for (size_t f = 0; f < max_lanes; ++f) {
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
// rows[(joint * 12 + element) * width + frame]. Lanes past the batch repeat its last frame.
std::vector<float> skinning_rows(const Skeleton& skeleton, const std::vector<std::vector<Transform>>& poses,
                                 size_t first, size_t count, size_t width) {
    const size_t joints = skeleton.joints.size();
    std::vector<float> rows(joints * 12 * width);
    for (size_t f = 0; f < count; ++f) {
        const auto skinning = skinning_matrices(skeleton, poses[first + f]);
        for (size_t j = 0; j < joints && j < skinning.size(); ++j)
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 4; ++c) rows[(j * 12 + r * 4 + c) * width + f] = float(skinning[j][c][r]);
    }
    for (size_t i = 0; i < joints * 12; ++i)
        for (size_t f = count; f < width; ++f) rows[i * width + f] = rows[i * width + count - 1];
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
        vertices.reserve(scene.vertex_count());
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

// The width is a constant so the loops vectorize whole. Every lane does the same float
// operations in the same order whatever the width, so a frame's bounds do not depend on the
// batch it falls in. Inlined into the per-width functions below, which are built for AVX2 as
// well as the baseline and chosen at load time (twice the lanes per instruction); clang takes
// target_clones on plain functions only, not on templates.
template <size_t width>
[[gnu::always_inline]] inline void extend_width(Extents& e, const SkinnedVertices& sv, size_t begin, size_t end, const float* rows) {
    alignas(64) float x[max_lanes], y[max_lanes], z[max_lanes];
    for (size_t v = begin; v < end; ++v) {
        const SkinnedVertex& vert = sv.vertices[v];
        const float px = vert.position[0], py = vert.position[1], pz = vert.position[2];
        if (vert.count == 0) {
            for (size_t f = 0; f < width; ++f) x[f] = px, y[f] = py, z[f] = pz;
        } else {
            for (size_t f = 0; f < width; ++f) x[f] = y[f] = z[f] = 0;
            for (uint32_t i = vert.first; i < vert.first + vert.count; ++i) {
                const float w = sv.influences[i].weight;
                const float* m = rows + size_t(sv.influences[i].joint) * 12 * width;
                for (size_t f = 0; f < width; ++f) {
                    x[f] += w * (m[0 * width + f] * px + m[1 * width + f] * py + m[2 * width + f] * pz + m[3 * width + f]);
                    y[f] += w * (m[4 * width + f] * px + m[5 * width + f] * py + m[6 * width + f] * pz + m[7 * width + f]);
                    z[f] += w * (m[8 * width + f] * px + m[9 * width + f] * py + m[10 * width + f] * pz + m[11 * width + f]);
                }
            }
        }
        for (size_t f = 0; f < width; ++f) {
            e.lo[0][f] = x[f] < e.lo[0][f] ? x[f] : e.lo[0][f], e.hi[0][f] = x[f] > e.hi[0][f] ? x[f] : e.hi[0][f];
            e.lo[1][f] = y[f] < e.lo[1][f] ? y[f] : e.lo[1][f], e.hi[1][f] = y[f] > e.hi[1][f] ? y[f] : e.hi[1][f];
            e.lo[2][f] = z[f] < e.lo[2][f] ? z[f] : e.lo[2][f], e.hi[2][f] = z[f] > e.hi[2][f] ? z[f] : e.hi[2][f];
            const float xy = x[f] * x[f] + y[f] * y[f], r = xy + z[f] * z[f];
            e.xy2[f] = xy > e.xy2[f] ? xy : e.xy2[f];
            e.r2[f] = r > e.r2[f] ? r : e.r2[f];
        }
    }
}

__attribute__((target_clones("avx2", "default"))) void extend_8(Extents& e, const SkinnedVertices& sv, size_t begin, size_t end, const float* rows) {
    extend_width<8>(e, sv, begin, end, rows);
}
__attribute__((target_clones("avx2", "default"))) void extend_16(Extents& e, const SkinnedVertices& sv, size_t begin, size_t end, const float* rows) {
    extend_width<16>(e, sv, begin, end, rows);
}
__attribute__((target_clones("avx2", "default"))) void extend_32(Extents& e, const SkinnedVertices& sv, size_t begin, size_t end, const float* rows) {
    extend_width<32>(e, sv, begin, end, rows);
}
__attribute__((target_clones("avx2", "default"))) void extend_64(Extents& e, const SkinnedVertices& sv, size_t begin, size_t end, const float* rows) {
    extend_width<64>(e, sv, begin, end, rows);
}

void extend(Extents& e, const SkinnedVertices& sv, size_t begin, size_t end, const float* rows, size_t width) {
    switch (width) {
        case 8: return extend_8(e, sv, begin, end, rows);
        case 16: return extend_16(e, sv, begin, end, rows);
        case 32: return extend_32(e, sv, begin, end, rows);
        default: return extend_64(e, sv, begin, end, rows);
    }
}

// The batch width for `remaining` frames: 64 while they last, then the narrowest that holds
// the rest, or 32 and again for more than 32.
size_t batch_width(size_t remaining) {
    if (remaining >= 64) return 64;
    if (remaining > 32) return 32;
    for (size_t w : {8, 16}) if (remaining <= w) return w;
    return 32;
}

constexpr size_t vertices_per_chunk = 1 << 14;  // a chunk of vertices for one thread

}  // namespace

std::vector<FrameBounds> skinned_bounds(const Scene& scene, const std::vector<std::vector<Transform>>& local_poses) {
    return detail::skinned_bounds(scene, local_poses, 0);
}

std::vector<FrameBounds> detail::skinned_bounds(const Scene& scene, const std::vector<std::vector<Transform>>& local_poses,
                                                uint32_t threads) {
    const SkinnedVertices sv(scene, scene.skeleton.joints.size());
    const size_t n = sv.vertices.size();
    std::vector<FrameBounds> out;
    out.reserve(local_poses.size());
    // Vertices split in fixed chunks over the pool; each chunk keeps its own extremes, merged
    // exactly afterwards, so the result does not depend on the split or the thread count.
    const size_t grain = detail::chunk_grain(vertices_per_chunk);
    std::vector<Extents> extents(std::max<size_t>(1, detail::chunk_count(n, vertices_per_chunk)));
    for (size_t first = 0; first < local_poses.size();) {
        const size_t width = batch_width(local_poses.size() - first);
        const size_t count = std::min(width, local_poses.size() - first);
        const auto rows = skinning_rows(scene.skeleton, local_poses, first, count, width);
        for (auto& e : extents) e = Extents();
        detail::parallel_for(n, vertices_per_chunk, threads, [&](size_t begin, size_t end) {
            extend(extents[begin / grain], sv, begin, end, rows.data(), width);
        });
        for (size_t p = 1; p < extents.size(); ++p) extents[0].merge(extents[p]);
        for (size_t f = 0; f < count; ++f) out.push_back(extents[0].bounds(f));
        first += count;
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
