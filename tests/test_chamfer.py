"""hsr.ops.chamfer_distance against a from-scratch float64 reference of
pytorch3d.loss.chamfer_distance (no normals, no weights; only the loss is
returned), through the Triton interpreter here (and on CUDA with
HSR_TEST_DEVICE=cuda).

The reference below is written directly from pytorch3d's semantics: brute-force
pairwise distances (squared L2 for norm=2, L1 for norm=1), the nearest real
point of the other cloud (ties: the lowest index, as torch.min returns it),
padded points 0, a search over an empty cloud 0 with no gradient, then the point
reduction (mean over a cloud's real points, sum, max with padding counted as 0,
or None), then the batch reduction (mean over N, sum, or None), per direction;
the two directions are added, or combined by torch.maximum for "max".
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from profiles import examples

from hsr.ops import chamfer_distance

POINT_REDUCTIONS = ["mean", "sum", "max", None]
BATCH_REDUCTIONS = ["mean", "sum", None]


# -- the reference -----------------------------------------------------------------------

def _full(lengths, n, p):
    return torch.full((n,), p, dtype=torch.int64) if lengths is None else lengths.cpu().long()


def _one_direction(x, y, xl, yl, norm, point_reduction, batch_reduction, gaps):
    """pytorch3d's _chamfer_distance_single_direction, float64, from x to y."""
    n, p1, _ = x.shape
    p2 = y.shape[1]
    diff = x[:, :, None, :] - y[:, None, :, :]
    dist = diff.square().sum(-1) if norm == 2 else diff.abs().sum(-1)          # [N, P1, P2]
    y_real = torch.arange(p2)[None, :] < yl[:, None]
    dist = dist.masked_fill(~y_real[:, None, :], float("inf"))
    nearest = dist.min(dim=2).values                                             # first minimum wins
    x_real = torch.arange(p1)[None, :] < xl[:, None]
    searched = x_real & (yl[:, None] > 0)       # a search over an empty cloud gives 0, no gradient
    cham = torch.where(searched, nearest, torch.zeros_like(nearest))             # [N, P1]

    # how far each selection is from a tie (the kernels must pick the same winner)
    if p2 >= 2:
        two = dist.detach().topk(2, dim=2, largest=False).values
        gap = (two[..., 1] - two[..., 0]) / (1 + two[..., 0])
        gaps.append(gap[searched & (yl[:, None] >= 2)])

    if point_reduction == "max":
        if p1 >= 2:
            top = cham.detach().topk(2, dim=1).values
            gaps.append(((top[:, 0] - top[:, 1]) / (1 + top[:, 0]))[top[:, 0] > 0])
        cham = cham.max(dim=1).values                                            # [N]
    elif point_reduction is not None:
        cham = cham.sum(1)
        if point_reduction == "mean":
            cham = cham / xl.clamp(min=1)
    if batch_reduction is not None:
        cham = cham.sum()
        if batch_reduction == "mean":
            cham = cham / max(n, 1)
    return cham


def reference(x, y, x_lengths=None, y_lengths=None, *, batch_reduction="mean", point_reduction="mean",
              norm=2, single_directional=False, gaps=None):
    """The loss of pytorch3d.loss.chamfer_distance, in float64. ``gaps`` collects
    the relative margins of every selection (nearest neighbour, max over points,
    maximum of the two directions) so that tests can avoid near-ties."""
    gaps = [] if gaps is None else gaps
    x, y = x.double(), y.double()
    n = x.shape[0]
    xl, yl = _full(x_lengths, n, x.shape[1]), _full(y_lengths, n, y.shape[1])
    cham_x = _one_direction(x, y, xl, yl, norm, point_reduction, batch_reduction, gaps)
    if single_directional:
        return cham_x
    cham_y = _one_direction(y, x, yl, xl, norm, point_reduction, batch_reduction, gaps)
    if point_reduction == "max":
        a, b = cham_x.detach().reshape(-1), cham_y.detach().reshape(-1)
        gaps.append(((a - b).abs() / (1 + torch.maximum(a, b)))[torch.maximum(a, b) > 0])
        return torch.maximum(cham_x, cham_y)
    if point_reduction is not None:
        return cham_x + cham_y
    return cham_x, cham_y


def min_gap(gaps):
    flat = torch.cat([g.reshape(-1) for g in gaps]) if gaps else torch.empty(0)
    return flat.min().item() if flat.numel() else float("inf")


