// FBX's node transform rule (docs/fbx.md §2.2, the FBX SDK's FbxNode documentation):
// local = T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1, and the geometric
// transform Tg * Rg * Sg that moves a node's geometry only.
#pragma once

#include <array>
#include <optional>

#include "formats/fbx/fbx_objects.hpp"
#include "rigport/anim.hpp"

namespace rigport::fbx {

using D3 = std::array<double, 3>;

struct NodeTransform {
    D3 translation{}, rotation{}, scaling{1, 1, 1};                // Lcl Translation / Rotation / Scaling
    D3 rotation_offset{}, rotation_pivot{}, scaling_offset{}, scaling_pivot{};
    D3 pre_rotation{}, post_rotation{};                             // degrees, XYZ order
    int rotation_order = 0;                                         // 0 XYZ, 1 XZY, 2 YZX, 3 YXZ, 4 ZXY, 5 ZYX
    int inherit_type = 1;                                           // 0 RrSs, 1 RSrs, 2 Rrs
    D3 geometric_translation{}, geometric_rotation{}, geometric_scaling{1, 1, 1};
    std::optional<Mat4> rotation_matrix;                            // in place of `rotation` (layers composed it)
};

// A Model's transform properties (its own, else its template's, else FBX's defaults). With
// RotationActive off, pre/post rotation and the rotation order do not apply (as Blender reads it).
NodeTransform node_transform(const Object& model);

// Euler angles in degrees applied in `order` (XYZ: X first) as a matrix.
Mat4 euler_matrix(const D3& degrees, int order);
// Rpre * R * Rpost^-1: the rotation of the local matrix.
Mat4 rotation_part(const NodeTransform& t);
Mat4 local_matrix(const NodeTransform& t);
// The same with its rotation part given (computed once for local_matrix and place).
Mat4 local_matrix(const NodeTransform& t, const Mat4& rotation);
Mat4 geometric_matrix(const NodeTransform& t);

// A model's place in the world under its parent's, by its InheritType (docs/fbx.md §2.2; the
// reading ufbx gives the three types): RSrs composes matrices (world = parent * local); Rrs
// ignores the parent's own scaling (Maya's segment scale compensate); RrSs scales the child's
// axes by the parent's scales component by component, after the child's rotation. Translations
// are scaled by the parent's scaling in every type.
struct Placement {
    Mat4 world = identity_matrix();
    Mat4 unscaled = identity_matrix();  // world without the scaling the node passes on
    D3 inherit_scale{1, 1, 1};          // the scaling an RrSs / Rrs child sees from this node
    D3 ignored_scale{1, 1, 1};          // the scaling an Rrs child keeps (its grandparents')
};
Placement place(const NodeTransform& t, const Mat4& local, const Placement* parent);
Placement place(const NodeTransform& t, const Mat4& local, const Mat4& rotation, const Placement* parent);

}  // namespace rigport::fbx
