"""16-bit rows less a per-coordinate shift, for an L2 key (dispatch.shifts_16bit), in one
launch: each row x - c rounded to x's dtype, a row whose subtraction rounds marked with a
NaN (the forward then ranks it again from its differences, as a row with a NaN coordinate).
Where c is 0 everywhere (data near the origin against its extent) every program returns at
once and the forward reads the rows themselves: the choice is made on the device, no sync.

Imported by hsr.runtime.less_centre at the first 16-bit call that shifts."""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from . import launcher


@triton.jit
def _less_centre(x_ptr, c_ptr, out_ptr, n_rows, size_k, stride_row,
                 BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    """A block of rows less c, where c is not all 0."""
    offs = tl.arange(0, BLOCK_K)
    k_in = offs < size_k
    c = tl.load(c_ptr + offs, mask=k_in, other=0.0)
    if tl.max(tl.abs(c), axis=0) > 0:
        rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
        ok = (rows < n_rows)[:, None] & k_in[None, :]
        at = rows[:, None].to(tl.int64) * stride_row + offs[None, :]
        x = tl.load(x_ptr + at, mask=ok, other=0.0)
        less = x.to(tl.float32) - c[None, :]
        y = less.to(x.dtype)
        rounded = tl.max((y.to(tl.float32) != less).to(tl.int32), axis=1) > 0  # (a NaN coordinate too)
        y = tl.where(rounded[:, None] & (offs == 0)[None, :], float("nan"), y.to(tl.float32)).to(x.dtype)
        tl.store(out_ptr + at, y, mask=ok)


def less_centre(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """x [..., k] (16-bit; one row matrix as a view whose strides empty_like keeps:
    runtime.less_centre) less c [k] (fp32 values of x's dtype), in x's dtype and strides; a row whose subtraction rounds holds a NaN at coordinate 0. Left unwritten
    where c is 0 everywhere (the forward then reads x)."""
    k = x.shape[-1]
    out = torch.empty_like(x)
    rows = x.view(-1, k)
    n = rows.shape[0]
    if n:
        block_k = triton.next_power_of_2(max(k, 16))
        block_r = max(8, 4096 // block_k)
        # through hsr's launcher, so that a kept call (hsr.kept) replays this launch too
        launcher.launch(_less_centre, (triton.cdiv(n, block_r),), rows, c, out.view(-1, k), n, k, rows.stride(0),
                        BLOCK_R=block_r, BLOCK_K=block_k)
    return out
