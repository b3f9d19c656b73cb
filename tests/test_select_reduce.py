"""The select_reduce kernel family on specs beyond the bundled ones: mean
outers, min selections, length bounds, required masks, swapped operands and
more grid axes, each against the float64 reference through the interpreter."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings, strategies as st
from profiles import examples

import hsr
from hsr import dispatch, kept, launcher
from test_dispatch import _general_launches

OPS = Path(__file__).resolve().parent.parent / "ops"
EXAMPLES = OPS.parent / "examples"

SPECS = {
    "mean_min_bound": """
        A[b, n, c]: float
        B[b, m, c]: float
        alen[b]: int = full
        blen[b]: int = full
        out[b] = mean_n min_m <A_n, B_m>  where n < alen[b], m < blen[b]
    """,
    "swapped_required_mask": """
        Q[i, s, d]: float
        D[j, t, d]: float
        keep[j, t]: bool
        out[i, j] = sum_s max_t <D_t, Q_s>  where keep
    """,
    "literal_bound_three_grid_axes": """
        X[g, h, r, e]: float
        Y[h, c, e]: float
        out[g, h] = sum_r max_c <X_r, Y_c>  where c < 5
    """,
    "cos_min_mean": """
        A[i, s, d]: float
        B[j, t, d]: float
        out[i, j] = mean_s min_t cos(A_s, B_t)
    """,
    # an outer max or min with the query axis stacked (several i in one A tile)
    "stacked_outer_max": """
        Q[i, s, d]: float
        D[j, t, d]: float
        qmask[i, s]: bool = all
        dmask[j, t]: bool = all
        out[i, j] = max_s max_t <Q_s, D_t>  where qmask, dmask
    """,
    "stacked_outer_min": """
        Q[i, s, d]: float
        D[j, t, d]: float
        w[i, s]: float
        out[i, j] = min_s w_s * max_t <Q_s, D_t>
    """,
}


@pytest.fixture(scope="module")
def ops():
    return {name: hsr.compile(text) for name, text in SPECS.items()}


def _ints(shape, gen):
    return torch.randint(-3, 4, shape, generator=gen).float()


def _check(op, args, kwargs, grads_of, device, exact=True):
    moved = [a.to(device) for a in args]
    moved_kw = {k: v.to(device) for k, v in kwargs.items()}
    with torch.no_grad():  # the forward that saves no index
        plain = op(*moved, **moved_kw)
    leaves = [m.clone().requires_grad_() if i in grads_of else m for i, m in enumerate(moved)]
    out = op(*leaves, **moved_kw)
    ref_leaves = [a.double().requires_grad_() if i in grads_of else a for i, a in enumerate(args)]
    ref = op.reference(*ref_leaves, **kwargs)
    if exact:
        assert torch.allclose(out.cpu().double(), ref, rtol=1e-6, atol=1e-6)
    else:
        assert torch.allclose(out.cpu().double(), ref, rtol=1e-4, atol=1e-4)
    if exact:  # integer data: both forwards are exact
        assert torch.equal(plain, out.detach())
    else:  # two differently compiled kernels may round the last bit apart
        assert torch.allclose(plain, out.detach(), rtol=1e-6, atol=1e-7)
    grad = torch.randn(out.shape, generator=torch.Generator().manual_seed(0))
    out.backward(grad.to(device))
    ref.backward(grad.double())
    for i in grads_of:
        mine, want = leaves[i].grad.cpu().double(), ref_leaves[i].grad
        # a zero row's cosine gradient is scaled by 1 / eps (1e12): weighted sums of
        # such terms cancel in fp32, so rows are compared relative to their own size
        scale = want.abs().amax(dim=-1, keepdim=True).clamp_min(1.0)
        assert ((mine - want).abs() <= 1e-4 * scale + 1e-4 * want.abs()).all(), i


@given(st.integers(1, 3), st.integers(1, 30), st.integers(1, 40), st.integers(2, 40), st.integers(0, 10**6))
def test_mean_of_min_with_length_bounds(ops, device, nb, n, m, c, seed):
    gen = torch.Generator().manual_seed(seed)
    A, B = _ints((nb, n, c), gen), _ints((nb, m, c), gen)
    alen = torch.randint(0, n + 1, (nb,), generator=gen)
    blen = torch.randint(0, m + 1, (nb,), generator=gen).to(torch.int32)
    _check(ops["mean_min_bound"], (A, B), {"alen": alen, "blen": blen}, (0, 1), device)


@pytest.mark.parametrize("bound", [-3, 0, 17, 64, 65, 1000, 2**40])
def test_a_length_bound_outside_the_axis_is_clamped(ops, device, bound):
    """The tile loop stops at a length bound: one below 0 leaves nothing, one
    past the axis (or past int32, in an int64 length) leaves the whole axis,
    as the reference reads them; 17, 64 and 65 end mid-tile, on a tile edge
    and just past it."""
    gen = torch.Generator().manual_seed(bound % 1000)
    A, B = _ints((2, 9, 16), gen), _ints((2, 70, 16), gen)
    blen = torch.tensor([bound, 5], dtype=torch.int64)
    _check(ops["mean_min_bound"], (A, B), {"alen": torch.tensor([9, 4]), "blen": blen}, (0, 1), device)


@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 20), st.integers(1, 50), st.integers(0, 10**6))
def test_swapped_operands_and_a_required_mask(ops, device, ni, nj, s, t, seed):
    gen = torch.Generator().manual_seed(seed)
    Q, D = _ints((ni, s, 16), gen), _ints((nj, t, 16), gen)
    keep = torch.rand(nj, t, generator=gen) < 0.5
    _check(ops["swapped_required_mask"], (Q, D, keep), {}, (0, 1), device)


@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 20), st.integers(1, 12), st.integers(0, 10**6))
def test_three_grid_axes_and_a_literal_bound(ops, device, g, h, r, c, seed):
    gen = torch.Generator().manual_seed(seed)
    X, Y = _ints((g, h, r, 20), gen), _ints((h, c, 20), gen)
    _check(ops["literal_bound_three_grid_axes"], (X, Y), {}, (0, 1), device)


@given(st.integers(1, 2), st.integers(1, 2), st.integers(1, 20), st.integers(1, 40), st.integers(0, 10**6))
def test_cosine_min_mean(ops, device, ni, nj, s, t, seed):
    gen = torch.Generator().manual_seed(seed)
    A, B = torch.randn(ni, s, 24, generator=gen), torch.randn(nj, t, 24, generator=gen)
    A[0, 0] = 0.0  # a zero row: normalised as x / max(|x|, eps)
    _check(ops["cos_min_mean"], (A, B), {}, (0, 1), device, exact=False)


@settings(max_examples=examples(21))
@given(st.integers(1, 5), st.integers(1, 3), st.integers(1, 40), st.integers(1, 40), st.booleans(),
       st.integers(0, 10**6))
def test_a_stacked_outer_max_or_min(ops, device, ni, nj, s, t, masked, seed):
    """An outer max or min over a stacked axis: each stacked query keeps its own
    best row (the lowest of tied rows, integer data has many), a query with no
    row kept scores 0; values, the backward through the outer row, and NaN."""
    gen = torch.Generator().manual_seed(seed)
    Q, D = _ints((ni, s, 16), gen), _ints((nj, t, 16), gen)
    assert ops["stacked_outer_max"].plan.terms[0].outer == "max"
    from hsr import dispatch
    for name in ("stacked_outer_max", "stacked_outer_min"):
        op = ops[name]
        assert dispatch.stacking_axis(op.plan.terms[0]) == "i"
        kw = {}
        if name == "stacked_outer_min":
            kw["w"] = _ints((ni, s), gen)
        elif masked:
            kw["qmask"] = torch.rand(ni, s, generator=gen) < 0.7
            kw["qmask"][-1] = False  # a query with no row
            kw["dmask"] = torch.rand(nj, t, generator=gen) < 0.7
        grads = (0, 1, 2) if "w" in kw else (0, 1)
        args = (Q, D, kw.pop("w")) if "w" in kw else (Q, D)
        _check(op, args, kw, grads, device)
    Q[-1, 0, 0] = float("nan")
    out = ops["stacked_outer_max"](Q.to(device), D.to(device)).cpu()
    assert out[-1].isnan().all() and not out[:-1].isnan().any()


@given(st.integers(1, 3), st.integers(1, 200), st.integers(1, 30), st.sampled_from([3, 24]), st.booleans(),
       st.integers(0, 10**6))
def test_an_outer_max_over_chunks_of_rows(device, nb, n, m, d, masked, seed):
    """Hausdorff's outer max with its rows split over programs (dispatch.outer_split:
    chunks of 64 under the interpreter), a few coordinates and a tensor-core tile:
    values, gradients (through the one selected row: the lowest of tied rows, as
    the reference picks it) and a cloud with no kept point."""
    op = hsr.compile(EXAMPLES / "hausdorff.hsr")
    gen = torch.Generator().manual_seed(seed)
    P, R = _ints((nb, n, d), gen), _ints((nb, m, d), gen)
    kw = {}
    if masked:
        kw["pmask"] = torch.rand(nb, n, generator=gen) < 0.8
        kw["pmask"][-1] = False  # a cloud with no point measured
        kw["rmask"] = torch.rand(nb, m, generator=gen) < 0.8
    _check(op, (P, R), kw, (0, 1), device, exact=False)


MEAN_OF_NEAREST = """
P[b, n, x]: float
R[b, m, x]: float
pmask[b, n]: bool = all
rmask[b, m]: bool = all
cd[b] = mean_n min_m ||P_n - R_m||^2  where pmask, rmask
"""


@settings(max_examples=examples(25))
@given(st.integers(1, 3), st.integers(1, 200), st.integers(1, 30), st.sampled_from([3, 24]), st.booleans(),
       st.integers(0, 10**6))
def test_an_outer_mean_over_chunks_of_rows(device, nb, n, m, d, masked, seed):
    """Chamfer's one direction written as a spec: an outer mean with its rows split
    over programs (dispatch.outer_split: chunks of 64 under the interpreter), each
    chunk's sum and count of kept rows added on the host: values and gradients, a
    cloud with no kept point (0, no gradient)."""
    op = hsr.compile(MEAN_OF_NEAREST)
    gen = torch.Generator().manual_seed(seed)
    P, R = _ints((nb, n, d), gen), _ints((nb, m, d), gen)
    kw = {}
    if masked:
        kw["pmask"] = torch.rand(nb, n, generator=gen) < 0.8
        kw["pmask"][-1] = False
        kw["rmask"] = torch.rand(nb, m, generator=gen) < 0.8
    _check(op, (P, R), kw, (0, 1), device, exact=False)


def test_an_outer_max_over_chunks_keeps_nan_and_the_first_tied_row(device):
    op = hsr.compile(EXAMPLES / "hausdorff.hsr")
    P, R = torch.zeros(2, 150, 3), torch.zeros(2, 4, 3)
    P[:, :, 0] = 5.0  # every point as far: the first row is the outer max's pick
    P[1, 130, 1] = float("nan")
    Pg = P.to(device).requires_grad_()
    out = op(Pg, R.to(device))
    assert out[0].item() == 5.0 and out[1].isnan()
    out[0].backward()
    grad = Pg.grad.cpu()
    assert grad[0, 0, 0] == 1.0 and grad[0, 1:].abs().sum() == 0


def test_required_mask_is_required(ops):
    with pytest.raises(hsr.errors.TensorError, match="missing input 'keep'"):
        ops["swapped_required_mask"](torch.randn(1, 2, 16), torch.randn(1, 3, 16))


def test_empty_axes(ops, device):
    op = ops["mean_min_bound"]
    out = op(torch.randn(2, 0, 8).to(device), torch.randn(2, 5, 8).to(device))
    assert out.shape == (2,) and (out == 0).all()
    out = op(torch.randn(2, 4, 8).to(device), torch.randn(2, 0, 8).to(device))
    assert (out == 0).all()
    assert op(torch.randn(0, 4, 8).to(device), torch.randn(0, 3, 8).to(device)).shape == (0,)


LONG_SPECS = {  # the long contraction path (DOT_MODE 1), forced at small d below
    "splade_like": """
        H[b, s, h]: float
        W[v, h]: float
        bias[v]: float = 0
        mask[b, s]: bool = all
        rep[b, v] = max_s log1p(relu(<H_s, W_v> + bias_v))  where mask
    """,
    "max_plus_bias": """
        H[b, s, h]: float
        W[v, h]: float
        bias[v]: float = 0
        mask[b, s]: bool = all
        rep[b, v] = max_s (<H_s, W_v> + bias_v)  where mask
    """,
    "distance_min_mean": """
        A[b, n, c]: float
        B[b, m, c]: float
        blen[b]: int = full
        out[b] = mean_n min_m ||A_n - B_m||^2  where m < blen[b]
    """,
    "cos_argmax": """
        X[n, c]: float
        C[k, c]: float
        out[n] = argmax_k cos(X_n, C_k)
    """,
}


@pytest.fixture
def long_path(monkeypatch):
    """Every contraction longer than 8 takes the chunked path (DOT_MODE 1) in chunks of
    16, so that small interpreter shapes run it, a partial chunk included."""
    from hsr import dispatch
    plain = dispatch.contraction

    def forced(d, quantized=False, three_products=False):
        return (1, 16, 0) if d > dispatch.SMALL_D_MAX else plain(d, quantized, three_products)
    monkeypatch.setattr(dispatch, "contraction", forced)
    return {name: hsr.compile(text) for name, text in LONG_SPECS.items()}


def _indices_match(op, args, kwargs, device):
    """forward_with_indices' index against the reference's (lowest tied index)."""
    _, idx = op.forward_with_indices(*[a.to(device) for a in args], **{k: v.to(device) for k, v in kwargs.items()})
    _, ref = op.reference(*args, **kwargs, return_indices=True)
    (want, _), = ref.values()
    got = idx.cpu().long().reshape(want.shape) if idx.numel() == want.numel() else idx.cpu().long()
    assert torch.equal(got.clamp_min(-1), want), (got, want)


@settings(max_examples=examples(36))
@given(st.integers(1, 2), st.integers(1, 150), st.integers(9, 40), st.integers(1, 70), st.integers(0, 10**6))
def test_long_contraction_max_with_mask_ties_and_bias(long_path, device, b, s, h, v, seed):
    """Splade's shape of spec on the chunked path: integer data (many ties across
    and within tiles of 64 tokens), a mask with an all-masked row; values,
    gradients and the index against the reference."""
    gen = torch.Generator().manual_seed(seed)
    H, W, bias = _ints((b, s, h), gen), _ints((v, h), gen), _ints((v,), gen)
    mask = torch.rand(b, s, generator=gen) < 0.6
    mask[-1] = False if b > 1 else mask[-1]
    _check(long_path["splade_like"], (H, W, bias, mask), {}, (0, 1, 2), device)
    _indices_match(long_path["max_plus_bias"], (H, W, bias, mask), {}, device)
    _indices_match(long_path["splade_like"], (H, W, bias, mask), {}, device)  # relu's ties: the lowest


@given(st.integers(1, 2), st.integers(1, 20), st.integers(1, 140), st.integers(9, 40), st.integers(0, 10**6))
def test_long_contraction_min_of_a_distance(long_path, device, nb, n, m, c, seed):
    """A min selection whose key is not the dot itself (|b|^2 - 2<a, b>: the
    backward needs the selected dot, carried per row), with length bounds."""
    gen = torch.Generator().manual_seed(seed)
    A, B = _ints((nb, n, c), gen), _ints((nb, m, c), gen)
    blen = torch.randint(0, m + 1, (nb,), generator=gen)
    _check(long_path["distance_min_mean"], (A, B), {"blen": blen}, (0, 1), device)


def test_long_contraction_nan_and_argmax(long_path, device):
    """A NaN in a later tile is selected at its first position (as torch.max); an
    argmax output on the chunked path picks the lowest tied index."""
    gen = torch.Generator().manual_seed(3)
    H, W = _ints((2, 130, 20), gen), _ints((5, 20), gen)
    H[1, 100, 3] = float("nan")
    H[1, 120, 3] = float("nan")
    mask = torch.ones(2, 130, dtype=torch.bool)
    out, idx = long_path["splade_like"].forward_with_indices(H.to(device), W.to(device), mask=mask.to(device))
    assert torch.isnan(out[1]).all() and (idx[1].cpu() == 100).all()
    assert not torch.isnan(out[0]).any()
    X, C = _ints((9, 24), gen), _ints((70, 24), gen)
    C[40] = C[3]  # a tie across tiles: the lower index wins
    X[0] = C[3]
    got = long_path["cos_argmax"](X.to(device), C.to(device)).cpu()
    assert torch.equal(got, long_path["cos_argmax"].reference(X, C).long())


SPLIT_SPECS = {
    "weighted_sum_of_max": """
        Q[i, s, d]: float
        D[j, t, d]: float
        w[i, s]: float
        qmask[i, s]: bool = all
        dmask[j, t]: bool = all
        out[i, j] = sum_s w_s * max_t <Q_s, D_t>  where qmask, dmask
    """,
    "sum_of_min_distance": """
        A[b, n, c]: float
        B[b, m, c]: float
        out[b] = sum_n min_m ||A_n - B_m||^2
    """,
}


@pytest.fixture(scope="module")
def split_ops():
    return {name: hsr.compile(text) for name, text in SPLIT_SPECS.items()}


@settings(max_examples=examples(15))
@given(st.integers(1, 3), st.integers(1, 2), st.integers(65, 200), st.integers(1, 70), st.integers(0, 10**6))
def test_an_outer_sum_split_over_programs(split_ops, device, ni, nj, s, t, seed):
    """Past one block of rows (64 with fixed blocks) an outer sum runs one
    program per (cell, chunk of rows) and the host sums each cell's chunks:
    values, indices and gradients as the reference, with stacked queries,
    per-row weights, masks and all-masked rows, the same bits on a second call."""
    gen = torch.Generator().manual_seed(seed)
    Q, D = _ints((ni, s, 16), gen), _ints((nj, t, 16), gen)
    w = _ints((ni, s), gen)
    qmask = torch.rand(ni, s, generator=gen) < 0.8
    qmask[0, 64:] = False  # a whole chunk left out
    dmask = torch.rand(nj, t, generator=gen) < 0.7
    dmask[-1] = False  # a document with no token
    op = split_ops["weighted_sum_of_max"]
    kw = {"qmask": qmask, "dmask": dmask}
    _check(op, (Q, D, w), kw, (0, 1, 2), device)
    first = op(*(x.to(device) for x in (Q, D, w)), **{k: v.to(device) for k, v in kw.items()})
    again = op(*(x.to(device) for x in (Q, D, w)), **{k: v.to(device) for k, v in kw.items()})
    assert torch.equal(first, again)


PARTS_SPEC = """
    Q[i, s, d]: float
    D[j, t, d]: float
    dmask[j, t]: bool = all
    out[i, j] = {outer}_s max_t <Q_s, D_t>  where dmask
