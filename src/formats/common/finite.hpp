// The writers' common guard: no format can hold NaN or infinity, so a scene carrying one is
// refused before any writer runs (an input problem, never a file a reader then refuses).
#pragma once

#include "rigport/scene.hpp"

namespace rigport::detail {

// Ok, or a Malformed error naming the first non-finite value: mesh, vertex and stream, joint and
// channel, or animation, track and key. normal_fallback: the writer replaces a zero or
// non-finite normal or tangent by a unit fallback with a warning (glTF), so those are not checked.
Status check_finite_for_writing(const Scene& scene, bool normal_fallback = false);

}  // namespace rigport::detail
