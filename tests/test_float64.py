"""float64 inputs: every compiled spec and bundled op takes them and computes in
float64, through the float64 reference evaluator (torch ops, chunked, on the
inputs' device) rather than the kernels, so that torch.autograd.gradcheck
passes. Inputs are random normals with a fixed seed: no ties, so the selection
does not change under gradcheck's small perturbations."""

import pytest
import torch

import hsr
from hsr import reference
from hsr.ops import splade_max
from hsr.errors import TensorError
from hsr.generated import chamfer_point, maxsim, splade

F64 = torch.float64

MAXSIM = """
Q[i, s, d]: float
D[j, t, d]: float
qmask[i, s]: bool = all
dmask[j, t]: bool = all

score[i, j] = sum_s max_t <Q_s, D_t>  where qmask, dmask
"""

HAUSDORFF = """
P[b, n, d]: float
R[b, m, d]: float
pmask[b, n]: bool = all
rmask[b, m]: bool = all

h[b] = max_n min_m ||P_n - R_m||  where pmask, rmask
"""

ARGMAX = """
Q[i, s, d]: float
D[j, t, d]: float
idx[i, j, s] = argmax_t <Q_s, D_t>
"""


@pytest.fixture(scope="module")
def compiled():
    return {"maxsim": hsr.compile(MAXSIM), "hausdorff": hsr.compile(HAUSDORFF), "argmax": hsr.compile(ARGMAX)}


def _randn(gen, *shape, device="cpu"):
    return torch.randn(*shape, generator=gen, dtype=F64).to(device).requires_grad_()


def _check(fn, leaves, want):
    """fn(*leaves) is float64, equals ``want`` (the reference on the same
    tensors), and passes gradcheck."""
    out = fn(*leaves)
    assert out.dtype == F64
    assert out.device == leaves[0].device
    assert torch.equal(out.detach(), want.detach())
    assert torch.autograd.gradcheck(fn, leaves, eps=1e-6, atol=1e-7, rtol=1e-5)


def _masks(gen, shape, device):
    m = torch.rand(*shape, generator=gen) < 0.7
    m[..., 0] = True
    return m.to(device)


def test_compiled_maxsim(compiled, device):
    gen = torch.Generator().manual_seed(0)
    op = compiled["maxsim"]
    Q, D = _randn(gen, 2, 3, 4, device=device), _randn(gen, 3, 5, 4, device=device)
    qm, dm = _masks(gen, (2, 3), device), _masks(gen, (3, 5), device)
    dm[-1] = False  # a document with no token: 0, no gradient
    fn = lambda q, d: op(q, d, qmask=qm, dmask=dm)  # noqa: E731
    _check(fn, (Q, D), op.reference(Q, D, qmask=qm, dmask=dm))
    assert torch.all(fn(Q, D)[:, -1] == 0)


def test_generated_maxsim(device):
    gen = torch.Generator().manual_seed(1)
    Q, D = _randn(gen, 2, 4, 8, device=device), _randn(gen, 3, 6, 8, device=device)
    dm = _masks(gen, (3, 6), device)
    fn = lambda q, d: maxsim.apply(q, d, dmask=dm)  # noqa: E731
    want = reference.evaluate(hsr.runtime._program(maxsim.SPEC, maxsim.FILENAME), Q, D, dmask=dm)
    _check(fn, (Q, D), want)
    # the float32 kernels (or the interpreter) on the same values agree to fp32
    fp32 = maxsim.apply(Q.detach().float(), D.detach().float(), dmask=dm)
    assert fp32.dtype == torch.float32
    assert torch.allclose(fp32.double(), want.detach(), rtol=1e-5, atol=1e-5)


def test_generated_chamfer_point_with_lengths(device):
    gen = torch.Generator().manual_seed(2)
    X, Y = _randn(gen, 2, 5, 3, device=device), _randn(gen, 2, 7, 3, device=device)
    ylen = torch.tensor([7, 4], device=device)
    fn = lambda x, y: chamfer_point.apply(x, y, ylen=ylen)  # noqa: E731
    program = hsr.runtime._program(chamfer_point.SPEC, chamfer_point.FILENAME)
    _check(fn, (X, Y), reference.evaluate(program, X, Y, ylen=ylen))
    # both ways: the two float64 calls
    out, out_sw = chamfer_point.both_ways(X, Y, ylen=ylen)
    assert out.dtype == out_sw.dtype == F64
    assert torch.equal(out, fn(X, Y))
    assert torch.equal(out_sw, chamfer_point.apply(Y, X))