def test_reference_on_a_hand_computed_case():
    x = torch.tensor([[[0.0, 0.0], [2.0, 0.0], [9.0, 9.0]]])
    y = torch.tensor([[[0.0, 1.0], [3.0, 0.0]]])
    xl, yl = torch.tensor([2]), torch.tensor([2])
    # x -> y: 1 (to (0,1)), 1 (to (3,0)); y -> x: 1, 1
    assert reference(x, y, xl, yl).item() == pytest.approx(1.0 + 1.0)
    assert reference(x, y, xl, yl, norm=1, point_reduction="sum", batch_reduction=None).tolist() == [4.0]
    cx, cy = reference(x, y, xl, yl, point_reduction=None, batch_reduction=None)
    assert cx.tolist() == [[1.0, 1.0, 0.0]] and cy.tolist() == [[1.0, 1.0]]
    assert reference(x, y, point_reduction="max", single_directional=True).item() == pytest.approx(81 + 36)


# -- helpers -------------------------------------------------------------------------------

def _outputs(out):
    return list(out) if isinstance(out, tuple) else [out]


def _lengths(kind, n, p, gen, allow_empty=True):
    if kind is None:
        return None
    return torch.randint(0 if allow_empty else 1, p + 1, (n,), generator=gen, dtype=torch.int64)


def _to(t, device):
    return None if t is None else t.to(device)


def _weights(ref, seed=1234):
    """A random linear functional of the outputs, shaped like the reference's."""
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(r.shape, generator=gen, dtype=torch.float64) for r in _outputs(ref)]


def _run(x, y, xl, yl, device, weights, **kw):
    """Outputs of the op and the gradient of sum(weights * outputs)."""
    xk = x.clone().to(device).requires_grad_()
    yk = y.clone().to(device).requires_grad_()
    out = chamfer_distance(xk, yk, _to(xl, device), _to(yl, device), **kw)
    outs = _outputs(out)
    assert isinstance(out, tuple) == (len(weights) == 2), f"tuple output: {isinstance(out, tuple)} ({kw})"
    assert [tuple(o.shape) for o in outs] == [tuple(w.shape) for w in weights], \
        f"output shapes {[tuple(o.shape) for o in outs]}, expected {[tuple(w.shape) for w in weights]} ({kw})"
    assert all(o.requires_grad for o in outs), "the loss must stay in the autograd graph"
    functional = sum((o.double() * w.to(device)).sum() for o, w in zip(outs, weights))
    gx, gy = torch.autograd.grad(functional, (xk, yk), allow_unused=True)
    gx = torch.zeros_like(xk) if gx is None else gx
    gy = torch.zeros_like(yk) if gy is None else gy
    return out, gx, gy


def _reference_grads(x, y, xl, yl, weights, **kw):
    xr, yr = x.double().requires_grad_(), y.double().requires_grad_()
    gaps = []
    ref = reference(xr, yr, xl, yl, gaps=gaps, **kw)
    refs = _outputs(ref)
    functional = sum((r * w).sum() for r, w in zip(refs, weights))
    if functional.requires_grad:
        gx, gy = torch.autograd.grad(functional, (xr, yr), allow_unused=True)
    else:
        gx = gy = None
    gx = torch.zeros_like(xr) if gx is None else gx
    gy = torch.zeros_like(yr) if gy is None else gy
    return ref, gx, gy, gaps


def _close(mine, ref, tol, what):
    mine = mine.detach().cpu().double()
    assert mine.shape == ref.shape, f"{what}: shape {tuple(mine.shape)}, expected {tuple(ref.shape)}"
    bound = tol * max(ref.abs().max().item() if ref.numel() else 0.0, 1.0)
    err = (mine - ref.detach()).abs().max().item() if ref.numel() else 0.0
    assert err <= bound, f"{what}: max abs error {err:.3g} > {bound:.3g}\n got {mine}\n expected {ref.detach()}"


def _check(x, y, xl, yl, device, tol, gap=None, **kw):
    """Values and gradients (of a random linear functional of the outputs)
    against the reference."""
    gaps = []
    plain = reference(x, y, xl, yl, gaps=gaps, **kw)
    if gap is not None:
        assume(min_gap(gaps) > gap)
    weights = _weights(plain)
    out, gx, gy = _run(x, y, xl, yl, device, weights, **kw)
    ref, rgx, rgy, _ = _reference_grads(x, y, xl, yl, weights, **kw)
    for m, r in zip(_outputs(out), _outputs(ref)):
        assert m.is_floating_point()
        _close(m, r, tol, f"value ({kw})")
    assert gx.dtype == x.dtype and gy.dtype == y.dtype
    _close(gx, rgx, tol * 4, f"grad x ({kw})")
    _close(gy, rgy, tol * 4, f"grad y ({kw})")
    return out, gx, gy


