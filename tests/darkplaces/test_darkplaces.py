#!/usr/bin/env python3
# DarkPlaces as a second reader of rigport's engine outputs (docs/testing.md "DarkPlaces"):
#   test_darkplaces.py --case iqm|md3|mdl|md2|rejects --rigport BIN --darkplaces BIN --work DIR
# Exit 0 pass, 1 fail, 77 skipped (no darkplaces-server).
#
# A case converts the built-in sample with `rigport convert --target`, puts the file in a game
# folder that holds nothing else, and runs Debian's DarkPlaces dedicated server on it with the
# console command `modeldecompile`: the engine loads the model as a game would (Mod_ForName) and
# writes what it loaded as an OBJ. The check then compares, triangle by triangle, DarkPlaces'
# vertices with the ones `rigport convert FILE -o back.iqe` reads from the same file, and fails on
# any console line DarkPlaces prints while loading other than its own "wrote" lines.
#
# `rejects` proves the check can fail: broken copies of each output must each be caught for the
# right reason: a wrong version number by DarkPlaces' refusal, a moved vertex by the comparison, a
# file cut inside frame 0 by either.
import argparse
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import time

SKIP = 77
MODEL = "rigport"   # the file's name in the game folder: models/rigport.EXT
BEGIN, END = "rigport-load-begin", "rigport-load-end"
DP_TIMEOUT = 30     # seconds for one DarkPlaces run (a load takes well under one)

# case: (engine profile, extension). DarkPlaces reads all four (docs/targets.md).
FORMATS = {
    "iqm": ("darkplaces", "iqm"),
    "md3": ("darkplaces", "md3"),
    "mdl": ("quake", "mdl"),
    "md2": ("quake2", "md2"),
}

# How far DarkPlaces' vertex may be from rigport's, as a fraction of the model's size (the
# diagonal of its box). Both read the same stored numbers (floats for IQM, packed integers times
# a scale for MD3, MDL and MD2), so they differ only by float rounding and by the six decimals
# DarkPlaces prints in its OBJ; 1e-5 of the size is far below one packing step (1/64 unit for
# MD3, 1/255 of the box for MDL and MD2) and far above that noise.
POSITION_TOLERANCE = 1e-5


class Failure(Exception):
    pass


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def rigport(binary, *args):
    r = run([binary, *args], timeout=120)
    if r.returncode != 0:
        raise Failure("rigport %s failed (exit %d):\n%s" % (" ".join(args), r.returncode, r.stdout))
    return r.stdout


# --- DarkPlaces ---------------------------------------------------------------------------------

# What DarkPlaces may print between the markers for a model it loads without a complaint: the files
# modeldecompile writes (the OBJ and its MTL; for a skeletal model also SMDs and two text files
# in a folder) and one "Wrote" line each.
ALLOWED = re.compile(r"^(FS_WriteFile: models/%s_decompiled[^ ]* \(\d+ bytes\)"
                     r"|Wrote models/%s_decompiled[^ ]* \(.*\))$" % (MODEL, MODEL))
WROTE_OBJ = re.compile(r"^Wrote models/%s_decompiled\.obj \(\d+ bytes, (\d+) vertices, (\d+) faces, "
                       r"(\d+) surfaces" % MODEL)


def darkplaces_load(dp, base, ext, problems):
    """Run the dedicated server on models/rigport.EXT in BASE/id1 (DarkPlaces' default game
    folder). Appends its complaints to PROBLEMS; returns (the OBJ it wrote, its summary line,
    seconds), or raises when it wrote none."""
    game = os.path.join(base, "id1")
    for old in ("%s_decompiled.obj" % MODEL, "%s_decompiled.mtl" % MODEL):
        p = os.path.join(game, "models", old)
        if os.path.exists(p):
            os.remove(p)
    # -nohome: everything it writes (the OBJ, its console history) stays in BASE, never in ~.
    # developer 1: the engine's developer messages are printed too, so they fail the check.
    cmd = [dp, "-basedir", base, "-nohome", "+set", "developer", "1", "+echo", BEGIN,
           "+modeldecompile", "models/%s.%s" % (MODEL, ext), "+echo", END, "+quit"]
    start = time.monotonic()
    try:
        r = run(cmd, timeout=DP_TIMEOUT, cwd=base, env=dict(os.environ, HOME=base))
    except subprocess.TimeoutExpired:
        raise Failure("refused: DarkPlaces did not finish within %d s: %s" % (DP_TIMEOUT, " ".join(cmd)))
    seconds = time.monotonic() - start
    lines = [l.rstrip() for l in r.stdout.splitlines()]
    if BEGIN not in lines:
        raise Failure("refused: DarkPlaces stopped before loading (exit %d):\n%s" % (r.returncode, r.stdout))
    load = lines[lines.index(BEGIN) + 1:]
    if END not in load:
        # A Host_Error (a wrong version number ...) ends the run with exit 1, a crash with a
        # signal: the marker after the load is never printed.
        raise Failure("refused: DarkPlaces stopped while loading (exit %d): %s"
                      % (r.returncode, " | ".join(l for l in load if l and l != "Host_ShutdownServer")))
    load = load[:load.index(END)]
    problems += ["complaint: DarkPlaces printed: " + l for l in load if l and not ALLOWED.match(l)]
    if r.returncode != 0:
        problems.append("refused: DarkPlaces exited with %d" % r.returncode)
    summary = [m for m in map(WROTE_OBJ.match, load) if m]
    if not summary:
        raise Failure("refused: DarkPlaces wrote no OBJ (it loaded no triangles): " + " | ".join(load))
    return os.path.join(game, "models", "%s_decompiled.obj" % MODEL), summary[0], seconds


