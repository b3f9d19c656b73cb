"""MaxSim kernels against the float64 reference evaluator, through the
Triton interpreter here (and on CUDA with HSR_TEST_DEVICE=cuda)."""

from pathlib import Path

import pytest
import torch
from hypothesis import given, strategies as st

import hsr
from hsr.errors import TensorError
from hsr.ops import maxsim

OPS = Path(__file__).resolve().parent.parent / "ops"
DTYPES = [torch.float32, torch.float16, torch.bfloat16]


@pytest.fixture(scope="module")
def specs():
    return {name: hsr.compile(OPS / f"{name}.hsr") for name in ("maxsim", "maxsim_kd", "maxsim_cos")}


def _ints(shape, gen, dtype, lo=-3, hi=3):
    """Small integers: exact in every dtype, so dot products and ties are exact too."""
    return torch.randint(lo, hi + 1, shape, generator=gen).to(dtype)


def _mask(shape, gen, p_keep, empty_rows=0):
    m = torch.rand(shape, generator=gen) < p_keep
    for r in range(min(empty_rows, shape[0])):
        m[r] = False
    return m


def _aligned(indices, axes, want):
    (idx, idx_axes), = indices.values()
    return idx.permute(*[idx_axes.index(a) for a in want])


shapes = st.fixed_dictionaries({
    "nq": st.integers(1, 3), "nd": st.integers(1, 3),
    "lq": st.integers(1, 40), "ld": st.integers(1, 90),
    "d": st.sampled_from([8, 13, 16, 31, 64, 100, 128, 200, 256]),
    "dtype": st.sampled_from(DTYPES), "seed": st.integers(0, 2**31 - 1),
    "qmask": st.booleans(), "dmask": st.booleans(),
})


@given(shapes)
def test_values_and_indices_match_the_reference(specs, device, case):
    gen = torch.Generator().manual_seed(case["seed"])
    nq, nd, lq, ld, d, dt = (case[k] for k in ("nq", "nd", "lq", "ld", "d", "dtype"))
    Q, D = _ints((nq, lq, d), gen, dt), _ints((nd, ld, d), gen, dt)
    qm = _mask((nq, lq), gen, 0.7) if case["qmask"] else None
    dm = _mask((nd, ld), gen, 0.6, empty_rows=1) if case["dmask"] else None
    ref, indices = specs["maxsim"].reference(Q, D, qm, dm, return_indices=True)
    out, idx = specs["maxsim"].forward_with_indices(*(x if x is None else x.to(device) for x in (Q, D, qm, dm)))
    assert torch.equal(out.cpu().double(), ref)  # integer data: exact
    plain = specs["maxsim"](*(x if x is None else x.to(device) for x in (Q, D, qm, dm)))  # no index path
    assert torch.equal(plain.cpu().double(), ref)
    ref_idx = _aligned(indices, None, ("i", "j", "s"))
    kept = torch.ones(nq, nd, lq, dtype=torch.bool) if qm is None else qm[:, None, :].expand(nq, nd, lq)
    assert torch.equal(idx.cpu()[kept], ref_idx[kept].int())  # lowest index wins every tie
    assert (idx.cpu()[~kept] == -1).all()


