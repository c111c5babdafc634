// Quaternion arithmetic in double precision for the places that chain rotations and must not
// accumulate float error (Cal3D bind-pose checks and writes, end-of-clip extrapolation).
// Components x y z w, as in the scene.
#pragma once

#include <array>
#include <cmath>

namespace rigport::quatd {

using D3 = std::array<double, 3>;
using D4 = std::array<double, 4>;

// Hamilton product a ⊗ b.
inline D4 mul(const D4& a, const D4& b) {
    return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

inline D4 conj(const D4& q) { return {-q[0], -q[1], -q[2], q[3]}; }

// q·v·q*: v rotated by the unit quaternion q.
inline D3 rotate(const D4& q, const D3& v) {
    const D4 r = mul(mul(q, {v[0], v[1], v[2], 0}), conj(q));
    return {r[0], r[1], r[2]};
}

// q / |q|; a zero or non-finite q gives the identity.
template <class Q>
D4 unit(const Q& q) {
    D4 d{double(q[0]), double(q[1]), double(q[2]), double(q[3])};
    const double n = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
    if (!(n > 0) || !std::isfinite(n)) return {0, 0, 0, 1};
    for (double& c : d) c /= n;
    return d;
}

}  // namespace rigport::quatd
