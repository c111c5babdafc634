// Smooth normal generation by the IQE specification's smoothing rules (docs/iqm.md §3.2 step 3),
// without the reference compiler's bugs 3 (signed smoothangle) and 4 (vs of each corner's vertex).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <span>
#include <unordered_map>

#include "support/thread_pool.hpp"
#include "process/smooth_normals.hpp"
#include "process/vertex_streams.hpp"
#include "process/process_util.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

using namespace detail;

struct UnionFind {
    std::vector<uint32_t> parent;
    explicit UnionFind(size_t n) : parent(n) {
        for (uint32_t i = 0; i < n; ++i) parent[i] = i;
    }
    uint32_t find(uint32_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    }
    // The root without path compression: only reads, so threads may call it together.
    uint32_t root(uint32_t x) const {
        while (parent[x] != x) x = parent[x];
        return x;
    }
    void unite(uint32_t a, uint32_t b) {  // the smaller root wins, so results do not depend on order
        a = find(a), b = find(b);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
};

const TriangleSmoothing default_smoothing{};

constexpr size_t triangles_per_chunk = 1 << 14;  // also corners per chunk
constexpr size_t buckets_per_chunk = 1 << 13;

// Every triangle of the scene by global number, and every corner (3 per triangle).
struct Corners {
    const Scene& scene;
    const std::vector<MeshSmoothing>& smoothing;
    std::vector<uint32_t> tri_mesh;                // global triangle -> mesh
    std::vector<uint32_t> tri_local;               // global triangle -> triangle in its mesh
    std::vector<D3> face_normal;                   // unnormalized: its length is the area weight
    std::vector<double> min_dot;                   // cos(smoothangle), -1 or less = always
    std::vector<const TriangleSmoothing*> state;

    Corners(const Scene& s, const std::vector<MeshSmoothing>& sm, uint32_t threads) : scene(s), smoothing(sm) {
        const size_t n = s.triangle_count();
        tri_mesh.resize(n), tri_local.resize(n), face_normal.resize(n);
        min_dot.resize(n), state.resize(n);
        size_t base = 0;
        for (uint32_t m = 0; m < s.meshes.size(); ++m) {
            const Mesh& mesh = s.meshes[m];
            // Each triangle writes only its own slots: any split gives the same arrays.
            detail::parallel_for(mesh.triangles.size(), triangles_per_chunk, threads, [&](size_t begin, size_t end) {
                for (size_t t = begin; t < end; ++t) {
                    const Triangle& tri = mesh.triangles[t];
                    D3 p0 = d3(mesh.positions[tri[0]]);
                    // Clockwise front faces: (v2 - v0) x (v1 - v0) points out.
                    D3 nrm = cross(d3(mesh.positions[tri[2]]) - p0, d3(mesh.positions[tri[1]]) - p0);
                    const size_t g = base + t;
                    tri_mesh[g] = m;
                    tri_local[g] = uint32_t(t);
                    face_normal[g] = nrm;
                    const TriangleSmoothing* st = &default_smoothing;
                    if (m < sm.size() && t < sm[m].triangles.size()) st = &sm[m].triangles[t];
                    state[g] = st;
                    double angle = st->angle_degrees;
                    min_dot[g] = !(angle < 180) ? -2.0 : std::cos(std::max(angle, 0.0) * std::numbers::pi / 180);
                }
            });
            base += mesh.triangles.size();
        }
    }

    size_t count() const { return tri_mesh.size() * 3; }
    const Mesh& mesh(uint32_t c) const { return scene.meshes[tri_mesh[c / 3]]; }
    uint32_t vertex(uint32_t c) const { return mesh(c).triangles[tri_local[c / 3]][c % 3]; }
    const Vec3& position(uint32_t c) const { return mesh(c).positions[vertex(c)]; }
    const TriangleSmoothing& st(uint32_t c) const { return *state[c / 3]; }

    Vec2 uv(uint32_t c) const {
        const Mesh& m = mesh(c);
        return m.texcoords.empty() ? Vec2{0, 0} : m.texcoords[0][vertex(c)];
    }
    // The corner's own vertex's `vs` index (bug 4: not the vs of file vertex c % 3); nullptr when
    // its mesh has none.
    const int32_t* vs(uint32_t c) const {
        uint32_t m = tri_mesh[c / 3];
        if (m >= smoothing.size() || smoothing[m].vertex_index.size() != scene.meshes[m].vertex_count()) return nullptr;
        return &smoothing[m].vertex_index[vertex(c)];
    }
    bool vs_equal(uint32_t a, uint32_t b) const {
        const int32_t *x = vs(a), *y = vs(b);
        return !x || !y || *x == *y;
    }

