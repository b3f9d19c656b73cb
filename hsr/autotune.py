"""Autotuning of generated forward kernels: per-architecture config pools,
pruned by the lengths and a shared-memory estimate; a config once chosen for a
key is kept (hsr.tuned) and reused by later processes, and the bundled ops
ship the configs measured at the reference shapes.

Used at run time by generated modules (no parser or Jinja here)."""

from __future__ import annotations

import json
import math
import os
import sys
import time

import torch
import triton

from . import dispatch, tuned
from .launcher import launch as launch_kernel, pause_recording
from .basics import autotuning, length_bucket, next_pow2, tuning_on_call

# (block of the outer axis, block of the selected axis, warps, stages). 128 x 64 at 4 warps
# and 2 stages: an L2 key's slots (value and index) fit one warp group's registers there
# (the k-means assignment, 1M x 1024 x 64 fp16 on an H200: 0.557 ms against 0.76 predicted
# from the pool before, bench/results/h200-l2-rank-2026-11-27/). 256 x 64 at 8 warps: the same
# assignment on fp32 rows under TF32 (1M x 1024 x 128: 1.485 ms against 1.69 for the pool's best
# before, bench/results/h200-col-norms-2026-11-27/configs.jsonl). 128 x 32 at 4 warps and 2 stages: the
# same fp16 assignment at f = 64, 0.479 ms against 0.527 for 128 x 64 (bench/results/h200-kmeans-configs-2026-11-29/)
POOLS = {
    "sm90": ((16, 64, 4, 3), (32, 64, 4, 3), (64, 64, 4, 3), (64, 128, 4, 3), (64, 128, 8, 3),
             (128, 64, 8, 3), (128, 128, 8, 3), (64, 32, 4, 4), (32, 128, 4, 4), (128, 64, 4, 2),
             (256, 64, 8, 3), (128, 32, 4, 2)),
    "sm80": ((16, 64, 4, 3), (32, 64, 4, 3), (64, 64, 4, 3), (64, 128, 4, 3), (128, 64, 8, 3),
             (64, 32, 4, 4), (32, 128, 4, 3)),
}
# With a blocked output axis (several queries stacked in one tile): (block of the
# outer axis, block of the selected axis, block of the stacked axis, warps, stages).
# 16 queries of 32 rows at 8 warps and 4 of 32 at 4 warps: 64 queries x 10000 documents of
# 32 x 300 (H200, fp16) 4.55 and 5.26 ms against 8.24 for the pool's best before
# (bench/results/h200-batched-2026-11-27/). 8 queries of 64 rows at 8 warps: a persistent program
# holds a query's rows in one block (dispatch.persistent), and 2 queries of 64 rows were the pool's
# only 64-row tiles (64 x 2000 documents of 48 x 200: 1.65-1.73 ms against 1.41 for two 32-row blocks
# of 16 queries a program per cell; bench/results/h200-persistent-2026-11-27/).
STACKED_POOLS = {
    "sm90": ((32, 64, 2, 4, 3), (32, 64, 4, 8, 3), (32, 128, 4, 8, 3), (16, 64, 8, 8, 3), (64, 64, 2, 8, 3),
             (32, 64, 8, 8, 3), (64, 128, 2, 8, 3), (32, 64, 16, 8, 3), (32, 64, 4, 4, 3), (64, 64, 8, 8, 3)),
    "sm80": ((32, 64, 2, 4, 3), (32, 64, 4, 8, 3), (16, 64, 8, 8, 3), (64, 64, 2, 8, 3)),
}
# The CUDA-core path (a few coordinates, unrolled: SMALL_D > 0) has no tensor-core tile
# or shared-memory pipeline: (block of the outer axis, block of the selected axis, warps,
# stages). From bench/results/h100-chamfer-2026-11-23-unrolled (Chamfer 10K and 100K, with and without
# indices); 128 x 128 tiles with 4 warps spill and were 30x slower there.
CORE_POOL = ((128, 64, 4, 1), (64, 64, 4, 1), (64, 32, 4, 1), (16, 64, 4, 1), (32, 128, 4, 1),
             (128, 32, 4, 1), (32, 64, 2, 1))
# A long contraction (DOT_MODE 1: chunks of the contraction axis, Splade's H = 768)
# is a GEMM per tile: larger tiles pay. From bench/results/h100-splade-variants-2026-11-24
# and h100-splade-2026-11-24-long-pool
# (Splade's forward, hand-written variants of its loop): 128 x 256 and 256 x 128
# with 8 warps were best (0.708 and 0.725 ms against 0.822 for 128 x 128), 128 x 32
# worst (1.66 ms); 256 x 256 does not fit a thread's registers.
LONG_POOL = {
    "sm90": ((256, 128, 8, 3), (128, 256, 8, 3), (128, 128, 8, 3), (128, 64, 4, 4), (64, 64, 4, 3)),
    "sm80": ((128, 128, 8, 3), (128, 64, 4, 4), (64, 128, 4, 3), (64, 64, 4, 3)),
}
# The nearest point on the tensor cores (DOT_MODE 3: split rows, K = 16 fp16): from
# bench/results/h100-chamfer-2026-11-24-split-pass/chamfer_mma.md (one direction at 100K, H100): 128 x 128
# and 64 x 128 with 4 warps best (1.40 ms), 8 warps and 64-column tiles slower.
SPLIT_POOL = {
    "sm90": ((128, 128, 4, 3), (64, 128, 4, 3), (128, 64, 4, 4), (256, 64, 8, 3)),
    "sm80": ((128, 128, 4, 3), (64, 128, 4, 3), (128, 64, 4, 4)),
}
SMEM_BYTES = {"sm90": 227 * 1024, "sm80": 163 * 1024}
KEY = ["r_bucket", "c_bucket"]
# A kept config names its blocks by role (the outer axis's, the selected axis's, the
# stacked axis's), not by the spec's axes: specs of one lowering share it whatever their names.
ROLES = ("BLOCK_R", "BLOCK_C", "BLOCK_G")

