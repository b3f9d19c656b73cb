"""Kept and shipped forward configs (hsr.tuned), and the launcher that uses
them (hsr.autotune.Tuned): a key tuned once is not tuned again, in this
process or a later one; a damaged or unwritable store costs only a re-tune."""

import json
import os
from pathlib import Path

import pytest

from hsr import autotune, tuned

ROOT = Path(__file__).resolve().parent.parent
CONFIG = {"kwargs": {"BLOCK_S": 32, "BLOCK_T": 64}, "num_warps": 4, "num_stages": 3}
KEPT = {**CONFIG, "kwargs": {"BLOCK_R": 32, "BLOCK_C": 64}}  # CONFIG as kept: its blocks by role


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("HSR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("HSR_AUTOTUNE_CACHE", raising=False)
    monkeypatch.setenv("HSR_AUTOTUNE", "1")  # tune a new key at the call (the default predicts one)
    tuned._warned.clear()
    return tuned.store_path()


def test_save_then_read_back(store):
    name = tuned.entry_key("sum_max_dot-0123456789ab", (32, 512, 128, False, "torch.float16"), "H100 / triton 3.6")
    assert tuned.measured() == {}
    assert tuned.save(name, CONFIG)
    assert tuned.measured() == {name: CONFIG}
    other = tuned.entry_key("sum_max_dot-0123456789ab", (32, 512, 128, True, "torch.float16"), "H100 / triton 3.6")
    assert tuned.save(other, {**CONFIG, "num_warps": 8})
    assert set(tuned.measured()) == {name, other}  # merged, not replaced
    assert not [p for p in store.parent.iterdir() if p.name.startswith(".tuned-")]  # no temporary left


def test_a_damaged_store_is_ignored_then_rewritten(store):
    store.parent.mkdir(parents=True)
    store.write_text('{"configs": {"x": ')  # truncated
    with pytest.warns(RuntimeWarning, match="ignoring the tuned-config file"):
        assert tuned.measured() == {}
    assert tuned.save("k", CONFIG)
    assert json.loads(store.read_text())["configs"] == {"k": CONFIG}


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_cache_keeps_configs_for_the_process(store):
    store.parent.mkdir(parents=True)
    store.parent.chmod(0o500)
    try:
        with pytest.warns(RuntimeWarning, match="cannot keep tuned configs"):
            assert not tuned.save("k", CONFIG)
    finally:
        store.parent.chmod(0o700)


def test_an_unwritable_cache_path_keeps_configs_for_the_process(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("HSR_CACHE_DIR", str(blocker / "cache"))  # a directory below a file: never creatable
    tuned._warned.clear()
    with pytest.warns(RuntimeWarning, match="cannot keep tuned configs"):
        assert not tuned.save("k", CONFIG)


def bundled_lowerings() -> dict:
    """{lowering id: the bundled and example specs whose kernels have it} (the table
    ships configs for the bundled ops and for the examples' families)."""
    from hsr.check import check
    from hsr.parse import parse
    from hsr.plan import lowering_id, plan

    found: dict = {}
    for path in sorted((ROOT / "ops").glob("*.hsr")) + sorted((ROOT / "examples").glob("*.hsr")):
        p = plan(check(parse(path.read_text(), path.name)))
        for t in p.terms:
            found.setdefault(lowering_id(t, p.signature), set()).add(path.name)
    return found


def test_the_shipped_table_holds_valid_configs():
    table = tuned.shipped("sm90")
    assert table, "the bundled ops ship configs for sm90"
    bundled = bundled_lowerings()
    for name, config in table.items():
        lowering, where, key = json.loads(name)
        assert len(bundled.get(lowering, ())) == 1, f"{lowering}: no bundled or example spec's kernel, or several: migrate"
        assert where == ""
        assert set(config) == {"kwargs", "num_warps", "num_stages"}
        assert set(config["kwargs"]) <= set(autotune.ROLES)  # blocks by role, not by a spec's axes
        blocks = list(config["kwargs"].values())
        assert blocks and all(b & (b - 1) == 0 for b in blocks)  # powers of two
        assert config["num_warps"] in (1, 2, 4, 8, 16) and 1 <= config["num_stages"] <= 8
        # the layout of autotune.forward's key: ..., NEED_IDX, SMALL_D, DOT_MODE, the operand's dtype
        assert isinstance(key[-4], bool) and type(key[-3]) is int and key[-2] in (0, 1, 2)
        assert key[-1].startswith("torch.")


class _Launches:
    """A stand-in for a JIT kernel: records each launch."""

    def __init__(self):
        self.arg_names = ["X_ptr", "r_bucket", "c_bucket", "BLOCK_K", "NEED_IDX", "BLOCK_S", "BLOCK_T"]
        self.calls, self.fn = [], _launch_fn

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.calls.append((args, kwargs))
        return launch


def _launch_fn():
    pass


class _Config:
    def __init__(self, c):
        self.kwargs, self.num_warps, self.num_stages = dict(c["kwargs"]), c["num_warps"], c["num_stages"]


class _Tensor:
    dtype = "torch.float16"


def _timing(monkeypatch, fastest: dict):
    """A stand-in for timing a launch (nothing is timed): the config whose blocks
    include `fastest` takes 1 ms, any other 2; returns the list of runs timed."""
    timed = []

    def time(run):
        run()
        timed.append(run)
        return 1.0 if fastest.items() <= run.__defaults__[0]["kwargs"].items() else 2.0
    monkeypatch.setattr(autotune, "_time", time)
    return timed


def _tuned(monkeypatch):
    """(kernel, runs timed, Tuned over a pool of two configs, CONFIG the faster)."""
    kernel = _Launches()
    monkeypatch.setattr(autotune, "_where", lambda: "test device / triton x")
    monkeypatch.setattr(autotune, "arch", lambda: "sm90")
    timed = _timing(monkeypatch, CONFIG["kwargs"])
    pool = [_Config({**CONFIG, "kwargs": {"BLOCK_S": 64, "BLOCK_T": 32}}), _Config(CONFIG)]
    return kernel, timed, autotune.Tuned(kernel, ["r_bucket", "c_bucket", "BLOCK_K", "NEED_IDX"], "X_ptr", pool,
                                         lambda configs, named: configs, "sum_max_dot-test", ("BLOCK_S", "BLOCK_T"))


def test_a_key_is_tuned_once_then_launched_with_its_config(store, monkeypatch, capsys):
    kernel, timed, fwd = _tuned(monkeypatch)
    args = (_Tensor(), 32, 512)
    fwd[(1,)](*args, BLOCK_K=128, NEED_IDX=False)
    assert len(timed) == 2 and len(kernel.calls) == 3  # both configs timed, then the faster's launch
    assert kernel.calls[-1][1] == {"BLOCK_K": 128, "NEED_IDX": False, "BLOCK_S": 32, "BLOCK_T": 64,
                                   "num_warps": 4, "num_stages": 3}
    assert "tuning" in capsys.readouterr().err  # progress on stderr
    fwd[(1,)](*args, BLOCK_K=128, NEED_IDX=False)
    assert len(timed) == 2 and len(kernel.calls) == 4
    assert kernel.calls[-1][1] == kernel.calls[-2][1]
    fwd[(1,)](*args, BLOCK_K=128, NEED_IDX=True)  # another key: tuned
    assert len(timed) == 4
    assert tuned.measured()[tuned.entry_key("sum_max_dot-test", (32, 512, 128, True, "torch.float16"),
                                            "test device / triton x")] == KEPT
    # a later process: the kept config, no tuning
    kernel2, timed2, fwd2 = _tuned(monkeypatch)
    fwd2[(1,)](*args, BLOCK_K=128, NEED_IDX=False)
    assert not timed2 and len(kernel2.calls) == 1
    gone = tuned.entry_key(fwd.lowering, (32, 512, 128, False, "torch.float16"), "test device / triton x")
    monkeypatch.setattr(tuned, "measured", lambda: {gone: {**CONFIG, "kwargs": {"BLOCK_GONE": 8}}})
    kernel4, timed4, fwd4 = _tuned(monkeypatch)  # kept for a kernel whose blocks were renamed since
    fwd4[(1,)](*args, BLOCK_K=128, NEED_IDX=False)
    assert len(timed4) == 2
    monkeypatch.setenv("HSR_AUTOTUNE_CACHE", "0")  # measuring again
    kernel3, timed3, fwd3 = _tuned(monkeypatch)
    fwd3[(1,)](*args, BLOCK_K=128, NEED_IDX=False)
    assert len(timed3) == 2


def test_tuning_stops_at_its_budget_and_skips_configs_that_fail(store, monkeypatch):
    """Past HSR_TUNE_SECONDS no further config is tried (the best so far is kept); a
    config that fails to compile or fit is skipped; none at all raises its error."""
    kernel, timed, fwd = _tuned(monkeypatch)
    monkeypatch.setenv("HSR_TUNE_SECONDS", "0")
    fwd[(1,)](_Tensor(), 32, 512, BLOCK_K=128, NEED_IDX=False)
    assert len(timed) == 1 and kernel.calls[-1][1]["BLOCK_T"] == 32  # the only one timed
    monkeypatch.delenv("HSR_TUNE_SECONDS")

    def fails_for_64_rows(run):
        if run.__defaults__[0]["kwargs"]["BLOCK_S"] == 64:
            raise RuntimeError("out of resources")
        return 1.0
    monkeypatch.setattr(autotune, "_time", fails_for_64_rows)
    fwd[(1,)](_Tensor(), 32, 512, BLOCK_K=128, NEED_IDX=True)
    assert kernel.calls[-1][1]["BLOCK_S"] == 32

    def fails(run):
        raise RuntimeError("out of resources")
    monkeypatch.setattr(autotune, "_time", fails)
    with pytest.raises(RuntimeError, match="out of resources"):
        fwd[(1,)](_Tensor(), 64, 512, BLOCK_K=128, NEED_IDX=True)


def test_a_shipped_config_needs_no_tuning(store, monkeypatch):
    kernel, timed, fwd = _tuned(monkeypatch)
    key = (32, 512, 128, False, "torch.float16")
    monkeypatch.setattr(tuned, "shipped", lambda arch: {tuned.entry_key(fwd.lowering, key): KEPT})
    fwd[(1,)](_Tensor(), 32, 512, BLOCK_K=128, NEED_IDX=False)
    assert not timed and len(kernel.calls) == 1
    assert kernel.calls[0][1]["BLOCK_T"] == 64


# ops/maxsim.hsr with other names (axes, inputs, output), declaration order and formatting
RENAMED_MAXSIM = """\
doc_mask[doc, tok]: bool = all
Docs[doc, tok, h]: float
Queries[q, qt, h]: float
query_mask[q, qt]: bool = all
sim[q, doc] = sum_qt max_tok <Queries_qt, Docs_tok>  where query_mask, doc_mask
"""


def test_a_config_tuned_for_one_spec_serves_a_renamed_one(store, monkeypatch):
    """A compiled copy of ops/maxsim.hsr tunes a key (a stand-in autotuner
    picks; nothing is timed); a spec of the same lowering under other names
    finds the config, with its own block names, and the shipped ones too."""
    import hsr

    monkeypatch.setattr(autotune, "autotuning", lambda: True)
    monkeypatch.setattr(autotune, "arch", lambda: "sm90")
    monkeypatch.setattr(autotune, "_where", lambda: "test device / triton x")
    first = hsr.compile(ROOT / "ops" / "maxsim.hsr").module._score_kernel()
    second = hsr.compile(RENAMED_MAXSIM).module._sim_kernel()
    assert first.lowering == second.lowering
    picked = _Config({"kwargs": {"BLOCK_S": 128, "BLOCK_T": 64, "BLOCK_I": 2}, "num_warps": 8, "num_stages": 3})
    first.pool, first.prune = [picked], lambda configs, named: configs
    timed = _timing(monkeypatch, picked.kwargs)
    monkeypatch.setattr(autotune, "launch_kernel", lambda *args, **kwargs: None)
    flags = dict(r_bucket=32, c_bucket=512, g_bucket=2, SPLIT_S=0, BLOCK_D=128, size_d=100, NEED_IDX=False,
                 SMALL_D=0, DOT_MODE=0)
    first[(1,)](Q_ptr=_Tensor(), **flags)
    assert len(timed) == 1
    key = (32, 512, 2, 0, 128, 128, False, 0, 0, "torch.float16")  # size_d 100 keyed as its bucket, 128
    assert tuned.measured()[tuned.entry_key(first.lowering, key, "test device / triton x")]["kwargs"] == \
        {"BLOCK_R": 128, "BLOCK_C": 64, "BLOCK_G": 2}
    assert second.lookup(key) == {"kwargs": {"BLOCK_QT": 128, "BLOCK_TOK": 64, "BLOCK_Q": 2},
                                  "num_warps": 8, "num_stages": 3}
    # and the configs shipped for the bundled MaxSim
    names = {"BLOCK_R": "BLOCK_QT", "BLOCK_C": "BLOCK_TOK", "BLOCK_G": "BLOCK_Q"}
    shipped = [(json.loads(k)[2], c) for k, c in tuned.shipped("sm90").items() if json.loads(k)[0] == second.lowering]
    assert shipped
    for key, config in shipped:
        assert second.lookup(tuple(key))["kwargs"] == {names[k]: v for k, v in config["kwargs"].items()}


def test_a_kept_config_launches_the_real_kernel(store, monkeypatch):
    """The generated MaxSim forward through Tuned with a kept config (the
    interpreter runs the launch): the key binds, the grid sees the config's
    blocks, and the scores are the reference's."""
    import torch

    import hsr.generated.maxsim as generated
    from hsr import runtime

    gen = torch.Generator().manual_seed(0)
    Q, D = torch.randn(2, 5, 16, generator=gen), torch.randn(3, 7, 16, generator=gen)
    t, sizes = runtime.bind(generated.OUTPUT, generated.SIGNATURE, (Q, D), {})
    monkeypatch.setattr(autotune, "_time", lambda run: pytest.fail("tuned a kept key"))
    fwd = autotune.Tuned(generated.score_fwd, autotune.KEY + ["g_bucket", "BLOCK_D", "NEED_IDX"], "Q_ptr", [],
                         None, "sum_max_dot-test")
    key = (8, 8, 2, 16, False, "torch.float32:ieee")  # fp32 rows: the IEEE dot here (autotune.dtype_key)
    fwd.configs[key] = {"kwargs": {"BLOCK_S": 16, "BLOCK_T": 16, "BLOCK_I": 2}, "num_warps": 4, "num_stages": 1}
    monkeypatch.setattr(generated, "_score_kernel", lambda: fwd)
    out, _ = generated._score_forward(t, sizes, False)
    want = torch.einsum("isd,jtd->ijst", Q.double(), D.double()).amax(-1).sum(-1)
    assert torch.allclose(out.double(), want, atol=1e-5)
    assert fwd.key(*_captured_args(generated, t, sizes)) == key


def _captured_args(generated, t, sizes):
    """The (args, kwargs) _score_forward passes to the kernel, captured."""
    seen = {}

    class Capture:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                seen["call"] = (args, kwargs)
            return launch
    original = generated._score_kernel
    generated._score_kernel = lambda: Capture()
    try:
        generated._score_forward_as_written(t, sizes, False)  # the host path, not a kept replay
    finally:
        generated._score_kernel = original
    return seen["call"]


def test_a_new_key_runs_a_predicted_config_without_tuning(store, monkeypatch):
    """By default (HSR_AUTOTUNE unset) a key with no kept or shipped config is not
    tuned: it runs the config of the nearest key shipped or measured, at once, and
    nothing is written."""
    monkeypatch.delenv("HSR_AUTOTUNE")
    kernel, timed, fwd = _tuned(monkeypatch)
    near = dict(KEPT, kwargs={"BLOCK_R": 64, "BLOCK_C": 32})
    far = dict(KEPT, kwargs={"BLOCK_R": 32, "BLOCK_C": 64})
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (32, 512, 128, False, "torch.float16")): far,
        tuned.entry_key(fwd.lowering, (1024, 1024, 128, False, "torch.float16")): near,
        tuned.entry_key(fwd.lowering, (512, 1024, 64, False, "torch.float16", "extra")): far,  # another key layout
    })
    fwd[(1,)](_Tensor(), 512, 2048, BLOCK_K=128, NEED_IDX=True)
    assert not timed and len(kernel.calls) == 1
    assert kernel.calls[0][1]["BLOCK_S"] == 64 and kernel.calls[0][1]["BLOCK_T"] == 32
    assert not tuned.measured()
    fwd[(1,)](_Tensor(), 32, 256, BLOCK_K=128, NEED_IDX=False)
    assert kernel.calls[-1][1]["BLOCK_S"] == 32 and kernel.calls[-1][1]["BLOCK_T"] == 64
    monkeypatch.setenv("HSR_AUTOTUNE", "1")  # tuning asked for (hsr tune): a predicted key is tuned
    fwd[(1,)](_Tensor(), 512, 2048, BLOCK_K=128, NEED_IDX=True)
    assert len(timed) == 2 and tuned.measured()


