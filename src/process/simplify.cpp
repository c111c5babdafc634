// Decimation with meshoptimizer 0.18 (docs/targets.md "Fixing"): the simplifier picks which
// triangles stay and which vertices they use; every stream of the kept vertices is gathered.
#include "process/simplify.hpp"

#include <meshoptimizer.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "process/vertex_streams.hpp"

namespace rigport::detail {

SimplifyResult simplify_meshes(Scene& scene, double ratio) {
    SimplifyResult result;
    ratio = std::clamp(ratio, 0.0, 1.0);
    for (Mesh& mesh : scene.meshes) {
        result.triangles_before += mesh.triangles.size();
        result.vertices_before += mesh.vertex_count();
        if (mesh.triangles.empty() || mesh.positions.empty()) {
            result.vertices_after += mesh.vertex_count();
            continue;
        }
        std::vector<uint32_t> indices;
        indices.reserve(mesh.triangles.size() * 3);
        for (const Triangle& t : mesh.triangles) indices.insert(indices.end(), t.begin(), t.end());
        const size_t target = std::max<size_t>(1, size_t(std::floor(double(mesh.triangles.size()) * ratio))) * 3;
        const float* positions = mesh.positions.front().data();
        const size_t count = mesh.vertex_count();
        std::vector<uint32_t> kept(indices.size());
        float error = 0;
        // A target error of 1 (the mesh's whole extent) lets the triangle count alone decide.
        size_t n = meshopt_simplify(kept.data(), indices.data(), indices.size(), positions, count, sizeof(Vec3), target, 1.0f, 0, &error);
        if (double(n) > 1.25 * double(target)) {
            n = meshopt_simplifySloppy(kept.data(), indices.data(), indices.size(), positions, count, sizeof(Vec3), target, 1.0f, &error);
            ++result.sloppy_meshes;
        }
        kept.resize(n);
        result.error = std::max(result.error, double(error) * double(meshopt_simplifyScale(positions, count, sizeof(Vec3))));
        // The kept vertices in the order the kept triangles first use them.
        std::vector<uint32_t> remap(count, UINT32_MAX), source;
        for (uint32_t& v : kept) {
            if (remap[v] == UINT32_MAX) remap[v] = uint32_t(source.size()), source.push_back(v);
            v = remap[v];
        }
        gather_vertices(mesh, source);
        mesh.triangles.resize(n / 3);
        for (size_t t = 0; t < n / 3; ++t) mesh.triangles[t] = {kept[3 * t], kept[3 * t + 1], kept[3 * t + 2]};
        mesh.lod.clear(), mesh.springs.clear(), mesh.spring_weights.clear(), mesh.lod_steps = 0;
        result.triangles_after += mesh.triangles.size();
        result.vertices_after += mesh.vertex_count();
    }
    return result;
}

}  // namespace rigport::detail
