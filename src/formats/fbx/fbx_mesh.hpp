// FBX Geometry (docs/fbx.md §2.3): control points, polygons (a negative index closes one: ~i),
// layer elements by mapping (ByPolygonVertex, ByVertice, ByPolygon, AllSame) and reference
// (Direct, IndexToDirect), polygons fan-triangulated, one rigport mesh per material used.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/fbx/fbx_objects.hpp"
#include "rigport/anim.hpp"
#include "rigport/scene.hpp"

namespace rigport::fbx {

// A blend shape channel's shape (docs/fbx.md §2.7): control points moved by deltas. A channel
// with in-between shapes gives one per shape, each reached at its FullWeights percent.
struct ShapeInput {
    std::string name;
    float default_weight = 0;            // its weight at the channel's DeformPercent
    uint32_t channel = 0;                // the BlendShapeChannel object, for its weight's animation
    uint32_t shape = 0;                  // which of the channel's shapes
    std::shared_ptr<const std::vector<double>> full_weights;  // the channel's FullWeights (percent), ascending; shared by its shapes
    double percent = 0;                  // the channel's DeformPercent
    std::vector<int64_t> indexes;        // control points
    std::vector<double> deltas;          // x y z per index
    std::vector<double> normals;         // normal offsets, x y z per index (may be empty)
};

// A shape's weight at a channel's percent: the channel's shapes are reached in turn at their
// full weights, each blended linearly from the one before (from none at 0 %), and continued
// linearly beyond the first and the last.
double shape_weight(const std::vector<double>& full_weights, size_t shape, double percent);

// Which morph target of which scene mesh a blend shape channel's shape drives.
struct MorphBinding {
    uint32_t mesh = 0, target = 0, channel = 0;
    uint32_t shape = 0;
    std::shared_ptr<const std::vector<double>> full_weights;
    double percent = 0;  // the channel's DeformPercent at rest
};

struct MeshPlacement {
    Mat4 matrix;                                          // control points -> the scene's space
    const SkinInfluences* skin = nullptr;                 // per control point, or null
    int32_t rigid_joint = -1;                             // unskinned: every vertex bound to it
    std::vector<int32_t> materials;                       // the model's material slots -> Scene::materials
    std::string name;
    std::vector<ShapeInput> shapes;                       // become each mesh's morph targets
    uint32_t version = 0;                                 // the file's FBXVersion (5.x normals, §2.3)
};

// Appends the geometry's meshes (one per material slot used) to `scene`, and a binding per morph
// target made.
bool read_mesh(const Object& geometry, const MeshPlacement& placement, const LoadOptions& options, Scene& scene,
               std::vector<MorphBinding>& bindings, Error& error);

}  // namespace rigport::fbx
