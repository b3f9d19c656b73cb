"""fp32 dot keys ranked on the tensor cores (dispatch.ranks_only, dispatch.precision,
dispatch.exact_at_selection): the key ranks the pairs as one TF32 product or three, and
the selected pair's value is formed again as its IEEE fp32 dot at the index (the
general forward's EXACT_SEL pass, tile.py.jinja's dot_at_selection).

Triton's interpreter multiplies fp32 tiles exactly whatever the input precision, so a
fixture here makes its dot round as the tensor cores do: TF32 keeps 10 of fp32's 23
mantissa bits of each input (truncated), tf32x3 adds the two products of each input's
TF32 part with the other's remainder. Without the exact pass, a TF32-ranked MaxSim is
off by about 2^-11 of its terms; with it, within fp32's rounding."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import hsr
from hsr import dispatch, kept, launcher
from hsr.load import spec_path

MAXSIM = spec_path("maxsim").read_text()  # the bundled spec, as a spec of the language
MAX_OF_MAX = """
Q[i, s, d]: float
D[j, t, d]: float
score[i, j] = max_s max_t <Q_s, D_t>
"""
RELU = """
Q[i, s, d]: float
D[j, t, d]: float
dmask[j, t]: bool = all
score[i, j] = sum_s max_t relu(<Q_s, D_t>)  where dmask
"""
ARGMAX = """
X[n, d]: float
C[k, d]: float
best[n] = argmax_k <X_n, C_k>
"""
COSINE = """
Q[i, s, d]: float
D[j, t, d]: float
score[i, j] = sum_s max_t cos(Q_s, D_t)
"""
COLUMN_TERM = """
Q[i, s, d]: float
D[j, t, d]: float
b[j, t]: float
score[i, j] = sum_s max_t (<Q_s, D_t> + b_t)
"""
# the TF32 rounding is made here, in the interpreter (tensor_core_dots); tests/test_gpu.py checks the real one on a GPU
pytestmark = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1",
                                reason="rounds the interpreter's dots as the tensor cores do")
SPECS = {"maxsim": MAXSIM, "max_of_max": MAX_OF_MAX, "relu": RELU}
OPS: dict = {}


def _op(text):
    if text not in OPS:
        OPS[text] = hsr.compile(text)
    return OPS[text]


def _tf32(x: np.ndarray) -> np.ndarray:
    """x (fp32) with the low 13 of its 23 mantissa bits dropped: TF32's input."""
    return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


@pytest.fixture
def tensor_core_dots(monkeypatch):
    """The interpreter's fp32 dots rounded as TF32 (and tf32x3) tensor cores round them."""
    from triton.runtime import interpreter
    plain = interpreter.InterpreterBuilder.create_dot

    def dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        name = getattr(input_precision, "name", str(input_precision))
        if a.data.dtype != np.float32 or b.data.dtype != np.float32 or name not in ("TF32", "TF32x3"):
            return plain(self, a, b, d, input_precision, max_num_imprecise_acc)
        a_hi, b_hi = _tf32(a.data), _tf32(b.data)
        out = np.matmul(a_hi, b_hi, dtype=np.float32)
        if name == "TF32x3":
            out = out + np.matmul(_tf32(a.data - a_hi), b_hi, dtype=np.float32) \
                + np.matmul(a_hi, _tf32(b.data - b_hi), dtype=np.float32)
        return interpreter.TensorHandle(out + d.data, d.dtype.scalar)
    monkeypatch.setattr(interpreter.InterpreterBuilder, "create_dot", dot)


@pytest.fixture
def launches(monkeypatch):
    """The general forward's flags of each launch."""
    seen, plain = [], launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__.endswith("_fwd"):
            seen.append(kwargs)
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    return seen


def _terms(Q, D):
    """Each (row of Q, row of D)'s sum of |products|: the scale of a dot's rounding."""
    return torch.einsum("isd,jtd->ijst", Q.double().abs(), D.double().abs())


@pytest.mark.parametrize("precision", ["tf32", "tf32x3"])
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**16), name=st.sampled_from(sorted(SPECS)), nq=st.integers(1, 3),
       lq=st.integers(1, 9), nd=st.integers(1, 4), ld=st.integers(1, 70), d=st.sampled_from([12, 40, 96, 300]),
       scale=st.sampled_from([1.0, 1e3]), masked=st.booleans())
