// Doom 3 / idTech 4 MD5 (MD5Version 10): .md5mesh (joints in object space, meshes skinned by
// weights in joint space) and .md5anim (hierarchy, bounds, baseframe, frames of flagged
// components). docs/md5.md holds the layout and the conventions chosen here.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::md5 {

constexpr int version = 10;
// The hierarchy's flags: which of Tx Ty Tz Qx Qy Qz a frame stores, in this order.
enum : uint32_t { TX = 1, TY = 2, TZ = 4, QX = 8, QY = 16, QZ = 32, ALL_COMPONENTS = 63 };
// idTech 4's exporters and the reference compiler weight a vertex by at most this many joints
// in practice; the writer keeps the heaviest four (FormatInfo::max_influences).
constexpr uint32_t max_weights_per_vertex = 4;

// The standard quaternion of a stored (x, y, z): w = -sqrt(max(0, 1 - x² - y² - z²)) (docs/md5.md
// "Quaternions": idTech 4 stores w >= 0 for its row-vector matrices, which is this rotation).
inline std::array<double, 4> restore_w(double x, double y, double z) {
    return {x, y, z, -std::sqrt(std::max(0.0, 1.0 - (x * x + y * y + z * z)))};
}

// "MD5Version" as the first word (after blanks and comments).
bool detect(std::span<const uint8_t> bytes);
// An .md5mesh or an .md5anim, told apart by their keywords. Normals are computed (MD5 has none).
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);
// path ending in .md5anim: the first animation there, the others beside it; else an .md5mesh
// with one <stem>_<animation>.md5anim side file per animation.
Expected<Output> write(const Scene& scene, const std::string& path, const SaveOptions& options);

}  // namespace rigport::md5
