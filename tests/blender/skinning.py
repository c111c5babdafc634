# The sample's skinned positions at a middle frame, before and after Blender -> IQM -> Blender.
import bpy
import numpy as np
from mathutils import kdtree

from support import animation_tracks, check, meshes


def pose(animation):
    """(rest positions, skinned world positions at the animation's middle frame) of the one mesh,
    evaluated through the depsgraph (armature modifier applied)."""
    track_action = animation_tracks()[animation]
    for arm in (o for o in bpy.data.objects if o.type == 'ARMATURE'):
        arm.animation_data.action = track_action
    keys = [k.co[0] for fc in track_action.fcurves for k in fc.keyframe_points]
    middle = round((min(keys) + max(keys)) / 2)
    bpy.context.scene.frame_set(middle)
    (obj,) = meshes()
    rest = np.array([obj.matrix_world @ v.co for v in obj.data.vertices])
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    posed = np.array([evaluated.matrix_world @ v.co for v in mesh.vertices])
    evaluated.to_mesh_clear()
    return rest, posed, middle


def compare(before, after, label):
    """Match each vertex after the round trip to the original vertex at the same bind-pose position
    (a KD-tree over rest positions: Blender splits vertices along seams, so counts differ, but
    split copies share position and skin), then compare the posed positions.
    Tolerance: 1e-4 of the model's size (bind-pose bounding-box diagonal)."""
    rest0, posed0, frame0 = before
    rest1, posed1, frame1 = after
    check(frame0 == frame1, f"{label}: middle frame {frame1}, original {frame0}")
    size = float(np.linalg.norm(rest0.max(axis=0) - rest0.min(axis=0)))
    tree = kdtree.KDTree(len(rest0))
    for i, p in enumerate(rest0):
        tree.insert(p, i)
    tree.balance()
    worst_rest = worst_posed = 0.0
    for p_rest, p_posed in zip(rest1, posed1):
        _, index, dist = tree.find(p_rest)
        worst_rest = max(worst_rest, dist)
        worst_posed = max(worst_posed, float(np.linalg.norm(p_posed - posed0[index])))
    check(worst_rest <= 1e-4 * size, f"{label}: bind pose within {worst_rest:.3g} (size {size:.3g})")
    check(worst_posed <= 1e-4 * size,
          f"{label}: skinned positions at frame {frame1} within {worst_posed:.3g} "
          f"(limit 1e-4 * size = {1e-4 * size:.3g})")
    # The pose must actually move the mesh, or the comparison would prove nothing.
    moved = float(np.linalg.norm(posed0 - rest0, axis=1).max())
    check(moved > 1e-2 * size, f"{label}: the middle frame moves vertices by up to {moved:.3g}")
