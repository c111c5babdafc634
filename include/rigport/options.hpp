// The words convert's options take (axis, unit, image mode, clip end, Cal3D dialect), read in one
// place for every front end: the CLI's flags and the Python module's keywords (docs/cli.md "convert").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/images.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"

namespace rigport {

// Each returns what the word means, or an InvalidArgument error "NAME 'WORD': expected ..."
// where NAME is how the caller calls the option (the CLI: "--axis"; by default the field name).

// "bake" or "root" (GltfOptions::axis).
Expected<GltfOptions::AxisMode> parse_axis_word(std::string_view word, std::string_view name = "axis");
// "" (the output format's own unit), "keep", or a unit unit_metres knows; returned as given.
Expected<std::string> parse_unit_word(std::string_view word, std::string_view name = "unit");
// "auto", "reference", "embed" or "none" (ImageOptions::mode).
Expected<ImageOptions::Mode> parse_image_mode_word(std::string_view word, std::string_view name = "images");
// "" (what the output format wants: nothing), "clamp", "extrapolate" or "none".
Expected<std::optional<ClipEnd>> parse_clip_end_word(std::string_view word, std::string_view name = "clip_end");
// "imvu" or "919", "1100", "1301" (Cal3dOptions::dialect).
Expected<Cal3dOptions::Dialect> parse_cal3d_dialect_word(std::string_view word, std::string_view name = "cal3d_dialect");

// "" (no tags) or joint names separated by commas, "tag_head,tag_weapon" (Md3Options::tags); an
// empty name between commas or a name given twice is refused.
Expected<std::vector<std::string>> parse_md3_tags_word(std::string_view word, std::string_view name = "md3_tags");

// "7400", "7500" or "7700" (FbxOptions::version: the FBX versions the writer writes).
Expected<uint32_t> parse_fbx_version_word(std::string_view word, std::string_view name = "fbx_version");

// "X,Y,Z" as three finite numbers (or one number Z when single_means_z: the reference compiler's
// -t Z, docs/iqm.md); nothing for anything else.
std::optional<Vec3> parse_vec3_word(std::string_view text, bool single_means_z);

}  // namespace rigport
