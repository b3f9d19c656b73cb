"""hsr.tune and `hsr tune`: picks exported to a file and imported on another
machine; the command's arguments. (Tuning itself needs a GPU: tests/test_gpu.py.)"""

import json

import pytest

from hsr import autotune, cli, tune, tuned


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("HSR_CACHE_DIR", str(tmp_path / "cache"))
    tuned._warned.clear()
    return tuned.store_path()


CONFIG = {"kwargs": {"BLOCK_R": 64, "BLOCK_C": 128}, "num_warps": 4, "num_stages": 3}


def test_export_then_import_elsewhere(store, tmp_path, monkeypatch):
    monkeypatch.setattr(autotune, "_where", lambda: "H100 / triton 3.6 / hsr 0.1.0")
    key = tuned.entry_key("sum_max_dot-x", (32, 512, 128, False, "torch.float16"), autotune._where())
    assert tuned.save(key, CONFIG)
    picks = tmp_path / "picks.json"
    assert tune.export(picks) == 1
    # another machine: an empty store, another device
    monkeypatch.setenv("HSR_CACHE_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setattr(autotune, "_where", lambda: "H200 / triton 3.9 / hsr 0.1.0")
    assert not tuned.measured()
    assert tune.import_picks(picks) == 1
    here = tuned.entry_key("sum_max_dot-x", (32, 512, 128, False, "torch.float16"), autotune._where())
    assert tuned.measured() == {here: CONFIG}


def test_import_rejects_a_file_that_is_not_picks(store, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([1, 2]))
    with pytest.raises(ValueError, match="not a file of hsr picks"):
        tune.import_picks(bad)


def test_the_command_needs_something_to_do(store):
    with pytest.raises(SystemExit, match="give a SPEC"):
        cli.main(["tune"])
    with pytest.raises(SystemExit, match="--shapes"):
        cli.main(["tune", "maxsim"])


def test_the_command_exports(store, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(autotune, "_where", lambda: "dev")
    tuned.save(tuned.entry_key("l", (1,), "dev"), CONFIG)
    out = tmp_path / "p.json"
    assert cli.main(["tune", "--export", str(out)]) == 0
    assert "wrote 1 picks" in capsys.readouterr().out
    assert json.loads(out.read_text())["configs"]


def test_a_missing_axis_size_is_named(store):
    import hsr

    op = hsr.compile(cli.bundled_spec("maxsim"))
    with pytest.raises(ValueError, match="axis 't' of 'D'"):
        tune._inputs(op, {"i": 1, "s": 32, "d": 128, "j": 4}, None)


def test_bundled_specs_are_found_by_name():
    assert cli.bundled_spec("maxsim").name == "maxsim.hsr" and cli.bundled_spec("maxsim").is_file()
    assert cli.bundled_spec("no/such.hsr").name == "such.hsr"