def _reductions(draw):
    point = draw(st.sampled_from(POINT_REDUCTIONS))
    batch = None if point is None else draw(st.sampled_from(BATCH_REDUCTIONS))
    return point, batch


# -- values and gradients -------------------------------------------------------------------

cases = st.fixed_dictionaries({
    "n": st.integers(1, 3), "p1": st.integers(1, 9), "p2": st.integers(1, 9), "d": st.integers(1, 5),
    "norm": st.sampled_from([1, 2]), "single": st.booleans(),
    "lengths": st.sampled_from([None, "x", "y", "both"]), "seed": st.integers(0, 2**31 - 1),
})


@settings(max_examples=examples(25), deadline=None)
@given(cases, st.data())
def test_fp32_values_and_gradients_match_pytorch3d_semantics(device, case, data):
    point, batch = _reductions(data.draw)
    gen = torch.Generator().manual_seed(case["seed"])
    n, p1, p2, d = case["n"], case["p1"], case["p2"], case["d"]
    x = torch.rand(n, p1, d, generator=gen) * 4 - 2     # random floats: no exact ties
    y = torch.rand(n, p2, d, generator=gen) * 4 - 2
    xl = _lengths(case["lengths"] in ("x", "both") or None, n, p1, gen)
    yl = _lengths(case["lengths"] in ("y", "both") or None, n, p2, gen)
    _check(x, y, xl, yl, device, 1e-4, gap=1e-4, norm=case["norm"], point_reduction=point,
           batch_reduction=batch, single_directional=case["single"])


@settings(max_examples=examples(12), deadline=None)
@given(st.integers(1, 2), st.integers(1, 5), st.integers(1, 5), st.integers(1, 4),
       st.sampled_from([torch.float16, torch.bfloat16]), st.sampled_from([1, 2]), st.booleans(),
       st.integers(0, 2**31 - 1), st.data())
def test_half_precision_inputs(device, n, p1, p2, d, dtype, norm, single, seed, data):
    point, batch = _reductions(data.draw)
    gen = torch.Generator().manual_seed(seed)
    x = (torch.rand(n, p1, d, generator=gen) * 4 - 2).to(dtype)   # the reference sees the same rounded values
    y = (torch.rand(n, p2, d, generator=gen) * 4 - 2).to(dtype)
    xl = _lengths(True, n, p1, gen) if data.draw(st.booleans()) else None
    tol = {torch.float16: 1e-2, torch.bfloat16: 2e-2}[dtype]
    _check(x, y, xl, None, device, tol, gap=1e-3, norm=norm, point_reduction=point, batch_reduction=batch,
           single_directional=single)


@settings(max_examples=examples(15), deadline=None)
@given(st.integers(1, 3), st.integers(1, 7), st.integers(1, 7), st.integers(1, 3), st.sampled_from([1, 2]),
       st.booleans(), st.integers(0, 2**31 - 1), st.data())
def test_ties_go_to_the_lowest_index(device, n, p1, p2, d, norm, single, seed, data):
    """Small integer points: many exact ties among nearest neighbours (and among
    the per-point distances under "max"); the lowest index must win, in the
    value and in the gradient. Integer data make every value exact."""
    point, batch = _reductions(data.draw)
    gen = torch.Generator().manual_seed(seed)
    x = torch.randint(-2, 3, (n, p1, d), generator=gen).float()
    y = torch.randint(-2, 3, (n, p2, d), generator=gen).float()
    xl = _lengths(True, n, p1, gen) if data.draw(st.booleans()) else None
    yl = _lengths(True, n, p2, gen) if data.draw(st.booleans()) else None
    _check(x, y, xl, yl, device, 1e-5, norm=norm, point_reduction=point, batch_reduction=batch,
           single_directional=single)


@pytest.mark.parametrize("norm", [1, 2])
def test_a_tie_sends_the_gradient_to_the_first_nearest_neighbour(device, norm):
    # x at 0; y at -1 and +1 (and +1 again): all equally near; y[0] must be chosen
    x = torch.tensor([[[0.0]]], device=device, requires_grad=True)
    y = torch.tensor([[[-1.0], [1.0], [1.0]]], device=device, requires_grad=True)
    loss = chamfer_distance(x, y, single_directional=True, point_reduction="sum", norm=norm)
    assert loss.item() == 1.0
    loss.backward()
    step = 2.0 if norm == 2 else 1.0            # d/dx (x - y)^2 = 2(x - y), d/dx |x - y| = sign(x - y)
    assert x.grad.cpu().tolist() == [[[step]]]
    assert y.grad.cpu().tolist() == [[[-step], [0.0], [0.0]]]