"""


@pytest.mark.parametrize("outer", ["sum", "max"])
@pytest.mark.parametrize("backward", ["atomic", "deterministic"])
def test_the_gather_backward_walks_the_documents_in_parts(monkeypatch, device, outer, backward):
    """One or two queries against 23 documents: the gather backward's programs (a block of
    query rows each) are fewer than the multiprocessors, so where the pass scatters too
    ("atomic") the documents split across programs (dispatch.gather_parts), each part's
    partial of grad Q added in a fixed order.
    Integer rows (ties within and across documents), two documents with no kept token:
    gradients as the float64 reference, launched in parts, the same bits on a second run."""
    from hsr import launcher
    parts, plain = [], launcher.launch
    monkeypatch.setattr(dispatch, "GATHER_MIN_WALK", 8)  # the rule's walk and part, scaled to 23 documents
    monkeypatch.setattr(dispatch, "GATHER_PART_CELLS", 4)

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__ == "out_bwd":
            parts.append(grid[2])
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    op = hsr.compile(PARTS_SPEC.format(outer=outer))
    gen = torch.Generator().manual_seed(5)
    for ni in (1, 2):
        Q, D = _ints((ni, 6, 8), gen), _ints((23, 5, 8), gen)
        dmask = torch.rand(23, 5, generator=gen) < 0.8
        dmask[[3, 17]] = False
        _check(op, (Q, D), {"dmask": dmask}, (0, 1), device)  # ("auto": atomic at these sizes)
        grads = []
        parts.clear()
        for _ in range(2):
            q = Q.to(device).requires_grad_()
            op(q, D.to(device), dmask=dmask.to(device), backward=backward).sum().backward()
            grads.append(q.grad)
        assert torch.equal(*grads)
        assert parts and (min(parts) > 1 if backward == "atomic" else max(parts) == 1), parts  # the atomic pass


@pytest.mark.parametrize("outer", ["sum", "mean", "max"])
@pytest.mark.parametrize("backward", ["atomic", "deterministic"])
def test_the_outputs_gradient_is_read_through_its_strides(device, outer, backward):
    """The backward reads each cell's gradient at its strided offset: a transposed one and
    a sum's broadcast one (stride 0) give the float64 reference's gradients, uncopied."""
    op = hsr.compile(PARTS_SPEC.format(outer=outer))
    gen = torch.Generator().manual_seed(9)
    Q, D = torch.randn(3, 4, 8, generator=gen), torch.randn(5, 6, 8, generator=gen)
    weights = torch.randn(5, 3, generator=gen)
    for grad in (weights.t(), torch.ones(1, 1).expand(3, 5)):
        q, d = (x.to(device).clone().requires_grad_() for x in (Q, D))
        op(q, d, backward=backward).backward(grad.to(device))
        q64, d64 = Q.double().requires_grad_(), D.double().requires_grad_()
        op.reference(q64, d64).backward(grad.double())
        torch.testing.assert_close(q.grad.cpu().double(), q64.grad, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(d.grad.cpu().double(), d64.grad, rtol=1e-4, atol=1e-5)


def test_the_gather_backward_parts_rule():
    """dispatch.gather_parts: loaded rows split only where the pass scatters ("atomic"), its
    programs do not fill the GPU and walk GATHER_MIN_WALK cells or more, no part shorter than
    GATHER_PART_CELLS cells; formed rows (a projection) fill it always."""
    assert dispatch.gather_parts(4, 256, formed=False, sms=132) == 16
    assert dispatch.gather_parts(4, 3000, formed=False, sms=132) == 187
    assert dispatch.gather_parts(4, 3000, formed=False, sms=132, scatter=False) == 1  # a walk of loads only
    assert dispatch.gather_parts(16, 200, formed=False, sms=132) == 1  # a short walk stays whole
    assert dispatch.gather_parts(132, 10**4, formed=False, sms=132) == 1
    assert dispatch.gather_parts(4, 7, formed=True, sms=132, scatter=False) == 7


def _stacked_inputs(ni, nj, s, t, seed):
    """(Q, D, w, qmask, dmask) of integer rows (ties), query 1 and the last document left out."""
    gen = torch.Generator().manual_seed(seed)
    Q, D = _ints((ni, s, 16), gen), _ints((nj, t, 16), gen)
    w = _ints((ni, s), gen)
    qmask = torch.rand(ni, s, generator=gen) < 0.8
    qmask[1] = False
    dmask = torch.rand(nj, t, generator=gen) < 0.7
    dmask[-1] = False
    return Q, D, w, qmask, dmask


@settings(max_examples=examples(5))
@given(st.integers(3, 5), st.integers(1, 3), st.integers(1, 40), st.integers(1, 150), st.integers(0, 10**6))
def test_the_stacked_loop_in_either_launch_order_and_tile_loop(split_ops, device, ni, nj, s, t, seed):
    """The general loop's stacked queries with their blocks first in launch order or the
    documents first (dispatch.stacked_first), and its last, partial tile in the tile loop
    or after it (dispatch.one_loop): values, indices and gradients as the reference in all
    four, with masks, an empty document and a whole query left out."""
    Q, D, w, qmask, dmask = _stacked_inputs(ni, nj, s, t, seed)
    op = split_ops["weighted_sum_of_max"]
    flags = set()
    for first_bytes in (-1, 1 << 40):
        for one_loop in ("0", "1"):
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(dispatch, "STACKED_FIRST_BYTES", first_bytes)
                mp.setenv("HSR_ONE_LOOP", one_loop)
                launches = _general_launches(mp)
                kept.forget()
                _check(op, (Q, D, w), {"qmask": qmask, "dmask": dmask}, (0, 1, 2), device)
                flags |= {(kw["G_FIRST"], kw["ONE_LOOP"]) for kw, _programs in launches}
    kept.forget()
    assert flags == {(False, False), (False, True), (True, False), (True, True)}


@settings(max_examples=examples(4))
@given(st.integers(3, 5), st.integers(1, 3), st.integers(1, 40), st.integers(1, 150), st.integers(0, 10**6))
def test_the_stacked_loop_keeps_one_slot_a_row_with_an_index(split_ops, device, ni, nj, s, t, seed):
    """dispatch.row_slot: a stacked call that carries an index (a gradient) and stacks
    ROW_SLOT_STACKED_ROWS rows (lowered here to any stacked call) reduces each tile at once to
    one slot a row, the lowest index of its best kept: values and gradients as the reference,
    values and indices as a slot a column's, bit for bit, with ties across tiles (integer rows),
    masks, an empty document and a whole query left out."""
    Q, D, w, qmask, dmask = _stacked_inputs(ni, nj, s, t, seed)
    op, kw = split_ops["weighted_sum_of_max"], {"qmask": qmask.to(device), "dmask": dmask.to(device)}
    picks = []
    for slot in ("", "0"):  # the rule (one slot a row), then a slot a column
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("HSR_ROW_SLOT", slot) if slot else mp.delenv("HSR_ROW_SLOT", raising=False)
            mp.setattr(dispatch, "ROW_SLOT_STACKED_ROWS", 1)
            launches = _general_launches(mp)
            kept.forget()
            if not slot:
                _check(op, (Q, D, w), {"qmask": qmask, "dmask": dmask}, (0, 1, 2), device)
            picks.append(op.forward_with_indices(Q.to(device), D.to(device), w.to(device), **kw))
            assert {(k["NEED_IDX"], k["ROW_SLOT"]) for k, _ in launches if k["DOT_MODE"] == 0} >= {(True, not slot)}
    kept.forget()
    assert torch.equal(picks[0][0], picks[1][0]) and torch.equal(picks[0][1], picks[1][1])  # the same bits, indices


PERSISTENT_SPECS = {
    "max_of_max": """
        Q[i, s, d]: float
        D[j, t, d]: float
        qmask[i, s]: bool = all
        dmask[j, t]: bool = all
        out[i, j] = max_s max_t <Q_s, D_t>  where qmask, dmask
    """,
    "mean_of_min_distance": """
        Q[i, s, d]: float
        D[j, t, d]: float
        qmask[i, s]: bool = all
        dmask[j, t]: bool = all
        out[i, j] = mean_s min_t ||Q_s - D_t||^2  where qmask, dmask
    """,
}


@pytest.fixture(scope="module")
def persistent_ops(split_ops):
    return {"weighted_sum_of_max": split_ops["weighted_sum_of_max"],
            **{name: hsr.compile(text) for name, text in PERSISTENT_SPECS.items()}}


@settings(max_examples=examples(4))
@given(st.sampled_from(["weighted_sum_of_max", *PERSISTENT_SPECS]), st.integers(3, 5), st.integers(1, 7),
       st.integers(1, 40), st.integers(1, 150), st.integers(0, 10**6))
def test_persistent_programs_walk_runs_of_cells(persistent_ops, device, name, ni, nj, s, t, seed):
    """The stacked loop's persistent programs (dispatch.persistent: each keeps a block of
    queries and walks a run of documents; 4 multiprocessors in the interpreter, so runs
    of one to several documents): values, indices and gradients as the reference and as
    a program per cell, for an outer sum, max and mean, a dot and an L2 key, with ties
    (integer rows), masks, an empty document and a whole query left out."""
    gen = torch.Generator().manual_seed(seed)
    Q, D = _ints((ni, s, 16), gen), _ints((nj, t, 16), gen)
    qmask = torch.rand(ni, s, generator=gen) < 0.8
    qmask[1] = False
    dmask = torch.rand(nj, t, generator=gen) < 0.7
    dmask[-1] = False
    args = (Q, D, _ints((ni, s), gen)) if name == "weighted_sum_of_max" else (Q, D)
    op, runs, outs = persistent_ops[name], [], []
    for persist in ("1", "0"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("HSR_PERSIST", persist)
            launches = _general_launches(mp)
            kept.forget()
            _check(op, args, {"qmask": qmask, "dmask": dmask}, (0, 1), device)
            with torch.no_grad():
                outs.append(op(*(x.to(device) for x in args), qmask=qmask.to(device), dmask=dmask.to(device)))
            runs += [(kw["PERSIST"], programs) for kw, programs in launches]
    kept.forget()
    blocks = -(-ni // 2)  # fixed blocks: 2 queries a block
    assert (True, dispatch.persistent_programs(blocks, nj, dispatch.INTERPRET_SMS)) in runs
    assert (False, blocks * nj) in runs
    assert torch.equal(outs[0], outs[1])  # the same bits either way


def test_a_split_sum_of_a_distance_with_a_few_coordinates(split_ops, device):
    """The CUDA-core path (3 coordinates) with an outer sum over 300 points:
    five chunks of 64 rows, the last one partial."""
    gen = torch.Generator().manual_seed(7)
    A, B = _ints((2, 300, 3), gen), _ints((2, 90, 3), gen)
    _check(split_ops["sum_of_min_distance"], (A, B), {}, (0, 1), device)


LEAN_SPECS = {
    "mean_of_min": """
        A[i, s, d]: float
        B[j, t, d]: float
        amask[i, s]: bool = all
        out[i, j] = mean_s min_t <A_s, B_t>  where amask
    """,
}


# Epilogues and per-row terms the lean forward applies once a row, at its selection
LEAN_EPILOGUES = {
    "weighted": """
        A[i, s, d]: float
        B[j, t, d]: float
        w[i, s]: float
        amask[i, s]: bool = all
        bmask[j, t]: bool = all
        out[i, j] = sum_s w_s * max_t <A_s, B_t>  where amask, bmask
    """,
    "scaled_exp": """
        A[i, s, d]: float
        B[j, t, d]: float
        out[i, j] = mean_s exp(max_t 0.05 * <A_s, B_t>)
    """,
    "negated_bias": """
        A[i, s, d]: float
        B[j, t, d]: float
        bias[i, s]: float = 0
        out[i, j] = sum_s min_t (bias_s - <A_s, B_t>)
    """,
    # outer max and min: chunk partials merged in order (the module's *_merge kernel)
    "outer_max": """
        A[i, s, d]: float
        B[j, t, d]: float
        amask[i, s]: bool = all
        bmask[j, t]: bool = all
        out[i, j] = max_s max_t <A_s, B_t>  where amask, bmask
    """,
    "outer_min_weighted": """
        A[i, s, d]: float
        B[j, t, d]: float
        w[i, s]: float
        out[i, j] = min_s w_s * max_t <A_s, B_t>
    """,
}


# L2 keys the lean forward ranks by |a|^2 + |b|^2 - 2<a, b> from its tiles, each
# selected pair's value then from its differences
LEAN_L2 = {
    "gaussian": """
        A[i, s, d]: float
        B[j, t, d]: float
        amask[i, s]: bool = all
        bmask[j, t]: bool = all
        out[i, j] = sum_s max_t exp(-0.05 * ||A_s - B_t||^2)  where amask, bmask
    """,
    "mean_dist": """
        A[i, s, d]: float
        B[j, t, d]: float
        out[i, j] = mean_s min_t ||A_s - B_t||
    """,
    "hausdorff": """
        A[i, s, d]: float
        B[j, t, d]: float
        bmask[j, t]: bool = all
        out[i, j] = max_s min_t ||A_s - B_t||^2  where bmask
    """,
}


class _Watched(list):
    """What the lean path chose; clearing it also forgets kept calls (hsr.kept), so
    that the next call runs the host path that the spy watches, not a replay."""

    def clear(self):
        super().clear()
        kept.forget()


@pytest.fixture(params=[1, 0], ids=["descriptors", "pointers-in-parts"])
def lean(request, monkeypatch):
    """The lean forward at any row count (dispatch.LEAN_MIN_ROWS = 1), its tiles loaded
    through TMA descriptors, or through pointers with the selected axis split in parts
    of 16 columns wherever it has more (dispatch.column_parts, merged in order), a cosine's
    or L2 key's column norms from the pre-pass (dispatch.col_norms; through descriptors,
    from each tile, as the rule takes for small calls); yields the list of block choices it made."""
    from hsr import dispatch
    monkeypatch.setattr(dispatch, "LEAN_MIN_ROWS", 1)
    monkeypatch.setattr(dispatch, "LEAN_INTERPRET_LOAD", request.param)
    if request.param == 0:
        _in_parts(monkeypatch, 16)
        monkeypatch.setenv("HSR_COL_NORMS", "1")
    return _watch_lean_blocks(monkeypatch)


def _in_parts(monkeypatch, cols):
    """Tiles of `cols` columns under the interpreter, and as many parts as they make."""
    from hsr import dispatch
    monkeypatch.setattr(dispatch, "LEAN_INTERPRET_COLS", cols)
    monkeypatch.setattr(dispatch, "PART_MIN_COLS", 1)
    monkeypatch.setattr(dispatch, "INTERPRET_SMS", 10**6)


def _watch_lean_blocks(monkeypatch):
    """The list of dispatch.lean_blocks' choices, appended at each call."""
    from hsr import dispatch
    chosen = _Watched()
    real = dispatch.lean_blocks

    def spy(*args, **kwargs):
        blocks = real(*args, **kwargs)
        chosen.append(blocks)
        return blocks
    monkeypatch.setattr(dispatch, "lean_blocks", spy)
    return chosen


