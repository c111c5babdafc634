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
#include "rigport/validate.hpp"

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

// What compile() does to the geometry of text inputs (IQE) beyond reading it.
enum class Pipeline : uint8_t {
    // As load() gives it: normals from the IQE smoothing rules where the file has none.
    Plain,
    // The reference compiler's steps before writing (docs/iqm.md §3.2 3-7): Plain, then equal
    // vertices welded, triangles in vertex-cache order, tangents where absent. `rigport convert`.
    Compiler,
};

// Every default is a plain load of the inputs as one model; a writer's needs are asked for
// explicitly (compiler_options() gives what `rigport convert` uses for an output format).
struct CompileOptions {
    LoadOptions load;
    TransformOptions transform;  // -s / -r / -t, applied after the pipeline
    bool force_joints = false;   // --forcejoints (the reference compiler's -j)
    Pipeline pipeline = Pipeline::Plain;
    uint32_t max_influences = 0; // influences kept per vertex (the heaviest, renormalized); 0 keeps all
    // Animations whose stated length (Cal3D DURATION) runs past their last key (apply_clip_end):
    // None keeps the keys as they are (a warning names the gap).
    ClipEnd clip_end = ClipEnd::None;
    // Threads for the pipeline's steps (normals, tangents): 0 = every core, 1 = the calling
    // thread only. The result is the same bytes for any count.
    uint32_t threads = 0;
};

struct FormatInfo;
// What `rigport convert` compiles with for an output format: Pipeline::Compiler, the influences
// the format stores (FormatInfo::max_influences: IQM 4), and end-of-clip keys added (Clamp) unless
// the format keeps a clip's stated length itself (FormatInfo::stated_duration: None).
CompileOptions compiler_options(const FormatInfo& output);

// True when the path names a Cal3D file by its extension: .cfg, .csf/.xsf, .cmf/.xmf, .crf/.xrf,
// .caf/.xaf, .cpf/.xpf (any letter case).
bool is_cal3d_path(const std::string& path);

// Loads every input, merges them into one scene, drops degenerate triangles, gives text inputs
// without normals the smoothing rules' normals and runs options.pipeline on them, then limits
// influences (options.max_influences). Animation inputs whose
// skeleton differs from the mesh's are matched by joint name or rejected with an Error naming the
// file and the joint, never merged inconsistently. Cal3D files (is_cal3d_path), in any order and
// in whatever inputs they are given, form one character loaded by load_cal3d_character at the
// place of the first of them; options before a Cal3D animation file apply to its animation, and
// options before a .cfg to the character's animation when it has exactly one. The clip-end rule
// runs on the merged scene. Warnings land in the scene.
Expected<Scene> compile(const std::vector<CompileInput>& inputs, const CompileOptions& options);

// A model given as one mesh file (one input, one path) gets its companions (find_companions,
// docs/cli.md "Companions") as inputs of their own after it, when options.companions; returns
// them. Several inputs are left as given. The front doors that take a model's paths
// (load_model, read_model_info, validate_model, run_conversion) call it; compile() does not.
std::vector<std::string> add_companions(std::vector<CompileInput>& inputs, const LoadOptions& options);

// The validation report of the scene compile() builds from the inputs as one model (a Cal3D
// character, a mesh with its animation files): the loaders' warnings as Warning findings, then
// validate_scene. A malformed input is an Error finding; the Error return is for inputs that
// cannot be read at all (missing, unreadable). report.path names the first input.
Expected<ValidationReport> validate_compiled(const std::vector<CompileInput>& inputs, const CompileOptions& options);

}  // namespace rigport
