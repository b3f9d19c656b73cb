"""MaxSim on a real GPU: the generated Triton kernels against a float64 reference.

Every test here is marked ``gpu``: the conftest skips them where CUDA is absent,
and they skip themselves under TRITON_INTERPRET (run them with
``HSR_TEST_DEVICE=cuda python3 -m pytest -m gpu tests/test_gpu.py``).

Two kinds of input:

* integer-valued tensors in [-3, 3] (and integer upstream gradients): every
  product and every fp32 sum is exact in fp16, bf16 and fp32, so scores,
  selected indices (lowest index wins a tie) and gradients must match the
  float64 reference exactly -- gradients after the same single rounding to the
  input dtype;
* random normal tensors: values within 1e-4 relative (fp32) or 1e-2 (fp16,
  bf16); gradients are checked against the reference evaluated at the
  kernel's own selection, after checking that selection is a true maximum
  (within fp32 rounding), so that a near-tie cannot make the test flaky.

Shapes are kept small, and most have Lq <= 16 so that the autotuner keeps one
config (each config is a Triton compile): the file should run in well under
two minutes on an H100.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from hsr import runtime
from hsr.ops import maxsim

OPS = Path(__file__).resolve().parent.parent / "ops"
DTYPES = [torch.float16, torch.bfloat16, torch.float32]
DT_IDS = ["fp16", "bf16", "fp32"]

_SKIP = ("needs a CUDA device (run on the GPU machine)" if not torch.cuda.is_available()
         else "TRITON_INTERPRET is set: run with HSR_TEST_DEVICE=cuda" if runtime.interpreting() else None)
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")]

CUDA = "cuda"


# --------------------------------------------------------------------------- helpers

def _gen(seed):
    return torch.Generator().manual_seed(seed)


def _ints(shape, gen, dtype, lo=-3, hi=3):
    """Small integers: exact in every dtype, so products, fp32 sums and ties are exact."""
    return torch.randint(lo, hi + 1, shape, generator=gen).to(dtype)


def _randn(shape, gen, dtype):
    return torch.randn(shape, generator=gen).to(dtype)


def _mask(shape, gen, p_keep):
    return torch.rand(shape, generator=gen) < p_keep


def _rel(a, b):
    a, b = a.double().cpu(), b.double().cpu()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def _poison():
    """Fill blocks of the caching allocator with NaN, so that an output the
    kernels leave unwritten (they allocate with torch.empty) shows as NaN."""
    blocks = [torch.full((1 << 17,), float("nan"), device=CUDA) for _ in range(32)]  # small pool
    blocks += [torch.full((1 << 22,), float("nan"), device=CUDA) for _ in range(4)]  # large pool
    del blocks


def _sync():
    if torch.device(CUDA).type == "cuda":
        torch.cuda.synchronize()


def _cuda(x):
    return None if x is None else x.to(CUDA)


def reference(Q, D, qmask=None, dmask=None, normalize=False, sel=None):
    """float64 MaxSim on the CPU: (scores, selection).

    Q [Nq, Lq, d]; D [Nd, Ld, d] (in-batch) or [Nq, K, Ld, d] (per query).
    The selection [Nq, Nd|K, Lq] is the first maximal document token (the
    lowest index wins a tie), -1 where the query token is masked or the
    document has no real token. With ``sel`` given, that selection is used
    instead of the argmax (to differentiate at the kernel's choice).
    Differentiable in Q and D (float64 leaves).
    """
    kd = D.dim() == 4
    if normalize:
        Q = Q / Q.norm(dim=-1, keepdim=True).clamp_min(1e-12)
        D = D / D.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    S = torch.einsum("isd,iktd->ikst", Q, D) if kd else torch.einsum("isd,jtd->ijst", Q, D)
    nq, nj, lq, ld = S.shape
    if dmask is None:
        t_ok = torch.ones(1, 1, 1, ld, dtype=torch.bool)
    elif kd:
        t_ok = dmask[:, :, None, :]
    else:
        t_ok = dmask[None, :, None, :]
    s_ok = torch.ones(nq, 1, lq, dtype=torch.bool) if qmask is None else qmask[:, None, :]
    key = S.detach().masked_fill(~t_ok, float("-inf"))
    idx = key.argmax(-1) if sel is None else sel.long().clamp_min(0)  # argmax: first maximum
    chosen = S.gather(-1, idx.unsqueeze(-1)).squeeze(-1)
    picked = t_ok.any(-1) & s_ok
    score = torch.where(picked, chosen, torch.zeros((), dtype=S.dtype)).sum(-1)
    return score, torch.where(picked, idx, torch.full_like(idx, -1))


def _module(kd, normalize):
    from hsr.generated import maxsim as m, maxsim_cos as mc, maxsim_kd as mk, maxsim_kd_cos as mkc
    return {(False, False): m, (False, True): mc, (True, False): mk, (True, True): mkc}[(kd, normalize)]


def run_kernel(Q, D, qmask, dmask, normalize, grad):
    """maxsim on CUDA with autograd: (out, Q.grad, D.grad), all on the CPU."""
    Qc = Q.detach().to(CUDA, copy=True).requires_grad_()
    Dc = D.detach().to(CUDA, copy=True).requires_grad_()
    _poison()
    out = maxsim(Qc, Dc, _cuda(qmask), _cuda(dmask), normalize=normalize)
    _poison()
    out.backward(grad.to(CUDA))
    _sync()
    assert out.dtype == torch.float32
    assert Qc.grad.dtype == Q.dtype and Dc.grad.dtype == D.dtype
    return out.detach().cpu(), Qc.grad.cpu(), Dc.grad.cpu()


def run_reference(Q, D, qmask, dmask, normalize, grad, sel=None):
    """float64 reference with autograd: (out, Q.grad, D.grad, selection)."""
    Q64 = Q.detach().to(torch.float64, copy=True).requires_grad_()
    D64 = D.detach().to(torch.float64, copy=True).requires_grad_()
    out, idx = reference(Q64, D64, qmask, dmask, normalize, sel)
    out.backward(grad.double())
    return out.detach(), Q64.grad, D64.grad, idx


def kernel_selection(Q, D, qmask, dmask, normalize):
    """The kernel's selected document token per (query, document, query token)."""
    mod = _module(D.dim() == 4, normalize)
    _poison()
    out, idx = mod.forward_with_indices(Q.to(CUDA), D.to(CUDA), qmask=_cuda(qmask), dmask=_cuda(dmask))
    return out.cpu(), idx.cpu().long()


def check_exact(Q, D, qmask=None, dmask=None, seed=0):
    """Integer inputs: values, selection and gradients equal the reference exactly."""
    nq, nj = Q.shape[0], D.shape[1] if D.dim() == 4 else D.shape[0]
    grad = _ints((nq, nj), _gen(seed + 7), torch.float32, -2, 2)
    out, gQ, gD = run_kernel(Q, D, qmask, dmask, False, grad)
    ref, rQ, rD, ref_idx = run_reference(Q, D, qmask, dmask, False, grad)
    assert torch.equal(out.double(), ref), f"max |diff| {(out.double() - ref).abs().max().item()}"
    assert torch.equal(gQ, rQ.to(Q.dtype)), f"Q.grad: max |diff| {(gQ.double() - rQ).abs().max().item()}"
    assert torch.equal(gD, rD.to(D.dtype)), f"D.grad: max |diff| {(gD.double() - rD).abs().max().item()}"
    out2, idx = kernel_selection(Q, D, qmask, dmask, False)
    assert torch.equal(out2.double(), ref)
    assert torch.equal(idx, ref_idx), "selected indices differ (lowest index must win ties)"
    return out, gQ, gD


def check_random(Q, D, qmask=None, dmask=None, normalize=False, seed=0):
    """Random inputs: values within tolerance; gradients at the kernel's own
    selection, after checking that selection is a maximum to fp32 rounding."""
    tol = 1e-4 if Q.dtype == torch.float32 else 1e-2
    nq, nj = Q.shape[0], D.shape[1] if D.dim() == 4 else D.shape[0]
    grad = torch.randn((nq, nj), generator=_gen(seed + 11))
    out, gQ, gD = run_kernel(Q, D, qmask, dmask, normalize, grad)
    assert torch.isfinite(out).all() and torch.isfinite(gQ).all() and torch.isfinite(gD).all()
    ref, _, _, ref_idx = run_reference(Q, D, qmask, dmask, normalize, grad)
    assert _rel(out, ref) < tol, f"values: rel err {_rel(out, ref):.3e}"

    _, sel = kernel_selection(Q, D, qmask, dmask, normalize)
    assert torch.equal(sel >= 0, ref_idx >= 0), "a different set of (query token, document) pairs selected"
    # The kernel's choice must score within rounding of the true maximum.
    Q64, D64 = Q.double(), D.double()
    if normalize:
        Q64 = Q64 / Q64.norm(dim=-1, keepdim=True).clamp_min(1e-12)
        D64 = D64 / D64.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    S = torch.einsum("isd,iktd->ikst", Q64, D64) if D.dim() == 4 else torch.einsum("isd,jtd->ijst", Q64, D64)
    ok = sel >= 0
    at_sel = S.gather(-1, sel.clamp_min(0).unsqueeze(-1)).squeeze(-1)
    at_ref = S.gather(-1, ref_idx.clamp_min(0).unsqueeze(-1)).squeeze(-1)
    slack = 1e-5 * max(1.0, S.abs().max().item())
    assert (at_sel[ok] >= at_ref[ok] - slack).all(), "the kernel selected a token that is not a maximum"

    ref_k, rQ, rD, _ = run_reference(Q, D, qmask, dmask, normalize, grad, sel=sel)
    assert _rel(out, ref_k) < tol
    assert _rel(gQ, rQ) < tol, f"Q.grad: rel err {_rel(gQ, rQ):.3e}"
    assert _rel(gD, rD) < tol, f"D.grad: rel err {_rel(gD, rD):.3e}"
    return out, gQ, gD


# --------------------------------------------------------------------------- values

@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("shape", [(3, 5, 7, 77, 96), (2, 3, 40, 300, 128)], ids=["small", "multi_tile"])
def test_forward_values_random(dtype, shape):
    """Forward only (no_grad: the kernel stores no indices), random normal inputs."""
    if shape[2] > 16 and dtype == torch.bfloat16:
        pytest.skip("the multi-tile shape autotunes a full config pool; fp16 and fp32 cover it")
    nq, nd, lq, ld, d = shape
    g = _gen(sum(shape) + DTYPES.index(dtype))
    Q, D = _randn((nq, lq, d), g, dtype), _randn((nd, ld, d), g, dtype)
    _poison()
    with torch.no_grad():
        out = maxsim(Q.to(CUDA), D.to(CUDA))
    _sync()
    assert out.shape == (nq, nd) and out.dtype == torch.float32
    ref, _ = reference(Q.double(), D.double())
    tol = 1e-4 if dtype == torch.float32 else 1e-2
    err = _rel(out, ref)
    assert err < tol, f"rel err {err:.3e}"


def test_fp32_uses_ieee_dot():
    """fp32 inputs must not go through tf32: D carries 10 fractional bits (12
    significant), which tf32's 11 cannot hold, while every product and fp32
    sum stays exact. An IEEE dot then matches the float64 reference exactly."""
    g = _gen(5)
    nq, nd, lq, ld, d = 3, 5, 7, 77, 96
    Q = _ints((nq, lq, d), g, torch.float32)
    D = _ints((nd, ld, d), g, torch.float32) + torch.randint(0, 1024, (nd, ld, d), generator=g) / 1024.0
    with torch.no_grad():
        out = maxsim(Q.to(CUDA), D.to(CUDA))
    ref, _ = reference(Q.double(), D.double())
    assert torch.equal(out.cpu().double(), ref), f"max |diff| {(out.cpu().double() - ref).abs().max().item()} (tf32?)"


# --------------------------------------------------------------------------- exact, with gradients

@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("masks", [False, True], ids=["nomask", "masks"])
def test_in_batch_exact(dtype, masks):
    g = _gen(100 + DTYPES.index(dtype) * 2 + masks)
    nq, nd, lq, ld, d = 3, 4, 13, 77, 64
    Q, D = _ints((nq, lq, d), g, dtype), _ints((nd, ld, d), g, dtype, -1, 1)  # D in [-1, 1]: many ties
    qm = dm = None
    if masks:
        qm, dm = _mask((nq, lq), g, 0.7), _mask((nd, ld), g, 0.6)
        dm[1] = False  # a document with no real token: scores 0, passes no gradient
        qm[2] = False  # a query with no real token: scores 0 everywhere, no gradient
    out, gQ, gD = check_exact(Q, D, qm, dm, seed=1)
    if masks:
        assert (out[:, 1] == 0).all() and (gD[1] == 0).all()
        assert (out[2] == 0).all() and (gQ[2] == 0).all()
        assert (gQ[~qm] == 0).all() and (gD[~dm] == 0).all()


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
def test_per_query_kd_exact(dtype):
    """D [Nq, K, Ld, d]: each query against its own K candidates."""
    g = _gen(200 + DTYPES.index(dtype))
    nq, k, lq, ld, d = 3, 4, 11, 70, 48
    Q, D = _ints((nq, lq, d), g, dtype, -1, 1), _ints((nq, k, ld, d), g, dtype)
    qm, dm = _mask((nq, lq), g, 0.8), _mask((nq, k, ld), g, 0.6)
    dm[0, 2] = False  # an empty candidate
    out, gQ, gD = check_exact(Q, D, qm, dm, seed=2)
    assert out.shape == (nq, k)
    assert out[0, 2] == 0 and (gD[0, 2] == 0).all()


@pytest.mark.parametrize("dtype,d", [(torch.float16, 8), (torch.float16, 24), (torch.float16, 200),
                                     (torch.float16, 256), (torch.bfloat16, 8), (torch.float32, 256)],
                         ids=["fp16-8", "fp16-24", "fp16-200", "fp16-256", "bf16-8", "fp32-256"])
def test_head_dims_exact(dtype, d):
    """d from 8 to 256, padded to a power of two inside the kernel."""
    g = _gen(300 + d)
    nq, nd, lq, ld = 2, 3, 9, 45
    Q, D = _ints((nq, lq, d), g, dtype), _ints((nd, ld, d), g, dtype)
    check_exact(Q, D, None, _mask((nd, ld), g, 0.7), seed=3)


def test_multi_tile_exact():
    """Several tiles of query and document tokens (Lq 40, Ld 300): ties across
    tiles must still go to the lowest index."""
    g = _gen(400)
    nq, nd, lq, ld, d = 2, 5, 40, 300, 32
    Q, D = _ints((nq, lq, d), g, torch.float16, -1, 1), _ints((nd, ld, d), g, torch.float16, -1, 1)
    check_exact(Q, D, _mask((nq, lq), g, 0.9), _mask((nd, ld), g, 0.8), seed=4)


def test_long_documents_in_parts_exact(monkeypatch):
    """Few cells, long rows (1 query x 6 documents of 5000 tokens): the selected axis
    split in parts across programs (dispatch.column_parts) gives the whole row's
    scores and indices bit for bit, and the reference's, ties to the lowest index;
    grad D written row by selected row (dispatch.sparse_rows) is the atomics'."""
    from hsr import dispatch, kept
    g = _gen(450)
    Q, D = _ints((1, 32, 128), g, torch.float16, -1, 1), _ints((6, 5000, 128), g, torch.float16, -1, 1)
    dm = _mask((6, 5000), g, 0.8)
    dm[2, :3000] = False  # the first parts of a document keep nothing
    dm[5] = False
    assert dispatch.column_parts(6, 5000, dispatch.LEAN_BLOCKS[1], dispatch.multiprocessors(torch.device(CUDA)))[0] > 1
    got = []  # in parts and whole, one warp group's product swapped (dispatch.lean_swap) and 2-warp programs
    for min_cols, tiny in ((dispatch.PART_MIN_COLS, dispatch.LEAN_TINY_BLOCKS), (10**9, dispatch.LEAN_TINY_BLOCKS),
                           (dispatch.PART_MIN_COLS, dispatch.LEAN_TINY_MMA2_BLOCKS)):
        monkeypatch.setattr(dispatch, "PART_MIN_COLS", min_cols)
        monkeypatch.setattr(dispatch, "LEAN_TINY_BLOCKS", tiny)
        kept.forget(launches=True)
        Qg = Q.to(CUDA).requires_grad_()
        out = maxsim(Qg, D.to(CUDA), d_mask=dm.to(CUDA))
        out.sum().backward()
        got.append((out.detach().cpu(), Qg.grad.cpu()))
    assert all(torch.equal(a, b) for other in got[1:] for a, b in zip(got[0], other))
    ref, _ = reference(Q.double(), D.double(), None, dm)
    assert torch.equal(got[0][0].double(), ref)
    Q, D = Q.to(CUDA), D.to(CUDA).repeat(70, 1, 1)  # 420 x 5000 rows of 128: the sparse rows' size
    assert dispatch.auto_backward(1, 32, 5000, cells=420, width=128) == "deterministic"
    assert dispatch.deterministic_scatter(1, 32, 5000, cells=420, width=128) == "sparse"
    grads = []
    for mode in ("auto", "atomic"):
        kept.forget(launches=True)
        Dg = D.clone().requires_grad_()
        maxsim(Q, Dg, backward=mode).sum().backward()
        grads.append(Dg.grad)
    assert torch.equal(grads[0], grads[1]) and grads[0].abs().sum() > 0


def test_single_query_and_int_masks():
    """Q [Lq, d] gives [Nd]; 0/1 integer masks read as != 0."""
    g = _gen(500)
    lq, nd, ld, d = 13, 4, 77, 64
    Q, D = _ints((lq, d), g, torch.float16), _ints((nd, ld, d), g, torch.float16)
    qm, dm = _mask((lq,), g, 0.7), _mask((nd, ld), g, 0.6)
    with torch.no_grad():
        out = maxsim(Q.to(CUDA), D.to(CUDA), qm.int().to(CUDA), dm.to(torch.uint8).to(CUDA))
    ref, _ = reference(Q[None].double(), D.double(), qm[None], dm)
    assert out.shape == (nd,)
    assert torch.equal(out.cpu().double(), ref[0])


def test_strided_inputs_exact():
    """Non-contiguous Q and D (views with strides) give the same exact result."""
    g = _gen(600)
    nq, nd, lq, ld, d = 2, 3, 10, 60, 64
    Qbig = _ints((nq, 2 * lq, d), g, torch.float16)
    Dbig = _ints((nd, ld, 2 * d), g, torch.float16)
    Q, D = Qbig[:, ::2], Dbig[..., :d]
    grad = _ints((nq, nd), _gen(601), torch.float32, -2, 2)
    Qbig_c = Qbig.to(CUDA, copy=True).requires_grad_()
    Dbig_c = Dbig.to(CUDA, copy=True).requires_grad_()
    Qc, Dc = Qbig_c[:, ::2], Dbig_c[..., :d]
    assert not Qc.is_contiguous() and not Dc.is_contiguous()
    out = maxsim(Qc, Dc)
    out.backward(grad.to(CUDA))
    ref, rQ, rD, _ = run_reference(Q.contiguous(), D.contiguous(), None, None, False, grad)
    assert torch.equal(out.detach().cpu().double(), ref)
    assert torch.equal(Qbig_c.grad[:, ::2].cpu(), rQ.half()) and torch.equal(Dbig_c.grad[..., :d].cpu(), rD.half())
    assert (Qbig_c.grad[:, 1::2] == 0).all() and (Dbig_c.grad[..., d:] == 0).all()


def test_kept_launches_follow_alignment_and_shape():
    """hsr.launcher and hsr.kept reuse a compiled kernel for a launch key or call
    signature seen before: calls that alternate between 16-byte aligned and
    unaligned inputs (Triton compiles each apart) and between two shapes must each
    get their own kernel, forward and backward, whichever path launches them."""
    from hsr import kept, launcher
    kept.forget(launches=True)
    g = _gen(650)
    cases = []
    for nq, nd, lq, ld in ((2, 3, 10, 60), (3, 2, 7, 33)):
        Q, D = _ints((nq, lq, 64), g, torch.float16), _ints((nd, ld, 64), g, torch.float16)
        grad = _ints((nq, nd), _gen(651), torch.float32, -2, 2)
        ref, rQ, rD, _ = run_reference(Q, D, None, None, False, grad)
        cases.append((Q, D, grad, ref, rQ, rD))
    for k in (0, 1, 2, 3, 0, 1, 2, 3):
        Q, D, grad, ref, rQ, rD = cases[k % 2]
        shift = k // 2  # 1: both inputs one element (2 bytes) past 16-byte alignment
        Qb = torch.zeros(Q.numel() + 8, dtype=Q.dtype, device=CUDA)
        Db = torch.zeros(D.numel() + 8, dtype=D.dtype, device=CUDA)
        Qc = Qb[shift:shift + Q.numel()].view(Q.shape).copy_(Q.to(CUDA)).requires_grad_()
        Dc = Db[shift:shift + D.numel()].view(D.shape).copy_(D.to(CUDA)).requires_grad_()
        assert (Qc.data_ptr() % 16 == 0) == (shift == 0)
        _poison()  # grad_Q starts as torch.empty: every element must be written
        out = maxsim(Qc, Dc, backward="atomic" if k < 4 else "deterministic")
        out.backward(grad.to(CUDA))
        assert torch.equal(out.detach().cpu().double(), ref), f"call {k}"
        assert torch.equal(Qc.grad.cpu(), rQ.half()) and torch.equal(Dc.grad.cpu(), rD.half()), f"call {k}"
    from hsr import kept
    replays = [r for table in kept._tables for r in table.entries.values() if isinstance(r, kept.Replay)]
    assert launcher._kept or replays, "no launch was kept"


# --------------------------------------------------------------------------- random, with gradients

@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
def test_in_batch_random_grads(dtype):
    g = _gen(700 + DTYPES.index(dtype))
    nq, nd, lq, ld, d = 3, 4, 13, 77, 64
    Q, D = _randn((nq, lq, d), g, dtype), _randn((nd, ld, d), g, dtype)
    qm, dm = _mask((nq, lq), g, 0.8), _mask((nd, ld), g, 0.7)
    dm[3] = False
    out, _, gD = check_random(Q, D, qm, dm, seed=7)
    assert (out[:, 3] == 0).all() and (gD[3] == 0).all()


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("kd", [False, True], ids=["in_batch", "kd"])
def test_normalize(dtype, kd):
    """normalize=True: cosine MaxSim, tokens L2-normalised inside the kernel."""
    g = _gen(800 + DTYPES.index(dtype) * 2 + kd)
    nq, nj, lq, ld, d = 3, 4, 12, 70, 96
    Q = _randn((nq, lq, d), g, dtype) * 3.0  # not unit norm: the kernel must normalise
    D = _randn((nq, nj, ld, d) if kd else (nj, ld, d), g, dtype) * 0.5
    qm = _mask((nq, lq), g, 0.8)
    dm = _mask((nq, nj, ld) if kd else (nj, ld), g, 0.7)
    if kd:
        dm[1, 0] = False
    else:
        dm[0] = False
    out, _, gD = check_random(Q, D, qm, dm, normalize=True, seed=8)
    assert out.abs().max() <= lq + 1e-3  # a sum of at most Lq cosines
    if kd:
        assert out[1, 0] == 0 and (gD[1, 0] == 0).all()
    else:
        assert (out[:, 0] == 0).all() and (gD[0] == 0).all()


# --------------------------------------------------------------------------- the oracle itself

def test_reference_matches_compiled_spec(cache_dir):
    """This file's float64 reference agrees with hsr's own reference evaluator
    (hsr.compile(ops/maxsim*.hsr).reference) on masked integer inputs."""
    import hsr

    g = _gen(900)
    Q, D = _ints((2, 9, 16), g, torch.float32), _ints((3, 20, 16), g, torch.float32)
    qm, dm = _mask((2, 9), g, 0.7), _mask((3, 20), g, 0.6)
    dm[1] = False
    ref, _ = reference(Q.double(), D.double(), qm, dm)
    spec = hsr.compile(OPS / "maxsim.hsr", cache_dir=cache_dir)
    assert torch.equal(spec.reference(Q, D, qm, dm).double(), ref)

    Dk = _ints((2, 3, 20, 16), g, torch.float32)
    dmk = _mask((2, 3, 20), g, 0.6)
    ref_k, _ = reference(Q.double(), Dk.double(), qm, dmk, normalize=True)
    spec_k = hsr.compile(OPS / "maxsim_kd_cos.hsr", cache_dir=cache_dir)
    assert torch.allclose(spec_k.reference(Q, Dk, qm, dmk).double(), ref_k, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- past 2^31 elements

def test_colpali_corpus_past_2_31_elements():
    """B = 20K ColPali documents (1024 x 128, fp16: 2.7e9 elements, 5.2 GB):
    scores and both backwards stay right for the documents whose offsets pass
    2^31 (j >= 16384). Integer inputs, so every value is exact."""
    nd, lq, ld, d = 20_000, 1024, 1024, 128
    g = torch.Generator(device=CUDA).manual_seed(2031)
    Q = torch.randint(-3, 4, (2, lq, d), generator=g, device=CUDA).to(torch.float16)
    D = torch.randint(-3, 4, (nd, ld, d), generator=g, device=CUDA, dtype=torch.int8).to(torch.float16)
    assert D.numel() > 2 ** 31
    Q.requires_grad_()
    D.requires_grad_()
    probe = torch.tensor([0, 1, 16383, 16384, 16385, 19998, 19999], device=CUDA)
    grad_out = torch.randint(-2, 3, (2, nd), generator=g, device=CUDA).float()

    def expected(cols):
        """scores[:, cols], grad Q's share and grad D[cols] by direct computation (fp32, exact)."""
        s = torch.einsum("isd,jtd->ijst", Q.detach().float(), D.detach()[cols].float())
        best, arg = s.max(dim=-1)  # first maximal index on ties
        onehot = torch.nn.functional.one_hot(arg, ld).float() * grad_out[:, cols, None, None]
        gd = torch.einsum("ijst,isd->jtd", onehot, Q.detach().float())
        return best.sum(-1), gd

    want_scores, want_gd = expected(probe)
    for mode in ("atomic", "deterministic"):
        scores = maxsim(Q, D, backward=mode)
        assert torch.equal(scores[:, probe], want_scores)
        gq, gd = torch.autograd.grad(scores, (Q, D), grad_out)
        assert torch.equal(gd[probe].float(), want_gd.half().float())
        assert torch.isfinite(gq).all()
        del scores, gq, gd
    # every document's score, in blocks
    with torch.no_grad():
        scores = maxsim(Q, D)
        for lo in range(0, nd, 2000):
            cols = torch.arange(lo, min(nd, lo + 2000), device=CUDA)
            s = torch.einsum("isd,jtd->ijst", Q.detach().half(), D.detach()[cols]).float()  # small ints: exact
            assert torch.equal(scores[:, cols], s.amax(-1).sum(-1)), lo


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_inputs_on_a_device_other_than_the_current_one():
    """Triton launches on the current device: inputs on cuda:1 while cuda:0 is current
    give the same values and gradients as on the CPU (the lean and the general
    forward, Chamfer's both-ways pass, the Splade head)."""
    from hsr.ops import chamfer_distance, splade_max
    gen = _gen(11)
    dev = torch.device("cuda", 1)
    with torch.cuda.device(0):
        for lq in (300, 20):  # the lean forward (128 rows and more), the general one
            Q = _ints((2, lq, 64), gen, torch.float16)
            D = _ints((3, 200, 64), gen, torch.float16)
            ref = torch.einsum("isd,jtd->ijst", Q.double(), D.double()).amax(-1).sum(-1)
            Qd, Dd = Q.to(dev).requires_grad_(), D.to(dev).requires_grad_()
            out = maxsim(Qd, Dd)
            assert out.device == dev and torch.equal(out.cpu().double(), ref)
            out.sum().backward()
            Qr = Q.double().requires_grad_()
            torch.einsum("isd,jtd->ijst", Qr, D.double()).amax(-1).sum().backward()
            assert torch.equal(Qd.grad.cpu().double(), Qr.grad)
        x, y = _randn((2, 500, 3), gen, torch.float32), _randn((2, 400, 3), gen, torch.float32)
        want = chamfer_distance(x, y)
        got = chamfer_distance(x.to(dev), y.to(dev))
        assert torch.allclose(got.cpu(), want, rtol=1e-5, atol=1e-6)
        h, w = _randn((2, 16, 64), gen, torch.float32), _randn((100, 64), gen, torch.float32)
        want = splade_max(h, w)
        got = splade_max(h.to(dev), w.to(dev))
        assert torch.allclose(got.cpu(), want, rtol=1e-4, atol=1e-4)
    assert torch.cuda.current_device() == 0


WEIGHTED = """
Q[i, s, d]: float
D[j, t, d]: float
w[i, s]: float
score[i, j] = sum_s w_s * max_t <Q_s, D_t>
"""


def _steps():
    """(name, inputs maker, step): a training step of each op (a loss, then its
    backward) on static inputs, as a serving or training loop captures it."""
    import hsr
    from hsr.ops import chamfer_distance, splade_max

    weighted = hsr.compile(WEIGHTED)
    labels = torch.arange(8, device="cuda")

    def ce(scores):
        return torch.nn.functional.cross_entropy(scores, labels)

    return [
        ("maxsim_atomic", lambda g: [_randn((8, 32, 128), g, torch.float16), _randn((8, 300, 128), g, torch.float16)],
         lambda q, d: ce(maxsim(q, d, backward="atomic"))),
        ("maxsim_deterministic", lambda g: [_randn((8, 32, 128), g, torch.bfloat16), _randn((8, 300, 128), g, torch.bfloat16)],
         lambda q, d: ce(maxsim(q, d, backward="deterministic"))),
        ("chamfer", lambda g: [_randn((2, 3000, 3), g, torch.float32), _randn((2, 2000, 3), g, torch.float32)],
         lambda x, y: chamfer_distance(x, y)),
        ("splade", lambda g: [_randn((4, 64, 128), g, torch.float16), _randn((3000, 128), g, torch.float16)],
         lambda h, w: splade_max(h, w).sum()),
        ("weighted_spec", lambda g: [_randn((8, 32, 128), g, torch.float16), _randn((8, 300, 128), g, torch.float16),
                                     _randn((8, 32), g, torch.float16)],
         lambda q, d, w: ce(weighted(q, d, w))),
    ]


@pytest.mark.parametrize("case", range(5), ids=[n for n in ("maxsim_atomic", "maxsim_deterministic", "chamfer",
                                                              "splade", "weighted_spec")])
def test_a_training_step_is_captured_in_a_cuda_graph(case):
    """Forward and backward in one CUDA graph (no host sync, no allocation that
    changes between replays): replayed on new values copied into its static
    inputs, it gives the loss and gradients an eager step gives."""
    name, make, step = _steps()[case]
    static = [x.cuda().requires_grad_() for x in make(_gen(30))]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up: compile, pick configs, keep the call's signature
        for _ in range(3):
            for x in static:
                x.grad = None
            step(*static).backward()
    torch.cuda.current_stream().wait_stream(side)
    for x in static:
        x.grad = None
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = step(*static)
        loss.backward()
    for seed in (31, 32):
        with torch.no_grad():
            for x, new in zip(static, make(_gen(seed))):
                x.copy_(new.cuda())
        graph.replay()
        torch.cuda.synchronize()
        fresh = [x.detach().clone().requires_grad_() for x in static]
        want = step(*fresh)
        want.backward()
        tol = dict(rtol=1e-5, atol=1e-5) if static[0].dtype == torch.float32 else dict(rtol=1e-2, atol=1e-2)
        torch.testing.assert_close(loss, want, **tol)
        for x, y in zip(static, fresh):
            torch.testing.assert_close(x.grad, y.grad, **tol)


def test_a_serving_call_is_captured_in_a_cuda_graph():
    """A reranking call (one query, masked documents) in a CUDA graph: the kept
    signature's launches, replayed by the graph."""
    gen = _gen(40)
    q = _randn((32, 128), gen, torch.float16).cuda()
    docs = _randn((100, 300, 128), gen, torch.float16).cuda()
    mask = _mask((100, 300), gen, 0.7).cuda()
    for _ in range(3):
        maxsim(q, docs, d_mask=mask)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        scores = maxsim(q, docs, d_mask=mask)
    for seed in (41, 42):
        q.copy_(_randn((32, 128), _gen(seed), torch.float16).cuda())
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(scores, maxsim(q, docs, d_mask=mask))


MIN_DISTANCE = """
X[n, d]: float
C[k, d]: float
dist[n] = min_k ||X_n - C_k||^2
"""


@pytest.mark.parametrize("mode, tol", [("highest", 1e-5), ("high", 4e-3), ("medium", 4e-3)])
@pytest.mark.parametrize("offset", [0.0, 1000.0])
def test_fp32_l2_keys_under_each_float32_matmul_precision(mode, tol, offset):
    """fp32 rows under each torch float32 matmul precision: the selected pair's value is
    its exact fp32 differences' (whatever ranked it), and the selection is within the
    documented tolerance of the nearest (TF32 ranks to about 2^-10 of the terms), near
    the origin and far from it."""
    import hsr
    g = torch.Generator().manual_seed(41)
    X = (torch.randn(20000, 128, generator=g) + offset).to(CUDA)
    C = (torch.randn(1024, 128, generator=g) + offset).to(CUDA)
    op = hsr.compile(MIN_DISTANCE)
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(mode)
    try:
        out, idx = op.forward_with_indices(X, C)
    finally:
        torch.set_float32_matmul_precision(before)
    sel = idx.reshape(-1).long()
    exact = (X.double() - C.double()[sel]).square().sum(-1)
    assert torch.allclose(out.reshape(-1).double(), exact, rtol=1e-5, atol=1e-5)
    best = torch.cdist(X.double(), C.double()).square().min(dim=1).values
    assert ((exact - best) <= tol * best + 1e-6).all(), (exact - best).max()


@pytest.mark.parametrize("mode, rank", [("highest", 2.0 ** -19), ("high", 2.0 ** -8)])
@pytest.mark.parametrize("d", [96, 768])
def test_fp32_maxsim_ranks_on_the_tensor_cores_and_keeps_exact_dots(mode, rank, d):
    """fp32 MaxSim under each float32 matmul precision: the key ranks as three TF32
    products or one (d = 768: a long contraction in chunks), each selected dot is the
    pair's IEEE fp32 dot (the score within fp32's rounding of the selected dots' sum),
    and each selection is within the ranking's rounding of the best."""
    g = _gen(9)
    Q = torch.randn(3, 32, d, generator=g).to(CUDA)
    D = torch.randn(40, 300, d, generator=g).to(CUDA)
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(mode)
    try:
        out, idx = _maxsim_with_indices(Q, D)
    finally:
        torch.set_float32_matmul_precision(before)
    dots = torch.einsum("isd,jtd->ijst", Q.double(), D.double())
    sel = dots.gather(-1, idx.long()[..., None]).squeeze(-1)
    terms = torch.einsum("isd,jtd->ijst", Q.double().abs(), D.double().abs()).amax(-1)
    assert ((dots.amax(-1) - sel) <= terms * rank).all(), (dots.amax(-1) - sel).max()
    assert ((out.double() - sel.sum(-1)).abs() <= terms.sum(-1) * (d / 16 + 8) * 2.0 ** -24).all()


def _maxsim_with_indices(Q, D):
    """The bundled spec's forward with its index ([i, j, s])."""
    import hsr
    from hsr.cli import bundled_spec
    out, idx = hsr.compile(bundled_spec("maxsim")).forward_with_indices(Q, D)
    return out, idx.reshape(Q.shape[0], D.shape[0], Q.shape[1])


@pytest.mark.parametrize("key", ["dot (IEEE forced)", "cosine"])
def test_fp32_ieee_keys_of_stacked_queries_in_persistent_programs(monkeypatch, key):
    """An IEEE fp32 key of stacked queries in persistent programs: the predicted config's
    row block still holds every row of a query (it once shrank to half of them: the scores
    lost half their rows)."""
    import hsr
    from hsr import kept
    from hsr.cli import bundled_spec
    g = _gen(11)
    Q, D = torch.randn(8, 32, 96, generator=g).to(CUDA), torch.randn(1000, 300, 96, generator=g).to(CUDA)
    if key == "cosine":
        op = hsr.compile(bundled_spec("maxsim").read_text().replace("<Q_s, D_t>", "cos(Q_s, D_t)"))
        ref = torch.einsum("isd,jtd->ijst", F.normalize(Q.double(), dim=-1), F.normalize(D.double(), dim=-1))
    else:
        monkeypatch.setenv("HSR_PRECISION", "ieee")
        op = hsr.compile(bundled_spec("maxsim"))
        ref = torch.einsum("isd,jtd->ijst", Q.double(), D.double())
    kept.forget()
    with torch.no_grad():
        out = op(Q, D)
    kept.forget()
    assert _rel(out, ref.amax(-1).sum(-1)) < 1e-5
