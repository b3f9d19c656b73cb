"""L2 pairs far from the origin: the select_reduce kernels' squared distances must
be as exact as the direct fp32 difference ((x - y) ** 2).sum() on the same fp32
inputs, at any offset of the clouds. Every path is checked: a few coordinates
(the differences on the CUDA cores), the both-ways pass, the split pass (the
tensor-core key on rows less a shift, the candidates' values from the
differences), and longer rows (the expansion on shifted rows, in one tile or in
chunks, with pointer or TMA loads). Bound: 4x the naive fp32 error, per point,
for values, selections and gradients; the float64 reference is formed on the
same fp32 inputs, centred first so that it is exact too."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

import hsr
from hsr.generated import chamfer_point
from hsr.ops import chamfer_distance

OFFSETS = [0.0, 10.0, 100.0, 1000.0, 10000.0]
ULP = 2.0 ** -23

NEAREST = """\
X[b, n, d]: float
Y[b, m, d]: float
dist[b, n] = min_m ||X_n - Y_m||^2
"""
HAUSDORFF = """\
P[b, n, d]: float
R[b, m, d]: float
pmask[b, n]: bool = all
rmask[b, m]: bool = all
h[b] = max_n min_m ||P_n - R_m||  where pmask, rmask
"""
KMEANS = """\
X[n, d]: float
C[k, d]: float
assign[n] = argmin_k ||X_n - C_k||^2
"""
GAUSSIAN = """\
X[b, n, d]: float
Y[b, m, d]: float
w[b, m]: float
sim[b] = sum_n max_m exp(-(||X_n - Y_m||^2 + w_m) / 2)
"""


def _clouds(seed, b, n, m, d, offset):
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(b, n, d, generator=g) + offset).float()
    y = (torch.rand(b, m, d, generator=g) + offset).float()
    return x, y


def _sq64(x, y):
    """float64 squared distances [b, n, m] of the fp32 inputs, exact: centred first."""
    x64, y64 = x.double(), y.double()
    centre = x64.mean(dim=(-2,), keepdim=True) if x64.shape[-2] else 0.0
    return torch.cdist(x64 - centre, y64 - centre).square()


def _naive(x, y):
    """What a user writes in fp32: the differences, squared and summed."""
    return (x[..., :, None, :] - y[..., None, :, :]).square().sum(-1)


def _rel(a, ref):
    return ((a.double() - ref).abs() / ref.abs().clamp_min(1e-30)).max().item()


def _within_naive(got, ref, naive, what):
    err, bound = _rel(got, ref), max(4 * _rel(naive, ref), 4 * ULP)
    assert err <= bound, f"{what}: error {err:.3g} against 4x naive fp32 {bound:.3g}"


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("d, split", [(3, "0"), (3, "1"), (16, "0")])
def test_nearest_distance_and_gradient(monkeypatch, device, offset, d, split):
    """Per-point values, the chosen neighbours and the gradients of both clouds."""
    monkeypatch.setenv("HSR_SPLIT", split)  # 1: the tensor-core split pass (d <= 4), also under the interpreter
    x, y = _clouds(3, 2, 40, 70, d, offset)
    xk, yk = x.clone().to(device).requires_grad_(), y.clone().to(device).requires_grad_()
    op = chamfer_point.apply if d <= 4 else hsr.compile(NEAREST)
    out = op(xk, yk)
    sq64 = _sq64(x, y)
    ref, nn = sq64.min(-1)
    _within_naive(out.detach().cpu(), ref, _naive(x, y).min(-1).values, "distance")
    # the chosen neighbour is a nearest one within rounding
    _, idx = (chamfer_point if d <= 4 else op).forward_with_indices(x.to(device), y.to(device))
    chosen = sq64.gather(-1, idx.cpu().long()[..., None])[..., 0]
    assert (chosen <= ref * (1 + 8 * ULP) + 1e-30).all()
    weights = torch.linspace(0.5, 2.0, 40)
    (out.cpu() * weights).sum().backward()
    y_nn = y.double().gather(1, nn[..., None].expand(-1, -1, d))
    gx64 = 2 * weights[None, :, None].double() * (x.double() - y_nn)
    gy64 = torch.zeros_like(y, dtype=torch.float64).scatter_add_(1, nn[..., None].expand(-1, -1, d), -gx64)
    naive_gx = 2 * weights[None, :, None] * (x - y_nn.float())
    for got, ref_g, what in ((xk.grad, gx64, "grad x"), (yk.grad, gy64, "grad y")):
        err = ((got.cpu().double() - ref_g).norm() / ref_g.norm()).item()
        bound = max(4 * ((naive_gx.double() - gx64).norm() / gx64.norm()).item(), 4 * ULP)
        assert err <= bound, f"{what}: error {err:.3g} against {bound:.3g}"


@pytest.mark.parametrize("offset", OFFSETS)
def test_chamfer_loss(device, offset):
    """The bundled loss (both ways in one pass) and its per-point distances."""
    x, y = _clouds(5, 2, 50, 60, 3, offset)
    sq64 = _sq64(x, y)
    loss = chamfer_distance(x.to(device), y.to(device))
    ref = sq64.min(-1).values.mean(-1) + sq64.min(-2).values.mean(-1)
    naive = _naive(x, y)
    naive_loss = naive.min(-1).values.mean(-1) + naive.min(-2).values.mean(-1)
    _within_naive(loss.cpu()[None], ref.mean()[None], naive_loss.double().mean()[None], "loss")
    per_x, per_y = chamfer_distance(x.to(device), y.to(device), point_reduction=None, batch_reduction=None)
    _within_naive(per_x.cpu(), sq64.min(-1).values, naive.min(-1).values, "per point of x")
    _within_naive(per_y.cpu(), sq64.min(-2).values, naive.min(-2).values, "per point of y")


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("d", [3, 12])
def test_hausdorff(device, offset, d):
    x, y = _clouds(7, 2, 30, 45, d, offset)
    pmask = torch.ones(2, 30, dtype=torch.bool)
    pmask[1, 20:] = False
    x[1, 20:] = float("nan")  # masked points hold anything
    out = hsr.compile(HAUSDORFF)(x.to(device), y.to(device), pmask=pmask.to(device))
    sq64 = _sq64(torch.where(pmask[..., None], x, 0.0), y)
    near64 = sq64.min(-1).values.sqrt().masked_fill(~pmask, -1.0)
    naive = _naive(torch.where(pmask[..., None], x, 0.0), y).min(-1).values.sqrt().masked_fill(~pmask, -1.0)
    _within_naive(out.cpu(), near64.max(-1).values, naive.max(-1).values, "hausdorff")


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("d", [4, 24])
def test_kmeans_assignment_is_a_nearest_centre(device, offset, d):
    _kmeans_nearest(device, offset, d, 40)


def _kmeans_nearest(device, offset, d, k):
    g = torch.Generator().manual_seed(9)
    x = (torch.rand(300, d, generator=g) + offset).float()
    c = (torch.rand(k, d, generator=g) + offset).float()
    assign = hsr.compile(KMEANS)(x.to(device), c.to(device)).cpu()
    sq64 = _sq64(x, c)
    best = sq64.min(-1).values
    chosen = sq64.gather(-1, assign[:, None])[:, 0]
    naive_err = _rel(_naive(x, c).min(-1).values, best)
    assert (chosen <= best * (1 + 4 * max(naive_err, ULP)) + 1e-30).all()


@pytest.mark.parametrize("tma", ["0", "1"])
@pytest.mark.parametrize("offset", [0.0, 1000.0])
def test_long_rows_in_chunks(monkeypatch, device, tma, offset):
    """d > 256: the expansion in chunks of the contraction (DOT_MODE 1), its shift
    taken a chunk at a time, through pointer loads and TMA descriptors."""
    monkeypatch.setenv("HSR_TMA", tma)
    x, y = _clouds(11, 1, 20, 40, 300, offset)
    out = hsr.compile(NEAREST)(x.to(device), y.to(device)).cpu()
    _within_naive(out, _sq64(x, y).min(-1).values, _naive(x, y).min(-1).values, "distance")


@pytest.mark.parametrize("offset", [0.0, 1000.0])
@pytest.mark.parametrize("d", [3, 20])
def test_a_column_term_and_a_decreasing_epilogue(device, offset, d):
    """exp(-(||x - y||^2 + w) / 2) summed: the key carries a column term, the
    value at the selection comes from the differences and that column."""
    x, y = _clouds(13, 2, 25, 35, d, offset)
    w = torch.rand(2, 35, generator=torch.Generator().manual_seed(1)).float() * 1e-3
    out = hsr.compile(GAUSSIAN)(x.to(device), y.to(device), w.to(device)).cpu()
    key64 = _sq64(x, y) + w.double()[:, None, :]
    ref = torch.exp(-key64.min(-1).values / 2).sum(-1)
    naive = torch.exp(-(_naive(x, y) + w[:, None, :]).min(-1).values / 2).sum(-1)
    _within_naive(out, ref, naive, "gaussian similarity")


@settings(max_examples=examples(20))
@given(st.sampled_from(OFFSETS), st.integers(1, 6), st.integers(1, 30), st.integers(1, 40),
       st.integers(0, 2**31 - 1), st.floats(0.01, 100.0))
def test_drawn_clouds_far_from_the_origin(device, offset, d, n, m, seed, extent):
    """Hypothesis draws the clouds' size, dimension and extent; ties and
    coincident points included (a copied point is at distance 0)."""
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(1, n, d, generator=g) * extent + offset).float()
    y = (torch.rand(1, m, d, generator=g) * extent + offset).float()
    y[0, -1] = x[0, 0]  # a point of x on y: distance exactly 0
    out = chamfer_point.apply(x.to(device), y.to(device)).cpu()
    naive = _naive(x, y).min(-1).values
    ref = _sq64(x, y).min(-1).values
    assert out[0, 0] == 0.0
    assert ((out.double() - ref).abs() <= 4 * (naive.double() - ref).abs() + 4 * ULP * ref).all()


STACKED_L2 = """\
A[i, s, d]: float
B[j, t, d]: float
bmask[j, t]: bool = all
out[i, j] = {outer}_s {select}_t ||A_s - B_t||^2  where bmask
"""


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose: numpy warns in the interpreter
@pytest.mark.parametrize("d", [16, 300])  # the expansion in one tile, and in chunks
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("outer, select", [("max", "min"), ("sum", "max")])
@pytest.mark.parametrize("queries", [3, 2])  # 2: 16-bit rows of d = 16 take the lean forward (few row sets)
def test_inf_and_nan_coordinates_ranked_again(device, d, dtype, outer, select, queries):
    """The general loop (and the lean one) rank by the expansion |a|^2 + |b|^2 - 2<a, b>, which
    says inf where the differences say NaN (inf - inf in one coordinate). Rows whose best is not
    finite are ranked again from the differences: values and indices as the float64 reference,
    masks kept."""
    _ranked_again(device, d, dtype, outer, select, queries)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("d, dtype, outer, select", [(16, torch.float32, "sum", "max"),
                                                     (300, torch.float16, "max", "min")])
def test_column_norms_from_a_pre_pass(monkeypatch, device, d, dtype, outer, select):
    """dispatch.col_norms: the general loop's L2 key reads its columns' norms from a
    pre-pass (each D's own, through its strides) where many rows meet each column set;
    forced here on small calls. NaN and inf rows, masks, one tile and chunks."""
    monkeypatch.setenv("HSR_COL_NORMS", "1")
    _ranked_again(device, d, dtype, outer, select, 3)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("outer, select", [("max", "min"), ("sum", "max")])
def test_stacked_rows_keep_one_slot_a_row(monkeypatch, device, dtype, outer, select):
    """dispatch.row_slot: an L2 key's stacked loop of at least ROW_SLOT_STACKED_ROWS rows keeps one
    slot a row (each tile reduced at once to its lowest index), lowered here to the tests' rows.
    NaN and inf rows ranked again, masks, ties within a tile and across tiles (a column copied
    to later tiles: the first copy wins): values and indices as the float64 reference."""
    from hsr import dispatch, launcher
    monkeypatch.delenv("HSR_ROW_SLOT", raising=False)
    monkeypatch.setattr(dispatch, "ROW_SLOT_STACKED_ROWS", 32)
    slots, plain = [], launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__.endswith("_fwd"):
            slots.append((kwargs["DOT_MODE"], kwargs["ROW_SLOT"]))
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    _ranked_again(device, 16, dtype, outer, select, 3)
    op = hsr.compile(STACKED_L2.format(outer=outer, select=select))
    g = torch.Generator().manual_seed(5)
    Q = torch.randint(-2, 3, (3, 12, 16), generator=g).to(dtype)
    D = torch.randint(-2, 3, (2, 150, 16), generator=g).to(dtype)
    D[:, 70], D[:, 140] = D[:, 5], D[:, 5]  # equal columns in three tiles
    Q[:, :4] = D[0, 5]  # rows whose best is that column, at distance 0
    out, idx = op.forward_with_indices(Q.to(device), D.to(device))
    assert torch.allclose(out.cpu().double(), op.reference(Q.double(), D.double()))
    sq = ((Q.double()[:, None, :, None] - D.double()[None, :, None]) ** 2).sum(-1)
    pick = sq.amin(-1, keepdim=True) if select == "min" else sq.amax(-1, keepdim=True)
    assert torch.equal(idx.cpu().long(), (sq == pick).double().argmax(-1))
    assert slots and all(row for mode, row in slots if mode == 0), slots


@pytest.mark.parametrize("offset", [0.0, 1000.0])
def test_kmeans_column_norms_from_a_pre_pass(monkeypatch, device, offset):
    """The k-means assignment with the centres' norms from the pre-pass: each point's
    centre is a nearest one at any offset (the norms are the shifted rows'). 150 centres:
    full tiles, each loading the next one's norms, then a partial one."""
    monkeypatch.setenv("HSR_COL_NORMS", "1")
    _kmeans_nearest(device, offset, 24, 150)


def _ranked_again(device, d, dtype, outer, select, queries):
    op = hsr.compile(STACKED_L2.format(outer=outer, select=select))
    g = torch.Generator().manual_seed(d)
    Q = torch.randint(-3, 4, (queries, 20, d), generator=g).to(dtype)
    D = torch.randint(-3, 4, (3, 30, d), generator=g).to(dtype)
    Q[0, 3, 2] = D[0, 9, 2] = float("inf")  # the same coordinate: NaN at t = 9
    Q[1, 5, 2] = float("inf")  # inf from every row of D[0] and D[2]; D[1, 4] adds -inf: inf
    D[1, 4, 5] = float("-inf")
    D[2, 7, 1] = float("nan")
    bmask = torch.ones(3, 30, dtype=torch.bool)
    bmask[0, :9] = False  # the NaN pair is the first kept column of D[0]
    out, idx = op.forward_with_indices(Q.to(device), D.to(device), bmask=bmask.to(device))
    ref = op.reference(Q.double(), D.double(), bmask=bmask)
    assert torch.allclose(out.cpu().double(), ref, equal_nan=True), (out, ref)
    sq = ((Q.double()[:, None, :, None] - D.double()[None, :, None]) ** 2).sum(-1)
    sq = sq.masked_fill(~bmask[None, :, None, :], float("inf") if select == "min" else float("-inf"))
    first_nan = torch.where(sq.isnan().any(-1), sq.isnan().double().argmax(-1), -1)
    low = sq.nan_to_num(nan=float("inf") if select == "min" else float("-inf"))
    pick = low.amin(-1, keepdim=True) if select == "min" else low.amax(-1, keepdim=True)
    first = (low == pick).double().argmax(-1)
    assert torch.equal(idx.cpu().long(), torch.where(first_nan >= 0, first_nan, first))


def _halves_launched(monkeypatch):
    """The HALVES flag of each general forward launched. Fixed blocks (HSR_AUTOTUNE=0), so that
    on a GPU too every forward goes through hsr.launcher (an autotuned one is Triton's call)."""
    from hsr import launcher
    monkeypatch.setenv("HSR_AUTOTUNE", "0")
    seen, plain = [], launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__.endswith("_fwd") and "HALVES" in kwargs:
            seen.append(kwargs["HALVES"])
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    return seen


@pytest.mark.parametrize("offset", [0.0, 100.0, 10000.0])
@pytest.mark.parametrize("d, k", [(24, 150), (100, 40)])
def test_three_fp16_products_rank_as_exactly_as_tf32x3(monkeypatch, device, offset, d, k):
    """dispatch.halves under "highest": fp32 rows scaled by powers of two and split into
    fp16 hi and lo halves, three products (forced on small calls, through HSR_PRECISION on
    the CPU): each point's centre a nearest one within the bound the other paths keep, at
    any offset; a Gaussian's values as the float64 reference within 4x naive fp32."""
    monkeypatch.setenv("HSR_PRECISION", "tf32x3")
    monkeypatch.setenv("HSR_HALVES", "1")
    seen = _halves_launched(monkeypatch)
    _kmeans_nearest(device, offset, d, k)
    x, y = _clouds(17, 2, 25, 35, d, offset)
    out = hsr.compile(GAUSSIAN.replace(" + w_m", "").replace("w[b, m]: float\n", ""))(x.to(device), y.to(device))
    ref = torch.exp(-_sq64(x, y).min(-1).values / 2).sum(-1)
    _within_naive(out.cpu(), ref, torch.exp(-_naive(x, y).min(-1).values / 2).sum(-1), "gaussian similarity")
    assert seen and set(seen) == {3}


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose
@pytest.mark.parametrize("offset", [0.0, 1000.0])
def test_one_fp16_product_ranks_within_tf32s_rounding(monkeypatch, device, offset):
    """dispatch.halves under "high": one fp16 product of the scaled rows, TF32's 11 bits:
    a chosen centre is within 2^-8 |x - c| |y - c| of the nearest (c: the shift), the value
    at the selection exact; NaN and inf rows ranked again from their differences."""
    monkeypatch.setenv("HSR_PRECISION", "tf32")
    monkeypatch.setenv("HSR_HALVES", "1")
    seen = _halves_launched(monkeypatch)
    g = torch.Generator().manual_seed(5)
    x = (torch.rand(300, 40, generator=g) + offset).float()
    c = (torch.rand(90, 40, generator=g) + offset).float()
    c[7] = x[11]  # a centre on a point: its distance 0 must be found
    assign = hsr.compile(KMEANS)(x.to(device), c.to(device)).cpu()
    sq64 = _sq64(x, c)
    best = sq64.min(-1).values
    chosen = sq64.gather(-1, assign[:, None])[:, 0]
    shift = c[0].double()
    slack = 2.0 ** -8 * (x.double() - shift).norm(dim=-1) * (c.double() - shift).norm(dim=-1).max()
    assert (chosen <= best + slack).all() and assign[11] == 7
    _ranked_again(device, 16, torch.float32, "max", "min", 3)
    assert seen and set(seen) == {1}


@pytest.mark.parametrize("precision", ["tf32", "tf32x3"])
def test_rows_far_apart_in_size_rank_with_a_scale_each(monkeypatch, device, precision):
    """fp16 halves (forced): the held rows' sizes |x - c| spread over six decades, each row
    scaled by its own power of two (hsr.halves, one read) and the key's FMA taking that
    row's 1 / scale (a row's scale read at its element offset in the row matrix: a stacked
    spec's rows too). A chosen centre within 2^-8 |x - c| max |y - c| of the nearest; the
    stacked spec's values within the same of the float64 reference."""
    monkeypatch.setenv("HSR_PRECISION", precision)
    monkeypatch.setenv("HSR_HALVES", "1")
    seen = _halves_launched(monkeypatch)
    g = torch.Generator().manual_seed(12)
    c = (torch.rand(70, 24, generator=g) + 100.0).float()
    size = 10.0 ** (torch.rand(260, 1, generator=g) * 6 - 3)
    x = (c[0] + size * (torch.rand(260, 24, generator=g) - 0.5)).float()
    assign = hsr.compile(KMEANS)(x.to(device), c.to(device)).cpu()
    sq64 = _sq64(x, c)
    chosen = sq64.gather(-1, assign[:, None])[:, 0]
    slack = 2.0 ** -8 * (x.double() - c[0].double()).norm(dim=-1) * (c.double() - c[0].double()).norm(dim=-1).max()
    assert (chosen <= sq64.min(-1).values + slack).all()
    Q = (c[0] + 10.0 ** (torch.rand(3, 9, 1, generator=g) * 6 - 3) * torch.rand(3, 9, 24, generator=g)).float()
    D = c[:60].reshape(3, 20, 24).contiguous()
    out = hsr.compile(STACKED_L2.format(outer="sum", select="min"))(Q.to(device), D.to(device)).cpu().double()
    sq = _sq64(Q[:, None].expand(3, 3, 9, 24).reshape(9, 9, 24), D[None].expand(3, 3, 20, 24).reshape(9, 20, 24))
    want = sq.min(-1).values.reshape(3, 3, 9).sum(-1)
    assert (out - want).abs().max().item() <= 1e-5 * want.abs().max().item()
    assert set(seen) == {1 if precision == "tf32" else 3}


def test_a_kept_call_replays_the_split_into_halves(monkeypatch, device):
    """The halves are made by launches of their own (hsr.halves): a kept call (hsr.kept)
    must replay them, or its forward reads stale halves (each row then ranks again from
    its differences: right, and 30x slower)."""
    from hsr import halves, kept
    monkeypatch.setenv("HSR_PRECISION", "tf32x3")
    monkeypatch.setenv("HSR_HALVES", "1")
    op = hsr.compile(KMEANS)
    g = torch.Generator().manual_seed(2)
    x, c = torch.rand(200, 24, generator=g), torch.rand(30, 24, generator=g)
    kept.forget()
    op(x.to(device), c.to(device))
    got = op((x + 0.25).to(device), c.to(device)).cpu()  # a replay
    d64 = torch.cdist(x.double() + 0.25, c.double())
    assert torch.equal(got, d64.argmin(-1))
    launched = {step.kernel for table in kept._tables for replay in table.entries.values()
                if isinstance(replay, kept.Replay) for step in replay.program if hasattr(step, "kernel")}
    assert {halves._split_rows, halves._largest, halves._split} <= launched  # A: a scale a row; B: one


@settings(max_examples=examples(6))
@given(st.sampled_from(["tf32", "tf32x3"]), st.sampled_from([0.0, 100.0, 10000.0]), st.integers(9, 70),
       st.booleans(), st.integers(0, 2**31 - 1))
def test_halves_on_drawn_layouts_masks_and_empty_documents(device, precision, offset, d, transposed, seed):
    """fp16 halves (forced) on a masked min-distance MaxSim: documents with holes and one
    with no kept token (0, no gradient), rows strided so that their halves cannot take the
    rows' layout (they then rank in TF32), any offset: values as the float64 reference
    within the precision's rounding of the selection."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HSR_PRECISION", precision)
        mp.setenv("HSR_HALVES", "1")
        seen = _halves_launched(mp)
        op = hsr.compile(STACKED_L2.format(outer="sum", select="min"))
        g = torch.Generator().manual_seed(seed)
        Q = (torch.rand(2, 7, d, generator=g) + offset).float()
        D = (torch.rand(3, 11, d, generator=g) + offset).float()
        D[1, 4] = Q[0, 2]  # a copied token: distance 0
        if transposed:  # the coordinates strided: no row matrix
            D = D.transpose(1, 2).contiguous().transpose(1, 2)
        bmask = torch.rand(3, 11, generator=g) < 0.7
        bmask[1, 4], bmask[2] = True, False
        out = op(Q.to(device), D.to(device), bmask=bmask.to(device)).cpu().double()
    sq = _sq64(Q[:, None].expand(2, 3, 7, d).reshape(6, 7, d), D[None].expand(2, 3, 11, d).reshape(6, 11, d))
    sq = sq.reshape(2, 3, 7, 11).masked_fill(~bmask[None, :, None, :], float("inf"))
    best = sq.min(-1).values
    want = torch.where(torch.isinf(best), 0.0, best).sum(-1)
    shift = D[0, 0].double()
    spread = ((Q.double() - shift).norm(dim=-1).max() * (D.double() - shift).norm(dim=-1).max()).item()
    slack = 7 * (2.0 ** -8 if precision == "tf32" else 2.0 ** -19) * spread + 1e-9
    assert (out - want).abs().max().item() <= slack + 4 * ULP * want.abs().max().item()
    assert out[:, 2].eq(0).all()  # the empty document
    assert set(seen) == ({0} if transposed else {1 if precision == "tf32" else 3})


PARTS_SPECS = {
    "assign": KMEANS,
    "nearest": """\
X[b, n, d]: float
Y[b, m, d]: float
ymask[b, m]: bool = all
dist[b, n] = min_m ||X_n - Y_m||^2  where ymask
""",
    "dot": """\
X[b, n, d]: float
Y[b, m, d]: float
ylen[b]: int
best[b, n] = max_m <X_n, Y_m>  where m < ylen[b]
""",
}


@pytest.fixture
def parts_watch(monkeypatch):
    """The general loop's selected axis in parts of 64 columns wherever a call has more
    (dispatch.general_parts, as for few rows on a GPU), pointer loads; yields the parts each call took."""
    from hsr import dispatch
    monkeypatch.setattr(dispatch, "PART_MIN_COLS", 1)
    monkeypatch.setattr(dispatch, "INTERPRET_SMS", 10**6)
    monkeypatch.setattr(dispatch, "GENERAL_PART_ALIGN", 64)
    monkeypatch.setenv("HSR_TMA", "0")  # (the interpreter takes TMA loads for d > 256, whose loops have no parts)
    real, taken = dispatch.general_parts, []

    def spy(*args, **kwargs):
        taken.append(real(*args, **kwargs)[0])
        return real(*args, **kwargs)
    monkeypatch.setattr(dispatch, "general_parts", spy)
    return taken


@pytest.fixture(scope="module")
def parts_ops():
    return {name: hsr.compile(text) for name, text in PARTS_SPECS.items()}


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose
@settings(max_examples=examples(24))
@given(st.sampled_from(sorted(PARTS_SPECS)), st.sampled_from([(3, torch.float32), (16, torch.float16),
                                                            (16, torch.float32), (300, torch.float32)]),
       st.sampled_from([0.0, 1000.0]), st.integers(1, 40), st.integers(65, 200), st.booleans(),
       st.integers(0, 2**31 - 1))
def test_a_selected_axis_in_parts_is_the_whole_axis(monkeypatch, parts_watch, parts_ops, device, name, shape,
                                                     offset, n, m, odd, seed):
    """The general loop's selected axis split across programs (few rows, many columns: the
    k-means assignment of few points) gives the one-program result bit for bit: values,
    indices and gradients, then the float64 reference's. Integer coordinates make ties
    exact (the lowest index wins across parts), a copied row ties across parts, and the
    odd draws add an inf coordinate (ranked again from the differences), a NaN, a row with
    no kept column and a bound of 0."""
    _in_parts_and_whole(monkeypatch, parts_watch, parts_ops[name], device, name, shape, offset, n, m, odd, seed)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose
@pytest.mark.parametrize("name", sorted(PARTS_SPECS))
def test_a_selected_axis_in_parts_through_tma_loads(monkeypatch, parts_watch, parts_ops, device, name):
    """The same through TMA loads (16-bit rows of d > 256 on sm90; the interpreter takes them at
    any size with HSR_TMA=1): a part's tiles start at its first column, and a mask's scan of the
    last kept column runs within the part."""
    from hsr import dispatch
    monkeypatch.setenv("HSR_TMA", "1")
    real, tma = dispatch.long_tma, []
    monkeypatch.setattr(dispatch, "long_tma", lambda *a, **k: tma.append(real(*a, **k)) or tma[-1])
    _in_parts_and_whole(monkeypatch, parts_watch, parts_ops[name], device, name, (320, torch.float16), 0.0, 9, 150,
                        True, 3)
    assert tma and tma[-1] is not None or device != "cpu"


def _in_parts_and_whole(monkeypatch, parts_watch, op, device, name, shape, offset, n, m, odd, seed):
    from hsr import dispatch
    d, dtype = shape
    if dtype != torch.float32 and name == "assign":  # one shift serves every cell: 16-bit rows shifted (forced)
        monkeypatch.setenv("HSR_SHIFT16", "1")
    elif dtype != torch.float32:  # elsewhere 16-bit rows are not shifted: exact only near 0
        offset = 0.0
    g = torch.Generator().manual_seed(seed)
    b = 1 if name == "assign" else 2
    X = torch.randint(-3, 4, (b, n, d), generator=g).double() + offset
    Y = torch.randint(-3, 4, (b, m, d), generator=g).double() + offset
    Y[:, m - 1] = Y[:, 1]  # the same column in the first part and in the last
    kw = {}
    if name == "nearest":
        kw["ymask"] = torch.rand(b, m, generator=g) < 0.8
    if name == "dot":
        kw["ylen"] = torch.tensor([m - 7, 0 if odd else m])
    if odd and name != "dot":
        X[0, 0, 1] = float("inf")  # inf - inf: NaN in the differences where Y shares it
        Y[0, m // 2, 1] = float("inf")
        Y[0, m - 3, 2] = float("nan")
        if name == "nearest":
            kw["ymask"][1] = False  # no kept column: -1, value 0
    if name == "assign":
        X, Y = X[0], Y[0]
    x, y = X.to(dtype), Y.to(dtype)
    grad = name != "assign"
    runs = []
    for min_cols in (10**9, 1):  # whole, then in parts
        monkeypatch.setattr(dispatch, "PART_MIN_COLS", min_cols)
        xd, yd = x.to(device).requires_grad_(grad), y.to(device).requires_grad_(grad)
        dev_kw = {k: v.to(device) for k, v in kw.items()}
        if grad:
            out = op(xd, yd, **dev_kw)
            out.nan_to_num(0.0).sum().backward()
            idx = op.forward_with_indices(xd.detach(), yd.detach(), **dev_kw)[1]
            runs.append((out.detach().cpu(), idx.cpu(), xd.grad.cpu(), yd.grad.cpu()))
        else:
            runs.append((op(xd, yd).cpu(),))
    assert parts_watch[-1] > 1 or device != "cpu"
    for whole, parts in zip(*runs):
        assert torch.equal(whole.nan_to_num(7.0), parts.nan_to_num(7.0)), (name, whole, parts)
    ref = op.reference(x.double(), y.double(), **kw)
    got = runs[1][0]
    if name == "assign":
        sq = ((x.double()[:, None] - y.double()[None]) ** 2).sum(-1)
        first_nan = torch.where(sq.isnan().any(-1), sq.isnan().double().argmax(-1), -1)
        low = sq.nan_to_num(nan=float("inf"))
        first = (low == low.amin(-1, keepdim=True)).double().argmax(-1)
        assert torch.equal(got, torch.where(first_nan >= 0, first_nan, first)), (got, ref)
    else:
        assert torch.allclose(got.double(), ref, equal_nan=True), (got, ref)


NEAREST_CENTRE = """\
X[n, d]: float
C[k, d]: float
dist[n] = min_k ||X_n - C_k||^2
"""


@pytest.fixture(scope="module")
def centre_ops():
    return hsr.compile(KMEANS), hsr.compile(NEAREST_CENTRE)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("offset", [0.0, 1000.0])
@settings(max_examples=examples(9))
@given(st.integers(9, 40), st.integers(1, 50), st.integers(1, 150), st.booleans(), st.integers(0, 2**31 - 1))
def test_16bit_rows_less_a_shift_pick_a_nearest_centre(monkeypatch, centre_ops, device, dtype, offset, d, n, k,
                                                        strays, seed):
    """dispatch.shifts_16bit (forced): 16-bit centres less a per-coordinate shift, the points less
    it (runtime.shift_16bit). Integer coordinates at any offset make every distance exact, so the index is
    the float64 reference's, ties to the lowest (a copied centre ties); unshifted, fp16 at 1000
    ranks on |x|^2 ~ 1e6 d and misses. The stray draws add points whose shift rounds (fractions
    far from the centres' range: ranked again from their differences), an inf and a NaN
    coordinate. The nearest distance comes from the differences, its gradient too."""
    monkeypatch.setenv("HSR_SHIFT16", "1")
    assign, nearest = centre_ops
    g = torch.Generator().manual_seed(seed)
    x = (torch.randint(-3, 4, (n, d), generator=g).double() + offset).to(dtype)
    c = (torch.randint(-3, 4, (k, d), generator=g).double() + offset).to(dtype)
    c[k - 1] = c[0]
    if strays:
        far = torch.rand(n, d, generator=g).double() * 3 * (offset + 1)  # fractions from 0 to 3x the offset
        x = torch.where(torch.rand(n, d, generator=g) < 0.3, far.to(dtype), x)
        x[0, 1] = float("inf")
        x[n - 1, 2] = float("nan")
    got = assign(x.to(device), c.to(device)).cpu()
    sq = ((x.double()[:, None] - c.double()[None]) ** 2).sum(-1)
    first_nan = torch.where(sq.isnan().any(-1), sq.isnan().double().argmax(-1), -1)
    low = sq.nan_to_num(nan=float("inf"))
    first = (low == low.amin(-1, keepdim=True)).double().argmax(-1)
    assert torch.equal(got, torch.where(first_nan >= 0, first_nan, first)), (got, first)
    xd = x.to(device).requires_grad_(True)
    dist = nearest(xd, c.to(device))
    dist.nan_to_num(0.0, posinf=0.0).sum().backward()
    ref = nearest.reference(x.double(), c.double())
    assert torch.allclose(dist.detach().cpu().double(), ref, rtol=2e-6, equal_nan=True)
    finite = ref.isfinite()  # 2 (x - c) at the first nearest centre
    want = 2 * (x.double() - c.double()[first])
    assert torch.allclose(xd.grad.cpu().double()[finite], want[finite], rtol=torch.finfo(dtype).eps)  # (in x's dtype)


def test_16bit_rows_are_shifted_where_asked_and_explain_says_so(monkeypatch):
    """The rule and its explain line: on by default where at least SHIFT16_ROWS rows meet each
    of B's row sets (the passes over B cost little there), off below, HSR_SHIFT16 overriding
    both ways; only where the row is one tile and one shift serves every cell; a grid axis
    both operands share keeps rows unshifted."""
    from hsr import dispatch
    monkeypatch.delenv("HSR_SHIFT16", raising=False)
    many, few = dispatch.SHIFT16_ROWS, dispatch.SHIFT16_ROWS - 1
    assert dispatch.shifts_16bit(torch.float16, 0, True, many)
    assert not dispatch.shifts_16bit(torch.bfloat16, 0, True, few)
    assert not dispatch.shifts_16bit(torch.float16, 1, True, many)  # d > 256: chunks of the row
    assert not dispatch.shifts_16bit(torch.float32, 0, True, many)  # fp32 rows shift before the kernel
    assert not dispatch.shifts_16bit(torch.float16, 0, False, many)
    kmeans = hsr.compile(KMEANS)
    assert "C and X less a per-coordinate shift before the kernel, where it is not 0 (1048576 rows meet each C " \
        "row set, at least 131072" in kmeans.explain({"n": 1 << 20, "k": 1024, "d": 128})
    assert "unshifted, exact near the origin only (4096 rows meet each C row set, fewer than 131072" in \
        kmeans.explain({"n": 4096, "k": 1024, "d": 128})
    monkeypatch.setenv("HSR_SHIFT16", "1")
    assert dispatch.shifts_16bit(torch.bfloat16, 0, True, few)
    assert "unshifted (X and Y share a grid axis" in hsr.compile(NEAREST).explain({"b": 2, "n": 64, "m": 64,
                                                                                    "d": 16})
    monkeypatch.setenv("HSR_SHIFT16", "0")
    assert not dispatch.shifts_16bit(torch.float16, 0, True, many)
    assert "unshifted, exact near the origin only (HSR_SHIFT16=0)" in kmeans.explain({"n": 1 << 20, "k": 1024,
                                                                                      "d": 128})


@pytest.mark.parametrize("dtype, offset", [(torch.float16, 0.0), (torch.float16, 1000.0), (torch.bfloat16, 100.0)])
@pytest.mark.parametrize("parts", [False, True])
def test_16bit_rows_less_a_shift_in_the_lean_loop(monkeypatch, device, dtype, offset, parts):
    """The shift where the lean forward runs (an L2 key under an outer sum: k-means' inertia),
    forced at this size (HSR_SHIFT16=1): each program's rows from X or X less the shift by the
    flag the centres' pass stores, C's tiles less it with the pass's norms (padded a tile
    ahead), the columns whole and in parts. Integer coordinates make every distance exact, so
    the sum and the picks are the float64 ones at 0 and 1000 from the origin (unshifted, fp16
    at 1000 misses; bf16 at 100, where its integers are still exact); a point whose shift
    rounds (a coordinate three quarters of the offset from the centres') is ranked again from
    its differences. By default a call of 2^20 rows is shifted, and explain() says so."""
    from hsr import dispatch, kept, launcher
    monkeypatch.setenv("HSR_SHIFT16", "1")
    if parts:  # 16-column tiles under the interpreter, in as many parts
        monkeypatch.setattr(dispatch, "LEAN_INTERPRET_COLS", 16)
        monkeypatch.setattr(dispatch, "PART_MIN_COLS", 1)
        monkeypatch.setattr(dispatch, "INTERPRET_SMS", 10**6)
    lean, plain = [], launcher.launch

    def spy(kernel, grid, *args, **kwargs):  # each lean launch's SHIFT_A
        if getattr(kernel, "fn", kernel).__name__.endswith("_fwd_lean"):
            lean.append(kwargs["SHIFT_A"])
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    kept.forget()
    inertia = hsr.compile("X[b, n, d]: float\nC[k, d]: float\ntotal[b] = sum_n min_k ||X_n - C_k||^2\n")
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-3, 4, (2, 200, 24), generator=g).double() + offset
    c = torch.randint(-3, 4, (37, 24), generator=g).double() + offset
    c[36] = c[2]  # a tie: the lower index wins
    x[0, 5, 0] = offset / 4 + 0.375  # far from the centres: its shifted coordinate rounds
    x, c = x.to(dtype), c.to(dtype)
    sq = ((x.double()[:, :, None] - c.double()[None, None]) ** 2).sum(-1)
    first = (sq == sq.amin(-1, keepdim=True)).double().argmax(-1)
    xd = x.to(device).requires_grad_(True)
    total, idx = inertia.forward_with_indices(xd.detach(), c.to(device))
    assert torch.equal(idx.cpu(), first)
    assert torch.allclose(total.cpu().double(), sq.amin(-1).sum(-1), rtol=1e-7)
    inertia(xd, c.to(device)).sum().backward()
    want = 2 * (x.double() - c.double()[first])
    assert torch.allclose(xd.grad.cpu().double(), want, rtol=torch.finfo(dtype).eps)  # (in x's dtype)
    assert device != "cpu" or set(lean) == {2}, lean
    sizes = {"b": 1, "n": 1 << 20, "k": 1024, "d": 128}
    monkeypatch.delenv("HSR_SHIFT16")
    assert "fp16/bf16 rows (lean loop): C and X less a per-coordinate shift before the kernel, where it is not 0 " \
        "(1048576 rows meet each C row set" in inertia.explain(sizes)
    monkeypatch.setenv("HSR_SHIFT16", "0")
    assert "fp16/bf16 rows (lean loop): unshifted, exact near the origin only (HSR_SHIFT16=0)" in inertia.explain(sizes)


def test_16bit_rows_whose_coordinates_come_first_are_shifted(monkeypatch, device):
    """X declared [d, n] (its coordinates the first axis): the shift's pass moves the
    contraction last (runtime.shift_16bit) and the kernel reads X less the shift through X's
    own strides. Integer coordinates 1000 from the origin: the picks are the float64 ones
    (unshifted, fp16 there misses)."""
    monkeypatch.setenv("HSR_SHIFT16", "1")
    assign = hsr.compile("X[d, n]: float\nC[k, d]: float\nassign[n] = argmin_k ||X_n - C_k||^2\n")
    g = torch.Generator().manual_seed(0)
    x = torch.randint(-3, 4, (24, 70), generator=g).double() + 1000
    c = torch.randint(-3, 4, (37, 24), generator=g).double() + 1000
    sq = ((x.t()[:, None] - c[None]) ** 2).sum(-1)
    first = (sq == sq.amin(-1, keepdim=True)).double().argmax(-1)
    assert torch.equal(assign(x.half().to(device), c.half().to(device)).cpu(), first)


@pytest.mark.parametrize("transposed", [False, True])  # the points' coordinates outermost: shifted from a copy
def test_a_point_whose_shift_rounds_is_ranked_again(monkeypatch, centre_ops, device, transposed):
    """A point 750 from the centres in one coordinate: x - c (c = 1000.5 there) is -750.125,
    which fp16 rounds to -750, and the rounded key ties the two centres, so the lower index
    (0) would win; exactly, centre 1 is nearer by 0.25. The row is ranked again from its
    differences and picks centre 1 (unshifted rows pick 0 here)."""
    monkeypatch.setenv("HSR_SHIFT16", "1")
    assign, _ = centre_ops
    c = torch.full((2, 9), 1000.0)
    c[0, :2] = torch.tensor([1001.0, 1002.0])
    x = torch.full((1, 9), 1000.0)
    x[0, :2] = torch.tensor([250.375, 1376.0])
    x = torch.cat([x, c[:1] + 0.5]).half()  # and a point the shift keeps exact (on neither centre)
    x = x.t().contiguous().t() if transposed else x
    assert assign(x.to(device), c.half().to(device)).cpu().tolist() == [1, 0]