def test_ranked_dot_values_indices_and_gradients(tensor_core_dots, launches, precision, seed, name, nq, lq, nd, ld,
                                                 d, scale, masked):
    """Each row's value is the fp32 dot of the pair its index names (within fp32's
    rounding, not TF32's), that pair is within the ranking precision's rounding of the
    best, the cell's value is the float64 reference's within both, and gradients are
    the selected rows; masks with an all-masked document (an empty selection: 0, no
    gradient), odd sizes, a long contraction (d = 300: chunks), large coordinates."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HSR_PRECISION", precision)
        kept.forget()
        launches.clear()
        g = torch.Generator().manual_seed(seed)
        Q = (torch.randn(nq, lq, d, generator=g) * scale).requires_grad_()
        D = (torch.randn(nd, ld, d, generator=g) * scale).requires_grad_()
        op, kwargs = _op(SPECS[name]), {}
        if masked and name != "max_of_max":
            dmask = torch.rand(nd, ld, generator=g) < 0.7
            dmask[0] = False  # an empty selection
            kwargs["dmask"] = dmask
        out = op(Q, D, **kwargs)
        ref = op.reference(Q.detach().double(), D.detach().double(), **kwargs)
        assert launches and all(f["EXACT_SEL"] and f["NEED_IDX"] and f["PRECISION"] == precision for f in launches)
        terms = _terms(Q.detach(), D.detach())  # [i, j, s, t]
        # the ranking's rounding, of the terms: each TF32 input within 2^-10 of its own, so two keys
        # within 2^-8 of the terms; tf32x3 about 2^-21
        rank = 2.0 ** (-8 if precision == "tf32" else -19)
        fp32 = (d / 16 + 8) * 2.0 ** -24  # the exact pass's: 16-wide chunks, summed
        per_row = terms.amax(-1)
        size = per_row.sum(-1) if name != "max_of_max" else per_row.amax(-1)
        err = (out.detach().double() - ref).abs()
        assert (err <= size * (rank + fp32)).all(), err.max()
        if name != "max_of_max":
            value, idx = op.forward_with_indices(Q.detach(), D.detach(), **kwargs)
            idx = idx.reshape(nq, nd, lq).long()
            dots = torch.einsum("isd,jtd->ijst", Q.detach().double(), D.detach().double())
            if "dmask" in kwargs:
                dots = dots.masked_fill(~kwargs["dmask"][None, :, None, :], -torch.inf)
            picked = idx >= 0
            sel = dots.gather(-1, idx.clamp_min(0)[..., None]).squeeze(-1)
            h = (lambda x: x.clamp_min(0)) if name == "relu" else (lambda x: x)  # relu: flat keys tie in it
            assert (h(dots.amax(-1))[picked] - h(sel)[picked] <= per_row[picked] * rank).all()
            h = h(sel)
            exact = torch.where(picked, h, 0.0).sum(-1)
            assert ((value.double() - exact).abs() <= per_row.sum(-1) * fp32).all(), (value.double() - exact).abs().max()
        out.backward(torch.ones_like(out))
        if name == "maxsim":  # the gradient of Q is the selected D rows', summed
            want = torch.zeros(nq, lq, d, dtype=torch.float64)
            for j in range(nd):
                rows = D.detach().double()[j][idx[:, j].clamp_min(0)]
                want += torch.where(picked[:, j, :, None], rows, 0.0)
            torch.testing.assert_close(Q.grad.double(), want, rtol=1e-6, atol=1e-6 * scale)
    kept.forget()


@pytest.mark.parametrize("precision", ["tf32", "tf32x3"])
def test_the_selected_value_is_the_exact_dot_at_the_index(tensor_core_dots, monkeypatch, precision):
    """Each row's value is the IEEE fp32 dot of the pair its index names, and that pair is
    within the ranking's rounding of the best; an all-masked document selects nothing
    (index -1, value 0); NaN in a document row reaches its rows' values."""
    monkeypatch.setenv("HSR_PRECISION", precision)
    kept.forget()
    g = torch.Generator().manual_seed(3)
    Q, D = torch.randn(2, 7, 64, generator=g), torch.randn(3, 90, 64, generator=g)
    dmask = torch.rand(3, 90, generator=g) < 0.8
    dmask[2] = False
    D[1, 5, 3] = float("nan")
    dmask[1, 5] = True
    op = _op(MAXSIM)
    out, idx = op.forward_with_indices(Q, D, dmask=dmask)
    idx = idx.reshape(2, 3, 7).long()
    assert (idx[:, 2] == -1).all() and (out[:, 2] == 0).all()
    assert torch.isnan(out[:, 1]).all()
    dots = torch.einsum("isd,jtd->ijst", Q.double(), D.double()).masked_fill(~dmask[None, :, None, :], -torch.inf)
    for j in (0,):
        sel = dots[:, j].gather(-1, idx[:, j, :, None]).squeeze(-1)
        best = dots[:, j].amax(-1)
        terms = _terms(Q, D)[:, j].amax(-1)
        assert ((best - sel) <= terms * 2.0 ** (-8 if precision == "tf32" else -19)).all()
        torch.testing.assert_close(out[:, j].double(), sel.sum(-1), rtol=1e-6, atol=1e-5)
    kept.forget()


