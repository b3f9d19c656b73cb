"""Chamfer distance with the semantics of ``pytorch3d.loss.chamfer_distance``.

The two directions run the per-point kernel generated from ``chamfer_point.hsr``
(``chamfer_point_l1.hsr`` for norm=1) through its ``both_ways``: one pass over
the pairs where that was measured faster, else one call per direction; one
program per block of points, so a single large cloud still fills the GPU. The
point and batch reductions are a few torch ops on [N, P] values.

pytorch3d's call conventions are kept: its positional order (x, y, x_lengths,
y_lengths, x_normals, y_normals, weights, batch_reduction, point_reduction,
norm, single_directional, abs_cosine), per-cloud ``weights``, clouds given as a
list of [P_i, D] tensors or a Pointclouds object (anything with
``points_padded()`` and ``num_points_per_cloud()``), and the ``(loss, None)``
tuple with ``return_tuple=True``. hsr adds packed clouds ([P_total, D] with
``x_sizes`` / ``y_sizes``). Normals are not supported.
"""

from __future__ import annotations

import itertools

import torch

from hsr import kept, ragged
from hsr.errors import TensorError
from hsr import generated  # each module imported at its first use

POINT_REDUCTIONS = ("mean", "sum", "max", None)
BATCH_REDUCTIONS = ("mean", "sum", None)


def chamfer_distance(x, y, x_lengths=None, y_lengths=None, x_normals=None, y_normals=None, weights=None,
                     batch_reduction: str | None = "mean", point_reduction: str | None = "mean", norm: int = 2,
                     single_directional: bool = False, abs_cosine: bool = True, *, x_sizes=None, y_sizes=None,
                     return_tuple: bool = False, backward: str = "auto"):
    """The Chamfer distance between point clouds x [N, P1, D] and y [N, P2, D].

    As pytorch3d (without normals): norm=2 takes squared L2 distances to the
    nearest neighbour, norm=1 L1 distances. point_reduction "mean" (over a
    cloud's real points; an empty cloud gives 0), "sum", "max" or None
    (per-point distances, padding 0); batch_reduction "mean", "sum" or None.
    Both directions are added ("max": their maximum; None: a tuple) unless
    single_directional.

    Clouds, for x and y alike (each side independently):
      - a tensor [N, P, D], with optional x_lengths/y_lengths [N] (integers, on
        the cloud's device or the CPU) for ragged batches: lengths are clamped
        to [0, P] (pytorch3d raises on a length above P);
      - a list (or tuple) of N tensors [P_i, D] (an empty cloud may be [0, D]
        or any empty tensor), padded here to [N, max P_i, D] with lengths P_i;
      - a packed tensor [P_total, D] with x_sizes/y_sizes, the N per-cloud
        sizes (a list of ints or a 1-D integer tensor) that sum to P_total;
        where both sides are packed, nothing is padded: the kernels read each
        cloud from the offsets (chamfer_packed.hsr, a ragged axis);
      - a pytorch3d Pointclouds (anything with points_padded() and
        num_points_per_cloud()).
    A list, packed tensor or Pointclouds gives its own lengths: passing
    x_lengths/y_lengths with one is a ValueError. Padding points never reach a
    value or a gradient, whatever they hold, and gradients flow back into the
    list's tensors, the packed tensor or the padded points.

    weights: an optional [N] tensor of non-negative per-cloud weights, as
    pytorch3d: each cloud's distances are multiplied by its weight (the
    per-point ones where point_reduction is None), and batch_reduction="mean"
    divides the weighted sum by weights.sum() instead of N. If the weights sum
    to 0 the loss is 0 (still in the autograd graph, zero gradients), as in
    pytorch3d (whose zeros are [N, N] where batch_reduction is None; here [N],
    or [N, P] per point). A negative weight is a ValueError "weights cannot be
    negative." (checked on the host, one synchronisation, as pytorch3d).

    Shape errors are TensorErrors (ValueErrors) that begin with pytorch3d's
    wording where it makes the same check ("Expected points to be of shape
    (N, P, D)", "y does not have the correct shape.", ...), then hsr's own.

    x_normals, y_normals: not supported (a NotImplementedError): hsr computes
    the distance term only, never pytorch3d's loss_normals. Normals that a
    Pointclouds carries are not read, and return_tuple=True with normals on
    both sides (where pytorch3d would return a loss_normals) is a
    NotImplementedError. abs_cosine is accepted for pytorch3d's signature and,
    without normals, changes nothing.

    Returns the loss alone (fp32; float64 for float64 clouds), or pytorch3d's
    tuple (loss, None) with return_tuple=True (loss_normals is None: there are
    no normals). Clouds are fp16, bf16, fp32 or float64 (one dtype for x and y;
    float64 runs the float64 reference evaluator). A nearest neighbour in
    an empty cloud is at distance 0 and passes no gradient. Differentiable in x
    and y (and in weights).
    """
    flags = (batch_reduction, point_reduction, norm, single_directional, abs_cosine, return_tuple, backward)
    inputs = (x, y, x_lengths, y_lengths, x_normals, y_normals, weights, x_sizes, y_sizes)
    if torch.compiler.is_compiling() or not all(f is None or isinstance(f, (str, int, bool)) for f in flags) or (
            torch.is_grad_enabled() and any(getattr(t, "requires_grad", False) for t in inputs)):
        return _chamfer_distance(*inputs, *flags)  # autograd is not replayed
    key = kept.signature(inputs, *flags)  # None (as written) where a cloud is a list or Pointclouds
    return kept.call(_KEPT, key, inputs, _chamfer_distance, *inputs, *flags)


