"""The autotune pools and their pruning (the tuning itself needs a GPU)."""

import pytest
import torch
import triton

from hsr import autotune


def _configs(pool):
    return [triton.Config({"BR": br, "BC": bc}, num_warps=w, num_stages=s) for br, bc, w, s in pool]


def test_pruning_keeps_blocks_within_the_lengths_and_shared_memory(monkeypatch):
    monkeypatch.setattr(autotune, "arch", lambda: "sm80")
    prune = autotune._pruner("A", "BR", "BC", "BK", "size_r", "size_c")
    args = {"A": torch.empty(1, dtype=torch.float16), "size_r": 20, "size_c": 1000, "BK": 256}
    kept = prune(_configs(autotune.POOLS["sm80"]), args)
    assert kept and all(c.kwargs["BR"] <= 32 for c in kept)
    for c in kept:
        assert (c.kwargs["BR"] + c.kwargs["BC"] * c.num_stages) * 256 * 2 <= autotune.SMEM_BYTES["sm80"]
    assert len(kept) < len(autotune.POOLS["sm80"])


def test_pruning_never_leaves_nothing(monkeypatch):
    monkeypatch.setattr(autotune, "arch", lambda: "sm90")
    prune = autotune._pruner("A", "BR", "BC", "BK", "size_r", "size_c")
    args = {"A": torch.empty(1, dtype=torch.float32), "size_r": 1, "size_c": 1, "BK": 8192}
    kept = prune(_configs(autotune.POOLS["sm90"]), args)
    assert len(kept) == 1 and kept[0].kwargs["BR"] * kept[0].kwargs["BC"] == min(
        br * bc for br, bc, _, _ in autotune.POOLS["sm90"])


def _pools(tile, core=(), long=()):
    """The pruner's {identity: paths} for configs of the tile, core and long pools."""
    pools = {}
    for path, configs in ((None, tile), ("core", core), ("long", long)):
        for c in configs:
            pools.setdefault(autotune._identity(c), set()).add(path)
    return pools


def test_the_cuda_core_path_takes_its_own_pool(monkeypatch):
    """SMALL_D > 0 (a few coordinates, unrolled on the CUDA cores) tunes over
    CORE_POOL only, the tensor-core path never over it."""
    monkeypatch.setattr(autotune, "arch", lambda: "sm90")
    core = _configs(autotune.CORE_POOL)
    tile = _configs(autotune.POOLS["sm90"])
    prune = autotune._pruner("A", "BR", "BC", "BK", "size_r", "size_c", pools=_pools(tile, core))
    configs = tile + core
    args = {"A": torch.empty(1, dtype=torch.float32), "size_r": 10**5, "size_c": 10**5, "BK": 16}
    on_cores = prune(configs, {**args, "SMALL_D": 3})
    assert sorted(map(autotune._identity, on_cores)) == sorted(map(autotune._identity, core))
    tensor_cores = prune(configs, {**args, "SMALL_D": 0})
    assert tensor_cores and not {autotune._identity(c) for c in tensor_cores} & {autotune._identity(c) for c in core}


@pytest.mark.parametrize("arch", ["sm90", "sm80"])
def test_a_long_contraction_takes_its_own_pool(monkeypatch, arch):
    """DOT_MODE 1 (chunks of a long contraction: Splade's H = 768) tunes over
    LONG_POOL, whose shared memory counts both operands per pipeline stage; a
    config in both pools stays in the tile pool too."""
    monkeypatch.setattr(autotune, "arch", lambda: arch)
    tile, long = _configs(autotune.POOLS[arch]), _configs(autotune.LONG_POOL[arch])
    seen = {autotune._identity(c) for c in tile}
    configs = tile + [c for c in long if autotune._identity(c) not in seen]
    prune = autotune._pruner("A", "BR", "BC", "BK", "size_r", "size_c", pools=_pools(tile, long=long))
    args = {"A": torch.empty(1, dtype=torch.bfloat16), "size_r": 30522, "size_c": 256, "BK": 64, "SMALL_D": 0}
    chunked = prune(configs, {**args, "DOT_MODE": 1})
    assert sorted(map(autotune._identity, chunked)) == sorted(map(autotune._identity, long))
    for c in chunked:
        assert (c.kwargs["BR"] + c.kwargs["BC"]) * c.num_stages * 64 * 2 <= autotune.SMEM_BYTES[arch]
    one_tile = {autotune._identity(c) for c in prune(configs, {**args, "DOT_MODE": 0, "BK": 128})}
    assert one_tile <= seen and one_tile & {autotune._identity(c) for c in long}


