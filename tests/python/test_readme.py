# The README's Quick start promises that the module imports right after scripts/demo.sh with one
# exact command: that command, taken from the README as written, run against this build's module
# on the sample the demo writes (so the README and the module cannot drift apart).
import os
import pathlib
import re
import shlex
import subprocess
import sys

from conftest import SOURCE_DIR, run_cli


def test_the_readmes_python_command_runs_after_the_demo(cli, tmp_path):
    readme = (SOURCE_DIR / "README.md").read_text()
    lines = [l for l in readme.splitlines() if l.startswith("PYTHONPATH=build/python python3 -c ")]
    assert len(lines) == 1, "the README's Quick start shows one `PYTHONPATH=build/python python3 -c` command"
    words = shlex.split(lines[0])
    assert words[0] == "PYTHONPATH=build/python" and words[1] == "python3" and words[2] == "-c"
    # The demo's out/sample.iqm, in a folder of our own; build/python is this build's module.
    (tmp_path / "out").mkdir()
    run_cli(cli, "sample", "-o", tmp_path / "out" / "sample.iqm")
    module_dir = pathlib.Path(os.environ.get("RIGPORT_BUILD_DIR", SOURCE_DIR / "build")) / "python"
    env = dict(os.environ, PYTHONPATH=str(module_dir))
    done = subprocess.run([sys.executable, "-c", words[3]], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"\d+ vertices\n", done.stdout), done.stdout
    assert int(done.stdout.split()[0]) > 0
