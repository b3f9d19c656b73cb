"""Computed operands (hsr.check_rows, hsr.emit_rows): a spec's rows formed in the
kernel from gathers and n-bit codes, checked against the float64 reference
evaluator (which forms them whole), values, indices and gradients, through the
interpreter (or on CUDA with HSR_TEST_DEVICE=cuda)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from profiles import examples

import hsr
from hsr import reference
from hsr.errors import TensorError

RESIDUAL = """
Q[i, s, d]: float
C[c, d]: float                # centroids
codes[j, t]: int              # a centroid a token
res[j, t, d]: {kind}          # a bucket a coordinate, packed LSB-first
w[b]: float                   # the buckets' values
dlen[j]: int = full
D[j, t, d] = {body}
score[i, j] = sum_s max_t <Q_s, D_t>  where t < dlen[j]
"""

PACKED = """
cu[j]: offsets
Q[i, s, d]: float
C[c, d]: float
codes[j, t by cu]: int
res[j, t by cu, d]: uint4
w[b]: float
D[j, t, d] = normalize(C[codes[j, t], d] + w[res[j, t, d]])
score[i, j] = sum_s max_t <Q_s, D_t>
"""


def _pack(codes: torch.Tensor, bits: int) -> torch.Tensor:
    """n-bit codes [..., d] into bytes, LSB-first (as the spec language reads them)."""
    per = 8 // bits
    d = codes.shape[-1]
    padded = torch.zeros(*codes.shape[:-1], -(-d // per) * per, dtype=torch.int64)
    padded[..., :d] = codes
    grouped = padded.view(*codes.shape[:-1], -1, per)
    shifts = torch.arange(per) * bits
    return (grouped << shifts).sum(-1).to(torch.uint8)


def _grad(out, x, seed):
    return _grads(out, [x], seed)[0]


def _grads(out, xs, seed):
    w = torch.randn(out.shape, generator=torch.Generator().manual_seed(seed)).to(out.device)
    return torch.autograd.grad((out * w).sum(), xs)


@settings(max_examples=examples(18), deadline=None)
@given(st.sampled_from([1, 2, 4, 8]), st.integers(1, 3), st.integers(1, 40), st.integers(3, 70),
       st.booleans(), st.sampled_from(["plain", "normalized", "scaled"]), st.integers(0, 2**31 - 1))
@example(bits=2, nq=2, ld=9, d=19, ties=False, body="normalized", seed=5)
def test_residual_rows_match_the_reference(device, bits, nq, ld, d, ties, body, seed):
    gen = torch.Generator().manual_seed(seed)
    text = {"plain": "C[codes[j, t], d] + w[res[j, t, d]]",
            "normalized": "normalize(C[codes[j, t], d] + w[res[j, t, d]])",
            "scaled": "C[codes[j, t], d] * 0.5 - w[res[j, t, d]] * scale[j, t]"}[body]
    spec = RESIDUAL.format(kind=f"uint{bits}", body=text)
    if body == "scaled":
        spec = spec.replace("dlen[j]: int = full", "dlen[j]: int = full\nscale[j, t]: float")
    op = hsr.compile(spec)
    nd, nc = 3, 5
    C = torch.randn(nc, d, generator=gen)
    Q = torch.randn(nq, 7, d, generator=gen)
    if ties:  # one centroid for every token and one bucket of value 0: every row is 2 e_0 (normalised, e_0) and
        # ties exactly, with queries of quarters (the interpreter's dot, numpy's, rounds identical columns apart
        # where the sums round)
        C.zero_()
        C[:, 0] = 2.0
        Q = torch.randint(-8, 8, (nq, 7, d), generator=gen) / 4
    codes = torch.randint(0, nc, (nd, ld), generator=gen)
    buckets = torch.randint(0, 1 << bits, (nd, ld, d), generator=gen) * (0 if ties else 1)
    res = _pack(buckets, bits)
    w = torch.randn(1 << bits, generator=gen)
    if ties:
        w[0] = 0.0
    dlen = torch.tensor([ld, ld // 2, 0])  # an empty document
    extra = [torch.randn(nd, ld, generator=gen)] if body == "scaled" else []
    args = [x.to(device) for x in (C, codes, res, w, dlen, *extra)]
    floats = [args[0], args[3], *args[5:]]  # C, w (and scale): their gradients through hsr.row_grads
    for x in floats:
        x.requires_grad_()
    Qd = Q.to(device).requires_grad_()
    out = op(Qd, *args)
    want = op.reference(Q.double(), C.double(), codes, res, w.double(), dlen, *(x.double() for x in extra))
    assert torch.allclose(out.double().cpu(), want, atol=1e-4, rtol=1e-4)
    _, idx = op.forward_with_indices(Qd.detach(), *(x.detach() for x in args))
    _, want_idx = reference.evaluate_selection(op.program, ("i", "j", "s"), Q.double(), C.double(), codes, res,
                                               w.double(), dlen, *(x.double() for x in extra))
    assert torch.equal(idx.cpu().long(), want_idx.long())  # (with ties: every row ties, the lowest index wins)
    Qr, Cr, wr, *er = (x.double().requires_grad_() for x in (Q, C, w, *extra))
    ref = op.reference(Qr, Cr, codes, res, wr, dlen, *er)
    for got, want in zip(_grads(out, [Qd, *floats], seed), _grads(ref, [Qr, Cr, wr, *er], seed)):
        assert torch.allclose(got.double().cpu(), want, atol=1e-4, rtol=1e-4)


def test_packed_documents_and_explain(device):
    op = hsr.compile(PACKED)
    gen = torch.Generator().manual_seed(3)
    lengths = [5, 0, 9]
    cu = torch.tensor([0, 5, 5, 14], dtype=torch.int32)
    C, Q, w = torch.randn(6, 24, generator=gen), torch.randn(2, 4, 24, generator=gen), torch.randn(16, generator=gen)
    codes = torch.randint(0, 6, (sum(lengths),), generator=gen)
    res = _pack(torch.randint(0, 16, (sum(lengths), 24), generator=gen), 4)
    out = op(*(x.to(device) for x in (cu, Q, C, codes, res, w)))
    want = op.reference(cu, Q.double(), C.double(), codes, res, w.double())
    assert torch.allclose(out.double().cpu(), want, atol=1e-5)
    assert out[:, 1].abs().max() == 0  # the empty document
    # gradients reach the tables through packed rows too (hsr.row_grads, a row a selection)
    mine = [x.to(device).requires_grad_() for x in (Q, C, w)]
    ref = [x.double().requires_grad_() for x in (Q, C, w)]
    got = _grads(op(cu.to(device), mine[0], mine[1], codes.to(device), res.to(device), mine[2]), mine, 3)
    want = _grads(op.reference(cu, ref[0], ref[1], codes, res, ref[2]), ref, 3)
    for name, a, b in zip("QCw", got, want):
        assert torch.allclose(a.double().cpu(), b, atol=1e-4, rtol=1e-4), name
    text = op.explain({"i": 1, "s": 32, "j": 100, "t": 300, "d": 128})
    assert "computed operand D: its rows formed in the kernel" in text
    assert "C read at codes, w read at res's 4-bit codes, L2-normalised" in text
    assert "not lean: D is computed in the kernel" in text
    assert "at most 32 rows and its column tile 64 or more, the formed tile takes the MMA's M side" in text
    assert "forward kernel: tiles" in text


def test_bad_codes_and_widths(device):
    op = hsr.compile(RESIDUAL.format(kind="uint2", body="C[codes[j, t], d] + w[res[j, t, d]]"))
    C, Q, w = torch.randn(4, 10), torch.randn(1, 3, 10), torch.randn(4)
    codes, res = torch.arange(10).view(2, 5) % 4, torch.zeros(2, 5, 3, dtype=torch.uint8)
    dev = lambda *xs: [x.to(device) for x in xs]  # noqa: E731
    with pytest.raises(TensorError, match=r"'res' holds 2-bit codes along 'd', packed 4 a byte: 'd' of size 10 "
                                          r"needs 3 bytes in its last dim, got 2"):
        op(*dev(Q, C, codes, res[..., :2], w))
    with pytest.raises(TensorError, match="'res' is declared uint2.*must be torch.uint8"):
        op(*dev(Q, C, codes, res.to(torch.int32), w))
    with pytest.raises(TensorError, match=r"'w' has 3 entries along 'b'; give it 4"):
        op(*dev(Q, C, codes, res, w[:3]))
    if device == "cpu":  # (on a GPU the same check is a device assert: no host sync)
        with pytest.raises(TensorError, match=r"'codes' holds an index outside 0 \.\. 3 \(the size of C's axis 'c'\)"):
            op(*dev(Q, C, codes + 1, res, w))
    wide = hsr.compile(RESIDUAL.format(kind="uint8", body="C[codes[j, t], d]").replace(
        "res[j, t, d]: uint8", "").replace("w[b]: float", ""))
    with pytest.raises(TensorError, match="at most 256"):
        wide(*dev(torch.randn(1, 2, 300), torch.randn(3, 300), torch.zeros(1, 2, dtype=torch.int64)))


def test_rows_formed_in_chunks_of_the_contraction(device, monkeypatch):
    """HSR_COMPUTED_K: the rows formed 32 coordinates at a time, a normalised operand's norms summed over
    the chunks and applied to the dot (the sweeps' other path), against the reference."""
    monkeypatch.setenv("HSR_COMPUTED_K", "32")
    op = hsr.compile(RESIDUAL.format(kind="uint4", body="normalize(C[codes[j, t], d] - w[res[j, t, d]])")
                     + "# chunks\n")
    gen = torch.Generator().manual_seed(11)
    C, Q, w = torch.randn(5, 70, generator=gen), torch.randn(2, 6, 70, generator=gen), torch.randn(16, generator=gen)
    codes, dlen = torch.randint(0, 5, (3, 40), generator=gen), torch.tensor([40, 17, 0])
    res = _pack(torch.randint(0, 16, (3, 40, 70), generator=gen), 4)
    assert "tiles-long" in op.explain({"i": 2, "s": 6, "j": 3, "t": 40, "d": 70, "c": 5, "b": 16})
    out = op(*(x.to(device) for x in (Q, C, codes, res, w, dlen)))
    want = op.reference(Q.double(), C.double(), codes, res, w.double(), dlen)
    assert torch.allclose(out.double().cpu(), want, atol=1e-4, rtol=1e-4)


def test_a_computed_operand_under_an_epilogue_a_mask_and_a_mean(device):
    """The operand's rows are formed where the kernels load them, whatever the reduction around them:
    a decreasing epilogue (max turns min), a required mask on the selected axis, an outer mean."""
    op = hsr.compile("""
Q[i, s, d]: float
C[c, d]: float
codes[j, t]: int
m[j, t]: bool
D[j, t, d] = C[codes[j, t], d] * 0.5
score[i, j] = mean_s max_t exp(-<Q_s, D_t>)  where m
""")
    assert "computed operand D" in op.explain()
    gen = torch.Generator().manual_seed(5)
    Q, C = torch.randn(2, 5, 24, generator=gen), torch.randn(4, 24, generator=gen)
    codes, m = torch.randint(0, 4, (3, 9), generator=gen), torch.rand(3, 9, generator=gen) < 0.6
    m[2] = False  # a document with no kept token
    Qd = Q.to(device).requires_grad_()
    out = op(Qd, *(x.to(device) for x in (C, codes, m)))
    Qr = Q.double().requires_grad_()
    want = op.reference(Qr, C.double(), codes, m)
    assert torch.allclose(out.double().cpu(), want, atol=1e-5, rtol=1e-5)
    assert torch.allclose(_grad(out, Qd, 1).double().cpu(), _grad(want, Qr, 1), atol=1e-5, rtol=1e-5)


COSINE = """
Q[i, s, d]: float
{inputs}
m[j, t]: bool = all
D[j, t, d] = {body}
score[i, j] = sum_s max_t cos(Q_s, D_t)  where m
"""


@settings(max_examples=examples(10), deadline=None)
@given(st.sampled_from(["projection", "residual"]), st.integers(1, 24), st.integers(1, 40), st.integers(3, 40),
       st.sampled_from([1.0, 1e-3, 1e4]), st.floats(0.0, 1.0), st.booleans(), st.integers(0, 2**31 - 1))
@example(rows="projection", ls=3, ld=40, d=24, scale=1.0, keep=0.7, written=True, seed=1)  # few selections a row
@example(rows="residual", ls=24, ld=5, d=24, scale=1e4, keep=0.7, written=False, seed=2)  # many: every row's
def test_a_cosine_reads_a_normalised_computed_operand(device, rows, ls, ld, d, scale, keep, written, seed):
    """cos(Q_s, D_t) with D computed, normalised as written or because only cosines read it: Q's norms in
    the kernel (any scale), each selected D row's norm 1 in the backward. Values, indices and the gradients
    of Q and of D's float inputs, against float64, with few selections against the rows (a gradient row a
    selection) and many (every row)."""
    inputs, body = {
        "projection": ("H[j, t, h]: float\nW[d, h]: float\nbias[d]: float", "<H[j, t, :], W[d, :]> + bias[d]"),
        "residual": ("C[c, d]: float\ncodes[j, t]: int\nres[j, t, d]: uint2\nw[b]: float",
                     "C[codes[j, t], d] + w[res[j, t, d]]")}[rows]
    op = hsr.compile(COSINE.format(inputs=inputs, body=f"normalize({body})" if written else body))
    assert "computed operand D" in op.explain()
    gen = torch.Generator().manual_seed(seed)
    nd = 3
    m = torch.rand(nd, ld, generator=gen) < keep
    m[2] = False  # a document with no kept token: 0, no gradient
    if rows == "projection":
        xs = [torch.randn(nd, ld, 40, generator=gen), torch.randn(d, 40, generator=gen), torch.randn(d, generator=gen)]
        ints = []
    else:
        xs = [torch.randn(5, d, generator=gen), torch.randn(4, generator=gen)]
        ints = [torch.randint(0, 5, (nd, ld), generator=gen), _pack(torch.randint(0, 4, (nd, ld, d), generator=gen), 2)]
    Q = (torch.randn(2, ls, d, generator=gen) + 1) * scale  # rows of any norm: normalised in the kernel
    mine = [x.to(device).requires_grad_() for x in (Q, *xs)]
    ref = [x.double().requires_grad_() for x in (Q, *xs)]

    def args(fl):  # the spec's order: Q, then the operand's inputs, then the mask
        return (fl[0], *fl[1:], m.to(fl[0].device)) if rows == "projection" else \
            (fl[0], fl[1], *(x.to(fl[0].device) for x in ints), fl[2], m.to(fl[0].device))
    out, want = op(*args(mine)), op.reference(*args(ref))
    assert torch.allclose(out.double().cpu(), want, atol=1e-5, rtol=1e-5)
    _, idx = op.forward_with_indices(*(x.detach() for x in args(mine)))
    _, want_idx = reference.evaluate_selection(op.program, ("i", "j", "s"), *(x.detach() for x in args(ref)))
    assert torch.equal(idx.cpu().long(), want_idx.long())
    for got, exp in zip(_grads(out, mine, seed), _grads(want, ref, seed)):
        tol = 1e-5 * max(1.0, exp.abs().max().item())  # (Q's gradient scales as 1 / scale)
        assert torch.allclose(got.double().cpu(), exp, atol=tol, rtol=1e-4)


PACKED_HIDDEN = """
cu[j]: offsets
Q[i, s, d]: float
H[j, t by cu, h]: float
W[d, h]: float
bias[d]: float
scale[j]: float
D[j, t, d] = normalize(<H[j, t, :], W[d, :]> * scale[j] + bias[d])
score[i, j] = sum_s max_t <Q_s, D_t>
"""


def test_a_packed_projection_and_its_gradients(device):
    """Packed hidden states projected in the kernel (an empty sequence among them), a per-document
    input beside them; values and gradients of every float input against float64."""
    op = hsr.compile(PACKED_HIDDEN)
    gen = torch.Generator().manual_seed(4)
    cu = torch.tensor([0, 7, 7, 20], dtype=torch.int32)
    xs = [torch.randn(2, 3, 24, generator=gen), torch.randn(20, 40, generator=gen), torch.randn(24, 40, generator=gen),
          torch.randn(24, generator=gen), torch.rand(3, generator=gen) + 0.5]
    mine = [x.to(device).requires_grad_() for x in xs]
    ref = [x.double().requires_grad_() for x in xs]
    out = op(cu.to(device), *mine)
    want = op.reference(cu, *ref)
    assert torch.allclose(out.double().cpu(), want, atol=1e-4, rtol=1e-4)
    for name, a, b in zip(["Q", "H", "W", "bias", "scale"], _grads(out, mine, 5), _grads(want, ref, 5)):
        assert torch.allclose(a.double().cpu(), b, atol=1e-4, rtol=1e-4), name


L2_ROWS = """
Q[i, s, d]: float
C[c, d]: float
codes[j, t]: int
res[j, t, d]: uint{bits}
w[b]: float
dlen[j]: int = full
D[j, t, d] = {body}
score[i, j] = sum_s {sel}_t {pair}  where t < dlen[j]
"""
DISTANCES = {"sq": ("min", "||Q_s - D_t||^2"), "dist": ("min", "||Q_s - D_t||"),
             "gauss": ("max", "exp(-||Q_s - D_t||^2)"), "l1": ("max", "||Q_s - D_t||_1")}


def _naive_distance(Q, C, codes, buckets, w, dlen, pair, normalized):
    """What a user writes in fp32 (autograd through it): the rows formed, the differences squared (or their
    magnitudes) and summed."""
    D = C[codes] + w[buckets]
    if normalized:
        D = torch.nn.functional.normalize(D, dim=-1)
    diff = Q[:, None, :, None, :] - D[None, :, None, :, :]  # [i, j, s, t, d]
    sq = diff.square().sum(-1)
    sel, _text = DISTANCES[pair]
    key = {"sq": sq, "dist": sq.sqrt(), "gauss": torch.exp(-sq), "l1": diff.abs().sum(-1)}[pair]
    kept = torch.arange(codes.shape[1])[None, :] < dlen[:, None]
    key = key.masked_fill(~kept[None, :, None, :], float("inf") if sel == "min" else float("-inf"))
    best = key.min(-1).values if sel == "min" else key.max(-1).values
    return torch.where(best.abs() < float("inf"), best, 0.0).sum(-1)


def _rel_err(a, ref):
    return ((a.double() - ref).abs() / ref.abs().clamp_min(1e-30)).max().item()


@settings(max_examples=examples(18), deadline=None)
@given(st.sampled_from([0.0, 100.0, 1e4]), st.sampled_from(sorted(DISTANCES)), st.sampled_from([2, 4]),
       st.integers(9, 40), st.booleans(), st.integers(0, 2**31 - 1))
@example(offset=1e4, pair="sq", bits=2, d=19, normalized=False, seed=0)
@example(offset=100.0, pair="l1", bits=4, d=33, normalized=True, seed=1)
def test_a_distance_reads_a_computed_operand_exactly_at_any_offset(device, offset, pair, bits, d, normalized, seed):
    """An L2 pair over rows formed in the kernel: the expansion ranks rows less a point of the data (fp32: Q's
    first row, taken from B's formed rows in the kernel), the selected value comes from the differences of the
    formed row; an L1 pair reads each coordinate of the formed tile. Values and gradients within 4x the naive
    fp32 error (against float64 on the same inputs), at offsets 0 to 1e4; an empty document is 0."""
    sel, text = DISTANCES[pair]
    body = "normalize(C[codes[j, t], d] + w[res[j, t, d]])" if normalized else "C[codes[j, t], d] + w[res[j, t, d]]"
    op = hsr.compile(L2_ROWS.format(bits=bits, body=body, sel=sel, pair=text))
    gen = torch.Generator().manual_seed(seed)
    scale = 0.05 if pair == "gauss" else 1.0  # (a Gaussian of unit clouds' distances is 0 in fp32 everywhere)
    C = torch.randn(5, d, generator=gen) * scale + (0.0 if normalized else offset)
    Q = torch.randn(2, 6, d, generator=gen) * scale + offset
    codes = torch.randint(0, 5, (3, 11), generator=gen)
    buckets = torch.randint(0, 1 << bits, (3, 11, d), generator=gen)
    w = torch.randn(1 << bits, generator=gen) * scale
    dlen = torch.tensor([11, 4, 0])
    res = _pack(buckets, bits)
    mine = [x.to(device).requires_grad_() for x in (Q, C, w)]
    out = op(mine[0], mine[1], codes.to(device), res.to(device), mine[2], dlen.to(device))
    ref64 = [x.double().requires_grad_() for x in (Q, C, w)]
    want = op.reference(ref64[0], ref64[1], codes, res, ref64[2], dlen)
    naive_in = [x.clone().requires_grad_() for x in (Q, C, w)]
    naive = _naive_distance(naive_in[0], naive_in[1], codes, buckets, naive_in[2], dlen, pair, normalized)
    assert (out[:, 2] == 0).all()  # the empty document
    kept = want[:, :2].detach()
    err, bound = _rel_err(out[:, :2].detach().cpu(), kept), max(4 * _rel_err(naive[:, :2].detach(), kept), 1e-6)
    assert err <= bound, f"value: error {err:.3g} against 4x naive fp32 {bound:.3g}"
    for name, got, ref, nv in zip("QCw", _grads(out, mine, seed), _grads(want, ref64, seed), _grads(naive, naive_in, seed)):
        scale_ = ref.norm().item() or 1.0
        err, bound = (got.double().cpu() - ref).norm().item() / scale_, (nv.double() - ref).norm().item() / scale_
        assert err <= max(4 * bound, 1e-5), f"grad {name}: error {err:.3g} against 4x naive fp32 {4 * bound:.3g}"


def test_an_l2_pair_over_a_computed_operand_selects_as_the_reference_with_inf_and_nan(device):
    """The nearest formed row as an output (argmin) and under a sum: a query row with an inf coordinate
    (its expansion is NaN: ranked again from the formed rows' differences, as the reference does) and a
    centroid with a NaN (the documents that gather it hold NaN rows)."""
    spec = L2_ROWS.format(bits=4, body="C[codes[j, t], d] + w[res[j, t, d]]", sel="min", pair="||Q_s - D_t||^2")
    near = hsr.compile(spec.replace("score[i, j] = sum_s min_t", "near[i, j, s] = argmin_t"))
    total = hsr.compile(spec)
    gen = torch.Generator().manual_seed(4)
    C, Q, w = torch.randn(6, 21, generator=gen) + 300, torch.randn(2, 5, 21, generator=gen) + 300, torch.randn(16, generator=gen)
    codes, dlen = torch.randint(0, 5, (4, 13), generator=gen), torch.tensor([13, 6, 0, 13])
    codes[3, 7] = 5  # the NaN centroid, in document 3 only
    C[5, 4] = float("nan")
    Q[1, 2, 3] = float("inf")
    res = _pack(torch.randint(0, 16, (4, 13, 21), generator=gen), 4)
    args = (Q, C, codes, res, w, dlen)
    got = near(*(x.to(device) for x in args)).cpu()
    _, want = reference.evaluate_selection(near.program, ("i", "j", "s"), Q.double(), C.double(), codes, res,
                                           w.double(), dlen)
    assert torch.equal(got, want.long())
    assert (got[:, 2] == -1).all() and (got[1, :, 2][:2] == 0).all()  # empty; the inf row: the first kept
    assert (got[:, 3] == 7).all()  # a NaN row is selected (the first NaN), as torch.min selects it
    out = total(*(x.to(device) for x in args)).cpu()
    ref = total.reference(Q.double(), C.double(), codes, res, w.double(), dlen)
    assert torch.isnan(out[:, 3]).all() and torch.isinf(out[1, :2]).all()
    assert torch.allclose(out[0, :3].double(), ref[0, :3], rtol=1e-4)


def test_an_l2_pair_over_packed_queries_and_packed_computed_documents(device):
    """Both operands packed (ragged queries, ragged formed documents, an empty one of each): Q's first
    packed row is the shift's point, and each document's rows are formed at their packed positions."""
    op = hsr.compile("""
cq[i]: offsets
cu[j]: offsets
Q[i, s by cq, d]: float
C[c, d]: float
codes[j, t by cu]: int
res[j, t by cu, d]: uint4
w[b]: float
D[j, t, d] = C[codes[j, t], d] + w[res[j, t, d]]
score[i, j] = sum_s min_t ||Q_s - D_t||
""")
    gen = torch.Generator().manual_seed(6)
    cq, cu = torch.tensor([0, 3, 3, 8], dtype=torch.int32), torch.tensor([0, 5, 5, 14], dtype=torch.int32)
    Q, C, w = torch.randn(8, 24, generator=gen) + 50, torch.randn(6, 24, generator=gen) + 50, torch.randn(16, generator=gen)
    codes, res = torch.randint(0, 6, (14,), generator=gen), _pack(torch.randint(0, 16, (14, 24), generator=gen), 4)
    mine = [x.to(device).requires_grad_() for x in (Q, C, w)]
    out = op(cq.to(device), cu.to(device), mine[0], mine[1], codes.to(device), res.to(device), mine[2])
    ref = [x.double().requires_grad_() for x in (Q, C, w)]
    want = op.reference(cq, cu, ref[0], ref[1], codes, res, ref[2])
    assert torch.allclose(out.double().cpu(), want, rtol=1e-4)
    assert out[1].abs().max() == 0 and out[:, 1].abs().max() == 0  # the empty query, the empty document
    for name, a, b in zip("QCw", _grads(out, mine, 2), _grads(want, ref, 2)):
        assert torch.allclose(a.double().cpu(), b, atol=1e-4, rtol=1e-3), name
