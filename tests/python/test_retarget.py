# rigport.retarget writes the bytes `rigport retarget` writes and returns its --json record; without
# an output it returns the target Scene with the retargeted clips (docs/retarget.md, docs/python.md).
import json

import pytest
import rigport

from conftest import cli_json


def test_retarget_writes_the_cli_bytes(cli, sample_iqm, tmp_path):
    by_cli, by_python = tmp_path / "cli.glb", tmp_path / "python.glb"
    map_cli, map_python = tmp_path / "cli.json", tmp_path / "python.json"
    record = cli_json(cli, "retarget", sample_iqm, "--onto", sample_iqm, "-o", by_cli, "--root-motion", "in-place",
                      "--name", "moved", "--save-map", map_cli, "--json")
    result = rigport.retarget(sample_iqm, sample_iqm, by_python, root_motion="in-place", name="moved", save_map=map_python)
    assert by_python.read_bytes() == by_cli.read_bytes()
    assert map_python.read_bytes() == map_cli.read_bytes()
    # Onto itself every joint pairs with its namesake and none is left at rest.
    assert result["map"] == record["map"] == json.loads(map_python.read_text())
    assert result["map"] and all(source == target for source, target in result["map"].items())
    assert result["unmapped"] == []
    assert result["root_scale"] == pytest.approx(1.0)
    assert result["status"] == "converted"


def test_retarget_without_output_returns_the_scene(sample_iqm, tmp_path):
    source = rigport.load(sample_iqm)
    scene = rigport.retarget([sample_iqm], sample_iqm, name="again")
    assert len(scene.meshes) == len(source.meshes)
    assert [a.name for a in scene.animations][:1] in (["again"], ["again_" + source.animations[0].name])
    assert len(scene.animations) == len(source.animations)


def test_retarget_refuses_bad_maps_and_words(sample_iqm, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"no such joint": "nor this"}')
    out = tmp_path / "out.glb"
    with pytest.raises(rigport.Error) as e:
        rigport.retarget(sample_iqm, sample_iqm, out, map=bad)
    assert e.value.code == "malformed" and e.value.path == str(bad)
    assert not out.exists()
    with pytest.raises(ValueError):
        rigport.retarget(sample_iqm, sample_iqm, out, root_motion="sideways")
    with pytest.raises(ValueError):
        rigport.retarget(sample_iqm, sample_iqm, save_map=tmp_path / "m.json")