_KEPT = kept.Table()  # chamfer_distance's calls by signature: a repeated inference call replays (hsr.kept)


def _chamfer_distance(x, y, x_lengths, y_lengths, x_normals, y_normals, weights, x_sizes, y_sizes,
                      batch_reduction, point_reduction, norm, single_directional, abs_cosine, return_tuple, backward):
    """chamfer_distance, as written."""
    if point_reduction not in POINT_REDUCTIONS:
        raise ValueError('point_reduction must be one of ["mean", "sum", "max"] or None')
    if batch_reduction not in BATCH_REDUCTIONS:
        raise ValueError('batch_reduction must be one of ["mean", "sum"] or None')
    if point_reduction is None and batch_reduction is not None:
        raise ValueError("Batch reduction must be None if point_reduction is None")
    if norm not in (1, 2):
        raise ValueError("Support for 1 or 2 norm.")
    if x_normals is not None or y_normals is not None:
        raise NotImplementedError(
            "chamfer_distance: normals are not supported (x_normals, y_normals): hsr computes the distance "
            "term only, not pytorch3d's loss_normals; leave them None (return_tuple=True gives (loss, None))")
    if _is_packed(x, x_sizes) and _is_packed(y, y_sizes) and x_lengths is None and y_lengths is None:
        loss = _chamfer_packed(x, y, x_sizes, y_sizes, weights, batch_reduction, point_reduction, norm,
                               single_directional, backward)
        return (loss, None) if return_tuple else loss
    x, x_lengths, x_has_normals = _clouds(x, x_lengths, x_sizes, "x")
    y, y_lengths, y_has_normals = _clouds(y, y_lengths, y_sizes, "y")
    if return_tuple and x_has_normals and y_has_normals:
        raise NotImplementedError(
            "chamfer_distance: both Pointclouds carry normals, but normals are not supported: hsr computes "
            "the distance term only, not pytorch3d's loss_normals (return_tuple=False gives the loss alone)")
    if x.shape[0] != y.shape[0] or x.shape[2] != y.shape[2]:
        raise TensorError(f"chamfer_distance: y does not have the correct shape. x {tuple(x.shape)} and "
                          f"y {tuple(y.shape)} must share the batch size N and the dimension D")
    if y.dtype != x.dtype:
        raise TensorError(f"chamfer_distance: x is {x.dtype} but y is {y.dtype}")
    if y.device != x.device:
        raise TensorError(f"chamfer_distance: x is on {x.device} but y is on {y.device}")
    weights = None if weights is None else _weights(x, weights)
    # lengths stay None when not given: no masks to build or apply (fewer launches per call)
    x_lengths = None if x_lengths is None else _lengths(x, x_lengths, "x")
    y_lengths = None if y_lengths is None else _lengths(y, y_lengths, "y")
    # padding never reaches a value or a gradient, whatever it holds (NaN, inf)
    x = x if x_lengths is None else _zero_padding(x, x_lengths)
    y = y if y_lengths is None else _zero_padding(y, y_lengths)
    module = generated.chamfer_point if norm == 2 else generated.chamfer_point_l1
    reduce = dict(point_reduction=point_reduction, batch_reduction=batch_reduction, weights=weights)
    if single_directional:
        dist_x = module.apply(x, y, ylen=y_lengths, backward=backward)
        loss = _reduce(_real_points(dist_x, x_lengths), x_lengths, **reduce)
    elif weights is None and x_lengths is None and y_lengths is None and point_reduction in ("mean", "sum") \
            and batch_reduction is not None:
        # the loss of every point alike: both directions and their sum as one autograd node
        loss = module.both_ways_sum(x, y, scale=_scale(x, point_reduction, batch_reduction),
                                    scale_swapped=_scale(y, point_reduction, batch_reduction), backward=backward)
    else:
        # both directions from one pass over the pairs (where d is a few coordinates)
        dist_x, dist_y = module.both_ways(x, y, ylen=y_lengths, ylen_swapped=x_lengths, backward=backward)
        cham_x = _reduce(_real_points(dist_x, x_lengths), x_lengths, **reduce)
        cham_y = _reduce(_real_points(dist_y, y_lengths), y_lengths, **reduce)
        if point_reduction == "max":
            loss = torch.maximum(cham_x, cham_y)
        elif point_reduction is None:
            loss = (cham_x, cham_y)
        else:
            loss = cham_x + cham_y
    return (loss, None) if return_tuple else loss