def test_generated_splade_with_bias(device):
    gen = torch.Generator().manual_seed(3)
    H, W = _randn(gen, 2, 5, 6, device=device), _randn(gen, 7, 6, device=device)
    bias = (torch.randn(7, generator=gen, dtype=F64) + 4.0).to(device).requires_grad_()  # relu's kink far away
    mask = _masks(gen, (2, 5), device)
    fn = lambda h, w, b: splade.apply(h, w, bias=b, mask=mask)  # noqa: E731
    program = hsr.runtime._program(splade.SPEC, splade.FILENAME)
    _check(fn, (H, W, bias), reference.evaluate(program, H, W, bias=bias, mask=mask))
    # the front end passes float64 through
    assert torch.equal(splade_max(H, W, bias, mask), fn(H, W, bias))


def test_compiled_hausdorff(compiled, device):
    gen = torch.Generator().manual_seed(4)
    op = compiled["hausdorff"]
    P, R = _randn(gen, 2, 5, 3, device=device), _randn(gen, 2, 6, 3, device=device)
    pm, rm = _masks(gen, (2, 5), device), _masks(gen, (2, 6), device)
    fn = lambda p, r: op(p, r, pmask=pm, rmask=rm)  # noqa: E731
    _check(fn, (P, R), op.reference(P, R, pmask=pm, rmask=rm))
    # brute force, float64
    dist = torch.cdist(P.detach(), R.detach()).masked_fill(~rm[:, None, :], float("inf"))
    brute = dist.min(2).values.masked_fill(~pm, float("-inf")).max(1).values
    assert torch.allclose(fn(P, R), brute, rtol=1e-12, atol=1e-12)


def test_argmax_spec_gives_int64(compiled, device):
    gen = torch.Generator().manual_seed(5)
    Q, D = torch.randn(2, 3, 4, generator=gen, dtype=F64), torch.randn(3, 5, 4, generator=gen, dtype=F64)
    out = compiled["argmax"](Q.to(device), D.to(device))
    assert out.dtype == torch.int64
    assert torch.equal(out.cpu(), torch.einsum("isd,jtd->ijst", Q, D).argmax(-1))


def test_forward_with_indices(compiled, device):
    """(out float64, idx int32) laid out as the kernels' index, with -1 for a
    row the outer sum leaves out and for a selection over nothing."""
    gen = torch.Generator().manual_seed(6)
    Q, D = torch.randn(2, 3, 4, generator=gen, dtype=F64), torch.randn(3, 5, 4, generator=gen, dtype=F64)
    qm, dm = _masks(gen, (2, 3), "cpu"), _masks(gen, (3, 5), "cpu")
    qm[0, 1], dm[-1] = False, False
    for fwi in (compiled["maxsim"].forward_with_indices, maxsim.forward_with_indices):
        args = dict(Q=Q.to(device), D=D.to(device), qmask=qm.to(device), dmask=dm.to(device))
        out, idx = fwi(**args)
        assert out.dtype == F64 and idx.dtype == torch.int32 and idx.shape == (2, 3, 3)
        assert torch.equal(out, compiled["maxsim"].reference(**args))
        # the kernels' index on the same values in fp32
        out32, idx32 = fwi(Q.float().to(device), D.float().to(device), qmask=qm.to(device), dmask=dm.to(device))
        assert torch.equal(idx.cpu(), idx32.cpu())
        assert (idx[0, :, 1] == -1).all() and (idx[:, -1] == -1).all()
    X, Y = torch.randn(2, 4, 3, generator=gen, dtype=F64), torch.randn(2, 6, 3, generator=gen, dtype=F64)
    ylen = torch.tensor([6, 0])
    out, idx = chamfer_point.forward_with_indices(X.to(device), Y.to(device), ylen=ylen.to(device))
    assert out.dtype == F64 and idx.dtype == torch.int32 and idx.shape == (2, 4)
    assert torch.equal(idx[0].cpu().long(), torch.cdist(X[0], Y[0]).argmin(-1)) and (idx[1] == -1).all()


def test_chunked_equals_whole(compiled, monkeypatch):
    """Chunks of the reference (small _CHUNK_BYTES) give the same values and gradients."""
    gen = torch.Generator().manual_seed(7)
    op = compiled["maxsim"]
    Q, D = _randn(gen, 6, 3, 4), _randn(gen, 5, 4, 4)
    whole = op(Q, D)
    gQ, gD = torch.autograd.grad(whole.sum(), (Q, D))
    monkeypatch.setattr(reference, "_CHUNK_BYTES", 64)
    chunked = op(Q, D)
    assert torch.allclose(whole, chunked, rtol=1e-12, atol=1e-12)  # (einsum's blocking may round apart)
    for a, b in zip((gQ, gD), torch.autograd.grad(chunked.sum(), (Q, D))):
        assert torch.allclose(a, b, rtol=1e-12, atol=1e-12)


