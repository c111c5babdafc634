# Shared fixtures of the Python module's tests: the CLI to compare with, the corpus, a CLI runner.
import json
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("RIGPORT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("RIGPORT_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("RIGPORT_CLI is not set to the built rigport binary (ctest sets it)")
    return path


@pytest.fixture(scope="session")
def corpus():
    path = pathlib.Path(os.environ.get("RIGPORT_CORPUS", SOURCE_DIR.parent / "shared" / "corpus"))
    if not path.is_dir():
        pytest.skip(f"no corpus at {path} (set RIGPORT_CORPUS)")
    return path


def run_cli(cli, *args, ok=True):
    """The CLI's stdout; with ok, exit 0 is required."""
    done = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    if ok:
        assert done.returncode == 0, f"rigport {' '.join(map(str, args))}: {done.stderr}"
    return done


def cli_json(cli, *args):
    return json.loads(run_cli(cli, *args).stdout)


def comparable(records, folder):
    """Records without the time taken, with paths relative to where they were written."""
    out = []
    for r in records:
        r = dict(r)
        del r["seconds"]
        r.pop("failure", None)
        r["outputs"] = [os.path.relpath(p, folder) for p in r["outputs"]]
        for w in r["warnings"]:
            w["path"] = w["path"].replace(str(folder), "OUT")
        out.append(r)
    return out


@pytest.fixture
def sample_iqm(cli, tmp_path):
    path = tmp_path / "sample.iqm"
    run_cli(cli, "sample", "-o", path)
    return path
