// FBX 7.x animation (docs/fbx.md §2.6): each AnimationStack becomes an animation; its base
// layer's curves (AnimationCurveNode T / R / S on a Model, AnimationCurve d|X d|Y d|Z, keys in
// 1/46186158000 s) drive the models, and every joint's local pose is sampled at the keys' times
// through FBX's transform rule.
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

// Appends one animation per stack to scene.animations; warnings for what is not read (layers
// above the base layer, cubic keys read as linear, animated pivots or visibility).
bool read_animations(const Document& doc, const ModelGraph& graph, const LoadOptions& options, Scene& scene, Error& error);

}  // namespace rigport::fbx
