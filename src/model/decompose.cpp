// An affine matrix as translate, rotate, scale (the closest rotation when it holds a shear).
#include "model/decompose.hpp"

#include <cmath>

#include "model/quatd.hpp"

namespace rigport {

namespace {

using D3 = std::array<double, 3>;

double dot(const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
D3 cross(const D3& a, const D3& b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }

// A rotation matrix (columns r[0..2]) as a unit quaternion x y z w.
Quat to_quaternion(const D3 r[3]) {
    const double rows[3][3] = {{r[0][0], r[1][0], r[2][0]}, {r[0][1], r[1][1], r[2][1]}, {r[0][2], r[1][2], r[2][2]}};
    const quatd::D4 q = quatd::unit(quatd::from_matrix(rows));
    return Quat{float(q[0]), float(q[1]), float(q[2]), float(q[3])};
}

}  // namespace

Transform decompose(const Mat4& m, bool& sheared) {
    Transform t;
    t.translate = {float(m[3][0]), float(m[3][1]), float(m[3][2])};
    D3 c[3] = {{m[0][0], m[0][1], m[0][2]}, {m[1][0], m[1][1], m[1][2]}, {m[2][0], m[2][1], m[2][2]}};
    double s[3] = {std::sqrt(dot(c[0], c[0])), std::sqrt(dot(c[1], c[1])), std::sqrt(dot(c[2], c[2]))};
    sheared = false;
    if (!(s[0] > 0 && s[1] > 0 && s[2] > 0)) {  // degenerate: no rotation can be told
        t.scale = {float(s[0]), float(s[1]), float(s[2])};
        return t;
    }
    if (dot(c[0], cross(c[1], c[2])) < 0) s[0] = -s[0];  // a mirror: one negative scale
    for (int k = 0; k < 3; ++k)
        for (auto& v : c[k]) v /= s[k];
    sheared = std::fabs(dot(c[0], c[1])) > 1e-4 || std::fabs(dot(c[0], c[2])) > 1e-4 || std::fabs(dot(c[1], c[2])) > 1e-4;
    t.rotate = to_quaternion(c);
    t.scale = {float(s[0]), float(s[1]), float(s[2])};
    return t;
}

}  // namespace rigport
