// FBX Geometry (docs/fbx.md §2.3): control points, polygons (a negative index closes one: ~i),
// layer elements by mapping (ByPolygonVertex, ByVertice, ByPolygon, AllSame) and reference
// (Direct, IndexToDirect), polygons fan-triangulated, one rigport mesh per material used.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/fbx/fbx_objects.hpp"
#include "rigport/anim.hpp"
#include "rigport/scene.hpp"

namespace rigport::fbx {

struct MeshPlacement {
    Mat4 matrix;                                          // control points -> the scene's space
    const std::vector<std::vector<Influence>>* skin = nullptr;  // per control point, or null
    int32_t rigid_joint = -1;                             // unskinned: every vertex bound to it
    std::vector<int32_t> materials;                       // the model's material slots -> Scene::materials
    std::string name;
};

// Appends the geometry's meshes (one per material slot used) to `scene`.
bool read_mesh(const Object& geometry, const MeshPlacement& placement, const LoadOptions& options, Scene& scene, Error& error);

}  // namespace rigport::fbx