def test_a_prediction_keeps_to_what_the_pruner_allows(store, monkeypatch):
    """The nearest config is skipped where the pruner rules it out for this call;
    with no table at all the pool's first allowed config runs."""
    monkeypatch.delenv("HSR_AUTOTUNE")
    kernel, timed, fwd = _tuned(monkeypatch)
    fwd.prune = lambda configs, named: [c for c in configs if c.kwargs["BLOCK_S"] <= named["r_bucket"]]
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (64, 512, 128, False, "torch.float16")): dict(KEPT, kwargs={"BLOCK_R": 64, "BLOCK_C": 32}),
    })
    fwd[(1,)](_Tensor(), 32, 512, BLOCK_K=128, NEED_IDX=False)
    assert not timed and kernel.calls[-1][1]["BLOCK_S"] == 32
    monkeypatch.setattr(tuned, "shipped", lambda arch: {})
    fwd[(1,)](_Tensor(), 16, 512, BLOCK_K=128, NEED_IDX=False)
    assert not timed and kernel.calls[-1][1]["BLOCK_S"] == 64  # nothing allowed: the pool's first


def test_tuning_times_the_predicted_config_first(store, monkeypatch):
    """Where the budget ends before the pool does, tuning has timed the config a call
    would run untuned first, so its pick is never slower than the prediction."""
    kernel, timed, fwd = _tuned(monkeypatch)  # pool: 64 x 32 (2 ms), then CONFIG (1 ms)
    monkeypatch.setenv("HSR_TUNE_SECONDS", "0")  # one config timed
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (64, 1024, 128, False, "torch.float16")): KEPT})
    fwd[(1,)](_Tensor(), 32, 512, BLOCK_K=128, NEED_IDX=False)
    assert len(timed) == 1 and timed[0].__defaults__[0]["kwargs"] == CONFIG["kwargs"]
    assert kernel.calls[-1][1]["BLOCK_S"] == 32 and kernel.calls[-1][1]["BLOCK_T"] == 64


