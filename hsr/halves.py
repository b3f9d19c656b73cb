"""fp32 rows as fp16 halves for the tensor cores (dispatch.halves): hi = fp16((x - c) s) and
lo = fp16((x - c) s - hi), s a power of two that puts the largest finite |x - c| it covers into
[2^13, 2^14) (exact: built from the exponent's bits), and with norms each row's squared norm of
x - c in fp32. No fp32 copy of x - c: the shift, the split and the norms in one pass.

One s for the whole tensor takes two launches (its largest, then the split: two reads of x);
one s a row takes one (a row is one tile: its largest, then its split, from one read). The
rows held by the forward's programs take one a row, each read by its row's program; the
streamed side keeps one s, so that the key's FMA scales a row, not each pair.

Imported by hsr.runtime.split_halves at the first fp32 call that takes halves."""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from . import launcher

BLOCK_R = 64


@triton.jit
def _scale_of(e):
    """(s, 1 / s) for a largest |x| of biased exponent e (in [2^(e-127), 2^(e-126))): s =
    2^(140 - e) puts it into [2^13, 2^14), both clamped to normal floats (exact)."""
    e_s = tl.minimum(tl.maximum(267 - e, 1), 253)
    return (e_s << 23).to(tl.float32, bitcast=True), ((254 - e_s) << 23).to(tl.float32, bitcast=True)


