# The cases of the Blender add-on test, one ctest entry each: the built-in sample and its
# conversions (always), and a corpus model per format (when the corpus is there).
import os
import shutil

import bpy
import numpy as np

import render
from options import options
import skinning
from roundtrip import TARGETS, export_selected, import_model, roundtrip
from support import animation_tracks, armatures, check, meshes, reset_scene, rigport_plain


def sample(models, corpus, golden):
    """sample.iqm: import, every export and re-import, skinned positions after Blender -> IQM ->
    Blender, and the picture."""
    src = os.path.join(models, "sample.iqm")
    rigport_plain("sample", "-o", src)
    roundtrip([src], models, "sample")
    import_model([src], models, "sample")
    before = skinning.pose("wave")
    out = os.path.join(models, "sample.rt.iqm")
    check(export_selected(out) == {'FINISHED'}, "sample: export for the skinning check")
    import_model([out], models, "sample.rt")
    skinning.compare(before, skinning.pose("wave"), "sample -> IQM -> Blender")
    import_model([src], models, "sample")
    skinning.pose("wave")  # the picture shows the middle of 'wave'
    picture(models, golden)


def picture(models, golden):
    png = os.path.join(models, "blender_import.png")
    engine = render.render(png)
    check(os.path.getsize(png) > 1000, f"picture {png} rendered with {engine}")
    if golden:
        os.makedirs(os.path.dirname(golden), exist_ok=True)
        shutil.copyfile(png, golden)
        print(f"wrote {golden}")


def sample_formats(models, corpus, golden):
    """The sample converted by rigport into every format, each imported through the add-on."""
    src = os.path.join(models, "sample.iqm")
    rigport_plain("sample", "-o", src)
    for ext in (".iqe", ".cfg", ".joe", ".md5mesh", ".smd", ".obj", ".glb"):
        out = os.path.join(models, ext[1:], "sample" + ext)
        os.makedirs(os.path.dirname(out))
        rigport_plain("convert", src, "-o", out, "-q")
        from roundtrip import exported_inputs
        import_model(exported_inputs(out), models, "sample" + ext)
    # A JPK member, and a pack imported whole (every .joe member).
    pack_dir = os.path.join(models, "pack")
    os.makedirs(pack_dir)
    for name in ("a.joe", "b.joe"):
        shutil.copyfile(os.path.join(models, "joe", "sample.joe"), os.path.join(pack_dir, name))
    pack = os.path.join(models, "sample.jpk")
    rigport_plain("pack", "create", pack_dir, "-o", pack)
    import_model([pack], models, "sample.jpk member", member="b.joe")
    reset_scene()
    check(bpy.ops.import_scene.rigport(filepath=pack) == {'FINISHED'}, "sample.jpk: import all members")
    check(len(meshes()) == 2, f"sample.jpk: {len(meshes())} mesh objects for 2 .joe members")


def corpus_path(corpus, *parts):
    return os.path.join(corpus, *parts)


def corpus_iqm(models, corpus, golden):
    roundtrip([corpus_path(corpus, "iqm", "mrfixit.iqm")], models, "mrfixit")


def corpus_iqe(models, corpus, golden):
    roundtrip([corpus_path(corpus, "iqe", "unvanquished_mgturret.iqe")], models, "mgturret",
              targets=TARGETS[:2])


def corpus_cal3d(models, corpus, golden):
    # cally.cfg names meshes the corpus does not hold: --allow-missing makes them warnings.
    roundtrip([corpus_path(corpus, "cal3d", "upstream_binary", "cally", "cally.cfg")], models,
              "cally", allow_missing=True)
    folder = corpus_path(corpus, "cal3d", "converted", "mp3butcher_v1301_binary")
    # A skeleton, mesh, material and animation picked together (the animation first on purpose).
    import_model([os.path.join(folder, n) for n in
                  ("cally_walk.caf", "cally.csf", "cally_head.cmf", "cally_skin.crf")],
                 models, "cally binary set")


def corpus_joe(models, corpus, golden):
    roundtrip([corpus_path(corpus, "joe", "vdrift-data-short__carparts_wheel_5_spoke_m.joe")],
              models, "wheel")
    pack = corpus_path(corpus, "joe", "vdrift-data-short__tracks_garage_objects.jpk")
    import_model([pack], models, "garage member", member="Cube.joe")
    reset_scene()
    check(bpy.ops.import_scene.rigport(filepath=pack) == {'FINISHED'}, "garage.jpk: import all members")
    check(len(meshes()) == 37, f"garage.jpk: {len(meshes())} mesh objects for its 37 .joe members")


