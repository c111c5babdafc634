// An affine matrix as a scene Transform (glTF nodes, FBX bind matrices).
#pragma once

#include "rigport/anim.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// Translation, rotation and scale of m (columns' lengths; a mirror as a negative x scale).
// sheared: the columns were not orthogonal (within 1e-4); the rotation is then the nearest one
// from the normalized columns. A zero column gives the scales and no rotation.
Transform decompose(const Mat4& m, bool& sheared);

}  // namespace rigport
