#!/usr/bin/env python3
"""rigport against its peers, whole process, in one run (docs/speed.md).

Each row runs rigport and the peer that does the same job on the same input, interleaved
(rigport, peer, rigport, peer ...), REPEAT times after one warm-up each, and prints the median
wall time, the median CPU time (user + sys) and the peak resident memory of each, with the ratio
peer / rigport (> 1: rigport is faster). Peers: the reference `iqm` compiler (built here from
../shared/peers/lsalzman-iqm with its own Makefile flags), Debian's assimp command-line tool and
Debian's libcal3d `cal3d_converter`, and ufbx (bench/ufbx_load.c built here with ufbx's sources
from ../shared/peers/ufbx or $RIGPORT_UFBX_DIR: one load and free, against `rigport info`), and
Debian's gltfpack (`-cc`, against `convert --compress`: a second table with both output sizes). Inputs: the corpus (../shared/corpus or $RIGPORT_CORPUS)
and models generated here. Outputs go to a temporary folder.

    bench/compare.sh [--rigport BIN] [--repeat N] [--pin] [--quick] [--only WORD]

--pin runs every process on one core (taskset-like affinity), as a single-threaded peer would
use it; without it rigport may use both cores. --quick leaves out the 500k-triangle rows (the
reference compiler needs about 30 s for one). --only keeps the rows whose task or input contains
WORD.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_once(cmd, pin):
    """Wall seconds, CPU seconds (user + sys) and peak RSS in KiB of one process; raises on failure.

    The command runs under /usr/bin/time, whose %M is the command's own peak: a child forked from
    this Python process would carry Python's resident size into its ru_maxrss across exec."""
    rss_file = os.path.join(tempfile.gettempdir(), f"rigport-compare-rss-{os.getpid()}")
    argv = ["/usr/bin/time", "-f", "%M", "-o", rss_file]
    if pin:
        argv += ["taskset", "-c", str(sorted(os.sched_getaffinity(0))[-1])]
    start = time.perf_counter()
    p = subprocess.Popen(argv + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    with open(rss_file) as f:
        lines = f.read().split()
    os.unlink(rss_file)
    if p.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0])} exited {p.returncode}: {err.strip()[:200]}")
    return wall, usage.ru_utime + usage.ru_stime, int(lines[-1])


def measure(commands, repeat, pin):
    """commands: list of (argv, cleanup) run interleaved; returns per command (wall, cpu, rss) medians."""
    slowest = 0.0
    for argv, cleanup in commands:  # warm-up: page cache, binaries, lazy symbol binding
        slowest = max(slowest, run_once(argv, pin)[0])
        cleanup()
    if slowest > 3.0:
        repeat = 1  # a peer that needs half a minute is timed once
    samples = [[] for _ in commands]
    for _ in range(repeat):
        for i, (argv, cleanup) in enumerate(commands):
            samples[i].append(run_once(argv, pin))
            cleanup()
    return [tuple(statistics.median(s[k] for s in runs) for k in range(3)) for runs in samples]


def fmt_time(seconds):
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def fmt_size(n):
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB"


def peers_dir():
    return os.environ.get("RIGPORT_PEERS", os.path.join(ROOT, "..", "shared", "peers"))


def build_reference_compiler(work):
    source = os.path.join(peers_dir(), "lsalzman-iqm", "iqm.cpp")
    if not os.path.exists(source):
        return None
    binary = os.path.join(work, "iqm_reference")
    # The peer's own Makefile flags: -O3 -fomit-frame-pointer -fsigned-char.
    subprocess.run(["c++", "-O3", "-fomit-frame-pointer", "-fsigned-char", "-w", "-o", binary, source], check=True)
    return binary


def build_ufbx_load(work):
    """bench/ufbx_load.c with ufbx's own sources ($RIGPORT_UFBX_DIR, else PEERS/ufbx), -O2 as
    ufbx's README builds it (rigport's default build is -O2 too)."""
    ufbx = os.environ.get("RIGPORT_UFBX_DIR") or os.path.join(peers_dir(), "ufbx")
    if not os.path.exists(os.path.join(ufbx, "ufbx.c")):
        return None
    binary = os.path.join(work, "ufbx_load")
    subprocess.run(["cc", "-O2", "-std=c99", "-w", "-I", ufbx, "-o", binary, os.path.join(ROOT, "bench", "ufbx_load.c"),
                    os.path.join(ufbx, "ufbx.c"), "-lm"], check=True)
    return binary