@pytest.fixture(scope="module")
def lean_ops():
    ops = {name: hsr.compile(text) for name, text in LEAN_SPECS.items()}
    ops["maxsim"] = hsr.compile(OPS / "maxsim.hsr")
    ops["maxsim_kd"] = hsr.compile(OPS / "maxsim_kd.hsr")
    ops["maxsim_cos"] = hsr.compile(OPS / "maxsim_cos.hsr")
    ops.update({name: hsr.compile(text) for name, text in LEAN_EPILOGUES.items()})
    ops.update({name: hsr.compile(text) for name, text in LEAN_L2.items()})
    return ops


@settings(max_examples=examples(30))
@given(st.sampled_from(sorted(LEAN_EPILOGUES)), st.integers(1, 2), st.integers(1, 3), st.integers(1, 150),
       st.integers(1, 100), st.booleans(), st.integers(0, 10**6))
def test_the_lean_forward_with_epilogues_and_row_terms(lean, lean_ops, device, name, ni, nj, s, t, masked, seed):
    """A weight, a scale, an exp, a negation and a row bias, applied once a row at
    its selection, and outer max and min over chunks of rows: values, indices
    (ties to the lowest) and gradients of every input as the reference, through
    the lean kernel."""
    gen = torch.Generator().manual_seed(seed)
    op = lean_ops[name]
    Q, D = _ints((ni, s, 16), gen).half(), _ints((nj, t, 16), gen).half()
    kw = {}
    if name in ("weighted", "outer_min_weighted"):
        kw["w"] = torch.rand(ni, s, generator=gen).half()
    if name in ("weighted", "outer_max") and masked:
        kw["amask"] = torch.rand(ni, s, generator=gen) < 0.7
        kw["bmask"] = torch.rand(nj, t, generator=gen) < 0.6
        kw["bmask"][-1] = False  # a document with no token
    if name == "negated_bias" and masked:
        kw["bias"] = torch.randn(ni, s, generator=gen).half()
    dev_kw = {k: v.to(device) for k, v in kw.items()}
    lean.clear()
    out, idx = op.forward_with_indices(Q.to(device), D.to(device), **dev_kw)
    assert lean[-1] is not None
    ref = op.reference(Q.double(), D.double(), **{k: v.double() if v.is_floating_point() else v for k, v in kw.items()})
    assert torch.allclose(out.cpu().double(), ref, rtol=1e-5, atol=1e-5)
    dots = torch.einsum("isd,jtd->ijst", Q.double(), D.double())
    if "bmask" in kw:
        dots = dots.masked_fill(~kw["bmask"][None, :, None, :], float("-inf"))
    first = (dots == dots.amax(-1, keepdim=True)).double().argmax(-1)
    if "bmask" in kw:
        first[:, ~kw["bmask"].any(-1)] = -1
    if "amask" in kw:
        first = first.masked_fill(~kw["amask"][:, None, :], -1)
    assert torch.equal(idx.cpu().long(), first)
    grads = [Q.to(device).clone().requires_grad_(), D.to(device).clone().requires_grad_()]
    floats = {k: v.to(device).clone().requires_grad_() if v.is_floating_point() else v.to(device) for k, v in kw.items()}
    grad = torch.randn(ni, nj, generator=gen)
    op(*grads, **floats).backward(grad.to(device))
    refs = [Q.double().requires_grad_(), D.double().requires_grad_()]
    ref_kw = {k: v.double().requires_grad_() if v.is_floating_point() else v for k, v in kw.items()}
    op.reference(*refs, **ref_kw).backward(grad.double())
    pairs = list(zip(grads, refs)) + [(floats[k], ref_kw[k]) for k in kw if kw[k].is_floating_point()]
    for mine, want in pairs:
        assert torch.allclose(mine.grad.cpu().double(), want.grad, rtol=2e-2, atol=2e-2)  # fp16 gradients


