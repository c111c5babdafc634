// Vertex cache order with meshoptimizer 0.18: order triangles for the post-transform cache,
// number vertices in first-use order (iqm-iqe.md §3.2 step 4; compile() has already dropped the
// degenerate triangles, degenerate.cpp).
#include <meshoptimizer.h>

#include "process/vertex_streams.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

void optimize_mesh(Mesh& mesh) {
    const uint32_t n = mesh.vertex_count();
    std::vector<uint32_t> indices;
    indices.reserve(mesh.triangles.size() * 3);
    for (auto& t : mesh.triangles) indices.insert(indices.end(), t.begin(), t.end());

    std::vector<uint32_t> remap(n, ~0u);  // old vertex -> new vertex
    if (!indices.empty()) {
        meshopt_optimizeVertexCache(indices.data(), indices.data(), indices.size(), n);
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
