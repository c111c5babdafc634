// Quaternion arithmetic in double precision, the one place for it: every reader, writer and
// transform that chains rotations uses these (float error must not accumulate). Components
// x y z w, as in the scene; matrices are [row][col].
#pragma once

#include <algorithm>
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

// The rotation matrix of a unit quaternion, m[row][col].
inline void to_matrix(const D4& q, double m[3][3]) {
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] = r[i][j];
}

// The quaternion of a proper rotation matrix r[row][col] (Shepperd's method: the largest of the
// trace and the diagonal picks the stable formula); not renormalized.
inline D4 from_matrix(const double r[3][3]) {
    const double trace = r[0][0] + r[1][1] + r[2][2];
    if (trace > 0) {
        const double s = std::sqrt(trace + 1.0) * 2;
        return {(r[2][1] - r[1][2]) / s, (r[0][2] - r[2][0]) / s, (r[1][0] - r[0][1]) / s, 0.25 * s};
    }
    if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        const double s = std::sqrt(std::max(0.0, 1.0 + r[0][0] - r[1][1] - r[2][2])) * 2;
        return {0.25 * s, (r[0][1] + r[1][0]) / s, (r[0][2] + r[2][0]) / s, (r[2][1] - r[1][2]) / s};
    }
    if (r[1][1] > r[2][2]) {
        const double s = std::sqrt(std::max(0.0, 1.0 + r[1][1] - r[0][0] - r[2][2])) * 2;
        return {(r[0][1] + r[1][0]) / s, 0.25 * s, (r[1][2] + r[2][1]) / s, (r[0][2] - r[2][0]) / s};
    }
    const double s = std::sqrt(std::max(0.0, 1.0 + r[2][2] - r[0][0] - r[1][1])) * 2;
    return {(r[0][2] + r[2][0]) / s, (r[1][2] + r[2][1]) / s, 0.25 * s, (r[1][0] - r[0][1]) / s};
}

// The rotation by `angle` radians about the unit `axis`.
inline D4 axis_angle(const D3& axis, double angle) {
    const double s = std::sin(angle / 2);
    return {axis[0] * s, axis[1] * s, axis[2] * s, std::cos(angle / 2)};
}

// From a (w = 1 - t) to b (t = 1) on the shorter arc, renormalized; linear where they nearly agree.
inline D4 slerp(const D4& a, D4 b, double t) {
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0) {
        for (double& c : b) c = -c;
        dot = -dot;
    }
    double ka = 1 - t, kb = t;
    if (dot < 1 - 1e-12) {
        const double angle = std::acos(std::min(dot, 1.0)), s = std::sin(angle);
        ka = std::sin((1 - t) * angle) / s;
        kb = std::sin(t * angle) / s;
    }
    D4 q;
    double n = 0;
    for (size_t i = 0; i < 4; ++i) n += (q[i] = ka * a[i] + kb * b[i]) * q[i];
    n = std::sqrt(n);
    for (double& c : q) c /= n;
    return q;
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