def test_a_tie_between_neighbours_of_different_norms(device, backward):
    """x = (1, 0) is at squared distance 1 from both (0, 0) and (1, 1). The
    row norms |y|^2 must be exact (0 and 2) for the tie to stay a tie, so that
    the lowest index, y[0], wins and the distance is exactly 1."""
    x = torch.tensor([[[1.0, 0.0]]], device=device, requires_grad=True)
    y = torch.tensor([[[0.0, 0.0], [1.0, 1.0]]], device=device, requires_grad=True)
    loss = chamfer_distance(x, y, single_directional=True, point_reduction="sum", backward=backward)
    assert loss.item() == 1.0
    loss.backward()
    assert x.grad.cpu().tolist() == [[[2.0, 0.0]]]
    assert y.grad.cpu().tolist() == [[[-2.0, 0.0], [0.0, 0.0]]]


def test_max_over_points_tie_goes_to_the_first_point(device):
    # both x points are at distance 1 from y; the max's gradient goes to x[0] only
    x = torch.tensor([[[0.0], [4.0]]], device=device, requires_grad=True)
    y = torch.tensor([[[1.0], [3.0]]], device=device, requires_grad=True)
    loss = chamfer_distance(x, y, single_directional=True, point_reduction="max", batch_reduction="sum")
    assert loss.item() == 1.0
    loss.backward()
    assert x.grad.cpu().tolist() == [[[-2.0], [0.0]]]
    assert y.grad.cpu().tolist() == [[[2.0], [0.0]]]


# -- ragged batches and empty clouds ----------------------------------------------------------

@pytest.mark.parametrize("point", POINT_REDUCTIONS)
@pytest.mark.parametrize("norm", [1, 2])
def test_empty_clouds_give_zero_and_no_gradient(device, point, norm):
    gen = torch.Generator().manual_seed(5)
    x = torch.rand(3, 4, 3, generator=gen) * 4 - 2
    y = torch.rand(3, 5, 3, generator=gen) * 4 - 2
    xl = torch.tensor([0, 3, 2])     # cloud 0: x is empty
    yl = torch.tensor([2, 0, 5])     # cloud 1: y is empty
    batch = None
    out, gx, gy = _check(x, y, xl, yl, device, 1e-4, norm=norm, point_reduction=point,
                         batch_reduction=batch)
    if point is None:
        cx, cy = out
        assert (cx[0] == 0).all() and (cx[1] == 0).all() and (cy[1] == 0).all()
    else:
        assert out.shape == (3,)
        assert out[1].item() == 0.0     # x's points search an empty cloud, y has none
    # a cloud with one side empty passes no gradient at all; padding never does
    assert (gx[1] == 0).all() and (gy[1] == 0).all() and (gx[0] == 0).all() and (gy[0] == 0).all()
    for b in range(3):
        assert (gx[b, xl[b]:] == 0).all() and (gy[b, yl[b]:] == 0).all()


@pytest.mark.parametrize("single", [False, True])
def test_all_clouds_empty(device, single):
    x = torch.randn(2, 3, 2, device=device, requires_grad=True)
    y = torch.randn(2, 4, 2, device=device, requires_grad=True)
    zero = torch.zeros(2, dtype=torch.int64, device=device)
    loss = chamfer_distance(x, y, zero, zero, single_directional=single)
    assert loss.shape == () and loss.item() == 0.0
    assert loss.requires_grad
    loss.backward()
    assert (x.grad == 0).all() and (y.grad == 0).all()


def test_lengths_equal_to_the_padded_size_match_no_lengths(device):
    gen = torch.Generator().manual_seed(6)
    x, y = torch.rand(2, 5, 3, generator=gen), torch.rand(2, 7, 3, generator=gen)
    a = chamfer_distance(x.to(device), y.to(device))
    b = chamfer_distance(x.to(device), y.to(device), torch.tensor([5, 5], device=device),
                         torch.tensor([7, 7], device=device))
    assert torch.allclose(a.cpu(), b.cpu(), rtol=1e-6, atol=1e-7)


def test_padding_values_do_not_matter(device):
    gen = torch.Generator().manual_seed(7)
    x, y = torch.rand(2, 5, 3, generator=gen), torch.rand(2, 6, 3, generator=gen)
    xl, yl = torch.tensor([3, 5]), torch.tensor([6, 2])
    x2, y2 = x.clone(), y.clone()
    x2[0, 3:] = 100.0
    y2[1, 2:] = -0.01   # padding placed nearer than any real point
    for point in POINT_REDUCTIONS:
        a = _outputs(chamfer_distance(x.to(device), y.to(device), xl.to(device), yl.to(device),
                                      point_reduction=point, batch_reduction=None))
        b = _outputs(chamfer_distance(x2.to(device), y2.to(device), xl.to(device), yl.to(device),
                                      point_reduction=point, batch_reduction=None))
        for u, v in zip(a, b):
            assert torch.equal(u.cpu(), v.cpu()), point


