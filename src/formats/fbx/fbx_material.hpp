// FBX materials and textures (docs/fbx.md §2.8).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "formats/fbx/fbx_objects.hpp"
#include "rigport/scene.hpp"

namespace rigport::fbx {

// Appends every Material object to scene.materials (material_of: object -> material index),
// with its textures: file names as written (RelativeFilename, else FileName; '/' separators)
// and the images the file embeds (a Texture's Video with Content) in scene.images, named for
// output.
void read_materials(const Objects& objects, Scene& scene, std::unordered_map<uint32_t, int32_t>& material_of);

}  // namespace rigport::fbx
