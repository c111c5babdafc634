// Splitting meshes that are too large for an engine's per-mesh limits (docs/targets.md "Fixing"):
// each into consecutive parts, in triangle order, none over the limits. Nothing moves.
#pragma once

#include <cstdint>

#include "rigport/scene.hpp"

namespace rigport::detail {

// 0 = no limit.
struct SplitLimits {
    uint64_t vertices = 0;   // vertices per part
    uint64_t triangles = 0;  // triangles per part
    uint64_t joints = 0;     // joints with a non-zero weight on a vertex of the part
};

struct SplitResult {
    uint64_t meshes_split = 0;  // meshes over a limit, now in parts
    uint64_t parts_added = 0;   // meshes the scene gained
    uint64_t shared_vertices = 0;  // vertices copied into a second part (those on a cut)
};

// Every mesh over a limit becomes parts: triangles are taken in order and a part is closed when
// the next triangle would take it over a limit. A part keeps the mesh's material, morph targets
// (and its morph-weight tracks, copied for each part) and every per-vertex stream; the first part
// keeps the mesh's name, the others add "_2", "_3" ... Cal3D's per-vertex level-of-detail data
// and cloth springs name vertices of the whole mesh, so a split mesh drops them. A single
// triangle over the joint limit is left in a part of its own (the caller measures again).
// Mesh order is kept: a mesh's parts follow each other where the mesh was.
SplitResult split_meshes(Scene& scene, const SplitLimits& limits);

}  // namespace rigport::detail
