// The 162-entry normal table of Quake 1 MDL and Quake 2 MD2 vertices (docs/md2.md "Normals").
#pragma once

#include <array>
#include <cstdint>

#include "rigport/scene.hpp"

namespace rigport::detail {

inline constexpr uint32_t quake_normal_count = 162;

// The unit vectors a vertex's normal index selects (anorms.h); quake_normals.cpp.
extern const std::array<Vec3, quake_normal_count> quake_normal_table;
// The table entry nearest to n (largest dot product); 0 for a zero or non-finite n.
uint8_t nearest_quake_normal(const Vec3& n);

}  // namespace rigport::detail
