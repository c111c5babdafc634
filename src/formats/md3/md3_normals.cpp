// MD3 normals as two bytes of angles (docs/md3.md "Normals").
#include <algorithm>
#include <cmath>
#include <numbers>

#include "formats/md3/md3.hpp"

namespace rigport::md3 {

namespace {

constexpr double step = 2 * std::numbers::pi / 256;  // one code step, in radians

double dot_with(uint16_t packed, double x, double y, double z) {
    const Vec3 d = decode_normal(packed);
    return d[0] * x + d[1] * y + d[2] * z;
}

}  // namespace

Vec3 decode_normal(uint16_t packed) {
    const double around = double((packed >> 8) & 0xff) * step;  // about Z, from +X towards +Y
    const double down = double(packed & 0xff) * step;           // from +Z
    return {float(std::cos(around) * std::sin(down)), float(std::sin(around) * std::sin(down)), float(std::cos(down))};
}

uint16_t encode_normal(const Vec3& n) {
    const double len = std::sqrt(double(n[0]) * n[0] + double(n[1]) * n[1] + double(n[2]) * n[2]);
    if (!(len > 0) || !std::isfinite(len)) return 0;
    const double x = n[0] / len, y = n[1] / len, z = n[2] / len;
    const double around = std::atan2(y, x);
    const double down = std::acos(std::clamp(z, -1.0, 1.0));
    const long a0 = std::lround(around / step), d0 = std::lround(down / step);
    // The rounded angles first, then their neighbours: keep the code whose direction is nearest
    // (on a tie the first, so +Z is code 0 and -Z code 128, as Quake 3 writes them).
    uint16_t best = 0;
    double best_dot = -2;
    for (long da : {0L, -1L, 1L})
        for (long dd : {0L, -1L, 1L}) {
            const long d = d0 + dd;
            if (d < 0 || d > 128) continue;
            const uint16_t code = uint16_t((uint16_t((a0 + da) & 0xff) << 8) | uint16_t(d));
            const double dot = dot_with(code, x, y, z);
            if (dot > best_dot) best_dot = dot, best = code;
        }
    return best;
}

}  // namespace rigport::md3
