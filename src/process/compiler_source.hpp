// What a reader gives the reference compiler beyond the scene (FormatInfo::read_compiler_source):
// the smoothing groups its normals are generated from, and whether the file has normals at all.
#pragma once

#include <vector>

#include "process/smooth_normals.hpp"
#include "rigport/scene.hpp"

namespace rigport {

struct CompilerSource {
    Scene scene;                           // as the file says it, no normals generated
    std::vector<MeshSmoothing> smoothing;  // one per scene mesh
    bool has_normals = true;               // false: the compiler generates them from `smoothing`
};

}  // namespace rigport