def corpus_md5(models, corpus, golden):
    folder = corpus_path(corpus, "md5")
    roundtrip([os.path.join(folder, "UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view.md5mesh"),
               os.path.join(folder, "UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view_fire.md5anim")],
              models, "rifle", targets=[t for t in TARGETS if t[0] in ("iqm", "md5", "smd")])


def corpus_smd(models, corpus, golden):
    roundtrip([corpus_path(corpus, "smd", "Artfunkel_BlenderSourceTools__Cube_Armature_Cube.smd")],
              models, "cube_smd")


def corpus_obj(models, corpus, golden):
    roundtrip([corpus_path(corpus, "obj", "ufbx_ufbx__maya_cube.obj")], models, "cube_obj")


def world_diagonal():
    """The diagonal of the box around every mesh's evaluated vertices with the armatures in their
    rest position (the bind pose), in world space (metres). Evaluated, as the importers store
    skinned meshes in spaces of their own."""
    for o in bpy.context.scene.objects:
        if o.type == 'ARMATURE':
            o.data.pose_position = 'REST'
    depsgraph = bpy.context.evaluated_depsgraph_get()
    lo, hi = [float("inf")] * 3, [float("-inf")] * 3
    for o in meshes():
        e = o.evaluated_get(depsgraph)
        m = e.to_mesh()
        for v in m.vertices:
            p = e.matrix_world @ v.co
            for k in range(3):
                lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
        e.to_mesh_clear()
    return sum((hi[k] - lo[k]) ** 2 for k in range(3)) ** 0.5


def fbx_size(path, label):
    """An FBX imported through the add-on is the size Blender's own FBX importer gives it (both in
    metres: the add-on's GLB is scaled from the file's unit, docs/units.md). Tolerance: 1e-4 of the
    size, relative."""
    reset_scene()
    if not check(bpy.ops.import_scene.rigport(filepath=path) == {'FINISHED'}, f"{label}: add-on import"):
        return
    ours = world_diagonal()
    reset_scene()
    if not check(bpy.ops.import_scene.fbx(filepath=path) == {'FINISHED'}, f"{label}: Blender's FBX import"):
        return
    theirs = world_diagonal()
    check(theirs > 0 and abs(ours - theirs) <= 1e-4 * theirs,
          f"{label}: add-on size {ours:.6g} m, Blender's FBX importer {theirs:.6g} m")
    print(f"[ note ] {label}: add-on {ours:.6g} m, Blender's FBX importer {theirs:.6g} m")


def corpus_fbx(models, corpus, golden):
    # Blender's own FBX importer reads binary files only; through rigport ASCII 6.1 imports too.
    import_model([corpus_path(corpus, "fbx", "ufbx_ufbx__blender_279_sausage_6100_ascii.fbx")], models,
                 "sausage 6.1 ascii")
    roundtrip([corpus_path(corpus, "fbx", "ufbx_ufbx__maya_kenney_character_7700_binary.fbx")], models,
              "kenney", targets=TARGETS[:2])
    # Centimetres (Maya), metres (Blender) and 3ds Max's unit: each at Blender's own importer's size.
    # Not Kenney nor assimp's animation_with_skeleton: their root joint is scaled 100, which an
    # armature's rest position cannot hold, so
    # Blender's glTF importer keeps that scale in the pose and the rest position shows the mesh at
    # 1/100 (its posed skinning is checked against three.js and ufbx instead).
    for folder, name in (("fbx-cases", "ufbx_ufbx__maya_node_attribute_zoo_7500_binary.fbx"),
                         ("fbx", "ufbx_ufbx__blender_293_barbarian_7400_binary.fbx"),
                         ("fbx", "ufbx_ufbx__max_transformed_skin_7500_binary.fbx")):
        fbx_size(corpus_path(corpus, folder, name), name)