def test_fp32_keys_are_kept_apart_by_the_precision_they_run_in(store, monkeypatch):
    """An fp32 key names its precision (one TF32 product, three, the IEEE dot): a config
    shipped for "highest" does not serve "high" as its own, only as the nearest key;
    16-bit keys keep their dtype alone."""
    monkeypatch.delenv("HSR_AUTOTUNE")
    kernel, timed, fwd = _tuned(monkeypatch)

    class Fp32:
        dtype = "torch.float32"
    three = dict(KEPT, kwargs={"BLOCK_R": 64, "BLOCK_C": 32})
    one = dict(KEPT, kwargs={"BLOCK_R": 32, "BLOCK_C": 64})
    assert autotune.dtype_key("torch.float16", "tf32") == "torch.float16"
    assert autotune.dtype_key("torch.float32", "tf32x3") == "torch.float32:tf32x3"
    assert fwd.key((Fp32(), 32, 512), {"BLOCK_K": 64, "NEED_IDX": True, "PRECISION": "tf32"})[-1] == "torch.float32:tf32"
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (32, 512, 64, True, "torch.float32:tf32x3")): three,
        tuned.entry_key(fwd.lowering, (1024, 4096, 64, True, "torch.float32:tf32")): one})
    fwd[(1,)](Fp32(), 32, 512, BLOCK_K=64, NEED_IDX=True, PRECISION="tf32x3")  # its own key
    assert kernel.calls[-1][1]["BLOCK_S"] == 64 and fwd.configs
    fwd[(1,)](Fp32(), 32, 512, BLOCK_K=64, NEED_IDX=True, PRECISION="tf32")  # no key of its own: predicted
    assert kernel.calls[-1][1]["BLOCK_S"] == 64  # the nearest: same lengths, another precision (0.5 away)
    assert len(fwd.configs) == 1 and len(fwd.predicted) == 1
    fwd.predicted.clear()
    monkeypatch.setitem(autotune.DISTANCE_WEIGHTS, "precision", 9.0)  # more than the other key's 8 steps of length
    fwd[(1,)](Fp32(), 32, 512, BLOCK_K=64, NEED_IDX=True, PRECISION="tf32")
    assert kernel.calls[-1][1]["BLOCK_S"] == 32
    assert not timed


