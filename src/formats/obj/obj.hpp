// Wavefront OBJ (+ .mtl material libraries): polygonal geometry only. docs/obj.md holds the
// keywords read, the conventions chosen and why rigport parses OBJ itself.
#pragma once

#include <span>
#include <string>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::obj {

// One mesh per (group, material) run of faces; .mtl files through LoadOptions::read_resource.
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);
// A static OBJ with a <stem>.mtl side file: Y up, counter-clockwise, V up from the image bottom.
Expected<Output> write(const Scene& scene, const std::string& path, const SaveOptions& options);

}  // namespace rigport::obj
