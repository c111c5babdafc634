// Per-vertex tangents with handedness from normals and texcoord set 0, as the IQE compiler builds
// them (docs/iqm.md §3.2 step 7): area-weighted triangle u/v directions, Gram-Schmidt, sign.
#include <cmath>

#include "support/thread_pool.hpp"
#include "process/process_util.hpp"
#include "process/threaded.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

using namespace detail;

// A unit vector perpendicular to n (any, but always the same for the same n); (1,0,0) for n = 0.
D3 any_perpendicular(D3 n) {
    double len = std::sqrt(dot(n, n));
    if (!(len > 0)) return {1, 0, 0};
    n = n * (1 / len);
    D3 axis = std::fabs(n.x) < 0.9 ? D3{1, 0, 0} : D3{0, 1, 0};
    D3 t = axis - n * dot(n, axis);
    return t * (1 / std::sqrt(dot(t, t)));
}

constexpr size_t per_chunk = 1 << 14;  // vertices per chunk of work

void tangents_for(Mesh& mesh, uint32_t threads) {
    const uint32_t n = mesh.vertex_count();
    const auto& uv = mesh.texcoords[0];
    // The sums stay serial, in triangle order (their rounding is the output's); the per-vertex
    // finish runs in parallel.
    std::vector<D3> sum_u(n), sum_v(n);
    for (auto& t : mesh.triangles) {
        D3 p0 = d3(mesh.positions[t[0]]);
        D3 e1 = d3(mesh.positions[t[1]]) - p0, e2 = d3(mesh.positions[t[2]]) - p0;
        double du1 = double(uv[t[1]][0]) - uv[t[0]][0], dv1 = double(uv[t[1]][1]) - uv[t[0]][1];
        double du2 = double(uv[t[2]][0]) - uv[t[0]][0], dv2 = double(uv[t[2]][1]) - uv[t[0]][1];
        D3 u = e2 * dv1 - e1 * dv2;
        D3 v = e2 * du1 - e1 * du2;
        if (dot(cross(e2, e1), cross(v, u)) < 0) {
            u = u * -1;
            v = v * -1;
        }
        for (uint32_t k : t) {
            sum_u[k] = sum_u[k] + u;
            sum_v[k] = sum_v[k] + v;
        }
    }
    mesh.tangents.resize(n);
    detail::parallel_for(n, per_chunk, threads, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
            D3 nrm = d3(mesh.normals[i]);
            D3 t = sum_u[i] - nrm * dot(nrm, sum_u[i]);
            double len = std::sqrt(dot(t, t));
            double w = dot(cross(nrm, sum_u[i]), sum_v[i]) < 0 ? -1 : 1;
            // Degenerate UVs or geometry (or a tangent along the normal): any perpendicular, w = +1.
            // The length test is relative so tiny but valid triangles keep their tangent.
            if (!(len > 1e-12 * std::sqrt(dot(sum_u[i], sum_u[i]))) || !std::isfinite(len) || len == 0) {
                t = any_perpendicular(nrm);
                w = 1;
            } else {
                t = t * (1 / len);
            }
            mesh.tangents[i] = {float(t.x), float(t.y), float(t.z), float(w)};
        }
    });
}

}  // namespace

void generate_tangents(Scene& scene) { detail::generate_tangents(scene, 0); }

void detail::generate_tangents(Scene& scene, uint32_t threads) {
    for (auto& mesh : scene.meshes) {
        const uint32_t n = mesh.vertex_count();
        if (n == 0 || !mesh.tangents.empty() || mesh.normals.size() != n || mesh.texcoords.empty() ||
            mesh.texcoords[0].size() != n)
            continue;
        tangents_for(mesh, threads);
    }
}

}  // namespace rigport