def _is_packed(p, sizes):
    return isinstance(p, torch.Tensor) and p.dim() == 2 and sizes is not None


def _chamfer_packed(x, y, x_sizes, y_sizes, weights, batch_reduction, point_reduction, norm,
                    single_directional, backward):
    """Both clouds packed: the per-point nearest distances come packed from
    chamfer_packed.hsr (ragged axes: no padding read or written), one launch per
    direction, then reduced per cloud by segment sums (or maxima)."""
    cu_x, len_x, max_x = _offsets(x, x_sizes, "x")
    cu_y, len_y, max_y = _offsets(y, y_sizes, "y")
    if cu_x.shape != cu_y.shape or x.shape[1] != y.shape[1]:
        raise TensorError(f"chamfer_distance: y does not have the correct shape. x has {cu_x.shape[0] - 1} clouds "
                          f"of dimension {x.shape[1]}, y {cu_y.shape[0] - 1} of dimension {y.shape[1]}; they "
                          "must share the batch size N and the dimension D")
    if y.dtype != x.dtype:
        raise TensorError(f"chamfer_distance: x is {x.dtype} but y is {y.dtype}")
    if y.device != x.device:
        raise TensorError(f"chamfer_distance: x is on {x.device} but y is on {y.device}")
    n = cu_x.shape[0] - 1
    weights = None if weights is None else _weights(x.new_empty((n, 0, 0)), weights)
    module = generated.chamfer_packed if norm == 2 else generated.chamfer_packed_l1
    reduce = dict(point_reduction=point_reduction, batch_reduction=batch_reduction, weights=weights)
    limits = {"n": max_x, "m": max_y} if max_x is not None and max_y is not None else None
    dist_x = module.apply(cu_x, cu_y, x, y, backward=backward, max_seqlen=limits)
    cham_x = _reduce_packed(dist_x, cu_x, len_x, max_x, **reduce)
    if single_directional:
        return cham_x
    limits = limits and {"n": max_y, "m": max_x}
    dist_y = module.apply(cu_y, cu_x, y, x, backward=backward, max_seqlen=limits)
    cham_y = _reduce_packed(dist_y, cu_y, len_y, max_y, **reduce)
    if point_reduction == "max":
        return torch.maximum(cham_x, cham_y)
    if point_reduction is None:
        return cham_x, cham_y
    return cham_x + cham_y


def _offsets(p, sizes, name):
    """(offsets [N + 1] int64, lengths [N] int64, the longest or None) of a packed
    cloud's sizes, on its device; None where sizes are a tensor (the kernels'
    call then reads the longest from the offsets)."""
    sizes = _sizes(p, sizes, name)
    if isinstance(sizes, torch.Tensor):
        lengths = sizes.to(device=p.device, dtype=torch.int64)
        return torch.cat([lengths.new_zeros(1), lengths.cumsum(0)]), lengths, None
    lengths = torch.tensor(sizes, dtype=torch.int64, device=p.device)
    offsets = torch.tensor([0] + list(itertools.accumulate(sizes)), dtype=torch.int64, device=p.device)
    return offsets, lengths, max(sizes)


