// IQM triangle adjacency, computed correctly (docs/iqm.md §1.6 and bug 1), and its comparison.
#include <algorithm>

#include "support/huge_pages.hpp"
#include "process/adjacency.hpp"
#include "process/process_util.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

using namespace detail;

uint64_t hash_key(const EndpointKeys& keys, uint32_t v) {
    uint64_t h = 0;
    for (uint32_t i = keys.begin[v]; i < keys.begin[v + 1]; ++i) h = mix(h, keys.words[i]);
    return h;
}

bool equal_keys(const EndpointKeys& keys, uint32_t a, uint32_t b) {
    return std::equal(keys.words.begin() + keys.begin[a], keys.words.begin() + keys.begin[a + 1],
                      keys.words.begin() + keys.begin[b], keys.words.begin() + keys.begin[b + 1]);
}

}  // namespace

// Endpoint identity: vertices with equal keys are one endpoint.
std::vector<uint32_t> number_endpoints(const EndpointKeys& keys, uint32_t& next_id) {
    const uint32_t vertices = keys.vertex_count();
    next_id = 0;
    std::vector<uint32_t> endpoint(vertices);
    const size_t mask = table_size(vertices) - 1;
    // Each slot keeps the top half of its key's hash: keys are compared only when those agree,
    // instead of reading another vertex's key at every probe.
    struct Slot {
        uint32_t vertex = no_neighbor, tag = 0;
    };
    std::vector<Slot> slots(mask + 1);
    // The hashes first, so each vertex's slot can be fetched a few vertices ahead: on a large
    // model the table outgrows the cache and each probe would wait for memory in turn.
    std::vector<uint64_t> hashes(vertices);
    for (uint32_t g = 0; g < vertices; ++g) hashes[g] = hash_key(keys, g);
    constexpr uint32_t ahead = 16;
    for (uint32_t g = 0; g < vertices; ++g) {
        if (g + ahead < vertices) __builtin_prefetch(&slots[hashes[g + ahead] & mask]);
        const uint64_t h = hashes[g];
        const auto tag = uint32_t(h >> 32);
        for (size_t i = h & mask;; i = (i + 1) & mask) {
            Slot& slot = slots[i];
            if (slot.vertex == no_neighbor) {
                slot = {g, tag};
                endpoint[g] = next_id++;
                break;
            }
            if (slot.tag == tag && equal_keys(keys, slot.vertex, g)) {
                endpoint[g] = endpoint[slot.vertex];
                break;
            }
        }
    }
    return endpoint;
}

std::vector<Triangle> compute_adjacency(const std::vector<Triangle>& triangles, const EndpointKeys& keys) {
    uint32_t count = 0;
    const std::vector<uint32_t> endpoint = number_endpoints(keys, count);
    return compute_adjacency(triangles, endpoint, count);
}