# -- backward strategies, layouts, errors -------------------------------------------------------

@settings(max_examples=examples(10), deadline=None)
@given(cases, st.data())
def test_atomic_and_deterministic_backwards_agree(device, scatter, case, data):
    point, batch = _reductions(data.draw)
    gen = torch.Generator().manual_seed(case["seed"])
    n, p1, p2, d = case["n"], case["p1"], case["p2"], case["d"]
    x = torch.rand(n, p1, d, generator=gen) * 4 - 2
    y = torch.rand(n, p2, d, generator=gen) * 4 - 2
    xl = _lengths(case["lengths"] in ("x", "both") or None, n, p1, gen)
    yl = _lengths(case["lengths"] in ("y", "both") or None, n, p2, gen)
    kw = dict(norm=case["norm"], point_reduction=point, batch_reduction=batch, single_directional=case["single"])
    gaps = []
    reference(x, y, xl, yl, gaps=gaps, **kw)
    assume(min_gap(gaps) > 1e-4)
    grads = {}
    weights = _weights(reference(x, y, xl, yl, **kw))
    ref, rgx, rgy, _ = _reference_grads(x, y, xl, yl, weights, **kw)
    for backward in ("atomic", "deterministic"):
        out, gx, gy = _run(x, y, xl, yl, device, weights, backward=backward, **kw)
        _close(gx, rgx, 4e-4, f"grad x, backward={backward}")
        _close(gy, rgy, 4e-4, f"grad y, backward={backward}")
        grads[backward] = (gx.cpu(), gy.cpu())
    for a, b in zip(grads["atomic"], grads["deterministic"]):
        assert torch.allclose(a, b, rtol=1e-5, atol=1e-6)


def test_deterministic_backward_is_bitwise_reproducible(device, scatter):
    gen = torch.Generator().manual_seed(8)
    x, y = torch.rand(3, 9, 3, generator=gen), torch.rand(3, 8, 3, generator=gen)
    grads = []
    for _ in range(2):
        xk, yk = x.clone().to(device).requires_grad_(), y.clone().to(device).requires_grad_()
        chamfer_distance(xk, yk, backward="deterministic").backward()
        grads.append((xk.grad.cpu(), yk.grad.cpu()))
    assert torch.equal(grads[0][0], grads[1][0]) and torch.equal(grads[0][1], grads[1][1])


def test_non_contiguous_inputs(device):
    gen = torch.Generator().manual_seed(9)
    xt = (torch.rand(3, 6, 2, generator=gen) * 4 - 2).to(device)   # [D, P1, N], permuted below
    ybig = (torch.rand(2, 14, 5, generator=gen) * 4 - 2).to(device)
    lengths = torch.tensor([4, 9, 6, 9], device=device)[::2]        # [4, 6], a strided int64 tensor
    for point in POINT_REDUCTIONS:
        batch = None if point is None else "sum"
        x = xt.detach().requires_grad_().permute(2, 1, 0)            # [2, 6, 3], reversed strides
        y = ybig.detach().requires_grad_()[:, ::2, 1:4]              # [2, 7, 3], a strided slice
        assert not x.is_contiguous() and not y.is_contiguous() and not lengths.is_contiguous()
        kw = dict(point_reduction=point, batch_reduction=batch)
        ref = reference(x.detach().cpu(), y.detach().cpu(), lengths.cpu(), None, **kw)
        weights = _weights(ref)
        out = _outputs(chamfer_distance(x, y, lengths, **kw))
        for o, r in zip(out, _outputs(ref)):
            _close(o, r, 1e-4, f"value ({kw})")
        gx, gy = torch.autograd.grad(sum((o.double() * w.to(device)).sum() for o, w in zip(out, weights)), (x, y))
        _, rgx, rgy, _ = _reference_grads(x.detach().cpu(), y.detach().cpu(), lengths.cpu(), None, weights, **kw)
        _close(gx, rgx, 4e-4, f"grad x ({kw})")
        _close(gy, rgy, 4e-4, f"grad y ({kw})")


