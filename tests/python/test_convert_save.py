# rigport.convert writes the bytes `rigport convert` writes and returns its --json record;
# rigport.save writes atomically; errors are rigport.Error with code, path and place.
import json
import os

import pytest
import rigport

from conftest import cli_json, run_cli

# (inputs relative to the corpus, output name, keyword arguments, the same as CLI flags)
CONVERT_CASES = [
    (["iqm/mrfixit.iqm"], "out.iqe", {}, []),
    (["iqm/mrfixit.iqm"], "out.fbx", {"fbx_ascii": True}, ["--fbx-ascii"]),
    (["gltf/CesiumMan.glb"], "out.fbx", {"fbx_version": 7500}, ["--fbx-version", "7500"]),
    (["gltf/CesiumMan.glb"], "out.fbx", {"fbx_pre_rotation": False, "images": "embed"}, ["--fbx-no-pre-rotation", "--images", "embed"]),
    (["iqe/unvanquished_rocket.iqe"], "out.iqm", {"scale": 2.0}, ["-s", "2"]),
    (["iqm/raylib_guy.iqm", "iqm/raylib_guyanim.iqm"], "out.glb", {"rotate": (90, 0, 0)}, ["-r", "90,0,0"]),
    (["cal3d/upstream_tests/base.xsf", "cal3d/upstream_tests/base.xmf", "cal3d/upstream_tests/base.xaf"], "out.cfg",
     {"cal3d_dialect": "1100", "cal3d_binary": True}, ["--cal3d-dialect", "1100", "--cal3d-binary"]),
    (["gltf/SimpleSkin.gltf"], "out.joe", {"format": "joe"}, ["--format", "joe"]),
    (["fbx/ufbx_ufbx__maya_kenney_character_7700_binary.fbx"], "out.glb", {"unit": "keep"}, ["--unit", "keep"]),
    (["fbx/ufbx_ufbx__maya_kenney_character_7700_binary.fbx"], "out.smd", {"unit": "m"}, ["--unit", "m"]),
    (["md2/assimp_assimp__faerie.md2"], "out.iqe", {"frame_rate": 24}, ["--frame-rate", "24"]),
    (["iqm/mrfixit.iqm"], "out.smd", {"target": "goldsrc", "max_error": 0.5}, ["--target", "goldsrc", "--max-error", "0.5"]),
    (["gltf/CesiumMan.glb"], "out.glb", {"compress": True}, ["--compress"]),
    (["iqm/mrfixit.iqm"], "out.gltf", {"compress": True, "compress_level": "fast", "position_bits": 14},
     ["--compress", "--compress-level", "fast", "--position-bits", "14"]),
]


def folder_bytes(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("inputs,name,kwargs,flags", CONVERT_CASES, ids=[c[1] + "-" + c[0][0].split("/")[-1] for c in CONVERT_CASES])
def test_convert_writes_the_cli_bytes(cli, corpus, tmp_path, inputs, name, kwargs, flags):
    paths = [str(corpus / f) for f in inputs]
    by_cli, by_python = tmp_path / "cli", tmp_path / "python"
    by_cli.mkdir()
    by_python.mkdir()
    record = cli_json(cli, "convert", *paths, "-o", by_cli / name, "--json", *flags)
    result = rigport.convert(paths if len(paths) > 1 else paths[0], by_python / name, **kwargs)
    assert folder_bytes(by_python) == folder_bytes(by_cli)  # side files (Cal3D members) too
    assert len(folder_bytes(by_python)) >= 1
    # The same record but for where it was written and how long it took.
    for r, folder in ((record, by_cli), (result, by_python)):
        del r["seconds"]
        r["outputs"] = [os.path.relpath(p, folder) for p in r["outputs"]]
        for w in r["warnings"]:
            w["path"] = w["path"].replace(str(folder), "OUT")
    assert result == record


def test_convert_refuses_bad_options(corpus, tmp_path):
    src = str(corpus / "iqm/mrfixit.iqm")
    with pytest.raises(ValueError, match="axis"):
        rigport.convert(src, tmp_path / "x.glb", axis="sideways")
    with pytest.raises(ValueError, match="scale"):
        rigport.convert(src, tmp_path / "x.iqm", scale=0)
    with pytest.raises(ValueError, match="compress"):
        rigport.convert(src, tmp_path / "x.glb", position_bits=10)
    with pytest.raises(ValueError, match="compress_level"):
        rigport.convert(src, tmp_path / "x.glb", compress=True, compress_level="tiny")
    with pytest.raises(ValueError, match="compress"):
        rigport.convert(src, tmp_path / "x.iqm", compress=True)
    with pytest.raises(TypeError, match="colour"):
        rigport.convert(src, tmp_path / "x.iqm", colour=True)
    with pytest.raises(ValueError, match="furlong"):
        rigport.convert(src, tmp_path / "x.iqm", unit="furlong")
    with pytest.raises(ValueError, match="frame_rate"):
        rigport.convert(src, tmp_path / "x.iqm", frame_rate=0)
    with pytest.raises(rigport.Error) as e:
        rigport.convert(src, tmp_path / "x.unknown")
    assert e.value.code == "invalid argument"
    assert list(tmp_path.iterdir()) == []  # nothing written


QUAD_IQE = ('# Inter-Quake Export\nmesh quad\nmaterial "models/x/skin"\n'
            'vp 0 0 0\nvt 0 1\nvp 1 0 0\nvt 1 1\nvp 1 1 0\nvt 1 0\nfm 0 2 1\n')


def test_convert_texture_path(cli, tmp_path):
    # texture_path= is --texture-path: a game root (or a list of them, in order) where the
    # material's "models/x/skin" is found as models/x/skin.png (docs/cli.md "Textures").
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "x.iqe").write_text(QUAD_IQE)
    (tmp_path / "game" / "models" / "x").mkdir(parents=True)
    (tmp_path / "empty").mkdir()
    run_cli(cli, "sample", "-o", tmp_path / "s.iqm")  # writes sample_texture.png beside it: a PNG to use
    os.replace(tmp_path / "sample_texture.png", tmp_path / "game" / "models" / "x" / "skin.png")
    png = (tmp_path / "game" / "models" / "x" / "skin.png").read_bytes()
    src = tmp_path / "work" / "x.iqe"
    plain = rigport.convert(src, tmp_path / "plain.glb")
    assert png not in (tmp_path / "plain.glb").read_bytes()
    assert [w["code"] for w in plain["warnings"]] == ["texture-not-found"]
    for texture_path in (tmp_path / "game", str(tmp_path / "game"), [tmp_path / "empty", str(tmp_path / "game")]):
        found = rigport.convert(src, tmp_path / "found.glb", texture_path=texture_path)
        assert found["warnings"] == []
        assert png in (tmp_path / "found.glb").read_bytes()  # embedded as it is
    record = cli_json(cli, "convert", src, "-o", tmp_path / "cli.glb", "--texture-path", tmp_path / "empty",
                      "--texture-path", tmp_path / "game", "--json")
    assert record["warnings"] == []
    assert (tmp_path / "cli.glb").read_bytes() == (tmp_path / "found.glb").read_bytes()
    with pytest.raises(ValueError, match="texture_path"):
        rigport.convert(src, tmp_path / "x.glb", texture_path=tmp_path / "nowhere")