def test_no_tuning_under_the_interpreter():
    assert autotune.forward(object(), lowering="sum_max_dot-test", operand="A", block_r="BR", block_c="BC",
                            block_k="BK", size_r="r", size_c="c") is None


def test_stacked_pool_prunes_by_the_stacked_axis(monkeypatch):
    monkeypatch.setattr(autotune, "arch", lambda: "sm90")
    prune = autotune._pruner("A", "BR", "BC", "BK", "size_r", "size_c", "BG", "size_g")
    configs = [triton.Config({"BR": br, "BC": bc, "BG": bg}, num_warps=w, num_stages=s)
               for br, bc, bg, w, s in autotune.STACKED_POOLS["sm90"]]
    one_query = prune(configs, {"A": torch.empty(1, dtype=torch.float16), "size_r": 32, "size_c": 300,
                                "size_g": 1, "BK": 128})
    assert all(c.kwargs["BG"] == 1 for c in one_query) or len(one_query) == 1
    many = prune(configs, {"A": torch.empty(1, dtype=torch.float16), "size_r": 32, "size_c": 300,
                           "size_g": 512, "BK": 128})
    assert any(c.kwargs["BG"] >= 4 for c in many)


def test_auto_backward_rule():
    from hsr.dispatch import auto_backward
    assert auto_backward(n_contenders=128, outer=32, selected=300) == "atomic"  # ColBERT B=128: 13.6 per row
    assert auto_backward(n_contenders=512, outer=32, selected=300) == "deterministic"  # ColBERT B=512: 55
    assert auto_backward(n_contenders=32, outer=1024, selected=1024) == "atomic"  # ColPali B=32: 32
    assert auto_backward(n_contenders=64, outer=1024, selected=1024) == "deterministic"  # ColPali B=64: 64
    assert auto_backward(n_contenders=1, outer=30522, selected=256) == "deterministic"  # Splade: 119
    assert auto_backward(n_contenders=1, outer=100_000, selected=100_000) == "atomic"  # Chamfer: 1
    # a ragged selected axis: its short sequences' rows take many contributions each (ColBERT B=512 packed)
    assert auto_backward(n_contenders=512, outer=32, selected=300, ragged_selected=True) == "atomic"


def test_deterministic_scatter_rule(monkeypatch):
    from hsr.dispatch import deterministic_scatter
    monkeypatch.delenv("HSR_SCATTER", raising=False)
    assert deterministic_scatter(128, 32, 300) == "onehot"  # ColBERT B=128
    assert deterministic_scatter(1, 10_000, 10_000) == "onehot"  # Chamfer at 10K points
    assert deterministic_scatter(512, 32, 300) == "inverse"  # many contributions per row
    assert deterministic_scatter(1, 30522, 256) == "inverse"  # Splade
    assert deterministic_scatter(1, 100_000, 100_000) == "inverse"  # the one-hot scan
    monkeypatch.setenv("HSR_SCATTER", "onehot")
    assert deterministic_scatter(1, 30522, 256) == "onehot"
    monkeypatch.setenv("HSR_SCATTER", "sorted")
    with pytest.raises(ValueError, match="HSR_SCATTER"):
        deterministic_scatter(1, 2, 3)


def test_onehot_blocks():
    from hsr.runtime import onehot_blocks
    assert onehot_blocks(300, 32, 128) == (64, 32, 128, 4, 3)      # ColBERT
    assert onehot_blocks(1024, 1024, 128) == (128, 128, 128, 8, 2)  # ColPali
    assert onehot_blocks(256, 30522, 768) == (128, 128, 128, 8, 2)  # Splade
    assert onehot_blocks(5, 3, 8) == (16, 16, 16, 4, 3)             # tensor-core tiles are 16 at least


