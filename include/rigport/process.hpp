// Explicit transforms on a scene: nothing happens to a scene unless one of these is called.
#pragma once

#include <cstdint>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// ---- adjacency (src/process/adjacency.cpp) -------------------------------------------------
// IQM triangle adjacency over all meshes in order (global triangle numbers): adj[t][k] is the
// triangle across edge (v[k], v[(k+1)%3]), or no_neighbor. An edge has a neighbour only when
// exactly two triangles share it; edges are keyed by the unordered pair of endpoint positions
// plus blend data (so seams with different weights are not neighbours). iqm-iqe.md §1.6, bug 1.
constexpr uint32_t no_neighbor = 0xFFFFFFFFu;
std::vector<Triangle> compute_adjacency(const Scene& scene);

struct AdjacencyComparison {
    uint64_t valid = 0;      // entry equals the correct neighbour
    uint64_t wrong = 0;      // entry names a triangle that is not the correct neighbour
    uint64_t missing = 0;    // entry is no_neighbor but a neighbour exists
    uint64_t open = 0;       // both say no neighbour
    uint64_t extra = 0;      // entry names a triangle where the correct answer is no_neighbor
};
AdjacencyComparison compare_adjacency(const std::vector<Triangle>& stored,
                                      const std::vector<Triangle>& correct);

// ---- bounds (src/process/bounds.cpp) ------------------------------------------------------
// Per-frame bounds of the skinned vertices, measured from the origin as IQM does (iqm-iqe.md
// §1.8, §3.2 step 9): one record per frame of every animation, in animation order.
std::vector<FrameBounds> compute_frame_bounds(const Scene& scene);
// True when some vertex has an influence: bounds are written only for such scenes.
bool has_skinned_vertices(const Scene& scene);
// Bounds of every mesh skinned by one set of local joint poses (one IQM bounds record).
FrameBounds skinned_bounds(const Scene& scene, const std::vector<Transform>& local_pose);

// ---- transforms (src/process/transform.cpp) -----------------------------------------------
// As the reference compiler's options: scale multiplies positions and every joint and key
// translation; rotate (Euler degrees X, Y, Z) turns geometry and the root joints' poses;
// meshtrans moves the mesh only, not the skeleton. Applied in the order scale, rotate, meshtrans.
struct TransformOptions {
    float scale = 1.0f;
    Vec3 rotate_degrees{0, 0, 0};
    Vec3 meshtrans{0, 0, 0};
};
void apply_transform(Scene& scene, const TransformOptions& options);

// ---- IQM channel quantization (src/process/quantize.cpp) ----------------------------------
// Per pose and channel over all frames of all animations: offset = min, scale = (max-min)/65535,
// u16 = uint16(0.5f + (v-min)/scale) clamped; constant channels (max-min < 1e-10) get scale 0 and
// their mask bit clear. iqm-iqe.md §1.7.
struct QuantizedChannel {
    bool animated = false;
    float offset = 0.0f;
    float scale = 0.0f;
};
QuantizedChannel quantize_range(float min, float max);
uint16_t quantize_value(float value, const QuantizedChannel& channel);
float dequantize_value(uint16_t sample, const QuantizedChannel& channel);

}  // namespace rigport
