# The add-on's preferences: where the rigport binary is.
import bpy


class RigportPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    rigport_path: bpy.props.StringProperty(
        name="rigport binary", subtype='FILE_PATH',
        description="Path to the rigport executable; empty: RIGPORT_BINARY, then PATH, "
                    "then the rigport Python module")

    def draw(self, context):
        self.layout.prop(self, "rigport_path")


def rigport_path(context):
    addon = context.preferences.addons.get(__package__)
    return addon.preferences.rigport_path if addon else ""