_tuned: dict = {}
# Seconds a new key's tuning may take before it settles for the best config timed so
# far (HSR_TUNE_SECONDS overrides), so that a first call stays under 10 s: Triton's
# autotuner timed every config of the pool, 67-85 s for the k-means assignment's key
# (bench/NOTES.md, sessions 18 and 19).
TUNE_SECONDS = 6.0  # the first call's other work, and one slow config past the budget, take the rest


# The nearest measured key's weights (Tuned.predict): per log2 step of a bucketed length
# and of the contraction (d's padded block and bucket), and for fp32 against 16-bit rows
# (another kernel path: IEEE or TF32 products). "ieee_rows": the share of a 16-bit key's
# row block that an IEEE fp32 tile takes (its rows hold twice the bytes in registers:
# fp32 MaxSim d = 96, 1 x 2000 of 32 x 300 ran 5.4x slower at a 16-bit key's 32 rows than
# at 16, bench/NOTES.md, session 31). "fp32" is two steps: a 16-bit key one step nearer than an
# fp32 one took fp32 64 x 25 of 64 x 300 at d = 384 to a 64 x 128 tile, 1.89x the fp32 key's 32-row
# one (bench/NOTES.md, session 41). bench/regret.py --weights judges others.
DISTANCE_WEIGHTS = {"length": 1.0, "d": 1.0, "fp32": 2.0, "precision": 0.5, "ieee_rows": 0.5, "lowering": 2.0,
                    "formed": 8.0}
# "formed": a neighbour whose lowering forms its operand in the kernel where this one reads it, or the other way
# (hsr.plan.formed_word, read by formed_in): its tile is another loop's. A spec of PLAID codes without normalize took plain MaxSim's
# 64-token tile at the same key, 41.9 ms one query against 200000 documents, where the residual op's 128-token
# pick runs it in 13.1 (H200; bench/NOTES.md, session 50).
# The share of a 16-bit key's stacked block (queries a program) that fp32 rows on the tensor cores take,
# by precision: a row holds 4 bytes a coordinate under one TF32 product and 8 under three (its high and low
# parts). fp32 MaxSim of 8 x 610 documents of 64 x 100 at d = 1024 ("highest", H200) ran a 16-bit key's 8
# queries a block in 3.26 ms, its tuned 2 in 1.57 (bench/NOTES.md, session 40).
FP32_STACKED_SHARE = {"tf32": 0.5, "tf32x3": 0.25}
# The least row block a neighbour's config takes for a call of more rows than its key's (Tuned._rows_grown)
GROW_ROWS = 64
# The most columns (and the widest whole contraction) of a three-product fp32 tile from a 16-bit
# neighbour's config (Tuned._three_product_columns)
THREE_PRODUCT_COLUMNS = 64
THREE_PRODUCT_STAGES = 3
# The most 32-bit words of tile a warp holds where the stacked fill doubles a stacked block at launch: the
# fp32 accumulator, and where the whole contraction is one tile (DOT_MODE 0) the query rows' tile (fp16 d 128:
# 8 queries of 32 rows x 64 columns at 4 warps, 8192 words a warp, ran best, 16 at 4 warps 3-4x slower than
# at 8; bf16 d 192 grown to 8 queries at 4 warps, 12288, ran 1.57x the tuned 8 warps; bench/NOTES.md,
# session 47), and the most values of the stacked axis a program holds (the stacked pools' largest)
STACKED_WORDS_PER_WARP = 8192
STACKED_MAX_BLOCK = 16
STACKED_MOST_WARPS = 8  # the warps a doubled 16-bit tile may take to hold its words
# The least tile elements a warp of a predicted config holds (Tuned._warps_fitted); a chunked
# contraction's tile (DOT_MODE 1: both operands stream through shared memory, the accumulator alone in
# registers) twice as many
TILE_PER_WARP = 1024
CHUNKED_TILE_PER_WARP = 2048
# A chunked 16-bit contraction's columns a program (Tuned._chunked_columns): the wide block where
# the call's selected axis pads to at most CHUNKED_PAD times what the narrow one pads it to
CHUNKED_COLUMNS = (64, 128)
CHUNKED_PAD = 1.1


def dtype_key(dtype, precision: str | None) -> str:
    """The key's dtype: fp32 rows with the precision their key runs in
    (dispatch.precision: the IEEE dot, one TF32 product or three; dispatch.halves: one
    fp16 product or three), since each is
    another kernel path with its own best tile (the k-means assignment at f = 64
    under "high" and "highest" shared one config before); 16-bit rows as they are."""
    name = str(dtype)
    return f"{name}:{precision}" if name == "torch.float32" and precision else name

_arch_of: dict = {}  # device index -> pool name: asking CUDA each launch cost ~50 us of host time


def arch() -> str:
    """The config pool for the current device: sm90 (H100, H200) or sm80 (A100 and others)."""
    device = torch.cuda.current_device()
    pool = _arch_of.get(device)
    if pool is None:
        major, _ = torch.cuda.get_device_capability(device)
        pool = _arch_of[device] = "sm90" if major >= 9 else "sm80"
    return pool


