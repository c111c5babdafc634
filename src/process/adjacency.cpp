// IQM triangle adjacency, computed correctly (iqm-iqe.md §1.6 and bug 1), and its comparison.
#include <algorithm>
#include <cstring>

#include "process/process_util.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

using namespace detail;

// Every vertex of the scene by global number, with its blend data in a canonical order
// (zero weights dropped, heaviest first, then by joint), so equal blends compare equal.
struct Endpoints {
    std::vector<const Vec3*> position;
    std::vector<uint32_t> blend_begin;  // global vertex count + 1
    std::vector<Influence> blends;

    explicit Endpoints(const Scene& scene) {
        uint64_t n = scene.vertex_count();
        position.reserve(n);
        blend_begin.reserve(n + 1);
        blend_begin.push_back(0);
        for (auto& mesh : scene.meshes) {
            const auto& skin = mesh.skin;
            const bool skinned = skin.offsets.size() == mesh.positions.size() + 1;
            for (uint32_t v = 0; v < mesh.positions.size(); ++v) {
                position.push_back(&mesh.positions[v]);
                size_t first = blends.size();
                if (skinned)
                    for (uint32_t i = skin.offsets[v]; i < skin.offsets[v + 1] && i < skin.influences.size(); ++i)
                        if (skin.influences[i].weight > 0) blends.push_back(skin.influences[i]);
                std::sort(blends.begin() + first, blends.end(), [](const Influence& a, const Influence& b) {
                    return a.weight != b.weight ? a.weight > b.weight : a.joint < b.joint;
                });
                blend_begin.push_back(uint32_t(blends.size()));
            }
        }
    }

    uint64_t hash(uint32_t g) const {
        uint64_t h = 0;
        for (float c : *position[g]) h = mix(h, float_bits(c));
        for (uint32_t i = blend_begin[g]; i < blend_begin[g + 1]; ++i)
            h = mix(h, (uint64_t(blends[i].joint) << 32) | float_bits(blends[i].weight));
        return h;
    }

    bool equal(uint32_t a, uint32_t b) const {
        if (*position[a] != *position[b]) return false;
        uint32_t na = blend_begin[a + 1] - blend_begin[a], nb = blend_begin[b + 1] - blend_begin[b];
        if (na != nb) return false;
        for (uint32_t i = 0; i < na; ++i) {
            const Influence &x = blends[blend_begin[a] + i], &y = blends[blend_begin[b] + i];
            if (x.joint != y.joint || x.weight != y.weight) return false;
        }
        return true;
    }
};

}  // namespace

std::vector<Triangle> compute_adjacency(const Scene& scene) {
    const Endpoints ends(scene);
    const uint32_t vertices = uint32_t(ends.position.size());

    // Endpoint identity: vertices with the same position and blend data are one endpoint.
    std::vector<uint32_t> endpoint(vertices);
    {
        const size_t mask = table_size(vertices) - 1;
        std::vector<uint32_t> slot_vertex(mask + 1, no_neighbor);
        uint32_t next_id = 0;
        for (uint32_t g = 0; g < vertices; ++g) {
            for (size_t i = ends.hash(g) & mask;; i = (i + 1) & mask) {
                if (slot_vertex[i] == no_neighbor) {
                    slot_vertex[i] = g;
                    endpoint[g] = next_id++;
                    break;
                }
                if (ends.equal(slot_vertex[i], g)) {
                    endpoint[g] = endpoint[slot_vertex[i]];
                    break;
                }
            }
        }
    }

    // Global triangles in endpoint terms.
    std::vector<std::array<uint32_t, 3>> tris;
    tris.reserve(scene.triangle_count());
    uint32_t base = 0, fresh = vertices;
    for (auto& mesh : scene.meshes) {
        // An index outside the mesh (a scene that breaks its invariants) matches nothing.
        auto id = [&](uint32_t v) { return v < mesh.vertex_count() ? endpoint[base + v] : fresh++; };
        for (auto& t : mesh.triangles) tris.push_back({id(t[0]), id(t[1]), id(t[2])});
        base += mesh.vertex_count();
    }

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
    std::vector<uint32_t> order(edges);
    {
        std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
        for (uint32_t e = 0; e < edges; ++e) order[fill[low(e)]++] = e;
    }

    std::vector<Triangle> adjacency(tris.size(), Triangle{no_neighbor, no_neighbor, no_neighbor});
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
