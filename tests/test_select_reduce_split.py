"""The select_reduce forward's split pass (DOT_MODE 3, dispatch.split_pass): the
nearest point on the tensor cores, each row's candidate tiles then searched with
the fp32 key. Checked through the interpreter (HSR_SPLIT=1 forces the pass) against
a float64 brute force and against the CUDA-core pass (HSR_SPLIT=0), which forms
the same fp32 key: values, indices and gradients must be identical, ties across
tiles included."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

import hsr
from hsr import dispatch, runtime
from hsr.generated import chamfer_point

PLAIN_L2 = """\
X[b, n, d]: float
Y[b, m, d]: float
ylen[b]: int = full

dist[b, n] = min_m ||X_n - Y_m||  where m < ylen
"""


def _both_passes(monkeypatch, fn):
    out = {}
    for flag in ("1", "0"):
        monkeypatch.setenv("HSR_SPLIT", flag)
        out[flag] = fn()
    return out["1"], out["0"]


def _nearest(x, y, ylen=None):
    """float64 brute force: (squared distance, lowest index of the least; -1 and 0 for none)."""
    d = torch.cdist(x.double(), y.double()).square()
    if ylen is not None:
        d = d.masked_fill(torch.arange(y.shape[1])[None, None, :] >= ylen[:, None, None], float("inf"))
    if d.shape[2] == 0:
        return torch.zeros(d.shape[:2], dtype=torch.float64), torch.full(d.shape[:2], -1)
    v, i = d.min(2)
    return torch.where(v.isinf(), 0.0, v), torch.where(v.isinf(), -1, i)


@settings(max_examples=examples(30))  # two interpreter passes an example
@given(st.integers(1, 2), st.integers(1, 50), st.integers(0, 140), st.integers(1, 4), st.booleans(),
       st.sampled_from([torch.float32, torch.float16, torch.bfloat16]), st.integers(0, 2**31 - 1))
def test_split_pass_matches_the_cuda_core_pass_and_float64(monkeypatch, device, b, n, m, d, ragged, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(b, n, d, generator=g).to(dtype)
    y = torch.randn(b, m, d, generator=g).to(dtype)
    if m >= 80:  # exact ties in other tiles (32 or 64 columns each): the lower index must win
        y[:, 64:80] = y[:, 0:16]
    ylen = torch.randint(0, m + 1, (b,), generator=g) if ragged else None
    on = [t.to(device) if t is not None else None for t in (x, y, ylen)]
    (v1, i1), (v0, i0) = _both_passes(monkeypatch, lambda: chamfer_point.forward_with_indices(*on[:2], ylen=on[2]))
    v1, i1, v0, i0 = (t.cpu() for t in (v1, i1, v0, i0))
    assert torch.equal(v1, v0) and torch.equal(i1, i0)
    ref_v, ref_i = _nearest(x.float(), y.float(), ylen)
    tol = 1e-5 if dtype == torch.float32 else 1e-4
    assert torch.allclose(v1.double(), ref_v, atol=tol * (1 + ref_v.abs().max().item()))
    picked = i1.long()
    ok = picked >= 0
    assert torch.equal(ok, ref_i >= 0)
    if m == 0:
        return
    got = torch.cdist(x.double(), y.double()).square().gather(2, picked.clamp(min=0)[..., None])[..., 0]
    assert torch.allclose(got[ok], ref_v[ok], atol=tol * (1 + ref_v.abs().max().item()))


def test_ties_across_tiles_keep_the_lowest_index(monkeypatch, device):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(1, 40, 3, generator=g)
    y = torch.randn(1, 200, 3, generator=g)
    y[0, 130:170] = y[0, 0:40]
    y[0, 100:140] = y[0, 0:40]  # three copies, in three tiles of 64
    (_, i1), _ = _both_passes(monkeypatch, lambda: chamfer_point.forward_with_indices(x.to(device), y.to(device)))
    _, ref_i = _nearest(x, y)
    assert torch.equal(i1.cpu().long(), ref_i)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose: numpy warns in the interpreter
@pytest.mark.parametrize("where", ["x_nan", "y_nan", "x_inf", "y_inf"])
def test_nan_and_inf_inputs_give_what_the_cuda_core_pass_gives(monkeypatch, device, where):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(2, 50, 3, generator=g)
    y = torch.randn(2, 90, 3, generator=g)
    bad = float("nan") if where.endswith("nan") else float("inf")
    (x if where.startswith("x") else y)[1, 7, 2] = bad
    x, y = x.to(device), y.to(device)
    (v1, i1), (v0, i0) = _both_passes(monkeypatch, lambda: chamfer_point.forward_with_indices(x, y))
    assert torch.equal(v1.isnan(), v0.isnan())
    assert torch.equal(torch.nan_to_num(v1), torch.nan_to_num(v0)) and torch.equal(i1, i0)


@pytest.mark.parametrize("scale", [1e-15, 1e-3, 1.0, 1e4, 1e18])
def test_any_magnitude_of_coordinates(monkeypatch, device, scale):
    """One power-of-two scale brings the clouds into fp16's range: the tiles are still right."""
    g = torch.Generator().manual_seed(7)
    x = torch.randn(1, 60, 3, generator=g) * scale
    y = torch.randn(1, 130, 3, generator=g) * scale
    x, y = x.to(device), y.to(device)
    (v1, i1), (v0, i0) = _both_passes(monkeypatch, lambda: chamfer_point.forward_with_indices(x, y))
    assert torch.equal(v1, v0) and torch.equal(i1, i0)


