"""Per-token symmetric quantization for the low-precision specs
(maxsim_int8.hsr, maxsim_fp8.hsr).

Each row along ``dim`` keeps its own scale, max |x| over the format's largest
value (127 for int8, 448 for fp8 e4m3), so that x is about scale * q: the
scales enter the spec as float inputs and the dots run on the low-precision
tensor cores.
"""

from __future__ import annotations

import torch

from hsr.errors import TensorError


def quantize_int8(x: torch.Tensor, dim: int = -1) -> tuple[torch.Tensor, torch.Tensor]:
    """(q, scale): q int8 in [-127, 127] with x's shape, scale fp32 without ``dim``.

    A row of zeros gets scale 1 and stays zero; a row holding NaN gets a NaN
    scale, so that the scores it reaches are NaN, as with float inputs."""
    x, scale = _scaled(x, dim, 127.0, "quantize_int8")
    q = torch.round(x / scale).clamp(-127, 127).nan_to_num(0.0).to(torch.int8)
    return q, scale.squeeze(dim)


def quantize_fp8(x: torch.Tensor, dim: int = -1) -> tuple[torch.Tensor, torch.Tensor]:
    """(q, scale): q torch.float8_e4m3fn (rounded to nearest, |q| <= 448) with
    x's shape, scale fp32 without ``dim``; zeros and NaN rows as quantize_int8."""
    x, scale = _scaled(x, dim, 448.0, "quantize_fp8")
    q = (x / scale).clamp(-448.0, 448.0).nan_to_num(0.0).to(torch.float8_e4m3fn)
    return q, scale.squeeze(dim)


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
