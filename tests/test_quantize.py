"""Per-token int8 and fp8 quantization (ops/quantize.py) and the MaxSim they
feed (ops/maxsim_int8.hsr, maxsim_fp8.hsr, maxsim(..., precision=...)): the
kernels against the float64 reference on the quantized rows; the whole path
against fp32. fp8 runs through the interpreter, and on CUDA only on Hopper."""

from pathlib import Path

import pytest
import torch
from hypothesis import given, strategies as st

import hsr
from hsr.errors import TensorError
from hsr.ops import maxsim, quantize_fp8, quantize_int8

OPS = Path(__file__).resolve().parent.parent / "ops"


@pytest.fixture(scope="module", params=["int8", "fp8"])
def spec(request, device):
    if request.param == "fp8" and device == "cuda" and torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("fp8 tensor cores need compute capability 8.9 or more")
    return hsr.compile(OPS / f"maxsim_{request.param}.hsr")


def _rows(shape, gen, kind):
    """Quantized rows of either kind: int8 over [-127, 127], fp8 e4m3 over [-448, 448]."""
    if kind == "int8":
        return torch.randint(-127, 128, shape, generator=gen, dtype=torch.int8)
    return (torch.randn(shape, generator=gen) * 60).clamp(-448, 448).to(torch.float8_e4m3fn)


def test_rows_keep_their_own_scale():
    x = torch.tensor([[0.5, -1.0, 0.25], [0.0, 0.0, 0.0], [300.0, 1.0, -150.0]])
    q, scale = quantize_int8(x)
    assert q.dtype == torch.int8 and scale.dtype == torch.float32 and scale.shape == (3,)
    assert q[0].tolist() == [64, -127, 32] and q[2].tolist() == [127, 0, -64]
    assert q[1].tolist() == [0, 0, 0] and scale[1] == 1.0  # zeros stay zeros
    assert torch.allclose(q.float() * scale[:, None], x, atol=float(scale.max()) / 2)
    q, scale = quantize_int8(x.T.contiguous(), dim=0)  # another axis
    assert q.T.tolist() == quantize_int8(x)[0].tolist()


def test_fp8_rows_keep_their_own_scale():
    x = torch.tensor([[0.5, -1.0, 0.25], [0.0, 0.0, 0.0], [300.0, 1.0, -150.0]])
    q, scale = quantize_fp8(x)
    assert q.dtype == torch.float8_e4m3fn and scale.shape == (3,) and scale[1] == 1.0
    assert q.float().abs().amax(1).tolist() == [448.0, 0.0, 448.0]
    assert torch.allclose(q.float() * scale[:, None], x, rtol=0.07)  # 3 mantissa bits
    assert torch.isnan(quantize_fp8(torch.tensor([[1.0, float("nan")]]))[1][0])


def test_a_nan_row_gets_a_nan_scale():
    x = torch.tensor([[1.0, float("nan")], [1.0, 2.0]])
    q, scale = quantize_int8(x)
    assert torch.isnan(scale[0]) and not torch.isnan(scale[1])
    with pytest.raises(TensorError, match="float tensor"):
        quantize_int8(torch.ones(2, 2, dtype=torch.int32))


@given(st.integers(1, 40), st.integers(1, 300), st.sampled_from([torch.float32, torch.float16, torch.bfloat16]),
       st.booleans(), st.sampled_from(["int8", "fp8"]), st.integers(0, 2**31 - 1))