@pytest.mark.parametrize("fmt", ["float16", "int8", "fp8"])
def test_a_short_query_takes_its_product_swapped(monkeypatch, device, fmt):
    """A query of at most 32 rows against column tiles of 64 (dispatch.lean_swap): the lean
    kernel takes b a^T and transposes it back. Integer rows, a tie across two tiles (the lower
    index wins) and a document with no kept token: values and indices as the float64
    reference, in 16-bit, int8 and fp8 rows."""
    if fmt == "fp8" and device == "cuda" and torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("fp8 tensor cores need compute capability 8.9 or more")
    swapped, plain = [], launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__.endswith("_fwd_lean"):
            swapped.append(kwargs["SWAP"])
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    gen = torch.Generator().manual_seed(11)
    Q, D = _ints((1, 20, 32), gen), _ints((2, 150, 32), gen)  # (|values| <= 3: exact in e4m3)
    D[0, 130] = D[0, 70]  # a tie across tiles, both the best for some query token
    Q[0, 0] = D[0, 70]
    dmask = torch.ones(2, 150, dtype=torch.bool)
    dmask[1] = False
    if fmt == "float16":
        op, args = hsr.compile(OPS / "maxsim.hsr"), (Q.half(), D.half())
    else:
        rows = (lambda x: x.to(torch.int8)) if fmt == "int8" else (lambda x: x.to(torch.float8_e4m3fn))
        dscale = torch.rand(2, 150, generator=gen) + 0.5
        dscale[0, 130] = dscale[0, 70]
        op, args = hsr.compile(OPS / f"maxsim_{fmt}.hsr"), (rows(Q), rows(D), torch.rand(1, 20, generator=gen) + 0.5, dscale)
    out, idx = op.forward_with_indices(*[x.to(device) for x in args], dmask=dmask.to(device))
    ref, indices = op.reference(*args, dmask=dmask, return_indices=True)
    assert swapped and all(swapped)
    assert torch.allclose(out.cpu().double(), ref, rtol=1e-5, atol=1e-5)
    (want, axes), = indices.values()
    assert torch.equal(idx.cpu().long(), want.permute(*[axes.index(a) for a in ("i", "j", "s")]))
    assert idx[0, 0, 0] == 70 and (idx[0, 1] == -1).all()


