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
// origin), joint, mesh and animation names cut to the byte limits (kept unique; material names
// are texture names in several formats, so they are only checked). One message per fix in `fixes`; a fix
// that moves vertices says by how much. Refused (Unsupported) when a fix moves a vertex by more
// than max_error of the model's size (max_error >= 0), or when a limit is still broken after the
// fixes (the findings of check_target named).
// The geometry fixes (target_geometry.cpp): meshes over the per-mesh limits split into parts
// (nothing moves); a model over a whole-model limit (vertices, positions, triangles, or more
// parts than the mesh limit allows) decimated with meshoptimizer until it fits, with
// meshoptimizer's estimate of the surface's move reported and held to max_error. A model these
// cannot fit is left as it was, for the final check to name.
Status fit_geometry(Scene& scene, const TargetProfile& profile, double max_error, std::vector<std::string>& fixes);

Status fit_to_target(Scene& scene, const TargetProfile& profile, double max_error, std::vector<std::string>& fixes);

}  // namespace rigport::detail
