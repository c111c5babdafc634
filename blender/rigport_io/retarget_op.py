# Object > Animation > Retarget Clips with rigport: the selected armature (with its meshes) goes
# out through Blender's glTF exporter, rigport retargets the picked clip files onto it
# (docs/retarget.md), and the clips come back as actions of that armature.
import os
import tempfile

import bpy
from bpy.props import CollectionProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ImportHelper

from . import backend, registry
from .import_op import numpy_bool_alias
from .preferences import rigport_path


class ANIM_OT_rigport_retarget(bpy.types.Operator, ImportHelper):
    """Retarget clips from files (Mixamo FBX, MD5, SMD, Cal3D ...) onto the selected armature with rigport"""
    bl_idname = "anim.rigport_retarget"
    bl_label = "Retarget Clips with rigport"
    bl_options = {'REGISTER', 'UNDO'}

    filter_glob: StringProperty(default="*", options={'HIDDEN'})
    # The clip files picked together are one model, as `rigport retarget CLIP...` reads them.
    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={'HIDDEN', 'SKIP_SAVE'})
    directory: StringProperty(subtype='DIR_PATH', options={'HIDDEN', 'SKIP_SAVE'})

    map_file: StringProperty(name="Bone map", subtype='FILE_PATH',
                             description="A JSON map {source joint: target joint} laid over the automatic one; empty: automatic")
    root_motion: EnumProperty(
        name="Root motion",
        items=(('scale', "Scale", "The root's travel times target leg length / source leg length"),
               ('keep', "Keep", "The root's travel as the clip has it"),
               ('in-place', "In place", "The root's travel without its horizontal part")),
        default='scale')
    clip_name: StringProperty(name="Name", description="The retargeted clip's name; empty: the clip's own")

    @classmethod
    def poll(cls, context):
        return context.active_object is not None and context.active_object.type == 'ARMATURE'

    def invoke(self, context, event):
        try:
            pref = rigport_path(context)
            self.filter_glob = registry.import_glob(registry.rows(pref), registry.archives(pref))
        except backend.RigportError:
            self.filter_glob = "*"
        return ImportHelper.invoke(self, context, event)

    def clips(self):
        names = [f.name for f in self.files if f.name]
        if len(names) <= 1:
            return [bpy.path.abspath(self.filepath)]
        # Files that can only be animations go after the one with the skeleton, as for import.
        animation_only = registry.animation_only_extensions(registry.rows(rigport_path(bpy.context)))
        first = os.path.basename(self.filepath)
        names.sort(key=lambda n: (registry.extension_of(n) in animation_only, n != first))
        return [os.path.join(bpy.path.abspath(self.directory), n) for n in names]

    def execute(self, context):
        armature = context.active_object
        pref = rigport_path(context)
        try:
            with tempfile.TemporaryDirectory(prefix="rigport-retarget-") as tmp:
                onto, out = os.path.join(tmp, "onto.glb"), os.path.join(tmp, "retargeted.glb")
                self.export_armature(context, armature, onto)
                for w in backend.retarget(self.clips(), onto, out, pref, map_file=bpy.path.abspath(self.map_file),
                                          root_motion=self.root_motion, name=self.clip_name):
                    self.report({'WARNING'}, w)
                actions = self.import_actions(context, armature, out)
        except (backend.RigportError, OSError, ValueError, RuntimeError) as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        # The armature plays the first clip; every clip is kept on an NLA track of its own name,
        # muted as Blender's stashed actions are, so the clips do not play over one another.
        armature.animation_data_create()
        for action in actions:
            track = armature.animation_data.nla_tracks.new()
            track.name = action.name
            track.strips.new(action.name, int(action.frame_range[0]), action)
            track.mute = True
        if actions:
            armature.animation_data.action = actions[0]
        self.report({'INFO'}, f"{len(actions)} clip(s) retargeted onto {armature.name}")
        return {'FINISHED'}

    def export_armature(self, context, armature, path):
        """The armature and the meshes it deforms, at rest, as rigport's target."""
        bpy.ops.object.select_all(action='DESELECT')
        armature.select_set(True)
        for child in armature.children:
            child.select_set(True)
        result = bpy.ops.export_scene.gltf(filepath=path, export_format='GLB', use_selection=True,
                                           export_animations=False)
        if 'FINISHED' not in result:
            raise RuntimeError(f"Blender's glTF exporter failed on the armature ({result})")

    def import_actions(self, context, armature, path):
        """The retargeted clips as actions of ARMATURE. rigport's output is imported (an armature
        with the same bones, at the same rest positions, but in the orientations Blender's glTF
        importer gives them, which need not be ARMATURE's own); each of its clips is carried over
        bone by bone in world space, W = W_imported(t) · W_imported(rest)^-1 · W(rest), so the
        bones move as rigport's output moves whatever their rolls; the imported objects and their
        actions are then removed."""
        before_actions, before_objects = set(bpy.data.actions), set(bpy.data.objects)
        with numpy_bool_alias():
            result = bpy.ops.import_scene.gltf(filepath=path, guess_original_bind_pose=True)
        if 'FINISHED' not in result:
            raise RuntimeError(f"Blender's glTF importer failed on rigport's output ({result})")
        imported = [a for a in bpy.data.actions if a not in before_actions]
        new_objects = [o for o in bpy.data.objects if o not in before_objects]
        try:
            source = next((o for o in new_objects if o.type == 'ARMATURE'), None)
            if source is None:
                raise RuntimeError("rigport's output has no armature")
            actions = [self.transfer(context, source, armature, action) for action in imported]
        finally:
            for obj in new_objects:
                bpy.data.objects.remove(obj, do_unlink=True)
            for action in imported:
                bpy.data.actions.remove(action)
        return actions

    @staticmethod
    def transfer(context, source, armature, action):
        """ACTION (keyed on SOURCE's bones) as a new action of ARMATURE with keys at the same frames."""
        # Blender's importer names an action "<clip>_<object>": the clip's own name back.
        name = action.name.rsplit("_", 1)[0] if "_" in action.name else action.name
        frames = sorted({round(k.co[0], 4) for fc in action.fcurves for k in fc.keyframe_points})
        bones = [b for b in armature.pose.bones if b.name in source.pose.bones]
        src_world, dst_world = source.matrix_world, armature.matrix_world
        # Rest offsets in world space: how each of ARMATURE's bones sits against SOURCE's.
        offset = {b.name: (src_world @ source.data.bones[b.name].matrix_local).inverted() @ (dst_world @ b.bone.matrix_local)
                  for b in bones}
        out = bpy.data.actions.new(name)
        out.use_fake_user = True  # kept whatever plays it
        source.animation_data_create()
        for track in source.animation_data.nla_tracks:  # only ACTION plays on SOURCE
            track.mute = True
        source.animation_data.action = action
        armature.animation_data_create()
        saved = armature.animation_data.action
        armature.animation_data.action = out
        scene = context.scene
        keep_frame = scene.frame_current, scene.frame_subframe
        previous = {}  # each bone's last quaternion: successive keys on one hemisphere, as rigport's
        for frame in frames:
            scene.frame_set(int(frame // 1), subframe=frame % 1)
            pose = {}  # each bone's wanted armature-space matrix, parents first
            for b in bones:
                world = src_world @ source.pose.bones[b.name].matrix @ offset[b.name]
                pose[b.name] = dst_world.inverted() @ world
            for b in bones:  # parents come before children in pose.bones
                rest = b.bone.matrix_local
                if b.parent is not None and b.parent.name in pose:
                    basis = (pose[b.parent.name] @ b.parent.bone.matrix_local.inverted() @ rest).inverted() @ pose[b.name]
                elif b.parent is not None:
                    basis = (b.parent.matrix @ b.parent.bone.matrix_local.inverted() @ rest).inverted() @ pose[b.name]
                else:
                    basis = rest.inverted() @ pose[b.name]
                loc, rot, scale = basis.decompose()
                if b.name in previous and previous[b.name].dot(rot) < 0:
                    rot.negate()
                previous[b.name] = rot.copy()
                b.rotation_mode = 'QUATERNION'
                b.location, b.rotation_quaternion, b.scale = loc, rot, scale
                for path in ("location", "rotation_quaternion", "scale"):
                    b.keyframe_insert(path, frame=frame, group=b.name)
        for fc in out.fcurves:  # rigport's keys are linear, as glTF's LINEAR
            for k in fc.keyframe_points:
                k.interpolation = 'LINEAR'
        scene.frame_set(keep_frame[0], subframe=keep_frame[1])
        armature.animation_data.action = saved
        return out