@pytest.fixture
def short_lean(monkeypatch):
    """Every row count counts as short (dispatch.LEAN_MIN_ROWS far above it): the lean
    forward runs for one or two row sets, at any contraction from 16 to 256, through
    pointers; yields the list of block choices it made."""
    from hsr import dispatch
    monkeypatch.setattr(dispatch, "LEAN_MIN_ROWS", 10**6)
    return _watch_lean_blocks(monkeypatch)


@settings(max_examples=examples(25))
@given(st.sampled_from(["maxsim", "maxsim_cos", "gaussian", "hausdorff"]), st.integers(1, 2), st.integers(1, 3),
       st.integers(1, 70), st.integers(1, 100), st.sampled_from([24, 48, 96, 136]),
       st.sampled_from(["float16", "bfloat16"]), st.integers(0, 10**6))
def test_the_lean_forward_of_other_contractions(short_lean, lean_ops, device, name, ni, nj, s, t, d, dtype, seed):
    """A contraction that is not a power of two (d = 96) on the lean forward (one or two
    queries: the short-row rule): its tiles padded with zeros past d, as the
    reference in values and gradients, for a dot, a cosine and L2 keys (whose selected
    value comes from the differences over the d coordinates only)."""
    gen = torch.Generator().manual_seed(seed)
    dt = getattr(torch, dtype)
    op = lean_ops[name]
    Q, D = _ints((ni, s, d), gen).to(dt), _ints((nj, t, d), gen).to(dt)
    short_lean.clear()
    leaves = [Q.to(device).clone().requires_grad_(), D.to(device).clone().requires_grad_()]
    out = op(*leaves)
    assert short_lean and short_lean[-1] is not None and short_lean[-1][4] == 0  # lean, through pointers
    refs = [Q.double().requires_grad_(), D.double().requires_grad_()]
    ref = op.reference(*refs)
    assert torch.allclose(out.detach().cpu().double(), ref, rtol=1e-5, atol=1e-5), name
    grad = torch.randn(out.shape, generator=gen)
    out.backward(grad.to(device))
    ref.backward(grad.double())
    for mine, want in zip(leaves, refs):
        scale = want.grad.abs().amax().clamp_min(1.0)
        assert ((mine.grad.cpu().double() - want.grad).abs() <= 2e-2 * scale).all(), name  # 16-bit gradients


@settings(max_examples=examples(27))
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 150), st.integers(1, 100),
       st.sampled_from([16, 32, 64]), st.sampled_from(["float16", "bfloat16"]), st.integers(0, 10**6))
def test_the_lean_forward(lean, lean_ops, device, ni, nj, s, t, d, dtype, seed):
    """Sum of max (MaxSim) and mean of min through the lean kernel: partial chunks and
    tiles, one row or column, 16-bit inputs, as the reference (exactly for the sum),
    the same bits on a second call; the per-query-candidates layout (KD) too."""
    gen = torch.Generator().manual_seed(seed)
    dt = getattr(torch, dtype)
    Q, D = _ints((ni, s, d), gen).to(dt), _ints((nj, t, d), gen).to(dt)
    for name in ("maxsim", "mean_of_min"):
        op = lean_ops[name]
        out = op(Q.to(device), D.to(device))
        ref = op.reference(Q.double(), D.double())
        if name == "maxsim":  # integer data: exact sums
            assert torch.equal(out.cpu().double(), ref), name
        else:  # the mean: a sum times 1 / count in fp32
            assert torch.allclose(out.cpu().double(), ref, rtol=1e-6, atol=0), name
        assert torch.equal(out, op(Q.to(device), D.to(device)))
    Dk = _ints((ni, nj, t, d), gen).to(dt)
    op = lean_ops["maxsim_kd"]
    assert torch.equal(op(Q.to(device), Dk.to(device)).cpu().double(), op.reference(Q.double(), Dk.double()))
    assert lean and all(b is not None for b in lean)


@settings(max_examples=examples(12))
@given(st.integers(1, 2), st.integers(1, 3), st.integers(1, 150), st.integers(1, 100), st.integers(0, 10**6))
def test_the_lean_forward_with_indices(lean, lean_ops, device, ni, nj, s, t, seed):
    """The training forward through the lean kernel: indices (ties to the lowest, integer
    data has many) as the general kernel's, gradients of both operands as the reference."""
    gen = torch.Generator().manual_seed(seed)
    Q, D = _ints((ni, s, 16), gen).half(), _ints((nj, t, 16), gen).half()
    for name in ("maxsim", "mean_of_min"):
        op = lean_ops[name]
        lean.clear()
        out, idx = op.forward_with_indices(Q.to(device), D.to(device))
        assert lean[-1] is not None
        dots = torch.einsum("isd,jtd->ijst", Q.double(), D.double())
        best = dots.amax(-1) if name == "maxsim" else dots.amin(-1)
        first = (dots == best[..., None]).double().argmax(-1)  # the lowest index holding the best
        assert torch.equal(idx.cpu().long(), first), name
        Qg, Dg = Q.to(device).clone().requires_grad_(), D.to(device).clone().requires_grad_()
        grad = torch.randn(ni, nj, generator=gen)
        op(Qg, Dg).backward(grad.to(device))
        Qr, Dr = Q.double().requires_grad_(), D.double().requires_grad_()
        op.reference(Qr, Dr).backward(grad.double())
        for mine, want in ((Qg.grad, Qr.grad), (Dg.grad, Dr.grad)):
            assert torch.allclose(mine.cpu().double(), want, rtol=1e-2, atol=1e-2), name  # fp16 gradients


LEAN_COLUMNS = {  # a dot's key formed on the tile from per-column terms, and quantized rows (their scales)
    "col_scale": """
        A[i, s, d]: float
        B[j, t, d]: float
        w[j, t]: float
        amask[i, s]: bool = all
        bmask[j, t]: bool = all
        out[i, j] = sum_s max_t w_t * <A_s, B_t>  where amask, bmask
    """,
    "col_bias": """
        A[i, s, d]: float
        B[j, t, d]: float
        b[j, t]: float = 0
        out[i, j] = max_s min_t sigmoid(<A_s, B_t> + b_t)
    """,
    "int8": (OPS / "maxsim_int8.hsr").read_text(),
    "fp8": (OPS / "maxsim_fp8.hsr").read_text(),
}


@pytest.fixture(scope="module")
def column_ops():
    return {name: hsr.compile(text) for name, text in LEAN_COLUMNS.items()}


@settings(max_examples=examples(24))
@given(st.sampled_from(sorted(LEAN_COLUMNS)), st.integers(1, 2), st.integers(1, 3), st.integers(1, 90),
       st.integers(1, 100), st.sampled_from([16, 32, 40]), st.booleans(), st.integers(0, 10**6))