def test_a_split_outer_axis_keeps_only_its_chunk_as_the_row_block(monkeypatch):
    """With SPLIT set (rows per chunk), the kernel asserts BLOCK_R == SPLIT:
    only such configs are kept, and one is made where the pool has none."""
    monkeypatch.setattr(autotune, "arch", lambda: "sm90")
    prune = autotune._pruner("A", "BR", "BC", "BK", "size_r", "size_c", "BG", "size_g", split="SPLIT")
    configs = [triton.Config({"BR": br, "BC": bc, "BG": bg}, num_warps=w, num_stages=s)
               for br, bc, bg, w, s in autotune.STACKED_POOLS["sm90"]]
    configs += [triton.Config({"BR": br, "BC": bc, "BG": 1}, num_warps=w, num_stages=s)
                for br, bc, w, s in autotune.POOLS["sm90"]]
    args = {"A": torch.empty(1, dtype=torch.float16), "size_r": 1024, "size_c": 1024, "size_g": 1, "BK": 128}
    kept = prune(configs, {**args, "SPLIT": 128})
    assert kept and all(c.kwargs["BR"] == 128 for c in kept)
    assert any(c.kwargs["BR"] != 128 for c in prune(configs, {**args, "SPLIT": 0}))
    made = prune([c for c in configs if c.kwargs["BR"] != 128], {**args, "SPLIT": 128})
    assert len(made) == 1 and made[0].kwargs == {"BR": 128, "BC": 64, "BG": 1}


def test_a_kept_config_of_another_row_block_is_not_used_for_a_split(monkeypatch):
    monkeypatch.setattr(autotune, "_where", lambda: "test device / triton x")
    monkeypatch.setattr(autotune.tuned, "measured", lambda: {})

    class Kernel:
        arg_names = ["A", "r_bucket", "c_bucket", "SPLIT", "BK", "BR", "BC"]
        fn = test_a_kept_config_of_another_row_block_is_not_used_for_a_split
    keys = autotune.KEY + ["SPLIT", "BK"]
    fwd = autotune.Tuned(Kernel(), keys, "A", [], None, "sum_max_dot-test", ("BR", "BC"), split="SPLIT")
    config = {"kwargs": {"BLOCK_R": 64, "BLOCK_C": 64}, "num_warps": 4, "num_stages": 3}
    monkeypatch.setattr(autotune.tuned, "shipped", lambda arch: {autotune.tuned.entry_key(fwd.lowering, k): config
                                                                for k in ((1024, 1024, 128, 128, "x"),
                                                                          (64, 1024, 0, 128, "x"))})
    monkeypatch.setattr(autotune, "arch", lambda: "sm90")
    assert fwd.lookup((1024, 1024, 128, 128, "x")) is None  # 64-row blocks cannot run 128-row chunks
    assert fwd.lookup((64, 1024, 0, 128, "x"))["kwargs"] == {"BR": 64, "BC": 64}  # no split: any row block


def test_a_kept_config_launches_through_the_launcher(monkeypatch):
    """A key with a kept config goes to hsr.launcher with the config's blocks and options."""
    monkeypatch.setattr(autotune, "_where", lambda: "test device / triton x")
    seen = []
    monkeypatch.setattr(autotune, "launch_kernel", lambda kernel, grid, *a, **kw: seen.append((kernel, grid, a, kw)))

    class Kernel:
        arg_names = ["A", "r_bucket", "c_bucket", "BK", "BR", "BC"]
        fn = test_a_kept_config_launches_through_the_launcher
    kernel = Kernel()
    fwd = autotune.Tuned(kernel, autotune.KEY + ["BK"], "A", [], None, "sum_max_dot-test", ("BR", "BC"))
    A = torch.zeros(2, dtype=torch.float16)
    fwd.configs[(32, 64, 128, "torch.float16")] = {"kwargs": {"BR": 32, "BC": 64}, "num_warps": 4, "num_stages": 2}
    fwd[(7,)](A, 32, 64, BK=128)
    assert seen == [(kernel, (7,), (A, 32, 64), dict(BK=128, BR=32, BC=64, num_warps=4, num_stages=2))]


def _launching(monkeypatch, fn, arg_names, keys, **named):
    """A Tuned of a test kernel (blocks BR, BC, BG) on 132 multiprocessors, and the list its launches'
    keyword arguments go to."""
    from hsr import dispatch
    monkeypatch.setattr(dispatch, "multiprocessors", lambda device: 132)
    seen = []
    monkeypatch.setattr(autotune, "launch_kernel", lambda kernel, grid, *a, **kw: seen.append(kw))
    kernel = type("Kernel", (), {"arg_names": arg_names, "fn": fn})()
    return autotune.Tuned(kernel, autotune.KEY + keys, "A", [], None, "sum_max_dot-test", ("BR", "BC", "BG"),
                          **named), seen


