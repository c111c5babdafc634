# `cmake --install` puts the module where Debian's python3 looks for the install prefix's modules.
import os
import subprocess

import pytest


def test_install_is_importable_without_pythonpath(tmp_path):
    build = os.environ.get("RIGPORT_BUILD_DIR")
    if not build:
        pytest.skip("RIGPORT_BUILD_DIR is not set (ctest sets it)")
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", build, "--prefix", prefix, "--component", "python"], check=True,
                   capture_output=True)
    # -I: no PYTHONPATH, no user site; the prefix's site folders as Debian's site.py names them.
    code = ("import site, sys; [site.addsitedir(d) for d in site.getsitepackages([sys.argv[1]])]; "
            "import rigport; print(rigport.__file__); print(len(rigport.sample().meshes))")
    done = subprocess.run(["/usr/bin/python3", "-I", "-c", code, str(prefix)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    where, meshes = done.stdout.split()
    installed = os.path.join(prefix, os.environ["RIGPORT_PYTHON_INSTALL_DIR"])
    # A package: rigport/__init__.py beside the compiled rigport/_rigport module.
    assert os.path.dirname(os.path.dirname(where)) == installed and meshes == "1"