def test_an_ieee_fp32_tile_takes_half_a_16_bit_keys_row_block(store, monkeypatch):
    """Predicted for fp32 rows on the IEEE dot from a 16-bit key, the row block is
    scaled by DISTANCE_WEIGHTS["ieee_rows"] (4-byte rows hold twice the registers); an
    fp32 key's config, or a tensor-core precision, keeps it."""
    monkeypatch.delenv("HSR_AUTOTUNE")
    kernel, timed, fwd = _tuned(monkeypatch)

    class Fp32:
        dtype = "torch.float32"
    sixteen = dict(KEPT, kwargs={"BLOCK_R": 64, "BLOCK_C": 32})
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (32, 512, 128, False, "torch.float16")): sixteen})
    fwd[(1,)](Fp32(), 32, 512, BLOCK_K=128, NEED_IDX=False, PRECISION="ieee")
    assert kernel.calls[-1][1]["BLOCK_S"] == 32 and kernel.calls[-1][1]["BLOCK_T"] == 32
    fwd.predicted.clear()
    fwd[(1,)](Fp32(), 32, 512, BLOCK_K=128, NEED_IDX=False, PRECISION="tf32")
    assert kernel.calls[-1][1]["BLOCK_S"] == 64
    fwd.predicted.clear()
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (32, 512, 128, False, "torch.float32")): sixteen})
    fwd[(1,)](Fp32(), 32, 512, BLOCK_K=128, NEED_IDX=False, PRECISION="ieee")
    assert kernel.calls[-1][1]["BLOCK_S"] == 64
    assert not timed
    # a persistent program holds its rows in one row block: scaled, it would lose the rows past it
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (32, 512, 128, False, "torch.float16")): sixteen})
    fwd.size_r, fwd.predicted = "r_bucket", {}  # (the stand-in's rows: its first size)
    fwd[(1,)](Fp32(), 64, 512, BLOCK_K=128, NEED_IDX=False, PRECISION="ieee", PERSIST=True)
    assert kernel.calls[-1][1]["BLOCK_S"] == 64
    fwd.predicted = {}
    assert fwd._ieee_rows(dict(KEPT, kwargs={"BLOCK_S": 64, "BLOCK_T": 32}), (64, 512), 64)["kwargs"]["BLOCK_S"] == 64
    assert fwd._ieee_rows(dict(KEPT, kwargs={"BLOCK_S": 64, "BLOCK_T": 32}), (64, 512), 32)["kwargs"]["BLOCK_S"] == 32
    fwd.chunk_at, fwd.predicted = 0, {}  # a split's chunk in the key: the row block is the chunk's
    assert fwd._ieee_rows(dict(KEPT, kwargs={"BLOCK_S": 64, "BLOCK_T": 32}), (64, 512))["kwargs"]["BLOCK_S"] == 64