@given(shapes, st.booleans())
def test_gradients_match_the_reference(specs, device, case, normalize):
    gen = torch.Generator().manual_seed(case["seed"])
    nq, nd, lq, ld, d, dt = (case[k] for k in ("nq", "nd", "lq", "ld", "d", "dtype"))
    Q, D = _ints((nq, lq, d), gen, dt), _ints((nd, ld, d), gen, dt)
    if normalize:  # random floats: cosine ties between different integer rows are too likely
        Q, D = torch.randn(Q.shape, generator=gen).to(dt), torch.randn(D.shape, generator=gen).to(dt)
    qm = _mask((nq, lq), gen, 0.7) if case["qmask"] else None
    dm = _mask((nd, ld), gen, 0.6, empty_rows=1) if case["dmask"] else None
    grad = torch.randn(nq, nd, generator=gen)

    Qk = Q.clone().to(device).requires_grad_()
    Dk = D.clone().to(device).requires_grad_()
    out = maxsim(Qk, Dk, qm if qm is None else qm.to(device), dm if dm is None else dm.to(device),
                 normalize=normalize)
    out.backward(grad.to(device))

    spec = specs["maxsim_cos" if normalize else "maxsim"]
    Qr, Dr = Q.double().requires_grad_(), D.double().requires_grad_()
    ref = spec.reference(Qr, Dr, qm, dm)
    ref.backward(grad.double())
    tol = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 2e-2}[dt]
    scale = lambda t: max(t.abs().max().item(), 1.0)
    assert Qk.grad.dtype == dt and Dk.grad.dtype == dt
    assert (out.cpu().double() - ref.detach()).abs().max() <= tol * scale(ref) * (1 + lq / 8)
    if not normalize or dt == torch.float32:  # low-precision cosine may pick a near-tied winner
        assert (Qk.grad.cpu().double() - Qr.grad).abs().max() <= tol * scale(Qr.grad) * 4
        assert (Dk.grad.cpu().double() - Dr.grad).abs().max() <= tol * scale(Dr.grad) * 4


@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 33), st.integers(1, 70),
       st.sampled_from([8, 24, 64, 130]), st.sampled_from(DTYPES), st.integers(0, 2**31 - 1))
def test_per_query_candidates(specs, device, nq, k, lq, ld, d, dt, seed):
    gen = torch.Generator().manual_seed(seed)
    Q, D = _ints((nq, lq, d), gen, dt), _ints((nq, k, ld, d), gen, dt)
    dm = _mask((nq, k, ld), gen, 0.6)
    dm[0, 0] = False  # a candidate with no real token
    grad = torch.randn(nq, k, generator=gen)
    Qk, Dk = Q.clone().to(device).requires_grad_(), D.clone().to(device).requires_grad_()
    out = maxsim(Qk, Dk, d_mask=dm.to(device))
    out.backward(grad.to(device))
    Qr, Dr = Q.double().requires_grad_(), D.double().requires_grad_()
    ref = specs["maxsim_kd"].reference(Qr, Dr, dmask=dm)
    ref.backward(grad.double())
    assert out.shape == (nq, k)
    assert torch.equal(out.cpu().double(), ref.detach())
    assert out[0, 0].item() == 0.0
    tol = {torch.float32: 1e-5, torch.float16: 1e-2, torch.bfloat16: 2e-2}[dt]
    assert torch.allclose(Qk.grad.cpu().double(), Qr.grad, rtol=tol, atol=tol * 4)
    assert torch.allclose(Dk.grad.cpu().double(), Dr.grad, rtol=tol, atol=tol * 4)
    assert (Dk.grad[0, 0] == 0).all()


def test_random_floats_fp32(specs, device):
    gen = torch.Generator().manual_seed(3)
    Q, D = torch.randn(2, 37, 96, generator=gen), torch.randn(3, 129, 96, generator=gen)
    out = maxsim(Q.to(device), D.to(device)).cpu()
    ref = specs["maxsim"].reference(Q, D)
    assert torch.allclose(out.double(), ref, rtol=1e-5, atol=1e-4)


def test_one_query_drops_the_leading_axis(device):
    gen = torch.Generator().manual_seed(4)
    Q, D = _ints((5, 16), gen, torch.float32), _ints((4, 9, 16), gen, torch.float32)
    out = maxsim(Q.to(device), D.to(device))
    assert out.shape == (4,)
    assert torch.equal(out.cpu(), maxsim(Q[None].to(device), D.to(device))[0].cpu())


def test_all_masked_document_scores_zero_and_passes_no_gradient(device):
    gen = torch.Generator().manual_seed(5)
    Q = torch.randn(2, 7, 32, generator=gen).to(device).requires_grad_()
    D = torch.randn(3, 11, 32, generator=gen).to(device).requires_grad_()
    dm = torch.ones(3, 11, dtype=torch.bool)
    dm[1] = False
    out = maxsim(Q, D, d_mask=dm.to(device))
    assert (out[:, 1] == 0).all()
    out[:, 1].sum().backward()
    assert (Q.grad == 0).all() and (D.grad == 0).all()