    // fs: the corners' triangles share an edge at this position (the other endpoints at equal
    // positions too) that either triangle flags smooth. A triangle without fs flags has all
    // edges smooth.
    bool edge_allows(uint32_t a, uint32_t b) const {
        uint32_t ta = a / 3 * 3, ka = a % 3, tb = b / 3 * 3, kb = b % 3;
        // The two edges at corner k: edge k goes to corner k+1, edge k-1 comes from corner k-1.
        const uint32_t ea[2][2] = {{ka, (ka + 1) % 3}, {(ka + 2) % 3, (ka + 2) % 3}};
        const uint32_t eb[2][2] = {{kb, (kb + 1) % 3}, {(kb + 2) % 3, (kb + 2) % 3}};
        for (auto& x : ea)
            for (auto& y : eb) {
                if (position(ta + x[1]) != position(tb + y[1])) continue;
                if (st(a).smooth_edge[x[0]] || st(b).smooth_edge[y[0]]) return true;
            }
        return false;
    }

    bool can_smooth(uint32_t a, uint32_t b) const {
        const TriangleSmoothing &sa = st(a), &sb = st(b);
        if (sa.group != sb.group) return false;
        double threshold = std::max(min_dot[a / 3], min_dot[b / 3]);
        // Unit normals computed here rather than stored (memory: 24 bytes a triangle); the same
        // numbers each time.
        if (threshold > -1 && !(dot(normalized_or_zero(face_normal[a / 3]), normalized_or_zero(face_normal[b / 3])) >= threshold))
            return false;
        if ((sa.smooth_uv || sb.smooth_uv) && uv(a) != uv(b)) return false;
        if (!vs_equal(a, b)) return false;
        if ((sa.has_edge_flags || sb.has_edge_flags) && !edge_allows(a, b)) return false;
        return true;
    }
    // Only groups and vs can keep this corner apart from others (the fast path's test).
    bool keyed_only(uint32_t c) const {
        const TriangleSmoothing& s = st(c);
        return min_dot[c / 3] <= -1 && !s.smooth_uv && !s.has_edge_flags;
    }
};

// Corners at exactly equal positions, bucket by bucket (each bucket in corner order), as one
// flat list: bucket b is corners[begin[b] .. begin[b + 1]). Positions are told apart per vertex
// (a vertex's corners share its position) in a flat open-addressing table, not per corner.
struct PositionBuckets {
    std::vector<uint32_t> begin, corners;