def test_mixed_float64_and_float32_is_refused(compiled):
    gen = torch.Generator().manual_seed(8)
    Q, D = torch.randn(2, 3, 4, generator=gen, dtype=F64), torch.randn(3, 5, 4, generator=gen)
    P, R = torch.randn(2, 5, 3, generator=gen), torch.randn(2, 6, 3, generator=gen, dtype=F64)
    H, W = torch.randn(2, 5, 6, generator=gen, dtype=F64), torch.randn(7, 6, generator=gen, dtype=F64)
    cases = [
        (lambda: compiled["maxsim"](Q, D), "'D'"),
        (lambda: maxsim.apply(Q, D), "'D'"),
        (lambda: maxsim.forward_with_indices(Q, D), "'D'"),
        (lambda: compiled["hausdorff"](P, R), "'R'"),
        (lambda: chamfer_point.apply(P, R), "'Y'"),
        (lambda: chamfer_point.both_ways(R, P), "'Y'"),
        (lambda: splade.apply(H, W, bias=torch.zeros(7)), "'bias'"),
    ]
    for call, name in cases:
        with pytest.raises(TensorError) as err:
            call()
        assert name in str(err.value) and "float64" in str(err.value), str(err.value)


def test_backward_value_still_checked():
    Q, D = torch.randn(2, 3, 4, dtype=F64), torch.randn(3, 5, 4, dtype=F64)
    with pytest.raises(TensorError, match="backward"):
        maxsim.apply(Q, D, backward="fast")


def test_kernel_entry_points_refuse_float64_with_a_hint():
    """The kernels never take float64: their custom op says where float64 goes."""
    Q, D = torch.randn(2, 3, 4, dtype=F64), torch.randn(3, 5, 4, dtype=F64)
    with pytest.raises(TensorError, match="reference evaluator"):
        maxsim.score_op(Q, D, None, None, False, "auto")


def test_front_ends_pass_float64_through():
    from hsr.ops import pylate
    from hsr.ops.retrieval import maxsim_topk

    gen = torch.Generator().manual_seed(9)
    Q, D = torch.randn(2, 3, 4, generator=gen, dtype=F64), torch.randn(5, 4, 4, generator=gen, dtype=F64)
    want = torch.einsum("isd,jtd->ijst", Q, D).amax(-1).sum(-1)
    scores = pylate.colbert_scores(Q, D)
    assert scores.dtype == F64 and torch.allclose(scores, want, rtol=1e-12, atol=1e-12)
    top, idx = maxsim_topk(Q, D, 3, block_size=2)
    assert torch.equal(idx, want.float().sort(dim=1, descending=True, stable=True).indices[:, :3])


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("per_query", [False, True])
def test_gradcheck_through_the_maxsim_front_end(device, normalize, per_query):
    """hsr.ops.maxsim, in-batch and per-query candidates, plain and cosine."""
    g = torch.Generator().manual_seed(21)
    Q = torch.randn(2, 3, 5, generator=g, dtype=F64).to(device).requires_grad_()
    shape = (2, 2, 4, 5) if per_query else (3, 4, 5)
    D = torch.randn(shape, generator=g, dtype=F64).to(device).requires_grad_()
    from hsr.ops import maxsim as maxsim_op
    assert maxsim_op(Q, D, normalize=normalize).dtype == F64
    assert torch.autograd.gradcheck(lambda q, d: maxsim_op(q, d, normalize=normalize), (Q, D))


@pytest.mark.parametrize("norm", [1, 2])
def test_gradcheck_through_the_chamfer_front_end(device, norm):
    """hsr.ops.chamfer_distance (both directions, ragged lengths), squared L2 and L1."""
    from hsr.ops import chamfer_distance
    g = torch.Generator().manual_seed(22)
    x = torch.randn(2, 6, 3, generator=g, dtype=F64).to(device).requires_grad_()
    y = torch.randn(2, 5, 3, generator=g, dtype=F64).to(device).requires_grad_()
    lengths = torch.tensor([6, 4]).to(device)
    fn = lambda a, b: chamfer_distance(a, b, x_lengths=lengths, norm=norm)  # noqa: E731
    assert fn(x, y).dtype == F64
    assert torch.autograd.gradcheck(fn, (x, y))


def test_gradcheck_through_the_splade_front_end(device):
    g = torch.Generator().manual_seed(23)
    H = torch.randn(2, 5, 4, generator=g, dtype=F64).to(device).requires_grad_()
    W = torch.randn(7, 4, generator=g, dtype=F64).to(device).requires_grad_()
    b = torch.randn(7, generator=g, dtype=F64).to(device).requires_grad_()
    assert torch.autograd.gradcheck(lambda h, w, c: splade_max(h, w, c), (H, W, b))
