# Helpers for the Blender add-on tests: running rigport, reading GLB durations, inspecting the scene.
import json
import os
import subprocess

import importlib.util

import bpy


def _load_glb():
    """The add-on's GLB reader as a stand-alone module: importing the package `rigport_io` from
    the source tree would shadow the installed add-on under test."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "blender",
                        "rigport_io", "glb.py")
    spec = importlib.util.spec_from_file_location("rigport_test_glb", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


glb = _load_glb()

RIGPORT = os.environ.get("RIGPORT_BINARY", "")
FAILURES = []


def check(ok, what):
    """Record a failed check (the run goes on, so one run shows every failure)."""
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILURES.append(what)
    return ok


def rigport(*args):
    """Run the rigport CLI with --json; returns the parsed output (raises on failure)."""
    proc = subprocess.run([RIGPORT] + list(args) + ["--json"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    if proc.returncode != 0:
        raise RuntimeError(f"rigport {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return out


def rigport_plain(*args):
    subprocess.run([RIGPORT] + list(args), check=True, stdout=subprocess.DEVNULL)


def glb_durations(path):
    """{animation name: seconds} from a GLB's sampler inputs (glTF requires their accessor max)."""
    doc, _ = glb.read(path)
    result = {}
    for anim in doc.get("animations", []):
        times = [doc["accessors"][s["input"]]["max"][0] for s in anim["samplers"]]
        result[anim.get("name", "")] = max(times) if times else 0.0
    return result


def reset_scene():
    """Remove every object and data block the previous step made (so the glTF exporter's
    'all actions of the lone armature' sees only this model's actions)."""
    for coll in (bpy.data.objects, bpy.data.meshes, bpy.data.armatures, bpy.data.actions,
                 bpy.data.materials, bpy.data.images, bpy.data.textures, bpy.data.cameras,
                 bpy.data.lights):
        for block in list(coll):
            coll.remove(block)


def meshes():
    return [o for o in bpy.data.objects if o.type == 'MESH']


def armatures():
    return [o for o in bpy.data.objects if o.type == 'ARMATURE']


def blender_vertices():
    return sum(len(o.data.vertices) for o in meshes())


def animation_tracks():
    """{NLA track name: action} over every object: Blender's glTF importer stashes one action per
    glTF animation and object on a track named after the animation."""
    tracks = {}
    for o in bpy.data.objects:
        if o.animation_data:
            for t in o.animation_data.nla_tracks:
                if t.strips:
                    tracks.setdefault(t.name, t.strips[0].action)
    return tracks


def action_length(action):
    """Frames from the first to the last key of ACTION (frame_range pads a one-key action)."""
    keys = [k.co[0] for fc in action.fcurves for k in fc.keyframe_points]
    return max(keys) - min(keys) if keys else 0.0


def bind_pose(path, *extra):
    """{joint name: (translation, rotation x y z w)} of a model's skeleton as stored: rigport
    writes it as IQE, whose `joint` and `pq` lines (in the same order) we read here."""
    iqe = os.path.join(os.path.dirname(path), os.path.basename(path) + ".joints.iqe")
    subprocess.run([RIGPORT, "convert", path, *extra, "-o", iqe, "-q"], check=True)
    names, poses = [], []
    with open(iqe) as f:
        for line in f:
            if line.startswith("mesh "):
                break
            if line.startswith("joint "):
                names.append(line.split('"')[1])
            elif line.startswith("pq "):
                v = [float(x) for x in line.split()[1:8]]
                poses.append((v[0:3], v[3:7]))
    os.remove(iqe)
    return dict(zip(names, poses))
