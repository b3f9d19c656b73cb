"""Chamfer distance with the semantics of ``pytorch3d.loss.chamfer_distance``.

The two directions run the per-point kernel generated from ``chamfer_point.hsr``
(``chamfer_point_l1.hsr`` for norm=1) through its ``both_ways``: one pass over
the pairs where that was measured faster, else one call per direction; one
program per block of points, so a single large cloud still fills the GPU. The
point and batch reductions are a few torch ops on [N, P] values.
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
    unless single_directional. x_lengths/y_lengths [N] (integers, on x's
    device or the CPU) give ragged batches: lengths are clamped to [0, P],
    and padding points never reach a value or a gradient, whatever they hold.
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
    _cloud(x, "x")
    _cloud(y, "y")
    if x.shape[0] != y.shape[0] or x.shape[2] != y.shape[2]:
        raise TensorError(f"chamfer_distance: x {tuple(x.shape)} and y {tuple(y.shape)} must share the "
                          "batch size N and the dimension D")
    if y.dtype != x.dtype:
        raise TensorError(f"chamfer_distance: x is {x.dtype} but y is {y.dtype}")
    if y.device != x.device:
        raise TensorError(f"chamfer_distance: x is on {x.device} but y is on {y.device}")
    # lengths stay None when not given: no masks to build or apply (fewer launches per call)
    x_lengths = None if x_lengths is None else _lengths(x, x_lengths, "x")
    y_lengths = None if y_lengths is None else _lengths(y, y_lengths, "y")
    # padding never reaches a value or a gradient, whatever it holds (NaN, inf)
    x = x if x_lengths is None else _zero_padding(x, x_lengths)
    y = y if y_lengths is None else _zero_padding(y, y_lengths)
    module = _squared if norm == 2 else _l1
    if single_directional:
        dist_x = module.apply(x, y, ylen=y_lengths, backward=backward)
        return _reduce(_real_points(dist_x, x_lengths), x_lengths, point_reduction, batch_reduction)
    # both directions from one pass over the pairs (where d is a few coordinates)
    dist_x, dist_y = module.both_ways(x, y, ylen=y_lengths, ylen_swapped=x_lengths, backward=backward)
    cham_x = _reduce(_real_points(dist_x, x_lengths), x_lengths, point_reduction, batch_reduction)
    cham_y = _reduce(_real_points(dist_y, y_lengths), y_lengths, point_reduction, batch_reduction)
    if point_reduction == "max":
        return torch.maximum(cham_x, cham_y)
    if point_reduction is None:
        return cham_x, cham_y
    return cham_x + cham_y


FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


def _cloud(p, name):
    if not isinstance(p, torch.Tensor) or p.dim() != 3:
        shape = tuple(p.shape) if isinstance(p, torch.Tensor) else type(p).__name__
        raise TensorError(f"chamfer_distance: {name} must be a [N, P, D] tensor, got {shape}")
    if p.dtype not in FLOAT_DTYPES:
        raise TensorError(f"chamfer_distance: {name} must be a float tensor (float16, bfloat16, float32), "
                          f"got {p.dtype}")


def _lengths(p, lengths, name):
    """[N] int64 on p's device, clamped to [0, P] (a length beyond the padded
    size counts the P points there are). CPU lengths are moved to p's device."""
    if not isinstance(lengths, torch.Tensor) or lengths.shape != (p.shape[0],):
        got = tuple(lengths.shape) if isinstance(lengths, torch.Tensor) else type(lengths).__name__
        raise TensorError(f"chamfer_distance: {name}_lengths must be a [{p.shape[0]}] tensor "
                          f"(one length per cloud of {name}), got {got}")
    if lengths.is_floating_point() or lengths.is_complex() or lengths.dtype == torch.bool:
        raise TensorError(f"chamfer_distance: {name}_lengths must be an integer tensor, got {lengths.dtype}")
    if lengths.device != p.device and lengths.device.type != "cpu":
        raise TensorError(f"chamfer_distance: {name}_lengths is on {lengths.device} but {name} is on {p.device}")
    return lengths.to(device=p.device, dtype=torch.int64).clamp(0, p.shape[1])


def _zero_padding(p, lengths):
    real = torch.arange(p.shape[1], device=p.device)[None, :] < lengths[:, None]
    return p.masked_fill(~real[:, :, None], 0.0)


def _real_points(dist, lengths):
    """Per-point distances with the padded points' set to 0."""
    if lengths is None:
        return dist
    real = torch.arange(dist.shape[1], device=dist.device)[None, :] < lengths[:, None]
    return torch.where(real, dist, 0.0)


def _reduce(cham, lengths, point_reduction, batch_reduction):
    """lengths None: every cloud has its P points."""
    points = cham.shape[1]
    if lengths is None and point_reduction in ("mean", "sum") and batch_reduction is not None:
        # one sum over every point and one division: two launches instead of four
        count = (max(points, 1) if point_reduction == "mean" else 1) * \
            (max(cham.shape[0], 1) if batch_reduction == "mean" else 1)
        return cham.sum() / count
    if point_reduction == "max":
        cham = cham.max(1).values if cham.shape[1] else cham.sum(1)  # no points: 0, still in the graph
    elif point_reduction is not None:
        cham = cham.sum(1)
        if point_reduction == "mean":
            cham = cham / (max(points, 1) if lengths is None else lengths.clamp(min=1))
    if batch_reduction is not None:
        clouds = cham.shape[0]
        cham = cham.sum()
        if batch_reduction == "mean":
            cham = cham / max(clouds, 1)
    return cham