def test_the_lean_forward_of_column_terms_and_quantized_rows(lean, column_ops, device, name, ni, nj, s, t, d,
                                                             masked, seed):
    """A column scale or bias in a dot's key, and int8 and fp8 rows times their scales,
    through the lean kernel (a contraction of 16 or 40 padded to the quantized tile's 32):
    values, indices (ties to the lowest: small integers, scales of quarters, every product
    exact) and the float inputs' gradients as the reference."""
    if name == "fp8" and device == "cuda" and torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("fp8 tensor cores")
    gen = torch.Generator().manual_seed(seed)
    op = column_ops[name]
    quarters = lambda *shape: torch.randint(-8, 9, shape, generator=gen).float() / 4  # noqa: E731
    A, B = _ints((ni, s, d), gen), _ints((nj, t, d), gen)
    if name in ("int8", "fp8"):
        kind = torch.int8 if name == "int8" else torch.float8_e4m3fn
        args = [A.to(kind), B.to(kind)]
        kw = dict(qscale=quarters(ni, s).abs() + 0.25, dscale=quarters(nj, t).abs() + 0.25)
        key = torch.einsum("isd,jtd->ijst", A.double(), B.double()) * kw["dscale"].double()[None, :, None, :]
    else:
        args = [A.half(), B.half()]
        kw = dict(w=quarters(nj, t).half()) if name == "col_scale" else dict(b=quarters(nj, t).half()) if masked else {}
        key = torch.einsum("isd,jtd->ijst", A.double(), B.double())
        key = key * kw["w"].double()[None, :, None, :] if "w" in kw else key + kw["b"].double()[None, :, None, :] \
            if "b" in kw else key
    if name != "col_bias" and masked:
        kw["amask" if name == "col_scale" else "qmask"] = torch.rand(ni, s, generator=gen) < 0.7
        kw["bmask" if name == "col_scale" else "dmask"] = bmask = torch.rand(nj, t, generator=gen) < 0.6
        bmask[-1] = False  # a document with no token
        key = key.masked_fill(~bmask[None, :, None, :], float("-inf"))
    lean.clear()
    dev_kw = {k: v.to(device) for k, v in kw.items()}
    out, idx = op.forward_with_indices(*(x.to(device) for x in args), **dev_kw)
    assert lean[-1] is not None, name
    ref_kw = {k: v.double() if v.is_floating_point() else v for k, v in kw.items()}
    ref = op.reference(*(x if name in ("int8", "fp8") else x.double() for x in args), **ref_kw)
    assert torch.allclose(out.cpu().double(), ref, rtol=1e-5, atol=1e-5), name
    best = key.amin(-1) if name == "col_bias" else key.amax(-1)
    first = (key == best[..., None]).double().argmax(-1)
    first[(best.abs() == float("inf"))] = -1  # an empty selection
    for m in ("amask", "qmask"):
        if m in kw:
            first = first.masked_fill(~kw[m][:, None, :], -1)
    assert torch.equal(idx.cpu().long(), first), name
    if name in ("int8", "fp8"):
        return  # quantized rows serve inference: no gradient
    floats = [x.to(device).clone().requires_grad_() for x in args]
    fkw = {k: v.to(device).clone().requires_grad_() if v.is_floating_point() else v.to(device) for k, v in kw.items()}
    grad = torch.randn(ni, nj, generator=gen)
    op(*floats, **fkw).backward(grad.to(device))
    refs = [x.double().requires_grad_() for x in args]
    rkw = {k: v.double().requires_grad_() if v.is_floating_point() else v for k, v in kw.items()}
    op.reference(*refs, **rkw).backward(grad.double())
    pairs = list(zip(floats, refs)) + [(fkw[k], rkw[k]) for k in kw if kw[k].is_floating_point()]
    for mine, want in pairs:
        assert torch.allclose(mine.grad.cpu().double(), want.grad, rtol=2e-2, atol=2e-2), name  # fp16 gradients


def test_the_lean_forward_keeps_nan_in_its_own_cells(lean, lean_ops, device):
    """Rows are read as one matrix, so a last tile reads the next document's rows and a
    last chunk the next query's: a NaN there reaches only its own cells."""
    gen = torch.Generator().manual_seed(3)
    Q, D = _ints((3, 70, 16), gen).half(), _ints((3, 40, 16), gen).half()
    Q[1, 0, 0] = float("nan")
    D[2, 0, 3] = float("nan")
    out = lean_ops["maxsim"](Q.to(device), D.to(device)).cpu()
    nan = torch.zeros(3, 3, dtype=torch.bool)
    nan[1, :] = True
    nan[:, 2] = True
    assert torch.equal(out.isnan(), nan)
    ref = lean_ops["maxsim"].reference(Q.double(), D.double())
    assert torch.equal(out[~nan].double(), ref[~nan])
    assert lean[-1] is not None
    D[2, 5, 0] = float("nan")
    _, idx = lean_ops["maxsim"].forward_with_indices(Q.to(device), D.to(device))
    assert lean[-1] is not None
    assert (idx[:, 2].cpu() == 0).all()  # the first NaN of document 2, whatever the row
    assert (idx[1, :, 0].cpu() == 0).all()  # query 1's first row is all NaN
    assert (idx[0, :2].cpu() >= 0).all() and (idx[0, :2].cpu() < 40).all()


@settings(max_examples=examples(15))
@given(st.integers(1, 2), st.integers(1, 3), st.integers(1, 150), st.integers(1, 100), st.booleans(),
       st.sampled_from(["float16", "bfloat16"]), st.integers(0, 10**6))
def test_the_lean_forward_of_a_cosine(lean, lean_ops, device, ni, nj, s, t, masked, dtype, seed):
    """Cosine MaxSim through the lean kernel, its norms from the tiles: values,
    indices and gradients as the reference (random rows: no ties). (A zero row's
    gradient, 1 / eps, passes fp16's range: test_cosine_min_mean has it in fp32.)"""
    gen = torch.Generator().manual_seed(seed)
    op = lean_ops["maxsim_cos"]
    dt = getattr(torch, dtype)
    Q, D = torch.randn(ni, s, 32, generator=gen).to(dt), (3 * torch.randn(nj, t, 32, generator=gen)).to(dt)
    kw = {}
    if masked:
        kw["qmask"] = torch.rand(ni, s, generator=gen) < 0.7
        kw["dmask"] = torch.rand(nj, t, generator=gen) < 0.6
    dev_kw = {k: v.to(device) for k, v in kw.items()}
    lean.clear()
    out, idx = op.forward_with_indices(Q.to(device), D.to(device), **dev_kw)
    assert lean[-1] is not None
    ref = op.reference(Q.double(), D.double(), **kw)
    assert torch.allclose(out.cpu().double(), ref, rtol=1e-5, atol=1e-5)
    cos = torch.einsum("isd,jtd->ijst", torch.nn.functional.normalize(Q.double(), dim=-1),
                       torch.nn.functional.normalize(D.double(), dim=-1))
    if "dmask" in kw:
        cos = cos.masked_fill(~kw["dmask"][None, :, None, :], float("-inf"))
    best = cos.argmax(-1)
    got = idx.cpu().long()
    picked = got >= 0
    near = cos.gather(-1, got.clamp_min(0)[..., None])[..., 0] >= cos.amax(-1) - 1e-6  # a near tie may go either way
    assert (near | ~picked).all() and ((got == best) | near | ~picked).all()
    Qg, Dg = Q.to(device).clone().requires_grad_(), D.to(device).clone().requires_grad_()
    grad = torch.randn(ni, nj, generator=gen)
    op(Qg, Dg, **dev_kw).backward(grad.to(device))
    Qr, Dr = Q.double().requires_grad_(), D.double().requires_grad_()
    op.reference(Qr, Dr, **kw).backward(grad.double())
    for mine, want in ((Qg.grad, Qr.grad), (Dg.grad, Dr.grad)):
        assert torch.allclose(mine.cpu().double(), want, rtol=2e-2, atol=2e-2)  # 16-bit gradients


@pytest.mark.filterwarnings("ignore:overflow encountered in exp:RuntimeWarning")  # exp of far-off (or masked) values on purpose: inf, as the reference
@settings(max_examples=examples(20))
@given(st.sampled_from(sorted(LEAN_L2)), st.integers(1, 2), st.integers(1, 3), st.integers(1, 150),
       st.integers(1, 100), st.booleans(), st.sampled_from([0.0, 200.0]), st.integers(0, 10**6))
def test_the_lean_forward_of_an_l2_key(lean, lean_ops, device, name, ni, nj, s, t, masked, offset, seed):
    """Squared and plain L2 keys through the lean kernel (a Gaussian, a mean of
    distances, an outer max of squared distances), also 200 from the origin: values,
    indices (integer data: many ties, to the lowest) and gradients as the reference.
    The expansion ranks the pairs (exact here: integer sums below 2^24), the value
    comes from the selected pair's differences."""
    gen = torch.Generator().manual_seed(seed)
    op = lean_ops[name]
    Q, D = (_ints((ni, s, 16), gen) + offset).half(), (_ints((nj, t, 16), gen) + offset).half()
    kw = {}
    if masked and name != "mean_dist":
        kw["bmask"] = torch.rand(nj, t, generator=gen) < 0.6
        kw["bmask"][-1] = False  # a document with no token
    if masked and name == "gaussian":
        kw["amask"] = torch.rand(ni, s, generator=gen) < 0.7
    dev_kw = {k: v.to(device) for k, v in kw.items()}
    lean.clear()
    out, idx = op.forward_with_indices(Q.to(device), D.to(device), **dev_kw)
    assert lean[-1] is not None
    ref = op.reference(Q.double(), D.double(), **kw)
    assert torch.allclose(out.cpu().double(), ref, rtol=1e-5, atol=1e-5)
    sq = ((Q.double()[:, None, :, None] - D.double()[None, :, None]) ** 2).sum(-1)
    if "bmask" in kw:
        sq = sq.masked_fill(~kw["bmask"][None, :, None, :], float("inf"))
    first = (sq == sq.amin(-1, keepdim=True)).double().argmax(-1)
    if "bmask" in kw:
        first[:, ~kw["bmask"].any(-1)] = -1
    if "amask" in kw:
        first = first.masked_fill(~kw["amask"][:, None, :], -1)
    assert torch.equal(idx.cpu().long(), first)
    Qg, Dg = Q.to(device).clone().requires_grad_(), D.to(device).clone().requires_grad_()
    grad = torch.randn(ni, nj, generator=gen)
    op(Qg, Dg, **dev_kw).backward(grad.to(device))
    Qr, Dr = Q.double().requires_grad_(), D.double().requires_grad_()
    op.reference(Qr, Dr, **kw).backward(grad.double())
    for mine, want in ((Qg.grad, Qr.grad), (Dg.grad, Dr.grad)):
        assert torch.allclose(mine.cpu().double(), want, rtol=2e-2, atol=2e-2)  # 16-bit gradients


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose: numpy warns in the interpreter
def test_the_lean_l2_key_with_inf_and_nan_coordinates(lean, lean_ops, device):
    """Rows whose ranking key |b|^2 - 2<a, b> is not finite are ranked again by their
    differences: inf - inf in one coordinate is NaN (as the reference has it), an inf
    coordinate alone is inf away, a NaN wins its row; values and indices as float64."""
    gen = torch.Generator().manual_seed(5)
    op = lean_ops["hausdorff"]  # max_s min_t ||A_s - B_t||^2, the per-row index saved
    Q, D = _ints((2, 20, 16), gen).half(), _ints((3, 30, 16), gen).half()
    Q[0, 3, 2] = D[0, 9, 2] = float("inf")  # the same coordinate: NaN at t = 9
    Q[1, 5, 2] = float("inf")  # inf from every row of D[0] and D[2]; D[1, 4] adds -inf: inf
    D[1, 4, 5] = float("-inf")
    D[2, 7, 1] = float("nan")
    out, idx = op.forward_with_indices(Q.to(device), D.to(device))
    assert lean[-1] is not None
    assert torch.allclose(out.cpu().double(), op.reference(Q.double(), D.double()), equal_nan=True)
    sq = ((Q.double()[:, None, :, None] - D.double()[None, :, None]) ** 2).sum(-1)
    first_nan = torch.where(sq.isnan().any(-1), sq.isnan().double().argmax(-1), -1)
    low = sq.nan_to_num(nan=float("inf"))
    first = (low == low.amin(-1, keepdim=True)).double().argmax(-1)
    assert torch.equal(idx.cpu().long(), torch.where(first_nan >= 0, first_nan, first))


