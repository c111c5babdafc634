# Turns Blender-style forward/up axis choices into rigport's --rotate angles in glTF (Y-up) space.
from bpy_extras.io_utils import axis_conversion
from mathutils import Matrix
import math

# Blender (Z-up) to glTF (Y-up): (x, y, z) -> (x, z, -y), the glTF exporter's convention.
_TO_GLTF = Matrix(((1, 0, 0), (0, 0, 1), (0, -1, 0)))


def rotate_arg(matrix):
    """rigport's --rotate value (Euler X,Y,Z degrees, X applied first) for a Blender-space
    rotation MATRIX, applied to the glTF data rigport reads or writes; None for identity."""
    in_gltf = _TO_GLTF @ matrix.to_3x3() @ _TO_GLTF.inverted()
    angles = [math.degrees(a) for a in in_gltf.to_euler("XYZ")]
    if all(abs(a) < 1e-9 for a in angles):
        return None
    return ",".join(f"{a:.9g}" for a in angles)


def import_rotate(axis_forward, axis_up):
    """Source axes -> Blender's Y forward, Z up (the default 'Y','Z' changes nothing)."""
    return rotate_arg(axis_conversion(from_forward=axis_forward, from_up=axis_up))


def export_rotate(axis_forward, axis_up):
    """Blender's Y forward, Z up -> the target axes."""
    return rotate_arg(axis_conversion(to_forward=axis_forward, to_up=axis_up))
