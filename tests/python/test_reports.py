# rigport.info, rigport.validate and rigport.check give the very objects `rigport info --json` and
# `rigport validate --json` print (one builder in the library), for corpus files and the sample.
import json

import pytest
import rigport

from conftest import cli_json, run_cli

# One model per format, several files as one model, and the stored per-part counts (JOE).
INFO_CASES = [
    ["iqm/mrfixit.iqm"],
    ["iqm/raylib_guy.iqm", "iqm/raylib_guyanim.iqm"],
    ["iqe/unvanquished_rocket.iqe"],
    ["cal3d/upstream_tests/base.xaf", "cal3d/upstream_tests/base.xsf", "cal3d/upstream_tests/base.xmf",
     "cal3d/upstream_tests/base.xrf"],
    ["joe/trackeditor__tracks_test1_starting_line.joe"],
    ["gltf/SimpleSkin.gltf"],
    ["gltf/CesiumMan.glb"],
]


@pytest.mark.parametrize("files", INFO_CASES, ids=lambda f: f[0].split("/")[-1])
def test_info_equals_cli_json(cli, corpus, files):
    paths = [str(corpus / f) for f in files]
    source = paths if len(paths) > 1 else paths[0]
    assert rigport.info(source) == cli_json(cli, "info", "--json", *paths)


def test_info_allow_missing(cli, corpus):
    # cally.cfg names meshes the corpus lacks: an error, or with allow_missing a warning each.
    cfg = corpus / "cal3d/upstream_binary/cally/cally.cfg"
    with pytest.raises(rigport.Error) as e:
        rigport.info(cfg)
    assert e.value.code == "not found" and e.value.line == 13
    got = rigport.info(cfg, allow_missing=True)
    assert got == cli_json(cli, "info", "--json", "--allow-missing", cfg)
    assert any("part-missing" in w for w in got["warnings"])


def test_info_of_the_sample(cli, sample_iqm):
    got = rigport.info(sample_iqm)
    assert got == cli_json(cli, "info", "--json", sample_iqm)
    assert got["format"] == "iqm" and got["joints"] == 4 and [a["name"] for a in got["animations"]] == ["wave", "pulse"]


@pytest.mark.parametrize("file", ["iqm/mrfixit.iqm", "iqe/unvanquished_rocket.iqe", "gltf/SimpleSkin.gltf",
                                  "joe/trackeditor__tracks_test1_starting_line.joe"])
def test_validate_equals_cli_json(cli, corpus, file):
    path = str(corpus / file)
    assert rigport.validate(path) == cli_json(cli, "validate", "--json", path)


def test_validate_of_several_files(cli, corpus):
    paths = [str(corpus / "iqm/raylib_guy.iqm"), str(corpus / "iqm/raylib_guyanim.iqm")]
    assert rigport.validate(paths) == cli_json(cli, "validate", "--json", *paths)


def test_validate_finds_what_is_wrong(tmp_path, sample_iqm):
    # A truncated IQM: the report says so (an error finding), it is not an exception.
    bad = tmp_path / "cut.iqm"
    bad.write_bytes(sample_iqm.read_bytes()[:200])
    report = rigport.validate(bad)
    assert report["format"] == "iqm" and report["errors"] >= 1
    assert any(f["severity"] == "error" for f in report["findings"])


def test_companions_keyword(cli, tmp_path):
    # A mesh file alone takes the animation files beside it that share its stem (docs/cli.md
    # "Companions"), as the CLI does; companions=False reads it alone, as --no-companions.
    mesh = tmp_path / "Bob.md5mesh"
    run_cli(cli, "sample", "-o", tmp_path / "sample.iqm")
    run_cli(cli, "convert", tmp_path / "sample.iqm", "-o", mesh, "-q")
    anims = sorted(str(p) for p in tmp_path.glob("Bob_*.md5anim"))
    assert anims
    got = rigport.info(mesh)
    assert got == cli_json(cli, "info", "--json", mesh)
    assert got["companions"] == anims and len(got["animations"]) == len(anims)
    alone = rigport.info(mesh, companions=False)
    assert alone == cli_json(cli, "info", "--json", "--no-companions", mesh)
    assert alone["companions"] == [] and alone["animations"] == []
    assert rigport.validate(mesh)["companions"] == anims
    assert rigport.validate(mesh, companions=False)["companions"] == []
    assert len(rigport.load(mesh).animations) == len(anims)
    assert len(rigport.load(mesh, companions=False).animations) == 0
    record = rigport.convert(mesh, tmp_path / "bob.glb", companions=False)
    assert record["companions"] == []


def test_formats_equals_cli_json(cli):
    # The registry with every row's fields, as `rigport formats --json` prints it (docs/formats.md).
    got = rigport.formats()
    assert got == cli_json(cli, "formats", "--json")
    rows = {r["name"]: r for r in got["formats"]}
    assert rows["cal3d"]["member_extensions"] and ".caf" in rows["cal3d-caf"]["animation_only_extensions"]
    assert rows["gltf"]["single_file_extension"] == ".glb" and not rows["hlmdl"]["write"]
    assert rows["fbx"]["write"] and rows["fbx"]["writer_options"] == ["--fbx-ascii", "--fbx-version", "--fbx-no-pre-rotation", "--timestamp"]


def test_check_equals_cli_json(cli, sample_iqm):
    # The sample weights vertices with two joints: GoldSrc binds each vertex to one bone.
    for target, exit_code in (("goldsrc", 5), ("three", 0)):
        got = rigport.check(str(sample_iqm), target)
        done = run_cli(cli, "check", "--target", target, "--json", sample_iqm, ok=False)
        assert done.returncode == exit_code
        assert got == json.loads(done.stdout)
        assert got["target"] == target
    # ... and its texture, a PNG beside it, is not the 8-bit BMP studiomdl takes.
    assert [f["code"] for f in rigport.check(str(sample_iqm), "goldsrc")["findings"]] == [
        "target.influences", "target.texture_type", "target.texture_palette"]
    assert [f["code"] for f in rigport.check(rigport.load(str(sample_iqm)), "goldsrc")["findings"]] == ["target.influences"]
    assert rigport.check(str(sample_iqm), "three")["errors"] == 0


def test_check_of_a_loaded_scene(sample_iqm):
    scene = rigport.load(sample_iqm)
    assert [f["code"] for f in rigport.check(scene, "GoldSrc")["findings"]] == ["target.influences"]
    with pytest.raises(ValueError, match="idtech4"):
        rigport.check(scene, "doom3")
