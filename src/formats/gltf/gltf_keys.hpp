// Animation keys thinned for compressed glTF output (docs/gltf.md "Compressed output").
#pragma once

#include <cstdint>
#include <vector>

namespace rigport::gltf {

enum class KeyKind : uint8_t { Vector, Rotation };

// Drops every key that the kept keys around it reproduce within `tolerance` (glTF's LINEAR: lerp,
// or slerp for rotations; STEP: the previous kept value), greedily from the first key: a key is
// dropped only when every dropped key between its kept neighbours stays within the bound at its
// own time. Vector: largest component difference; Rotation: the angle between the quaternions, in
// radians. The first and last keys are always kept, so the clip keeps its length. Returns how many
// keys were dropped. Times must rise strictly; values hold `width` floats per key.
uint32_t thin_keys(std::vector<float>& times, std::vector<float>& values, uint32_t width, KeyKind kind, bool step,
                   double tolerance);

// One track of several that share their key times.
struct KeyTrack {
    std::vector<float>* values = nullptr;
    uint32_t width = 0;
    KeyKind kind = KeyKind::Vector;
    bool step = false;
    double tolerance = 0;
};
// The same for tracks sharing `times`: a key time is dropped only where every track may drop its
// key, so the tracks keep sharing one times array (one input accessor). Returns the keys dropped
// per track.
uint32_t thin_shared_keys(std::vector<float>& times, std::vector<KeyTrack>& tracks);

}  // namespace rigport::gltf