def test_rows_quantized_in_one_launch_as_torch_would(device, n, d, dtype, strided, kind, seed):
    """quantize_int8 and quantize_fp8 on a GPU (here the interpreter) are one launch of
    _quantize_rows: its rows and scales equal torch's ops' (max |x| / 127 or 448, rounding half
    to even, +-127 or 448, NaN to 0) bit for bit, with rows of zeros, NaN, inf, ties (halves at
    scale 1; fp8's between its 3-bit steps), values far below 1 (fp8's subnormals) and strided rows."""
    from hsr import launcher
    top, quantize = (127.0, quantize_int8) if kind == "int8" else (448.0, quantize_fp8)
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d + 3 if strided else d, generator=gen) * torch.rand(n, 1, generator=gen) * 9
    x = x[:, 1:d + 1] if strided else x
    if n > 4:
        x[4] *= torch.exp2(torch.randint(-20, 0, (d,), generator=gen).float())  # small steps and subnormals
    x[0] = torch.arange(d) / 2 - d / 4  # halves ...
    x[0, 0] = top  # ... at scale 1
    if n > 3:
        x[1], x[2, d // 2], x[3, d - 1] = 0.0, float("nan"), float("-inf")
    x = x.to(dtype).to(device)
    calls, plain = [], launcher.launch
    try:
        launcher.launch = lambda kernel, *a, **k: calls.append(kernel) or plain(kernel, *a, **k)
        q, scale = quantize(x)
    finally:
        launcher.launch = plain
    xf = x.detach().float().cpu()
    amax = xf.abs().amax(dim=-1, keepdim=True)
    want_scale = torch.where(amax > 0, amax / top, torch.where(amax == 0, 1.0, amax))
    y = xf / want_scale
    want = torch.round(y).clamp(-127, 127).nan_to_num(0.0).to(torch.int8) if kind == "int8" else \
        y.clamp(-448.0, 448.0).nan_to_num(0.0).to(torch.float8_e4m3fn)
    assert len(calls) == 1 and q.dtype == want.dtype and q.shape == x.shape
    assert torch.equal(q.cpu().view(torch.uint8), want.view(torch.uint8))
    assert torch.equal(scale.cpu().nan_to_num(-1.0), want_scale.squeeze(-1).nan_to_num(-1.0))


shapes = st.fixed_dictionaries({
    "nq": st.integers(1, 3), "nd": st.integers(1, 3), "lq": st.integers(1, 33), "ld": st.integers(1, 70),
    "d": st.sampled_from([3, 16, 31, 64, 128, 200]), "seed": st.integers(0, 2**31 - 1),
    "qmask": st.booleans(), "dmask": st.booleans(),
})


@given(shapes)
def test_the_int8_kernel_matches_the_reference(spec, device, case):
    """Quantized rows and drawn scales, masks with an empty document: values
    to fp32 rounding of the float64 reference, and its indices exactly."""
    gen = torch.Generator().manual_seed(case["seed"])
    nq, nd, lq, ld, d = (case[k] for k in ("nq", "nd", "lq", "ld", "d"))
    kind = spec.program.tensors[0].kind
    Q, D = _rows((nq, lq, d), gen, kind), _rows((nd, ld, d), gen, kind)
    qs, ds = torch.rand(nq, lq, generator=gen) + 0.01, torch.rand(nd, ld, generator=gen) + 0.01
    qm = torch.rand(nq, lq, generator=gen) < 0.7 if case["qmask"] else None
    dm = torch.rand(nd, ld, generator=gen) < 0.6 if case["dmask"] else None
    if dm is not None:
        dm[0] = False
    args = [x if x is None else x.to(device) for x in (Q, D, qs, ds, qm, dm)]
    ref, indices = spec.reference(Q, D, qs, ds, qm, dm, return_indices=True)
    out, idx = spec.forward_with_indices(*args)
    # int8 products sum exactly in int32; Hopper's fp8 tensor cores keep fewer bits than fp32 while they
    # accumulate (on an H200, a score of 17 query tokens 3.3e-5 off the float64 one: bench/NOTES.md, session 35)
    rtol = 1e-5 if kind == "int8" or device == "cpu" else 2.0 ** -12
    assert torch.allclose(out.cpu().double(), ref, rtol=rtol, atol=1e-3)
    (want, axes), = indices.values()
    want = want.permute(*[axes.index(a) for a in ("i", "j", "s")])
    got = idx.cpu().long()
    kept = torch.ones(nq, nd, lq, dtype=torch.bool) if qm is None else qm[:, None, :].expand(nq, nd, lq)
    assert (got[~kept] == -1).all()  # a masked query token selects nothing
    got, want = got[kept], want[kept]
    differ = got != want  # allowed only where the two keys tie in fp32 (their float64 values differ in the last bits)
    if differ.any():
        keys = ds.double()[None, :, None, :] * torch.einsum("isd,jtd->ijst", Q.double(), D.double())
        tol = 1e-6 if kind == "int8" else rtol  # fp8 products are summed in fp32 or less: not exact
        keys = keys[kept]
        pick = lambda ix: keys.gather(1, ix.clamp(min=0)[:, None]).squeeze(1)  # noqa: E731
        assert (got[differ] >= 0).all() and torch.allclose(pick(got)[differ], pick(want)[differ], rtol=tol)
    plain = spec(*args)
    assert torch.equal(plain.cpu(), out.cpu())


@pytest.mark.parametrize("precision, bound", [("int8", 0.01), ("fp8", 0.05)])
def test_quantized_maxsim_is_close_to_fp32(device, precision, bound):
    if precision == "fp8" and device == "cuda" and torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("fp8 tensor cores need compute capability 8.9 or more")
    gen = torch.Generator().manual_seed(0)
    Q = torch.nn.functional.normalize(torch.randn(3, 32, 128, generator=gen), dim=-1)
    D = torch.nn.functional.normalize(torch.randn(5, 100, 128, generator=gen), dim=-1)
    qm = torch.rand(3, 32, generator=gen) < 0.8
    dm = torch.rand(5, 100, generator=gen) < 0.8
    dm[2] = False
    exact = maxsim(Q, D, qm, dm)
    got = maxsim(Q.to(device), D.to(device), qm.to(device), dm.to(device), precision=precision).cpu()
    assert got.dtype == torch.float32 and not got.requires_grad
    assert torch.all(got[:, 2] == 0)  # an empty document scores 0
    assert (got - exact).abs().max() < bound * exact.abs().max()  # int8 well under 1%, fp8 (3 mantissa bits) 5%
    cosine = maxsim(Q.to(device) * 3, D.to(device) * 0.5, normalize=True, precision=precision).cpu()
    assert (cosine - maxsim(Q, D, normalize=True)).abs().max() < bound * exact.abs().max()


def test_int8_maxsim_refuses_what_it_cannot_do(device):
    Q, D = torch.randn(2, 4, 16, device=device), torch.randn(3, 5, 16, device=device)
    with pytest.raises(TensorError, match="no gradient"):
        maxsim(Q.requires_grad_(), D, precision="int8")
    with torch.no_grad():
        assert maxsim(Q, D, precision="int8").shape == (2, 3)
    with pytest.raises(TensorError, match=r"D \[Nd, Ld, d\]"):
        maxsim(Q.detach(), torch.randn(2, 3, 5, 16, device=device), precision="int8")
    with pytest.raises(TensorError, match="precision"):
        maxsim(Q.detach(), D, precision="fp4")
    with pytest.raises(TensorError, match="declared int8"):
        hsr.compile(OPS / "maxsim_int8.hsr")(Q.detach(), D, torch.ones(2, 4), torch.ones(3, 5))


@pytest.mark.parametrize("precision", ["int8", "fp8"])
def test_a_corpus_stored_quantized_is_not_quantized_again(device, precision, monkeypatch):
    """maxsim(Q, (rows, scales)): D as quantize_int8 / quantize_fp8 stored it. The
    scores are the float call's with precision=..., bit for bit, and only Q is
    quantized per call (the quantizer runs once, on Q's rows)."""
    if precision == "fp8" and device == "cuda" and torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("fp8 tensor cores need compute capability 8.9 or more")
    import sys
    front = sys.modules["hsr.ops.maxsim"]  # the module (hsr.ops.maxsim the name is the function)
    gen = torch.Generator().manual_seed(3)
    Q = torch.randn(2, 8, 32, generator=gen).to(device)
    D = torch.randn(4, 12, 32, generator=gen).to(device)
    dm = (torch.rand(4, 12, generator=gen) < 0.8).to(device)
    quantize = quantize_int8 if precision == "int8" else quantize_fp8
    stored = quantize(D)
    want = maxsim(Q, D, d_mask=dm, precision=precision)
    seen = []
    name = "quantize_int8" if precision == "int8" else "quantize_fp8"
    monkeypatch.setattr(front, name, lambda x, *a: seen.append(tuple(x.shape)) or quantize(x, *a))
    got = maxsim(Q, stored, d_mask=dm)
    assert seen == [tuple(Q.shape)] and torch.equal(got.cpu(), want.cpu())
    assert torch.equal(maxsim(Q, stored, d_mask=dm, precision=precision).cpu(), want.cpu())
    one = maxsim(Q[0], (stored[0][1], stored[1][1]))  # one query, one document [Ld, d] with its scales [Ld]
    assert torch.equal(one.cpu(), maxsim(Q, D, precision=precision)[0, 1].cpu())


def test_a_stored_corpus_refuses_what_it_cannot_be(device):
    Q, D = torch.randn(2, 4, 16, device=device), torch.randn(3, 5, 16, device=device)
    rows, scales = quantize_int8(D)
    for bad, match in (((rows,), "pair"), ((rows, scales, scales), "pair"), ((D, scales), "int8 or float8"),
                       ((rows, scales[:, :2]), r"one a token: shape \(3, 5\)"),
                       ((rows, scales.to(torch.int32)), "must be float")):
        with pytest.raises(TensorError, match=match):
            maxsim(Q, bad)
    with pytest.raises(TensorError, match="stored as int8"):
        maxsim(Q, (rows, scales), precision="fp8")
    with pytest.raises(TensorError, match="normalize"):
        maxsim(Q, (rows, scales), normalize=True)
    with pytest.raises(TensorError, match="no gradient"):
        maxsim(Q.requires_grad_(), (rows, scales))

