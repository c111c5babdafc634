// Quantised vertex data for compressed glTF output: KHR_mesh_quantization's integer types and
// meshoptimizer's filters (docs/gltf.md "Compressed output").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "rigport/scene.hpp"

namespace rigport::gltf {

// One grid for every position of the model: p = origin + step * q, q an integer of `bits` bits.
// Shared so that one dequantisation serves every mesh of the skin (docs/gltf.md "Compressed output").
struct PositionGrid {
    Vec3 origin{0, 0, 0};
    float step = 1;            // as written (node scale, inverse bind matrices): q is rounded with it
    uint32_t bits = 0;
    double longest_side = 0;   // of the bounding box of every mesh's positions
    uint32_t component_type = 0;  // UNSIGNED_BYTE up to 8 bits, else UNSIGNED_SHORT
    // The largest coordinate error, half a step, as a fraction of the longest side.
    double error_fraction() const { return longest_side > 0 ? 0.5 * step / longest_side : 0; }
};

// The fewest bits whose half step is at most 1/4096 of the longest side: 12.
inline constexpr double default_position_error = 1.0 / 4096;
uint32_t position_bits_for(double error_fraction);

// The grid over the scene's positions; bits 0 = position_bits_for(default_position_error).
PositionGrid plan_position_grid(const Scene& scene, uint32_t bits);

// round((p - origin) / step) per coordinate, 3 per vertex.
std::vector<int64_t> quantize_positions(std::span<const Vec3> positions, const PositionGrid& grid);
// Morph POSITION deltas in grid steps as SHORT integers, or nothing when one does not fit.
std::optional<std::vector<int64_t>> quantize_deltas(std::span<const Vec3> deltas, const PositionGrid& grid);

// A unit vector as normalized BYTE components: of the roundings of each component up or down, the
// one whose length is nearest 1 (then nearest in direction), so readers that check unit length
// (the Khronos validator's ACCESSOR_NON_UNIT) accept it. 3 values per vector.
std::vector<int64_t> quantize_unit_snorm8(std::span<const Vec3> vectors);
// Unit vectors (xyz) and their w through meshopt_encodeFilterOct at 8 bits: 4 bytes each.
std::vector<uint8_t> octahedral_snorm8(std::span<const Vec4> vectors);

// Round-to-nearest normalized unsigned integers of `bits` bits (8 or 16); values must be in [0, 1].
std::vector<int64_t> quantize_unorm(std::span<const float> values, uint32_t bits);
bool all_in_unit_range(std::span<const float> values);

// One vertex's weights (summing to 1) as bytes summing to exactly 255: each rounded down, then the
// units left over go to the largest remainders (heaviest first on ties).
void weights_to_unorm8(std::span<const double> weights, std::span<int64_t> out);

}  // namespace rigport::gltf