    explicit PositionBuckets(const Corners& c) {
        std::vector<const Vec3*> vertex_position;  // global vertex -> its position
        std::vector<uint32_t> mesh_base;
        for (auto& mesh : c.scene.meshes) {
            mesh_base.push_back(uint32_t(vertex_position.size()));
            for (auto& p : mesh.positions) vertex_position.push_back(&p);
        }
        const size_t mask = table_size(vertex_position.size()) - 1;
        constexpr uint32_t empty = ~0u;
        std::vector<uint32_t> slot(mask + 1, empty);  // first vertex with that position
        std::vector<uint32_t> bucket_of_vertex(vertex_position.size());
        uint32_t buckets = 0;
        // The hashes first, so each vertex's slot can be fetched a few vertices ahead: on a
        // large model the table outgrows the cache and each probe would wait for memory in turn.
        std::vector<uint64_t> hashes(vertex_position.size());
        for (size_t v = 0; v < vertex_position.size(); ++v) {
            uint64_t h = 0;
            for (float x : *vertex_position[v]) h = mix(h, float_bits(x));
            hashes[v] = h;
        }
        constexpr uint32_t ahead = 16;
        for (uint32_t v = 0; v < vertex_position.size(); ++v) {
            if (v + ahead < vertex_position.size()) __builtin_prefetch(&slot[hashes[v + ahead] & mask]);
            const Vec3& p = *vertex_position[v];
            for (size_t i = hashes[v] & mask;; i = (i + 1) & mask) {
                if (slot[i] == empty) {
                    slot[i] = v;
                    bucket_of_vertex[v] = buckets++;
                    break;
                }
                if (*vertex_position[slot[i]] == p) {
                    bucket_of_vertex[v] = bucket_of_vertex[slot[i]];
                    break;
                }
            }
        }
        // Counting sort of the corners by bucket keeps corner order within each bucket.
        std::vector<uint32_t> bucket(c.count());
        begin.assign(buckets + 1, 0);
        for (uint32_t k = 0; k < c.count(); ++k) {
            bucket[k] = bucket_of_vertex[mesh_base[c.tri_mesh[k / 3]] + c.vertex(k)];
            ++begin[bucket[k] + 1];
        }
        for (uint32_t b = 0; b < buckets; ++b) begin[b + 1] += begin[b];
        corners.resize(c.count());
        std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
        for (uint32_t k = 0; k < c.count(); ++k) corners[fill[bucket[k]]++] = k;
    }
    size_t size() const { return begin.size() - 1; }
    std::span<const uint32_t> operator[](size_t b) const { return {corners.data() + begin[b], begin[b + 1] - begin[b]}; }
};

// The keyed case for a large bucket: the same sets as the representatives' scan below, found by
// hashing instead of trying every representative (a vertex shared by faces of n groups made
// that scan n x n). A corner unites with every earlier representative it can smooth with and
// becomes one when there is none; for keyed corners that is: the group matches, and the vs
// indices match or either corner has none. So a group whose first corner has no vs keeps it
// as its only representative; otherwise its representatives have distinct vs indices, each
// corner with a vs joins the one of its index, and one without joins them all (once: those
// already joined are one set).
void unite_keyed_hashed(const Corners& corners, std::span<const uint32_t> bucket, UnionFind& sets) {
    struct Reps {
        std::vector<uint32_t> corners;  // in order of becoming representatives
        size_t joined = 1;              // corners[0 .. joined) are one set
        bool without_vs = false;        // the first has no vs: it is the only one
    };
    std::unordered_map<int32_t, Reps> by_group;
    std::unordered_map<uint64_t, uint32_t> by_vs;  // (group, vs) -> representative
    for (uint32_t c : bucket) {
        const int32_t group = corners.st(c).group;
        const int32_t* vs = corners.vs(c);
        auto [it, fresh] = by_group.try_emplace(group);
        Reps& r = it->second;
        if (fresh) {
            r.corners.push_back(c);
            r.without_vs = !vs;
            if (vs) by_vs.emplace(uint64_t(uint32_t(group)) << 32 | uint32_t(*vs), c);
            continue;
        }
        if (r.without_vs) {
            sets.unite(r.corners[0], c);
        } else if (!vs) {
            sets.unite(r.corners[0], c);
            for (size_t k = r.joined; k < r.corners.size(); ++k) sets.unite(r.corners[k], c);
            r.joined = r.corners.size();
        } else if (auto [at, added] = by_vs.try_emplace(uint64_t(uint32_t(group)) << 32 | uint32_t(*vs), c); !added) {
            sets.unite(at->second, c);
        } else {
            r.corners.push_back(c);
        }
    }
}

// Corners at one position compared pair by pair when an angle, smoothuv or fs flags decide
// (the pairs are n^2 / 2: at most 512 per corner up to this), and the reach of each corner's
// comparisons beyond it.
constexpr size_t max_pairwise_bucket = 1024;
constexpr size_t window = 64;

void unite_bucket(const Corners& corners, std::span<const uint32_t> bucket, UnionFind& sets) {
    bool keyed = std::all_of(bucket.begin(), bucket.end(), [&](uint32_t c) { return corners.keyed_only(c); });
    if (keyed && bucket.size() > 64) return unite_keyed_hashed(corners, bucket, sets);
    if (keyed) {
        // Linear in the bucket for the usual case (a vertex shared by many faces, default state):
        // one representative per distinct (group, vs).
        std::vector<uint32_t> reps;
        for (uint32_t c : bucket) {
            bool joined = false;
            for (uint32_t r : reps)
                if (corners.can_smooth(r, c)) {
                    sets.unite(r, c);
                    joined = true;
                }
            if (!joined) reps.push_back(c);
        }
        return;
    }
    if (bucket.size() > max_pairwise_bucket) {
        // A position shared by more corners than that (a fan of a polygon of many corners under
        // OBJ's `s off`: 900,000 corners took over a minute): each corner is compared with the
        // `window` corners before it, which in a fan are its neighbouring faces (docs/obj.md
        // "Normals"). Linear in the bucket; below the cap every pair is compared as before.
        for (size_t j = 1; j < bucket.size(); ++j)
            for (size_t i = j > window ? j - window : 0; i < j; ++i)
                if (sets.find(bucket[i]) != sets.find(bucket[j]) && corners.can_smooth(bucket[i], bucket[j])) sets.unite(bucket[i], bucket[j]);
        return;
    }
    for (size_t i = 0; i < bucket.size(); ++i)
        for (size_t j = i + 1; j < bucket.size(); ++j)
            if (sets.find(bucket[i]) != sets.find(bucket[j]) && corners.can_smooth(bucket[i], bucket[j]))
                sets.unite(bucket[i], bucket[j]);
}

}  // namespace