def generate_iqe(path, cells, joints, frames):
    """A skinned grid of cells x cells quads (2 cells^2 triangles), joints along X, frames of a bend."""
    import math
    with open(path, "w") as f:
        w = f.write
        w("# Inter-Quake Export\n")
        for j in range(joints):
            w(f'joint "j{j}" {j - 1}\npq {0 if j == 0 else 1} 0 0 0 0 0 1\n')
        w('mesh "grid"\nmaterial "grid.png"\n')
        for y in range(cells + 1):
            for x in range(cells + 1):
                fx, fy = x / cells * joints, y / cells
                j0 = min(joints - 1, int(fx))
                j1 = min(joints - 1, j0 + 1)
                w1 = fx - int(fx)
                w(f"vp {fx:.6g} {fy:.6g} {0.1 * math.sin(fx + fy):.6g}\nvt {x / cells:.6g} {y / cells:.6g}\n"
                  f"vb {j0} {1 - w1:.6g} {j1} {w1:.6g}\n")
        for y in range(cells):
            for x in range(cells):
                a = y * (cells + 1) + x
                b, c = a + 1, a + cells + 1
                w(f"fm {a} {c} {b}\nfm {b} {c} {c + 1}\n")
        w('animation "wave"\nframerate 30\n')
        for fr in range(frames):
            w("frame\n")
            for j in range(joints):
                half = 0.2 * math.sin(0.3 * (fr + j))
                w(f"pq {0 if j == 0 else 1} 0 0 0 0 {math.sin(half):.6g} {math.cos(half):.6g}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rigport", default=os.path.join(ROOT, "build", "rigport"))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--pin", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    rigport = os.path.abspath(args.rigport)
    if not os.access(rigport, os.X_OK):
        sys.exit(f"compare: no rigport binary at {rigport} (scripts/build.sh first, or --rigport)")
    corpus = os.environ.get("RIGPORT_CORPUS") or os.path.join(ROOT, "..", "shared", "corpus")
    if not os.path.isdir(corpus):
        print(f"compare: corpus not found at {corpus} (set RIGPORT_CORPUS): only generated inputs", file=sys.stderr)
        corpus = None
    assimp = shutil.which("assimp")
    cal3d = shutil.which("cal3d_converter")

    work = tempfile.mkdtemp(prefix="rigport-compare-")
    out = os.path.join(work, "out")
    os.mkdir(out)

    def clean():
        for name in os.listdir(out):
            p = os.path.join(out, name)
            shutil.rmtree(p) if os.path.isdir(p) else os.unlink(p)

    def c(*rel):
        return os.path.join(corpus, *rel) if corpus else None

    def existing(paths):
        return [p for p in paths if p and os.path.exists(p)]

    reference = build_reference_compiler(work)
    gen = os.path.join(work, "gen")
    os.mkdir(gen)
    generated = []
    sizes = [(100, 20, 50)] + ([] if args.quick else [(500, 100, 100)])
    for cells, joints, frames in sizes:
        p = os.path.join(gen, f"grid_{2 * cells * cells // 1000}k.iqe")
        generate_iqe(p, cells, joints, frames)
        generated.append(p)

    rows = []  # (task, input path(s), rigport argv, peer name, peer argv)
    if reference:
        iqes = generated + (sorted(existing([c("iqe", f) for f in os.listdir(c("iqe"))])) if corpus else [])
        for f in iqes:
            rows.append(("IQE -> IQM", [f], [rigport, "convert", f, "-o", os.path.join(out, "x.iqm"), "-q"],
                         "reference iqm", [reference, os.path.join(out, "y.iqm"), f]))
    if assimp and corpus:
        for f in sorted(existing([c("iqm", n) for n in os.listdir(c("iqm"))])):
            if "anim" in os.path.basename(f):
                continue  # animation-only file: neither tool writes it to glTF
            rows.append(("IQM -> GLB", [f], [rigport, "convert", f, "-o", os.path.join(out, "x.glb"), "-q"],
                         "assimp export", [assimp, "export", f, os.path.join(out, "y.glb")]))
        if os.path.isdir(c("fbx")):
            for f in sorted(existing([c("fbx", n) for n in os.listdir(c("fbx")) if n.lower().endswith(".fbx")])):
                rows.append(("FBX -> GLB", [f], [rigport, "convert", f, "-o", os.path.join(out, "x.glb"), "-q"],
                             "assimp export", [assimp, "export", f, os.path.join(out, "y.glb")]))
        for f in sorted(existing([c("gltf", n) for n in os.listdir(c("gltf")) if n.endswith((".glb", ".gltf"))])):
            rows.append(("glTF -> IQM", [f], [rigport, "convert", f, "-o", os.path.join(out, "x.iqm"), "-q"],
                         "assimp info", [assimp, "info", f]))
    if corpus and os.path.isdir(c("fbx")):
        # The three largest FBX files: rigport's whole-process read and report against ufbx's load
        # (ufbx is compiled only when a row of it is asked for: about 10 s of CPU).
        fbx = existing([c("fbx", n) for n in os.listdir(c("fbx")) if n.lower().endswith(".fbx")])
        fbx = [f for f in sorted(fbx, key=os.path.getsize, reverse=True)[:3]
               if not args.only or args.only in "FBX read" or args.only in f]
        ufbx_load = build_ufbx_load(work) if fbx else None
        for f in fbx if ufbx_load else []:
            rows.append(("FBX read", [f], [rigport, "info", f], "ufbx load", [ufbx_load, f]))
    if cal3d and corpus:
        cally = c("cal3d", "upstream_binary", "cally")
        for name, ext in [("cally.csf", "xsf"), ("cally_head.cmf", "xmf"), ("cally_walk.caf", "xaf")]:
            f = os.path.join(cally, name)
            if os.path.exists(f):
                rows.append(("Cal3D binary -> XML", [f],
                             [rigport, "convert", f, "-o", os.path.join(out, "x." + ext), "-q"],
                             "cal3d_converter", [cal3d, f, os.path.join(out, "y." + ext)]))
        dokuro = c("cal3d", "upstream_binary", "dokurochan")
        if os.path.isdir(dokuro):
            for name in sorted(os.listdir(dokuro)):
                ext = {".csf": "xsf", ".cmf": "xmf", ".caf": "xaf"}.get(os.path.splitext(name)[1])
                if ext:
                    f = os.path.join(dokuro, name)
                    rows.append(("Cal3D binary -> XML", [f],
                                 [rigport, "convert", f, "-o", os.path.join(out, "x." + ext), "-q"],
                                 "cal3d_converter", [cal3d, f, os.path.join(out, "y." + ext)]))
    if corpus:
        for f in sorted(existing([c("joe", n) for n in os.listdir(c("joe")) if n.endswith(".jpk")])):
            rows.append(("JPK extract", [f], [rigport, "pack", "extract", f, "-o", os.path.join(out, "members")],
                         None, None))

    rows = [r for r in rows if not args.only or args.only in r[0] or any(args.only in p for p in r[1])]
    cpu = open("/proc/cpuinfo").read()
    model = next((l.split(":", 1)[1].strip() for l in cpu.splitlines() if l.startswith("model name")), "?")
    print(f"Machine: {model}, {os.cpu_count()} cores; {'one core per process' if args.pin else 'both cores'}; "
          f"median of {args.repeat} interleaved runs after one warm-up; whole process, wall time "
          f"(CPU time user+sys; peak RSS)\n")
    print("| task | input | rigport | peer | peer time | peer / rigport |")
    print("|---|---|---|---|---|---|")
    failed = False
    for task, inputs, ours, peer, theirs in rows:
        name = ", ".join(os.path.basename(p) for p in inputs)
        size = sum(os.path.getsize(p) for p in inputs)
        cmds = [(ours, clean)] + ([(theirs, clean)] if theirs else [])
        try:
            run_once(ours, args.pin)
        except RuntimeError as e:
            print(f"| {task} | {name} | failed: {e} | | | |")
            failed = True
            continue
        clean()
        if theirs:
            try:
                run_once(theirs, args.pin)
            except RuntimeError as e:
                peer, theirs, cmds = f"{peer}: cannot ({e})", None, cmds[:1]
            clean()
        res = measure(cmds, args.repeat, args.pin)
        (w, cp, rss) = res[0]
        mine = f"{fmt_time(w)} ({fmt_time(cp)}; {rss / 1024:.0f} MB)"
        if theirs:
            (pw, pcp, prss) = res[1]
            ratio = pw / w
            verdict = f"**{ratio:.2f}x**" if ratio >= 1 else f"**{1 / ratio:.2f}x slower**"
            print(f"| {task} | {name} ({fmt_size(size)}) | {mine} | {peer} | "
                  f"{fmt_time(pw)} ({fmt_time(pcp)}; {prss / 1024:.0f} MB) | {verdict} |")
        else:
            print(f"| {task} | {name} ({fmt_size(size)}) | {mine} | {peer or '(no peer)'} | | |")
        sys.stdout.flush()
    failed |= compress_table(rigport, corpus, work, args)
    shutil.rmtree(work)
    return 1 if failed else 0


