# The add-on's options and failure paths: animation lists, axes, scale, errors, files left as they were.
import importlib.util
import json
import os
import stat

import bpy

from roundtrip import export_selected
from support import animation_tracks, check, meshes, reset_scene, rigport, rigport_plain


def expect_error(call, needle, label):
    """The operator must fail (Blender raises RuntimeError for an {'ERROR'} report in background
    mode) with a message containing NEEDLE."""
    try:
        result = call()
    except RuntimeError as exc:
        check(needle in str(exc), f"{label}: error names {needle!r}: {str(exc).strip()[:200]}")
        return
    check(False, f"{label}: expected an error, got {result}")


def bounds(objs):
    pts = [o.matrix_world @ v.co for o in objs for v in o.data.vertices]
    return [min(p[i] for p in pts) for i in range(3)], [max(p[i] for p in pts) for i in range(3)]


def rest_extent(path):
    """Bind-pose extent (x, y, z) of an IQM as stored: rigport writes it as IQE (text, the same
    Z-up axes, no conversion), whose `vp` lines we read here."""
    iqe = path + ".iqe"
    rigport_plain("convert", path, "-o", iqe, "-q")
    with open(iqe) as f:
        pts = [[float(x) for x in line.split()[1:4]] for line in f if line.startswith("vp ")]
    return [round(max(p[i] for p in pts) - min(p[i] for p in pts), 6) for i in range(3)]


def menus_from_registry():
    """The add-on's menus, filters and orderings come from `rigport formats --json`: every row
    that reads is importable by its extensions, every export entry is a row that writes."""
    from rigport_io import registry
    printed = rigport("formats")
    rows = printed["formats"]
    check(registry.rows() == rows, "the add-on reads the registry rigport prints")
    check(registry.archives() == printed["archives"], "the add-on reads the archives rigport prints")
    check(("VDrift JPK pack via rigport (.jpk)", "*.jpk") in registry.import_entries(rows, registry.archives()),
          "each archive of models is importable")
    globs = ";".join(glob for _, glob in registry.import_entries(rows)).split(";")
    for r in rows:
        if r["read"]:
            check(all("*" + e in globs for e in r["extensions"]), f"import menu covers {r['name']} {r['extensions']}")
    for text, ext in registry.export_entries(rows):
        row = registry.row_for(rows, "x" + ext)
        check(row is not None and row["write"], f"export entry {text!r}: {ext} is a format rigport writes")
    exts = [ext for _, ext in registry.export_entries(rows)]
    check(".glb" in exts and ".cfg" in exts and ".fbx" in exts and ".md2" in exts, f"export entries {exts}")
    check({".md5anim", ".caf"} <= registry.animation_only_extensions(rows), "animation-only extensions from the rows")
    cfg = registry.row_for(rows, "x.cfg")
    check("--cal3d-dialect" in cfg["writer_options"], "the .cfg row lists its writer options")
    # A row the add-on has never heard of appears in both menus without an edit.
    toy = dict(rows[0], name="toy", description="Toy format (test)", extensions=[".toy"], member_extensions=[],
               single_file_extension="", animation_only_extensions=[], writer_options=[])
    check(("Toy format via rigport (.toy)", "*.toy") in registry.import_entries(rows + [toy]), "a new row is importable")
    check(("Toy format via rigport (.toy)", ".toy") in registry.export_entries(rows + [toy]), "a new row is exportable")


