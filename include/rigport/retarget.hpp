// Retargeting: clips made for one skeleton played on another (docs/retarget.md): the bone map
// (canonical joint names, a map file), the motion (bone directions matched in world space), and
// the one front door behind `rigport retarget` and the Python module's retarget().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rigport/compile.hpp"
#include "rigport/convert.hpp"
#include "rigport/error.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// Source joint name -> target joint name, in the source skeleton's joint order.
using BoneMap = std::vector<std::pair<std::string, std::string>>;

// ---- names (src/process/retarget_names.cpp) -------------------------------------------------
// A joint's name in the canonical vocabulary (docs/retarget.md "Canonical names"): namespaces and
// rig prefixes removed, the side as a suffix, the rig's word for the bone replaced by the
// vocabulary's ("mixamorig:LeftUpLeg" and "ValveBiped.Bip01_L_Thigh" are both "thigh.l"); chain
// members keep their number ("spine#2", "index.l#1"). Empty for a name the vocabulary does not know.
std::string canonical_joint_name(std::string_view name);

// The map `--map auto` makes (docs/retarget.md "The bone map"): joints whose canonical names agree,
// spine and neck chains of different lengths spread over each other, then the hierarchy: a child
// left open on both sides under two mapped parents, when it is the only one on each side.
BoneMap auto_bone_map(const Skeleton& source, const Skeleton& target);

// ---- map files (src/process/bone_map_json.cpp) ----------------------------------------------
// A map file's pairs: a JSON object {"source joint": "target joint" | null}; null takes the
// source joint out of the map. Malformed (naming `path`) when the text is not such an object.
struct BoneMapOverrides {
    std::vector<std::pair<std::string, std::optional<std::string>>> pairs;
};
Expected<BoneMapOverrides> parse_bone_map(std::string_view json, const std::string& path);
// The map as such a JSON object, indented by 2, in the map's order, with a final line break.
std::string bone_map_json(const BoneMap& map);
// The auto map with the overrides applied: a pair replaces every auto pair with its source or its
// target joint; null removes the source's pair. Malformed (naming `path`) when a pair names a joint
// its skeleton lacks or two source joints one target joint.
Expected<BoneMap> apply_bone_map(BoneMap map, const BoneMapOverrides& overrides, const Skeleton& source, const Skeleton& target,
                                 const std::string& path);

// ---- the motion (src/process/retarget_motion.cpp) -------------------------------------------
enum class RootMotion : uint8_t {
    Scale,    // the root's travel times target leg length / source leg length (default)
    Keep,     // the root's travel as the source has it
    InPlace,  // the root's travel without its horizontal part
};
const char* to_string(RootMotion mode);
// "scale", "keep" or "in-place"; nothing for another word.
std::optional<RootMotion> parse_root_motion(std::string_view word);

struct RetargetOptions {
    RootMotion root_motion = RootMotion::Scale;
    // The retargeted clip's name; with several clips, NAME_<clip's own name>. Empty = the clip's own.
    std::string name;
};

struct Retargeted {
    std::vector<Animation> animations;  // one per source clip, for the target's skeleton
    std::vector<std::string> unmapped;  // target joints no source joint drives (they keep their rest pose)
    double root_scale = 1.0;            // what the root's travel was multiplied by
    Warnings warnings;                  // Unmapped and what the method could not do, without a path
};

// Every clip of `source` (its skeleton and rest pose) for the skeleton and rest pose of `target`,
// through `map` (source -> target pairs; names the skeletons lack are refused, InvalidArgument):
// keys at the union of each clip's key times (docs/retarget.md "The motion").
Expected<Retargeted> retarget_clips(const Scene& source, const Scene& target, const BoneMap& map, const RetargetOptions& options = {});

// ---- the front door (src/pipeline/retarget.cpp) ---------------------------------------------
struct RetargetJob {
    std::vector<CompileInput> clips;  // read as one model, as convert reads its inputs (companions too)
    CompileInput onto;                // the target: its skeleton, rest pose, meshes, skin, materials
    std::string output;
    std::string map_file;             // the map file's pairs over the auto map; empty = auto alone
    std::string save_map;             // where the map used is written with the output; empty = nowhere
};

struct RetargetResult : ConvertResult {
    BoneMap map;                        // the map used
    std::vector<std::string> unmapped;  // target joints left at rest
    double root_scale = 1.0;
};

// What `rigport retarget` does: the clips and the target read as `convert` reads its inputs, the
// clips retargeted and put in place of the target's own, the model saved as `convert` saves it for
// options.format (atomic: the output and the saved map are put in place together, or neither). The
// map file is read (and checked) before either model.
RetargetResult run_retarget(const RetargetJob& job, const ConvertOptions& options, const RetargetOptions& retarget = {});

// The same in memory: the target scene with the retargeted clips, and the map used. The map file,
// when named, is read through `load`.
struct RetargetedModel {
    Scene scene;
    BoneMap map;
    std::vector<std::string> unmapped;
};
Expected<RetargetedModel> retarget_model(const RetargetJob& job, const LoadOptions& load, const RetargetOptions& retarget = {});

// run_retarget's result as convert's JSON record (conversion_json) plus "map" {source: target},
// "unmapped" [...] and "root_scale".
std::string retarget_json(const std::string& input, const RetargetResult& result);

}  // namespace rigport
