// FBX animation takes and their layers (docs/fbx.md §2.6): what drives each model's transform
// and each blend shape channel's weight in one AnimationStack (6.x: one Take), and the value
// they give at a time with the stack's layers combined by weight and blend mode.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/fbx/fbx_curve.hpp"
#include "formats/fbx/fbx_objects.hpp"
#include "formats/fbx/fbx_transform.hpp"

namespace rigport::fbx {

// One AnimationCurveNode: a property's three channels in one layer; a channel without a curve
// holds the node's default (d|X ...) where it has one.
struct CurveNode {
    std::array<const Curve*, 3> curves{};
    std::array<std::optional<double>, 3> defaults;
};

enum class Blend { Additive, Override, Passthrough };  // AnimationLayer BlendMode 0, 1, 2

struct Layer {
    double weight = 1;                    // Weight / 100, in [0, 1]
    const Curve* weight_curve = nullptr;  // an animated Weight (percent)
    bool muted = false;
    Blend blend = Blend::Additive;
    bool compose_rotation = true;         // RotationAccumulationMode 0: as rotations, 1: channel by channel
    bool compose_scale = true;            // ScaleAccumulationMode 0: multiplied, 1: added
    std::map<uint32_t, std::array<std::optional<CurveNode>, 3>> models;  // by model: T, R, S
    std::map<uint32_t, CurveNode> shapes;  // by blend shape channel object: DeformPercent
};

struct Take {
    std::string name;
    std::optional<int64_t> start, stop;
    std::vector<Layer> layers;   // the first is the base layer
    // The first and last key of every curve that drives something (none: nothing moves).
    std::optional<int64_t> first_key, last_key;
};

// The AnimationCurves read so far, each once, by object index; they stay where they are as more
// are read (takes point at them).
struct CurveStore {
    std::deque<Curve> curves;
    std::vector<uint32_t> by_object;  // index into `curves`, or UINT32_MAX: not read yet
};

struct TakeCounts {
    size_t other_properties = 0;  // animated properties not read (visibility, pivots ...)
    size_t muted_layers = 0;
};

// 7.x: AnimationStack -> AnimationLayer (in connection order) -> AnimationCurveNode (OP to a
// Model's Lcl Translation / Rotation / Scaling, or a BlendShapeChannel's DeformPercent) ->
// AnimationCurve (OP as d|X d|Y d|Z). Curves are read once into `curves`.
bool gather_stacks(const Objects& objects, const std::vector<uint32_t>& model_of, CurveStore& curves,
                   std::vector<Take>& takes, TakeCounts& counts, Error& error);
// 6.x: Takes { Take: NAME { Model: "Model::X" { Channel: "Transform" { Channel: "T" | "R" | "S"
// { Channel: "X" | "Y" | "Z" { Default, KeyCount, Key } } } } } }, one layer per take.
bool gather_takes(const Document& doc, const Objects& objects, const std::vector<uint32_t>& model_of, std::deque<Curve>& curves,
                  std::vector<Take>& takes, TakeCounts& counts, Error& error);

// Per model: whether a curve (with keys) in any take drives its transform, so that it becomes a
// joint (an animated rigid mesh moves with it).
std::vector<bool> animated_models(const Document& doc, const Objects& objects, const std::vector<uint32_t>& model_of, size_t models);

bool animates_model(const Take& take, uint32_t model);
bool animates_shape(const Take& take, uint32_t channel);

// The key times of the curves that move model `model` (or blend shape channel `channel`) in this
// take, merged into `out` (sorted, each once, as `out` was given): its curves in each layer that is read (the base, and the layers
// above it that are not muted), and the animated Weight of each such layer above the base that
// blends rather than overrides. Between and beyond these times nothing else changes its value.
void model_key_times(const Take& take, uint32_t model, std::vector<int64_t>& out);
void shape_key_times(const Take& take, uint32_t channel, std::vector<int64_t>& out);

// Sorted `keys` merged into sorted, unique `out`, each time once (keys may repeat a time): the
// curves of one joint mostly share their times, so the merge is linear, not a sort.
void merge_times(std::vector<int64_t>& out, std::span<const int64_t> keys, std::vector<int64_t>& scratch);

// Model `model`'s transform properties at tick t, from `rest` through every layer.
NodeTransform animated_transform(const Take& take, uint32_t model, const NodeTransform& rest, int64_t t);
// A blend shape channel's DeformPercent at tick t, from `rest` through every layer.
double animated_percent(const Take& take, uint32_t channel, double rest, int64_t t);

}  // namespace rigport::fbx
