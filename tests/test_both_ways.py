"""both_ways: a per-point spec and the same spec with its operands swapped,
from one pass over the pairs (emit._both_ways, the *_fwd_both and *_both_cols
kernels). It must give what the two separate calls give: values, indices
(ties to the lowest row, NaN to the first NaN), gradients, under length
bounds, on odd sizes and strided inputs, through the interpreter."""

import contextlib
from unittest import mock

import pytest
import torch
from hypothesis import given, strategies as st

import hsr
from hsr.generated import chamfer_point, chamfer_point_l1

MODULES = {"sqdist": chamfer_point, "l1": chamfer_point_l1}


def _points(shape, gen, integer):
    """Small integers make exact ties (equal distances) common."""
    if integer:
        return torch.randint(-2, 3, shape, generator=gen).float()
    return torch.rand(shape, generator=gen) * 4 - 2


def _lengths(n_cells, size, gen, given_):
    return torch.randint(0, size + 1, (n_cells,), generator=gen) if given_ else None


def _both_with_indices(module, x, y, ylen, xlen):
    """The fused forward's values and indices (the saved ones, as the backward reads them)."""
    t, sizes = hsr.runtime.bind(module.OUTPUT, module.SIGNATURE, (x, y), dict(ylen=ylen))
    t_sw, sizes_sw = hsr.runtime.bind(module.OUTPUT, module.SIGNATURE, (y, x), dict(ylen=xlen))
    out, saved, out_sw, saved_sw = module._dist_forward_both(t, t_sw, sizes, sizes_sw, True)
    return out, saved[0].view(out.shape), out_sw, saved_sw[0].view(out_sw.shape)


def _separate_with_indices(module, x, y, ylen, xlen):
    out, idx = module.forward_with_indices(x, y, ylen=ylen)
    out_sw, idx_sw = module.forward_with_indices(y, x, ylen=xlen)
    return out, idx, out_sw, idx_sw


def _same(got, want, exact):
    for g, w in zip(got, want):
        if g.dtype.is_floating_point and not exact:
            assert torch.allclose(g, w, rtol=1e-5, atol=1e-5, equal_nan=True), (g, w)
        else:
            assert torch.equal(g.nan_to_num(7.5), w.nan_to_num(7.5)), (g, w)


@pytest.mark.parametrize("pair", sorted(MODULES))
@given(st.integers(1, 3), st.integers(0, 40), st.integers(0, 70), st.integers(0, 8), st.booleans(),
       st.booleans(), st.integers(0, 10**6))
def test_values_and_indices_equal_the_two_calls(device, pair, nb, n, m, d, integer, lengths, seed):
    module = MODULES[pair]
    gen = torch.Generator().manual_seed(seed)
    x, y = _points((nb, n, d), gen, integer).to(device), _points((nb, m, d), gen, integer).to(device)
    xlen, ylen = _lengths(nb, n, gen, lengths), _lengths(nb, m, gen, lengths)
    xlen, ylen = (None if v is None else v.to(device) for v in (xlen, ylen))
    got = _both_with_indices(module, x, y, ylen, xlen)
    want = _separate_with_indices(module, x, y, ylen, xlen)
    # integers: every distance is exact, so the indices (ties to the lowest row) must agree
    _same(got, want, exact=integer or pair == "l1")
    if not integer:  # rounding may pick a different one of two near-equal rows: compare values there
        for g, w in ((got[1], want[1]), (got[3], want[3])):
            assert ((g >= 0) == (w >= 0)).all()
    else:
        assert torch.equal(got[1], want[1].to(got[1].dtype)) and torch.equal(got[3], want[3].to(got[3].dtype))
    plain = module.both_ways(x, y, ylen=ylen, ylen_swapped=xlen)  # the forward that saves no index
    _same(plain, (got[0], got[2]), exact=True)


@pytest.mark.parametrize("pair", sorted(MODULES))
def test_many_points_on_cuda_equal_the_two_calls(device, pair):
    """Thousands of points, many tiles a program: where Triton 3.6 once miscompiled
    the columns' merge (indices came back as float bits from 1000 points on)."""
    if device == "cpu":
        pytest.skip("thousands of points: too slow for the interpreter; a GPU test")
    module = MODULES[pair]
    gen = torch.Generator().manual_seed(3)
    x, y = torch.randn(2, 3000, 3, generator=gen).to(device), torch.randn(2, 3007, 3, generator=gen).to(device)
    got = _both_with_indices(module, x, y, None, None)
    want = _separate_with_indices(module, x, y, None, None)
    _same(got, want, exact=pair == "l1")
    for g, w, rows in ((got[1], want[1], 3007), (got[3], want[3], 3000)):
        assert ((g >= 0) & (g < rows)).all() and (g.long() == w.long()).float().mean() > 0.999