def _reduce_packed(dist, offsets, lengths, longest, point_reduction, batch_reduction, weights=None):
    """_reduce of packed per-point distances [P_total]: each cloud's sum, mean or
    max by segment (index_add, scatter_reduce), per point (None) padded to
    [N, longest] with 0, as pytorch3d gives them."""
    n = lengths.shape[0]
    if point_reduction is None:
        if longest is None:
            longest = int(lengths.max()) if n else 0
        cham = ragged.unpack(dist, ("b", "n"), ("n", "b", "cu"), offsets, longest)
        return cham if weights is None else cham * weights.to(cham.dtype)[:, None]
    cells = torch.repeat_interleave(torch.arange(n, device=dist.device), lengths, output_size=dist.shape[0])
    zeros = dist.new_zeros(n)
    if point_reduction == "max":  # an empty cloud keeps 0
        cham = zeros.scatter_reduce(0, cells, dist, "amax", include_self=False)
    else:
        cham = zeros.index_add(0, cells, dist)
        if point_reduction == "mean":
            cham = cham / lengths.clamp(min=1).to(cham.dtype)
    return _batch(cham, batch_reduction, weights)


FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_SHAPES = "a [N, P, D] tensor, a list of [P_i, D] tensors, a packed [P_total, D] tensor with {0}_sizes, or a Pointclouds"
# pytorch3d's wording of its shape errors, kept first in hsr's messages (code that matches them still does)
_NOT_POINTS = "Expected points to be of shape (N, P, D)."
_NOT_CLOUDS = "The input pointclouds should be either Pointclouds objects or torch.Tensor of shape " \
              "(minibatch, num_points, 3)."
_NOT_LENGTHS = "Expected lengths to be of shape (N,)."


def _clouds(p, lengths, sizes, name):
    """(padded [N, P, D] tensor, lengths or None, whether it carries normals)
    from any of the accepted forms of one side."""
    if isinstance(p, torch.Tensor):
        if p.dim() == 2 and sizes is not None:
            if lengths is not None:
                raise TensorError(f"chamfer_distance: {name}_lengths must be None when {name} is packed "
                                  f"[P_total, D] with {name}_sizes (the sizes give each cloud's length)")
            return _packed(p, sizes, name) + (False,)
        if sizes is not None:
            raise TensorError(f"chamfer_distance: {name}_sizes is for a packed [P_total, D] {name}, but {name} "
                              f"has shape {tuple(p.shape)} (a padded [N, P, D] {name} takes {name}_lengths)")
        _cloud(p, name)
        return p, lengths, False
    if sizes is not None:
        raise TensorError(f"chamfer_distance: {name}_sizes is for a packed [P_total, D] tensor {name}, "
                          f"got {type(p).__name__}")
    if isinstance(p, (list, tuple)):
        if lengths is not None:
            raise TensorError(f"chamfer_distance: {name}_lengths must be None when {name} is a list of clouds "
                              "(the list gives each cloud's length)")
        return _listed(p, name) + (False,)
    if callable(getattr(p, "points_padded", None)) and callable(getattr(p, "num_points_per_cloud", None)):
        if lengths is not None:
            raise TensorError(f"chamfer_distance: {name}_lengths must be None when {name} is a Pointclouds "
                              "(it gives each cloud's length)")
        points, counts = p.points_padded(), p.num_points_per_cloud()
        _cloud(points, name)
        normals = getattr(p, "normals_padded", None)
        return points, counts, callable(normals) and normals() is not None
    raise TensorError(f"chamfer_distance: {_NOT_CLOUDS} {name} must be {_SHAPES.format(name)}, "
                      f"got {type(p).__name__}")


