"""A large buffer of zeros written by a store kernel, not torch.zeros.

A hidden-state step's gradient of H_d is dense and mostly zeros (only the selected
rows get a value), so writing its zeros is a floor of the step: 1.6 GB at LateOn-Code.
torch.zeros (a fill kernel) wrote them at 3.4 TB/s on an H200, a Triton store of
4096 elements a program at 4.6 (bench/results/h200-hidden-record-fused-rule-2026-11-29/).
Where the rule takes it (dispatch.zeros_by_kernel) the buffer is torch.empty, then
this kernel, through hsr.launcher (a kept call records and replays the launch).
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from . import dispatch, launcher

BLOCK = 4096  # elements a program


@triton.jit
def _store_zeros(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros([BLOCK], x_ptr.dtype.element_ty), mask=offs < n)


def zeros(shape, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """torch.zeros(shape), written by the store kernel where dispatch.zeros_by_kernel says so.
    (No torch call but the buffer's: a kept call records every torch function the path runs.)"""
    if not dispatch.zeros_by_kernel(device.type, math.prod(shape) * dtype.itemsize):
        return torch.zeros(shape, dtype=dtype, device=device)
    return zero_(torch.empty(shape, dtype=dtype, device=device))


def zero_(x: torch.Tensor) -> torch.Tensor:
    """x (contiguous) set to zeros by the store kernel; x returned."""
    n = x.numel()
    if n:
        launcher.launch(_store_zeros, (triton.cdiv(n, BLOCK),), x, n, BLOCK=BLOCK)
    return x
