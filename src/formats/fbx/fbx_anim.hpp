// FBX animation (docs/fbx.md §2.6): each AnimationStack (6.x: Take) becomes an animation; its
// layers' curves, combined by weight and blend mode (fbx_layers), drive the models, and every
// joint's local pose is sampled through FBX's transform rule at the times of the keys that move
// it or its ancestors.
#pragma once

#include <cstdint>
#include <vector>

#include "formats/fbx/fbx_mesh.hpp"
#include "formats/fbx/fbx_objects.hpp"
#include "formats/fbx/fbx_transform.hpp"
#include "rigport/scene.hpp"

namespace rigport::fbx {

// What the scene reader knows about the models, parent-first.
struct ModelGraph {
    const Objects* objects = nullptr;
    std::vector<uint32_t> models;        // model -> object index
    std::vector<uint32_t> parent;        // model -> parent model, or UINT32_MAX
    std::vector<uint32_t> order;         // models parent-first
    std::vector<NodeTransform> transforms;
    std::vector<Mat4> local;             // at rest
    std::vector<int32_t> joint_of;       // model -> joint, or -1
    std::vector<uint32_t> joint_model;   // joint -> model
    std::vector<MorphBinding> bindings;  // blend shape channels -> morph targets
};

// GlobalSettings' TimeMode (and CustomFrameRate) as frames per second; 0 when not told.
float frame_rate_of(const Document& doc);

// Appends one animation per stack to scene.animations; warnings for what is not read (muted
// layers, animated pivots or visibility).
bool read_animations(const Document& doc, const ModelGraph& graph, const LoadOptions& options, Scene& scene, Error& error);

}  // namespace rigport::fbx