def test_fp32_rows_on_the_tensor_cores_take_a_share_of_a_16_bit_keys_stacked_block(store, monkeypatch):
    """Predicted for fp32 rows on the tensor cores from a 16-bit key, the stacked block (queries a
    program) is scaled by FP32_STACKED_SHARE (a row holds 4 bytes a coordinate under one TF32
    product, 8 under three); an fp32 key's config, or 16-bit rows, keep it."""
    monkeypatch.delenv("HSR_AUTOTUNE")
    kernel, timed, _ = _tuned(monkeypatch)
    stacked = dict(KEPT, kwargs={"BLOCK_R": 64, "BLOCK_C": 64, "BLOCK_G": 8})
    pool = [_Config({**KEPT, "kwargs": {"BLOCK_S": 64, "BLOCK_T": 64, "BLOCK_I": 8}})]
    fwd = autotune.Tuned(kernel, ["r_bucket", "c_bucket", "BLOCK_K", "NEED_IDX"], "X_ptr", pool,
                         lambda configs, named: configs, "sum_max_dot-test", ("BLOCK_S", "BLOCK_T", "BLOCK_I"))

    class Fp32:
        dtype = "torch.float32"

    def predicted(table_dtype, rows, precision):
        monkeypatch.setattr(tuned, "shipped", lambda arch: {
            tuned.entry_key(fwd.lowering, (32, 512, 128, False, table_dtype)): stacked})
        fwd.predicted.clear()
        fwd[(1,)](rows, 32, 512, BLOCK_K=128, NEED_IDX=False, DOT_MODE=1, **precision)
        return kernel.calls[-1][1]["BLOCK_I"], kernel.calls[-1][1]["BLOCK_S"]
    assert predicted("torch.float16", Fp32(), {"PRECISION": "tf32x3"}) == (2, 64)
    assert predicted("torch.float16", Fp32(), {"PRECISION": "tf32"}) == (4, 64)
    assert predicted("torch.float32:tf32x3", Fp32(), {"PRECISION": "tf32x3"}) == (8, 64)
    assert predicted("torch.float16", _Tensor(), {}) == (8, 64)
    assert not timed


