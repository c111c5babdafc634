// Explicit transforms on a scene: nothing happens to a scene unless one of these is called.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// ---- adjacency (src/process/adjacency.cpp) -------------------------------------------------
// IQM triangle adjacency over all meshes in order (global triangle numbers): adj[t][k] is the
// triangle across edge (v[k], v[(k+1)%3]), or no_neighbor. An edge has a neighbour only when
// exactly two triangles share it; edges are keyed by the unordered pair of endpoint positions
// plus blend data (so seams with different weights are not neighbours). docs/iqm.md §1.6, bug 1.
constexpr uint32_t no_neighbor = 0xFFFFFFFFu;
// Keyed on the scene's own numbers (float positions, positive float weights).
std::vector<Triangle> compute_adjacency(const Scene& scene);

// ---- bounds (src/process/bounds.cpp) ------------------------------------------------------
// Per-frame bounds of the skinned vertices, measured from the origin as IQM does (docs/iqm.md
// §1.8, §3.2 step 9): one record per frame of every animation, in animation order.
std::vector<FrameBounds> compute_frame_bounds(const Scene& scene);
// True when some vertex has an influence: bounds are written only for such scenes.
bool has_skinned_vertices(const Scene& scene);
// Bounds of every mesh skinned by each of several sets of local joint poses (one IQM bounds
// record per pose set). The vertices are walked once per 64 sets, split over the cores for large
// meshes, so give a batch of frames (compute_frame_bounds uses 1024) rather than one at a time.
std::vector<FrameBounds> skinned_bounds(const Scene& scene, const std::vector<std::vector<Transform>>& local_poses);

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

// ---- units of length (src/process/units.cpp, docs/units.md) --------------------------------
// Metres in one unit named so ("m", "cm", "mm", "km", "inch" / "in", "ft", "yd", "mile" ...), or
// nothing for a name it does not know.
std::optional<double> unit_metres(std::string_view name);
// The names unit_metres knows, for messages: "m, dm, cm, ...".
std::string unit_names();
// Scales the scene from its unit (meta.unit_scale metres per unit) to one of metres_per_unit, as
// apply_transform's scale does (positions, morph deltas, joint and key translations), and records
// the new unit. False (nothing changed) when the units are the same or either is not positive.
bool convert_units(Scene& scene, double metres_per_unit);

// ---- axis conversion (src/process/axis.cpp) -------------------------------------------------
// Turns a Z-up scene Y-up with the exact proper rotation (x,y,z) -> (x,z,-y), -90 degrees about X
// (docs/gltf.md §1, choice A), and an X-up scene with (x,y,z) -> (-y,x,z), +90 degrees about Z.
// Positions, normals, tangent xyz and morph deltas are permuted (no rounding); root joints' bind
// translate / rotate and their translation / rotation keys are pre-multiplied (t' = C t,
// q' = c (x) q, renormalized), so children follow; scales, tangent w, winding and custom arrays
// are unchanged. stored_bounds (measured in the old axes) are cleared. Sets meta.up = Y; a scene
// already Y-up or of unknown up axis is left as it is.
void convert_to_y_up(Scene& scene);
// The rotation convert_to_y_up applies to a scene with this up axis (x y z w); identity for Y /
// Unknown.
Quat y_up_rotation(UpAxis up);
// The inverse step, for writers in IQM conventions: a Y-up scene gets (x,y,z) -> (x,-z,y), +90
// degrees about X (the exact inverse of the Z-up map above), an X-up scene is first turned Y up;
// the same parts of the scene are permuted or pre-multiplied as above. Sets meta.up = Z; a scene
// already Z-up or of unknown up axis is left as it is.
void convert_to_z_up(Scene& scene);
// Makes `winding` the front face: when meta.front_face is known and differs, every triangle's
// corner order is reversed ((a,b,c) -> (a,c,b)) and stored adjacency is dropped (it names edges
// by corner order); meta.front_face = winding. Unknown on either side changes nothing.
void set_front_face(Scene& scene, Winding winding);
// For writers in IQM conventions (Z up, clockwise front faces; docs/iqm.md §2): a converted copy of
// a scene that is Y or X up or counter-clockwise (convert_to_z_up, set_front_face, rotations
// made w <= 0 as the reference compiler writes them), or nothing when it already is in them or
// says nothing about them.
std::optional<Scene> iqm_conventions_copy(const Scene& scene);
// For the Cal3D and JOE writers (both Z up with counter-clockwise front faces; docs/cal3d.md §4.3, §5
// step 8; docs/joe.md): a converted copy of a scene that is Y or X up or clockwise, or nothing when it
// already is in them or says nothing about them.
std::optional<Scene> z_up_ccw_copy(const Scene& scene);
// The same for the OBJ and FBX writers (Y up with counter-clockwise front faces: docs/obj.md,
// docs/fbx.md "Writing FBX"): a copy turned Y up and rewound when the scene is Z or X up or
// clockwise, or nothing.
std::optional<Scene> y_up_ccw_copy(const Scene& scene);

