// Vertex welding: merges vertices whose every attribute is bit-for-bit equal (docs/iqm.md §3.2 step 4).
#include <cstring>

#include "support/thread_pool.hpp"
#include "process/process_util.hpp"
#include "process/threaded.hpp"
#include "process/vertex_streams.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

using namespace detail;

template <class T>
uint64_t hash_bytes(uint64_t h, const T* data, size_t count) {
    const size_t bytes = sizeof(T) * count;
    const auto* p = reinterpret_cast<const unsigned char*>(data);
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = mix(h, w);
    }
    if (i < bytes) {
        uint64_t w = 0;
        std::memcpy(&w, p + i, bytes - i);
        h = mix(h, w);
    }
    return h;
}

// One vertex's attributes, compared by their bits: welding must not change any stored value, so
// -0 and +0 stay distinct (a NaN equals an identical NaN). Every stream of the mesh takes part.
struct VertexKey {
    const Mesh& mesh;

    template <class Fn>
    void each_stream(Fn&& fn) const {  // fn(data, elements per vertex) for every non-empty stream
        auto one = [&](const auto& stream) {
            if (!stream.empty()) fn(stream.data(), size_t(1));
        };
        one(mesh.positions);
        one(mesh.normals);
        one(mesh.tangents);
        for (auto& set : mesh.texcoords) one(set);
        for (auto& set : mesh.colors) one(set);
        one(mesh.lod);
        one(mesh.spring_weights);
        for (auto& target : mesh.morph_targets) {
            one(target.position_deltas);
            one(target.normal_deltas);
            one(target.tangent_deltas);
        }
        for (auto& array : mesh.custom) fn(array.values.data(), size_t(array.size));
    }

    uint64_t hash(uint32_t v) const {
        uint64_t h = 0;
        each_stream([&](const auto* p, size_t n) { h = hash_bytes(h, p + v * n, n); });
        if (!mesh.skin.empty()) {
            const auto& s = mesh.skin;
            h = mix(h, s.count(v));
            for (uint32_t i = s.offsets[v]; i < s.offsets[v + 1]; ++i) {
                uint32_t w;
                std::memcpy(&w, &s.influences[i].weight, 4);
                h = mix(h, (uint64_t(s.influences[i].joint) << 32) | w);
            }
        }
        return h;
    }

    bool equal(uint32_t a, uint32_t b) const {
        bool same = true;
        each_stream([&](const auto* p, size_t n) {
            same = same && std::memcmp(p + a * n, p + b * n, sizeof(*p) * n) == 0;
        });
        if (!same || mesh.skin.empty()) return same;
        const auto& s = mesh.skin;
        if (s.count(a) != s.count(b)) return false;
        for (uint32_t i = 0; i < s.count(a); ++i) {
            const Influence &x = s.influences[s.offsets[a] + i], &y = s.influences[s.offsets[b] + i];
            if (x.joint != y.joint || std::memcmp(&x.weight, &y.weight, 4) != 0) return false;
        }
        return true;
    }
};

constexpr size_t hashes_per_chunk = 1 << 14;

void weld_mesh(Mesh& mesh, uint32_t threads) {
    const uint32_t n = mesh.vertex_count();
    const VertexKey key{mesh};
    // The hashes first, in parallel (each vertex its own slot); the table is filled in vertex
    // order, so the first vertex of each kind wins whatever the thread count.
    std::vector<uint64_t> hashes(n);
    detail::parallel_for(n, hashes_per_chunk, threads, [&](size_t begin, size_t end) {
        for (size_t v = begin; v < end; ++v) hashes[v] = key.hash(uint32_t(v));
    });
    const size_t mask = table_size(n) - 1;
    constexpr uint32_t empty = ~0u;
    std::vector<uint32_t> slot(mask + 1, empty);  // the first old vertex with those attributes

    std::vector<uint32_t> remap(n);  // old vertex -> new vertex
    std::vector<uint32_t> source;    // new vertex -> the old vertex that won it
    for (uint32_t v = 0; v < n; ++v)
        for (size_t i = hashes[v] & mask;; i = (i + 1) & mask) {
            if (slot[i] == empty) {
                slot[i] = v;
                remap[v] = uint32_t(source.size());
                source.push_back(v);
                break;
            }
            if (hashes[slot[i]] == hashes[v] && key.equal(slot[i], v)) {
                remap[v] = remap[slot[i]];
                break;
            }
        }
    if (source.size() == n) return;

    detail::gather_vertices(mesh, source);
    for (auto& t : mesh.triangles)
        for (auto& v : t) v = remap[v];
    detail::remap_springs(mesh, remap);
}

}  // namespace

void weld_vertices(Scene& scene) { detail::weld_vertices(scene, 0); }

void detail::weld_vertices(Scene& scene, uint32_t threads) {
    for (auto& mesh : scene.meshes) weld_mesh(mesh, threads);
}

}  // namespace rigport