def test_a_neighbours_config_is_halved_to_fit_before_a_farther_one_is_taken(store, monkeypatch):
    """The nearest shipped key's config, not allowed for this call (its blocks are not
    in the pruned pool), is tried with its blocks halved: (64, 64) becomes the pool's
    (64, 32), not a far key's (32, 64)."""
    monkeypatch.delenv("HSR_AUTOTUNE")
    kernel, timed, fwd = _tuned(monkeypatch)
    near = dict(KEPT, kwargs={"BLOCK_R": 64, "BLOCK_C": 64})
    far = dict(KEPT, kwargs={"BLOCK_R": 32, "BLOCK_C": 64})
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (32, 1024, 128, False, "torch.float16")): near,
        tuned.entry_key(fwd.lowering, (4096, 8192, 128, False, "torch.float16")): far})
    fwd[(1,)](_Tensor(), 32, 512, BLOCK_K=128, NEED_IDX=False)
    assert kernel.calls[-1][1]["BLOCK_S"] == 64 and kernel.calls[-1][1]["BLOCK_T"] == 32
    assert not timed
    assert fwd._fitted(dict(KEPT, kwargs={"BLOCK_S": 8, "BLOCK_T": 8}), {}) is None  # nothing at or above 16 fits


def test_of_keys_equally_near_the_longer_ones_config_is_taken(store, monkeypatch):
    """Two shipped keys equally near the call (one length bucket below it, one above) give
    the config of the one with the longer selected axis, whichever the table lists first."""
    monkeypatch.delenv("HSR_AUTOTUNE")
    kernel, timed, fwd = _tuned(monkeypatch)
    short = dict(KEPT, kwargs={"BLOCK_R": 64, "BLOCK_C": 32})
    long = dict(KEPT, kwargs={"BLOCK_R": 32, "BLOCK_C": 64})
    for order in ((short, long), (long, short)):
        table = {tuned.entry_key(fwd.lowering, (32, c, 128, False, "torch.float16")): cfg
                 for c, cfg in zip((256 if order[0] is short else 1024, 1024 if order[0] is short else 256), order)}
        monkeypatch.setattr(tuned, "shipped", lambda arch, table=table: table)
        fwd.predicted.clear()
        fwd[(1,)](_Tensor(), 32, 512, BLOCK_K=128, NEED_IDX=False)
        assert (kernel.calls[-1][1]["BLOCK_S"], kernel.calls[-1][1]["BLOCK_T"]) == (32, 64)
    assert not timed


