"""The call conventions of the peers' users: late-interaction-kernels' for
hsr.ops.maxsim (a 1-D q_mask with one query, a 1-D d_mask shared by every
document, one document D [Ld, d]) and pytorch3d's for hsr.ops.chamfer_distance
(per-cloud weights, lists, packed clouds and Pointclouds, the (loss, None)
tuple, ValueErrors that name the argument, normals refused).

Values and gradients are checked against straightforward eager formulas in
float64, through the Triton interpreter on the CPU, at small sizes.
"""

from __future__ import annotations

import importlib

import pytest
import torch

from hsr import generated, kept
from hsr.errors import TensorError
from hsr.ops import chamfer_distance, maxsim

# the modules (hsr.ops.maxsim the attribute is the function)
chamfer_module = importlib.import_module("hsr.ops.chamfer")
maxsim_module = importlib.import_module("hsr.ops.maxsim")

TOL = 1e-4


def _close(got, want, what=""):
    got, want = got.detach().double(), want.detach().double()
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)}, expected {tuple(want.shape)}"
    bound = TOL * max(want.abs().max().item() if want.numel() else 0.0, 1.0)
    err = (got - want).abs().max().item() if want.numel() else 0.0
    assert err <= bound, f"{what}: error {err:.3g} > {bound:.3g}\n got {got}\n expected {want}"


def _grads(out, leaves, seed=7):
    """Gradients of a random linear functional of out with respect to leaves."""
    gen = torch.Generator().manual_seed(seed)
    w = torch.randn(out.shape, generator=gen, dtype=torch.float64)
    grads = torch.autograd.grad((out.double() * w).sum(), leaves, allow_unused=True)
    return [torch.zeros_like(x) if g is None else g for x, g in zip(leaves, grads)]


def _check(fn, ref, leaves, what=""):
    """fn(*leaves) against ref(*float64 copies): values and gradients."""
    mine = [x.detach().clone().requires_grad_() for x in leaves]
    theirs = [x.detach().double().requires_grad_() for x in leaves]
    out, want = fn(*mine), ref(*theirs)
    assert out.requires_grad
    _close(out, want, f"value {what}")
    for i, (g, r) in enumerate(zip(_grads(out, mine), _grads(want, theirs))):
        _close(g, r, f"grad of input {i} {what}")
    return out


# ----------------------------------------------------------------------------- maxsim

def ref_maxsim(Q, D, q_mask=None, d_mask=None):
    """sum_s max_t <Q_s, D_t> in float64: Q [Nq, Lq, d], D [Nd, Ld, d] -> [Nq, Nd];
    masked document tokens leave the max (none left: 0), masked query tokens the sum."""
    sim = torch.einsum("isd,jtd->ijst", Q.double(), D.double())
    if d_mask is not None:
        sim = sim.masked_fill(~d_mask.bool()[None, :, None, :], float("-inf"))
    best = sim.max(dim=-1).values if sim.shape[-1] else sim.sum(-1)
    best = torch.where(torch.isinf(best), torch.zeros_like(best), best)
    if q_mask is not None:
        best = best * q_mask.double()[:, None, :]
    return best.sum(-1)


