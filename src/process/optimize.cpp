// Vertex cache order with meshoptimizer 0.18: order triangles for the post-transform cache,
// number vertices in first-use order (docs/iqm.md §3.2 step 4; compile() has already dropped the
// degenerate triangles, degenerate.cpp). A mesh with a vertex on more than max_forsyth_valence
// triangles is ordered by Tipsify instead (docs/cli.md "Vertex-cache order").
#include <meshoptimizer.h>

#include <algorithm>

#include "process/vertex_streams.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

// meshopt_optimizeVertexCache (Forsyth's scores) rescans, after each triangle it emits, the
// unemitted triangles of every vertex in its cache and removes the emitted one from its corners'
// lists: a vertex on d triangles costs up to d per step while it is cached, so a fan of n
// triangles round one vertex took n^2 / 2 steps (80,000 triangles: 3.2 s). With every vertex on
// at most this many triangles the work per triangle is bounded (about 22 x this); above it,
// meshopt_optimizeVertexCacheFifo (Tipsify: each vertex fans out its triangles once, linear in
// the corners) orders the mesh. Ordinary models, whose vertices touch a few to a few dozen
// triangles, keep Forsyth's order byte for byte.
constexpr uint32_t max_forsyth_valence = 256;
constexpr unsigned tipsify_cache_size = 16;  // the cache Forsyth's table is tuned for

void order_for_cache(std::vector<uint32_t>& indices, uint32_t vertices) {
    std::vector<uint32_t> valence(vertices, 0);
    uint32_t most = 0;
    for (uint32_t v : indices) most = std::max(most, ++valence[v]);
    if (most <= max_forsyth_valence) meshopt_optimizeVertexCache(indices.data(), indices.data(), indices.size(), vertices);
    else meshopt_optimizeVertexCacheFifo(indices.data(), indices.data(), indices.size(), vertices, tipsify_cache_size);
}

void optimize_mesh(Mesh& mesh) {
    const uint32_t n = mesh.vertex_count();
    std::vector<uint32_t> indices;
    indices.reserve(mesh.triangles.size() * 3);
    for (auto& t : mesh.triangles) indices.insert(indices.end(), t.begin(), t.end());

    std::vector<uint32_t> remap(n, ~0u);  // old vertex -> new vertex
    if (!indices.empty()) {
        order_for_cache(indices, n);
        meshopt_optimizeVertexFetchRemap(remap.data(), indices.data(), indices.size(), n);
    }
    // Vertices no triangle uses are kept (springs, lod or morph data may still name them), after
    // the used ones and in their old order.
    std::vector<uint32_t> source(n);  // new vertex -> old vertex
    uint32_t used = 0;
    for (uint32_t v = 0; v < n; ++v)
        if (remap[v] != ~0u) ++used;
    for (uint32_t v = 0; v < n; ++v) {
        if (remap[v] == ~0u) remap[v] = used++;
        source[remap[v]] = v;
    }

    detail::gather_vertices(mesh, source);
    mesh.triangles.resize(indices.size() / 3);
    for (size_t t = 0; t < mesh.triangles.size(); ++t)
        for (int k = 0; k < 3; ++k) mesh.triangles[t][k] = remap[indices[t * 3 + k]];
    detail::remap_springs(mesh, remap);
}

}  // namespace

void optimize_vertex_cache(Scene& scene) {
    for (auto& mesh : scene.meshes) optimize_mesh(mesh);
}

}  // namespace rigport