def test_convert_never_replaces_an_input(sample_iqm):
    before = sample_iqm.read_bytes()
    with pytest.raises(rigport.Error) as e:
        rigport.convert(sample_iqm, sample_iqm)
    assert e.value.code == "invalid argument" and sample_iqm.read_bytes() == before


def test_save_round_trip(tmp_path, cli):
    scene = rigport.sample()
    out = tmp_path / "s.iqm"
    assert rigport.save(scene, out) == []
    # The sample as `rigport sample` writes it: the same bytes.
    run_cli(cli, "sample", "-o", tmp_path / "ref.iqm")
    assert out.read_bytes() == (tmp_path / "ref.iqm").read_bytes()
    again = rigport.load(out)
    assert again.skeleton.names == scene.skeleton.names
    assert (again.meshes[0].positions == scene.meshes[0].positions).all()
    rigport.save(scene, tmp_path / "s.model", format="iqe")
    assert (tmp_path / "s.model").read_text().startswith("# Inter-Quake Export")
    # No temporaries left (the CLI writes the sample's texture beside its IQM).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ref.iqm", "s.iqm", "s.model", "sample_texture.png"]


def test_save_unit(corpus, tmp_path):
    """A centimetre FBX saves to GLB in metres; unit= keeps its numbers or names another unit
    (docs/units.md). Sizes compared to 1e-6 relative (float positions)."""
    scene = rigport.load(corpus / "fbx/ufbx_ufbx__maya_kenney_character_7700_binary.fbx")
    assert scene.meta["unit_scale"] == pytest.approx(0.01)

    def height(path):
        positions = rigport.load(path).meshes[0].positions
        return float(positions.max(axis=0)[1] - positions.min(axis=0)[1])

    rigport.save(scene, tmp_path / "m.glb")
    rigport.save(scene, tmp_path / "keep.glb", unit="keep")
    rigport.save(scene, tmp_path / "mm.glb", unit="mm")
    assert height(tmp_path / "m.glb") == pytest.approx(height(tmp_path / "keep.glb") * 0.01, rel=1e-6)
    assert height(tmp_path / "mm.glb") == pytest.approx(height(tmp_path / "keep.glb") * 10, rel=1e-6)
    with pytest.raises(ValueError, match="parsec"):
        rigport.save(scene, tmp_path / "x.glb", unit="parsec")
    assert not (tmp_path / "x.glb").exists()


def test_save_failure_names_the_path(tmp_path):
    folder = tmp_path / "model.iqm"
    folder.mkdir()
    with pytest.raises(rigport.Error) as e:
        rigport.save(rigport.sample(), folder)
    assert e.value.code == "write failed" and e.value.path == str(folder)
    assert folder.is_dir() and list(folder.iterdir()) == [] and [p.name for p in tmp_path.iterdir()] == ["model.iqm"]
    with pytest.raises(rigport.Error) as e:
        rigport.save(rigport.sample(), tmp_path / "no" / "such" / "folder.iqm")
    assert e.value.code == "write failed"


