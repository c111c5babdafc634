# The conversion cache from Python (docs/scale.md): convert() and batch() take cache= and
# cache_max= as the CLI takes --cache and --cache-max, and report "cached" as its records do.
import pytest
import rigport


def test_convert_and_batch_find_what_they_stored(tmp_path):
    rigport.save(rigport.sample(), tmp_path / "m.iqm")
    cache = tmp_path / "cache"
    first = rigport.convert(tmp_path / "m.iqm", tmp_path / "m.glb", cache=cache)
    written = (tmp_path / "m.glb").read_bytes()
    (tmp_path / "m.glb").unlink()
    second = rigport.convert(tmp_path / "m.iqm", tmp_path / "m.glb", cache=cache)
    assert (first["cached"], second["cached"]) == (False, True)
    assert (tmp_path / "m.glb").read_bytes() == written
    assert second["inputs"] == first["inputs"] and second["counts"] == first["counts"]
    # Without a cache there is no "cached" field.
    assert "cached" not in rigport.convert(tmp_path / "m.iqm", tmp_path / "plain.glb")

    (tmp_path / "in").mkdir()
    rigport.save(rigport.sample(), tmp_path / "in" / "a.iqe")
    rigport.save(rigport.sample(), tmp_path / "in" / "b.iqm")
    runs = [rigport.batch(tmp_path / "in", tmp_path / "out", "iqm", cache=cache, cache_max=1 << 30) for _ in range(2)]
    assert [[m["cached"] for m in r["models"]] for r in runs] == [[False, False], [True, True]]


def test_cache_max_needs_a_cache():
    with pytest.raises(ValueError, match="cache_max limits a cache"):
        rigport.convert("x.iqm", "x.glb", cache_max=1000)
    with pytest.raises(ValueError, match="cache_max: a size in bytes"):
        rigport.convert("x.iqm", "x.glb", cache="c", cache_max=-1)
