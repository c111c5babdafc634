// FBX's node transform rule (docs/fbx.md §2.2).
#include "formats/fbx/fbx_transform.hpp"

#include <cmath>
#include <numbers>

namespace rigport::fbx {

namespace {

// The matrices here are affine (bottom row 0 0 0 1). These helpers give the same sums in the same
// order as rigport::multiply (its products with the bottom row's exact zeros and one left out),
// so the results are the same to the bit, at a third of the work; identity factors (zero angles,
// offsets and pivots, unit scales) are skipped, which is exact as well.
constexpr Mat4 identity{{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};

Mat4 multiply_affine(const Mat4& a, const Mat4& b) {
    Mat4 r = identity;
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) r[col][row] = a[0][row] * b[col][0] + a[1][row] * b[col][1] + a[2][row] * b[col][2];
    for (int row = 0; row < 3; ++row) r[3][row] = a[0][row] * b[3][0] + a[1][row] * b[3][1] + a[2][row] * b[3][2] + a[3][row];
    return r;
}

bool is_zero(const D3& v) { return v[0] == 0 && v[1] == 0 && v[2] == 0; }

Mat4 translation_matrix(const D3& v) {
    Mat4 m = identity;
    m[3] = {v[0], v[1], v[2], 1};
    return m;
}

Mat4 scaling_matrix(const D3& v) {
    Mat4 m = identity;
    for (int k = 0; k < 3; ++k) m[k][k] = v[k];
    return m;
}

Mat4 axis_rotation(int axis, double degrees) {
    const double a = degrees * std::numbers::pi / 180.0, c = std::cos(a), s = std::sin(a);
    Mat4 m = identity;
    const int i = (axis + 1) % 3, j = (axis + 2) % 3;
    m[i][i] = c;
    m[i][j] = s;
    m[j][i] = -s;
    m[j][j] = c;
    return m;
}

// m * T(v), skipped when v is zero.
void then_translate(Mat4& m, const D3& v) {
    if (!is_zero(v)) m = multiply_affine(m, translation_matrix(v));
}

D3 negate(const D3& v) { return {-v[0], -v[1], -v[2]}; }

D3 times(const D3& a, const D3& b) { return {a[0] * b[0], a[1] * b[1], a[2] * b[2]}; }

}  // namespace

NodeTransform node_transform(const Object& model) {
    NodeTransform t;
    t.translation = property_vec3(model, "Lcl Translation", {0, 0, 0});
    t.rotation = property_vec3(model, "Lcl Rotation", {0, 0, 0});
    t.scaling = property_vec3(model, "Lcl Scaling", {1, 1, 1});
    t.rotation_offset = property_vec3(model, "RotationOffset", {0, 0, 0});
    t.rotation_pivot = property_vec3(model, "RotationPivot", {0, 0, 0});
    t.scaling_offset = property_vec3(model, "ScalingOffset", {0, 0, 0});
    t.scaling_pivot = property_vec3(model, "ScalingPivot", {0, 0, 0});
    if (property_number(model, "RotationActive", 0) != 0) {
        t.pre_rotation = property_vec3(model, "PreRotation", {0, 0, 0});
        t.post_rotation = property_vec3(model, "PostRotation", {0, 0, 0});
        const double order = property_number(model, "RotationOrder", 0);
        t.rotation_order = order >= 0 && order <= 5 ? int(order) : 0;  // 6 = spheric: read as XYZ
    }
    const double inherit = property_number(model, "InheritType", 1);  // without a value or template: RSrs
    t.inherit_type = inherit == 0 || inherit == 2 ? int(inherit) : 1;
    t.geometric_translation = property_vec3(model, "GeometricTranslation", {0, 0, 0});
    t.geometric_rotation = property_vec3(model, "GeometricRotation", {0, 0, 0});
    t.geometric_scaling = property_vec3(model, "GeometricScaling", {1, 1, 1});
    return t;
}

Mat4 euler_matrix(const D3& degrees, int order) {
    // The axes in the order they apply; the matrix is last * middle * first.
    static constexpr int axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}};
    const int* a = axes[order >= 0 && order < 6 ? order : 0];
    Mat4 m = identity;
    bool turned = false;
    for (int k = 0; k < 3; ++k) {  // m = R(a[k]) * m: last * (middle * first)
        if (degrees[a[k]] == 0) continue;
        m = turned ? multiply_affine(axis_rotation(a[k], degrees[a[k]]), m) : axis_rotation(a[k], degrees[a[k]]);
        turned = true;
    }
    return m;
}

Mat4 rotation_part(const NodeTransform& t) {
    Mat4 r = t.rotation_matrix ? *t.rotation_matrix : euler_matrix(t.rotation, t.rotation_order);
    if (!is_zero(t.post_rotation)) r = multiply_affine(r, inverse_affine(euler_matrix(t.post_rotation, 0)));
    if (!is_zero(t.pre_rotation)) r = multiply_affine(euler_matrix(t.pre_rotation, 0), r);
    return r;
}

Mat4 local_matrix(const NodeTransform& t) { return local_matrix(t, rotation_part(t)); }

Mat4 local_matrix(const NodeTransform& t, const Mat4& rotation) {
    Mat4 m = translation_matrix(t.translation);
    then_translate(m, t.rotation_offset);
    then_translate(m, t.rotation_pivot);
    m = multiply_affine(m, rotation);
    then_translate(m, negate(t.rotation_pivot));
    then_translate(m, t.scaling_offset);
    then_translate(m, t.scaling_pivot);
    if (t.scaling != D3{1, 1, 1}) m = multiply_affine(m, scaling_matrix(t.scaling));
    then_translate(m, negate(t.scaling_pivot));
    return m;
}

Mat4 geometric_matrix(const NodeTransform& t) {
    return multiply_affine(translation_matrix(t.geometric_translation),
                           multiply_affine(euler_matrix(t.geometric_rotation, 0), scaling_matrix(t.geometric_scaling)));
}

Placement place(const NodeTransform& t, const Mat4& local, const Placement* parent) { return place(t, local, rotation_part(t), parent); }

Placement place(const NodeTransform& t, const Mat4& local, const Mat4& rotation, const Placement* parent) {
    static const Placement root;
    const Placement& p = parent ? *parent : root;
    // The local matrix is T(translation) * rotation * S(scaling): every pivot and offset ends
    // in its translation column, the pre / post rotations in its rotation.
    const D3 at{local[3][0], local[3][1], local[3][2]};
    Placement out;
    out.inherit_scale = t.scaling;
    if (t.inherit_type == 1 || !parent) {  // RSrs, and any root: plain composition
        out.world = multiply_affine(p.world, local);
        out.unscaled = multiply_affine(p.world, multiply_affine(translation_matrix(at), rotation));
        return out;
    }
    out.unscaled = multiply_affine(p.unscaled, multiply_affine(translation_matrix(times(at, p.inherit_scale)), rotation));
    if (t.inherit_type == 2) {  // Rrs: the parent's own scaling left out
        out.inherit_scale = times(t.scaling, p.ignored_scale);
        out.ignored_scale = p.ignored_scale;
        out.world = multiply_affine(out.unscaled, scaling_matrix(out.inherit_scale));
    } else {  // RrSs: scales multiply axis by axis
        out.inherit_scale = times(t.scaling, p.inherit_scale);
        out.ignored_scale = p.inherit_scale;
        out.world = multiply_affine(out.unscaled, scaling_matrix(out.inherit_scale));
    }
    return out;
}

}  // namespace rigport::fbx