@triton.jit
def _largest(x_ptr, c_ptr, big_ptr, n_rows, size_k, stride_row,
             HAS_C: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    """The largest finite |x - c| of a block of rows, into big (int32 bits: non-negative
    floats order as their bits do)."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    big = tl.zeros([BLOCK_R], tl.float32)
    for k0 in range(0, size_k, BLOCK_K):
        offs = k0 + tl.arange(0, BLOCK_K)
        ok = (rows < n_rows)[:, None] & (offs < size_k)[None, :]
        x = tl.load(x_ptr + rows[:, None].to(tl.int64) * stride_row + offs[None, :], mask=ok, other=0.0)
        if HAS_C:
            x = x - tl.load(c_ptr + offs, mask=offs < size_k, other=0.0)[None, :]
        x = tl.abs(x)
        big = tl.maximum(big, tl.max(tl.where(x < float("inf"), x, 0.0), axis=1))  # NaN and inf: 0
    tl.atomic_max(big_ptr, tl.max(big, axis=0).to(tl.int32, bitcast=True))


@triton.jit
def _split(x_ptr, c_ptr, big_ptr, hi_ptr, lo_ptr, inv_ptr, norms_ptr, n_rows, size_k, stride_row,
           HAS_C: tl.constexpr, LO: tl.constexpr, NORMS: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    """A block of rows less c, scaled and split; program 0 stores 1 / s."""
    s, inv = _scale_of((tl.load(big_ptr) >> 23) & 255)  # (big: the float's bits)
    if tl.program_id(0) == 0:
        tl.store(inv_ptr, inv)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    sq = tl.zeros([BLOCK_R], tl.float32)
    for k0 in range(0, size_k, BLOCK_K):
        offs = k0 + tl.arange(0, BLOCK_K)
        ok = (rows < n_rows)[:, None] & (offs < size_k)[None, :]
        at = rows[:, None].to(tl.int64) * stride_row + offs[None, :]
        x = tl.load(x_ptr + at, mask=ok, other=0.0)
        if HAS_C:
            x = x - tl.load(c_ptr + offs, mask=offs < size_k, other=0.0)[None, :]
        if NORMS:
            sq += tl.sum(x * x, axis=1)
        scaled = x * s
        hi = scaled.to(tl.float16)
        tl.store(hi_ptr + at, hi, mask=ok)
        if LO:
            tl.store(lo_ptr + at, (scaled - hi.to(tl.float32)).to(tl.float16), mask=ok)
    if NORMS:
        tl.store(norms_ptr + rows, sq, mask=rows < n_rows)


@triton.jit
def _split_rows(x_ptr, c_ptr, hi_ptr, lo_ptr, inv_ptr, norms_ptr, n_rows, size_k, stride_row,
                HAS_C: tl.constexpr, LO: tl.constexpr, NORMS: tl.constexpr, BLOCK_R: tl.constexpr,
                BLOCK_K: tl.constexpr):
    """A block of rows less c, each scaled by its own power of two and split, from one read
    (BLOCK_K holds a whole row); 1 / s of each row into inv."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    offs = tl.arange(0, BLOCK_K)
    ok = (rows < n_rows)[:, None] & (offs < size_k)[None, :]
    at = rows[:, None].to(tl.int64) * stride_row + offs[None, :]
    x = tl.load(x_ptr + at, mask=ok, other=0.0)
    if HAS_C:
        x = x - tl.load(c_ptr + offs, mask=offs < size_k, other=0.0)[None, :]
    size = tl.abs(x)
    big = tl.max(tl.where(size < float("inf"), size, 0.0), axis=1)  # NaN and inf: 0
    s, inv = _scale_of((big.to(tl.int32, bitcast=True) >> 23) & 255)
    tl.store(inv_ptr + rows, inv, mask=rows < n_rows)
    if NORMS:
        tl.store(norms_ptr + rows, tl.sum(x * x, axis=1), mask=rows < n_rows)
    scaled = x * s[:, None]
    hi = scaled.to(tl.float16)
    tl.store(hi_ptr + at, hi, mask=ok)
    if LO:
        tl.store(lo_ptr + at, (scaled - hi.to(tl.float32)).to(tl.float16), mask=ok)


ROW_SCALE_MAX_K = 256  # the widest row split with a scale of its own: one tile, one read


def split(x: torch.Tensor, lo: bool, centre: torch.Tensor | None = None, norms: bool = False,
          per_row: bool = False):
    """(hi, lo, 1 / s, norms) of fp32 rows x [..., k] less centre [k] (or as they are);
    x must be one [rows, k] matrix as a view (dispatch.row_matrix) whose strides empty_like
    keeps. hi and lo take x's strides; lo is hi where lo=False; norms [...] or None.
    1 / s: one element, or with per_row (k <= ROW_SCALE_MAX_K) one a row of the
    [rows, k] view, in its order."""
    k = x.shape[-1]
    rows = x.view(-1, k)
    n = rows.shape[0]
    hi = torch.empty_like(x, dtype=torch.float16)
    low = torch.empty_like(hi) if lo else hi
    sq = torch.empty(x.shape[:-1], dtype=torch.float32, device=x.device) if norms else None
    grid = (triton.cdiv(max(n, 1), BLOCK_R),)
    inv = torch.empty(max(n, 1) if per_row else 1, dtype=torch.float32, device=x.device)
    sq_arg = sq if norms else inv  # (a stand-in nothing writes)
    c = centre if centre is not None else inv
    # through hsr's launcher, so that a kept call (hsr.kept) replays these launches too
    if per_row:
        if k > ROW_SCALE_MAX_K:
            raise ValueError(f"a row split with its own scale holds at most {ROW_SCALE_MAX_K} coordinates, got {k}")
        if n:
            launcher.launch(_split_rows, grid, rows, c, hi.view(-1, k), low.view(-1, k), inv, sq_arg, n, k,
                            rows.stride(0), HAS_C=centre is not None, LO=lo, NORMS=norms, BLOCK_R=BLOCK_R,
                            BLOCK_K=triton.next_power_of_2(max(k, 16)))
        return hi, low, inv, sq
    big = torch.zeros(1, dtype=torch.int32, device=x.device)
    block_k = min(triton.next_power_of_2(max(k, 16)), 128)
    if n:
        launcher.launch(_largest, grid, rows, c, big, n, k, rows.stride(0), HAS_C=centre is not None,
                        BLOCK_R=BLOCK_R, BLOCK_K=block_k)
    launcher.launch(_split, grid, rows, c, big, hi.view(-1, k), low.view(-1, k), inv, sq_arg, n, k, rows.stride(0),
                    HAS_C=centre is not None, LO=lo, NORMS=norms, BLOCK_R=BLOCK_R, BLOCK_K=block_k)
    return hi, low, inv, sq