def test_the_lean_outer_max_keeps_nan_and_the_lowest_tied_row(lean, lean_ops, device):
    """Chunks of 64 rows: a NaN in the third chunk wins its cell; a best value tied
    in every chunk takes the first chunk's row, as the gradient shows."""
    gen = torch.Generator().manual_seed(4)
    op = lean_ops["outer_max"]
    Q, D = _ints((2, 150, 16), gen).half(), _ints((2, 30, 16), gen).half()
    Q[1, 140, 0] = float("nan")
    out = op(Q.to(device), D.to(device)).cpu()
    assert lean[-1] is not None and lean[-1][0] < 150  # chunks (of 64 rows under the interpreter, 128 on a GPU)
    assert out[1].isnan().all() and torch.equal(out[0].double(), op.reference(Q[:1].double(), D.double())[0])
    Q = torch.zeros(1, 150, 16).half()
    Q[0, :, 0] = 1.0  # every row scores the same: row 0 is the outer max's pick
    Qg = Q.to(device).requires_grad_()
    op(Qg, D[:1].to(device)).sum().backward()
    assert Qg.grad.cpu()[0, 1:].abs().sum() == 0 and Qg.grad.cpu()[0, 0].abs().sum() > 0


def test_the_general_forward_runs_where_the_lean_one_does_not(lean, lean_ops, device):
    """A mean with a mask given, fp32 rows, a contraction past 256, or rows that do
    not form one matrix: the general kernel, same values."""
    gen = torch.Generator().manual_seed(5)
    op = lean_ops["maxsim"]
    Q, D = _ints((2, 20, 16), gen), _ints((4, 30, 16), gen)
    qmask = torch.rand(2, 20, generator=gen) < 0.7
    Qh, Dh = Q.half().to(device), D.half().to(device)
    cases = [  # views made on the device (a copy to the device would make them contiguous)
        ((Qh, Dh), {"amask": qmask.to(device)}),  # a mean with a mask (its count is per cell)
        ((Q.to(device), D.to(device)), {}),
        ((_ints((2, 20, 264), gen).half().to(device), _ints((4, 30, 264), gen).half().to(device)), {}),
        ((Qh, Dh[:, :25]), {}),  # every document's first 25 of 30 rows
        ((Qh.transpose(0, 1).contiguous().transpose(0, 1), Dh), {}),
    ]
    for args, kwargs in cases:
        lean.clear()
        op = lean_ops["mean_of_min" if "amask" in kwargs else "maxsim"]
        out = op(*args, **kwargs)
        ref = op.reference(*(a.cpu().double() for a in args), **{k: v.cpu() for k, v in kwargs.items()})
        assert torch.allclose(out.cpu().double(), ref, rtol=1e-6, atol=0)  # a mean divides in fp32
        assert all(b is None for b in lean), [(tuple(a.shape), a.stride()) for a in args]


@settings(max_examples=examples(30))
@given(st.integers(1, 2), st.integers(1, 3), st.integers(1, 150), st.integers(1, 100), st.booleans(),
       st.booleans(), st.integers(0, 10**6))
def test_the_lean_forward_with_masks(lean, lean_ops, device, ni, nj, s, t, with_q, with_d, seed):
    """MaxSim's masks through the lean kernel: padded query rows leave the sum, padded
    document tokens the max, a document with no token kept scores 0 with index -1, a
    row left out has index -2; values, indices and gradients as the reference."""
    gen = torch.Generator().manual_seed(seed)
    Q, D = _ints((ni, s, 16), gen).half(), _ints((nj, t, 16), gen).half()
    kw = {}
    if with_q:
        kw["qmask"] = torch.rand(ni, s, generator=gen) < 0.7
    if with_d:
        kw["dmask"] = torch.rand(nj, t, generator=gen) < 0.6
        kw["dmask"][-1] = False  # a document with no token
    op = lean_ops["maxsim"]
    dev_kw = {k: v.to(device) for k, v in kw.items()}
    lean.clear()
    out, idx = op.forward_with_indices(Q.to(device), D.to(device), **dev_kw)
    assert lean[-1] is not None
    assert torch.equal(out.cpu().double(), op.reference(Q.double(), D.double(), **kw))
    dots = torch.einsum("isd,jtd->ijst", Q.double(), D.double())
    if with_d:
        dots = dots.masked_fill(~kw["dmask"][None, :, None, :], float("-inf"))
    first = (dots == dots.amax(-1, keepdim=True)).double().argmax(-1)
    if with_d:
        first[:, ~kw["dmask"].any(-1)] = -1  # the last document, and any other left empty
    if with_q:  # forward_with_indices reports a row left out as -1 too
        first = first.masked_fill(~kw["qmask"][:, None, :], -1)
    assert torch.equal(idx.cpu().long(), first)
    Qg, Dg = Q.to(device).clone().requires_grad_(), D.to(device).clone().requires_grad_()
    grad = torch.randn(ni, nj, generator=gen)
    op(Qg, Dg, **dev_kw).backward(grad.to(device))
    Qr, Dr = Q.double().requires_grad_(), D.double().requires_grad_()
    op.reference(Qr, Dr, **kw).backward(grad.double())
    for mine, want in ((Qg.grad, Qr.grad), (Dg.grad, Dr.grad)):
        assert torch.allclose(mine.cpu().double(), want, rtol=1e-2, atol=1e-2)  # fp16 gradients


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # a NaN fed on purpose
def test_the_lean_forward_in_parts_is_the_whole_row_bit_for_bit(monkeypatch, lean_ops, device):
    """Few cells, long rows: the selected axis in parts of 16 columns, each part's
    (value, index) merged in order. A best value tied across parts goes to the lowest
    index, a part with no kept column (masked, or past a short document) is skipped, a
    NaN in a later part wins its row: values and indices are the whole row's, bit for
    bit, and the reference's; the packed layout's short sequences too."""
    from hsr import dispatch
    monkeypatch.setattr(dispatch, "LEAN_MIN_ROWS", 1)
    monkeypatch.setattr(dispatch, "LEAN_INTERPRET_LOAD", 0)
    gen = torch.Generator().manual_seed(8)
    Q, D = _ints((2, 10, 16), gen).half(), _ints((4, 90, 16), gen).half()
    Q[:, :3] = 1.0
    D[0, 5] = D[0, 33] = D[0, 70] = 3.0  # the best of Q's first rows, in parts 0, 2 and 4: index 5
    dmask = torch.ones(4, 90, dtype=torch.bool)
    dmask[1, 16:48] = False  # parts 1 and 2 of document 1 keep no column
    dmask[3] = False  # no part of document 3 keeps one: 0, index -1
    dmask[1, 80:] = False
    D[2, 60, 3] = float("nan")  # every row of document 2: the NaN at 60, in part 3
    D[2, 20, 0] = float("nan")
    dmask[2, 20] = False  # ... not the masked one at 20
    cu_q, cu_d = torch.tensor([0, 10, 13]), torch.tensor([0, 90, 95, 185])  # a 5-token document
    packed = (cu_q, cu_d, Q.reshape(20, 16)[:13], torch.cat([D[0], D[1, :5], D[1]]))  # not D[2]'s NaN
    varlen = hsr.compile(OPS / "maxsim_varlen.hsr")

    def run(parts):
        if parts:
            _in_parts(monkeypatch, 16)
        else:
            monkeypatch.setattr(dispatch, "LEAN_INTERPRET_COLS", 16)
            monkeypatch.setattr(dispatch, "PART_MIN_COLS", 10**9)
        got = lean_ops["maxsim"].forward_with_indices(Q.to(device), D.to(device), dmask=dmask.to(device))
        return got + varlen.forward_with_indices(*(x.to(device) for x in packed))

    whole, split = run(False), run(True)
    for a, b in zip(whole, split):
        assert torch.equal(a.nan_to_num(7.0), b.nan_to_num(7.0))
    out, idx = split[:2]
    assert torch.allclose(out.cpu().double(), lean_ops["maxsim"].reference(Q.double(), D.double(), dmask=dmask),
                          equal_nan=True)
    assert (idx[:, 0, :3] == 5).all() and (idx[:, 2] == 60).all() and (idx[:, 3] == -1).all()
    dots = torch.einsum("isd,jtd->ijst", Q.double(), D.double()).masked_fill(~dmask[None, :, None, :], -float("inf"))
    first = (dots == dots.amax(-1, keepdim=True)).double().argmax(-1)
    assert torch.equal(idx[:, :2].cpu().long(), first[:, :2])
    assert torch.equal(split[2].cpu().double(), varlen.reference(*packed))


