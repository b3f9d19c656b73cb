"""The reference evaluator against formulas written directly in torch."""

import math

import pytest
import torch

import hsr
import hsr.reference as reference
from hsr.check import check
from hsr.parse import parse


def program(text):
    return check(parse(text))


MAXSIM = """
Q[i, s, d]: float
D[j, t, d]: float
qmask[i, s]: bool = all
dlen[j]: int = full
score[i, j] = sum_s max_t <Q_s, D_t> where qmask, t < dlen[j]
"""


def test_maxsim_with_mask_and_lengths():
    gen = torch.Generator().manual_seed(0)
    Q, D = torch.randn(3, 5, 8, generator=gen), torch.randn(4, 6, 8, generator=gen)
    qm = torch.rand(3, 5, generator=gen) > 0.4
    dlen = torch.tensor([0, 3, 6, 1])
    out = reference.evaluate(program(MAXSIM), Q, D, qmask=qm, dlen=dlen)
    S = torch.einsum("isd,jtd->ijst", Q.double(), D.double())
    valid = torch.arange(6)[None, :] < dlen[:, None]
    best = S.masked_fill(~valid[None, :, None, :], -math.inf).max(-1).values
    best = torch.where(valid.any(-1)[None, :, None], best, 0.0)
    assert torch.allclose(out, (best * qm[:, None, :]).sum(-1))


def test_chamfer_like_sum_of_two_directions():
    text = """
    P[b, n, c]: float
    R[b, m, c]: float
    cd[b] = mean_n min_m ||P_n - R_m||^2 + mean_m min_n ||R_m - P_n||^2
    """
    gen = torch.Generator().manual_seed(1)
    P, R = torch.randn(2, 7, 3, generator=gen), torch.randn(2, 5, 3, generator=gen)
    out = reference.evaluate(program(text), P, R)
    dist = torch.cdist(P.double(), R.double()) ** 2
    assert torch.allclose(out, dist.min(2).values.mean(1) + dist.min(1).values.mean(1))


def test_l1_dist_and_an_epilogue():
    text = """
    A[i, s, d]: float
    B[j, t, d]: float
    w[s]: float
    out[i, j] = sum_s w_s * log1p(relu(max_t -||A_s - B_t||_1 + 3))
    """
    gen = torch.Generator().manual_seed(2)
    A, B, w = torch.randn(2, 4, 5, generator=gen), torch.randn(3, 6, 5, generator=gen), torch.rand(4)
    out = reference.evaluate(program(text), A, B, w)
    l1 = (A.double()[:, None, :, None] - B.double()[None, :, None]).abs().sum(-1)
    expect = (w.double() * torch.log1p(torch.relu((-l1).max(-1).values + 3))).sum(-1)
    assert torch.allclose(out, expect)


def test_argmax_output_ties_and_empty_rows():
    text = """
    X[n, c]: float
    C[k, c]: float
    keep[k]: bool = all
    idx[n] = argmin_k ||X_n - C_k||^2 where keep
    """
    X = torch.tensor([[0.0, 0.0], [1.0, 1.0]])
    C = torch.tensor([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])  # X[0] is tied between 0 and 1
    out = reference.evaluate(program(text), X, C)
    assert out.dtype == torch.int64 and out.tolist() == [0, 0]
    none = reference.evaluate(program(text), X, C, keep=torch.zeros(3, dtype=torch.bool))
    assert none.tolist() == [-1, -1]


def test_gradients_flow_through_the_selected_index_only():
    Q = torch.tensor([[[1.0, 0.0]]], dtype=torch.float64, requires_grad=True)
    D = torch.tensor([[[2.0, 0.0], [2.0, 0.0], [0.0, 1.0]]], dtype=torch.float64, requires_grad=True)
    reference.evaluate(program(MAXSIM), Q, D).sum().backward()
    assert D.grad[0].tolist() == [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]  # the first of the tie
    assert Q.grad.tolist() == [[[2.0, 0.0]]]