def test_masked_query_tokens_leave_the_sum(device):
    gen = torch.Generator().manual_seed(6)
    Q, D = torch.randn(1, 6, 16, generator=gen), torch.randn(2, 5, 16, generator=gen)
    qm = torch.tensor([[True, False, True, False, False, True]])
    out = maxsim(Q.to(device), D.to(device), q_mask=qm.to(device)).cpu()
    kept = maxsim(Q[:, qm[0]].to(device), D.to(device)).cpu()
    assert torch.allclose(out, kept, atol=1e-5)


def test_non_contiguous_inputs(specs, device):
    gen = torch.Generator().manual_seed(7)
    Qt = torch.randn(40, 3, 2, generator=gen).to(device)   # [d, s, i] transposed below
    Dbig = torch.randn(4, 30, 80, generator=gen).to(device)
    Q = Qt.permute(2, 1, 0)            # [2, 3, 40], strides reversed
    D = Dbig[:, ::2, :40]              # [4, 15, 40], a strided slice
    out = maxsim(Q, D).cpu()
    ref = specs["maxsim"].reference(Q.cpu(), D.cpu())
    assert not Q.is_contiguous() and not D.is_contiguous()
    assert torch.allclose(out.double(), ref, rtol=1e-5, atol=1e-4)
    broadcast = maxsim(Q[:1].expand(2, 3, 40), D)   # stride 0
    assert torch.allclose(broadcast[0], broadcast[1])


def test_nan_propagates(specs, device):
    Q, D = torch.randn(2, 3, 16), torch.randn(2, 70, 16)
    D[1, 2, 5] = float("nan")
    D[1, 66, 0] = float("nan")
    out = maxsim(Q.to(device), D.to(device)).cpu()
    assert torch.isnan(out[:, 1]).all() and not torch.isnan(out[:, 0]).any()
    trained, idx = specs["maxsim"].forward_with_indices(Q.to(device), D.to(device))  # the index path
    assert torch.isnan(trained.cpu()[:, 1]).all() and not torch.isnan(trained.cpu()[:, 0]).any()
    assert (idx.cpu()[:, 1] == 2).all()  # the first NaN is selected, as torch.max does