def test_default_call_is_the_mean_of_both_directions(device):
    gen = torch.Generator().manual_seed(10)
    x, y = torch.rand(2, 5, 3, generator=gen), torch.rand(2, 4, 3, generator=gen)
    out = chamfer_distance(x.to(device), y.to(device))
    assert out.shape == ()
    assert abs(out.item() - reference(x, y).item()) <= 1e-5
    one_way = chamfer_distance(x.to(device), y.to(device), single_directional=True)
    other_way = chamfer_distance(y.to(device), x.to(device), single_directional=True)
    assert abs(out.item() - one_way.item() - other_way.item()) <= 1e-5


@pytest.mark.parametrize("kwargs", [
    {"point_reduction": "median"},
    {"point_reduction": "min"},
    {"batch_reduction": "max"},
    {"batch_reduction": "avg"},
    {"norm": 3},
    {"norm": 0},
    {"point_reduction": None},                                  # batch_reduction defaults to "mean"
    {"point_reduction": None, "batch_reduction": "sum"},
    {"point_reduction": None, "batch_reduction": "mean", "single_directional": True},
], ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_invalid_options_raise_value_error(kwargs):
    x, y = torch.rand(1, 3, 2), torch.rand(1, 4, 2)
    with pytest.raises(ValueError):
        chamfer_distance(x, y, **kwargs)


@pytest.mark.parametrize("point", POINT_REDUCTIONS)
@pytest.mark.parametrize("single", [False, True])
def test_output_shapes(device, point, single):
    x, y = torch.rand(2, 3, 2, device=device), torch.rand(2, 5, 2, device=device)
    batches = [None] if point is None else BATCH_REDUCTIONS
    for batch in batches:
        out = chamfer_distance(x, y, point_reduction=point, batch_reduction=batch, single_directional=single)
        if point is None and not single:
            assert isinstance(out, tuple) and len(out) == 2
            assert out[0].shape == (2, 3) and out[1].shape == (2, 5)
        elif point is None:
            assert isinstance(out, torch.Tensor) and out.shape == (2, 3)
        else:
            assert isinstance(out, torch.Tensor)
            assert out.shape == (() if batch is not None else (2,))


# -- issue 7: tensor errors, lengths, padding and broadcast inputs ------------------------------------

from hsr.errors import TensorError  # noqa: E402


@pytest.mark.parametrize("args, words", [
    ((torch.ones(2, 3, 2, dtype=torch.int32), torch.ones(2, 4, 2, dtype=torch.int32)), ["x", "float tensor", "int32"]),
    ((torch.rand(2, 3, 2).double(), torch.rand(2, 4, 2)), ["x is torch.float64 but y is torch.float32"]),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2).half()), ["x is torch.float32 but y is torch.float16"]),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2, device="meta")), ["x is on cpu but y is on meta"]),
    ((torch.rand(3, 2), torch.rand(2, 4, 2)), ["x must be a [N, P, D] tensor", "(3, 2)"]),
    ((torch.rand(2, 3, 2), [[0.0, 0.0]]), ["y must be a [N, P, D] tensor", "list"]),
    ((torch.rand(2, 3, 2), torch.rand(1, 4, 2)), ["batch size N"]),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 3)), ["dimension D"]),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2), torch.tensor([1, 2, 3])), ["x_lengths must be a [2] tensor", "(3,)"]),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2), None, torch.tensor([[1, 2]])), ["y_lengths must be a [2]", "(1, 2)"]),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2), [1, 2]), ["x_lengths must be a [2] tensor", "list"]),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2), torch.tensor([1.0, 2.0])), ["x_lengths", "integer", "float32"]),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2), None, torch.tensor([True, False])), ["y_lengths", "integer", "bool"]),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2), torch.tensor([1, 2], device="meta")),
     ["x_lengths is on meta but x is on cpu"]),
], ids=["int", "float64", "mixed", "meta-y", "rank", "list", "N", "D", "lengths-size", "lengths-rank",
        "lengths-list", "float-lengths", "bool-lengths", "meta-lengths"])
def test_tensor_errors_name_the_argument_before_any_kernel(monkeypatch, args, words):
    from hsr_subjects import forbid_kernels
    forbid_kernels(monkeypatch)
    with pytest.raises(TensorError) as err:
        chamfer_distance(*args)
    assert isinstance(err.value, ValueError)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int16])
def test_lengths_of_any_integer_dtype_clamped_to_the_padded_size(device, dtype):
    """Lengths beyond P count the P points there are; negative lengths count 0."""
    gen = torch.Generator().manual_seed(31)
    x, y = torch.rand(3, 4, 3, generator=gen).to(device), torch.rand(3, 5, 3, generator=gen).to(device)
    for point in [None, "mean"]:
        batch = None
        kw = dict(point_reduction=point, batch_reduction=batch)
        got = chamfer_distance(x, y, torch.tensor([9, 4, -2], dtype=dtype), torch.tensor([5, 70, 0], dtype=dtype),
                               **kw)
        want = chamfer_distance(x, y, torch.tensor([4, 4, 0], device=device), torch.tensor([5, 5, 0], device=device),
                                **kw)
        for g, w in zip(_outputs(got), _outputs(want)):
            assert torch.equal(g, w), point


