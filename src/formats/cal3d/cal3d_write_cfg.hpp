// The Cal3D whole-character writer and the registry's .cfg entry (cal3d_write_cfg.cpp; docs/cal3d.md §4.5).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rigport/io.hpp"

namespace rigport::cal3d {

// A .cfg model list plus its side files beside it, all named after the .cfg's stem: the skeleton
// (<stem>.xsf), one mesh file per scene mesh (<stem>_<mesh>.xmf), one material file per material
// (<stem>_<material>.xrf, in scene order, so material thread i is the i-th material= line), one
// animation file per animation with joint tracks (<stem>_<animation>.xaf) and one morph animation
// file per animation with morph weight tracks (<stem>_<animation>.xpf); .c?f with
// options.cal3d.binary. Names are reduced to [A-Za-z0-9._-] and made unique (ignoring case).
// The scene is converted to Cal3D conventions first (z_up_ccw_copy).
Expected<Output> write_cfg(const Scene& scene, const std::string& path, const SaveOptions& options);

// A whole character from a .cfg's bytes, its members read through options.read_resource (names
// relative to the .cfg); without a read_resource an Unsupported error. In cal3d_character.cpp.
Expected<Scene> read_cfg(std::span<const uint8_t> bytes, const LoadOptions& options);
// The members a .cfg names (path= prefix applied), relative to it (FormatInfo::named_files).
Expected<std::vector<std::string>> cfg_named_files(std::span<const uint8_t> bytes);

}  // namespace rigport::cal3d
