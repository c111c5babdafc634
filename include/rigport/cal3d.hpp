// Cal3D whole characters: skeleton, meshes, materials and animations from several files or a .cfg (docs/cal3d.md §4.5, §5).
#pragma once

#include <string>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// Loads Cal3D files given in any order (.csf/.xsf skeleton, .cmf/.xmf meshes, .crf/.xrf materials,
// .caf/.xaf animations, .cpf/.xpf morph animations) and merges them into one scene: influences and
// tracks mapped through the skeleton's bone ids, material threads to the materials in the order
// given, morph tracks bound by morph name (IMVU) or (mesh, submesh, morph id) (upstream).
// A path ending in .cfg adds its skeleton=, mesh=, material=, animation=, morphanim= lines
// (relative to the .cfg, or to its path= line); files a .cfg names but that do not exist are
// skipped with a warning (material slots keep their index). A skinned mesh without a skeleton,
// or a bone id the skeleton does not have, is an error naming the file.
Expected<Scene> load_cal3d_character(const std::vector<std::string>& paths, const LoadOptions& options = {});

}  // namespace rigport