// ---- end of clip (src/process/clip_end.cpp) ------------------------------------------------
// What to do where an animation's stated length runs past its keys (Cal3D DURATION after the last
// key, docs/cal3d.md §4.4, §5 step 5). Clamp: a key at stated_duration equal to the track's last key
// (IMVU holds). Extrapolate: a key at stated_duration continued from the track's last two keys
// (upstream Cal3D): translations, scales and morph weights linearly, rotations by the last
// relative rotation raised to the same fraction (the great-circle extension of Cal3D's slerp);
// STEP tracks and single-key tracks hold. None: the keys stay as they are.
enum class ClipEnd : uint8_t { Clamp, Extrapolate, None };
const char* to_string(ClipEnd mode);
// For every key-based animation with stated_duration past its last key: each joint and morph
// weight track ending before stated_duration gets the key above (mode Clamp or Extrapolate), and
// scene.warnings one warning per such animation naming the gap; None changes nothing (validate_scene
// reports the gap as anim.ends-before-duration). Returns the number of keys added.
uint64_t apply_clip_end(Scene& scene, ClipEnd mode);

// ---- welding (src/process/weld.cpp) -------------------------------------------------------
// Merges vertices of a mesh whose every attribute (position, normal, tangent, texcoords, colors,
// influences, custom values, morph deltas, lod and spring weights) is bit-for-bit equal (so -0
// and +0 stay apart and no stored value changes); first occurrence wins the index.
void weld_vertices(Scene& scene);

// ---- degenerate triangles (src/process/degenerate.cpp) ------------------------------------
// A triangle is degenerate when two of its corners are the same vertex or lie at the same
// position (equal floats; -0 == +0): it has no area and no edge of its own. Collinear corners at
// distinct positions are kept (exact zero area there depends on rounding). compile() drops them
// from every input, whatever the output; a mesh with level-of-detail data keeps them (its
// collapse counts number its faces). Vertices stay. Returns the number dropped.
bool is_degenerate(const Mesh& mesh, const Triangle& triangle);
uint64_t drop_degenerate_triangles(Scene& scene);

// ---- vertex cache order (src/process/optimize.cpp) ----------------------------------------
// Orders triangles for the post-transform vertex cache (meshoptimizer) and renumbers vertices
// in first-use order; vertices no triangle uses are kept after the used ones, in their old order
// (springs and LOD data may name them). Degenerate triangles are kept: dropping them is
// drop_degenerate_triangles's job.
void optimize_vertex_cache(Scene& scene);

// ---- tangents (src/process/tangents.cpp) --------------------------------------------------
// Per-vertex tangents with handedness for meshes that have normals and texcoords but no
// tangents: area-weighted per-triangle u/v directions, Gram-Schmidt against the normal,
// w = (n x t) . b < 0 ? -1 : +1 (docs/iqm.md §3.2 step 7).
void generate_tangents(Scene& scene);

// ---- influence limits (src/process/limit_weights.cpp) -------------------------------------
// Keeps the `max_influences` heaviest influences per vertex (ties keep their order), drops
// weights <= min_weight, and renormalizes the rest to sum 1.
void limit_weights(Scene& scene, uint32_t max_influences = 4, float min_weight = 0.0f);

// ---- vertex frames (src/process/bake_frames.cpp, docs/formats.md "Vertex animation") ---------
// What a vertex-animation writer (MD2, MD3, Quake MDL) stores: every mesh's vertices at each frame.
struct BakedFrame {
    std::string name;                          // the clip's name and the frame's number from 1: "run3"
    std::vector<std::vector<Vec3>> positions;  // per mesh, per vertex
    std::vector<std::vector<Vec3>> normals;    // per mesh, per vertex, unit length (zero where undefined)
};
// The frames of one animation: frames[first .. first + count).
struct BakedClip {
    std::string name;
    float frame_rate = 0.0f;
    uint32_t first = 0, count = 0;
    bool loop = false;
};
struct BakedFrames {
    std::vector<BakedFrame> frames;
    std::vector<BakedClip> clips;
};
struct BakeOptions {
    float frame_rate = 0.0f;           // frames per second of every clip; 0 = each clip's sampling_rate
    uint64_t max_frames = 1ull << 16;  // refused beyond (LimitExceeded) before any frame is made
    uint64_t max_values = 1ull << 28;  // frames x vertices, likewise
};
// Every animation sampled into frames (sampling_rate or options.frame_rate over [0, duration],
// as sampled_frame_count): the morph weights applied, then the skin (positions by the weighted
// skinning matrices, normals by their linear part, renormalised; a mesh without normals gets
// area-weighted face normals of each frame). A scene without animations gives one frame, the bind
// pose with the default morph weights, in a clip named "base".
Expected<BakedFrames> bake_frames(const Scene& scene, const BakeOptions& options = {});

}  // namespace rigport