std::vector<Triangle> compute_adjacency(const std::vector<Triangle>& triangles, const std::vector<uint32_t>& endpoint, uint32_t count) {
    uint32_t fresh = count;

    // Triangles in endpoint terms. An index without a key (a file or scene that breaks its
    // invariants) matches nothing.
    std::vector<std::array<uint32_t, 3>> tris;
    reserve_huge(tris, triangles.size());
    auto id = [&](uint32_t v) { return v < endpoint.size() ? endpoint[v] : fresh++; };
    for (auto& t : triangles) tris.push_back({id(t[0]), id(t[1]), id(t[2])});

    // Edges are unordered: the same edge in the same direction still counts as shared. Each
    // edge (t, k) is filed under its lower endpoint by a counting sort, then each endpoint's few
    // edges are sorted by the other endpoint: sequential memory instead of a hash table's misses.
    const uint32_t endpoints = fresh;
    auto low = [&](uint32_t e) { return std::min(tris[e / 3][e % 3], tris[e / 3][(e + 1) % 3]); };
    auto high = [&](uint32_t e) { return std::max(tris[e / 3][e % 3], tris[e / 3][(e + 1) % 3]); };
    const uint32_t edges = uint32_t(tris.size() * 3);
    std::vector<uint32_t> begin(size_t(endpoints) + 1, 0);
    for (uint32_t e = 0; e < edges; ++e) ++begin[low(e) + 1];
    for (uint32_t v = 0; v < endpoints; ++v) begin[v + 1] += begin[v];
    std::vector<uint32_t> order;
    resize_huge(order, edges);
    {
        std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
        for (uint32_t e = 0; e < edges; ++e) order[fill[low(e)]++] = e;
    }

    std::vector<Triangle> adjacency;
    reserve_huge(adjacency, tris.size());
    adjacency.assign(tris.size(), Triangle{no_neighbor, no_neighbor, no_neighbor});
    for (uint32_t v = 0; v < endpoints; ++v) {
        auto first = order.begin() + begin[v], last = order.begin() + begin[v + 1];
        if (last - first < 2) continue;
        // Edge numbers ascend within the range, so a stable sort keeps the first two uses first.
        std::stable_sort(first, last, [&](uint32_t a, uint32_t b) { return high(a) < high(b); });
        for (auto run = first; run != last;) {
            auto end = run + 1;
            while (end != last && high(*end) == high(*run)) ++end;
            // Exactly two uses by two different triangles; a degenerate triangle using an edge
            // twice is not its own neighbour.
            if (end - run == 2 && run[0] / 3 != run[1] / 3) {
                adjacency[run[0] / 3][run[0] % 3] = run[1] / 3;
                adjacency[run[1] / 3][run[1] % 3] = run[0] / 3;
            }
            run = end;
        }
    }
    return adjacency;
}

// The scene's own numbers: position bits, then the positive influences in a canonical order
// (heaviest first, then by joint), so equal blends compare equal.
std::vector<Triangle> compute_adjacency(const Scene& scene) {
    EndpointKeys keys;
    std::vector<Triangle> triangles;
    std::vector<Influence> blends;
    uint32_t base = 0;
    for (auto& mesh : scene.meshes) {
        const auto& skin = mesh.skin;
        const bool skinned = skin.offsets.size() == mesh.positions.size() + 1;
        for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
            for (float c : mesh.positions[v]) keys.words.push_back(float_bits(c));
            blends.clear();
            if (skinned)
                for (uint32_t i = skin.offsets[v]; i < skin.offsets[v + 1] && i < skin.influences.size(); ++i)
                    if (skin.influences[i].weight > 0) blends.push_back(skin.influences[i]);
            std::sort(blends.begin(), blends.end(), [](const Influence& a, const Influence& b) {
                return a.weight != b.weight ? a.weight > b.weight : a.joint < b.joint;
            });
            for (auto& b : blends) keys.words.push_back((uint64_t(b.joint) << 32) | float_bits(b.weight));
            keys.end_vertex();
        }
        // An index outside the mesh matches nothing: it is sent past every key.
        auto global = [&](uint32_t v) { return v < mesh.vertex_count() ? base + v : no_neighbor; };
        for (auto& t : mesh.triangles) triangles.push_back({global(t[0]), global(t[1]), global(t[2])});
        base += mesh.vertex_count();
    }
    return compute_adjacency(triangles, keys);
}

// Entries beyond the shorter list count as no_neighbor.
AdjacencyComparison compare_adjacency(const std::vector<Triangle>& stored, const std::vector<Triangle>& correct) {
    AdjacencyComparison c;
    const size_t n = std::max(stored.size(), correct.size());
    for (size_t t = 0; t < n; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t s = t < stored.size() ? stored[t][k] : no_neighbor;
            uint32_t r = t < correct.size() ? correct[t][k] : no_neighbor;
            if (s == no_neighbor) {
                ++(r == no_neighbor ? c.open : c.missing);
            } else if (r == no_neighbor) {
                ++c.extra;
            } else {
                ++(s == r ? c.valid : c.wrong);
            }
        }
    return c;
}

}  // namespace rigport