// The scene must pass check_invariants (triangle indices in range).
void generate_normals(Scene& scene, const std::vector<MeshSmoothing>& smoothing, uint32_t threads) {
    std::vector<uint32_t> root;
    std::vector<D3> group_normal;
    {
        const Corners corners(scene, smoothing, threads);
        UnionFind sets(corners.count());
        {
            const PositionBuckets buckets(corners);
            // A set never leaves its bucket (unions are within one), so buckets in parallel touch
            // disjoint parts of the union-find, and each bucket's own order is the serial one.
            detail::parallel_for(buckets.size(), buckets_per_chunk, threads, [&](size_t begin, size_t end) {
                for (size_t b = begin; b < end; ++b) unite_bucket(corners, buckets[b], sets);
            });
        }

        // Each corner's group as a dense number (groups numbered by their root, in corner
        // order), so the sums take one entry per group rather than one per corner.
        root.resize(corners.count());
        detail::parallel_for(corners.count(), triangles_per_chunk, threads, [&](size_t begin, size_t end) {
            for (size_t c = begin; c < end; ++c) root[c] = sets.root(uint32_t(c));
        });
        uint32_t groups = 0;
        for (uint32_t c = 0; c < corners.count(); ++c)
            if (root[c] == c) sets.parent[c] = groups++;  // a root's slot now holds its number
        detail::parallel_for(corners.count(), triangles_per_chunk, threads, [&](size_t begin, size_t end) {
            for (size_t c = begin; c < end; ++c) root[c] = sets.parent[root[c]];
        });
        // Summed serially in corner order: the rounding of these sums is the output's.
        group_normal.resize(groups);
        for (uint32_t c = 0; c < corners.count(); ++c) group_normal[root[c]] = group_normal[root[c]] + corners.face_normal[c / 3];
        detail::parallel_for(groups, triangles_per_chunk, threads, [&](size_t begin, size_t end) {
            for (size_t g = begin; g < end; ++g) group_normal[g] = normalized_or_zero(group_normal[g]);
        });
    }

    // Per mesh: each vertex keeps its first corner's group; a vertex whose corners fall in further
    // groups gets one copy per further group, appended in order of first use.
    uint32_t corner = 0;
    for (Mesh& mesh : scene.meshes) {
        const uint32_t n = mesh.vertex_count();
        constexpr uint32_t none = ~0u;
        std::vector<uint32_t> vertex_root(n, none);
        std::unordered_map<uint64_t, uint32_t> copies;  // (vertex, root) -> new vertex
        std::vector<uint32_t> source(n);
        std::vector<uint32_t> new_root;  // per new vertex: its group
        for (uint32_t v = 0; v < n; ++v) source[v] = v;
        new_root.assign(n, none);
        for (auto& tri : mesh.triangles)
            for (auto& v : tri) {
                uint32_t r = root[corner++];
                if (vertex_root[v] == none) {
                    vertex_root[v] = r;
                    new_root[v] = r;
                } else if (vertex_root[v] != r) {
                    auto [it, inserted] = copies.emplace((uint64_t(v) << 32) | r, uint32_t(source.size()));
                    if (inserted) {
                        source.push_back(v);
                        new_root.push_back(r);
                    }
                    v = it->second;
                }
            }
        if (source.size() != n) detail::gather_vertices(mesh, source);
        mesh.normals.resize(source.size());
        for (uint32_t v = 0; v < source.size(); ++v) {
            D3 nv = new_root[v] == none ? D3{} : group_normal[new_root[v]];
            // No triangle, or faces whose normals cancel: a finite unit normal all the same.
            if (dot(nv, nv) == 0) nv = {0, 0, 1};
            mesh.normals[v] = {float(nv.x), float(nv.y), float(nv.z)};
        }
    }
}

}  // namespace rigport
