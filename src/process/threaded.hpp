// Processing steps with a thread count (0 = every core, 1 = the calling thread only), for the
// compiler and the writers; the public calls in rigport/process.hpp use every core. Not public API.
#pragma once

#include <cstdint>
#include <vector>

#include "rigport/process.hpp"
#include "rigport/scene.hpp"

namespace rigport::detail {

std::vector<FrameBounds> skinned_bounds(const Scene& scene, const std::vector<std::vector<Transform>>& local_poses,
                                        uint32_t threads);
void generate_tangents(Scene& scene, uint32_t threads);
void weld_vertices(Scene& scene, uint32_t threads);

}  // namespace rigport::detail
