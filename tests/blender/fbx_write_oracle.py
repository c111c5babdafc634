# Blender's own FBX importer on the files rigport's FBX writer wrote (tests/formats/fbx/test_fbx_blender.cpp
# FbxBlender.ImportsWrittenFilesAsRigportPosesThem): several files in one Blender run, each imported
# into an empty scene; for each, its armatures and their bones, the actions and their frame ranges,
# and the world-space positions of every mesh's evaluated vertices at the asked poses, as JSON.
#   blender -b --factory-startup --python-exit-code 1 -P fbx_write_oracle.py -- REQUEST.json OUT.json
# REQUEST: [{"file": PATH, "stacks": [NAME, ...],
#            "poses": [{"stack": NAME or null (no action: the rest pose), "time": SECONDS}, ...]}, ...]
# OUT: [{"file", "fps", "armatures": [{"name", "bones": [NAME, ...]}], "actions": [NAME, ...],
#        "stacks": [{"name", "action": NAME or null, "start", "end"}] (each asked stack's action of
#        the first armature and its frame range, in frames of "fps"),
#        "positions": [[[x, y, z], ...] per pose]}, ...]
# Shape key values: 0 at rest and under a stack without an action of the mesh's shape keys (the
# importer sets a channel's DeformPercent as the value, but once the shape keys have an action it
# drives them under every stack: Blender keeps no weight outside an action).
import json
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
request_path, out_path = argv
files = json.load(open(request_path))


def action_for(owner, stack):
    """Blender names a stack's action OWNER|STACK (or OWNER|STACK|LAYER, without spaces in some
    versions), cut to 63 bytes: the one whose name starts so, or is such a name cut."""
    for prefix in (f"{owner.name}|{stack}", f"{owner.name}|{stack.replace(' ', '')}"):
        for a in bpy.data.actions:
            if a.name == prefix or a.name.startswith(prefix + "|"):
                return a
            if len(a.name.encode()) >= 63 and (prefix + "|").startswith(a.name):
                return a
    return None


def read(entry):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    # anim_offset 0: keys at the file's own times (Blender's default moves them one frame later).
    bpy.ops.import_scene.fbx(filepath=entry["file"], use_anim=True, anim_offset=0.0)
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    armatures = [o for o in scene.objects if o.type == 'ARMATURE']
    meshes = [o for o in scene.objects if o.type == 'MESH']
    out = {
        "file": entry["file"],
        "fps": fps,
        "armatures": [{"name": a.name, "bones": [b.name for b in a.data.bones]} for a in armatures],
        "actions": [a.name for a in bpy.data.actions],
        "stacks": [],
        "positions": [],
    }
    for stack in entry["stacks"]:
        a = action_for(armatures[0], stack) if armatures else None
        out["stacks"].append({"name": stack, "action": a.name if a else None,
                              "start": a.frame_range[0] if a else 0, "end": a.frame_range[1] if a else 0})
    for req in entry["poses"]:
        for arm in armatures:
            if arm.animation_data is None:
                arm.animation_data_create()
            # A stack that moves no bone (blend shape weights only) has no action of the armature:
            # the rest pose (the test checks which actions there are).
            action = action_for(arm, req["stack"]) if req["stack"] else None
            arm.animation_data.action = action
            if action is None:
                for bone in arm.pose.bones:  # no action: the rest pose
                    bone.location = (0, 0, 0)
                    bone.rotation_quaternion = (1, 0, 0, 0)
                    bone.rotation_euler = (0, 0, 0)
                    bone.scale = (1, 1, 1)
        for o in meshes:  # blend shape weights: the stack's action on the mesh's shape keys
            keys = o.data.shape_keys
            if keys is None:
                continue
            if keys.animation_data is None:
                keys.animation_data_create()
            action = action_for(keys, req["stack"]) if req["stack"] else None
            keys.animation_data.action = action
            if action is None:
                for kb in keys.key_blocks[1:]:
                    kb.value = 0.0
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
        out["positions"].append(points)
    return out


json.dump([read(entry) for entry in files], open(out_path, "w"))
