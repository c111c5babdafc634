# File > Import through rigport: convert to a temporary GLB, then Blender's own glTF importer.
import contextlib
import os
import tempfile

import numpy

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, StringProperty
from bpy_extras.io_utils import ImportHelper, orientation_helper

from . import axes, backend, glb, registry
from .preferences import rigport_path

# The file filter when the operator is not opened from a menu entry: every format rigport reads
# (registry.py, from rigport's own registry), filled in by invoke().
IMPORT_GLOB = ""


@contextlib.contextmanager
def numpy_bool_alias():
    """Blender 3.4's glTF importer keeps the file's normals (import_shading 'NORMALS') with
    numpy.bool, which numpy 1.24 (Debian 12's) removed and numpy 2 brought back. Lend the alias
    for the import only, where it is missing; other Blenders are left alone."""
    missing = "bool" not in vars(numpy)  # hasattr would raise numpy 1.24's FutureWarning
    if missing:
        numpy.bool = numpy.bool_
    try:
        yield
    finally:
        if missing:
            del numpy.bool


@orientation_helper(axis_forward='Y', axis_up='Z')
class IMPORT_SCENE_OT_rigport(bpy.types.Operator, ImportHelper):
    """Import a model with rigport (IQM, IQE, Cal3D, JOE/JPK, MD5, SMD, OBJ, glTF, FBX)"""
    bl_idname = "import_scene.rigport"
    bl_label = "Import with rigport"
    bl_options = {'REGISTER', 'UNDO', 'PRESET'}

    filter_glob: StringProperty(default=IMPORT_GLOB, options={'HIDDEN'})
    # Several files picked together form one model (a Cal3D skeleton, meshes and animations; an
    # .md5mesh with its .md5anim files): the first gives meshes and skeleton, the rest animations.
    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={'HIDDEN', 'SKIP_SAVE'})
    directory: StringProperty(subtype='DIR_PATH', options={'HIDDEN', 'SKIP_SAVE'})

    member: StringProperty(name="JPK member",
                           description="Member of a .jpk pack to import; empty: every model member (.joe)")
    animations: StringProperty(name="Animations",
                               description="Comma-separated animation names to import; empty: all")
    scale: FloatProperty(name="Scale", default=1.0, min=1e-8, max=1e8, soft_min=1e-4, soft_max=1e4)
    rotate: StringProperty(name="Rotate X,Y,Z",
                           description="rigport --rotate in degrees (glTF space); overrides the axes")
    bone_heuristic: EnumProperty(
        name="Bone shape",
        items=(('BLENDER', "Blender (keeps joint axes)",
                "Bones along each joint's +Y: joint orientations survive a round trip exactly"),
               ('TEMPERANCE', "Temperance", "Bone tips toward the child on the nearest axis"),
               ('FORTUNE', "Fortune", "Bone tips at the child's head")),
        default='BLENDER')
    allow_missing: BoolProperty(name="Allow missing parts",
                                description="A missing Cal3D member is a warning (--allow-missing)")
    allow_outside: BoolProperty(name="Allow outside files",
                                description="Read files a model names outside its folder (--allow-outside)")

    def invoke(self, context, event):
        if not self.filter_glob:
            try:
                pref = rigport_path(context)
                self.filter_glob = registry.import_glob(registry.rows(pref), registry.archives(pref))
            except backend.RigportError:
                self.filter_glob = "*"
        return ImportHelper.invoke(self, context, event)

    def inputs(self):
        names = [f.name for f in self.files if f.name]
        filepath = bpy.path.abspath(self.filepath)  # a '//' path is relative to the .blend
        if len(names) <= 1:
            return [filepath]
        first = os.path.basename(filepath)
        # Later inputs only add animations, so files that can only be animations go last.
        animation_only = registry.animation_only_extensions(registry.rows(rigport_path(bpy.context)))
        names.sort(key=lambda n: (registry.extension_of(n) in animation_only, n != first))
        return [os.path.join(bpy.path.abspath(self.directory), n) for n in names]

    def models(self, pref):
        """The rigport inputs of each model to import (an archive such as a .jpk without member:
        each model member)."""
        inputs = self.inputs()
        if len(inputs) != 1 or registry.extension_of(inputs[0]) not in registry.archive_extensions(registry.archives(pref)):
            return [inputs]
        if self.member:
            return [[f"{inputs[0]}:{self.member}"]]
        members = backend.info(inputs[0], pref).get("members", [])
        # The members rigport reads as models (a VDrift pack's .joe files), by the registry's extensions.
        readable = registry.model_extensions(registry.rows(pref))
        names = [m["name"] for m in members if registry.extension_of(m["name"]) in readable]
        if not names:
            raise backend.RigportError(f"{inputs[0]}: the pack holds no member rigport reads as a model")
        return [[f"{inputs[0]}:{name}"] for name in names]

    def execute(self, context):
        pref = rigport_path(context)
        rotate = self.rotate.strip() or axes.import_rotate(self.axis_forward, self.axis_up)
        wanted = glb.parse_names(self.animations)
        try:
            models = self.models(pref)
            # The folder and the GLBs in it go on every path out, errors included.
            with tempfile.TemporaryDirectory(prefix="rigport-import-") as tmp:
                for i, inputs in enumerate(models):
                    path = os.path.join(tmp, f"model{i}.glb")
                    for w in backend.convert(inputs, path, pref, scale=self.scale, rotate=rotate,
                                             allow_outside=self.allow_outside,
                                             allow_missing=self.allow_missing):
                        self.report({'WARNING'}, w)
                    if wanted:
                        for name in glb.keep_animations(path, wanted):
                            self.report({'WARNING'}, f"{inputs[0]}: no animation named {name!r}")
                    self.import_gltf(path)
        except (backend.RigportError, OSError, ValueError, RuntimeError) as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        return {'FINISHED'}

    def import_gltf(self, path):
        # Blender's glTF importer makes one action per glTF animation and object, stashed on an NLA
        # track named after the animation (the glTF exporter merges by that track name, so names
        # survive a round trip). merge_vertices stays off so rigport's vertices arrive one to one;
        # images are packed because the GLB's folder is deleted after the import.
        with numpy_bool_alias():
            result = bpy.ops.import_scene.gltf(
                filepath=path, import_pack_images=True, merge_vertices=False,
                import_shading='NORMALS', bone_heuristic=self.bone_heuristic,
                guess_original_bind_pose=True)
        if 'FINISHED' not in result:
            raise RuntimeError(f"Blender's glTF importer failed on rigport's output ({result})")

    def draw(self, context):
        layout = self.layout
        for prop in ("member", "animations", "scale", "axis_forward", "axis_up", "rotate",
                     "bone_heuristic", "allow_missing", "allow_outside"):
            layout.prop(self, prop)