def compress_table(rigport, corpus, work, args):
    """`rigport convert IN.glb -o OUT.glb --compress` against `gltfpack -i IN.glb -o OUT.glb -cc` on
    the same input GLB (docs/gltf.md "Compressed output"): sizes and times. IN is the corpus GLB, or
    rigport's uncompressed GLB of an IQM model and of the built-in sample. True when one failed."""
    gltfpack = shutil.which("gltfpack")
    if not gltfpack:
        print("\ncompare: gltfpack not found (scripts/setup.sh installs it): no compression table", file=sys.stderr)
        return False
    if args.only and args.only not in "GLB --compress":
        return False
    inputs = os.path.join(work, "compress-in")
    os.makedirs(inputs, exist_ok=True)
    models = []
    if corpus:
        models += [os.path.join(corpus, "gltf", n) for n in ("CesiumMan.glb", "RiggedFigure.glb")]
        iqm = os.path.join(corpus, "iqm", "mrfixit.iqm")
        if os.path.exists(iqm):
            glb = os.path.join(inputs, "mrfixit.glb")
            subprocess.run([rigport, "convert", iqm, "-o", glb, "-q"], check=True)
            models.append(glb)
    sample = os.path.join(inputs, "sample.glb")
    subprocess.run([rigport, "sample", "-o", sample], check=True, stdout=subprocess.DEVNULL)
    models.append(sample)
    print("\n| task | input | rigport --compress | gltfpack -cc | size rigport / gltfpack | rigport time | gltfpack time |")
    print("|---|---|---|---|---|---|---|")
    failed = False
    for f in [m for m in models if os.path.exists(m)]:
        ours, theirs = os.path.join(work, "ours.glb"), os.path.join(work, "theirs.glb")
        mine = [rigport, "convert", f, "-o", ours, "-q", "--compress"]
        peer = [gltfpack, "-i", f, "-o", theirs, "-cc"]
        try:
            run_once(mine, args.pin)
            run_once(peer, args.pin)
        except RuntimeError as e:
            print(f"| GLB --compress | {os.path.basename(f)} | failed: {e} | | | | |")
            failed = True
            continue
        a, b = os.path.getsize(ours), os.path.getsize(theirs)
        res = measure([(mine, lambda: None), (peer, lambda: None)], args.repeat, args.pin)
        print(f"| GLB --compress | {os.path.basename(f)} ({fmt_size(os.path.getsize(f))}) | {a} bytes | {b} bytes | "
              f"**{a / b:.3f}** | {fmt_time(res[0][0])} | {fmt_time(res[1][0])} |")
        sys.stdout.flush()
    return failed


if __name__ == "__main__":
    sys.exit(main())
