# File > Export through rigport: Blender's own glTF exporter to a temporary GLB, then rigport.
import os
import tempfile

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, orientation_helper

from . import axes, backend, glb
from .preferences import rigport_path

EXPORT_GLOB = "*.iqm;*.iqe;*.cfg;*.joe;*.md5mesh;*.smd;*.obj;*.glb;*.gltf"


@orientation_helper(axis_forward='Y', axis_up='Z')
class EXPORT_SCENE_OT_rigport(bpy.types.Operator, ExportHelper):
    """Export the selected objects with rigport (IQM, IQE, Cal3D, JOE, MD5, SMD, OBJ, glTF)"""
    bl_idname = "export_scene.rigport"
    bl_label = "Export with rigport"
    bl_options = {'PRESET'}

    # A property, not a class constant, so each menu entry sets its own extension.
    filename_ext: StringProperty(default=".iqm", options={'HIDDEN'})
    filter_glob: StringProperty(default=EXPORT_GLOB, options={'HIDDEN'})

    animations: StringProperty(name="Animations",
                               description="Comma-separated action / NLA track names to export; empty: all")
    scale: FloatProperty(name="Scale", default=1.0, min=1e-8, max=1e8, soft_min=1e-4, soft_max=1e4)
    rotate: StringProperty(name="Rotate X,Y,Z",
                           description="rigport --rotate in degrees (glTF space); overrides the axes")
    cal3d_dialect: EnumProperty(
        name="Cal3D dialect",
        items=(('imvu', "IMVU 919", "HEADER-form XML that IMVU's tools read"),
               ('1100', "Cal3D 1100", "Classic cal3d 0.11 (Debian's cal3d_converter)"),
               ('1301', "Cal3D 1301", "Cal3D trunk")),
        default='imvu')
    cal3d_binary: BoolProperty(name="Cal3D binary",
                               description="Binary side files (.csf .cmf .crf .caf) instead of XML")

    def execute(self, context):
        target = bpy.path.abspath(self.filepath)
        ext = os.path.splitext(target)[1].lower()
        if ext not in {e[1:] for e in EXPORT_GLOB.split(";")}:
            self.report({'ERROR'}, f"{target}: rigport cannot tell the format from {ext or 'no extension'!r}")
            return {'CANCELLED'}
        objects = [o for o in context.selected_objects if o.type in {'MESH', 'ARMATURE'}]
        if not objects:
            self.report({'ERROR'}, "Select the meshes (and armatures) to export")
            return {'CANCELLED'}
        rotate = self.rotate.strip() or axes.export_rotate(self.axis_forward, self.axis_up)
        wanted = glb.parse_names(self.animations)
        try:
            with tempfile.TemporaryDirectory(prefix="rigport-export-") as tmp:
                path = os.path.join(tmp, "blender.glb")
                self.export_gltf(context, objects, path)
                if wanted:
                    for name in glb.keep_animations(path, wanted):
                        self.report({'WARNING'}, f"no animation named {name!r} to export")
                is_cal3d = ext == ".cfg"
                for w in backend.convert([path], target, rigport_path(context), scale=self.scale,
                                         rotate=rotate,
                                         cal3d_dialect=self.cal3d_dialect if is_cal3d else None,
                                         cal3d_binary=self.cal3d_binary and is_cal3d):
                    self.report({'WARNING'}, w)
        except (backend.RigportError, OSError, ValueError, RuntimeError) as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        return {'FINISHED'}

    def export_gltf(self, context, objects, path):
        # The armature of each selected mesh goes too (its skin needs it); the user's selection is
        # put back afterwards.
        extra = {m.object for o in objects if o.type == 'MESH'
                 for m in o.modifiers if m.type == 'ARMATURE' and m.object}
        extra |= {o.parent for o in objects if o.parent and o.parent.type == 'ARMATURE'}
        added = [o for o in extra if not o.select_get()]
        try:
            for o in added:
                o.select_set(True)
            # Every action as its own glTF animation: export_anim_single_armature takes all of a
            # lone armature's actions, export_nla_strips names each after its NLA track (as
            # Blender's glTF importer stashed it), export_frame_range off keeps actions whole
            # instead of clipping them to the scene's range, and force_sampling bakes each frame.
            # export_apply stays off: applying modifiers would bake the armature deform in.
            result = bpy.ops.export_scene.gltf(
                filepath=path, check_existing=False, export_format='GLB', use_selection=True,
                export_apply=False, export_yup=True, export_skins=True, export_all_influences=True,
                export_def_bones=False, export_morph=True, export_animations=True,
                export_frame_range=False, export_force_sampling=True, export_nla_strips=True,
                export_anim_single_armature=True, export_reset_pose_bones=True,
                export_current_frame=False, export_materials='EXPORT', export_image_format='AUTO',
                export_extras=False, export_cameras=False, export_lights=False,
                will_save_settings=False)
        finally:
            for o in added:
                o.select_set(False)
        if 'FINISHED' not in result:
            raise RuntimeError(f"Blender's glTF exporter failed ({result})")

    def draw(self, context):
        layout = self.layout
        for prop in ("animations", "scale", "axis_forward", "axis_up", "rotate"):
            layout.prop(self, prop)
        if self.filename_ext == ".cfg" or self.filepath.lower().endswith(".cfg"):
            layout.prop(self, "cal3d_dialect")
            layout.prop(self, "cal3d_binary")
