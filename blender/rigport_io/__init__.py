# rigport I/O: Blender add-on importing and exporting every rigport format through glTF.
bl_info = {
    "name": "rigport I/O",
    "author": "rigport",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import / File > Export",
    "description": "IQM, IQE, Cal3D, JOE/JPK, MD5, SMD, OBJ and FBX (import) through rigport and Blender's glTF I/O",
    "category": "Import-Export",
}

import bpy

from . import backend, registry
from .export_op import EXPORT_SCENE_OT_rigport
from .import_op import IMPORT_SCENE_OT_rigport
from .preferences import RigportPreferences, rigport_path
from .retarget_op import ANIM_OT_rigport_retarget


def _rows(context):
    """The registry's rows, or the error saying why rigport cannot be run (the menu shows it)."""
    try:
        return registry.rows(rigport_path(context))
    except backend.RigportError as exc:
        return exc


def menu_import(self, context):
    rows = _rows(context)
    if isinstance(rows, Exception):
        self.layout.label(text=f"rigport: {rows}")
        return
    # One entry per format that reads, from rigport's registry; each opens the same operator.
    for text, glob in registry.import_entries(rows, registry.archives(rigport_path(context))):
        op = self.layout.operator(IMPORT_SCENE_OT_rigport.bl_idname, text=text)
        op.filter_glob = glob


def menu_export(self, context):
    rows = _rows(context)
    if isinstance(rows, Exception):
        self.layout.label(text=f"rigport: {rows}")
        return
    for text, ext in registry.export_entries(rows):
        op = self.layout.operator(EXPORT_SCENE_OT_rigport.bl_idname, text=text)
        op.filename_ext = ext
        op.filter_glob = "*" + ext


def menu_retarget(self, context):
    self.layout.operator(ANIM_OT_rigport_retarget.bl_idname)


CLASSES = (RigportPreferences, IMPORT_SCENE_OT_rigport, EXPORT_SCENE_OT_rigport, ANIM_OT_rigport_retarget)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)
    bpy.types.VIEW3D_MT_object_animation.append(menu_retarget)


def unregister():
    bpy.types.VIEW3D_MT_object_animation.remove(menu_retarget)
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