def test_nan_propagates_and_all_minus_inf_picks_a_valid_index():
    Q = torch.ones(1, 1, 2)
    D = torch.tensor([[[1.0, 0.0], [float("nan"), 0.0]]])
    assert torch.isnan(reference.evaluate(program(MAXSIM), Q, D)).all()
    text = """
    A[i, s, d]: float
    B[j, t, d]: float
    m[j, t]: bool = all
    out[i, j] = sum_s max_t <A_s, B_t> where m
    """
    A = torch.ones(1, 1, 1)
    B = torch.tensor([[[-math.inf], [-math.inf]]])
    out, idx = reference.evaluate(program(text), A, B, m=torch.tensor([[False, True]]), return_indices=True)
    assert out.item() == -math.inf
    (picked, _), = idx.values()
    assert picked.flatten().tolist() == [1]


def test_chunking_gives_the_same_result(monkeypatch):
    """Integer-valued inputs: every product and sum is exact in float64, so
    the chunks must agree bitwise whatever blocking the BLAS picks per size."""
    gen = torch.Generator().manual_seed(3)
    Q = torch.randint(-4, 5, (9, 5, 8), generator=gen).float()
    D = torch.randint(-4, 5, (4, 6, 8), generator=gen).float()
    whole = reference.evaluate(program(MAXSIM), Q, D)
    monkeypatch.setattr(reference, "_CHUNK_BYTES", 1024)
    assert len(reference._chunks(program(MAXSIM), {"i": 9, "j": 4, "s": 5, "t": 6, "d": 8}, "i")) > 1
    assert torch.equal(reference.evaluate(program(MAXSIM), Q, D), whole)


def test_chunks_follow_the_longest_output_axis(monkeypatch):
    """One cloud of many points: the chunks split n, not the batch axis of
    size 1, and indices come back whole."""
    text = """
    X[b, n, d]: float
    Y[b, m, d]: float
    near[b, n] = argmin_m ||X_n - Y_m||^2
    """
    gen = torch.Generator().manual_seed(5)
    X, Y = torch.randn(1, 40, 3, generator=gen), torch.randn(1, 30, 3, generator=gen)
    whole, whole_idx = reference.evaluate(program(text), X, Y, return_indices=True)
    monkeypatch.setattr(reference, "_CHUNK_BYTES", 8 * 30 * 3 * 4)
    assert len(reference._chunks(program(text), {"b": 1, "n": 40, "m": 30, "d": 3}, "n")) == 10
    out, idx = reference.evaluate(program(text), X, Y, return_indices=True)
    assert torch.equal(out, whole)
    assert torch.equal(out, torch.cdist(X.double(), Y.double()).argmin(-1))
    for key, (picked, axes) in idx.items():
        assert torch.equal(picked, whole_idx[key][0]) and axes == whole_idx[key][1]


@pytest.mark.parametrize("op, fn", [("mean", lambda x: x.mean(-1)), ("max", lambda x: x.max(-1).values),
                                    ("min", lambda x: x.min(-1).values)])
def test_outer_reductions(op, fn):
    text = f"""
    A[i, s, d]: float
    B[j, t, d]: float
    out[i, j] = {op}_s max_t cos(A_s, B_t)
    """
    gen = torch.Generator().manual_seed(4)
    A, B = torch.randn(2, 4, 3, generator=gen), torch.randn(3, 5, 3, generator=gen)
    out = reference.evaluate(program(text), A, B)
    cos = torch.einsum("isd,jtd->ijst", torch.nn.functional.normalize(A.double(), dim=-1),
                       torch.nn.functional.normalize(B.double(), dim=-1))
    assert torch.allclose(out, fn(cos.max(-1).values))


def test_constants_and_defaults_live_on_the_inputs_device():
    """A spec's numbers and an omitted input's default are made on the inputs'
    device (meta here stands for a GPU: a CPU constant would not mix with it)."""
    op = hsr.compile("Q[i, s, d]: float\nD[j, t, d]: float\nw[i, s]: float = 1\n"
                     "score[i, j] = sum_s w_s * min_t 1 / (1 + ||Q_s - D_t||^2)\n")
    out = op.reference(torch.randn(2, 3, 4, device="meta"), torch.randn(2, 5, 4, device="meta"))
    assert out.device.type == "meta" and out.shape == (2, 2)
