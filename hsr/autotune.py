"""Autotuning of generated forward kernels: per-architecture config pools,
pruned by the lengths and a shared-memory estimate.

Used at run time by generated modules (no parser or Jinja here)."""

from __future__ import annotations

import torch
import triton

from .runtime import autotuning, next_pow2

# (block of the outer axis, block of the selected axis, warps, stages)
POOLS = {
    "sm90": ((16, 64, 4, 3), (32, 64, 4, 3), (64, 64, 4, 3), (64, 128, 4, 3), (64, 128, 8, 3),
             (128, 64, 8, 3), (128, 128, 8, 3), (64, 32, 4, 4), (32, 128, 4, 4)),
    "sm80": ((16, 64, 4, 3), (32, 64, 4, 3), (64, 64, 4, 3), (64, 128, 4, 3), (128, 64, 8, 3),
             (64, 32, 4, 4), (32, 128, 4, 3)),
}
# With a blocked output axis (several queries stacked in one tile): (block of the
# outer axis, block of the selected axis, block of the stacked axis, warps, stages).
STACKED_POOLS = {
    "sm90": ((32, 64, 2, 4, 3), (32, 64, 4, 8, 3), (32, 128, 4, 8, 3), (16, 64, 8, 8, 3), (64, 64, 2, 8, 3),
             (32, 64, 8, 8, 3), (64, 128, 2, 8, 3)),
    "sm80": ((32, 64, 2, 4, 3), (32, 64, 4, 8, 3), (16, 64, 8, 8, 3), (64, 64, 2, 8, 3)),
}
SMEM_BYTES = {"sm90": 227 * 1024, "sm80": 163 * 1024}
KEY = ["r_bucket", "c_bucket"]

_tuned: dict = {}


def arch() -> str:
    """The config pool for the current device: sm90 (H100, H200) or sm80 (A100 and others)."""
    major, _ = torch.cuda.get_device_capability()
    return "sm90" if major >= 9 else "sm80"


def _pruner(operand: str, block_r: str, block_c: str, block_k: str, size_r: str, size_c: str,
            block_g: str | None = None, size_g: str | None = None):
    def rows(cfg):
        return cfg.kwargs[block_r] * (cfg.kwargs[block_g] if block_g else 1)

    def prune(configs, named_args, **kwargs):
        args = {**named_args, **kwargs}
        elem = args[operand].element_size()
        max_r, max_c = next_pow2(args[size_r]), next_pow2(args[size_c])
        max_g = next_pow2(args[size_g], 1) if block_g else 1
        limit = SMEM_BYTES[arch()]
        kept = [cfg for cfg in configs
                if cfg.kwargs[block_r] <= max_r and cfg.kwargs[block_c] <= max_c
                and (not block_g or cfg.kwargs[block_g] <= max_g)
                and (rows(cfg) + cfg.kwargs[block_c] * cfg.num_stages) * args[block_k] * elem <= limit]
        return kept or [min(configs, key=lambda c: rows(c) * c.kwargs[block_c])]
    return prune


def forward(kernel, *, operand: str, block_r: str, block_c: str, block_k: str, size_r: str, size_c: str,
            block_g: str | None = None, size_g: str | None = None):
    """The autotuned version of a select_reduce forward kernel, or None when
    blocks are fixed (the interpreter, or HSR_AUTOTUNE=0).

    Keys: the bucketed lengths, the padded contraction block, NEED_IDX and
    (Triton adds them) the argument dtypes; never the loop bounds."""
    if not autotuning():
        return None
    key = (kernel, arch())
    if key not in _tuned:
        if block_g:
            configs = [triton.Config({block_r: br, block_c: bc, block_g: bg}, num_warps=w, num_stages=s)
                       for br, bc, bg, w, s in STACKED_POOLS[arch()] + tuple(p[:2] + (1,) + p[2:] for p in POOLS[arch()])]
        else:
            configs = [triton.Config({block_r: br, block_c: bc}, num_warps=w, num_stages=s)
                       for br, bc, w, s in POOLS[arch()]]
        prune = _pruner(operand, block_r, block_c, block_k, size_r, size_c, block_g, size_g)
        _tuned[key] = triton.autotune(
            configs=configs, key=KEY + (["g_bucket"] if block_g else []) + [block_k, "NEED_IDX"],
            prune_configs_by={"early_config_prune": prune},
        )(kernel)
    return _tuned[key]


def chosen(kernel) -> dict:
    """What the autotuner picked so far for a kernel: {key: config}, as text."""
    return {str(k): str(v) for (fn, _), tuner in _tuned.items() if fn is kernel for k, v in tuner.cache.items()}