@pytest.mark.parametrize("pair", sorted(MODULES))
@pytest.mark.parametrize("mode", ["atomic", "deterministic"])
@pytest.mark.parametrize("one_pass", [True, False], ids=["fused", "two-forwards"])
@given(st.integers(1, 2), st.integers(1, 30), st.integers(1, 45), st.integers(1, 5), st.booleans(), st.integers(0, 10**6))
def test_gradients_equal_the_two_calls(device, pair, mode, one_pass, nb, n, m, d, lengths, seed):
    """both_ways with gradients is one autograd node: over the fused pass, or over
    the two calls' forwards where the pass is not fused (CUDA with indices)."""
    # (not one_pass: the node over the two forwards, as CUDA runs it with indices)
    unfused = mock.patch.object(hsr.dispatch, "both_ways_fused", return_value=False)
    with contextlib.nullcontext() if one_pass else unfused:
        _gradients_equal(MODULES[pair], device, mode, nb, n, m, d, lengths, seed)


def _gradients_equal(module, device, mode, nb, n, m, d, lengths, seed):
    gen = torch.Generator().manual_seed(seed)
    x, y = _points((nb, n, d), gen, False), _points((nb, m, d), gen, False)
    xlen, ylen = _lengths(nb, n, gen, lengths), _lengths(nb, m, gen, lengths)
    w1, w2 = torch.randn(nb, n, generator=gen), torch.randn(nb, m, generator=gen)
    grads = []
    for fused in (True, False):
        xk, yk = x.clone().to(device).requires_grad_(), y.clone().to(device).requires_grad_()
        lx, ly = (None if v is None else v.to(device) for v in (xlen, ylen))
        if fused:
            a, b = module.both_ways(xk, yk, ylen=ly, ylen_swapped=lx, backward=mode)
        else:
            a, b = module.apply(xk, yk, ylen=ly, backward=mode), module.apply(yk, xk, ylen=lx, backward=mode)
        ((a * w1.to(device)).sum() + (b * w2.to(device)).sum()).backward()
        grads.append((xk.grad.cpu(), yk.grad.cpu()))
    for g, w in zip(*grads):
        assert torch.allclose(g, w, rtol=1e-4, atol=1e-4), (g - w).abs().max()


@pytest.mark.parametrize("pair", sorted(MODULES))
@pytest.mark.parametrize("mode", ["atomic", "deterministic"])
@pytest.mark.parametrize("one_pass", [True, False], ids=["fused", "two-forwards"])
@given(st.integers(0, 2), st.integers(0, 30), st.integers(0, 45), st.integers(1, 5), st.booleans(),
       st.sampled_from([(1.0, 1.0), (0.25, 3.0)]), st.integers(0, 10**6))
def test_both_ways_sum_equals_the_weighted_sums(device, pair, mode, one_pass, nb, n, m, d, lengths, scales, seed):
    """both_ways_sum (one autograd node: the forwards, one weighted sum) gives
    scale * sum(out) + scale_swapped * sum(out_swapped) of the two calls: the
    loss and both gradients, with and without gradients, empty clouds included."""
    module = MODULES[pair]
    gen = torch.Generator().manual_seed(seed)
    x, y = _points((nb, n, d), gen, False), _points((nb, m, d), gen, False)
    xlen, ylen = _lengths(nb, n, gen, lengths), _lengths(nb, m, gen, lengths)
    lx, ly = (None if v is None else v.to(device) for v in (xlen, ylen))
    unfused = mock.patch.object(hsr.dispatch, "both_ways_fused", return_value=False)
    results = []
    for summed in (True, False):
        xk, yk = x.clone().to(device).requires_grad_(), y.clone().to(device).requires_grad_()
        with contextlib.nullcontext() if one_pass else unfused:
            if summed:
                loss = module.both_ways_sum(xk, yk, ylen=ly, ylen_swapped=lx, scale=scales[0],
                                            scale_swapped=scales[1], backward=mode)
                with torch.no_grad():
                    plain = module.both_ways_sum(xk, yk, ylen=ly, ylen_swapped=lx, scale=scales[0],
                                                 scale_swapped=scales[1], backward=mode)
                assert torch.allclose(plain, loss, rtol=1e-5, atol=1e-5)
            else:
                a, b = module.apply(xk, yk, ylen=ly, backward=mode), module.apply(yk, xk, ylen=lx, backward=mode)
                loss = scales[0] * a.sum() + scales[1] * b.sum()
        assert loss.shape == () and loss.dtype == torch.float32
        loss.backward()
        results.append((loss.detach().cpu(), xk.grad.cpu(), yk.grad.cpu()))
    for g, w in zip(*results):
        assert torch.allclose(g, w, rtol=1e-4, atol=1e-4), (g - w).abs().max()