def _listed(clouds, name):
    """A list of [P_i, D] tensors, padded to [N, max P_i, D] (differentiable),
    and its lengths (None where every cloud has the same size)."""
    if not clouds:
        raise TensorError(f"chamfer_distance: {name} is an empty list: it needs at least one cloud [P_i, D] "
                          "(the dimension D comes from the clouds)")
    for i, c in enumerate(clouds):
        if not isinstance(c, torch.Tensor):
            raise TensorError(f"chamfer_distance: {name} must be {_SHAPES.format(name)}, got a list "
                              f"whose item {i} is {type(c).__name__}")
    filled = [c for c in clouds if c.numel() > 0]
    if any(c.dim() != 2 for c in filled):
        c = next(c for c in filled if c.dim() != 2)
        raise TensorError(f"chamfer_distance: {name} is a list, so each cloud must be [P_i, D]; cloud "
                          f"{next(i for i, k in enumerate(clouds) if k is c)} has shape {tuple(c.shape)}")
    first = (filled or clouds)[0]
    dim = first.shape[1] if first.dim() == 2 else 0
    dtype, device = first.dtype, first.device
    for i, c in enumerate(clouds):
        if c.dim() == 2 and c.shape[1] != dim:
            raise TensorError(f"chamfer_distance: the clouds of {name} must share the dimension D: cloud {i} "
                              f"has shape {tuple(c.shape)}, an earlier one D = {dim}")
        if c.dtype != dtype:
            raise TensorError(f"chamfer_distance: the clouds of {name} must share one dtype: cloud {i} is "
                              f"{c.dtype}, an earlier one {dtype}")
        if c.device != device:
            raise TensorError(f"chamfer_distance: the clouds of {name} must be on one device: cloud {i} is on "
                              f"{c.device}, an earlier one on {device}")
    clouds = [c if c.dim() == 2 and c.shape[1] == dim else c.reshape(0, dim) for c in clouds]
    _cloud(clouds[0].unsqueeze(0), name)  # the dtype check
    return _pad(clouds, [c.shape[0] for c in clouds], device)


def _packed(p, sizes, name):
    """A packed [P_total, D] tensor and its per-cloud sizes, padded to [N, max P_i, D]."""
    sizes = _sizes(p, sizes, name)
    if isinstance(sizes, torch.Tensor):
        sizes = _sizes(p, sizes.tolist(), name)
    return _pad(list(torch.split(p, sizes)), sizes, p.device)


def _sizes(p, sizes, name):
    """A packed cloud's sizes, checked (and its dtype): a list of ints summing to
    its points, or a 1-D integer tensor (whose values are not read here)."""
    _cloud(p.unsqueeze(0), name)  # the dtype check
    if isinstance(sizes, torch.Tensor):
        if sizes.dim() != 1 or sizes.is_floating_point() or sizes.is_complex() or sizes.dtype == torch.bool:
            raise TensorError(f"chamfer_distance: {name}_sizes must be a 1-D integer tensor or a list of ints "
                              f"(one size per cloud), got a {sizes.dtype} tensor of shape {tuple(sizes.shape)}")
        if sizes.numel() == 0:
            raise TensorError(f"chamfer_distance: {name}_sizes is empty: it needs at least one cloud")
        return sizes
    if not (isinstance(sizes, (list, tuple)) and all(isinstance(s, int) and not isinstance(s, bool) for s in sizes)):
        raise TensorError(f"chamfer_distance: {name}_sizes must be a 1-D integer tensor or a list of ints "
                          f"(one size per cloud), got {type(sizes).__name__}")
    if not sizes:
        raise TensorError(f"chamfer_distance: {name}_sizes is empty: it needs at least one cloud")
    if min(sizes) < 0:
        raise TensorError(f"chamfer_distance: {name}_sizes cannot be negative, got {list(sizes)}")
    if sum(sizes) != p.shape[0]:
        raise TensorError(f"chamfer_distance: {name}_sizes must sum to the {p.shape[0]} points of the packed "
                          f"{name} {tuple(p.shape)}, got sizes {list(sizes)} (sum {sum(sizes)})")
    return list(sizes)


def _pad(clouds, sizes, device):
    padded = torch.nn.utils.rnn.pad_sequence(clouds, batch_first=True)
    if min(sizes) == max(sizes):
        return padded, None                     # every cloud full: no lengths, no masks
    return padded, torch.tensor(sizes, dtype=torch.int64, device=device)


def _cloud(p, name):
    if not isinstance(p, torch.Tensor) or p.dim() != 3:
        shape = tuple(p.shape) if isinstance(p, torch.Tensor) else type(p).__name__
        said = _NOT_POINTS if isinstance(p, torch.Tensor) else _NOT_CLOUDS
        raise TensorError(f"chamfer_distance: {said} {name} must be {_SHAPES.format(name)}, got {shape}")
    if p.dtype not in FLOAT_DTYPES:
        raise TensorError(f"chamfer_distance: {name} must be a float tensor (float16, bfloat16, float32, "
                          f"float64), got {p.dtype}")


