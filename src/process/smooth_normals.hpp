// Normal generation from the IQE specification's smoothing state, as the IQE reader records it
// (load() of an IQE and compile() call it). Not public API.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "rigport/process.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// The IQE specification's smoothing state of one triangle, as the reader recorded it.
struct TriangleSmoothing {
    int32_t group = -1;            // smoothgroup key; -1 = the default group
    bool smooth_uv = false;        // smoothuv: corners smooth only when their texcoords are equal
    float angle_degrees = 180.0f;  // smoothangle: faces smooth when their normals are within it (180 = always)
    bool has_edge_flags = false;   // an fs line applied to this triangle
    std::array<bool, 3> smooth_edge{true, true, true};  // per edge (v[k], v[(k+1)%3])
};
struct MeshSmoothing {
    std::vector<TriangleSmoothing> triangles;  // one per triangle of the mesh
    std::vector<int32_t> vertex_index;         // `vs` per vertex; empty when the file has none
};
// Area-weighted smooth normals for every mesh of the scene, computed across mesh boundaries as
// the IQE spec says: corners at exactly equal positions are united when their groups match, their
// face normals are within both faces' smoothangle (signed: dot >= cos(angle)), texcoords
// match when smoothuv asks, vs indices match, and fs flags allow the shared edge (docs/iqm.md §3.2
// step 3, without bugs 3 and 4). The angle test is dot >= max(cos a1, cos a2): both faces' angles
// must accept. Vertices shared by corners of different groups are split, so
// triangles and vertex counts may change. smoothing has one entry per mesh (missing = defaults).
// threads: 0 = every core, 1 = this thread only; the result is the same.
void generate_normals(Scene& scene, const std::vector<MeshSmoothing>& smoothing, uint32_t threads = 0);


}  // namespace rigport