def _qd(nq=3, lq=4, nd=2, ld=5, d=8, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(nq, lq, d, generator=gen), torch.randn(nd, ld, d, generator=gen)


def test_one_query_takes_a_1d_q_mask():
    Q, D = _qd(nq=1)
    q_mask = torch.tensor([True, False, True, True])
    out = _check(lambda q, d: maxsim(q, d, q_mask=q_mask),
                 lambda q, d: ref_maxsim(q[None], d, q_mask[None])[0], [Q[0], D], "1-D q_mask")
    assert out.shape == (2,)
    # a 0/1 float mask reads the same
    torch.testing.assert_close(maxsim(Q[0], D, q_mask=q_mask.float()), out.detach())


@pytest.mark.parametrize("normalize", [False, True])
def test_1d_d_mask_is_shared_by_every_document(normalize):
    Q, D = _qd()
    d_mask = torch.tensor([True, False, True, False, True])

    def ref(q, d):
        if normalize:
            q, d = torch.nn.functional.normalize(q, dim=-1), torch.nn.functional.normalize(d, dim=-1)
        return ref_maxsim(q, d, d_mask=d_mask.expand(d.shape[0], -1))

    out = _check(lambda q, d: maxsim(q, d, d_mask=d_mask, normalize=normalize), ref, [Q, D], "1-D d_mask")
    assert out.shape == (3, 2)
    full = maxsim(Q, D, d_mask=d_mask.expand(2, 5).clone(), normalize=normalize)
    torch.testing.assert_close(out.detach(), full.detach())
    # masked tokens pass no gradient
    Dg = D.clone().requires_grad_()
    maxsim(Q, Dg, d_mask=d_mask, normalize=normalize).sum().backward()
    assert torch.all(Dg.grad[:, ~d_mask] == 0) and Dg.grad[:, d_mask].abs().sum() > 0


def test_1d_d_mask_with_per_query_candidates():
    gen = torch.Generator().manual_seed(3)
    Q, D = torch.randn(2, 3, 4, generator=gen), torch.randn(2, 3, 5, 4, generator=gen)   # [Nq, K, Ld, d]
    d_mask = torch.tensor([1, 1, 0, 1, 0])                                              # 0/1 integers
    ref = lambda q, d: torch.stack([ref_maxsim(q[i:i + 1], d[i], d_mask=d_mask.expand(3, -1))[0]  # noqa: E731
                                    for i in range(q.shape[0])])
    out = _check(lambda q, d: maxsim(q, d, d_mask=d_mask), ref, [Q, D], "kd, 1-D d_mask")
    assert out.shape == (2, 3)


def test_all_masked_1d_d_mask_scores_zero_without_gradient():
    Q, D = _qd()
    Dg = D.clone().requires_grad_()
    out = maxsim(Q, Dg, d_mask=torch.zeros(5, dtype=torch.bool))
    assert torch.equal(out.detach(), torch.zeros(3, 2))
    out.sum().backward()
    assert torch.equal(Dg.grad, torch.zeros_like(D))


def test_one_document_gives_one_score_per_query():
    Q, D = _qd()
    doc = D[1]
    out = _check(lambda q, d: maxsim(q, d), lambda q, d: ref_maxsim(q, d[None])[:, 0], [Q, doc], "D [Ld, d]")
    assert out.shape == (3,)
    torch.testing.assert_close(out.detach(), maxsim(Q, D)[:, 1].detach())
    # with its mask [Ld]
    d_mask = torch.tensor([False, True, True, False, True])
    _check(lambda q, d: maxsim(q, d, d_mask=d_mask), lambda q, d: ref_maxsim(q, d[None], d_mask=d_mask[None])[:, 0],
           [Q, doc], "D [Ld, d] with d_mask [Ld]")


def test_one_query_and_one_document_give_a_scalar():
    Q, D = _qd(nq=1)
    q_mask = torch.tensor([True, True, False, True])
    out = _check(lambda q, d: maxsim(q, d, q_mask=q_mask),
                 lambda q, d: ref_maxsim(q[None], d[None], q_mask[None])[0, 0], [Q[0], D[0]], "Q [Lq, d], D [Ld, d]")
    assert out.shape == () and out.dtype == torch.float32


def test_one_document_with_int8_precision():
    Q, D = _qd()
    with torch.no_grad():
        one = maxsim(Q, D[0], precision="int8")
        batch = maxsim(Q, D[:1], precision="int8")
    assert one.shape == (3,)
    torch.testing.assert_close(one, batch[:, 0])


@pytest.mark.parametrize("q_shape, d_shape, kwargs, words", [
    ((2, 5, 8), (8,), {}, ["D must be", "[Ld, d]", "(8,)"]),
    ((2, 5, 8), (1, 2, 3, 6, 8), {}, ["D must be", "(1, 2, 3, 6, 8)"]),
    ((2, 5, 8), (3, 6, 8), {"d_mask": torch.ones(4, dtype=torch.bool)}, ["'dmask'", "axis 't'", "size 4"]),
    ((2, 5, 8), (6, 8), {"d_mask": torch.ones(5, dtype=torch.bool)}, ["'dmask'", "axis 't'", "size 5"]),
], ids=["1-D D", "5-D D", "1-D d_mask size", "one-doc d_mask size"])
def test_maxsim_shape_errors(monkeypatch, q_shape, d_shape, kwargs, words):
    from hsr_subjects import forbid_kernels
    forbid_kernels(monkeypatch)
    with pytest.raises(TensorError) as err:
        maxsim(torch.randn(q_shape), torch.randn(d_shape), **kwargs)
    assert isinstance(err.value, ValueError)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


class _Recorder:
    """Stands in for a generated module: records what the front end passes."""

    def __init__(self, out):
        self.out, self.calls = out, []
        kept.forget()  # a kept front-end call would replay the real module's path, not reach this one

    def apply(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return self.out(*args)

    def both_ways(self, x, y, **kwargs):
        self.calls.append(((x, y), kwargs))
        return x.sum(-1) * 0, y.sum(-1) * 0

    def both_ways_sum(self, x, y, **kwargs):
        self.calls.append(((x, y), kwargs))
        return (x.sum() + y.sum()) * 0


def test_maxsim_front_end_passes_float64_and_a_broadcast_mask(monkeypatch):
    """The front end refuses no float64 itself (the generated module decides),
    and the shared 1-D d_mask reaches it as a stride-0 view, not a copy."""
    rec = _Recorder(lambda Q, D: Q.new_zeros(Q.shape[0], D.shape[0]))
    monkeypatch.setattr(generated, "maxsim", rec)
    Q, D = (t.double() for t in _qd())
    d_mask = torch.tensor([True, False, True, False, True])
    out = maxsim(Q[0], D[1], d_mask=d_mask)
    assert out.shape == ()
    (q, d), kw = rec.calls[-1]
    assert q.dtype == d.dtype == torch.float64 and q.shape == (1, 4, 8) and d.shape == (1, 5, 8)
    maxsim(Q, D, d_mask=d_mask)
    mask = rec.calls[-1][1]["dmask"]
    assert mask.shape == (2, 5) and mask.stride(0) == 0 and torch.equal(mask[1], d_mask)


# ----------------------------------------------------------------------------- chamfer

def _nearest(a, b):
    """Squared distance from each point of a [P, D] to its nearest in b [M, D] (float64)."""
    if b.shape[0] == 0:
        return a.new_zeros(a.shape[0])
    return torch.cdist(a, b).square().min(dim=1).values if a.shape[0] else a.new_zeros(0)


def ref_chamfer(xs, ys, weights=None, batch_reduction="mean", point_reduction="mean"):
    """pytorch3d's chamfer_distance (norm 2, no normals) over lists of clouds, in float64."""
    per_x = [_nearest(a.double(), b.double()) for a, b in zip(xs, ys)]
    per_y = [_nearest(b.double(), a.double()) for a, b in zip(xs, ys)]
    w = None if weights is None else weights.double()
    if point_reduction is None:
        pad = lambda v: torch.nn.utils.rnn.pad_sequence(v, batch_first=True)  # noqa: E731
        cx, cy = pad(per_x), pad(per_y)
        return (cx, cy) if w is None else (cx * w[:, None], cy * w[:, None])
    if point_reduction == "max":
        red = lambda v: v.max() if v.numel() else v.sum()  # noqa: E731
    elif point_reduction == "sum":
        red = lambda v: v.sum()  # noqa: E731
    else:
        red = lambda v: v.sum() / max(v.numel(), 1)  # noqa: E731
    cx = torch.stack([red(v) for v in per_x])
    cy = torch.stack([red(v) for v in per_y])
    loss = torch.maximum(cx, cy) if point_reduction == "max" else cx + cy
    if w is not None:
        loss = loss * w
    if batch_reduction is None:
        return loss
    if batch_reduction == "sum":
        return loss.sum()
    div = len(xs) if w is None else (w.sum() if w.sum() != 0 else 1.0)
    return loss.sum() / div


def _clouds(sizes, d=3, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(p, d, generator=gen) for p in sizes]


def _padded(clouds, fill=0.0):
    return torch.nn.utils.rnn.pad_sequence(clouds, batch_first=True, padding_value=fill)


def _sizes(clouds):
    return torch.tensor([c.shape[0] for c in clouds])


@pytest.mark.parametrize("batch_reduction", ["mean", "sum", None])
@pytest.mark.parametrize("point_reduction", ["mean", "sum"])
def test_weights_scale_each_cloud_and_the_batch_mean_divides_by_their_sum(batch_reduction, point_reduction):
    xs, ys = _clouds([4, 2, 5]), _clouds([3, 6, 1], seed=1)
    w = torch.tensor([0.5, 2.0, 0.0])
    x, y, xl, yl = _padded(xs, 9.0), _padded(ys, -9.0), _sizes(xs), _sizes(ys)
    kw = dict(batch_reduction=batch_reduction, point_reduction=point_reduction)

    def ref(x, y, w):
        return ref_chamfer([x[i, :n] for i, n in enumerate(xl)], [y[i, :n] for i, n in enumerate(yl)], w, **kw)

    out = _check(lambda x, y, w: chamfer_distance(x, y, xl, yl, weights=w, **kw), ref, [x, y, w], f"weights {kw}")
    assert out.dtype == torch.float32 and out.shape == (() if batch_reduction else (3,))


def test_weights_with_max_and_per_point_reductions():
    xs, ys = _clouds([3, 5]), _clouds([4, 2], seed=2)
    x, y = _padded(xs), _padded(ys)
    xl, yl = _sizes(xs), _sizes(ys)
    w = torch.tensor([3.0, 0.25])
    xr = lambda x: [x[i, :n] for i, n in enumerate(xl)]  # noqa: E731
    yr = lambda y: [y[i, :n] for i, n in enumerate(yl)]  # noqa: E731
    _check(lambda x, y: chamfer_distance(x, y, xl, yl, weights=w, point_reduction="max", batch_reduction=None),
           lambda x, y: ref_chamfer(xr(x), yr(y), w, None, "max"), [x, y], "weights, max")
    single = _check(lambda x, y: chamfer_distance(x, y, xl, yl, weights=w, point_reduction="mean",
                                                  single_directional=True),
                    lambda x, y: (torch.stack([_nearest(a, b).mean() for a, b in zip(xr(x), yr(y))])
                                  * w.double()).sum() / w.double().sum(), [x, y], "weights, single")
    assert single.shape == ()
    got = chamfer_distance(x, y, xl, yl, weights=w, point_reduction=None, batch_reduction=None)
    want = ref_chamfer(xr(x), yr(y), w, None, None)
    for g, r, p in zip(got, want, (x.shape[1], y.shape[1])):
        _close(g, r[:, :p] if r.shape[1] >= p else torch.nn.functional.pad(r, (0, p - r.shape[1])), "per point")


@pytest.mark.parametrize("batch_reduction, point_reduction", [("mean", "mean"), ("sum", "max"), (None, "sum"),
                                                              (None, None)])
def test_weights_summing_to_zero_give_zero_in_the_graph(batch_reduction, point_reduction):
    x = torch.randn(2, 4, 3, requires_grad=True)
    y = torch.randn(2, 3, 3, requires_grad=True)
    out = chamfer_distance(x, y, weights=torch.zeros(2), batch_reduction=batch_reduction,
                           point_reduction=point_reduction)
    outs = out if isinstance(out, tuple) else (out,)
    shapes = [(2, 4), (2, 3)] if point_reduction is None else [() if batch_reduction else (2,)]
    assert [tuple(o.shape) for o in outs] == shapes
    for o in outs:
        assert o.requires_grad and torch.equal(o.detach(), torch.zeros(o.shape))
    gx, gy = torch.autograd.grad(sum(o.sum() for o in outs), (x, y))
    assert torch.equal(gx, torch.zeros_like(x)) and torch.equal(gy, torch.zeros_like(y))


def test_weights_get_a_gradient_and_integer_weights_are_read_as_float():
    xs, ys = _clouds([3, 3]), _clouds([2, 2], seed=4)
    x, y = torch.stack(xs), torch.stack(ys)
    w = torch.tensor([1.0, 3.0], requires_grad=True)
    out = chamfer_distance(x, y, weights=w, batch_reduction="sum")
    (gw,) = torch.autograd.grad(out, w)
    per_cloud = chamfer_distance(x, y, batch_reduction=None)
    _close(gw, per_cloud)
    torch.testing.assert_close(chamfer_distance(x, y, weights=torch.tensor([1, 3])), out.detach() / 4)


@pytest.mark.parametrize("weights, words", [
    (torch.tensor([1.0, -0.5]), ["weights cannot be negative."]),
    (torch.tensor([1.0, float("nan")]), ["weights cannot be negative."]),
    (torch.ones(3), ["weights must be of shape (N,)", "N = 2", "(3,)"]),
    (torch.ones(2, 1), ["weights must be of shape (N,)", "(2, 1)"]),
    ([1.0, 1.0], ["weights must be of shape (N,)", "list"]),
    (torch.ones(2, dtype=torch.bool), ["weights must be a real tensor", "bool"]),
    (torch.ones(2, device="meta"), ["weights is on meta but x is on cpu"]),
], ids=["negative", "nan", "size", "rank", "list", "bool", "device"])
def test_weight_errors(monkeypatch, weights, words):
    from hsr_subjects import forbid_kernels
    forbid_kernels(monkeypatch)
    with pytest.raises(ValueError) as err:
        chamfer_distance(torch.rand(2, 3, 3), torch.rand(2, 4, 3), weights=weights)
    assert isinstance(err.value, TensorError)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


@pytest.mark.parametrize("batch_reduction", ["mean", None])
def test_list_of_clouds_is_padded_inside_and_gradients_reach_each_tensor(batch_reduction):
    xs, ys = _clouds([4, 1, 6]), _clouds([2, 5, 3], seed=5)
    xs = [x.requires_grad_() for x in xs]
    ys_leaf = [y.requires_grad_() for y in ys]
    out = chamfer_distance(xs, ys_leaf, batch_reduction=batch_reduction)
    want = ref_chamfer([x.detach().double().requires_grad_() for x in xs],
                       [y.detach().double().requires_grad_() for y in ys], batch_reduction=batch_reduction)
    _close(out, want, "list")
    # against padded tensors with lengths: the same values, and the same gradients
    xp, yp = _padded([x.detach() for x in xs]).requires_grad_(), _padded([y.detach() for y in ys]).requires_grad_()
    padded = chamfer_distance(xp, yp, _sizes(xs), _sizes(ys), batch_reduction=batch_reduction)
    torch.testing.assert_close(out.detach(), padded.detach())
    grads = _grads(out, xs + ys_leaf)
    pgx, pgy = _grads(padded, [xp, yp])
    for i, g in enumerate(grads[:3]):
        torch.testing.assert_close(g, pgx[i, :xs[i].shape[0]])
        assert g.abs().sum() > 0
    for i, g in enumerate(grads[3:]):
        torch.testing.assert_close(g, pgy[i, :ys[i].shape[0]])
    # and against the float64 formula
    xr = [x.detach().double().requires_grad_() for x in xs]
    yr = [y.detach().double().requires_grad_() for y in ys]
    for g, r in zip(grads, _grads(ref_chamfer(xr, yr, batch_reduction=batch_reduction), xr + yr)):
        _close(g, r, "list grad")


def test_list_with_an_empty_cloud_and_a_tensor_on_the_other_side():
    xs = [torch.randn(3, 2), torch.zeros(0, 2), torch.randn(2, 2)]
    y = torch.randn(3, 4, 2)
    out = _check(lambda y: chamfer_distance(xs, y, batch_reduction=None),
                 lambda y: ref_chamfer(xs, list(y), batch_reduction=None), [y], "empty cloud in a list")
    assert out[1] == 0                       # an empty cloud: 0 both ways
    # every cloud of one size: a plain stack
    same = [torch.randn(3, 2) for _ in range(3)]
    torch.testing.assert_close(chamfer_distance(same, y), chamfer_distance(torch.stack(same), y))


@pytest.mark.parametrize("sizes_as", ["list", "tensor"])
def test_packed_clouds_with_sizes(sizes_as):
    xs, ys = _clouds([2, 5, 3], d=2), _clouds([4, 1, 3], d=2, seed=6)
    xsz, ysz = [2, 5, 3], [4, 1, 3]
    if sizes_as == "tensor":
        xsz, ysz = torch.tensor(xsz), torch.tensor(ysz, dtype=torch.int32)
    xp, yp = torch.cat(xs), torch.cat(ys)

    def ref(xp, yp):
        return ref_chamfer(list(torch.split(xp, [2, 5, 3])), list(torch.split(yp, [4, 1, 3])),
                           batch_reduction="sum", point_reduction="sum")

    _check(lambda xp, yp: chamfer_distance(xp, yp, x_sizes=xsz, y_sizes=ysz, batch_reduction="sum",
                                           point_reduction="sum"), ref, [xp, yp], "packed")
    # packed on one side, padded on the other
    y = _padded(ys)
    _check(lambda xp, y: chamfer_distance(xp, y, None, _sizes(ys), x_sizes=xsz),
           lambda xp, y: ref_chamfer(list(torch.split(xp, [2, 5, 3])), [y[i, :n] for i, n in enumerate([4, 1, 3])]),
           [xp, y], "packed x, padded y")


class FakePointclouds:
    """What chamfer_distance reads of a pytorch3d Pointclouds."""

    def __init__(self, clouds, normals=None):
        self.clouds, self.normals = clouds, normals

    def points_padded(self):
        return _padded(self.clouds)

    def num_points_per_cloud(self):
        return _sizes(self.clouds)

    def normals_padded(self):
        return None if self.normals is None else _padded(self.normals)


def test_pointclouds_objects():
    xs, ys = _clouds([3, 5]), _clouds([2, 4], seed=8)
    xs = [x.requires_grad_() for x in xs]
    out = chamfer_distance(FakePointclouds(xs), FakePointclouds(ys))
    _close(out, ref_chamfer(xs, ys))
    torch.testing.assert_close(out, chamfer_distance(xs, ys))
    (g,) = torch.autograd.grad(out, xs[0])
    assert g.abs().sum() > 0
    # normals that the object carries are not read; asking for loss_normals with them is refused
    normals = [torch.randn(3, 3), torch.randn(5, 3)], [torch.randn(2, 3), torch.randn(4, 3)]
    with_normals = FakePointclouds(xs, normals[0]), FakePointclouds(ys, normals[1])
    torch.testing.assert_close(chamfer_distance(*with_normals), out)
    with pytest.raises(NotImplementedError, match="normals are not supported"):
        chamfer_distance(*with_normals, return_tuple=True)


def test_return_tuple_gives_loss_and_none():
    x, y = torch.randn(2, 4, 3), torch.randn(2, 5, 3)
    loss, normals = chamfer_distance(x, y, return_tuple=True)
    assert normals is None
    torch.testing.assert_close(loss, chamfer_distance(x, y))
    _close(loss, ref_chamfer(list(x), list(y)))
    (cx, cy), normals = chamfer_distance(x, y, point_reduction=None, batch_reduction=None, return_tuple=True)
    assert normals is None and cx.shape == (2, 4) and cy.shape == (2, 5)
    single, normals = chamfer_distance(x, y, single_directional=True, return_tuple=True)
    assert normals is None and single.shape == ()


def test_pytorch3d_positional_order():
    """x, y, x_lengths, y_lengths, x_normals, y_normals, weights, batch_reduction,
    point_reduction, norm, single_directional, abs_cosine."""
    xs, ys = _clouds([3, 4]), _clouds([5, 2], seed=9)
    x, y, xl, yl = _padded(xs), _padded(ys), _sizes(xs), _sizes(ys)
    w = torch.tensor([1.0, 2.0])
    got = chamfer_distance(x, y, xl, yl, None, None, w, "sum", "sum", 2, False, True)
    _close(got, ref_chamfer(xs, ys, w, "sum", "sum"))


@pytest.mark.parametrize("which", ["x_normals", "y_normals"])
def test_normals_are_refused(monkeypatch, which):
    from hsr_subjects import forbid_kernels
    forbid_kernels(monkeypatch)
    x, y = torch.randn(2, 4, 3), torch.randn(2, 5, 3)
    with pytest.raises(NotImplementedError, match="normals are not supported"):
        chamfer_distance(x, y, **{which: torch.randn(2, 4 if which == "x_normals" else 5, 3)})


def _p(*shape):
    return torch.rand(*shape)


@pytest.mark.parametrize("args, kwargs, words", [
    ((_p(2, 3, 2), _p(2, 4, 3)), {}, ["y does not have the correct shape", "dimension D"]),
    ((_p(2, 3, 2), _p(3, 4, 2)), {}, ["y does not have the correct shape", "batch size N"]),
    ((_p(6, 2), _p(2, 4, 2)), {}, ["x must be a [N, P, D] tensor", "x_sizes", "(6, 2)"]),
    ((_p(2, 3, 2), _p(2, 4, 2, 1)), {}, ["y must be a [N, P, D] tensor", "(2, 4, 2, 1)"]),
    (("points", _p(2, 4, 2)), {}, ["x must be a [N, P, D] tensor", "str"]),
    (([_p(3, 2), _p(2, 2)], _p(2, 4, 2), torch.tensor([3, 2])), {},
     ["x_lengths must be None when x is a list"]),
    ((_p(2, 3, 2), [_p(3, 2), _p(2, 2)], None, torch.tensor([3, 2])), {},
     ["y_lengths must be None when y is a list"]),
    ((FakePointclouds([_p(3, 2)]), _p(1, 4, 2), torch.tensor([3])), {},
     ["x_lengths must be None when x is a Pointclouds"]),
    (([_p(3, 2), [1.0, 2.0]], _p(2, 4, 2)), {}, ["x must be a [N, P, D] tensor", "item 1 is list"]),
    (([_p(3, 2), _p(2, 3)], _p(2, 4, 2)), {}, ["clouds of x must share the dimension D", "cloud 1", "(2, 3)"]),
    (([_p(3, 2), _p(2, 2, 1)], _p(2, 4, 2)), {}, ["each cloud must be [P_i, D]", "cloud 1", "(2, 2, 1)"]),
    (([_p(3, 2), _p(2, 2).double()], _p(2, 4, 2)), {}, ["clouds of x must share one dtype", "cloud 1"]),
    (([_p(3, 2), torch.rand(2, 2, device="meta")], _p(2, 4, 2)), {}, ["clouds of x must be on one device", "meta"]),
    (([], _p(2, 4, 2)), {}, ["x is an empty list"]),
    (([_p(3, 2).int()], _p(1, 4, 2)), {}, ["x must be a float tensor", "int32"]),
    ((_p(5, 2), _p(2, 4, 2)), {"x_sizes": [2, 2]}, ["x_sizes must sum to the 5 points", "[2, 2]"]),
    ((_p(5, 2), _p(2, 4, 2)), {"x_sizes": [6, -1]}, ["x_sizes cannot be negative"]),
    ((_p(5, 2), _p(2, 4, 2)), {"x_sizes": torch.tensor([2.0, 3.0])}, ["x_sizes must be a 1-D integer tensor",
                                                                         "float32"]),
    ((_p(5, 2), _p(2, 4, 2)), {"x_sizes": "2,3"}, ["x_sizes must be a 1-D integer tensor", "str"]),
    ((_p(5, 2), _p(2, 4, 2), torch.tensor([2, 3])), {"x_sizes": [2, 3]},
     ["x_lengths must be None when x is packed"]),
    ((_p(2, 3, 2), _p(2, 4, 2)), {"x_sizes": [1, 2]}, ["x_sizes is for a packed [P_total, D] x", "(2, 3, 2)"]),
    (([_p(3, 2)], _p(1, 4, 2)), {"x_sizes": [3]}, ["x_sizes is for a packed [P_total, D] tensor x", "list"]),
    ((_p(2, 3, 2), _p(2, 4, 2), torch.tensor([1, 2, 3])), {}, ["x_lengths must be a [2] tensor"]),
], ids=["D", "N", "2-D x without sizes", "4-D y", "str x", "list and lengths", "list y and lengths",
        "Pointclouds and lengths", "list of lists", "list D", "list rank", "list dtype", "list device", "empty list",
        "list int", "sizes sum", "sizes negative", "sizes float", "sizes str", "packed and lengths",
        "sizes with 3-D x", "sizes with a list", "lengths size"])
def test_chamfer_errors_name_the_argument(monkeypatch, args, kwargs, words):
    from hsr_subjects import forbid_kernels
    forbid_kernels(monkeypatch)
    with pytest.raises(TensorError) as err:
        chamfer_distance(*args, **kwargs)
    assert isinstance(err.value, ValueError)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_reduction": "avg"}, 'batch_reduction must be one of ["mean", "sum"] or None'),
    ({"point_reduction": "min"}, 'point_reduction must be one of ["mean", "sum", "max"] or None'),
    ({"point_reduction": None}, "Batch reduction must be None if point_reduction is None"),
    ({"norm": 3}, "Support for 1 or 2 norm."),
])
def test_reduction_errors_read_as_pytorch3d(kwargs, message):
    with pytest.raises(ValueError) as err:
        chamfer_distance(torch.rand(1, 3, 2), torch.rand(1, 4, 2), **kwargs)
    assert str(err.value) == message


def test_chamfer_front_end_passes_float64(monkeypatch):
    """The front end refuses no float64 itself: the clouds reach the generated
    module (here a stand-in) as they are."""
    rec = _Recorder(lambda x, y: x.sum(-1) * 0)
    monkeypatch.setattr(generated, "chamfer_point", rec)
    x, y = torch.rand(2, 3, 2, dtype=torch.float64), torch.rand(2, 4, 2, dtype=torch.float64)
    chamfer_distance(x, y)
    chamfer_distance([x[0], x[1, :2]], y, single_directional=True)
    assert [args[0].dtype for args, _ in rec.calls] == [torch.float64, torch.float64]
    assert chamfer_module.FLOAT_DTYPES[-1] == torch.float64
