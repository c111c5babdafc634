# File > Export through rigport: Blender's own glTF exporter to a temporary GLB, then rigport.
import os
import tempfile

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, orientation_helper

from . import axes, backend, glb, registry
from .preferences import rigport_path

# The file filter when the operator is not opened from a menu entry: every format rigport writes
# (registry.py, from rigport's own registry), filled in by invoke().
EXPORT_GLOB = ""

# The add-on's properties for a writer's own convert options (FormatInfo::writer_options).
WRITER_OPTION_PROPS = {"--cal3d-dialect": "cal3d_dialect", "--cal3d-binary": "cal3d_binary",
                       "--compress": "compress", "--compress-level": "compress_level"}


@orientation_helper(axis_forward='Y', axis_up='Z')
class EXPORT_SCENE_OT_rigport(bpy.types.Operator, ExportHelper):
    """Export the selected objects with rigport (IQM, IQE, Cal3D, JOE, MD5, SMD, OBJ, glTF)"""
    bl_idname = "export_scene.rigport"
    bl_label = "Export with rigport"
    bl_options = {'PRESET'}

    # A property, not a class constant, so each menu entry sets its own extension.
    # Empty until a menu entry sets it, or invoke() takes the first export entry's (registry.py).
    filename_ext: StringProperty(default="", options={'HIDDEN'})
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
    compress: BoolProperty(name="Compress",
                           description="Quantised vertices and meshoptimizer-compressed buffers "
                                       "(rigport --compress; the reader needs EXT_meshopt_compression)")
    compress_level: EnumProperty(
        name="Compression",
        items=(('small', "Small", "meshoptimizer's filters too (octahedral normals, quaternion rotations)"),
               ('fast', "Fast", "Quantised integers only")),
        default='small')

    def invoke(self, context, event):
        try:
            rows = registry.rows(rigport_path(context))
            if not self.filter_glob:
                self.filter_glob = registry.export_glob(rows)
            if not self.filename_ext:
                self.filename_ext = registry.export_entries(rows)[0][1]
        except (backend.RigportError, IndexError):
            self.filter_glob = self.filter_glob or "*"
        return ExportHelper.invoke(self, context, event)

    def writer_options(self, context, path):
        """The writer options (as rigport spells them) the output's format takes, from its row."""
        try:
            row = registry.row_for(registry.rows(rigport_path(context)), path)
        except backend.RigportError:
            return set()
        return set(row["writer_options"]) if row else set()

    def execute(self, context):
        target = bpy.path.abspath(self.filepath)
        ext = os.path.splitext(target)[1].lower()
        try:
            writable = registry.writable_extensions(registry.rows(rigport_path(context)))
        except backend.RigportError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        if ext not in writable:
            self.report({'ERROR'}, f"{target}: rigport cannot tell the format from {ext or 'no extension'!r}")
            return {'CANCELLED'}
        own = self.writer_options(context, target)
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
                for w in backend.convert([path], target, rigport_path(context), scale=self.scale,
                                         rotate=rotate,
                                         cal3d_dialect=self.cal3d_dialect if "--cal3d-dialect" in own else None,
                                         cal3d_binary=self.cal3d_binary and "--cal3d-binary" in own,
                                         compress=self.compress and "--compress" in own,
                                         compress_level=self.compress_level if "--compress-level" in own else None):
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
        # The options of the chosen format's writer, as its registry row lists them (Cal3D's).
        own = self.writer_options(context, self.filepath) | self.writer_options(context, "x" + self.filename_ext)
        for option, prop in WRITER_OPTION_PROPS.items():
            if option in own:
                layout.prop(self, prop)
