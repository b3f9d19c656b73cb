"""MaxSim from hidden states (ops/hidden.py): values and gradients of Q, H_d, W and b
against float64 autograd through F.linear, F.normalize and MaxSim written out, on the
fused path (the spec ops/maxsim_hidden.hsr: the projection formed in the kernel) and
the unfused one; the projection's backward on the selected rows only; errors naming
the argument."""

import os

import pytest
import torch
from hypothesis import given, settings, strategies as st

from hsr import dispatch, row_grads
from hsr.errors import TensorError
from hsr.ops import hidden, maxsim, maxsim_from_hidden
from profiles import examples

_grads = row_grads.grads  # (the test of the kept backward counts its calls)


def _reference(Q, H, W, b, mask, normalize):
    """float64 scores [Nq, Nd] of the formula, through autograd."""
    D = torch.nn.functional.linear(H, W, b)
    if normalize:
        D = torch.nn.functional.normalize(D, dim=-1, eps=1e-12)
    s = torch.einsum("isd,jtd->ijst", Q, D)
    if mask is not None:
        s = s.masked_fill(~mask[None, :, None, :], float("-inf"))
    best = s.amax(-1)
    return torch.where(torch.isinf(best), torch.zeros_like(best), best).sum(-1)


@settings(max_examples=examples(12), deadline=None)
@given(nq=st.integers(1, 3), nd=st.integers(1, 3), lq=st.integers(1, 5), ld=st.integers(1, 9),
       d_out=st.sampled_from([16, 24]), d_model=st.integers(1, 20), bias=st.booleans(),
       normalize=st.booleans(), masked=st.booleans(), share=st.sampled_from([0, 10**9]),
       path=st.sampled_from(["fused", "unfused"]), seed=st.integers(0, 2**16))
def test_values_and_gradients_match_the_formula_in_float64(device, nq, nd, lq, ld, d_out, d_model, bias,
                                                          normalize, masked, share, path, seed):
    """share: the projection's backward on the selected rows (0) or over every row (10**9);
    path: the projection formed in the MaxSim kernel (fused) or by a GEMM first."""
    before = hidden.DENSE_SHARE, dispatch.ROWS_DENSE_SHARE, os.environ.get("HSR_HIDDEN")
    hidden.DENSE_SHARE = dispatch.ROWS_DENSE_SHARE = share
    os.environ["HSR_HIDDEN"] = path
    try:
        _values_and_gradients(device, nq, nd, lq, ld, d_out, d_model, bias, normalize, masked, seed)
    finally:
        hidden.DENSE_SHARE, dispatch.ROWS_DENSE_SHARE = before[:2]
        if before[2] is None:
            del os.environ["HSR_HIDDEN"]
        else:
            os.environ["HSR_HIDDEN"] = before[2]


def _values_and_gradients(device, nq, nd, lq, ld, d_out, d_model, bias, normalize, masked, seed):
    gen = torch.Generator().manual_seed(seed)
    Q = torch.randn(nq, lq, d_out, generator=gen)
    H = torch.randn(nd, ld, d_model, generator=gen)
    W = torch.randn(d_out, d_model, generator=gen) / d_model ** 0.5
    b = torch.randn(d_out, generator=gen) if bias else None
    mask = torch.rand(nd, ld, generator=gen) < 0.7 if masked else None
    if masked:
        mask[0] = False  # an empty document: 0, no gradient
    args = [x for x in (Q, H, W, b) if x is not None]
    ref = [x.double().requires_grad_(True) for x in args]
    mine = [x.to(device).requires_grad_(True) for x in args]
    bm, br = (mine[3], ref[3]) if bias else (None, None)
    m = mask.to(device) if masked else None
    out = maxsim_from_hidden(mine[0], mine[1], mine[2], bm, d_mask=m, normalize=normalize)
    want = _reference(ref[0], ref[1], ref[2], br, mask, normalize)
    assert out.dtype == torch.float32 and out.shape == (nq, nd)
    torch.testing.assert_close(out.double().cpu(), want.detach(), rtol=1e-4, atol=1e-4)
    g = torch.randn(nq, nd, generator=gen)
    out.backward(g.to(device))
    want.backward(g.double())
    for name, x, y in zip("QHWb", mine, ref):
        assert x.grad is not None, name
        torch.testing.assert_close(x.grad.double().cpu(), y.grad, rtol=1e-3, atol=1e-3, msg=name)