def read_darkplaces_obj(path):
    """DarkPlaces' OBJ (Mod_Decompile_OBJ): `v x z y` for its vertex (x, y, z) (this version
    swaps Y and Z without a sign; measured with a hand-made tetrahedron), `vt s 1-t`, and
    `f a/a/a b/b/b c/c/c` in its own corner order, one-based."""
    positions, texcoords, triangles = [], [], []
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "v":
                x, z, y = map(float, w[1:4])
                positions.append((x, y, z))
            elif w[0] == "vt":
                s, t = map(float, w[1:3])
                texcoords.append((s, 1.0 - t))
            elif w[0] == "f":
                triangles.append(tuple(int(c.split("/")[0]) - 1 for c in w[1:4]))
    return positions, texcoords, triangles


# --- rigport's reading of the same file ---------------------------------------------------------

def read_iqe(path):
    """rigport's IQE (docs/iqe.md §2): per mesh `vp`, `vt`, then `fm` corners local to the mesh.
    IQE keeps IQM's conventions (Z up, clockwise), which MD3, MDL and MD2 share, so the numbers
    are the file's. A vertex-animated model's mesh is its frame 0 (docs/mdl.md "Frames")."""
    positions, texcoords, triangles = [], [], []
    first = 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "mesh":
                first = len(positions)
            elif w[0] == "vp":
                positions.append(tuple(map(float, w[1:4])))
            elif w[0] == "vt":
                texcoords.append(tuple(map(float, w[1:3])))
            elif w[0] == "fm":
                triangles.append(tuple(first + int(c) for c in w[1:4]))
    return positions, texcoords, triangles


def model_size(positions):
    lo = [min(p[i] for p in positions) for i in range(3)]
    hi = [max(p[i] for p in positions) for i in range(3)]
    return math.dist(lo, hi)


def compare(dp_model, rp_model, texel, problems):
    """Triangle i of DarkPlaces against triangle i of rigport, corners in the same turning order
    (winding kept) from any starting corner. Returns the figures; appends a mismatch to
    PROBLEMS."""
    dp_pos, dp_uv, dp_tri = dp_model
    rp_pos, rp_uv, rp_tri = rp_model
    if not rp_tri:
        raise Failure("mismatch: rigport read no triangles back")
    size = model_size(rp_pos)
    if len(dp_tri) != len(rp_tri):
        raise Failure("mismatch: DarkPlaces loaded %d triangles, rigport reads %d"
                      % (len(dp_tri), len(rp_tri)))
    if len(dp_pos) != len(rp_pos):
        # Both split a vertex where its texture coordinates differ (MDL's seam, MD2's separate
        # st list) and nowhere else, so the counts agree.
        problems.append("mismatch: DarkPlaces made %d vertices, rigport reads %d"
                        % (len(dp_pos), len(rp_pos)))
    tolerance = POSITION_TOLERANCE * size
    worst, worst_uv, worst_at = 0.0, [0.0, 0.0], None
    for i, (d, r) in enumerate(zip(dp_tri, rp_tri)):
        best = None
        for turn in range(3):
            dist = max(math.dist(dp_pos[d[k]], rp_pos[r[(k + turn) % 3]]) for k in range(3))
            if best is None or dist < best[0]:
                best = (dist, turn)
        dist, turn = best
        if dist > worst:
            worst, worst_at = dist, i
        for k in range(3):
            a, b = dp_uv[d[k]], rp_uv[r[(k + turn) % 3]]
            for axis in range(2):
                worst_uv[axis] = max(worst_uv[axis], abs(a[axis] - b[axis]) * texel[axis])
    if worst > tolerance:
        t = dp_tri[worst_at]
        problems.append("mismatch: triangle %d: DarkPlaces' corners %s are %.6g units from rigport's "
                        "%s (tolerance %.3g, %.0e of the model's size %.6g)"
                        % (worst_at, [dp_pos[c] for c in t], worst, [rp_pos[c] for c in rp_tri[worst_at]],
                           tolerance, POSITION_TOLERANCE, size))
    return {"triangles": len(dp_tri), "dp_vertices": len(dp_pos), "rigport_vertices": len(rp_pos),
            "size": size, "max_distance": worst, "tolerance": tolerance, "max_uv_texels": worst_uv}