def _weights(x, weights):
    """pytorch3d's checks of per-cloud weights: shape (N,), none negative."""
    n = x.shape[0]
    if not isinstance(weights, torch.Tensor) or weights.shape != (n,):
        got = tuple(weights.shape) if isinstance(weights, torch.Tensor) else type(weights).__name__
        raise TensorError(f"chamfer_distance: weights must be of shape (N,). One weight per cloud, N = {n}, "
                          f"got {got}")
    if weights.is_complex() or weights.dtype == torch.bool:
        raise TensorError(f"chamfer_distance: weights must be a real tensor, got {weights.dtype}")
    if weights.device != x.device and weights.device.type != "cpu":
        raise TensorError(f"chamfer_distance: weights is on {weights.device} but x is on {x.device}")
    weights = weights.to(x.device)
    if not bool((weights >= 0).all()):
        raise TensorError("chamfer_distance: weights cannot be negative.")
    return weights


def _lengths(p, lengths, name):
    """[N] int64 on p's device, clamped to [0, P] (a length beyond the padded
    size counts the P points there are). CPU lengths are moved to p's device."""
    if not isinstance(lengths, torch.Tensor) or lengths.shape != (p.shape[0],):
        got = tuple(lengths.shape) if isinstance(lengths, torch.Tensor) else type(lengths).__name__
        raise TensorError(f"chamfer_distance: {_NOT_LENGTHS} {name}_lengths must be a [{p.shape[0]}] tensor "
                          f"(one length per cloud of {name}), got {got}")
    if lengths.is_floating_point() or lengths.is_complex() or lengths.dtype == torch.bool:
        raise TensorError(f"chamfer_distance: {name}_lengths must be an integer tensor, got {lengths.dtype}")
    if lengths.device != p.device and lengths.device.type != "cpu":
        raise TensorError(f"chamfer_distance: {name}_lengths is on {lengths.device} but {name} is on {p.device}")
    return lengths.to(device=p.device, dtype=torch.int64).clamp(0, p.shape[1])


def _zero_padding(p, lengths):
    real = torch.arange(p.shape[1], device=p.device)[None, :] < lengths[:, None]
    return p.masked_fill(~real[:, :, None], 0.0)


def _scale(p, point_reduction, batch_reduction):
    """The weight of each of p's points in a loss over full clouds [N, P, D]."""
    points = max(p.shape[1], 1) if point_reduction == "mean" else 1
    return 1.0 / (points * (max(p.shape[0], 1) if batch_reduction == "mean" else 1))


def _real_points(dist, lengths):
    """Per-point distances with the padded points' set to 0."""
    if lengths is None:
        return dist
    real = torch.arange(dist.shape[1], device=dist.device)[None, :] < lengths[:, None]
    return torch.where(real, dist, 0.0)


def _reduce(cham, lengths, point_reduction, batch_reduction, weights=None):
    """lengths None: every cloud has its P points. weights [N] (pytorch3d's):
    scale each cloud's values; the batch mean divides by their sum (1 where
    that is 0: every weight is 0, and so is the loss)."""
    points = cham.shape[1]
    if weights is None and lengths is None and point_reduction in ("mean", "sum") and batch_reduction is not None:
        # one sum over every point and one division: two launches instead of four
        count = (max(points, 1) if point_reduction == "mean" else 1) * \
            (max(cham.shape[0], 1) if batch_reduction == "mean" else 1)
        return cham.sum() / count
    if weights is not None:
        weights = weights.to(cham.dtype)
    if point_reduction is None:
        return cham if weights is None else cham * weights[:, None]
    if point_reduction == "max":
        cham = cham.max(1).values if cham.shape[1] else cham.sum(1)  # no points: 0, still in the graph
    else:
        cham = cham.sum(1)
        if point_reduction == "mean":
            cham = cham / (max(points, 1) if lengths is None else lengths.clamp(min=1))
    return _batch(cham, batch_reduction, weights)


def _batch(cham, batch_reduction, weights):
    """Per-cloud values [N] scaled by weights, then reduced over the batch."""
    if weights is not None:
        weights = weights.to(cham.dtype)
        cham = cham * weights       # weights >= 0: the max of scaled points is the scaled max
    if batch_reduction is not None:
        clouds = cham.shape[0]
        cham = cham.sum()
        if batch_reduction == "mean":
            if weights is None:
                cham = cham / max(clouds, 1)
            else:
                total = weights.sum()
                cham = cham / torch.where(total == 0, torch.ones_like(total), total)
    return cham