def test_a_lowering_that_forms_its_operand_predicts_from_one_that_does(store, monkeypatch):
    """Of other lowerings' keys equally near, one whose operand is formed in the kernel as this
    one's is ("rows": gathers and codes) gives its config; a lowering that reads its operand takes
    a reading one's; a projection ("projected") is not "rows"."""
    monkeypatch.delenv("HSR_AUTOTUNE")
    kernel, timed, fwd = _tuned(monkeypatch)
    plain = dict(KEPT, kwargs={"BLOCK_R": 64, "BLOCK_C": 32})
    formed = dict(KEPT, kwargs={"BLOCK_R": 32, "BLOCK_C": 64})
    key = (32, 512, 128, False, "torch.float16")
    for order in ((plain, formed), (formed, plain)):  # whichever the table lists first
        table = {tuned.entry_key("sum_max_dot-aaaaaaaaaaaa" if cfg is plain else "sum_max_dot_rows-bbbbbbbbbbbb",
                                 key): cfg for cfg in order}
        monkeypatch.setattr(tuned, "shipped", lambda arch, table=table: table)
        for lowering, want in (("sum_max_dot_rows-test", (32, 64)), ("sum_max_dot-test", (64, 32)),
                               ("sum_max_dot_projected-test", None)):
            fwd.lowering = lowering
            fwd.predicted.clear()
            fwd[(1,)](_Tensor(), 32, 512, BLOCK_K=128, NEED_IDX=False)
            if want:
                assert (kernel.calls[-1][1]["BLOCK_S"], kernel.calls[-1][1]["BLOCK_T"]) == want, lowering
    assert not timed
    assert autotune.formed_in("sum_max_dot_rows-0123") == "rows"
    assert autotune.formed_in("sum_max_dot_projected-0123") == "projected"
    assert autotune.formed_in("argmin_sqdist-0123") == ""


