// convert --target (docs/targets.md "Fixing"): the fixes an engine profile allows, applied to the
// scene before it is written, each reported with what it moved.
#pragma once

#include <string>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/scene.hpp"
#include "rigport/targets.hpp"

namespace rigport::detail {

// The largest distance any vertex of `after` lies from the same vertex of `before`, skinned, at
// rest and at every frame of every animation (bake_frames at each clip's own rate); and the
// model's size (the diagonal of `before`'s box over those frames). The two scenes have the same
// meshes and vertices. LimitExceeded when the frames are more than bake_frames samples.
struct Displacement {
    double largest = 0, size = 0;
    double fraction() const { return size > 0 ? largest / size : 0; }
};
Expected<Displacement> skinned_displacement(const Scene& before, const Scene& after);

// Applies what the profile allows and the scene needs: the geometry fixes (fit_geometry),
// animations resampled at the engine's frame rate, influences cut to the limit (the lightest
// dropped, the rest renormalised), unweighted skinned vertices bound to the nearest joint, roots gathered under one (the profile's root name, at the
// origin), names with characters the engine's tools do not take cleaned (each such character '_'), and
// joint, mesh and animation names cut to the byte limits (kept unique; material names are texture
// names in several formats, so their length is only checked). One message per fix in `fixes`; a fix
// that moves vertices says by how much. Refused (Unsupported) when a fix moves a vertex by more
// than max_error of the model's size (max_error >= 0), or when a limit is still broken after the
// fixes (the findings of check_target named).
// The geometry fixes (target_geometry.cpp): meshes over the per-mesh limits split into parts
// (nothing moves); a model over a whole-model limit (vertices, positions, triangles, or more
// parts than the mesh limit allows) decimated with meshoptimizer until it fits, with
// meshoptimizer's estimate of the surface's move reported and held to max_error. A model these
// cannot fit is left as it was, for the final check to name.
Status fit_geometry(Scene& scene, const TargetProfile& profile, double max_error, std::vector<std::string>& fixes);

// Whether a byte may stand in a name under the profile's rule (TargetProfile::NameCharacters).
bool name_character_allowed(TargetProfile::NameCharacters rule, unsigned char c);

// The engine's unit and facing (docs/targets.md "Units, axes and names"): a model whose source
// format states its unit (FormatInfo::states_unit, read from scene.meta.source_format) is scaled
// to the profile's unit, unless unit_given (--unit decides); one whose format says it faces +Z
// (glTF) is turned a quarter turn about its up axis to face +X where the engine's models do. One
// message per change in `fixes`. True when the scene's numbers are now in the engine's unit, so
// the output's own unit (IQM: metres) must not scale them back.
bool fit_space(Scene& scene, const TargetProfile& profile, bool unit_given, std::vector<std::string>& fixes);

Status fit_to_target(Scene& scene, const TargetProfile& profile, double max_error, std::vector<std::string>& fixes);

}  // namespace rigport::detail