def test_both_ways_sum_is_one_node_with_one_weighted_sum(device):
    """The loss's graph is one node (no sums, divisions or additions of its own)."""
    x = torch.rand(2, 9, 3, device=device, requires_grad=True)
    y = torch.rand(2, 7, 3, device=device, requires_grad=True)
    loss = chamfer_point.both_ways_sum(x, y, scale=1 / 18, scale_swapped=1 / 14)
    assert type(loss.grad_fn).__name__ == "_dist_BothSumFunctionBackward"
    assert all(type(f).__name__ == "AccumulateGrad" for f, _ in loss.grad_fn.next_functions if f is not None)


def test_both_ways_sum_in_float64_is_the_reference():
    x = torch.rand(1, 6, 3, dtype=torch.float64, requires_grad=True)
    y = torch.rand(1, 5, 3, dtype=torch.float64, requires_grad=True)
    loss = chamfer_point.both_ways_sum(x, y, scale=0.5, scale_swapped=2.0)
    want = 0.5 * torch.cdist(x, y).square().amin(2).sum() + 2.0 * torch.cdist(y, x).square().amin(2).sum()
    assert loss.dtype == torch.float64 and torch.allclose(loss, want)
    loss.backward()
    assert x.grad is not None and y.grad is not None


@pytest.mark.parametrize("pair", sorted(MODULES))
def test_nan_points_select_the_first_nan_both_ways(device, pair):
    """A NaN coordinate makes every distance to that point NaN: each point of
    the other cloud selects the first NaN point, as torch.min does."""
    module = MODULES[pair]
    gen = torch.Generator().manual_seed(5)
    x, y = _points((2, 37, 3), gen, False), _points((2, 45, 3), gen, False)
    x[0, 5, 1] = x[0, 30, 0] = x[1, 36, 2] = float("nan")
    y[1, 0, 0] = y[1, 44, 2] = float("nan")
    x, y = x.to(device), y.to(device)
    got = _both_with_indices(module, x, y, None, None)
    want = _separate_with_indices(module, x, y, None, None)
    _same(got[1::2], want[1::2], exact=True)
    _same(got[0::2], want[0::2], exact=False)
    assert (got[3][0] == 5).all() and (got[1][1] == 0).all()


def test_strided_and_half_inputs(device):
    gen = torch.Generator().manual_seed(6)
    x_t = _points((3, 41, 2), gen, False)       # [d, n, b]: a permuted view
    y = _points((2, 33, 3), gen, False)[:, ::1, :]
    for dtype in (torch.float32, torch.float16):
        x = x_t.to(device, dtype).permute(2, 1, 0)
        yy = y.to(device, dtype).transpose(1, 2).contiguous().transpose(1, 2)
        got = _both_with_indices(chamfer_point, x, yy, None, None)
        want = _separate_with_indices(chamfer_point, x, yy, None, None)
        _same(got, want, exact=False)


def test_bound_past_the_axis_and_negative(device):
    gen = torch.Generator().manual_seed(7)
    x, y = _points((3, 9, 3), gen, True).to(device), _points((3, 12, 3), gen, True).to(device)
    xlen, ylen = torch.tensor([-4, 9, 2**40], device=device), torch.tensor([13, -1, 5], device=device)
    _same(_both_with_indices(chamfer_point, x, y, ylen, xlen),
          _separate_with_indices(chamfer_point, x, y, ylen, xlen), exact=True)


def test_long_contraction_falls_back_to_two_calls(device):
    """d > 8 is tensor-core work: both_ways is then the two calls."""
    gen = torch.Generator().manual_seed(8)
    x, y = _points((1, 7, 20), gen, False).to(device), _points((1, 9, 20), gen, False).to(device)
    a, b = chamfer_point.both_ways(x, y)
    assert torch.equal(a, chamfer_point.apply(x, y)) and torch.equal(b, chamfer_point.apply(y, x))


def test_only_symmetric_per_point_specs_have_both_ways():
    assert hasattr(chamfer_point, "both_ways") and hasattr(chamfer_point_l1, "both_ways")
    from hsr.generated import maxsim, splade
    assert not hasattr(maxsim, "both_ways") and not hasattr(splade, "both_ways")
    dot = hsr.compile("A[b, n, d]: float\nB[b, m, d]: float\nout[b, n] = max_m <A_n, B_m>\n")
    masked = hsr.compile("A[b, n, d]: float\nB[b, m, d]: float\nk[b, m]: bool\n"
                         "out[b, n] = min_m ||A_n - B_m||^2  where k\n")
    for op in (dot, masked):
        assert "def both_ways" not in op.source
