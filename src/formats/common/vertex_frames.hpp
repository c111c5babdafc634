// Vertex-animated models (MD2, MD3, Quake MDL) as a scene: frame 0 is the mesh, every later frame
// a morph target of it, and each run of frames with one name prefix an animation whose weight
// track selects one frame per key (docs/formats.md "Vertex animation").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/process.hpp"
#include "rigport/scene.hpp"

namespace rigport::detail {

// A run of consecutive frames that share a name prefix: an animation.
struct FrameGroup {
    std::string name;
    uint32_t first = 0;
    uint32_t count = 0;
};

// The name without its trailing frame number: "run12" -> "run", "pain_a03" -> "pain_a", "death" ->
// "death". A name of digits only keeps them (it has no other prefix).
std::string_view frame_name_prefix(std::string_view name);

// Consecutive frames with equal prefixes form one group; a prefix that comes back later starts a
// new group named "<prefix>_2" (then _3 ...), so names stay unique. Names are cut at the first NUL.
std::vector<FrameGroup> group_frames_by_name(const std::vector<std::string>& frame_names);

// Gives the mesh one morph target per frame after the first: positions[f] (and normals[f], when
// normals is not empty) minus the mesh's own positions and normals, which are frame 0's. Each
// span holds frame_names.size() frames of mesh.vertex_count() values.
void add_frame_targets(Mesh& mesh, const std::vector<std::string>& frame_names, std::span<const std::vector<Vec3>> positions,
                       std::span<const std::vector<Vec3>> normals);

// One animation per group, keyed at frame / frame_rate: every mesh with frame_count - 1 morph
// targets (add_frame_targets) gets a linear weight track with one key per frame of the group,
// weight 1 on that frame's target (none for frame 0), so players blend between neighbours as the
// Quake engines do.
void add_frame_animations(Scene& scene, const std::vector<FrameGroup>& groups, uint32_t frame_count, float frame_rate);

// "<clip><number>" in at most `room` bytes, for a writer's fixed name field: the clip's name is
// shortened (by the same amount for all of its `count` frames) and the frame number kept, so the
// frames still group by name when read; `truncated` is set when a name was shortened.
std::string numbered_frame_name(const std::string& clip, uint32_t number, uint32_t count, size_t room, bool& truncated);

// The scene baked into frames at frame_rate (bake_frames), at most max_frames of them; more is
// refused as Unsupported naming the engine's limit, e.g. engine "Quake 2", per "MD2", limit
// "MAX_FRAMES": "... Quake 2 loads at most 512 per MD2 (MAX_FRAMES)".
Expected<BakedFrames> bake_within_frame_limit(const Scene& scene, float frame_rate, uint32_t max_frames, std::string_view engine,
                                              std::string_view per, std::string_view limit);

}  // namespace rigport::detail