@pytest.mark.parametrize("norm", [1, 2])
@pytest.mark.parametrize("fill", [float("nan"), -float("inf")])
def test_padding_never_reaches_values_or_gradients(device, norm, fill):
    """Whatever the padding holds (NaN, inf), values and gradients are those
    of zero padding, and the padding's gradient is 0 (per-point values: every
    reduction is a torch op on them)."""
    gen = torch.Generator().manual_seed(32)
    x, y = torch.rand(2, 5, 3, generator=gen) * 4 - 2, torch.rand(2, 6, 3, generator=gen) * 4 - 2
    xl, yl = torch.tensor([3, 5]), torch.tensor([6, 2])
    x[0, 3:] = 0.0
    y[1, 2:] = 0.0
    x_bad, y_bad = x.clone(), y.clone()
    x_bad[0, 3:] = fill
    y_bad[1, 2:] = fill
    for point in [None, "max"]:
        kw = dict(norm=norm, point_reduction=point, batch_reduction=None)
        weights = _weights(reference(x, y, xl, yl, **kw))
        clean = _run(x, y, xl, yl, device, weights, **kw)
        dirty = _run(x_bad, y_bad, xl, yl, device, weights, **kw)
        for a, b in zip(_outputs(clean[0]) + list(clean[1:]), _outputs(dirty[0]) + list(dirty[1:])):
            assert torch.equal(a, b), (point, a, b)
        assert (dirty[1][0, 3:] == 0).all() and (dirty[2][1, 2:] == 0).all()


@pytest.mark.parametrize("single", [False, True])
def test_no_points_at_all_under_max_keeps_the_graph(device, single):
    x = torch.rand(2, 0, 3, device=device, requires_grad=True)
    y = torch.rand(2, 0 if not single else 4, 3, device=device, requires_grad=True)
    loss = chamfer_distance(x, y, point_reduction="max", single_directional=single)
    assert loss.item() == 0.0 and loss.requires_grad
    loss.backward()
    assert x.grad is not None and x.grad.shape == x.shape
    assert y.grad is None or (y.grad == 0).all()


def test_broadcast_inputs_gradient_sums_over_the_copies(device, backward):
    """y expanded with stride 0 from one cloud over the batch, x a transposed
    view: values as the reference; the base cloud's gradient is the sum over
    the batch (as autograd gives for expand)."""
    gen = torch.Generator().manual_seed(33)
    x_t = torch.rand(3, 6, 3, generator=gen) * 4 - 2        # [D, P1, N]
    y1 = torch.rand(1, 5, 3, generator=gen) * 4 - 2
    xl = torch.tensor([6, 2, 4])
    for point in POINT_REDUCTIONS:
        kw = dict(point_reduction=point, batch_reduction=None if point is None else "sum")
        xk, yk = x_t.clone().to(device).requires_grad_(), y1.clone().to(device).requires_grad_()
        out = chamfer_distance(xk.permute(2, 1, 0), yk.expand(3, 5, 3), xl.to(device), backward=backward, **kw)
        xr, yr = x_t.double().requires_grad_(), y1.double().requires_grad_()
        ref = reference(xr.permute(2, 1, 0), yr.expand(3, 5, 3), xl, None, **kw)
        weights = _weights(ref)
        for o, r in zip(_outputs(out), _outputs(ref)):
            _close(o, r, 1e-4, f"value ({kw})")
        sum((o.double() * w.to(device)).sum() for o, w in zip(_outputs(out), weights)).backward()
        sum((r * w).sum() for r, w in zip(_outputs(ref), weights)).backward()
        assert yk.grad.shape == (1, 5, 3)
        _close(xk.grad, xr.grad, 4e-4, f"grad x ({kw})")
        _close(yk.grad, yr.grad, 4e-4, f"grad y ({kw})")


def test_a_point_at_infinity_is_never_the_nearest(device):
    gen = torch.Generator().manual_seed(34)
    x, y = torch.rand(1, 4, 3, generator=gen) + 0.1, torch.rand(1, 5, 3, generator=gen) + 0.1
    y[0, 2, 1] = float("inf")
    out = chamfer_distance(x.to(device), y.to(device), single_directional=True, point_reduction=None,
                           batch_reduction=None)
    _close(out, reference(x, y, single_directional=True, point_reduction=None, batch_reduction=None), 1e-5,
           "distance to the nearest finite point")


