"""Per-token symmetric quantization for the low-precision specs
(maxsim_int8.hsr, maxsim_fp8.hsr).

Each row along ``dim`` keeps its own scale, max |x| over the format's largest
value (127 for int8, 448 for fp8 e4m3), so that x is about scale * q: the
scales enter the spec as float inputs and the dots run on the low-precision
tensor cores. On a GPU (and in the interpreter) rows along the last axis
are quantized by one kernel launch, _quantize_rows, rather than a dozen of
torch's: a corpus stored quantized has its queries quantized on every call, and
at one query against a thousand documents those launches cost more than the
scoring (H200: 0.176 ms a call, the int8 spec's own call on quantized
queries 0.024; bench/results/h200-stored-int8-2026-11-27/). Its fp8 rows are
rounded to e4m3's grid in fp32 arithmetic before the conversion (the
interpreter's own conversion rounds some values across a binade wrongly), so
they equal torch's conversion bit for bit on either.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from hsr import launcher
from hsr.basics import interpreting, next_pow2
from hsr.errors import TensorError

ROUND: tl.constexpr = tl.constexpr(12582912.0)  # 1.5 * 2^23: (y + ROUND) - ROUND rounds |y| < 2^22 to the nearest integer, ties to even


@triton.jit
def _quantize_rows(x_ptr, q_ptr, scale_ptr, n_rows, d, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr,
                   FP8: tl.constexpr):
    """Rows [n_rows, d] of x to int8 (FP8: fp8 e4m3) as quantize_int8's (quantize_fp8's) torch ops
    do: scale = max |x| / 127 (448; 1 for a row of zeros, NaN for a row holding NaN), q = x / scale
    rounded to the nearest integer (e4m3 value), ties to even, clamped to +-127 (+-448), NaN to 0."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_D)
    ok = (rows < n_rows)[:, None] & (cols < d)[None, :]
    at = rows.to(tl.int64)[:, None] * d + cols[None, :]
    x = tl.load(x_ptr + at, mask=ok, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=1)
    amax = tl.where(tl.sum((x != x).to(tl.int32), axis=1) > 0, float("nan"), amax)  # max keeps no NaN
    # IEEE divisions (div_rn), as torch's: Triton's `/` on fp32 may round the last bit otherwise
    top = 448.0 if FP8 else 127.0
    scale = tl.where(amax > 0, tl.div_rn(amax, tl.full(amax.shape, top, tl.float32)), tl.where(amax == 0, 1.0, amax))
    y = tl.div_rn(x, tl.broadcast_to(scale[:, None], x.shape))
    y = tl.where(y == y, y, 0.0)
    if FP8:  # to e4m3's grid: 3 fraction bits, a fixed step below its least normal exponent (-6)
        bits = y.to(tl.int32, bitcast=True)
        step = ((tl.maximum(((bits >> 23) & 0xFF) - 127, -6) - 3 + 127) << 23).to(tl.float32, bitcast=True)
        r = tl.minimum(((tl.abs(y) / step + ROUND) - ROUND) * step, 448.0)  # (dividing by a power of two is exact)
        r = (r.to(tl.int32, bitcast=True) | ((bits >> 31) << 31)).to(tl.float32, bitcast=True)  # y's sign: -0 too
        tl.store(q_ptr + at, r.to(tl.float8e4nv), mask=ok)
    else:
        y = tl.minimum(tl.maximum((y + ROUND) - ROUND, -127.0), 127.0)
        tl.store(q_ptr + at, y.to(tl.int8), mask=ok)
    tl.store(scale_ptr + rows, scale, mask=rows < n_rows)


def quantize_int8(x: torch.Tensor, dim: int = -1) -> tuple[torch.Tensor, torch.Tensor]:
    """(q, scale): q int8 in [-127, 127] with x's shape, scale fp32 without ``dim``.

    A row of zeros gets scale 1 and stays zero; a row holding NaN gets a NaN
    scale, so that the scores it reaches are NaN, as with float inputs."""
    fused = _fused(x, dim, torch.int8)
    if fused is not None:
        return fused
    x, scale = _scaled(x, dim, 127.0, "quantize_int8")
    q = torch.round(x / scale).clamp(-127, 127).nan_to_num(0.0).to(torch.int8)
    return q, scale.squeeze(dim)


