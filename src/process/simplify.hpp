// Decimation for engines whose limits a model's geometry is over (docs/targets.md "Fixing"), with
// meshoptimizer 0.18's simplifier: fewer triangles, every kept vertex unmoved.
#pragma once

#include <cstdint>

#include "rigport/scene.hpp"

namespace rigport::detail {

struct SimplifyResult {
    uint64_t triangles_before = 0, triangles_after = 0;
    uint64_t vertices_before = 0, vertices_after = 0;
    // meshoptimizer's estimate of how far the surface moved, in the scene's units: its relative
    // result_error times the mesh's scale (meshopt_simplifyScale), the largest over the meshes.
    double error = 0;
    uint64_t sloppy_meshes = 0;  // meshes the edge-collapse simplifier could not bring low enough
};

// Every mesh decimated to about `ratio` (0 < ratio <= 1) of its triangles (at least one), its
// unused vertices dropped and every per-vertex stream, skin and morph target kept for the rest.
// meshopt_simplify collapses edges and keeps attribute seams and borders where it can; where it
// stops above 1.25 times the target (a mesh of seams and borders), meshopt_simplifySloppy (vertex
// clustering) takes its place for that mesh. Cal3D level-of-detail data and springs name the old
// vertices and are dropped from a decimated mesh.
SimplifyResult simplify_meshes(Scene& scene, double ratio);

}  // namespace rigport::detail
