"""16-bit rows less a per-coordinate shift, for an L2 key (dispatch.shifts_16bit), in three
launches and no host sync:

1. each coordinate's least and greatest value in B, over each of at most RANGE_PARTS programs'
   share of B's rows (torch.aminmax over B's first axis took 13-38 us on an H200 for 1000 x 128
   centres: most of the shift's cost at 300000 points; bench/NOTES.md, session 54);
2. the shift c [k] from the parts (each program of the pass reduces them again): the
   midpoint, in B's dtype, where all of B's values lie within a factor 2 of it, so that every
   B row subtracts it exactly by Sterbenz's lemma; else 0 (a coordinate whose values span zero
   or a factor above 4); past it a flag, 1 where c is not 0; then B less c, exactly, with each
   row's squared norm in fp32 (the key's column norms);
3. A less c in A's dtype, a row whose subtraction rounds marked with a NaN at its first
   coordinate (the forward then ranks it again from its differences, as a row holding a
   NaN). Where the flag is 0 every program returns at once, and the forward reads A
   itself (it loads the flag too): data near the origin against its extent pay no pass.

The general and the lean forward read them alike. Measured on an H200 (2^20 points, fp16):
near the origin the call costs 1-2% more than unshifted, 5% at 300000 points; far from it
the points' pass adds 9-31% (bench/NOTES.md, session 54). Imported by hsr.runtime at the
first 16-bit call that shifts."""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from . import launcher

WAVES = 4  # programs a multiprocessor for the passes over A (each walks row blocks)
RANGE_PARTS = 32  # programs of B's range pass at most (each pass program reads all their parts)


@triton.jit
def _centre_of(lo, hi, dtype: tl.constexpr):
    """c from each coordinate's least and greatest value (NaN or inf: 0)."""
    lo, hi = lo.to(tl.float32), hi.to(tl.float32)
    mid = ((lo + hi) * 0.5).to(dtype).to(tl.float32)  # a value of B's dtype
    pos = (lo > 0) & (hi <= 2 * mid) & (mid <= 2 * lo) & (hi < float("inf"))
    neg = (hi < 0) & (lo >= 2 * mid) & (mid >= 2 * hi) & (lo > float("-inf"))
    return tl.where(pos | neg, mid, 0.0)


