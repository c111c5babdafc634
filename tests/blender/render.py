# Renders the imported model headless into a PNG (Workbench; Cycles on the CPU where it fails).
import math

import bpy
from mathutils import Vector


def bone_sticks(scene):
    """Final renders do not draw armatures: a mesh of one thin octahedron per posed bone (head to
    tail) stands in for the rig, so the picture shows it."""
    verts, faces = [], []
    for arm in (o for o in scene.objects if o.type == 'ARMATURE'):
        for bone in arm.pose.bones:
            head, tail = arm.matrix_world @ bone.head, arm.matrix_world @ bone.tail
            axis = tail - head
            side = axis.orthogonal().normalized() * axis.length * 0.08
            other = axis.cross(side).normalized() * axis.length * 0.08
            mid = head + axis * 0.2
            base = len(verts)
            verts += [head, mid + side, mid + other, mid - side, mid - other, tail]
            for i in range(4):
                a, b = base + 1 + i, base + 1 + (i + 1) % 4
                faces += [(base, b, a), (a, b, base + 5)]
    if not verts:
        return
    mesh = bpy.data.meshes.new("rig")
    mesh.from_pydata(verts, [], faces)
    material = bpy.data.materials.new("rig")
    material.diffuse_color = (1.0, 0.35, 0.05, 1.0)
    mesh.materials.append(material)
    obj = bpy.data.objects.new("rig", mesh)
    obj.show_in_front = True
    scene.collection.objects.link(obj)


def frame_camera(scene):
    """A camera and light looking at every object's (posed) bounding box from the front left."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    corners = [o.matrix_world @ Vector(c) for o in scene.objects if o.type == 'MESH'
               for c in o.evaluated_get(depsgraph).bound_box]
    lo = Vector([min(c[i] for c in corners) for i in range(3)])
    hi = Vector([max(c[i] for c in corners) for i in range(3)])
    center, size = (lo + hi) / 2, (hi - lo).length
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    scene.collection.objects.link(cam)
    direction = Vector((0.9, -1.6, 0.6)).normalized()
    cam.location = center + direction * size * 1.9
    cam.rotation_euler = (-direction).to_track_quat('-Z', 'Y').to_euler()
    cam.data.lens = 40
    scene.camera = cam
    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", 'SUN'))
    sun.rotation_euler = (math.radians(50), 0, math.radians(30))
    scene.collection.objects.link(sun)


def render(path, width=800, height=500):
    scene = bpy.context.scene
    bone_sticks(scene)
    frame_camera(scene)
    scene.render.resolution_x, scene.render.resolution_y = width, height
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = 'PNG'
    scene.render.image_settings.color_mode = 'RGB'
    scene.render.image_settings.compression = 100
    scene.render.filepath = path
    try:
        scene.render.engine = 'BLENDER_WORKBENCH'
        scene.display.shading.light = 'STUDIO'
        scene.display.shading.color_type = 'TEXTURE'  # untextured objects show their colour
        scene.display.shading.show_xray = True  # the rig seen through the skin
        scene.display.shading.xray_alpha = 0.65
        bpy.ops.render.render(write_still=True)
        return 'BLENDER_WORKBENCH'
    except RuntimeError as exc:  # no OpenGL context (no GPU, no EGL): Cycles needs none
        print(f"Workbench failed ({exc}); rendering with Cycles on the CPU")
    scene.render.engine = 'CYCLES'
    scene.cycles.device = 'CPU'
    scene.cycles.samples = 16
    bpy.ops.render.render(write_still=True)
    return 'CYCLES'