def test_cpu_without_interpreter_uses_the_reference(specs, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    gen = torch.Generator().manual_seed(8)
    Q, D = torch.randn(2, 5, 8, generator=gen), torch.randn(3, 6, 8, generator=gen)
    out = maxsim(Q, D)
    assert out.dtype == torch.float32
    assert torch.allclose(out.double(), specs["maxsim"].reference(Q, D), atol=1e-5)


@pytest.mark.parametrize("q_shape, d_shape, kwargs, words", [
    ((2, 5, 8), (3, 6, 9), {}, ["'d'", "size 9", "size 8"]),
    ((2, 5, 8, 1), (3, 6, 8), {}, ["Q must be"]),
    ((2, 5, 8), (2, 3, 6, 8, 1), {}, ["D must be"]),
    ((2, 5, 8), (3, 6, 8), {"q_mask": torch.ones(2, 4, dtype=torch.bool)}, ["'s'", "qmask"]),
    ((2, 5, 8), (3, 6, 8), {"d_mask": torch.ones(3, 6, 2, dtype=torch.bool)}, ["dmask", "2 axes"]),
])
def test_bad_tensors_name_the_argument_and_axis(q_shape, d_shape, kwargs, words):
    with pytest.raises(TensorError) as err:
        maxsim(torch.randn(q_shape), torch.randn(d_shape), **kwargs)
    for word in words:
        assert word in str(err.value)


def test_mixed_dtypes_are_refused():
    with pytest.raises(TensorError, match="share one dtype"):
        maxsim(torch.randn(1, 2, 8), torch.randn(1, 2, 8).half())
    with pytest.raises(TensorError, match="share one dtype"):
        maxsim(torch.randn(1, 2, 8).double(), torch.randn(1, 2, 8))


@given(shapes, st.booleans())
def test_every_backward_matches_the_reference(specs, device, backward, case, normalize):
    gen = torch.Generator().manual_seed(case["seed"])
    nq, nd, lq, ld, d, dt = (case[k] for k in ("nq", "nd", "lq", "ld", "d", "dtype"))
    if normalize:
        Q, D = torch.randn(nq, lq, d, generator=gen).to(dt), torch.randn(nd, ld, d, generator=gen).to(dt)
    else:
        Q, D = _ints((nq, lq, d), gen, dt), _ints((nd, ld, d), gen, dt, lo=-1, hi=1)  # many ties
    qm = _mask((nq, lq), gen, 0.7) if case["qmask"] else None
    dm = _mask((nd, ld), gen, 0.6, empty_rows=1) if case["dmask"] else None
    grad = torch.randn(nq, nd, generator=gen)
    Qk, Dk = Q.clone().to(device).requires_grad_(), D.clone().to(device).requires_grad_()
    maxsim(Qk, Dk, qm if qm is None else qm.to(device), dm if dm is None else dm.to(device),
           normalize=normalize, backward=backward).backward(grad.to(device))
    Qr, Dr = Q.double().requires_grad_(), D.double().requires_grad_()
    specs["maxsim_cos" if normalize else "maxsim"].reference(Qr, Dr, qm, dm).backward(grad.double())
    tol = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 2e-2}[dt]
    if normalize and dt != torch.float32:
        return  # near-tied cosine winners in low precision: covered by the fp32 case
    for mine, ref in ((Qk.grad, Qr.grad), (Dk.grad, Dr.grad)):
        assert mine.dtype == dt
        assert (mine.cpu().double() - ref).abs().max() <= tol * max(ref.abs().max().item(), 1.0) * 4


def test_hot_and_empty_buckets(device, scatter):
    """Every query token picks document token 0 (one hot row), all others are empty."""
    Q = torch.ones(3, 20, 16)
    D = -torch.ones(4, 50, 16)
    D[:, 0] = 1.0
    grad = torch.randn(3, 4)
    results = []
    for backward in ("atomic", "deterministic"):
        Dk = D.clone().to(device).requires_grad_()
        maxsim(Q.to(device), Dk, backward=backward).backward(grad.to(device))
        expect = torch.zeros_like(D)
        expect[:, 0] = (grad.sum(0)[:, None] * 20.0)  # 3 queries x 20 tokens land on row 0
        assert torch.allclose(Dk.grad.cpu(), expect, atol=1e-4)
        results.append(Dk.grad.cpu())
    assert (results[1][:, 1:] == 0).all()


def test_deterministic_backward_is_bitwise_reproducible(device, scatter):
    gen = torch.Generator().manual_seed(11)
    Q, D = torch.randn(4, 24, 32, generator=gen), torch.randn(5, 40, 32, generator=gen)
    grads = []
    for _ in range(3):
        Dk = D.clone().to(device).requires_grad_()
        maxsim(Q.to(device), Dk, backward="deterministic").sum().backward()
        grads.append(Dk.grad.cpu())
    assert all(torch.equal(grads[0], g) for g in grads[1:])


def test_unknown_backward_is_refused():
    with pytest.raises(TensorError, match="backward must be one of"):
        maxsim(torch.randn(1, 2, 8), torch.randn(1, 2, 8), backward="fast")


# -- issue 7: tensor errors, layouts and gradients through the front end ----------------------------

