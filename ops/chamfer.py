"""Chamfer distance with the semantics of ``pytorch3d.loss.chamfer_distance``.

Each direction runs the per-point kernel generated from ``chamfer_point.hsr``
(``chamfer_point_l1.hsr`` for norm=1): one program per block of points, so a
single large cloud still fills the GPU. The point and batch reductions are a
few torch ops on [N, P] values.
"""

from __future__ import annotations

import torch

from hsr.errors import TensorError
from hsr.generated import chamfer_point as _squared
from hsr.generated import chamfer_point_l1 as _l1

POINT_REDUCTIONS = ("mean", "sum", "max", None)
BATCH_REDUCTIONS = ("mean", "sum", None)


def chamfer_distance(x: torch.Tensor, y: torch.Tensor, x_lengths: torch.Tensor | None = None,
                     y_lengths: torch.Tensor | None = None, *, batch_reduction: str | None = "mean",
                     point_reduction: str | None = "mean", norm: int = 2, single_directional: bool = False,
                     backward: str = "auto"):
    """The Chamfer distance between point clouds x [N, P1, D] and y [N, P2, D].

    As pytorch3d (without normals or weights): norm=2 takes squared L2
    distances to the nearest neighbour, norm=1 L1 distances. point_reduction
    "mean" (over a cloud's real points; an empty cloud gives 0), "sum", "max"
    or None (per-point distances, padding 0); batch_reduction "mean", "sum" or
    None. Both directions are added ("max": their maximum; None: a tuple)
    unless single_directional. x_lengths/y_lengths [N] give ragged batches.
    Unlike pytorch3d it returns the loss alone, not (loss, loss_normals), in
    fp32. A nearest neighbour in an empty cloud is at distance 0 and passes no
    gradient. Differentiable in x and y.
    """
    if point_reduction not in POINT_REDUCTIONS:
        raise ValueError('point_reduction must be one of ["mean", "sum", "max"] or None')
    if batch_reduction not in BATCH_REDUCTIONS:
        raise ValueError('batch_reduction must be one of ["mean", "sum"] or None')
    if point_reduction is None and batch_reduction is not None:
        raise ValueError("Batch reduction must be None if point_reduction is None")
    if norm not in (1, 2):
        raise ValueError("Support for 1 or 2 norm.")
    x_lengths = _lengths(x, x_lengths, "x")
    y_lengths = _lengths(y, y_lengths, "y")
    if x.shape[0] != y.shape[0] or x.shape[2] != y.shape[2]:
        raise TensorError(f"chamfer_distance: x {tuple(x.shape)} and y {tuple(y.shape)} must share the "
                          "batch size N and the dimension D")
    if y.dtype != x.dtype:
        raise TensorError(f"chamfer_distance: x is {x.dtype} but y is {y.dtype}")
    module = _squared if norm == 2 else _l1
    cham_x = _reduce(_direction(module, x, y, x_lengths, y_lengths, backward), x_lengths,
                     point_reduction, batch_reduction)
    if single_directional:
        return cham_x
    cham_y = _reduce(_direction(module, y, x, y_lengths, x_lengths, backward), y_lengths,
                     point_reduction, batch_reduction)
    if point_reduction == "max":
        return torch.maximum(cham_x, cham_y)
    if point_reduction is None:
        return cham_x, cham_y
    return cham_x + cham_y


def _lengths(p, lengths, name):
    if not isinstance(p, torch.Tensor) or p.dim() != 3:
        shape = tuple(p.shape) if isinstance(p, torch.Tensor) else type(p).__name__
        raise TensorError(f"chamfer_distance: {name} must be a [N, P, D] tensor, got {shape}")
    if lengths is None:
        return torch.full((p.shape[0],), p.shape[1], dtype=torch.int64, device=p.device)
    if not isinstance(lengths, torch.Tensor) or lengths.shape != (p.shape[0],):
        raise TensorError(f"chamfer_distance: {name}_lengths must be a [{p.shape[0]}] tensor")
    return lengths.to(device=p.device, dtype=torch.int64)


def _direction(module, x, y, x_lengths, y_lengths, backward):
    """Per-point distance from x to its nearest y; padded points of x are 0."""
    dist = module.apply(x, y, ylen=y_lengths, backward=backward)
    real = torch.arange(x.shape[1], device=x.device)[None, :] < x_lengths[:, None]
    return torch.where(real, dist, 0.0)


def _reduce(cham, lengths, point_reduction, batch_reduction):
    if point_reduction == "max":
        cham = cham.max(1).values if cham.shape[1] else cham.new_zeros(cham.shape[0])
    elif point_reduction is not None:
        cham = cham.sum(1)
        if point_reduction == "mean":
            cham = cham / lengths.clamp(min=1)
    if batch_reduction is not None:
        cham = cham.sum()
        if batch_reduction == "mean":
            cham = cham / max(lengths.shape[0], 1)
    return cham
