// The IQE -> IQM compiler (what the reference `iqm` tool does, minus its bugs): several inputs,
// comma-joined mesh lists, per-animation-file options, the processing pipeline, and skeleton
// matching by joint name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// Options placed before one input file on the command line; they apply to that file's
// animation only when it has exactly one (as the reference compiler does).
struct AnimationInputOptions {
    std::optional<std::string> name;
    std::optional<float> fps;
    bool loop = false;
    std::optional<int64_t> start;  // first frame kept, clamped to >= 0
    std::optional<int64_t> end;    // last frame kept, inclusive; negative counts from the end
};

struct CompileInput {
    std::vector<std::string> paths;  // "a.iqe,b.iqe": several files whose geometry accumulates
    AnimationInputOptions animation;
};

struct CompileOptions {
    LoadOptions load;
    TransformOptions transform;  // -s / -r / -t, applied after the pipeline
    bool force_joints = false;   // -j
    uint32_t max_influences = 4; // influences kept per vertex (IQM holds 4); 0 keeps all
};

// Loads every input, merges them into one scene and runs the pipeline for text inputs (normals
// when absent, weld, vertex cache order, tangents, influence limit). Animation inputs whose
// skeleton differs from the mesh's are matched by joint name or rejected with an Error naming the
// file and the joint, never merged inconsistently. Warnings land in the scene.
Expected<Scene> compile(const std::vector<CompileInput>& inputs, const CompileOptions& options);

}  // namespace rigport
