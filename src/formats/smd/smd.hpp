// Valve Studiomdl Data (SMD, "version 1"): a reference SMD (nodes, the bind pose as skeleton
// time 0, triangles with per-corner bone links), an animation SMD (skeleton time blocks, no
// triangles) and a .vta (vertexanimation: flex shapes). docs/smd.md holds the layout and the
// conventions chosen here.
#pragma once

#include <array>
#include <cmath>
#include <span>
#include <string>

#include "rigport/error.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::smd {

constexpr int version = 1;
// Source's studiomdl default for a $sequence without "fps" (and GoldSrc's): SMD stores no rate.
constexpr float frame_rate = 30.0f;

// A rotation stored as Euler radians (x y z) is R = Rz(z)·Ry(y)·Rx(x) (docs/smd.md "Rotations":
// Source's AngleQuaternion, the reference compiler's Quat::fromangles and assimp agree).
inline std::array<double, 4> euler_to_quat(double x, double y, double z) {
    const double cx = std::cos(x / 2), sx = std::sin(x / 2), cy = std::cos(y / 2), sy = std::sin(y / 2);
    const double cz = std::cos(z / 2), sz = std::sin(z / 2);
    return {sx * cy * cz - cx * sy * sz, cx * sy * cz + sx * cy * sz, cx * cy * sz - sx * sy * cz, cx * cy * cz + sx * sy * sz};
}

// The inverse: the (x y z) radians of a unit quaternion, y in [-pi/2, pi/2]; at y = ±pi/2 (gimbal
// lock) z is 0 and x carries the rest.
inline std::array<double, 3> quat_to_euler(const std::array<double, 4>& q) {
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r20 = 2 * (x * z - y * w), r21 = 2 * (y * z + x * w), r22 = 1 - 2 * (x * x + y * y);
    const double r10 = 2 * (x * y + z * w), r00 = 1 - 2 * (y * y + z * z);
    const double s = std::fmax(-1.0, std::fmin(1.0, -r20));
    if (std::fabs(s) > 1 - 1e-12) {
        const double r12 = 2 * (y * z - x * w), r11 = 1 - 2 * (x * x + z * z);
        return {std::atan2(-r12, r11), std::asin(s), 0.0};
    }
    return {std::atan2(r21, r22), std::asin(s), std::atan2(r10, r00)};
}

// "version" and a number as the first line that is not blank or a comment.
bool detect(std::span<const uint8_t> bytes);
// A reference SMD, an animation SMD or a .vta, told apart by their sections.
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);
// A reference SMD with one <stem>_<animation>.smd side file per animation.
Expected<Output> write(const Scene& scene, const std::string& path, const SaveOptions& options);
// A studiomdl .qc's model: the files of its $body, $model and $bodygroup lines (meshes) and of its
// $sequence and $animation lines (animations, with every later word that could name a file).
ModelList read_qc(std::span<const uint8_t> bytes);
// A .qc's $sequence and $animation lines: the name, the files named (".smd" added as studiomdl
// adds it), `fps N` (0 when not given) and `loop`.
struct QcSequence {
    std::string name;
    std::vector<std::string> files;
    float fps = 0;
    bool loop = false;
};
std::vector<QcSequence> read_qc_sequences(std::span<const uint8_t> bytes);
// An animation SMD read alone names its animation as the .qc beside it does (docs/smd.md "A .qc
// beside the SMDs"): the .qc is looked for by the SMD's own name (LoadOptions::source_name) cut
// at each '_' from the right ("man_walk.smd" -> "man.qc", as the writer names them), read through
// LoadOptions::read_resource; the $sequence naming this file gives the name, fps and loop.
void apply_qc_sequence(Animation& anim, const LoadOptions& options);

}  // namespace rigport::smd
