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

from .export_op import EXPORT_SCENE_OT_rigport
from .import_op import IMPORT_SCENE_OT_rigport
from .preferences import RigportPreferences

# (menu text, file filter) per File > Import entry; each opens the same operator.
IMPORT_ENTRIES = (
    ("IQM via rigport (.iqm)", "*.iqm"),
    ("IQE via rigport (.iqe)", "*.iqe"),
    ("Cal3D via rigport (.cfg, or skeleton + meshes + animations)",
     "*.cfg;*.csf;*.xsf;*.cmf;*.xmf;*.caf;*.xaf;*.crf;*.xrf;*.cpf;*.xpf"),
    ("VDrift JOE / JPK via rigport (.joe, .jpk)", "*.joe;*.jpk"),
    ("MD5 via rigport (.md5mesh + .md5anim)", "*.md5mesh;*.md5anim"),
    ("SMD via rigport (.smd)", "*.smd;*.vta"),
    ("OBJ via rigport (.obj)", "*.obj"),
    ("glTF via rigport (.glb, .gltf)", "*.glb;*.gltf"),
    ("FBX via rigport (.fbx: binary and ASCII 6.x / 7.x)", "*.fbx"),
)

# (menu text, extension) per File > Export entry.
EXPORT_ENTRIES = (
    ("IQM via rigport (.iqm)", ".iqm"),
    ("IQE via rigport (.iqe)", ".iqe"),
    ("Cal3D via rigport (.cfg)", ".cfg"),
    ("VDrift JOE via rigport (.joe)", ".joe"),
    ("MD5 via rigport (.md5mesh)", ".md5mesh"),
    ("SMD via rigport (.smd)", ".smd"),
    ("OBJ via rigport (.obj)", ".obj"),
    ("glTF via rigport (.glb)", ".glb"),
)


def menu_import(self, context):
    for text, glob in IMPORT_ENTRIES:
        op = self.layout.operator(IMPORT_SCENE_OT_rigport.bl_idname, text=text)
        op.filter_glob = glob


def menu_export(self, context):
    for text, ext in EXPORT_ENTRIES:
        op = self.layout.operator(EXPORT_SCENE_OT_rigport.bl_idname, text=text)
        op.filename_ext = ext
        op.filter_glob = "*" + ext


CLASSES = (RigportPreferences, IMPORT_SCENE_OT_rigport, EXPORT_SCENE_OT_rigport)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
