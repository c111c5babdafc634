// Where an animation's keys stop short of its stated length (Cal3D DURATION): shared by
// apply_clip_end (which fills the gap) and validate_scene (which reports it).
#pragma once

#include <cstdint>

#include "rigport/scene.hpp"

namespace rigport::detail {

struct ClipGap {
    uint64_t tracks = 0;        // joint and morph weight tracks with keys
    uint64_t short_tracks = 0;  // of them, those whose last key is before stated_duration
};
// Nothing for a frame-based animation or one without a finite stated_duration.
ClipGap clip_gap(const Animation& animation);

}  // namespace rigport::detail