def _pruner(operand: str, block_r: str, block_c: str, block_k: str, size_r: str, size_c: str,
            block_g: str | None = None, size_g: str | None = None, pools: dict | None = None,
            split: str | None = None):
    """pools: {config identity: the paths whose pool holds it}: None (the
    tensor-core tile), "core" (a few coordinates), "long" (a long contraction),
    "split" (the nearest point on the tensor cores).
    split: the flag that holds the rows per chunk of a split outer axis: where
    it is set, only configs whose row block is that chunk (the kernel asserts it)."""
    pools = pools or {}

    def rows(cfg):
        return cfg.kwargs[block_r] * (cfg.kwargs[block_g] if block_g else 1)

    def smem(cfg, elem, block_k, long):
        if long:  # both operands stream through the pipeline, a chunk of the contraction at a time
            return (rows(cfg) + cfg.kwargs[block_c]) * cfg.num_stages * block_k * elem
        return (rows(cfg) + cfg.kwargs[block_c] * cfg.num_stages) * block_k * elem

    def prune(configs, named_args, **kwargs):
        args = {**named_args, **kwargs}
        elem = args[operand].element_size()
        max_r, max_c = next_pow2(args[size_r]), next_pow2(args[size_c])
        max_g = next_pow2(args[size_g], 1) if block_g else 1
        limit = SMEM_BYTES[arch()]
        # the CUDA-core path (a few coordinates) and the long contraction take their own pools
        mode = args.get("DOT_MODE")
        path = "split" if mode == 3 else "core" if args.get("SMALL_D", 0) > 0 else "long" if mode == 1 else None
        configs = [cfg for cfg in configs if path in pools.get(_identity(cfg), {None})] or configs
        if args.get("PERSIST"):  # a persistent program holds its rows in one row block (dispatch.persistent)
            configs = [cfg for cfg in configs if cfg.kwargs[block_r] >= args[size_r]] or [
                triton.Config({block_r: max_r, block_c: 64, **({block_g: 1} if block_g else {})},
                              num_warps=4, num_stages=3)]
        chunk = args.get(split, 0) if split else 0
        if chunk:
            configs = [cfg for cfg in configs if cfg.kwargs[block_r] == chunk] or [
                triton.Config({block_r: chunk, block_c: 64, **({block_g: 1} if block_g else {})},
                              num_warps=8 if chunk >= 128 else 4, num_stages=1 if path == "core" else 3)]
            max_r = chunk
        kept = [cfg for cfg in configs
                if cfg.kwargs[block_r] <= max_r and cfg.kwargs[block_c] <= max_c
                and (not block_g or cfg.kwargs[block_g] <= max_g)
                and smem(cfg, elem, args[block_k], path == "long") <= limit]
        return kept or [min(configs, key=lambda c: rows(c) * c.kwargs[block_c])]

    def fits(cfg, named_args) -> bool:
        """Whether cfg's pipeline fits the shared memory on a call of these arguments."""
        long = named_args.get("DOT_MODE") == 1 and not named_args.get("SMALL_D", 0)
        return smem(cfg, named_args[operand].element_size(), named_args[block_k], long) <= SMEM_BYTES[arch()]
    prune.fits = fits
    return prune


def forward(kernel, *, lowering: str, operand: str, block_r: str, block_c: str, block_k: str, size_r: str,
            size_c: str, block_g: str | None = None, size_g: str | None = None, split: str | None = None,
            size_k: str | None = None):
    """The autotuned version of a select_reduce forward kernel, or None when
    blocks are fixed (the interpreter, or HSR_AUTOTUNE=0). lowering: what the
    kernel is (hsr.plan.lowering_id), which keys its kept and shipped configs.

    Keys: the bucketed lengths, the padded contraction block and the contraction's
    bucketed length (size_k: a long contraction loops over chunks of one block, and
    its best tile depends on how many; bench/NOTES.md, session 28), NEED_IDX, the
    unrolled coordinates (SMALL_D), the contraction's path (DOT_MODE), the rows
    per chunk of a split outer axis (split: its flag's name, for kernels with an
    outer sum) and the operand's dtype; never the loop bounds."""
    if not autotuning():
        return None
    key = (kernel, arch())
    if key not in _tuned:
        def config(br, bc, bg, w, s):
            blocks = {block_r: br, block_c: bc, **({block_g: bg} if block_g else {})}
            return triton.Config(blocks, num_warps=w, num_stages=s)
        configs = [config(*p) for p in STACKED_POOLS[arch()]] if block_g else []
        configs += [config(*p[:2], 1, *p[2:]) for p in POOLS[arch()]]
        pools = {_identity(c): {None} for c in configs}
        if not block_g:
            for path, pool in (("core", CORE_POOL), ("long", LONG_POOL[arch()]), ("split", SPLIT_POOL[arch()])):
                for p in pool:
                    cfg = config(*p[:2], 1, *p[2:])
                    if _identity(cfg) not in pools:
                        configs.append(cfg)
                    pools.setdefault(_identity(cfg), set()).add(path)
        prune = _pruner(operand, block_r, block_c, block_k, size_r, size_c, block_g, size_g, pools, split)
        keys = KEY + (["g_bucket"] if block_g else []) + ([split] if split else []) \
            + [block_k] + ([size_k] if size_k else []) + ["NEED_IDX", "SMALL_D", "DOT_MODE"]
        blocks = (block_r, block_c) + ((block_g,) if block_g else ())
        _tuned[key] = Tuned(kernel, keys, operand, configs, prune, lowering, blocks, split, size_k, size_r, block_k,
                            size_c, size_g)
    return _tuned[key]


def formed_in(lowering: str) -> str:
    """The word of a lowering id that hsr.plan.formed_word wrote for an operand formed in the
    kernel ("rows", "projected"), or "" (read from the id: plan is not imported on a call's path)."""
    words = lowering.split("-", 1)[0].split("_")
    return next((w for w in ("rows", "projected") if w in words), "")


def _identity(cfg) -> tuple:
    return tuple(sorted(cfg.kwargs.items())), cfg.num_warps, cfg.num_stages


def _describe(config: dict) -> str:
    blocks = ", ".join(f"{k}={v}" for k, v in sorted(config["kwargs"].items()))
    return f"{blocks}, {config['num_warps']} warps, {config['num_stages']} stages"