def quantize_fp8(x: torch.Tensor, dim: int = -1) -> tuple[torch.Tensor, torch.Tensor]:
    """(q, scale): q torch.float8_e4m3fn (rounded to nearest, |q| <= 448) with
    x's shape, scale fp32 without ``dim``; zeros and NaN rows as quantize_int8."""
    fused = _fused(x, dim, torch.float8_e4m3fn)
    if fused is not None:
        return fused
    x, scale = _scaled(x, dim, 448.0, "quantize_fp8")
    q = (x / scale).clamp(-448.0, 448.0).nan_to_num(0.0).to(torch.float8_e4m3fn)
    return q, scale.squeeze(dim)


FUSED_MAX_D = 4096  # the widest rows the one-launch quantizer holds in a block


def _fused(x, dim, kind):
    """quantize_int8's or quantize_fp8's (kind: the rows' dtype) (q, scale) from one
    _quantize_rows launch, where it applies: x a float
    tensor (not float64) on a GPU or in the interpreter, quantized along its last axis, of at
    most FUSED_MAX_D; else None."""
    if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.dim() >= 1 and 0 < x.shape[-1] <= FUSED_MAX_D
            and dim in (-1, x.dim() - 1) and (x.is_cuda or interpreting()) and x.dtype != torch.float64):
        return None
    d = x.shape[-1]
    rows = x.detach().reshape(-1, d).contiguous()
    q = torch.empty(rows.shape, dtype=kind, device=x.device)
    scale = torch.empty(rows.shape[0], dtype=torch.float32, device=x.device)
    if rows.shape[0]:
        block_d = next_pow2(d, 16)
        block_r = max(1, min(64, 4096 // block_d))
        launcher.launch(_quantize_rows, (triton.cdiv(rows.shape[0], block_r),), rows, q, scale, rows.shape[0], d,
                        BLOCK_R=block_r, BLOCK_D=block_d, FP8=kind == torch.float8_e4m3fn, num_warps=4)
    return q.view(x.shape), scale.view(x.shape[:-1])


def _scaled(x, dim, top, name):
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TensorError(f"{name}: x must be a float tensor, got "
                          f"{x.dtype if isinstance(x, torch.Tensor) else type(x).__name__}")
    x = x.detach().float()
    amax = x.abs().amax(dim=dim, keepdim=True)
    return x, torch.where(amax > 0, amax / top, torch.where(amax == 0, 1.0, amax))


def stored_rows(pair, who: str, normalize: bool = False) -> tuple[torch.Tensor, torch.Tensor, str]:
    """(rows, scales, "int8" or "fp8") of a corpus stored quantized, the pair that
    quantize_int8 / quantize_fp8 returned, checked; errors name ``who``."""
    if len(pair) != 2 or not all(isinstance(x, torch.Tensor) for x in pair):
        raise TensorError(f"{who}: a quantized corpus is the pair (rows, scales) that hsr.ops.quantize_int8 "
                          "or quantize_fp8 returns")
    rows, scales = pair
    kind = {torch.int8: "int8", torch.float8_e4m3fn: "fp8"}.get(rows.dtype)
    if kind is None:
        raise TensorError(f"{who}: the rows of a quantized corpus must be int8 or float8_e4m3fn, got {rows.dtype}")
    if not scales.is_floating_point() or scales.shape != rows.shape[:-1]:
        raise TensorError(f"{who}: the scales of a quantized corpus must be float, one a token: shape "
                          f"{tuple(rows.shape[:-1])}, got {scales.dtype} {tuple(scales.shape)}")
    if normalize:
        raise TensorError(f"{who}: normalize=True needs float rows; normalize them before quantizing them")
    return rows, scales, kind