def test_a_stacked_block_halves_until_the_programs_fill_half_the_gpu(monkeypatch):
    """A kept config of 16 queries a program, on a call of 16 queries and 32 documents: 32 programs on
    132 multiprocessors. The launch takes 4 queries a program (128 programs, dispatch.stacked_block); with
    many documents, or under persistent programs, the config's block."""
    from hsr import dispatch
    fwd, seen = _launching(monkeypatch, test_a_stacked_block_halves_until_the_programs_fill_half_the_gpu,
                           ["A", "r_bucket", "c_bucket", "g_bucket", "BK", "PERSIST", "BR", "BC", "BG"],
                           ["g_bucket", "BK"])
    A = torch.zeros(2, dtype=torch.float16)
    fwd.configs[(32, 4096, 16, 128, "torch.float16")] = {"kwargs": {"BR": 32, "BC": 64, "BG": 16}, "num_warps": 8,
                                                         "num_stages": 3}
    from hsr import kept
    recorder = kept._Recorder()
    with recorder:  # as a kept call's first run records it
        for docs, persist in ((32, False), (1000, False), (32, True)):
            fwd[lambda meta, docs=docs: (triton.cdiv(16, meta["BG"]) * docs,)](A, 32, 4096, 16, BK=128, PERSIST=persist)
    assert [kw["BG"] for kw in seen] == [4, 16, 16]
    assert not recorder.steps  # the rule runs no torch function: a replay keeps the call
    assert dispatch.stacked_block(16, lambda b: 16 // b * 8, 132) == 1  # never below one value a program


def test_the_call_that_tunes_launches_its_pick_as_tuning_timed_it(monkeypatch):
    """A call that tunes (HSR_AUTOTUNE=1) times each config through the stacked fill, and launches its pick
    the same way: 16 queries a program, on a call of 32 programs, go as 4 (dispatch.stacked_block), the
    pick kept whole for other calls. (A tuned fp32 block of 8 queries, timed as 2, was once launched whole
    by the call that tuned it, and ran out of shared memory.)"""
    fwd, seen = _launching(monkeypatch, test_the_call_that_tunes_launches_its_pick_as_tuning_timed_it,
                           ["A", "r_bucket", "c_bucket", "g_bucket", "BK", "PERSIST", "BR", "BC", "BG"],
                           ["g_bucket", "BK"])
    pick = {"kwargs": {"BR": 32, "BC": 64, "BG": 16}, "num_warps": 8, "num_stages": 3}
    monkeypatch.setattr(autotune, "tuning_on_call", lambda: True)
    monkeypatch.setattr(autotune, "_where", lambda: "test device / triton x")
    monkeypatch.setattr(autotune.tuned, "save", lambda *a: None)
    monkeypatch.setenv("HSR_AUTOTUNE_CACHE", "0")
    monkeypatch.setattr(fwd, "_tune", lambda grid, args, kwargs, key: (
        [fwd._stacked_fill(pick, key, grid, args, kwargs)] and (pick, 1)))
    A = torch.zeros(2, dtype=torch.float16)
    fwd[lambda meta: (triton.cdiv(16, meta["BG"]) * 32,)](A, 32, 4096, 16, BK=128, PERSIST=False)
    assert [kw["BG"] for kw in seen] == [4]
    assert fwd.configs[(32, 4096, 16, 128, "torch.float16")]["kwargs"]["BG"] == 16


def test_a_predicted_tile_keeps_at_least_a_warps_share_of_elements():
    """Tuned._warps_fitted: a neighbour's warps, at most one a TILE_PER_WARP elements of the tile the
    prediction gives this call (rows x stacked queries x columns; CHUNKED_TILE_PER_WARP where the
    contraction is chunked, DOT_MODE 1), never below four."""
    class Kernel:
        arg_names = ["A", "r_bucket", "c_bucket", "g_bucket", "DOT_MODE", "BR", "BC", "BG"]
        fn = test_a_predicted_tile_keeps_at_least_a_warps_share_of_elements
    fwd = autotune.Tuned(Kernel(), autotune.KEY + ["g_bucket", "DOT_MODE"], "A", [], None, "sum_max_dot-test",
                         ("BR", "BC", "BG"))

    def warps(br, bc, bg, w, mode=0):
        config = {"kwargs": {"BR": br, "BC": bc, "BG": bg}, "num_warps": w, "num_stages": 3}
        return fwd._warps_fitted(config, (128, 1024, 8, mode, "torch.float16"))["num_warps"]
    assert warps(64, 64, 1, 8) == 4  # seed 35's fp32 row: a 64 x 64 tile at a neighbour's 8 warps
    assert warps(64, 128, 1, 8) == 8 and warps(32, 64, 4, 8) == 8  # 8192 elements: the tuned entries' least
    assert warps(16, 64, 1, 4) == 4 and warps(16, 64, 1, 2) == 2  # never raised, never cut below four
    assert warps(64, 128, 1, 8, mode=1) == 4 and warps(64, 128, 2, 8, mode=1) == 8  # chunked: 2048 a warp


def test_a_halved_stacked_block_fits_its_warps_to_the_smaller_tile(monkeypatch):
    """Where the stacked fill halves a config's block at launch, its warps follow the smaller tile
    (_warps_fitted): seed 37's three-product fp32 8 x 7 of 128 x 4096 at d 1024 halved 2 queries a
    program to 1 and kept 8 warps, 1.34x the tuned 4. An unhalved config keeps its warps."""
    fwd, seen = _launching(monkeypatch, test_a_halved_stacked_block_fits_its_warps_to_the_smaller_tile,
                           ["A", "r_bucket", "c_bucket", "g_bucket", "DOT_MODE", "BR", "BC", "BG"],
                           ["g_bucket", "DOT_MODE"])
    A = torch.zeros(2, dtype=torch.float32)
    fwd.configs[(128, 4096, 8, 1, "torch.float32")] = {"kwargs": {"BR": 64, "BC": 128, "BG": 2}, "num_warps": 8,
                                                       "num_stages": 3}
    for docs in (7, 40):  # 8 queries x docs x 2 row blocks: 56 programs (halved), then 320 (kept)
        fwd[lambda meta, docs=docs: (triton.cdiv(8, meta["BG"]) * docs * 2,)](A, 128, 4096, 8, 1)
    assert [(kw["BG"], kw["num_warps"]) for kw in seen] == [(1, 4), (2, 8)]


def test_a_stacked_block_doubles_while_the_call_still_fills_the_gpu(monkeypatch):
    """dispatch.stacked_block: a config's block doubled while the doubled block launches fewer programs,
    still STACKED_GROW_PROGRAMS a multiprocessor or more (64 x 14 documents: 1 query a program -> 4, 224
    programs), within the pools' largest block and STACKED_WORDS_PER_WARP of tile a warp; the warps kept.
    Never past the stacked axis (no fewer programs); at launch only where a query's rows fit one row block
    (Tuned._stacked_fill). A persistent call's block doubles while the queries take fewer blocks."""
    from hsr import dispatch
    monkeypatch.setattr(dispatch, "multiprocessors", lambda device: 132)
    assert dispatch.stacked_block(1, lambda b: triton.cdiv(64, b) * 14, 132) == 4
    assert dispatch.stacked_block(2, lambda b: triton.cdiv(8, b) * 120, 132) == 4  # 240 programs; 8 gives 120
    assert dispatch.stacked_block(4, lambda b: triton.cdiv(8, b) * 5000, 132) == 8  # all 8 queries: no further
    assert dispatch.stacked_block(2, lambda b: triton.cdiv(8, b) * 5000, 132, fits=lambda b: b <= 4) == 4
    fwd, seen = _launching(monkeypatch, test_a_stacked_block_doubles_while_the_call_still_fills_the_gpu,
                           ["A", "size_s", "r_bucket", "c_bucket", "g_bucket", "BK", "BR", "BC", "BG"],
                           ["g_bucket", "BK"], size_r="size_s", size_g="size_i", block_k="BK")
    cases = ((32, 4, 1, False, "torch.float16", 64), (32, 4, 2, False, "torch.float16", 8),
             (64, 4, 1, False, "torch.float16", 64), (32, 4, 2, True, "torch.float16", 8),
             (32, 4, 1, False, "torch.float32", 64))
    for rows, warps, block, persist, dtype, queries in cases:
        A = torch.zeros(2, dtype=getattr(torch, dtype[6:]))
        fwd.configs[(32, 1024, 64, 128, dtype)] = {"kwargs": {"BR": 32, "BC": 64, "BG": block}, "num_warps": warps,
                                                   "num_stages": 3}
        grid = (lambda meta: (264,)) if persist else (lambda meta, q=queries: (triton.cdiv(q, meta["BG"]) * 240,))
        fwd[grid](A, rows, 32, 1024, 64, 128, size_i=queries, PERSIST=persist)
    # 4 warps hold 8 queries of 32 x 64 and their rows of 128 (8192 words a warp), 16 take 8 warps (the pools'
    # largest block), 8 queries x 240 documents stop at 8 (240 programs); queries of two row blocks keep the
    # config's block; a persistent call's grows to its 8 queries; fp32 rows (a key of no precision named: the
    # least share, a quarter) hold 2048 words a warp at their own warps
    assert [(kw["BG"], kw["num_warps"]) for kw in seen] == [(16, 8), (8, 4), (1, 4), (8, 4), (1, 4)]
    assert dispatch.persistent_block(2, 8) == 8 and dispatch.persistent_block(2, 6) == 8  # 6 values: 3 -> 1 block
    assert dispatch.persistent_block(4, 4) == 4 and dispatch.persistent_block(2, 64, fits=lambda b: b <= 8) == 8


def test_a_stacked_block_of_wide_16_bit_rows_doubles_into_one_wave(monkeypatch):
    """dispatch.wave_block: where the call launches between one and two programs a multiprocessor, the
    doubled block runs in one wave as loaded as before (seed 38's fp16 8 x 61 of 32 x 2000 at d 160: 2
    queries a program on 244 programs, tuned 4 at 8 warps on 122, 1.46x). At launch only for 16-bit rows
    of a contraction longer than STACKED_WAVE_MIN_K, at STACKED_WAVE_WARPS; d 128, fp32 rows and calls
    of more or fewer programs keep the block stacked_block gives."""
    from hsr import dispatch
    assert dispatch.wave_block(2, lambda b: triton.cdiv(8, b) * 61, 132, lambda b: True) == 4
    assert dispatch.wave_block(2, lambda b: triton.cdiv(8, b) * 30, 132, lambda b: True) == 2  # 120: not past one
    assert dispatch.wave_block(2, lambda b: triton.cdiv(8, b) * 140, 132, lambda b: True) == 2  # 560: past two
    assert dispatch.wave_block(2, lambda b: triton.cdiv(8, b) * 61, 132, lambda b: False) == 2  # does not fit
    assert dispatch.wave_block(8, lambda b: triton.cdiv(8, b) * 200, 132, lambda b: True) == 8  # no fewer programs
    fwd, seen = _launching(monkeypatch, test_a_stacked_block_of_wide_16_bit_rows_doubles_into_one_wave,
                           ["A", "size_s", "size_d", "r_bucket", "c_bucket", "g_bucket", "BK", "BR", "BC", "BG"],
                           ["g_bucket", "BK"], size_r="size_s", size_g="size_i", block_k="BK", size_k="size_d")
    for d, dtype in ((160, "torch.float16"), (128, "torch.float16"), (160, "torch.float32"), (768, "torch.bfloat16")):
        A = torch.zeros(2, dtype=getattr(torch, dtype[6:]))
        fwd.configs[(32, 2048, 8, 256, dtype)] = {"kwargs": {"BR": 32, "BC": 64, "BG": 2}, "num_warps": 4,
                                                  "num_stages": 3}
        fwd[lambda meta: (triton.cdiv(8, meta["BG"]) * 61,)](A, 32, d, 32, 2048, 8, 256, size_i=8)
    assert [(kw["BG"], kw["num_warps"]) for kw in seen] == [(4, 8), (2, 4), (2, 4), (4, 8)]


def test_a_chunked_16_bit_contraction_takes_the_wide_column_block_where_it_pads_no_more():
    """Tuned._chunked_columns: a 16-bit config of a chunked contraction (DOT_MODE 1) at 64 columns takes
    128 where the call's selected axis pads to at most CHUNKED_PAD times as many columns at 128 (seed 37's
    bf16 1 x 238 of 128 x 1024 at d 320: 1.48x the tuned 128), the pool allowing it; 300 tokens (384
    against 320), whole contractions, fp32 and configs the pool lacks keep theirs."""
    class Kernel:
        arg_names = ["A", "r_bucket", "c_bucket", "DOT_MODE", "size_t", "BR", "BC"]
        fn = test_a_chunked_16_bit_contraction_takes_the_wide_column_block_where_it_pads_no_more
    fwd = autotune.Tuned(Kernel(), autotune.KEY + ["DOT_MODE"], "A", [], None, "sum_max_dot-test", ("BR", "BC"),
                         size_c="size_t")
    allowed = {autotune._identity(triton.Config({"BR": 64, "BC": bc}, num_warps=4, num_stages=3)): None
               for bc in (64, 128)}

    def cols(length, mode=1, warps=4, dtype="torch.bfloat16"):
        config = {"kwargs": {"BR": 64, "BC": 64}, "num_warps": warps, "num_stages": 3}
        return fwd._chunked_columns(config, (128, 1024, mode, dtype), {"size_t": length}, allowed)["kwargs"]["BC"]
    assert cols(1024) == 128 and cols(700) == 128 and cols(100) == 128  # 768 against 704 pads 1.09x
    assert cols(300) == 64 and cols(1024, mode=0) == 64 and cols(1024, dtype="torch.float32:tf32x3") == 64
    assert cols(1024, warps=8) == 64  # not in the pool
    fwd.prune = lambda configs, named: configs
    fwd.prune.fits = lambda cfg, named: cfg.num_warps == 8  # (a stand-in for the shared memory's estimate)
    assert cols(1024, warps=8) == 128  # not in the pool, but the shared memory holds it


def test_a_chunked_tile_halves_its_stacked_block_where_128_columns_do_not_fit():
    """Tuned._chunked_columns: where 128 columns at the config's stacked block fit neither the pool nor the
    shared memory, the block is halved at 128 columns, the tile's elements kept (seed 44's bf16 8 x 305 of
    128 x 100 at d 1024: a key's 8 queries of 64 x 64 a program, 1.47x the tuned 128 columns); where the
    halved block does not fit either, or the block is odd, the config stays."""
    class Kernel:
        arg_names = ["A", "r_bucket", "c_bucket", "DOT_MODE", "size_t", "BR", "BC", "BG"]
        fn = test_a_chunked_tile_halves_its_stacked_block_where_128_columns_do_not_fit
    fwd = autotune.Tuned(Kernel(), autotune.KEY + ["DOT_MODE"], "A", [], None, "sum_max_dot-test", ("BR", "BC", "BG"),
                         size_c="size_t")
    room = {"rows": 256}  # rows x stacked block at 128 columns the shared memory holds
    fwd.prune = type("Prune", (), {"fits": staticmethod(
        lambda cfg, named: cfg.kwargs["BR"] * cfg.kwargs["BG"] * cfg.kwargs["BC"] <= room["rows"] * 128)})()

    def blocks(g):
        config = {"kwargs": {"BR": 64, "BC": 64, "BG": g}, "num_warps": 8, "num_stages": 3}
        got = fwd._chunked_columns(config, (128, 128, 1, "torch.bfloat16"), {"size_t": 100}, {})["kwargs"]
        return got["BG"], got["BC"]
    assert blocks(8) == (4, 128) and blocks(4) == (4, 128) and blocks(2) == (2, 128)
    room["rows"] = 128
    assert blocks(8) == (8, 64) and blocks(3) == (3, 64)


def test_a_three_product_fp32_tile_of_a_short_contraction_takes_64_columns():
    """Tuned._three_product_columns: a 16-bit neighbour's column block, for fp32 rows on three TF32
    products whose whole contraction (DOT_MODE 0) is at most 64 wide, is 64, at 3 stages (all 17 recorded
    such rows tuned so); wider or chunked contractions keep the neighbour's."""
    class Kernel:
        arg_names = ["A", "r_bucket", "c_bucket", "BK", "DOT_MODE", "BR", "BC"]
        fn = test_a_three_product_fp32_tile_of_a_short_contraction_takes_64_columns
    fwd = autotune.Tuned(Kernel(), autotune.KEY + ["BK", "DOT_MODE"], "A", [], None, "sum_max_dot-test", ("BR", "BC"),
                         block_k="BK")

    def cols(bk, mode, bc):
        key = (1024, 2048, bk, mode, "torch.float32:tf32x3")
        config = fwd._three_product_columns({"kwargs": {"BR": 64, "BC": bc}, "num_warps": 8, "num_stages": 4}, key)
        assert config["num_stages"] == (3 if config["kwargs"]["BC"] != bc else 4)
        return config["kwargs"]["BC"]
    assert cols(64, 0, 128) == 64 and cols(32, 0, 128) == 64  # seed 36's 2.17 row: d = 64, one tile
    assert cols(128, 0, 128) == 128 and cols(64, 1, 128) == 128 and cols(64, 0, 32) == 64  # a narrower one too