def test_gradients_match_the_cuda_core_pass(monkeypatch, device):
    g = torch.Generator().manual_seed(11)
    x0 = torch.randn(2, 30, 3, generator=g).to(device)
    y0 = torch.randn(2, 100, 3, generator=g).to(device)

    def grads():
        x, y = x0.clone().requires_grad_(), y0.clone().requires_grad_()
        out = chamfer_point.apply(x, y)
        return (out, *torch.autograd.grad((out * torch.linspace(0.5, 2, 30, device=device)).sum(), (x, y)))
    split, core = _both_passes(monkeypatch, grads)
    for a, b in zip(split, core):
        assert torch.equal(a, b)


def test_non_contiguous_operands(monkeypatch, device):
    g = torch.Generator().manual_seed(13)
    x = torch.randn(2, 3, 45, generator=g).to(device).transpose(1, 2)  # [2, 45, 3], d the slowest axis
    y = torch.randn(2, 100, 6, generator=g).to(device)[:, :, ::2]  # stride 2 along d
    (v1, i1), (v0, i0) = _both_passes(monkeypatch, lambda: chamfer_point.forward_with_indices(x, y))
    assert torch.equal(v1, v0) and torch.equal(i1, i0)


def test_a_compiled_spec_takes_the_pass(monkeypatch, device):
    """A user's plain-L2 nearest point (sqrt hoisted after the min) runs it too."""
    op = hsr.compile(PLAIN_L2)
    assert "split_a_ptr" in op.source
    g = torch.Generator().manual_seed(17)
    x = torch.randn(2, 40, 3, generator=g)
    y = torch.randn(2, 120, 3, generator=g)
    ylen = torch.tensor([120, 77])
    split, core = _both_passes(monkeypatch, lambda: op(x.to(device), y.to(device), ylen=ylen.to(device)))
    split, core = split.cpu(), core.cpu()
    assert torch.equal(split, core)
    ref_v, _ = _nearest(x, y, ylen)
    assert torch.allclose(split.double(), ref_v.sqrt(), atol=1e-5)


def test_specs_outside_the_pass_do_not_take_it():
    """An L1 pair, or an index output with an outer reduction's shape, keeps the CUDA-core pass."""
    assert "split_a_ptr" not in hsr.compile(PLAIN_L2.replace("||X_n - Y_m||", "||X_n - Y_m||_1")).source
    stacked = PLAIN_L2.replace("Y[b, m, d]", "Y[m, d]").replace("dist[b, n] = min_m", "h[b] = max_n min_m")
    assert "split_a_ptr" not in hsr.compile(stacked.replace("ylen[b]: int = full\n", "").replace(
        "  where m < ylen", "")).source


