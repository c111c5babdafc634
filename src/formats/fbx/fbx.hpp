// Autodesk FBX (docs/fbx.md): binary 7.x (32/64-bit records, zlib arrays, either byte order) and
// ASCII 7.x read into the scene: meshes, materials, the node hierarchy with FBX's transform rule,
// skins; detected by the binary magic or the ASCII header.
#pragma once

#include <span>
#include <string>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::fbx {

bool detect(std::span<const uint8_t> bytes);
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);
// Binary (or, with SaveOptions::fbx.ascii, ASCII) FBX 7.4, 7.5 or 7.7 (docs/fbx.md "Writing FBX").
Expected<Output> write(const Scene& scene, const std::string& path, const SaveOptions& options);

}  // namespace rigport::fbx
