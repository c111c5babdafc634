# rigport.batch writes the files `rigport batch` writes, byte for byte, and reports each model as
# its --report does; a corrupt model is reported, not raised, and the others are converted.
import json

import pytest
import rigport

from conftest import comparable, run_cli


def make_folder(root):
    """A small tree of models the test writes itself: formats rigport writes, a corrupt file, a
    subfolder (mirrored in the output) and a file no format reads."""
    scene = rigport.sample()
    (root / "sub").mkdir(parents=True)
    rigport.save(scene, root / "a.iqm")
    rigport.save(scene, root / "sub" / "b.iqe")
    rigport.save(scene, root / "sub" / "c.smd")
    (root / "broken.iqm").write_bytes(b"INTERQUAKEMODEL\0" + b"\x02\0\0\0" + b"\xff" * 40)
    (root / "notes.txt").write_text("not a model\n")
    return root


def tree_bytes(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("fmt", ["glb", "iqm", "gltf"])
def test_batch_writes_the_cli_bytes(cli, tmp_path, fmt):
    src = make_folder(tmp_path / "in")
    by_cli, by_python = tmp_path / "cli", tmp_path / "python"
    done = run_cli(cli, "batch", src, "-o", by_cli, "--format", fmt, "-j", "2", "--report", tmp_path / "report.json", ok=False)
    assert done.returncode == 2, done.stderr  # the corrupt file: a read error, the others converted
    report = rigport.batch(src, by_python, fmt, jobs=2)

    assert tree_bytes(by_python) == tree_bytes(by_cli)
    assert len(tree_bytes(by_python)) >= 3
    cli_records = json.loads((tmp_path / "report.json").read_text())
    assert comparable(report["models"], by_python) == comparable(cli_records, by_cli)
    # The SMD writer put each animation in a file of its own beside c.smd and a c.qc naming them:
    # they are c.smd's companions, not models of their own.
    names = ("a.iqm", "broken.iqm", "sub/b.iqe", "sub/c.smd")
    assert [m["input"] for m in report["models"]] == [str(src / n) for n in names]
    assert (report["converted"], report["failed"], report["failure"]) == (3, 1, "read")


def test_batch_reports_a_corrupt_model_and_goes_on(tmp_path):
    src = make_folder(tmp_path / "in")
    report = rigport.batch([src / "broken.iqm", src / "a.iqm"], tmp_path / "out", "iqe", jobs=1)
    broken, good = report["models"]
    assert broken["status"] == "failed" and broken["failure"] == "read"
    assert broken["error"]["path"] == str(src / "broken.iqm")
    assert broken["outputs"] == []
    assert good["status"] == "converted" and good["failure"] is None and good["error"] is None
    assert good["outputs"] == [str(tmp_path / "out" / "a.iqe")]
    assert (tmp_path / "out" / "a.iqe").read_bytes().startswith(b"# Inter-Quake Export")
    assert not (tmp_path / "out" / "broken.iqe").exists()


def test_batch_skips_and_claims(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    rigport.save(rigport.sample(), src / "m.iqm")
    (src / "p.jpk").write_bytes(b"\0\0")
    report = rigport.batch(src, tmp_path / "out", "glb")
    assert report["skipped"] == [{"path": str(src / "p.jpk"), "reason": "a JPK pack is not expanded (convert a member as PACK.jpk:MEMBER)"}]
    assert [m["input"] for m in report["models"]] == [str(src / "m.iqm")]


def test_batch_refuses_bad_options(tmp_path):
    src = make_folder(tmp_path / "in")
    with pytest.raises(rigport.Error, match="unknown format 'nope'") as e:
        rigport.batch(src, tmp_path / "out", "nope")
    assert e.value.code == "invalid argument"
    with pytest.raises(ValueError, match="furlong"):
        rigport.batch(src, tmp_path / "out", "glb", unit="furlong")
    with pytest.raises(TypeError, match="threads"):
        rigport.batch(src, tmp_path / "out", "glb", threads=2)
    (tmp_path / "file").write_text("x")
    with pytest.raises(rigport.Error, match="out_dir") as e:
        rigport.batch(src, tmp_path / "file", "glb")
    assert e.value.code == "invalid argument"
    (tmp_path / "empty").mkdir()
    with pytest.raises(rigport.Error, match="no models found"):
        rigport.batch(tmp_path / "empty", tmp_path / "out", "glb")
    assert not (tmp_path / "out").exists()  # nothing written before the options were checked