@triton.jit
def _range_parts(x_ptr, parts_ptr, n_rows, size_k, stride_row, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    """Each coordinate's least and greatest value over this program's share of x's row blocks,
    NaN where one is NaN (torch.aminmax's rule), into parts [programs, 2, BLOCK_K]; a program
    with no row stores +inf and -inf."""
    offs = tl.arange(0, BLOCK_K)
    lo = tl.full([BLOCK_K], float("inf"), tl.float32)
    hi = tl.full([BLOCK_K], float("-inf"), tl.float32)
    nan = tl.zeros([BLOCK_K], tl.int32)
    for r0 in range(tl.program_id(0) * BLOCK_R, n_rows, tl.num_programs(0) * BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        ok = (rows < n_rows)[:, None] & (offs < size_k)[None, :]
        x = tl.load(x_ptr + rows[:, None].to(tl.int64) * stride_row + offs[None, :], mask=ok, other=0.0).to(tl.float32)
        lo = tl.minimum(lo, tl.min(tl.where(ok, x, float("inf")), axis=0))
        hi = tl.maximum(hi, tl.max(tl.where(ok, x, float("-inf")), axis=0))
        nan = tl.maximum(nan, tl.max((ok & (x != x)).to(tl.int32), axis=0))
    at = parts_ptr + tl.program_id(0) * 2 * BLOCK_K + offs
    tl.store(at, tl.where(nan > 0, float("nan"), lo))
    tl.store(at + BLOCK_K, tl.where(nan > 0, float("nan"), hi))


@triton.jit
def _range_of(parts_ptr, n_parts, BLOCK_K: tl.constexpr, PARTS: tl.constexpr):
    """(lo, hi) of each coordinate from _range_parts' n_parts parts (NaN where any is NaN)."""
    p = tl.arange(0, PARTS)[:, None]
    at = parts_ptr + p * 2 * BLOCK_K + tl.arange(0, BLOCK_K)[None, :]
    lo = tl.load(at, mask=p < n_parts, other=float("inf"))
    hi = tl.load(at + BLOCK_K, mask=p < n_parts, other=float("-inf"))
    nan = tl.max(((lo != lo) | (hi != hi)).to(tl.int32), axis=0) > 0
    return (tl.where(nan, float("nan"), tl.min(tl.where(lo != lo, 0.0, lo), axis=0)),
            tl.where(nan, float("nan"), tl.max(tl.where(hi != hi, 0.0, hi), axis=0)))


@triton.jit
def _less_centre(x_ptr, parts_ptr, n_parts, c_ptr, out_ptr, norms_ptr, n_rows, n_norms, size_k, stride_row,
                 B_SIDE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, PARTS: tl.constexpr):
    """Row blocks of x less c (every program walks its share). B_SIDE: c from B's range (its
    n_parts parts; program 0 stores c), B's rows and norms written whatever c is, the norms' n_norms -
    n_rows entries past them 0; else (A) c as stored, and nothing written where it is 0
    everywhere."""
    offs = tl.arange(0, BLOCK_K)
    k_in = offs < size_k
    if B_SIDE:
        lo, hi = _range_of(parts_ptr, n_parts, BLOCK_K, PARTS)
        c = tl.where(k_in, _centre_of(lo, hi, x_ptr.dtype.element_ty), 0.0)
        if tl.program_id(0) == 0:  # c, then past it a flag: 1 where c is not 0 (what the forward tests)
            tl.store(c_ptr + offs, c, mask=k_in)
            tl.store(c_ptr + size_k, (tl.max(tl.abs(c), axis=0) > 0).to(tl.float32))
    else:
        c = tl.load(c_ptr + offs, mask=k_in, other=0.0)
    if B_SIDE or tl.load(c_ptr + size_k) != 0:
        for r0 in range(tl.program_id(0) * BLOCK_R, n_norms if B_SIDE else n_rows, tl.num_programs(0) * BLOCK_R):
            rows = r0 + tl.arange(0, BLOCK_R)
            ok = (rows < n_rows)[:, None] & k_in[None, :]
            at = rows[:, None].to(tl.int64) * stride_row + offs[None, :]
            x = tl.load(x_ptr + at, mask=ok, other=0.0)
            less = x.to(tl.float32) - c[None, :]
            y = less.to(x.dtype)
            if B_SIDE:  # the shifted rows' squared norms, from the values stored (0 past them: the pad)
                sq = tl.sum(y.to(tl.float32) * y.to(tl.float32), axis=1)
                tl.store(norms_ptr + rows, tl.where(rows < n_rows, sq, 0.0), mask=rows < n_norms)
            else:  # a row whose subtraction rounds: a NaN at its first coordinate (a NaN coordinate rounds too)
                rounded = tl.max((y.to(tl.float32) != less).to(tl.int32), axis=1) > 0
                y = tl.where(rounded[:, None] & (offs == 0)[None, :], float("nan"), y.to(tl.float32)).to(x.dtype)
            tl.store(out_ptr + at, y, mask=ok)


def _blocks(k: int) -> tuple[int, int]:
    block_k = triton.next_power_of_2(max(k, 16))
    return max(8, 4096 // block_k), block_k


def shift_rows(a: torch.Tensor, b: torch.Tensor, programs: int = 1024, pad: int = 0):
    """(c, b - c, |b - c|^2, a - c) of row matrices a, b [rows, k] (each a view whose strides
    empty_like keeps): c [k + 1] fp32 from b's range (one launch), its last entry
    1 where the others are not all 0 (the forward's test), b - c exact in
    b's dtype with each row's squared norm (and pad zeros past them: the lean forward reads a
    tile ahead, unmasked), a - c in a's dtype (rows that round marked NaN;
    nothing written where c is 0 everywhere). programs: the passes' grid at most."""
    k = b.shape[1]
    c = torch.empty(k + 1, dtype=torch.float32, device=b.device)  # c, and a flag: whether c is not 0
    b_s, a_s = torch.empty_like(b), torch.empty_like(a)
    norms = torch.empty(b.shape[0] + pad, dtype=torch.float32, device=b.device)
    block_r, block_k = _blocks(k)
    n_parts = max(1, min(triton.cdiv(b.shape[0], block_r), RANGE_PARTS))
    parts = torch.empty((n_parts, 2, block_k), dtype=torch.float32, device=b.device)
    # through hsr's launcher, so that a kept call (hsr.kept) replays these launches too
    launcher.launch(_range_parts, (n_parts,), b, parts, b.shape[0], k, b.stride(0), BLOCK_R=block_r, BLOCK_K=block_k)
    for x, out, side in ((b, b_s, True), (a, a_s, False)):
        grid = (max(1, min(triton.cdiv(x.shape[0] + (pad if side else 0), block_r), programs)),)
        launcher.launch(_less_centre, grid, x, parts, n_parts, c, out, norms, x.shape[0], norms.numel(), k, x.stride(0),
                        B_SIDE=side, BLOCK_R=block_r, BLOCK_K=block_k, PARTS=RANGE_PARTS)
    return c, b_s, norms, a_s