def test_a_neighbour_of_fewer_rows_grows_its_row_block_to_the_calls(store, monkeypatch):
    """A call of 256 rows whose nearest key was tuned at 32 rows (a 32-row block) takes
    that config with its row block grown to GROW_ROWS (64), at the pool's stages for those
    blocks, where the pruner allows it; a stacked call (several row sets a program) shrinks
    its stacked block by as much; a refused block keeps the neighbour's."""
    monkeypatch.delenv("HSR_AUTOTUNE")
    kernel = _Launches()
    kernel.arg_names = ["X_ptr", "r_bucket", "c_bucket", "g_bucket", "BLOCK_K", "NEED_IDX", "BLOCK_S", "BLOCK_T"]
    monkeypatch.setattr(autotune, "_where", lambda: "test device / triton x")
    monkeypatch.setattr(autotune, "arch", lambda: "sm90")
    timed = _timing(monkeypatch, CONFIG["kwargs"])
    pool = [_Config({**CONFIG, "kwargs": {"BLOCK_S": s, "BLOCK_T": t}}) for s, t in ((64, 32), (32, 32), (32, 64))]
    fwd = autotune.Tuned(kernel, ["r_bucket", "c_bucket", "g_bucket", "BLOCK_K", "NEED_IDX"], "X_ptr", pool,
                         lambda configs, named: configs, "sum_max_dot-test", ("BLOCK_S", "BLOCK_T"))
    # (the neighbour's stages are not the pool's for the grown blocks: the pool's are taken)
    small = dict(KEPT, kwargs={"BLOCK_R": 32, "BLOCK_C": 32}, num_stages=CONFIG["num_stages"] + 1)
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (32, 512, 1, 128, False, "torch.float16")): small})
    fwd[(1,)](_Tensor(), 256, 512, 1, BLOCK_K=128, NEED_IDX=False)
    assert (kernel.calls[-1][1]["BLOCK_S"], kernel.calls[-1][1]["BLOCK_T"]) == (64, 32)
    assert kernel.calls[-1][1]["num_stages"] == CONFIG["num_stages"]
    stacked_pool = [_Config({**CONFIG, "num_warps": w, "kwargs": {"BLOCK_S": s, "BLOCK_T": 32, "BLOCK_I": i}})
                    for s, i in ((64, 2), (32, 4), (64, 1), (32, 2)) for w in (4, 8)]
    stacked = autotune.Tuned(kernel, ["r_bucket", "c_bucket", "g_bucket", "BLOCK_K", "NEED_IDX"], "X_ptr",
                             stacked_pool, lambda configs, named: configs, "sum_max_dot-test",
                             ("BLOCK_S", "BLOCK_T", "BLOCK_I"))
    kernel.arg_names.append("BLOCK_I")
    four = dict(KEPT, kwargs={"BLOCK_R": 32, "BLOCK_C": 32, "BLOCK_G": 4})
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (32, 512, 4, 128, False, "torch.float16")): four})
    stacked[(1,)](_Tensor(), 64, 512, 4, BLOCK_K=128, NEED_IDX=False)  # stacked: as many rows a program
    assert (kernel.calls[-1][1]["BLOCK_S"], kernel.calls[-1][1]["BLOCK_I"]) == (64, 2)
    # a neighbour of two 32-row queries at 8 warps: grown to one 64-row query, at most 4 warps for its 64 rows
    two = dict(KEPT, kwargs={"BLOCK_R": 32, "BLOCK_C": 32, "BLOCK_G": 2}, num_warps=8)
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (32, 512, 2, 128, False, "torch.float16")): two})
    stacked.predicted.clear()
    stacked[(1,)](_Tensor(), 64, 512, 2, BLOCK_K=128, NEED_IDX=False)
    assert (kernel.calls[-1][1]["BLOCK_S"], kernel.calls[-1][1]["BLOCK_I"]) == (64, 1)
    assert kernel.calls[-1][1]["num_warps"] == 4
    kernel.arg_names.pop()
    small = dict(KEPT, kwargs={"BLOCK_R": 32, "BLOCK_C": 32})
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (32, 512, 1, 128, False, "torch.float16")): small})
    fwd.prune = lambda configs, named: [c for c in configs if c.kwargs["BLOCK_S"] == 32]
    fwd.predicted.clear()
    fwd[(1,)](_Tensor(), 128, 512, 1, BLOCK_K=128, NEED_IDX=False)
    assert kernel.calls[-1][1]["BLOCK_S"] == 32 and not timed


def test_a_grown_row_block_of_a_whole_contraction_takes_the_pools_next_wider_columns(store, monkeypatch):
    """A neighbour of two 16-row queries a program at 64 columns, for a call of 64-row queries, where the
    whole contraction is one tile (DOT_MODE 0): grown to one 64-row query, the tile's rows x columns leave
    16 columns, which the pool lacks; the pool's next wider (32) is taken, not the neighbour's 16-row block
    (seed 42's fp32 64 x 25 of 64 x 300 at d 64 kept 16 rows, 1.57x its tuned 64)."""
    monkeypatch.delenv("HSR_AUTOTUNE")
    kernel = _Launches()
    kernel.arg_names = ["X_ptr", "r_bucket", "c_bucket", "g_bucket", "BLOCK_K", "NEED_IDX", "DOT_MODE", "BLOCK_S",
                        "BLOCK_T", "BLOCK_I"]
    monkeypatch.setattr(autotune, "_where", lambda: "test device / triton x")
    monkeypatch.setattr(autotune, "arch", lambda: "sm90")
    timed = _timing(monkeypatch, CONFIG["kwargs"])
    pool = [_Config({**CONFIG, "kwargs": {"BLOCK_S": s, "BLOCK_T": t, "BLOCK_I": i}})
            for s, t, i in ((64, 32, 1), (64, 64, 1), (16, 64, 2))]
    fwd = autotune.Tuned(kernel, ["r_bucket", "c_bucket", "g_bucket", "BLOCK_K", "NEED_IDX", "DOT_MODE"], "X_ptr",
                         pool, lambda configs, named: configs, "sum_max_dot-test", ("BLOCK_S", "BLOCK_T", "BLOCK_I"))
    two = dict(KEPT, kwargs={"BLOCK_R": 16, "BLOCK_C": 64, "BLOCK_G": 2})
    monkeypatch.setattr(tuned, "shipped", lambda arch: {
        tuned.entry_key(fwd.lowering, (16, 512, 2, 128, False, 0, "torch.float16")): two})
    fwd[(1,)](_Tensor(), 64, 512, 2, BLOCK_K=128, NEED_IDX=False, DOT_MODE=0)
    assert [kernel.calls[-1][1][b] for b in ("BLOCK_S", "BLOCK_T", "BLOCK_I")] == [64, 32, 1]
    assert not timed