@pytest.mark.parametrize("outer", ["max", "min", "sum", "mean"])
@pytest.mark.parametrize("power", ["", "^2"])
def test_an_outer_reduction_over_the_rows_takes_the_pass(monkeypatch, device, outer, power):
    """Hausdorff (max_n min_m) and Chamfer written as a spec (mean_n min_m) make each row's
    value in the split pass, then reduce the rows as the CUDA-core pass does, chunks of rows
    across programs included: values and gradients identical to it, and to float64."""
    op = hsr.compile(PLAIN_L2.replace("dist[b, n] = min_m ||X_n - Y_m||",
                                      f"h[b] = {outer}_n min_m ||X_n - Y_m||{power}"))
    assert "split_a_ptr" in op.source
    g = torch.Generator().manual_seed(23)
    x = torch.randn(3, 150, 3, generator=g).to(device).requires_grad_()
    y = torch.randn(3, 130, 3, generator=g).to(device).requires_grad_()
    ylen = torch.tensor([130, 0, 7]).to(device)  # an empty selection, a short one

    def run():
        v = op(x, y, ylen=ylen)
        return (v.detach(), *torch.autograd.grad(v.sum(), (x, y)))

    split, core = _both_passes(monkeypatch, run)
    # each row's value and index are the same bits; on a GPU a sum of a chunk's rows may add
    # them in another order (the two passes' tiles lay their rows out differently), and the
    # atomic scatter of many rows' gradients into one point adds them in any order
    for a, b in zip(split, core):
        if outer in ("max", "min") or device == "cpu":
            assert torch.equal(a, b)
        else:
            assert torch.allclose(a, b, rtol=1e-5, atol=1e-6)
    ref = op.reference(x.detach().cpu().double(), y.detach().cpu().double(), ylen=ylen.cpu())
    assert torch.allclose(split[0].cpu().double(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("d, kind, pairs, forced, expected", [
    (3, "cuda", 10**10, None, True), (3, "cuda", 10**6, None, False), (3, "cpu", 10**10, None, False),
    (5, "cuda", 10**10, None, False), (5, "cpu", 10**10, "1", False), (3, "cpu", 10, "1", True),
    (3, "cuda", 10**10, "0", False), (0, "cuda", 10**10, None, False),
])
def test_split_pass_rule(monkeypatch, d, kind, pairs, forced, expected):
    if forced is None:
        monkeypatch.delenv("HSR_SPLIT", raising=False)
    else:
        monkeypatch.setenv("HSR_SPLIT", forced)
    assert dispatch.split_pass(torch.device(kind), d, pairs) is expected


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose: numpy warns in the interpreter
@pytest.mark.parametrize("big, expected", [(40.0, 1.0), (64.0, 1.0), (65.0, 0.5), (1e-3, 2.0 ** 15),
                                           (1e4, 2.0 ** -8), (1e30, 2.0 ** -94)])
def test_split_rows_scale_the_largest_finite_coordinate_into_2_5_to_2_6(device, big, expected):
    """One power of two for both operands, from their largest finite |coordinate - shift|
    (the shift: the cell's first X point, here the origin; a NaN or inf coordinate left
    out; its own row's pieces are not finite, which sends the block to the every-tile search)."""
    x = torch.tensor([[[0.0, 0.0, 0.0], [big, -0.5 * big, 0.0], [float("inf"), float("nan"), 0.0]]], device=device)
    y = torch.tensor([[[0.25 * big, 0.0, 0.0]]], device=device)
    a, b, tol = chamfer_point._dist_split({"X": x, "Y": y, "ylen": None}, {"b": 1, "n": 3, "m": 1, "d": 3})
    assert a.dtype == b.dtype == torch.float16 and a.shape == (3, 16) and b.shape == (1, 16)
    assert a[1, 0].item() == torch.tensor(big * expected).half().item()  # the hi piece of the scaled coordinate
    assert not torch.isfinite(a[2].float()).all()
    key = a[1:2].double() @ b.double().T  # s^2 (|y|^2 - 2 <x, y>)
    ref = (y.double() ** 2).sum() - 2 * (x[0, 1].double() * y[0, 0].double()).sum()
    assert torch.allclose(key.cpu(), (ref * expected ** 2).cpu().reshape(1, 1), rtol=1e-6)
    assert tol[1].item() > 0


@pytest.mark.parametrize("offset", [10.0, 1e4])
def test_split_rows_are_of_the_points_less_the_cells_shift(device, offset):
    """Far from the origin the pieces are those of the points less each cell's first X
    point: the key keeps the distances' digits, whatever the offset."""
    g = torch.Generator().manual_seed(5)
    x, y = torch.rand(2, 6, 3, generator=g) + offset, torch.rand(2, 9, 3, generator=g) + offset
    sizes = {"b": 2, "n": 6, "m": 9, "d": 3}
    far = chamfer_point._dist_split({"X": x.to(device), "Y": y.to(device), "ylen": None}, sizes)
    near = chamfer_point._dist_split({"X": (x - x[:, :1]).to(device), "Y": (y - x[:, :1]).to(device), "ylen": None},
                                     sizes)
    for got, want in zip(far, near):
        assert torch.equal(got, want)
