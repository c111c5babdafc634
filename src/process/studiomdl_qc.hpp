// The studiomdl .qc lines a scene keeps from a compiled Half-Life model ($controller, $hbox,
// $attachment: docs/hlmdl.md "Kept for the .qc"), and their lengths scaled with the scene.
#pragma once

#include <string>
#include <string_view>

#include "rigport/scene.hpp"

namespace rigport::detail {

// Scene::meta.extensions entry whose data is .qc command lines ($controller, $hbox,
// $attachment), one per line, each ending in '\n', bone names quoted.
constexpr std::string_view studiomdl_qc_extension = "studiomdl:qc";

// A number as a .qc token: plain decimal, at most 6 places, no exponent (studiomdl reads it with
// atof); anything not finite is 0.
std::string qc_number(double v);

// Multiplies the lengths the kept lines hold by s, as scale_scene does the geometry's: a hit
// box's corners, an attachment's offset and a translating controller's range (X Y Z, LX LY LZ,
// AX AY AZ); rotation ranges stay. Bone spaces are not rotated by a scene's rotation (it turns
// root joints), so only scaling changes them.
void scale_studiomdl_qc(Scene& scene, double s);

}  // namespace rigport::detail
