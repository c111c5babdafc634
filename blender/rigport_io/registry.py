# The formats rigport knows, from its own registry (`rigport formats --json`, or the Python
# module's formats()): the add-on's menus, file filters and checks are built from its rows, so a
# format rigport gains appears here without an edit (docs/blender.md "Menus").
import os

from . import backend

_CACHE = {}


def _registry(pref_path):
    """`rigport formats --json`, read once per rigport."""
    exe = backend.find_binary(pref_path) or ""
    if exe not in _CACHE:
        _CACHE[exe] = backend.registry(pref_path)
    return _CACHE[exe]


def rows(pref_path=""):
    """The registry's rows (dicts as `rigport formats --json` prints them)."""
    return _registry(pref_path)["formats"]


def archives(pref_path=""):
    """The archives of models rigport opens (a VDrift JPK pack: ARCHIVE:MEMBER names a model in
    one), as `rigport formats --json` lists them under "archives"."""
    return _registry(pref_path).get("archives", [])


def archive_extensions(archives):
    return {e for a in archives for e in a["extensions"]}


def _members(rows):
    """Extensions of files that are parts of another format's file (a Cal3D .cfg's .csf, .xmf ...)."""
    return {e for r in rows for e in r["member_extensions"]}


def _label(row, extensions):
    # The description up to its first parenthesis or colon: "Inter-Quake Model", "Doom 3 MD5".
    text = row["description"].split(" (")[0].split(":")[0]
    return f"{text} via rigport ({', '.join(extensions)})"


def _menu_rows(rows, can):
    """The rows a menu shows: those that can read (or write), leaving out a row that is a part of
    another's file or whose extensions an earlier row already covers (glb after gltf)."""
    members = _members(rows)
    shown, covered = [], set()
    for r in rows:
        exts = set(r["extensions"])
        if not r[can] or not exts or exts <= members or exts <= covered:
            continue
        shown.append(r)
        covered |= exts
    return shown


def import_entries(rows, archives=()):
    """(menu text, file filter) per File > Import entry; a format made of files lists them too,
    and each archive of models gets one."""
    entries = []
    for r in _menu_rows(rows, "read"):
        exts = list(r["extensions"]) + [e for e in r["member_extensions"] if e not in r["extensions"]]
        entries.append((_label(r, exts), ";".join("*" + e for e in exts)))
    for a in archives:
        entries.append((f"{a['description']} via rigport ({', '.join(a['extensions'])})", ";".join("*" + e for e in a["extensions"])))
    return entries


def export_extension(row):
    """The extension an export to the row's format gets: the one that writes everything into one
    file when the format has it (glTF: .glb), else its first."""
    return row["single_file_extension"] or row["extensions"][0]


def export_entries(rows):
    """(menu text, extension) per File > Export entry."""
    return [(_label(r, [export_extension(r)]), export_extension(r)) for r in _menu_rows(rows, "write")]


def import_glob(rows, archives=()):
    return ";".join(glob for _, glob in import_entries(rows, archives))


def export_glob(rows):
    return ";".join("*" + e for r in _menu_rows(rows, "write") for e in r["extensions"])


def writable_extensions(rows):
    """Extensions an export may have: those of the rows the export menu shows."""
    return {e for r in _menu_rows(rows, "write") for e in r["extensions"]}


def model_extensions(rows):
    """Extensions of files rigport reads as models (a pack's members worth importing)."""
    return {e for r in rows if r["read"] for e in r["extensions"]}


def animation_only_extensions(rows):
    """Extensions of files that hold animations only: picked with others, they go last."""
    return {e for r in rows for e in r["animation_only_extensions"]}


def row_for(rows, path):
    """The row rigport picks for an output by its extension (the first that claims it), or None."""
    lower = path.lower()
    for r in rows:
        if any(lower.endswith(e) for e in r["extensions"]):
            return r
    return None


def extension_of(path):
    return os.path.splitext(path)[1].lower()