def _spy_tma(monkeypatch):
    """Record what dispatch.long_tma answered for each forward."""
    from hsr import dispatch
    plain, seen = dispatch.long_tma, []

    def spy(*args):
        seen.append(plain(*args))
        return seen[-1]
    monkeypatch.setattr(dispatch, "long_tma", spy)
    return seen


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_long_contraction_tma_loads_match_pointer_loads(long_path, device, monkeypatch, dtype):
    """The long contraction through tensor descriptors (TMA: rows past the ends and the
    contraction's partial chunk load as zeros; token tiles end at the last unmasked
    token, the last at half width where the rest fits) gives the pointer loads' values
    and indices bit for bit, with a mask and without: partial row and token blocks, a
    partial chunk (h = 40 in chunks of 16), last tiles of full and half width, an
    all-masked sequence, a NaN, and a batch axis in the hidden states' descriptor; and
    a layout no descriptor takes (the contraction not contiguous) falls back to the
    pointer loads."""
    gen = torch.Generator().manual_seed(5)
    H, W, bias = (_ints(shape, gen).to(dtype) for shape in ((5, 70, 40), (37, 40), (37,)))
    mask = torch.rand(5, 70, generator=gen) < 0.7
    mask[1] = False
    mask[2, 50] = mask[2, 69] = True  # tiles of 64 tokens: 6 left, a half tile
    mask[0, 45:] = False  # 45 left after no full tile: a full-width last tile
    mask[3, 20:] = False  # 20: a half tile only
    mask[4, 64], mask[4, 65:] = True, False  # the last kept token opens a tile, and wins for v = 0
    H[4, 64] = 3 * W[0]
    Hn = H.clone()
    Hn[2, 50, 7] = float("nan")
    args = [x.to(device) for x in (Hn, W, bias, mask)]
    seen = _spy_tma(monkeypatch)
    results = {}
    for tma in ("1", "0"):
        monkeypatch.setenv("HSR_TMA", tma)
        results[tma] = long_path["max_plus_bias"].forward_with_indices(*args)
        results[tma + "no mask"] = long_path["max_plus_bias"].forward_with_indices(*args[:3])
    if device == "cpu":  # the interpreter takes the descriptors at any size
        assert seen[0] is not None and seen[2] is None
    for key in ("", "no mask"):
        (out, idx), (want_out, want_idx) = results["1" + key], results["0" + key]
        assert out[2].isnan().all() and torch.equal(idx.cpu(), want_idx.cpu())
        assert torch.equal(out.cpu().nan_to_num(), want_out.cpu().nan_to_num())
    # both operands with a grid axis (3-d descriptors on both sides), a length bound on the min's axis
    A, B = _ints((2, 70, 40), gen).to(dtype), _ints((2, 90, 40), gen).to(dtype)
    blen = torch.tensor([90, 37])
    for tma in ("1", "0"):
        monkeypatch.setenv("HSR_TMA", tma)
        results["dist" + tma] = long_path["distance_min_mean"](A.to(device), B.to(device), blen=blen.to(device))
    assert torch.equal(results["dist1"].cpu(), results["dist0"].cpu())
    if device == "cpu":
        assert seen[-2] is not None and seen[-1] is None
    monkeypatch.setenv("HSR_TMA", "1")
    _check(long_path["splade_like"], (H.float(), W.float(), bias.float(), mask), {}, (0, 1, 2), device)
    assert seen[-1] is not None or device != "cpu"
    # the contraction axis not contiguous: no descriptor, the pointer loads
    Ht = H.float().transpose(1, 2).contiguous().transpose(1, 2)
    _check(long_path["splade_like"], (Ht, W.float(), bias.float(), mask), {}, (0, 1, 2), device)
    assert seen[-1] is None


# Index outputs under an epilogue that is flat somewhere: the raw key is selected, and
# where the epilogue is flat at the selection the lowest index of its value wins
TIES_SPECS = {
    "argmax_relu": """
        X[n, c]: float
        C[k, c]: float
        cmask[k]: bool = all
        out[n] = argmax_k relu(<X_n, C_k>)  where cmask
    """,
    "argmin_relu_flipped": """
        X[n, c]: float
        C[k, c]: float
        out[n] = argmin_k relu(2 - <X_n, C_k>)
    """,
    "argmax_log1p_relu_row_bias": """
        X[n, c]: float
        C[k, c]: float
        r[n]: float
        out[n] = argmax_k log1p(relu(<X_n, C_k> + r_n))
    """,
}


@settings(max_examples=examples(25))
@given(st.sampled_from(sorted(TIES_SPECS)), st.integers(1, 70), st.integers(1, 100), st.sampled_from([3, 16, 40]),
       st.booleans(), st.integers(0, 10**6))
def test_an_index_under_a_flat_epilogue_is_the_lowest_tied(monkeypatch, device, name, n, k, d, long, seed):
    """relu at or below 0 (or 2 - dot at or above 2) ties keys that differ: the plan
    selects on the raw key (no epilogue in the tile loop) and a second pass finds the
    lowest index of the selection's epilogue value, on every path (a few coordinates,
    one tile, the chunked contraction): integer data, many rows flat."""
    from hsr import dispatch
    if long:
        plain = dispatch.contraction
        monkeypatch.setattr(dispatch, "contraction",
                            lambda d, quantized=False, three_products=False:
                            (1, 16, 0) if d > dispatch.SMALL_D_MAX else plain(d, quantized, three_products))
    op = hsr.compile(TIES_SPECS[name])
    term = op.plan.terms[0]
    assert term.ties and "relu" not in term.key  # selected on the raw key
    gen = torch.Generator().manual_seed(seed)
    args, kwargs = [_ints((n, d), gen), _ints((k, d), gen)], {}
    if name == "argmax_relu":
        kwargs["cmask"] = torch.rand(k, generator=gen) < 0.7
    if name == "argmax_log1p_relu_row_bias":
        args.append(_ints((n,), gen))
    out = op(*[a.to(device) for a in args], **{key: v.to(device) for key, v in kwargs.items()})
    _, ref = op.reference(*args, **kwargs, return_indices=True)
    (want, _), = ref.values()
    assert torch.equal(out.cpu().long(), want), (out, want)


SM90_COMPILE = """
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
jobs = json.loads(sys.stdin.read())
for job in jobs:
    spec = importlib.util.spec_from_file_location("fresh", job["file"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = getattr(module, job["name"])
    constexprs = {(kernel.arg_names.index(n),): v for n, v in job["constexprs"].items()}
    triton.compile(ASTSource(fn=kernel, signature=job["signature"], constexprs=constexprs),
                   target=GPUTarget("cuda", 90, 32))
print("compiled", len(jobs))
"""


@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1", reason="records launches through the interpreter "
                    "(on a GPU the kernels compile for the device itself)")
def test_the_persistent_forward_compiles_for_sm90(persistent_ops):
    """The interpreter runs the kernels as Python and checks nothing the compiler does (a
    value whose type changes from one iteration of a loop to the next, say): the stacked
    forward's persistent programs compiled for sm90 by Triton's own compiler, on the CPU, in
    a process without the interpreter, with the arguments of calls recorded here (a dot with
    an outer sum, an L2 key with an outer mean, a long contraction with an outer max, packed rows)."""
    jobs, plain = [], launcher.launch
    kinds = {torch.float16: "fp16", torch.float32: "fp32", torch.int8: "i8", torch.uint8: "u8", torch.bool: "i1",
             torch.int16: "i16", torch.int32: "i32", torch.int64: "i64"}

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__.endswith("_fwd") and kwargs.get("PERSIST"):
            fn = getattr(kernel, "fn", kernel)
            given = {**dict(zip(kernel.arg_names, args)), **kwargs}
            jobs.append(dict(file=sys.modules[fn.__module__].__file__, name=fn.__name__,
                             constexprs={n: v for n, v in kwargs.items() if n in kernel.arg_names},
                             signature={n: "constexpr" if n in kwargs else "*" + kinds[v.dtype]
                                        if isinstance(v, torch.Tensor) else "i32" for n, v in given.items()}))
        return plain(kernel, grid, *args, **kwargs)
    gen = torch.Generator().manual_seed(0)
    qmask, dmask = torch.rand(5, 20, generator=gen) < 0.8, torch.rand(9, 40, generator=gen) < 0.7
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HSR_PERSIST", "1")
        mp.setattr(launcher, "launch", spy)
        kept.forget()
        for name, d in (("weighted_sum_of_max", 16), ("mean_of_min_distance", 16), ("max_of_max", 300)):
            Q, D = _ints((5, 20, d), gen).half(), _ints((9, 40, d), gen).half()
            args = (Q, D, _ints((5, 20), gen).half()) if name == "weighted_sum_of_max" else (Q, D)
            persistent_ops[name](*args, qmask=qmask, dmask=dmask)
        cu_q, cu_d = torch.tensor([0, 20, 20, 45, 60]), torch.tensor([0, 30, 31, 70])
        hsr.ops.maxsim_varlen(_ints((60, 64), gen).half(), _ints((70, 64), gen).half(), cu_q, cu_d)  # packed rows
    kept.forget()
    assert len(jobs) == 4
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, "-c", SM90_COMPILE], input=json.dumps(jobs), env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