@settings(max_examples=examples(10), deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=3), st.data(), st.sampled_from(POINT_REDUCTIONS),
       st.sampled_from([1, 2]), st.booleans(), st.integers(0, 2**31 - 1))
def test_packed_clouds_run_unpadded_and_match_lists(device, sx, data, point_reduction, norm, single, seed):
    """Both sides packed: the ragged kernels (chamfer_packed.hsr) and segment
    reductions give what the padded path gives on the same clouds as lists,
    values and gradients, far from the origin too."""
    sy = data.draw(st.lists(st.integers(0, 9), min_size=len(sx), max_size=len(sx)))
    batch = None if point_reduction is None else data.draw(st.sampled_from(BATCH_REDUCTIONS))
    gen = torch.Generator().manual_seed(seed)
    far = data.draw(st.sampled_from([0.0, 1000.0]))
    x = (torch.randn(sum(sx), 3, generator=gen) + far).to(device)
    y = (torch.randn(sum(sy), 3, generator=gen) + far).to(device)
    weights = torch.rand(len(sx), generator=gen).to(device)
    sizes = data.draw(st.sampled_from(["list", "tensor"]))
    xs, ys = (sx, sy) if sizes == "list" else (torch.tensor(sx), torch.tensor(sy))
    options = dict(point_reduction=point_reduction, batch_reduction=batch, norm=norm,
                   single_directional=single, weights=weights)
    xa, ya = x.clone().requires_grad_(), y.clone().requires_grad_()
    xb, yb = x.clone().requires_grad_(), y.clone().requires_grad_()
    mine = chamfer_distance(xa, ya, x_sizes=xs, y_sizes=ys, **options)
    want = chamfer_distance(list(torch.split(xb, sx)), list(torch.split(yb, sy)), **options)
    if isinstance(mine, tuple):
        mine, want = torch.cat([m.flatten() for m in mine]), torch.cat([w.flatten() for w in want])
    assert mine.shape == want.shape
    assert torch.allclose(mine, want, atol=1e-4, rtol=1e-5)
    mine.sum().backward()
    want.sum().backward()
    assert torch.allclose(xa.grad, xb.grad, atol=1e-4) and torch.allclose(ya.grad, yb.grad, atol=1e-4)


@pytest.mark.parametrize("args, kwargs, pytorch3d_says, hsr_says", [
    ((torch.rand(3, 2), torch.rand(2, 4, 2)), {}, "Expected points to be of shape (N, P, D)", "x must be a [N, P, D]"),
    ((torch.rand(2, 3, 2), torch.rand(2, 2, 4, 2)), {}, "Expected points to be of shape (N, P, D)", "y must be"),
    ((torch.rand(2, 3, 2), {"points": 1}), {},
     "The input pointclouds should be either Pointclouds objects or torch.Tensor of shape", "got dict"),
    ((torch.rand(2, 3, 2), torch.rand(1, 4, 2)), {}, "y does not have the correct shape.", "batch size N"),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 3)), {}, "y does not have the correct shape.", "dimension D"),
    ((torch.rand(5, 2), torch.rand(6, 3)), {"x_sizes": [2, 3], "y_sizes": [4, 2]},
     "y does not have the correct shape.", "dimension"),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2), torch.tensor([1, 2, 3])), {},
     "Expected lengths to be of shape (N,)", "x_lengths must be a [2] tensor"),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2)), {"weights": torch.ones(3)}, "weights must be of shape (N,).",
     "one weight per cloud"),
    ((torch.rand(2, 3, 2), torch.rand(2, 4, 2)), {"weights": torch.tensor([1.0, -1.0])},
     "weights cannot be negative.", "chamfer_distance"),
], ids=["x-rank", "y-rank", "not-a-cloud", "N", "D", "packed-D", "lengths", "weights", "negative-weights"])
def test_shape_errors_carry_pytorch3d_wording(monkeypatch, args, kwargs, pytorch3d_says, hsr_says):
    """Code written against pytorch3d matches its messages; hsr's own account follows
    in the same message. A TensorError, which is a ValueError as pytorch3d raises."""
    from hsr_subjects import forbid_kernels
    forbid_kernels(monkeypatch)
    with pytest.raises(ValueError) as err:
        chamfer_distance(*args, **kwargs)
    assert isinstance(err.value, TensorError)
    assert pytorch3d_says in str(err.value) and hsr_says.lower() in str(err.value).lower(), str(err.value)