@pytest.mark.parametrize("store_zeros", [False, True])
def test_the_fused_backward_is_replayed_with_its_inputs_gradients(device, monkeypatch, store_zeros):
    """The fused path's backward and hsr.row_grads after it are one kept call: the second
    and third steps of a signature replay both (row_grads' Python does not run again) and
    still give the float64 gradients of their own values; store_zeros: grad H_d's zeros
    written by hsr.zeros' kernel (a launch the replay keeps), as for a large one on a GPU."""
    from hsr import generated, kept

    monkeypatch.setenv("HSR_HIDDEN", "fused")
    monkeypatch.setattr(dispatch, "zeros_by_kernel", lambda device, nbytes: store_zeros)
    formed = []
    monkeypatch.setattr(row_grads, "grads", lambda *a, **k: formed.append(1) or _grads(*a, **k))
    kept.forget()
    gen = torch.Generator().manual_seed(5)
    for _ in range(3):
        args = [torch.randn(1, 3, 16, generator=gen), torch.randn(2, 40, 24, generator=gen),
                torch.randn(16, 24, generator=gen) / 5, torch.randn(16, generator=gen)]
        ref = [x.double().requires_grad_(True) for x in args]
        mine = [x.to(device).requires_grad_(True) for x in args]
        maxsim_from_hidden(*mine).sum().backward()
        _reference(*ref, None, True).sum().backward()
        for name, x, y in zip("QHWb", mine, ref):
            torch.testing.assert_close(x.grad.double().cpu(), y.grad, rtol=1e-3, atol=1e-3, msg=name)
    assert formed == [1]
    assert any(isinstance(r, kept.Replay) for r in generated.maxsim_hidden._score_KEPT_BACKWARD.entries.values())


def test_the_projection_backward_runs_on_the_selected_rows_only(monkeypatch):
    """One query of 2 tokens against 2 documents of 40 tokens: at most 2 rows a document
    (4 of 80) get a gradient, a bound known from the shapes, and only they are gathered."""
    seen = []
    plain = hidden.selected_rows

    def spy(grad, bound):
        rows, valid = plain(grad, bound)
        seen.append((bound, int(valid.sum())))
        return rows, valid
    monkeypatch.setattr(hidden, "selected_rows", spy)
    gen = torch.Generator().manual_seed(1)
    Q = torch.randn(1, 2, 16, generator=gen)
    H = torch.randn(2, 40, 32, generator=gen, requires_grad=True)
    W = torch.randn(16, 32, generator=gen, requires_grad=True)
    maxsim_from_hidden(Q, H, W).sum().backward()
    (bound, reached), = seen
    assert bound == 4 and 2 <= reached <= 4
    assert (H.grad != 0).any(-1).sum() == reached and W.grad.abs().sum() > 0
    seen.clear()
    maxsim_from_hidden(torch.randn(8, 2, 16, generator=gen), H, W).sum().backward()
    assert not seen  # 16 query tokens a document of 40 rows: every row, as two GEMMs


def test_without_gradients_it_is_maxsim_on_the_projected_rows():
    gen = torch.Generator().manual_seed(2)
    Q, H, W = torch.randn(2, 3, 16, generator=gen), torch.randn(4, 5, 8, generator=gen), torch.randn(16, 8, generator=gen)
    with torch.no_grad():
        D = torch.nn.functional.normalize(torch.nn.functional.linear(H, W), dim=-1)
        torch.testing.assert_close(maxsim_from_hidden(Q, H, W), maxsim(Q, D))
        assert maxsim_from_hidden(Q[0], H, W).shape == (4,) and maxsim_from_hidden(Q, H[0], W).shape == (2,)


@pytest.mark.parametrize("change, words", [
    (dict(W=torch.randn(16, 9)), "W must be [d_out, d_model] with d_model = 8"),
    (dict(b=torch.randn(15)), "b must be [d_out] = [16]"),
    (dict(Q=torch.randn(2, 3, 12)), "Q must be [Nq, Lq, d_out] or [Lq, d_out] with d_out = 16"),
    (dict(H=torch.randn(5, 8)[None, None]), "H_d must be [Nd, Ld, d_model] or [Ld, d_model]"),
    (dict(W=torch.randn(16, 8, dtype=torch.float64)), "W is torch.float64 and H_d torch.float32"),
    (dict(H=torch.ones(4, 5, 8, dtype=torch.int32)), "H_d must be a float tensor"),
])
def test_bad_input_names_the_argument(change, words):
    args = dict(Q=torch.randn(2, 3, 16), H=torch.randn(4, 5, 8), W=torch.randn(16, 8), b=None)
    args.update(change)
    with pytest.raises(TensorError, match=words.replace("[", r"\[").replace("]", r"\]")):
        maxsim_from_hidden(args["Q"], args["H"], args["W"], args["b"])


def test_the_fused_spec_explains_its_projection_and_the_rule_that_picks_it(monkeypatch):
    import hsr
    from hsr.ops import spec_path
    text = hsr.compile(spec_path("maxsim_hidden")).explain({"i": 1, "s": 32, "j": 512, "t": 2048, "h": 768, "d": 128})
    assert "computed operand D: its rows formed in the kernel, a tile at a time, from H projected by W over 'h'" in text
    assert "the gather writes D's rows' gradient taken back through their L2 normalisation" in text
    monkeypatch.delenv("HSR_HIDDEN", raising=False)
    assert dispatch.hidden_fused("cuda", 32, 128, training=True)
    assert dispatch.hidden_fused("cuda", 32, 128, training=False)
    assert dispatch.hidden_fused("cuda", 16 * 32, 128, training=True)  # a step: its cheaper backward pays
    assert not dispatch.hidden_fused("cuda", 16 * 32, 128, training=False)  # a forward of many query rows
    assert not dispatch.hidden_fused("cuda", 64 * 32, 128, training=True)  # (more than measured)
    assert not dispatch.hidden_fused("cpu", 32, 128, training=False)
    assert not dispatch.hidden_fused("cuda", 32, 128, training=True, deterministic=True)
