# rigport.load and the Scene's NumPy views: shapes, dtypes and values against the CLI's own IQE
# text of the same model, views without copies, and the scene kept alive by an array.
import gc

import numpy as np
import pytest
import rigport

from conftest import cli_json, run_cli


def iqe_meshes(text):
    """Per mesh of an IQE file: vp, vn, vt rows, vb pairs and fm triangles, as floats/ints."""
    meshes = []
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "mesh":
            meshes.append({"vp": [], "vn": [], "vt": [], "vb": [], "fm": []})
        elif words[0] in ("vp", "vn", "vt"):
            meshes[-1][words[0]].append([float(w) for w in words[1:]])
        elif words[0] == "vb":
            meshes[-1]["vb"].append([float(w) for w in words[1:]])
        elif words[0] == "fm":
            meshes[-1]["fm"].append([int(w) for w in words[1:]])
    return meshes


@pytest.fixture
def sample_iqe(cli, sample_iqm, tmp_path):
    path = tmp_path / "sample.iqe"
    run_cli(cli, "convert", sample_iqm, "-o", path)
    return iqe_meshes(path.read_text())


def test_streams_match_the_cli_iqe(sample_iqm, sample_iqe, cli):
    scene = rigport.load(sample_iqm)
    info = cli_json(cli, "info", "--json", sample_iqm)
    assert len(scene.meshes) == len(info["meshes"]) == len(sample_iqe)
    for mesh, described, text in zip(scene.meshes, info["meshes"], sample_iqe):
        n = described["vertices"]
        assert mesh.positions.shape == (n, 3) and mesh.positions.dtype == np.float32
        assert mesh.normals.shape == (n, 3) and mesh.normals.dtype == np.float32
        assert mesh.tangents.shape == (n, 4)
        assert len(mesh.texcoords) == 1 and mesh.texcoords[0].shape == (n, 2)
        assert len(mesh.colors) == 1 and mesh.colors[0].shape == (n, 4)
        assert mesh.triangles.shape == (described["triangles"], 3) and mesh.triangles.dtype == np.uint32
        # IQE prints numbers with 6 or more significant digits.
        np.testing.assert_allclose(mesh.positions, np.array(text["vp"])[:, :3], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(mesh.normals, np.array(text["vn"]), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(mesh.texcoords[0], np.array(text["vt"]), rtol=1e-5, atol=1e-6)
        assert mesh.triangles.tolist() == text["fm"]
        # Skin: "vb joint weight joint weight ..." per vertex, in the stored order.
        offsets = mesh.skin_offsets
        assert offsets.shape == (n + 1,) and offsets[0] == 0 and offsets[-1] == len(mesh.skin_joints)
        for v, row in enumerate(text["vb"]):
            a, b = offsets[v], offsets[v + 1]
            assert mesh.skin_joints[a:b].tolist() == [int(x) for x in row[0::2]]
            np.testing.assert_allclose(mesh.skin_weights[a:b], row[1::2], rtol=1e-5, atol=1e-6)


def test_skeleton_and_animations_match_info(cli, sample_iqm):
    scene = rigport.load(sample_iqm)
    info = cli_json(cli, "info", "--json", sample_iqm)
    skeleton = scene.skeleton
    assert skeleton.names == [j["name"] for j in info["skeleton"]]
    assert skeleton.parents.dtype == np.int32 and skeleton.parents.tolist() == [j["parent"] for j in info["skeleton"]]
    assert skeleton.translations.shape == (4, 3) and skeleton.rotations.shape == (4, 4) and skeleton.scales.shape == (4, 3)
    np.testing.assert_allclose(np.linalg.norm(skeleton.rotations, axis=1), 1.0, atol=1e-5)
    assert [(a.name, a.fps, a.loop) for a in scene.animations] == [(a["name"], a["fps"], a["loop"]) for a in info["animations"]]
    for anim, described in zip(scene.animations, info["animations"]):
        assert anim.tracks
        for track in anim.tracks:
            k = track.times.shape[0]
            assert track.times.dtype == np.float32 and track.values.shape == (k, 4 if track.channel == "rotation" else 3)
            assert 0 <= track.joint < len(skeleton)
            assert np.all(np.diff(track.times) > 0)
        # Keys per frame: the last key sits at (frames - 1) / fps.
        assert max(float(t.times[-1]) for t in anim.tracks) == pytest.approx((described["frames"] - 1) / described["fps"], rel=1e-5)
    assert scene.meta["source_format"] == "iqm"
    assert scene.warnings == info["warnings"]


def test_arrays_are_views_not_copies():
    scene = rigport.sample()
    mesh = scene.meshes[0]
    a, b = mesh.positions, mesh.positions
    assert np.shares_memory(a, b)  # both view the scene's vector
    assert not a.flags.owndata and a.flags.writeable
    a[0, 0] = 123.5
    assert scene.meshes[0].positions[0, 0] == np.float32(123.5)
    joints, weights = mesh.skin_joints, mesh.skin_weights
    assert joints.strides == (8,) and weights.strides == (8,)  # the stored {joint, weight} pairs
    track = scene.animations[0].tracks[0]
    assert np.shares_memory(track.values, scene.animations[0].tracks[0].values)


def test_an_array_keeps_the_scene_alive():
    scene = rigport.sample()
    expected = scene.meshes[0].positions.copy()
    positions = scene.meshes[0].positions
    times = scene.animations[0].tracks[0].times
    del scene
    gc.collect()
    junk = [np.full(10000, 7.0) for _ in range(50)]  # reuse freed memory, if it were freed
    assert np.array_equal(positions, expected)
    assert times.shape[0] > 0 and np.all(np.isfinite(times))
    del junk


def test_load_bytes_equals_load_path(sample_iqm):
    data = sample_iqm.read_bytes()
    from_path = rigport.load(sample_iqm)
    for source in (data, bytearray(data), memoryview(data)):
        scene = rigport.load(source, name="x.iqm")
        assert np.array_equal(scene.meshes[0].positions, from_path.meshes[0].positions)
        assert scene.skeleton.names == from_path.skeleton.names


def test_load_several_files_as_one_model(cli, corpus):
    mesh, anim = corpus / "iqm/raylib_guy.iqm", corpus / "iqm/raylib_guyanim.iqm"
    scene = rigport.load([mesh, anim])
    info = cli_json(cli, "info", "--json", mesh, anim)
    assert [a.name for a in scene.animations] == [a["name"] for a in info["animations"]]
    assert len(scene.animations) >= 1 and sum(m.vertex_count for m in scene.meshes) == info["vertices"]
    # A Cal3D character in any order.
    parts = [corpus / "cal3d/upstream_tests" / f for f in ("base.xaf", "base.xmf", "base.xsf", "base.xrf")]
    cal = rigport.load(parts)
    assert cal.meta["source_format"] == cli_json(cli, "info", "--json", *parts)["format"]
    assert len(cal.animations) == 1 and len(cal.skeleton) > 0 and cal.meshes
