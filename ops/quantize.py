"""Per-token symmetric int8 quantization, for the int8 specs (maxsim_int8.hsr).

Each row along ``dim`` keeps its own scale, max |x| / 127, so that x is about
scale * q with q in [-127, 127]: the scales enter the spec as float inputs and
the int8 dots stay exact on the tensor cores.
"""

from __future__ import annotations

import torch

from hsr.errors import TensorError


def quantize_int8(x: torch.Tensor, dim: int = -1) -> tuple[torch.Tensor, torch.Tensor]:
    """(q, scale): q int8 with x's shape, scale fp32 without ``dim``.

    A row of zeros gets scale 1 and stays zero; a row holding NaN gets a NaN
    scale, so that the scores it reaches are NaN, as with float inputs."""
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TensorError(f"quantize_int8: x must be a float tensor, got "
                          f"{x.dtype if isinstance(x, torch.Tensor) else type(x).__name__}")
    x = x.detach().float()
    amax = x.abs().amax(dim=dim, keepdim=True)
    scale = torch.where(amax > 0, amax / 127.0, torch.where(amax == 0, 1.0, amax))
    q = torch.round(x / scale).clamp(-127, 127).nan_to_num(0.0).to(torch.int8)
    return q, scale.squeeze(dim)
