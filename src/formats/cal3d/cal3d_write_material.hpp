// Cal3D material round-trip record shared by the CRF/XRF readers and writers (docs/cal3d.md §4.5).
#pragma once

#include <cstdint>

#include "rigport/scene.hpp"

namespace rigport::cal3d {

// §4.5: all-zero alpha (every 3ds Max material) is read as opaque. The readers mark such a file
// with the scene record "cal3d:alpha_zero" (no data), and the CRF/XRF registry writers write an
// opaque material 0 of a marked scene with zero alphas again, so the file comes back unchanged.
void mark_alpha_zero(Scene& scene, const uint8_t ambient[4], const uint8_t diffuse[4], const uint8_t specular[4]);

}  // namespace rigport::cal3d