def skeleton_only(models, corpus, golden):
    """An animation clip without a mesh (as Mixamo's "without skin" downloads are) arrives as one
    armature with every bone and one action, not as empties, and exports back through the add-on.
    The FBX is ours: a 12-bone chain with one clip, written by Blender's FBX exporter."""
    reset_scene()
    bpy.ops.object.armature_add(enter_editmode=True)
    arm = bpy.context.object
    arm.name = "Clip"
    bones = arm.data.edit_bones
    bones[0].name = "bone_0"
    for i in range(1, 12):
        b = bones.new(f"bone_{i}")
        b.head = (0, 0, i)
        b.tail = (0, 0, i + 1)
        b.parent = bones[f"bone_{i - 1}"]
        b.use_connect = True
    bpy.ops.object.mode_set(mode='POSE')
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 20
    for i in range(11):  # the last bone stays still: a joint no channel moves
        pb = arm.pose.bones[f"bone_{i}"]
        pb.rotation_mode = 'XYZ'
        for frame, angle in ((1, 0.0), (10, 0.3), (20, -0.2)):
            pb.rotation_euler = (angle, 0, 0)
            pb.keyframe_insert("rotation_euler", frame=frame)
    bpy.ops.object.mode_set(mode='OBJECT')
    arm.animation_data.action.name = "swing"
    fbx = os.path.join(models, "clip.fbx")
    check(bpy.ops.export_scene.fbx(filepath=fbx, object_types={'ARMATURE'}, add_leaf_bones=False, bake_anim=True,
                                   bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False) == {'FINISHED'},
          "skeleton only: Blender's FBX export")
    info = import_model([fbx], models, "skeleton only")
    if info is None:
        return
    empties = [o.name for o in bpy.data.objects if o.type == 'EMPTY']
    check(len(armatures()) == 1, f"skeleton only: {len(armatures())} armatures, want 1")
    check(not empties, f"skeleton only: no empties, got {len(empties)}")
    # 13: the 12 bones and the armature object, which Blender's FBX exporter writes as a Null
    # above them and rigport reads as the root joint (as rigport info lists it).
    check(sum(len(a.data.bones) for a in armatures()) == 13, "skeleton only: 13 bones")
    check(len(bpy.data.actions) == 1, f"skeleton only: {len(bpy.data.actions)} actions, want 1")
    # Back out through the add-on and in again: still one armature with its 12 bones.
    out = os.path.join(models, "clip.out.glb")
    check(export_selected(out) == {'FINISHED'}, "skeleton only: export .glb")
    import_model([out], models, "skeleton only back")
    check(len(armatures()) == 1 and sum(len(a.data.bones) for a in armatures()) == 13,
          "skeleton only back: one armature, 13 bones")


def posed_vertices(armature, action, frame):
    """World positions of the one mesh's vertices with ARMATURE playing ACTION at FRAME."""
    armature.animation_data.action = action
    bpy.context.scene.frame_set(frame)
    (obj,) = meshes()
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    posed = np.array([evaluated.matrix_world @ v.co for v in mesh.vertices])
    evaluated.to_mesh_clear()
    return posed


def retarget(models, corpus, golden):
    """The add-on's retarget operator (docs/blender.md): the sample's clips retargeted onto the
    sample's own armature. The armature goes out through Blender's glTF exporter (bones in
    Blender's own orientations, not the IQM's), rigport retargets, the clips come back as actions
    of that armature; onto itself the mesh must be skinned where the original clip skins it, at
    its middle frame, within 1e-4 of the model's size (the glTF round trips of the rest pose)."""
    src = os.path.join(models, "sample.iqm")
    rigport_plain("sample", "-o", src)
    if import_model([src], models, "retarget") is None:
        return
    original = animation_tracks()["wave"]
    keys = [k.co[0] for fc in original.fcurves for k in fc.keyframe_points]
    middle = round((min(keys) + max(keys)) / 2)
    (arm,) = armatures()
    before = posed_vertices(arm, original, middle)
    (obj,) = meshes()
    rest = np.array([obj.matrix_world @ v.co for v in obj.data.vertices])
    old = set(bpy.data.actions)
    bpy.context.view_layer.objects.active = arm
    result = bpy.ops.anim.rigport_retarget(filepath=src)
    if not check(result == {'FINISHED'}, f"retarget: operator {result}"):
        return
    new = [a for a in bpy.data.actions if a not in old]
    check(len(new) == len(old), f"retarget: {len(new)} new actions for the sample's {len(old)} clips")
    check(arm.animation_data.action in new, "retarget: the armature plays a retargeted clip")
    wave = [a for a in new if a.name.startswith("wave")]
    if not check(len(wave) == 1, f"retarget: one new action for 'wave', got {[a.name for a in new]}"):
        return
    after = posed_vertices(arm, wave[0], middle)
    size = float(np.linalg.norm(rest.max(axis=0) - rest.min(axis=0)))
    worst = float(np.linalg.norm(after - before, axis=1).max())
    moved = float(np.linalg.norm(before - rest, axis=1).max())
    check(moved > 1e-2 * size, f"retarget: the middle frame moves vertices by up to {moved:.3g} (size {size:.3g})")
    check(worst <= 1e-4 * size, f"retarget: skinned positions at frame {middle} within {worst:.3g} of the original clip's "
                                f"(limit 1e-4 * size = {1e-4 * size:.3g})")


CASES = {f.__name__: f for f in (sample, sample_formats, options, corpus_iqm, corpus_iqe, corpus_cal3d,
                                 corpus_joe, corpus_md5, corpus_smd, corpus_obj, corpus_fbx, skeleton_only, retarget)}
