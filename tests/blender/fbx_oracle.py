# An independent reading of an FBX file for rigport's tests (tests/formats/fbx/test_fbx_blender.cpp):
# Blender's own FBX importer (binary 7.x) poses the file's armatures at the asked times and the
# world-space positions of every mesh's evaluated vertices are written as JSON.
#   blender -b --factory-startup --python-exit-code 1 -P fbx_oracle.py -- IN.fbx REQUEST.json OUT.json
# REQUEST: [{"stack": NAME or null (no action: the rest pose), "time": SECONDS}, ...]
import json
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
path, request_path, out_path = argv
requests = json.load(open(request_path))

bpy.ops.wm.read_factory_settings(use_empty=True)
# anim_offset 0: keys at the file's own times (Blender's default moves them one frame later).
bpy.ops.import_scene.fbx(filepath=path, use_anim=True, anim_offset=0.0)
scene = bpy.context.scene
fps = scene.render.fps / scene.render.fps_base
armatures = [o for o in scene.objects if o.type == 'ARMATURE']
meshes = [o for o in scene.objects if o.type == 'MESH']

def action_for(arm, stack):
    """Blender names a stack's action OBJECT|STACK, or OBJECT|STACK|LAYER, without spaces in some
    versions: the one action of this armature whose name starts so."""
    for prefix in (f"{arm.name}|{stack}", f"{arm.name}|{stack.replace(' ', '')}"):
        for a in bpy.data.actions:
            if a.name == prefix or a.name.startswith(prefix + "|"):
                return a
    return None


result, used = [], []
for req in requests:
    for arm in armatures:
        if arm.animation_data is None:
            arm.animation_data_create()
        action = action_for(arm, req["stack"]) if req["stack"] else None
        if req["stack"] and action is None:
            sys.exit(f"no action of {arm.name} for stack {req['stack']!r}: {[a.name for a in bpy.data.actions]}")
        arm.animation_data.action = action
        used.append(action.name if action else None)
        if action is None:
            for bone in arm.pose.bones:  # no action: the rest pose
                bone.location = (0, 0, 0)
                bone.rotation_quaternion = (1, 0, 0, 0)
                bone.rotation_euler = (0, 0, 0)
                bone.scale = (1, 1, 1)
    for o in meshes:  # blend shape weights: the stack's action on the mesh's shape keys
        keys = o.data.shape_keys
        if keys is not None and keys.animation_data is not None:
            keys.animation_data.action = action_for(keys, req["stack"]) if req["stack"] else None
    frame = req["time"] * fps
    scene.frame_set(int(frame // 1), subframe=frame % 1)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    points = []
    for o in meshes:
        e = o.evaluated_get(depsgraph)
        m = e.to_mesh()
        w = e.matrix_world
        for v in m.vertices:
            p = w @ v.co
            points.append([p.x, p.y, p.z])
        e.to_mesh_clear()
    result.append(points)
json.dump({"fps": fps, "positions": result, "actions": used}, open(out_path, "w"))