def skin_size(path, ext):
    """The skin's size in texels from the header (MDL, MD2), to state texture coordinate
    differences in texels; (1, 1) where the file has none (MD3 and IQM store 0..1 floats)."""
    data = open(path, "rb").read()
    if ext == "mdl":
        return struct.unpack_from("<2i", data, 52)
    if ext == "md2":
        return struct.unpack_from("<2i", data, 8)
    return (1, 1)


def check_load(binary, dp, base, ext, reference, texcoord_limit):
    """Load models/rigport.EXT in DarkPlaces and compare it with rigport's reading of REFERENCE
    (the same file, except in `rejects`, where the game gets a broken copy). Returns (problems,
    figures); each problem starts with its kind: refused, complaint, mismatch or texcoords."""
    problems = []
    try:
        obj, summary, seconds = darkplaces_load(dp, base, ext, problems)
        dp_model = read_darkplaces_obj(obj)
        if len(dp_model[0]) != int(summary.group(1)) or len(dp_model[2]) != int(summary.group(2)):
            raise Failure("mismatch: DarkPlaces' OBJ holds %d vertices and %d faces, its console said %s"
                          % (len(dp_model[0]), len(dp_model[2]), summary.group(0)))
        back = os.path.join(base, "back.iqe")
        rigport(binary, "convert", reference, "-o", back, "--force")
        figures = compare(dp_model, read_iqe(back), skin_size(reference, ext), problems)
    except Failure as e:
        return problems + [str(e)], None
    for axis in range(2):
        if figures["max_uv_texels"][axis] > texcoord_limit:
            problems.append("texcoords: texture coordinates differ by %.4g texels along %s (at most "
                            "%.4g expected)" % (figures["max_uv_texels"][axis], "st"[axis], texcoord_limit))
    figures["seconds"] = seconds
    figures["surfaces"] = int(summary.group(3))
    return problems, figures


# Texture coordinates, in texels for MDL and MD2 (their files store texels) and in units of the
# image for IQM and MD3 (floats, read alike by both). MD2: both divide `s, t` by the skin's size.
# MDL: rigport reads a texel's centre, (s + 0.5) / width, as GLQuake draws it (docs/mdl.md);
# DarkPlaces' loader keeps s / width, the texel's corner (measured: exactly half a texel apart),
# so MDL is allowed that half texel. Beyond that only float noise is allowed.
TEXCOORD_LIMIT = {"iqm": 1e-4, "md3": 1e-4, "mdl": 0.5 + 1e-3, "md2": 1e-3}


def fresh(work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "dp", "id1", "models"))
    return os.path.join(work, "dp")


def make_output(binary, work, base, case):
    target, ext = FORMATS[case]
    sample = os.path.join(work, "sample.iqm")
    if not os.path.exists(sample):
        rigport(binary, "sample", "-o", sample)
    out = os.path.join(base, "id1", "models", "%s.%s" % (MODEL, ext))
    rigport(binary, "convert", sample, "--target", target, "-o", out, "--force")
    return out


def run_format(binary, dp, work, case):
    base = fresh(work)
    out = make_output(binary, work, base, case)
    problems, f = check_load(binary, dp, base, FORMATS[case][1], out, TEXCOORD_LIMIT[case])
    if f:
        print("%s: DarkPlaces loaded %d triangles on %d vertices in %d surface(s) (rigport reads %d "
              "vertices); largest corner distance %.3g units of a %.4g-unit model (tolerance %.3g); "
              "texture coordinates within %.3g x %.3g texels; DarkPlaces ran %.2f s"
              % (case, f["triangles"], f["dp_vertices"], f["surfaces"], f["rigport_vertices"],
                 f["max_distance"], f["size"], f["tolerance"], f["max_uv_texels"][0],
                 f["max_uv_texels"][1], f["seconds"]))
    if problems:
        raise Failure("\n".join(problems))


# --- broken copies: each must be caught ---------------------------------------------------------

def version_offset(ext):
    return 16 if ext == "iqm" else 4   # after "INTERQUAKEMODEL\0", or after the 4-byte ident


