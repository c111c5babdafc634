# Blender add-on test driver: blender -b --factory-startup --python-exit-code 1 -P test_addon.py --
#   --case NAME --work DIR [--corpus DIR]; exit 0 pass, 1 fail, 77 skipped. RIGPORT_CORPUS overrides
#   --corpus; RIGPORT_UPDATE_GOLDEN=1 also writes the sample's picture to docs/images/.
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)

import cases  # noqa: E402
from support import FAILURES, check  # noqa: E402

SKIP = 77


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="test_addon.py")
    p.add_argument("--case", required=True, choices=sorted(cases.CASES))
    p.add_argument("--work", required=True, help="scratch folder in the build tree (emptied first)")
    p.add_argument("--corpus", default="")
    return p.parse_args(argv)


def install_addon(work):
    """Install the add-on as a user would: a zip of blender/rigport_io through Preferences.
    BLENDER_USER_SCRIPTS / BLENDER_USER_CONFIG point into WORK (set by the caller; checked here),
    so the user's own ~/.config/blender is never touched."""
    scripts = os.environ.get("BLENDER_USER_SCRIPTS", "")
    if not scripts.startswith(os.path.abspath(work)):
        sys.exit("BLENDER_USER_SCRIPTS must point into the test's work folder")
    package = os.path.join(SOURCE, "blender", "rigport_io")
    if shutil.which("zip"):
        # The command of docs/blender.md, `cd blender && zip -r rigport_io.zip rigport_io`, on a copy of the
        # folder (the source tree stays as it is).
        folder = os.path.join(work, "blender")
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(package, os.path.join(folder, "rigport_io"), ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run(["zip", "-qr", "rigport_io.zip", "rigport_io"], cwd=folder, check=True)
        archive = os.path.join(folder, "rigport_io.zip")
    else:  # the same layout without the zip tool
        archive = os.path.join(work, "rigport_io.zip")
        with zipfile.ZipFile(archive, "w") as z:
            for name in sorted(os.listdir(package)):
                if name.endswith(".py"):
                    z.write(os.path.join(package, name), f"rigport_io/{name}")
    bpy.ops.preferences.addon_install(filepath=archive, overwrite=True)
    bpy.ops.preferences.addon_enable(module="rigport_io")
    if "rigport_io" not in bpy.context.preferences.addons:
        sys.exit("the add-on did not enable")


def main():
    args = parse_args()
    if not os.environ.get("RIGPORT_BINARY"):
        sys.exit("RIGPORT_BINARY must name the rigport CLI to test with")
    corpus = os.environ.get("RIGPORT_CORPUS") or args.corpus
    golden = ""
    if os.environ.get("RIGPORT_UPDATE_GOLDEN") == "1":
        golden = os.path.join(SOURCE, "docs", "images", "blender_import.png")
    if args.case.startswith("corpus") and not os.path.isdir(corpus):
        print(f"SKIP: corpus not found ({corpus or 'set RIGPORT_CORPUS'}); {args.case} needs it")
        sys.exit(SKIP)
    models = os.path.join(args.work, "models")
    shutil.rmtree(models, ignore_errors=True)
    os.makedirs(models)
    install_addon(args.work)
    # The add-on's temporary folders go here, so the test sees that none is left (errors included).
    tmp = os.path.join(args.work, "tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    tempfile.tempdir = tmp
    start = time.monotonic()
    cases.CASES[args.case](models=models, corpus=corpus, golden=golden)
    check(os.listdir(tmp) == [], f"nothing left in the temporary folder: {os.listdir(tmp)}")
    print(f"{args.case}: {len(FAILURES)} failed checks in {time.monotonic() - start:.1f} s")
    for f in FAILURES:
        print("FAILED:", f)
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except BaseException:
        import traceback
        traceback.print_exc()
        sys.exit(1)
