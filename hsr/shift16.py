"""16-bit rows less a per-coordinate shift, for an L2 key (dispatch.shifts_16bit), in three
launches and no host sync:

1. the shift c [k]: per coordinate, the midpoint of B's values (in B's dtype) where they all
   lie within a factor 2 of it, so that every B row subtracts it exactly (Sterbenz's lemma),
   else 0 (a coordinate whose values span zero or a factor above 4);
2. B less c, exactly, with each row's squared norm in fp32 (the key's column norms);
3. A less c in A's dtype, a row whose subtraction rounds marked with a NaN at its first
   coordinate (the forward then ranks it again from its differences, as a row holding a
   NaN). Where c is 0 everywhere every program returns at once, and the forward reads A
   itself (its own test of c): data near the origin against its extent pay no pass.

Small torch ops in their place cost more than the passes (about fifteen launches, ~0.1 ms on
an H200 beside a 0.65 ms assignment). Imported by hsr.runtime.shift_16bit at the first
16-bit call that shifts."""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from . import launcher

WAVES = 4  # programs a multiprocessor for the passes over A (each walks row blocks)


@triton.jit
def _centre(x_ptr, c_ptr, n_rows, size_k, stride_row, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    """c for a block of coordinates, from every row of x (B)."""
    offs = tl.program_id(0) * BLOCK_K + tl.arange(0, BLOCK_K)
    k_in = offs < size_k
    lo = tl.full([BLOCK_K], float("inf"), tl.float32)
    hi = tl.full([BLOCK_K], float("-inf"), tl.float32)
    bad = tl.zeros([BLOCK_K], tl.int32)
    for r0 in range(0, n_rows, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        ok = (rows < n_rows)[:, None] & k_in[None, :]
        x = tl.load(x_ptr + rows[:, None].to(tl.int64) * stride_row + offs[None, :], mask=ok, other=0.0)
        x = x.to(tl.float32)
        bad += tl.sum((ok & ~(tl.abs(x) < float("inf"))).to(tl.int32), axis=0)  # NaN and inf: c = 0
        lo = tl.minimum(lo, tl.min(tl.where(ok, x, float("inf")), axis=0))
        hi = tl.maximum(hi, tl.max(tl.where(ok, x, float("-inf")), axis=0))
    mid = ((lo + hi) * 0.5).to(x_ptr.dtype.element_ty).to(tl.float32)  # a value of B's dtype
    pos = (lo > 0) & (hi <= 2 * mid) & (mid <= 2 * lo)
    neg = (hi < 0) & (lo >= 2 * mid) & (mid >= 2 * hi)
    c = tl.where((pos | neg) & (bad == 0), mid, 0.0)
    tl.store(c_ptr + offs, c, mask=k_in)


@triton.jit
def _less_centre(x_ptr, c_ptr, out_ptr, norms_ptr, n_rows, size_k, stride_row,
                 ALWAYS: tl.constexpr, NORMS: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    """Row blocks of x less c (every program walks its share); where c is 0 everywhere, nothing
    unless ALWAYS (B: its copy and norms are read either way)."""
    offs = tl.arange(0, BLOCK_K)
    k_in = offs < size_k
    c = tl.load(c_ptr + offs, mask=k_in, other=0.0)
    if ALWAYS or tl.max(tl.abs(c), axis=0) > 0:
        for r0 in range(tl.program_id(0) * BLOCK_R, n_rows, tl.num_programs(0) * BLOCK_R):
            rows = r0 + tl.arange(0, BLOCK_R)
            ok = (rows < n_rows)[:, None] & k_in[None, :]
            at = rows[:, None].to(tl.int64) * stride_row + offs[None, :]
            x = tl.load(x_ptr + at, mask=ok, other=0.0)
            less = x.to(tl.float32) - c[None, :]
            y = less.to(x.dtype)
            if NORMS:  # the shifted rows' squared norms, from the values stored
                tl.store(norms_ptr + rows, tl.sum(y.to(tl.float32) * y.to(tl.float32), axis=1), mask=rows < n_rows)
            else:  # a row whose subtraction rounds: a NaN at its first coordinate (a NaN coordinate rounds too)
                rounded = tl.max((y.to(tl.float32) != less).to(tl.int32), axis=1) > 0
                y = tl.where(rounded[:, None] & (offs == 0)[None, :], float("nan"), y.to(tl.float32)).to(x.dtype)
            tl.store(out_ptr + at, y, mask=ok)


def _blocks(k: int) -> tuple[int, int]:
    block_k = triton.next_power_of_2(max(k, 16))
    return max(8, 4096 // block_k), block_k


def centre(b: torch.Tensor) -> torch.Tensor:
    """c [k] (fp32) of rows b [rows, k] (a row matrix)."""
    n, k = b.shape
    c = torch.empty(k, dtype=torch.float32, device=b.device)
    block_k = min(32, triton.next_power_of_2(max(k, 16)))
    # through hsr's launcher, so that a kept call (hsr.kept) replays these launches too
    launcher.launch(_centre, (triton.cdiv(k, block_k),), b, c, n, k, b.stride(0), BLOCK_R=64, BLOCK_K=block_k)
    return c


def less_centre(x: torch.Tensor, c: torch.Tensor, norms: bool = False, programs: int = 1024):
    """x [rows, k] (a row matrix whose strides empty_like keeps) less c, in x's dtype and strides:
    with norms, B's (always written; (rows less c, norms [rows])), else A's (rows that round
    marked NaN; nothing written where c is 0 everywhere)."""
    n, k = x.shape
    out = torch.empty_like(x)
    sq = torch.empty(n, dtype=torch.float32, device=x.device) if norms else c
    if n:
        block_r, block_k = _blocks(k)
        grid = (max(1, min(triton.cdiv(n, block_r), programs)),)
        launcher.launch(_less_centre, grid, x, c, out, sq, n, k, x.stride(0), ALWAYS=norms, NORMS=norms,
                        BLOCK_R=block_r, BLOCK_K=block_k)
    return (out, sq) if norms else out