def first_position(data, ext):
    """(offset, how to move it) of frame 0's first vertex's x in each layout (docs/<fmt>.md)."""
    if ext == "mdl":
        numskins, w, h, numverts, numtris = struct.unpack_from("<5i", data, 48)
        at = 84
        for _ in range(numskins):
            (kind,) = struct.unpack_from("<i", data, at)
            if kind != 0:
                raise Failure("the MDL writer wrote a skin group; this test expects single skins")
            at += 4 + w * h
        at += numverts * 12 + numtris * 16
        (kind,) = struct.unpack_from("<i", data, at)
        if kind != 0:
            raise Failure("the MDL writer wrote a group frame; this test expects simple frames")
        return at + 4 + 8 + 16, "byte"
    if ext == "md2":
        (ofs_frames,) = struct.unpack_from("<i", data, 56)
        return ofs_frames + 40, "byte"
    if ext == "md3":
        (ofs_surfaces,) = struct.unpack_from("<i", data, 100)
        (ofs_xyz,) = struct.unpack_from("<i", data, ofs_surfaces + 100)
        return ofs_surfaces + ofs_xyz, "short"
    num_arrays, _, ofs_arrays = struct.unpack_from("<3I", data, 44)
    for i in range(num_arrays):
        kind, _, fmt, _, offset = struct.unpack_from("<5I", data, ofs_arrays + 20 * i)
        if kind == 0 and fmt == 7:   # IQM_POSITION as IQM_FLOAT
            return offset, "float"
    raise Failure("no float position array in the IQM")


def moved_vertex(data, ext):
    at, kind = first_position(data, ext)
    b = bytearray(data)
    if kind == "byte":
        b[at] ^= 0x80                                   # half the box along x
    elif kind == "short":
        (x,) = struct.unpack_from("<h", b, at)
        struct.pack_into("<h", b, at, x + 64 * 10 if x < 0 else x - 64 * 10)   # 10 units
    else:
        (x,) = struct.unpack_from("<f", b, at)
        struct.pack_into("<f", b, at, x + 10.0)
    return bytes(b)


def wrong_version(data, ext):
    b = bytearray(data)
    b[version_offset(ext)] += 1
    return bytes(b)


def cut(data, ext):
    """The file ends one byte into frame 0's first position. (Cutting it in half is not enough:
    MD3 and MD2 keep frame 0 before the other frames, and DarkPlaces does not compare their
    offsets with the file's length, so it reads the later frames from past the end unnoticed.)"""
    at, _ = first_position(data, ext)
    return data[:at + 1]


# Each broken copy and the kind of problem that must be among the check's findings.
BREAKS = {
    "wrong version": (wrong_version, ("refused", "complaint"), "version"),
    "moved vertex": (moved_vertex, ("mismatch",), ""),
    "cut in frame 0": (cut, ("refused", "complaint", "mismatch"), ""),
}


def run_rejects(binary, dp, work):
    caught, missed = [], []
    for case, (target, ext) in FORMATS.items():
        base = fresh(os.path.join(work, case))
        out = make_output(binary, os.path.join(work, case), base, case)
        intact = os.path.join(base, "intact." + ext)
        shutil.move(out, intact)
        data = open(intact, "rb").read()
        # What the intact file already draws (a writer's fault its own case reports) does not
        # count as catching a broken copy.
        shutil.copy(intact, out)
        known, _ = check_load(binary, dp, base, ext, intact, TEXCOORD_LIMIT[case])
        for name, (brk, kinds, word) in BREAKS.items():
            with open(out, "wb") as f:
                f.write(brk(data, ext))
            problems, _ = check_load(binary, dp, base, ext, intact, TEXCOORD_LIMIT[case])
            hits = [p for p in problems if p.split(":")[0] in kinds and word in p and p not in known]
            if hits:
                caught.append("%s %s: %s" % (case, name, hits[0].splitlines()[0][:240]))
            else:
                missed.append("%s %s (found: %s)" % (case, name, " / ".join(p for p in problems if p not in known) or "nothing new"))
    for line in caught:
        print("caught: " + line)
    if missed:
        raise Failure("a broken file was not caught as it should be: " + "; ".join(missed))


def main():
    p = argparse.ArgumentParser(prog="test_darkplaces.py")
    p.add_argument("--case", required=True, choices=sorted(FORMATS) + ["rejects"])
    p.add_argument("--rigport", required=True)
    p.add_argument("--darkplaces", default="")
    p.add_argument("--work", required=True)
    a = p.parse_args()
    if not a.darkplaces or not os.access(a.darkplaces, os.X_OK):
        print("SKIP: darkplaces-server not found (apt-get install darkplaces-server); "
              "the DarkPlaces load tests did not run")
        return SKIP
    work = os.path.abspath(a.work)
    try:
        if a.case == "rejects":
            run_rejects(a.rigport, a.darkplaces, work)
        else:
            run_format(a.rigport, a.darkplaces, work, a.case)
    except Failure as e:
        print("FAIL: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
