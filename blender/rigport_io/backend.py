# Runs rigport for the add-on: the CLI (preferences, RIGPORT_BINARY, PATH) or the Python module.
import json
import os
import shutil
import subprocess


class RigportError(Exception):
    """A failed rigport run; the message names the file and the place when rigport gave them."""


NOT_FOUND = ("rigport was not found: set its path in Edit > Preferences > Add-ons > "
             "Import-Export: rigport I/O, put `rigport` on PATH, or set RIGPORT_BINARY")


def find_binary(pref_path=""):
    """The rigport executable to run, or None when only the Python module is left."""
    for path, where in ((pref_path, "the add-on preferences"),
                        (os.environ.get("RIGPORT_BINARY", ""), "RIGPORT_BINARY")):
        if path:
            path = os.path.abspath(os.path.expanduser(path))
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                raise RigportError(f"rigport binary {path!r} (from {where}) is not an executable file")
            return path
    return shutil.which("rigport")


def _module():
    try:
        import rigport
    except ImportError:
        return None
    return rigport if hasattr(rigport, "convert") else None


def _error_text(err):
    place = err.get("path", "")
    if "line" in err:
        place += f":{err['line']}:{err.get('column', 1)}"
    elif "offset" in err:
        place += f": offset {err['offset']}"
    message = err.get("message", "unknown error")
    # rigport's message usually starts with the path already; do not repeat it.
    if place and not message.startswith(err.get("path", "\0")):
        message = f"{place}: {message}"
    return f"rigport {err.get('code', 'error')}: {message}"


def _warning_text(w):
    """rigport's --json warning record as its stderr line: PATH[:LINE:COL | : offset N]: CODE:
    MESSAGE (N times)."""
    if isinstance(w, str):
        return w
    place = w.get("path", "")
    if "line" in w:
        place += f":{w['line']}:{w.get('column', 1)}"
    elif "offset" in w:
        place += f": offset {w['offset']}"
    text = f"{place}: {w.get('code', 'warning')}: {w.get('message', '')}" if place else \
        f"{w.get('code', 'warning')}: {w.get('message', '')}"
    count = w.get("count", 1)
    return text + (f" ({count} times)" if count and count > 1 else "")


def _run(exe, args):
    proc = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, text=True)
    try:
        out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    except json.JSONDecodeError:
        out = {}
    if proc.returncode != 0 or "error" in out and out["error"]:
        if isinstance(out.get("error"), dict):
            raise RigportError(_error_text(out["error"]))
        tail = proc.stderr.strip().splitlines()
        raise RigportError(tail[-1] if tail else f"rigport exited with code {proc.returncode}")
    return out


def convert(inputs, output, pref_path="", scale=None, rotate=None, cal3d_dialect=None,
            cal3d_binary=False, allow_outside=False, allow_missing=False, compress=False,
            compress_level=None):
    """rigport convert INPUTS -o OUTPUT; returns rigport's warnings (list of str)."""
    exe = find_binary(pref_path)
    if exe is None:
        mod = _module()
        if mod is None:
            raise RigportError(NOT_FOUND)
        # compress_level only with compress, as the CLI and the module require.
        extra = {"compress": True, "compress_level": compress_level} if compress else {}
        try:
            result = mod.convert(list(inputs), output, scale=scale, rotate=rotate,
                                 cal3d_dialect=cal3d_dialect, cal3d_binary=cal3d_binary,
                                 allow_outside=allow_outside, allow_missing=allow_missing, **extra)
        except mod.Error as exc:
            raise RigportError(f"rigport {getattr(exc, 'code', 'error')}: {exc}") from None
        return [_warning_text(w) for w in result.get("warnings", [])]
    args = ["convert"] + list(inputs) + ["-o", output, "--json"]
    if scale is not None and scale != 1.0:
        args += ["--scale", repr(float(scale))]
    if rotate:
        args.append("--rotate=" + rotate)  # '=' keeps a leading minus from looking like an option
    if cal3d_dialect:
        args += ["--cal3d-dialect", cal3d_dialect]
    if cal3d_binary:
        args.append("--cal3d-binary")
    if compress:
        args.append("--compress")
        if compress_level:
            args += ["--compress-level", compress_level]
    if allow_outside:
        args.append("--allow-outside")
    if allow_missing:
        args.append("--allow-missing")
    return [_warning_text(w) for w in _run(exe, args).get("warnings", [])]


def info(path, pref_path="", allow_missing=False, allow_outside=False):
    """rigport info --json PATH as a dict."""
    exe = find_binary(pref_path)
    if exe is None:
        mod = _module()
        if mod is None or not hasattr(mod, "info"):
            raise RigportError(NOT_FOUND)
        try:
            return mod.info(path)
        except mod.Error as exc:
            raise RigportError(f"rigport {getattr(exc, 'code', 'error')}: {exc}") from None
    args = ["info", path, "--json"]
    if allow_outside:
        args.append("--allow-outside")
    if allow_missing:
        args.append("--allow-missing")
    return _run(exe, args)


def registry(pref_path=""):
    """The registry as `rigport formats --json` prints it: its format rows ("formats") and the
    archives of models it opens ("archives"; docs/formats.md)."""
    exe = find_binary(pref_path)
    if exe is None:
        mod = _module()
        if mod is None or not hasattr(mod, "formats"):
            raise RigportError(NOT_FOUND)
        return mod.formats()
    return _run(exe, ["formats", "--json"])


def formats(pref_path=""):
    """The registry's rows, as `rigport formats --json` lists them (docs/formats.md)."""
    return registry(pref_path)["formats"]


def retarget(clips, onto, output, pref_path="", map_file="", root_motion="scale", name="",
             allow_outside=False, allow_missing=False):
    """rigport retarget CLIPS --onto ONTO -o OUTPUT (docs/retarget.md); returns rigport's
    warnings (list of str)."""
    exe = find_binary(pref_path)
    if exe is None:
        mod = _module()
        if mod is None or not hasattr(mod, "retarget"):
            raise RigportError(NOT_FOUND)
        try:
            result = mod.retarget(list(clips), onto, output, map=map_file or "auto", root_motion=root_motion,
                                  name=name or None, allow_outside=allow_outside, allow_missing=allow_missing)
        except mod.Error as exc:
            raise RigportError(f"rigport {getattr(exc, 'code', 'error')}: {exc}") from None
        return [_warning_text(w) for w in result.get("warnings", [])]
    args = ["retarget"] + list(clips) + ["--onto", onto, "-o", output, "--json",
                                         "--map", map_file or "auto", "--root-motion", root_motion]
    if name:
        args += ["--name", name]
    if allow_outside:
        args.append("--allow-outside")
    if allow_missing:
        args.append("--allow-missing")
    return [_warning_text(w) for w in _run(exe, args).get("warnings", [])]