def test_save_failure_leaves_the_old_file(tmp_path):
    out = tmp_path / "keep.iqm"
    out.write_bytes(b"old")
    out.chmod(0o444)
    if os.access(out, os.W_OK):
        pytest.skip("running as root: a read-only file is writable")
    with pytest.raises(rigport.Error) as e:
        rigport.save(rigport.sample(), out)
    assert e.value.code == "write failed" and e.value.path == str(out)
    assert out.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["keep.iqm"]
    rigport.save(rigport.sample(), out, force=True)
    assert out.read_bytes()[:16] == b"INTERQUAKEMODEL\0"


def test_missing_file(tmp_path, cli):
    missing = tmp_path / "nope.iqm"
    with pytest.raises(rigport.Error) as e:
        rigport.load(missing)
    err = e.value
    assert isinstance(err, Exception) and err.code == "not found" and err.path == str(missing)
    assert err.offset is None and err.line is None
    # str() is what the CLI prints after "Error: ".
    done = run_cli(cli, "info", missing, ok=False)
    assert done.stderr.strip() == f"Error: {err}"
    with pytest.raises(rigport.Error):
        rigport.info(missing)


def test_truncated_binary_file_names_the_offset(tmp_path, sample_iqm, cli):
    cut = tmp_path / "cut.iqm"
    cut.write_bytes(sample_iqm.read_bytes()[:300])
    with pytest.raises(rigport.Error) as e:
        rigport.load(cut)
    err = e.value
    assert err.code == "malformed" and err.path == str(cut) and isinstance(err.offset, int) and err.line is None
    done = run_cli(cli, "info", "--json", cut, ok=False)
    assert done.returncode == 2
    cli_error = json.loads(done.stdout)["error"]
    assert (cli_error["code"], cli_error["path"], cli_error["offset"]) == (err.code, err.path, err.offset)
    assert done.stderr.strip() == f"Error: {err}"


def test_text_error_names_line_and_column(tmp_path):
    bad = tmp_path / "bad.iqe"
    bad.write_text("# Inter-Quake Export\nmesh m\nvp 1 2 x\n")
    with pytest.raises(rigport.Error) as e:
        rigport.load(bad)
    assert e.value.line == 3 and isinstance(e.value.column, int) and e.value.offset is None


def test_bytes_need_a_name(sample_iqm):
    with pytest.raises(ValueError, match="name="):
        rigport.load(sample_iqm.read_bytes())
    with pytest.raises(rigport.Error) as e:
        rigport.load(b"not a model", name="x.iqm")
    assert e.value.path == "x.iqm"


def writable_formats(cli):
    """(name, extension) of every format `rigport formats` lists as writable."""
    rows = run_cli(cli, "formats").stdout.splitlines()[1:]
    found = []
    for row in rows:
        cells = row.split()
        if len(cells) > 3 and cells[3] == "yes":
            found.append((cells[0], cells[1].split(",")[0]))
    return found


# An array edited in place through its NumPy view, and the words the error must hold.
EDITS = [
    ("triangle index 2^32-1", lambda s: s.meshes[0].triangles.__setitem__((0, 0), 2**32 - 1), "uses vertex 4294967295"),
    ("triangle index just past the end", lambda s: s.meshes[0].triangles.__setitem__((0, 1), s.meshes[0].vertex_count), "uses vertex"),
    ("skin offset 2^32-1", lambda s: s.meshes[0].skin_offsets.__setitem__(1, 2**32 - 1), "4294967295"),
    ("skin joint past the skeleton", lambda s: s.meshes[0].skin_joints.__setitem__(0, len(s.skeleton)), "skin influence 0 is on joint"),
    ("key time going back", lambda s: s.animations[0].tracks[0].times.__setitem__(1, -1.0), "is before times["),
]


def test_save_refuses_arrays_edited_out_of_range(cli, tmp_path):
    formats = writable_formats(cli)
    assert len(formats) >= 8
    for name, ext in formats:
        for what, edit, words in EDITS:
            scene = rigport.sample()
            edit(scene)
            out = tmp_path / f"edited{ext}"
            with pytest.raises(rigport.Error) as e:
                rigport.save(scene, out, format=name)
            assert words in str(e.value), f"{name}, {what}: {e.value}"
            assert not out.exists(), f"{name}, {what}: a file was written"
    assert list(tmp_path.iterdir()) == []


def test_format_names_in_any_letter_case(sample_iqm, tmp_path):
    # The library's registry lookup takes "GLB" as glb, so Python does as the CLI does.
    upper = rigport.convert(str(sample_iqm), tmp_path / "upper.glb", format="GLB")
    rigport.convert(str(sample_iqm), tmp_path / "lower.glb", format="glb")
    assert upper["status"] == "converted"
    assert (tmp_path / "upper.glb").read_bytes() == (tmp_path / "lower.glb").read_bytes()
    rigport.save(rigport.sample(), tmp_path / "sample.model", format="IQM")
    assert (tmp_path / "sample.model").read_bytes()[:16] == b"INTERQUAKEMODEL\0"