def _t(*shape, dtype=torch.float32, device="cpu"):
    return torch.randn(shape).to(dtype).to(device) if dtype.is_floating_point else torch.ones(shape, dtype=dtype,
                                                                                            device=device)


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("args, kwargs, words", [
    ((_t(2, 5, 8, dtype=torch.int32), _t(3, 6, 8, dtype=torch.int32)), {}, ["'Q'", "float tensor", "int32"]),
    ((_t(2, 5, 8), _t(3, 6, 8, dtype=torch.int64)), {}, ["'D'", "float tensor", "int64"]),
    ((_t(2, 5, 8, dtype=torch.float64), _t(3, 6, 8)), {}, ["'D'", "float32", "float64"]),
    ((_t(2, 5, 8), _t(3, 6, 8, device="meta")), {}, ["'D' is on meta", "cpu"]),
    ((_t(2, 5, 8), _t(3, 6, 8)), {"d_mask": _t(3, 6, dtype=torch.bool, device="meta")}, ["'dmask' is on meta"]),
    ((_t(2, 5, 8), _t(3, 6, 8)), {"q_mask": _t(2, 5, dtype=torch.bool, device="meta")}, ["'qmask' is on meta"]),
    ((_t(2, 5, 8), _t(3, 6, 8)), {"d_mask": _t(6, 3, dtype=torch.bool)}, ["'dmask'", "axis 'j'", "size 6"]),
    ((_t(2, 5, 8), _t(2, 4, 6, 8)), {"d_mask": _t(2, 6, dtype=torch.bool)}, ["'dmask'", "3 axes [i, k, t]"]),
    ((_t(2, 5, 8), _t(2, 4, 6, 8)), {"d_mask": _t(2, 4, 7, dtype=torch.bool)}, ["'dmask'", "axis 't'", "size 7"]),
    ((_t(2, 5, 8), _t(3, 4, 6, 8)), {}, ["axis 'i'", "'D'", "size 3", "size 2"]),
    ((_t(2, 5, 8), _t(2, 4, 6, 9)), {}, ["axis 'd'", "'D'", "size 9", "size 8"]),
    ((_t(5, 8), _t(3, 6, 8)), {"q_mask": _t(1, 5, dtype=torch.bool)}, ["q_mask", "one-query", "[Lq]", "(1, 5)"]),
    ((_t(5, 8), _t(3, 6, 8)), {"q_mask": _t(4, dtype=torch.bool)}, ["'qmask'", "axis 's'", "size 4"]),
    ((_t(2, 5, 8), _t(3, 6, 8)), {"q_mask": _t(2, 5, dtype=torch.complex64)}, ["q_mask", "bool", "complex64"]),
    ((_t(2, 5, 8), _t(3, 6, 8)), {"d_mask": [[True] * 6] * 3}, ["'dmask'", "torch.Tensor", "list"]),
    ((_t(2, 5, 8), [[0.0] * 8] * 6), {}, ["Q and D must be torch.Tensors"]),
], ids=["int", "int-D", "float64", "meta-D", "meta-dmask", "meta-qmask", "dmask-size", "kd-dmask-rank",
        "kd-dmask-size", "kd-Nq", "d", "one-query-mask-rank", "one-query-mask-size", "complex-mask", "list-mask",
        "list-D"])
def test_front_end_errors_name_the_argument_before_any_kernel(monkeypatch, args, kwargs, words, normalize):
    from hsr_subjects import forbid_kernels
    forbid_kernels(monkeypatch)
    with pytest.raises(TensorError) as err:
        maxsim(*args, **kwargs, normalize=normalize)
    assert isinstance(err.value, ValueError)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_float_and_integer_masks_read_as_nonzero(device):
    gen = torch.Generator().manual_seed(21)
    Q, D = torch.randn(2, 5, 8, generator=gen).to(device), torch.randn(3, 6, 8, generator=gen).to(device)
    qm, dm = torch.rand(2, 5, generator=gen) < 0.6, torch.rand(3, 6, generator=gen) < 0.6
    want = maxsim(Q, D, qm.to(device), dm.to(device))
    for dtype in (torch.float32, torch.float16, torch.int64, torch.uint8):
        got = maxsim(Q, D, qm.to(dtype).to(device), (dm.to(dtype) * 3).to(device))
        assert torch.equal(got, want), dtype