def options(models, corpus, golden):
    src = os.path.join(models, "sample.iqm")
    rigport_plain("sample", "-o", src)

    # Animations to include, on import and on export.
    reset_scene()
    bpy.ops.import_scene.rigport(filepath=src, animations="wave")
    check(sorted(animation_tracks()) == ["wave"], f"import animations='wave': {sorted(animation_tracks())}")
    reset_scene()
    bpy.ops.import_scene.rigport(filepath=src)
    out = os.path.join(models, "pulse_only.iqm")
    check(export_selected(out, animations="pulse") == {'FINISHED'}, "export animations='pulse'")
    got = [a["name"] for a in rigport("info", out)["animations"]]
    check(got == ["pulse"], f"export animations='pulse' wrote {got}")

    # Scale and axes: the sample is 4 units tall along Z; scale 2 makes it 8, up='Y' lays it along -Y.
    reset_scene()
    bpy.ops.import_scene.rigport(filepath=src)
    lo, hi = bounds(meshes())
    reset_scene()
    bpy.ops.import_scene.rigport(filepath=src, scale=2.0)
    lo2, hi2 = bounds(meshes())
    check(abs((hi2[2] - lo2[2]) - 2 * (hi[2] - lo[2])) < 1e-4, f"scale 2: height {hi2[2] - lo2[2]:.4f}")
    reset_scene()
    bpy.ops.import_scene.rigport(filepath=src, axis_forward='-Z', axis_up='Y')
    lo3, hi3 = bounds(meshes())
    check(abs((hi3[1] - lo3[1]) - (hi[2] - lo[2])) < 1e-4 and hi3[2] - lo3[2] < hi[2] - lo[2],
          f"axis up 'Y': the file's Y becomes Blender's Z, so the sample's height lies along Y "
          f"({hi3[1] - lo3[1]:.4f})")

    # Export axes: forward -Z, up Y writes Blender's Z (the sample's height) along the file's Y.
    reset_scene()
    bpy.ops.import_scene.rigport(filepath=src)
    plain, turned = os.path.join(models, "plain.iqm"), os.path.join(models, "turned.iqm")
    export_selected(plain)
    export_selected(turned, axis_forward='-Z', axis_up='Y')
    extent = [rest_extent(f) for f in (plain, turned)]
    check(extent[0][2] > 2 * extent[0][1] and abs(extent[1][1] - extent[0][2]) < 1e-3
          and abs(extent[1][2] - extent[0][1]) < 1e-3,
          f"export axis up 'Y': bind-pose extents {extent[0]} -> {extent[1]} (Y and Z swap)")

    # Compression: a .glb export with compress=True is rigport's --compress output (the glTF row
    # lists it among its writer options), and its JSON requires both extensions.
    reset_scene()
    bpy.ops.import_scene.rigport(filepath=src)
    packed = os.path.join(models, "packed.glb")
    check(export_selected(packed, compress=True, compress_level='fast') == {'FINISHED'}, "export compress=True")
    with open(packed, "rb") as f:
        data = f.read()
    length = int.from_bytes(data[12:16], "little")
    required = json.loads(data[20:20 + length]).get("extensionsRequired", [])
    check(required == ["KHR_mesh_quantization", "EXT_meshopt_compression"], f"export compress=True requires {required}")

    # Errors: a malformed file names itself and leaves the scene as it was.
    bad = os.path.join(models, "bad.iqm")
    with open(bad, "wb") as f:
        f.write(b"INTERQUAKEMODEL\0" + b"\x02\0\0\0" + b"\xff" * 40)
    reset_scene()
    expect_error(lambda: bpy.ops.import_scene.rigport(filepath=bad), "bad.iqm", "malformed import")
    check(len(bpy.data.objects) == 0, "malformed import added no objects")
    expect_error(lambda: bpy.ops.import_scene.rigport(filepath=os.path.join(models, "none.iqe")),
                 "none.iqe", "missing file")

    # A read-only target is refused by rigport and keeps its bytes.
    bpy.ops.import_scene.rigport(filepath=src)
    locked = os.path.join(models, "locked.iqm")
    with open(locked, "wb") as f:
        f.write(b"keep")
    os.chmod(locked, stat.S_IRUSR)
    expect_error(lambda: export_selected(locked), "locked.iqm", "read-only target")
    with open(locked, "rb") as f:
        check(f.read() == b"keep", "read-only target kept its bytes")
    expect_error(lambda: export_selected(os.path.join(models, "x.zzz")), ".zzz", "unknown extension")
    bpy.ops.object.select_all(action='DESELECT')
    expect_error(lambda: bpy.ops.export_scene.rigport(filepath=os.path.join(models, "y.iqm")),
                 "Select", "nothing selected")

    menus_from_registry()

    # Where rigport is found: a bad RIGPORT_BINARY is named; nothing at all says where to set it.
    saved = {k: os.environ.get(k) for k in ("RIGPORT_BINARY", "PATH")}
    try:
        os.environ["RIGPORT_BINARY"] = os.path.join(models, "no-rigport")
        expect_error(lambda: bpy.ops.import_scene.rigport(filepath=src), "RIGPORT_BINARY",
                     "bad RIGPORT_BINARY")
        del os.environ["RIGPORT_BINARY"]
        os.environ["PATH"] = models
        if importlib.util.find_spec("rigport") is not None:
            print("note: the rigport Python module is importable; the not-found case is skipped")
        else:
            expect_error(lambda: bpy.ops.import_scene.rigport(filepath=src), "Preferences",
                         "rigport not found")
    finally:
        for k, v in saved.items():
            if v is not None:
                os.environ[k] = v