class Tuned:
    """A forward kernel launched with the config kept for its key: from this
    process, from earlier ones (hsr.tuned's file), or shipped with hsr; a key
    seen nowhere is tuned once (saying so on stderr; `_tune`, at most about
    TUNE_SECONDS) and kept.
    HSR_AUTOTUNE_CACHE=0 ignores kept and shipped configs (to measure them again).
    Kept and shipped configs are found by lowering (hsr.plan.lowering_id) and name
    blocks by role (ROLES; blocks: this kernel's names for them, in that order)."""

    def __init__(self, kernel, keys, operand, pool, prune, lowering, blocks=(), split=None, size_k=None,
                 size_r=None, block_k=None, size_c=None, size_g=None):
        self.kernel, self.keys, self.operand, self.size_r, self.size_c = kernel, keys, operand, size_r, size_c
        self.size_g = size_g  # the stacked axis's length
        self.block_k = block_k  # the key's padded contraction block
        self.size_k = size_k  # a key read as its length bucket
        self.arg_names = list(kernel.arg_names)
        self.pool, self.prune, self.n_configs = pool, prune, len(pool)
        self.lowering, self.roles = lowering, dict(zip(ROLES, blocks))
        # where the key holds a split's chunk, a config must have that row block
        self.chunk_at = keys.index(split) if split else None
        self.block_r = blocks[0] if blocks else None
        fn = getattr(kernel, "fn", kernel)
        self.name = f"{fn.__module__}.{fn.__name__} (lowering {lowering})"
        self.configs: dict = {}  # key -> config, this process: kept, shipped or tuned
        self.predicted: dict = {}  # (key, persistent rows) -> config predicted (hsr tune still tunes such a key)
        self._positions = None

    def key(self, args, kwargs) -> tuple:
        if self._positions is None:
            names = self.arg_names
            self._positions = [(k, names.index(k)) for k in self.keys + [self.operand]]
        got = [kwargs[k] if k in kwargs else args[i] for k, i in self._positions]
        got = [length_bucket(v) if k == self.size_k else v for (k, _), v in zip(self._positions, got)]
        precision = kwargs.get("PRECISION")
        if kwargs.get("HALVES"):  # fp32 rows ranked as fp16 halves (dispatch.halves): another kernel path
            precision = "fp16x3" if kwargs["HALVES"] == 3 else "fp16"
        return tuple(got[:-1]) + (dtype_key(got[-1].dtype, precision),)

    def lookup(self, key: tuple):
        config = self.configs.get(key)
        if config is None and os.environ.get("HSR_AUTOTUNE_CACHE", "1") != "0":
            config = tuned.measured().get(tuned.entry_key(self.lowering, key, _where()))
            if config is None:
                config = tuned.shipped(arch()).get(tuned.entry_key(self.lowering, key))
            if config is not None:  # its blocks by role: this kernel's names for them
                config = self._renamed(config, self.roles)
            if config is not None and not set(config["kwargs"]) <= set(self.arg_names):
                config = None  # kept for another version of the kernel: tune again
            if config is not None and self.chunk_at is not None and key[self.chunk_at] \
                    and config["kwargs"].get(self.block_r) != key[self.chunk_at]:
                config = None  # its row block is not the split's chunk: tune again
            if config is not None:
                self.configs[key] = config
        return config

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            key = self.key(args, kwargs)
            config = self.lookup(key)
            rows = self._persistent_rows(args, kwargs)
            if config is not None and config["kwargs"].get(self.block_r, rows) < rows:
                config = None  # a persistent program's rows in one row block: a config for this call
            if config is None and not tuning_on_call():  # never block a call: a predicted config
                config = self.predicted.get((key, rows))
                if config is None:
                    config = self.predicted[(key, rows)] = self.predict(
                        key, {**dict(zip(self.arg_names, args)), **kwargs})
            if config is None:
                print(f"hsr: tuning {self.name} for {key} over up to {self.n_configs} configs...", file=sys.stderr,
                      flush=True)
                t0 = time.monotonic()
                with pause_recording():  # the trial runs are not the call's (hsr.kept)
                    config, tried = self._tune(grid, args, kwargs, key)
                self.configs[key] = config
                tuned.save(tuned.entry_key(self.lowering, key, _where()),
                           self._renamed(config, {name: role for role, name in self.roles.items()}))
                print(f"hsr: tuned {self.name} in {time.monotonic() - t0:.1f} s over {tried} configs: "
                      f"{_describe(config)}", file=sys.stderr, flush=True)
            # launched as tuning timed it, the tuning call too: its stacked fill on this call's programs (a tuned
            # fp32 block of 8 queries, filled to 2 while timed, once launched whole: 320 KB of shared memory)
            config = self._stacked_fill(config, key, grid, args, kwargs)
            return launch_kernel(self.kernel, grid, *args, **kwargs, **config["kwargs"],
                                 num_warps=config["num_warps"], num_stages=config["num_stages"])
        return launch

    def _stacked_fill(self, config: dict, key: tuple, grid, args, kwargs) -> dict:
        """config with its stacked block as the call launches it (dispatch.stacked_block): a key's
        config holds no count of the other cells. Halved where the call's programs would not fill
        the GPU, its warps then fitted to the smaller tile (_warps_fitted: fp16 MaxSim of 16 x 100
        documents of 32 x 1024 at 8 warps ran 2 queries a program in 0.060 ms, at 4 warps in 0.041;
        three-product fp32 8 x 7 of 128 x 4096 at d 1024 halved to 1 query kept 8 warps, 1.34x the
        tuned 4; bench/NOTES.md, session 47). Doubled where the programs would still fill it, or for
        persistent programs (each reads its documents once for its block of queries),
        and only where a query's rows fit one row block and the doubled tile fits (the pools' largest
        block; STACKED_WORDS_PER_WARP of tile a warp at the config's warps, or at STACKED_MOST_WARPS for
        16-bit rows, which then take them; fp32 rows their FP32_STACKED_SHARE of it at their warps: three-
        product fp32 64 x 14 of 32 x 1024 at d 192 doubled to 4 queries of 32 x 128 at 4 warps ran 2.5x
        its tuned time, and persistent 8 x 406 of 32 x 300 at d 384 grown to 8 queries 1.7x; the shared
        memory). Not for a grid given as numbers."""
        name = self.roles.get("BLOCK_G")
        block = config["kwargs"].get(name)
        if block is None or not callable(grid):
            return config
        meta = {**dict(zip(self.arg_names, args)), **kwargs, **config["kwargs"]}
        # (no torch function here, not even torch.device(): hsr.kept would take the call for one that
        # reads values, and never replay it)
        device = next((a.device for a in args if isinstance(a, torch.Tensor)), None)
        sms = dispatch.multiprocessors(device) if device is not None else dispatch.INTERPRET_SMS
        tile = math.prod(config["kwargs"].get(self.roles.get(role), 1) for role in ROLES)
        if meta.get("DOT_MODE", 0) == 0 and self.block_k in meta:  # the query rows' tile held too
            rows = tile // config["kwargs"].get(self.roles.get("BLOCK_C"), 1)
            tile += rows * meta[self.block_k] * meta[self.operand].element_size() // 4
        one_block = self.size_r in meta and meta[self.size_r] <= config["kwargs"].get(self.roles.get("BLOCK_R"), 0)
        # fp32 rows hold more registers an element: their share of a 16-bit tile (FP32_STACKED_SHARE)
        dtype = str(key[-1])
        share = FP32_STACKED_SHARE.get(dtype.partition(":")[2], min(FP32_STACKED_SHARE.values())) \
            if "float32" in dtype else 1

        # a 16-bit tile may take 8 warps to hold its words (bf16 d 192: 8 queries of 32 rows at 8 warps ran
        # 0.063 ms against 0.092 at 4 queries and 4 warps, 0.098 at 8 and 4); fp32 rows keep their warps
        most_warps = config["num_warps"] if share < 1 else max(config["num_warps"], STACKED_MOST_WARPS)

        def warps_for(b):
            words = tile * b // block
            return next((w for w in (config["num_warps"], most_warps) if words <= STACKED_WORDS_PER_WARP * share * w),
                        None)

        def tile_fits(b, warps):  # one row block, the pools' largest block, the shared memory
            cfg = triton.Config({**config["kwargs"], name: b}, num_warps=warps, num_stages=config["num_stages"])
            return one_block and b <= STACKED_MAX_BLOCK and getattr(self.prune, "fits", lambda cfg, named: True)(cfg, meta)

        def fits(b):
            return warps_for(b) is not None and tile_fits(b, config["num_warps"])
        if kwargs.get("PERSIST"):
            fill = dispatch.persistent_block(block, meta.get(self.size_g, 1), fits)
        else:
            programs = lambda b: math.prod(grid({**meta, name: b}))  # noqa: E731
            fill = dispatch.stacked_block(block, programs, sms, fits)
            if fill >= block and share == 1 and (meta.get(self.size_k) or 0) > dispatch.STACKED_WAVE_MIN_K:
                warps = dispatch.STACKED_WAVE_WARPS  # the doubled tile's words at these warps
                wave = dispatch.wave_block(fill, programs, sms, lambda b: tile * b // block <= STACKED_WORDS_PER_WARP
                                           * warps and tile_fits(b, warps))
                if wave > fill:
                    return {**config, "kwargs": {**config["kwargs"], name: wave},
                            "num_warps": max(config["num_warps"], warps)}
        if fill == block:
            return config
        filled = {**config, "kwargs": {**config["kwargs"], name: fill}}
        return {**filled, "num_warps": warps_for(fill)} if fill > block else self._warps_fitted(filled, key)

    def _persistent_rows(self, args, kwargs) -> int:
        """The rows a persistent program's row block must hold (dispatch.persistent), 0 for other calls."""
        if not kwargs.get("PERSIST") or self.size_r is None:
            return 0
        return kwargs[self.size_r] if self.size_r in kwargs else args[self.arg_names.index(self.size_r)]

    def _tune(self, grid, args, kwargs, key: tuple) -> tuple[dict, int]:
        """(the fastest config for this call, how many were timed): the predicted
        config first, then the pruned pool in its order, each compiled and timed
        with short do_bench runs; a config that does not compile or fit is skipped.
        It stops where one config more would likely pass HSR_TUNE_SECONDS (default
        TUNE_SECONDS), so the budget may end before the pool does: with the
        prediction timed first, tuning keeps a config at least as fast as the one
        a call would run untuned (the fp32 k-means assignment at 1M x 1024 x 128
        under TF32 tuned to 2.19 ms from the pool's first five configs against 1.50
        predicted; bench/NOTES.md, session 35). The forward only stores, so runs
        repeat safely."""
        budget = float(os.environ.get("HSR_TUNE_SECONDS", TUNE_SECONDS))
        named = {**dict(zip(self.arg_names, args)), **kwargs}
        first = self.predict(key, named)
        rest = [{"kwargs": dict(cfg.kwargs), "num_warps": cfg.num_warps, "num_stages": cfg.num_stages}
                for cfg in self.prune(self.pool, named)]
        t0, timed, failed = time.monotonic(), [], None
        for tried, config in enumerate([first] + [c for c in rest if c != first], 1):

            def run(config=config):  # as a call launches it (the stacked fill), so that the pick is timed as it runs
                config = self._stacked_fill(config, key, grid, args, kwargs)
                launch_kernel(self.kernel, grid, *args, **kwargs, **config["kwargs"],
                              num_warps=config["num_warps"], num_stages=config["num_stages"])
            try:
                timed.append((_time(run), len(timed), config))
            except Exception as e:  # out of registers or shared memory: the next config
                failed = e
            if timed and (time.monotonic() - t0) * (tried + 1) / tried > budget:
                break  # one config more would likely pass the budget
        if not timed:
            raise failed
        return min(timed)[2], len(timed)

    def predict(self, key: tuple, named: dict) -> dict:
        """A config for a key that has none kept or shipped, without timing: the
        config of the nearest key measured on this device or shipped (this lowering's
        first, then any lowering's, one that forms its operand in the kernel as this
        one does before one that does not: _lowering_distance; sm80 reads the sm90 table
        where its own has no entry), among those the pruner allows for this call (lengths, shared memory,
        a split's chunk); else the pool's first allowed config. Nearest: log2
        distance of the bucketed lengths and the contraction block; the unrolled
        coordinates, the contraction's path and a split's chunk must match. A
        neighbour's config the pruner does not allow for this call (shared memory,
        lengths) is tried again with its blocks halved (the stacked block first, then
        the selected axis's, then the rows'), before a farther neighbour's is taken:
        its shape fitted to the call, not a far key's shape (bf16 MaxSim of 64 queries
        x 50 documents of 32 x 300 at d = 160 took a far fp32 key's 1-query block,
        2.25x its tuned time, where the nearest 16-query pick halved to 8 is the
        tuned pick; bench/NOTES.md, session 39)."""
        allowed = {_identity(cfg): cfg for cfg in self.prune(self.pool, named) or self.pool}
        ranked = []
        for table, where in ((tuned.measured(), _where()), (tuned.shipped(arch()), ""), (tuned.shipped("sm90"), "")):
            for name, config in table.items():
                lowering, at, other = json.loads(name)
                far = self._distance(key, other) if at == where else None
                if far is not None:
                    ranked.append((far + self._lowering_distance(lowering), self._longer_first(other),
                                   len(ranked), config,
                                   str(other[-1]) in ("torch.float32", "torch.float32:ieee"),
                                   "float32" not in str(other[-1]), other))
        fp32 = "float32" in str(key[-1])
        # an IEEE fp32 dot holding its rows' tile in registers (DOT_MODE 0; a long contraction streams it)
        ieee = fp32 and named.get("PRECISION") == "ieee" and named.get("DOT_MODE", 0) == 0
        share = FP32_STACKED_SHARE.get(named.get("PRECISION"), 1) if fp32 else 1
        for _, _, _, config, ieee_key, sixteen, other in sorted(ranked, key=lambda r: r[:3]):
            config = self._fitted(self._renamed(config, self.roles), allowed)
            if config is not None:
                if sixteen and share < 1 and not (ieee and not ieee_key):
                    config = self._stacked_share(config, share)
                config = self._rows_grown(config, key, other, allowed)
                if sixteen and named.get("PRECISION") == "tf32x3":
                    config = self._three_product_columns(config, key)
                config = self._chunked_columns(config, key, named, allowed)
                rows = named[self.size_r] if named.get("PERSIST") and self.size_r in named else 0
                if ieee and not ieee_key:
                    return self._warps_fitted(self._ieee_rows(config, key, rows), key)
                return self._warps_fitted(config, key)
        cfg = next(iter(allowed.values()))
        return {"kwargs": dict(cfg.kwargs), "num_warps": cfg.num_warps, "num_stages": cfg.num_stages}

    def _rows_grown(self, config: dict, key: tuple, other: list, allowed: dict) -> dict:
        """A neighbour's config for a call of more rows than its key's (no split chunk):
        its row block at least the call's rows' bucket, up to GROW_ROWS, with the pool's
        warps and stages for those blocks (the neighbour's warps first, then the nearest
        stages; none allowed: the neighbour's). A key of fewer rows sized its block to
        them: fp32 and fp16 one-query MaxSim of 64 to 256 query tokens took a 24-token
        key's 32-row block, 1.4 to 1.9x the tuned time, where the tuned block held 64 rows
        or all of them (seed 29's and seed 30's held-out shapes; bench/NOTES.md, session
        42). Where the whole contraction is one tile (DOT_MODE 0) the column block shrinks
        as the row block grows: fp32 1 x 697 of 64 x 700 at d = 48 ran 2.4x its tuned time
        at 64 x 128, tuned 64 x 64. A stacked call's stacked block shrinks by as much, so
        that a program holds as many rows: 64 queries of 64 tokens took a 32-token key's
        4 x 32 rows, 1.6 and 2.0x the tuned 2 x 64 (fp16 at d = 48, fp32 at d = 1024; seed
        31, bench/NOTES.md, session 44); its warps at most four a 64 rows a program holds
        (fp32 64 x 7 of 64 x 1024 at d = 48 grown to 64 rows kept a 128-row neighbour's 8 warps:
        2.1x the tuned time). Replayed offline on the timed rows of seeds 28-32
        (bench/experiments/predict_offline.py), the stacked growth moves three rows to their
        tuned configs (seed 31's 1.97 and 1.63, seed 30's 1.88) and five to configs timed
        again at 1.02-1.03 of tuned."""
        at = {name: i for i, name in enumerate(self.keys)}
        r, g, name = at.get("r_bucket"), at.get("g_bucket"), self.roles.get("BLOCK_R")
        kwargs = config["kwargs"]
        stacked = g is not None and int(key[g]) > 1
        if r is None or name not in kwargs or (self.chunk_at is not None and key[self.chunk_at]) \
                or int(other[r]) >= int(key[r]):
            return config
        want = min(int(key[r]), GROW_ROWS)
        if kwargs[name] >= want:
            return config
        blocks = {**kwargs, name: want}
        gname = self.roles.get("BLOCK_G")
        if stacked and gname in kwargs:
            blocks[gname] = max(1, kwargs[gname] * kwargs[name] // want)
        dot_mode, cols = at.get("DOT_MODE"), self.roles.get("BLOCK_C")
        if dot_mode is not None and int(key[dot_mode]) == 0 and cols in kwargs:
            # the whole contraction held in registers: the tile keeps its rows x columns
            blocks[cols] = max(16, kwargs[cols] * kwargs[name] // want)
        # the pool's configs of those blocks: at most four warps a 64 rows of the program (a warp group a
        # wgmma's 64 rows), the neighbour's warps first, then its stages or the nearest
        rows = blocks[name] * blocks.get(gname, 1)
        same = [cfg for cfg in allowed.values() if cfg.kwargs == blocks]
        while not same and cols in blocks and blocks[cols] < kwargs.get(cols, 0):
            # the pool has no tile that narrow: the next wider one it has (seed 42's fp32 64 x 25 of 64 x 300
            # at d 64 kept a 16-row key's block, 1.57x, where 64 x 16 was not in the pool)
            blocks[cols] *= 2
            same = [cfg for cfg in allowed.values() if cfg.kwargs == blocks]
        if not same:
            return config
        best = min(same, key=lambda cfg: (cfg.num_warps > max(4, 4 * rows // 64),
                                          cfg.num_warps != config["num_warps"],
                                          abs(cfg.num_stages - config["num_stages"])))
        return {**config, "kwargs": blocks, "num_warps": best.num_warps, "num_stages": best.num_stages}

    def _key(self, key: tuple, name: str):
        """The key's value of `name` (one of self.keys), as an int; None where the key has none."""
        return int(key[self.keys.index(name)]) if name in self.keys else None

    def _three_product_columns(self, config: dict, key: tuple) -> dict:
        """A 16-bit neighbour's config for fp32 rows ranked on three TF32 products whose whole
        contraction is one tile of at most THREE_PRODUCT_COLUMNS coordinates: its column block
        THREE_PRODUCT_COLUMNS, at THREE_PRODUCT_STAGES. Each coordinate is held as two TF32 parts.
        Of the recorded held-out rows (seeds 28-36), all 17 fp32 MaxSim rows at d 48 and 64 tuned to
        64 columns at 4 warps and 3 stages; 16-bit neighbours gave them 128 (seed 36's 8 x 4 of
        1024 x 2000 at d 64: 2.17x), and a row block grown from a 16-row key's 32 (seed 42's 64 x 25
        of 64 x 300 at d 64)."""
        block_k, cols, kwargs = self._key(key, self.block_k), self.roles.get("BLOCK_C"), config["kwargs"]
        if self._key(key, "DOT_MODE") != 0 or block_k is None or cols not in kwargs \
                or block_k > THREE_PRODUCT_COLUMNS or kwargs[cols] == THREE_PRODUCT_COLUMNS:
            return config
        return {**config, "kwargs": {**kwargs, cols: THREE_PRODUCT_COLUMNS}, "num_stages": THREE_PRODUCT_STAGES}

    def _chunked_columns(self, config: dict, key: tuple, named: dict, allowed: dict) -> dict:
        """A 16-bit config of a chunked contraction (DOT_MODE 1) for this call: CHUNKED_COLUMNS' wide
        column block instead of its narrow one where the call's selected axis pads to at most CHUNKED_PAD
        times as many columns, the pool or the shared memory allowing it. Each chunk of the contraction
        loads the rows' part again for every column block, so a narrow block loads it twice as often.
        Of the recorded held-out 16-bit rows of that path (seeds 28-37), 17 predicted 64 columns and
        tuned 128, at 1.12-1.78x their tuned time, at selected lengths of 100 to 4096; those that tuned
        64 had 300 or 2000 tokens."""
        cols, kwargs, (narrow, wide) = self.roles.get("BLOCK_C"), config["kwargs"], CHUNKED_COLUMNS
        if self._key(key, "DOT_MODE") != 1 or kwargs.get(cols) != narrow or "float32" in str(key[-1]) \
                or not isinstance(named.get(self.size_c), int):
            return config
        length = named[self.size_c]
        if -(-length // wide) * wide > CHUNKED_PAD * -(-length // narrow) * narrow:
            return config
        blocks = {**kwargs, cols: wide}

        def fits(blocks):
            cfg = triton.Config(blocks, num_warps=config["num_warps"], num_stages=config["num_stages"])
            return _identity(cfg) in allowed or getattr(self.prune, "fits", lambda cfg, named: False)(cfg, named)
        # the pool's config, or one the shared memory holds (seed 42's fp16 8 x 29 of 32 x 4096 at d 1024: 2 queries
        # of 32 x 64 at 4 warps ran 1.63x the same at 128 columns, which the stacked pool does not list); where
        # neither holds it, half the stacked block at 128 columns, the tile's elements kept (bf16 documents of 100
        # tokens at d 320 to 1024: a key's 8 queries of 64 x 64 a program ran 1.13-1.65x the tuned 128 columns at
        # 2 to 4 queries; bench/NOTES.md, session 48)
        g = self.roles.get("BLOCK_G")
        if not fits(blocks) and g in blocks and blocks[g] * narrow % wide == 0:
            blocks = {**blocks, g: blocks[g] * narrow // wide}
        return {**config, "kwargs": blocks} if fits(blocks) else config

    def _warps_fitted(self, config: dict, key: tuple) -> dict:
        """A neighbour's config with at most one warp a TILE_PER_WARP elements of its tile (the
        program's rows, stacked queries included, times its columns; CHUNKED_TILE_PER_WARP where the
        contraction is chunked), and at least four: a neighbour's 8 warps kept on a tile its halvings
        shrank leave each warp a sliver. fp32 8 x 27 of 200 x 700 at d = 64 took a 16-bit key's 64 x 64
        tile at 8 warps, 1.86x the tuned 4 (seed 35, bench/NOTES.md, session 46); tuned entries at 8
        warps hold 8192 elements or more. Of the shipped chunked entries of 8192 elements, 47 of 53
        run 4 warps (fp16 32 of 35, three-product fp32 15 of 15); of the whole-contraction fp16 ones,
        1 of 15."""
        kwargs = config["kwargs"]
        r, c, g = (self.roles.get(role) for role in ROLES)
        if r not in kwargs or c not in kwargs:
            return config
        per_warp = CHUNKED_TILE_PER_WARP if self._key(key, "DOT_MODE") == 1 else TILE_PER_WARP
        elements = kwargs[r] * kwargs.get(g, 1) * kwargs[c]
        warps = min(config["num_warps"], max(4, elements // per_warp))
        return config if warps == config["num_warps"] else {**config, "num_warps": warps}

    def _fitted(self, config: dict, allowed: dict) -> dict | None:
        """config if the pruner allows it (allowed: by _identity), else the first of its
        halvings it allows (the rows' block kept longest, the stacked block halved first;
        no block below 16, the stacked one down to 1), else None."""
        kwargs = config["kwargs"]

        def halvings(role, least):
            name = self.roles.get(role)
            if name not in kwargs:
                return [(name, None)]
            sizes, n = [], kwargs[name]
            while n >= least:
                sizes.append((name, n))
                n //= 2
            return sizes or [(name, kwargs[name])]
        for r in halvings("BLOCK_R", 16):
            for c in halvings("BLOCK_C", 16):
                for g in halvings("BLOCK_G", 1):
                    blocks = {**kwargs, **{name: n for name, n in (r, c, g) if n is not None}}
                    cfg = triton.Config(blocks, num_warps=config["num_warps"], num_stages=config["num_stages"])
                    if _identity(cfg) in allowed:
                        return {**config, "kwargs": blocks}
        return None

    def _ieee_rows(self, config: dict, key: tuple, rows: int = 0) -> dict:
        """A 16-bit key's config for an IEEE fp32 tile: its row block scaled by
        DISTANCE_WEIGHTS["ieee_rows"] (at least 16, and at least `rows`, a persistent
        program's rows, which one row block must hold; the stacked axis's block where the
        row block is at its least or is a split's chunk), so that the tile's rows hold
        the bytes they held. (A persistent call's row block once shrank below its rows
        here: fp32 MaxSim of 8 queries of 32 rows lost half of them on an H100.)"""
        scale, kwargs = DISTANCE_WEIGHTS["ieee_rows"], dict(config["kwargs"])
        r, g = self.roles.get("BLOCK_R"), self.roles.get("BLOCK_G")
        if self.chunk_at is not None and key[self.chunk_at]:
            r = None  # the row block is the split's chunk (the kernel asserts it)
        for name in (r, g):
            if name in kwargs and scale < 1 and kwargs[name] * scale >= (max(16, rows) if name == r else 1):
                kwargs[name] = int(kwargs[name] * scale)
                break
        return {**config, "kwargs": kwargs}

    def _stacked_share(self, config: dict, share: float) -> dict:
        """A 16-bit key's config for fp32 rows on the tensor cores: its stacked block
        (BLOCK_G) times `share` (FP32_STACKED_SHARE), at least 1; the other blocks kept."""
        g, kwargs = self.roles.get("BLOCK_G"), dict(config["kwargs"])
        if g in kwargs:
            kwargs[g] = max(1, int(kwargs[g] * share))
        return {**config, "kwargs": kwargs}

    def _lowering_distance(self, lowering: str) -> float:
        """How far another lowering's configs are from this one's: DISTANCE_WEIGHTS["lowering"], and
        DISTANCE_WEIGHTS["formed"] more where one forms its operand in the kernel and the other does not
        (or forms it otherwise: rows against a projection)."""
        if lowering == self.lowering:
            return 0.0
        apart = formed_in(lowering) != formed_in(self.lowering)
        return DISTANCE_WEIGHTS["lowering"] + apart * DISTANCE_WEIGHTS["formed"]

    def _longer_first(self, other: list) -> tuple:
        """The tie-break between keys equally near: the longer lengths first (the selected
        axis's bucket, then the rows', then the stacked axis's). A tile tuned on longer rows
        keeps its blocks on shorter ones where a short key's small tile starves a long call:
        on the 40 held-out shapes the table's order once gave bf16 64 x 4 of 200 x 4096 at
        d = 1024 a short key's tile of half the rows, 1.45x its tuned time (bench/NOTES.md,
        session 41)."""
        at = {name: i for i, name in enumerate(self.keys)}
        return tuple(-int(other[at[name]]) if name in at and at[name] < len(other) else 0
                     for name in ("c_bucket", "r_bucket", "g_bucket"))

    def _distance(self, key: tuple, other: list):
        """How far a measured key is from this one (DISTANCE_WEIGHTS); None where its
        config cannot serve."""
        if len(other) != len(key):
            return None
        far = 0.0
        for name, a, b in zip(self.keys + ["dtype"], key, other):
            steps = None
            if name in ("r_bucket", "c_bucket", "g_bucket"):
                steps = DISTANCE_WEIGHTS["length"]
            elif name == self.size_k or name.startswith("BLOCK_"):
                steps = DISTANCE_WEIGHTS["d"]
            if steps is not None:
                far += steps * abs(math.log2(max(int(a), 1)) - math.log2(max(int(b), 1)))
            elif name == "NEED_IDX":
                far += 0.5 * (bool(a) != bool(b))
            elif name == "dtype":
                fp32 = ("float32" in str(a), "float32" in str(b))
                far += DISTANCE_WEIGHTS["fp32"] * (fp32[0] != fp32[1])
                if all(fp32) and str(a) != str(b):  # fp32 rows on other units (dtype_key)
                    far += DISTANCE_WEIGHTS["precision"]
            elif a != b:  # SMALL_D, DOT_MODE, a split's chunk: another kernel path
                return None
        return far

    @staticmethod
    def _renamed(config: dict, names: dict) -> dict:
        """config with its blocks renamed by names (by role to this kernel's names, or back)."""
        return {**config, "kwargs": {names.get(k, k): v for k, v in config["kwargs"].items()}}


def _time(run) -> float:
    """Milliseconds a launch takes (the first run compiles it): short runs, the
    budget goes to trying configs."""
    return triton.testing.do_bench(run, warmup=5, rep=20)


def _where() -> str:
    """What a measured config is good for: this device model, Triton and hsr versions."""
    from . import __version__
    return f"{torch.cuda.get_device_name()} / triton {triton.__version__} / hsr {__version__}"


def chosen(kernel) -> dict:
    """What the forward ran with so far for a kernel: {key: config}, as text."""
    return {str(k): _describe(v) for (fn, _), t in _tuned.items() if fn is kernel for k, v in t.configs.items()}