@pytest.mark.parametrize("per_query", [False, True])
@pytest.mark.parametrize("normalize", [False, True])
def test_strided_and_broadcast_inputs_values_and_gradients(specs, device, per_query, normalize, backward):
    """Q transposed in memory, D a strided slice of a bigger tensor (NaN in the
    gaps), masks expanded with stride 0, and a query expanded from one row:
    the reference's values, and the leaves' gradients (the expanded leaf's
    is the sum over the copies, as autograd gives)."""
    gen = torch.Generator().manual_seed(22)
    nq, lq, d = 3, 5, 16
    d_shape = (nq, 2, 7, d) if per_query else (4, 7, d)
    q_base = torch.randn(1, lq, d, generator=gen)                               # one query, expanded to nq
    d_big = torch.full([2 * n for n in d_shape], float("nan"))
    d_big[(slice(None, None, 2),) * len(d_shape)] = torch.randn(d_shape, generator=gen)
    qm = torch.rand(1, lq, generator=gen) < 0.8
    qm[0, 0] = True
    dm = torch.rand(d_shape[-2], generator=gen) < 0.7                          # one mask row, every document
    dm[0] = True

    def run(q_leaf, d_leaf, fn, **kw):
        Q = q_leaf.permute(2, 1, 0).permute(2, 1, 0).expand(nq, lq, d)          # stride 0 on axis i
        D = d_leaf[(slice(None, None, 2),) * len(d_shape)]
        on = q_leaf.device                                                      # masks where the inputs are
        return fn(Q, D, qm.to(on).expand(nq, lq), dm.to(on).expand(d_shape[:-1]), **kw)

    q_leaf = q_base.permute(2, 1, 0).contiguous().permute(2, 1, 0).to(device).requires_grad_()
    d_leaf = d_big.clone().to(device).requires_grad_()
    out = run(q_leaf, d_leaf, lambda *a, **k: maxsim(*a, **k, normalize=normalize, backward=backward))
    spec = hsr.compile(OPS / f"maxsim{'_kd' if per_query else ''}{'_cos' if normalize else ''}.hsr")
    q_ref, d_ref = q_base.double().requires_grad_(), torch.nan_to_num(d_big, nan=0.0).double().requires_grad_()
    ref = run(q_ref, d_ref, lambda *a: spec.reference(*a))
    assert torch.allclose(out.detach().cpu().double(), ref.detach(), rtol=1e-4, atol=1e-4)
    weights = torch.randn(ref.shape, generator=gen, dtype=torch.float64)
    (out.double() * weights.to(device)).sum().backward()
    (ref * weights).sum().backward()
    assert q_leaf.grad.shape == (1, lq, d)
    assert torch.allclose(q_leaf.grad.cpu().double(), q_ref.grad, rtol=1e-4, atol=1e-4)
    assert torch.allclose(d_leaf.grad.cpu().double(), d_ref.grad, rtol=1e-4, atol=1e-4)  # 0 in the gaps


@pytest.mark.parametrize("normalize", [False, True])
def test_a_1d_q_mask_is_shared_by_every_query(device, normalize):
    """q_mask [Lq] with Q [Nq, Lq, d] masks the same tokens of every query, as a
    1-D d_mask does for every document: the same scores and gradients as the
    mask repeated [Nq, Lq]; a 1-D mask of another length names its axis."""
    gen = torch.Generator().manual_seed(41)
    Q, D = _ints((3, 5, 16), gen, torch.float32), _ints((2, 6, 16), gen, torch.float32)
    qm = torch.tensor([True, False, True, True, False])
    outs = []
    for mask in (qm, qm.expand(3, 5).clone(), qm.to(torch.int64)):
        q = Q.to(device).requires_grad_()
        out = maxsim(q, D.to(device), q_mask=mask.to(device), normalize=normalize)
        out.sum().backward()
        outs.append((out.detach().cpu(), q.grad.cpu()))
    assert outs[0][0].shape == (3, 2)
    for out, grad in outs[1:]:
        assert torch.equal(out, outs[0][0]) and torch.equal(grad, outs[0][1])
    assert (outs[0][1][:, ~qm] == 0).all()  # masked tokens pass no gradient
    with pytest.raises(TensorError, match="axis 's' of 'qmask'"):
        maxsim(Q, D, q_mask=torch.ones(4, dtype=torch.bool))