def test_an_argmax_ranks_without_the_exact_pass(tensor_core_dots, launches, monkeypatch):
    """An index output needs no value: the key ranks at TF32 and no exact pass runs (the
    kernel has none: EXACT_SEL is off); the pick is within TF32's rounding of the best."""
    monkeypatch.setenv("HSR_PRECISION", "tf32")
    kept.forget()
    g = torch.Generator().manual_seed(5)
    X, C = torch.randn(300, 48, generator=g), torch.randn(77, 48, generator=g)
    best = _op(ARGMAX)(X, C).long()
    dots = X.double() @ C.double().T
    picked = dots.gather(1, best[:, None]).squeeze(1)
    assert ((dots.amax(1) - picked) <= (X.double().abs() @ C.double().abs().T).amax(1) * 2.0 ** -8).all()
    assert launches and all(f["PRECISION"] == "tf32" and not f["EXACT_SEL"] for f in launches)
    kept.forget()


def test_keys_that_are_their_own_value_stay_ieee(monkeypatch):
    """ranks_only: MaxSim, a max of dots, an argmax and the Splade head (its bias a row
    term) rank; a cosine and a dot with a column term (the key is its value) do not. exact_at_selection: fp32 tiles that
    ranked off IEEE, not a few coordinates."""
    def term(text):
        return hsr.compile(text).plan.terms[0]
    assert all(dispatch.ranks_only(term(t)) for t in (MAXSIM, MAX_OF_MAX, ARGMAX, RELU))
    assert dispatch.ranks_only(term(spec_path("splade").read_text()))  # a row term: after
    assert not dispatch.ranks_only(term(COSINE)) and not dispatch.ranks_only(term(COLUMN_TERM))
    assert dispatch.exact_at_selection(torch.float32, "tf32", 0)
    assert dispatch.exact_at_selection(torch.float32, "tf32x3", 1)
    assert not dispatch.exact_at_selection(torch.float32, "ieee", 0)
    assert not dispatch.exact_at_selection(torch.float16, "tf32", 0)
    assert not dispatch.exact_at_selection(torch.float32, "tf32", 2)
    monkeypatch.setattr(torch, "get_float32_matmul_precision", lambda: "high")
    sizes = {"i": 1, "j": 8, "s": 32, "t": 64, "d": 128}
    words = hsr.compile(MAXSIM).explain(sizes, torch.float32)
    assert "the dot key ranks the pairs as one TF32 product" in words
    assert "IEEE dot, formed again at the index" in words
    words = hsr.compile(COSINE).explain(sizes, torch.float32)
    assert "this key is its own value" in words and "(now 'high')" in words


@pytest.mark.parametrize("precision", ["tf32", "tf32x3"])
def test_packed_rows_take_the_exact_pass_at_their_own_offsets(tensor_core_dots, launches, monkeypatch, precision):
    """Packed (ragged) fp32 rows ranked on the tensor cores: each score is the sum of the
    exact dots at the selected rows, found at each sequence's own offset; an empty
    document scores 0; the gradients are finite."""
    monkeypatch.setenv("HSR_PRECISION", precision)
    kept.forget()
    g = torch.Generator().manual_seed(8)
    cu_q, cu_d = torch.tensor([0, 5, 12]), torch.tensor([0, 40, 40, 111])
    Q = torch.randn(12, 48, generator=g)
    D = torch.randn(111, 48, generator=g)
    for start in (0, 40):  # each query row's copy (tripled) in documents 0 and 2: a selection by far
        D[start:start + 12] = 3 * Q
    Q, D = Q.requires_grad_(), D.requires_grad_()
    out = hsr.ops.maxsim_varlen(Q, D, cu_q, cu_d)
    assert launches and all(f["EXACT_SEL"] and f["PRECISION"] == precision for f in launches)
    want = torch.zeros(2, 3, dtype=torch.float64)
    for i in range(2):
        for j in range(3):
            q, dd = Q.detach()[cu_q[i]:cu_q[i + 1]].double(), D.detach()[cu_d[j]:cu_d[j + 1]].double()
            if len(dd):
                want[i, j] = (q @ dd.T).amax(1).sum()
    # the selected dots exact to fp32 (TF32's own would be off by about 2^-11 of them)
    torch.testing.assert_close(out.detach().double(), want, rtol=1e-6, atol=1e-6)
    assert (out[:, 1] == 0).all()
    out.sum().backward()
    assert torch.isfinite(Q.grad).all() and torch.isfinite(D.grad).all()
    kept.forget()
