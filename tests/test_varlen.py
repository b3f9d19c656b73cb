"""hsr.ops.maxsim_varlen and maxsim_pairs (ops/varlen.py): packed sequences
against hsr.ops.maxsim on the same data padded with masks, values and
gradients, through the interpreter (or on CUDA with HSR_TEST_DEVICE=cuda)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from hsr.errors import TensorError
from hsr.ops import maxsim, maxsim_pairs, maxsim_varlen


def _packed(lengths, d, gen, dtype=torch.float32):
    rows = torch.randn(sum(lengths), d, generator=gen).to(dtype)
    cu = torch.tensor([0] + torch.tensor(lengths, dtype=torch.int64).cumsum(0).tolist(), dtype=torch.int32)
    return rows, cu


def _padded(rows, lengths):
    """[N, max length, d] and its mask: the data maxsim takes."""
    longest = max(lengths + [1])
    out = rows.new_zeros(len(lengths), longest, rows.shape[1])
    mask = torch.zeros(len(lengths), longest, dtype=torch.bool)
    at = 0
    for n, length in enumerate(lengths):
        out[n, :length] = rows[at:at + length]
        mask[n, :length] = True
        at += length
    return out, mask


def _grads(out, inputs, seed):
    w = torch.randn(out.shape, generator=torch.Generator().manual_seed(seed)).to(out.device)
    return torch.autograd.grad((out * w).sum(), inputs)


@settings(max_examples=examples(12), deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=4), st.lists(st.integers(0, 13), min_size=1, max_size=4),
       st.booleans(), st.integers(0, 2**31 - 1))
def test_varlen_matches_padded_maxsim(device, lq, ld, normalize, seed):
    gen = torch.Generator().manual_seed(seed)
    (Q, cq), (D, cd) = _packed(lq, 16, gen), _packed(ld, 16, gen)
    Qp, qm = _padded(Q, lq)
    Dp, dm = _padded(D, ld)
    Q, D, Qp, Dp = (x.to(device).requires_grad_() for x in (Q, D, Qp, Dp))
    mine = maxsim_varlen(Q, D, cq.to(device), cd.to(device), normalize=normalize)
    want = maxsim(Qp, Dp, qm.to(device), dm.to(device), normalize=normalize)
    assert mine.shape == (len(lq), len(ld))
    assert torch.allclose(mine, want, atol=1e-5)
    gq, gd = _grads(mine, (Q, D), seed)
    gqp, gdp = _grads(want, (Qp, Dp), seed)
    assert torch.allclose(gq, gqp[qm.to(device)], atol=1e-5)
    assert torch.allclose(gd, gdp[dm.to(device)], atol=1e-5)


def test_varlen_with_max_seqlen_and_backwards(device, backward):
    gen = torch.Generator().manual_seed(1)
    lq, ld = [4, 0, 2], [6, 1, 3, 0]
    (Q, cq), (D, cd) = _packed(lq, 32, gen, torch.float16), _packed(ld, 32, gen, torch.float16)
    Q, D, cq, cd = Q.to(device).requires_grad_(), D.to(device).requires_grad_(), cq.to(device), cd.to(device)
    plain = maxsim_varlen(Q, D, cq, cd, backward=backward)
    given_ = maxsim_varlen(Q, D, cq, cd, 4, 6, backward=backward)
    assert torch.equal(plain, given_)
    assert (plain[1] == 0).all() and (plain[:, 3] == 0).all()  # an empty query, an empty document
    g1 = _grads(plain, (Q, D), 2)
    g2 = _grads(given_, (Q, D), 2)
    assert all(torch.equal(a, b) for a, b in zip(g1, g2))


def test_pairs_score_each_pair(device):
    gen = torch.Generator().manual_seed(3)
    lq, ld = [3, 1, 5], [2, 7, 4]
    (Q, cq), (D, cd) = _packed(lq, 16, gen), _packed(ld, 16, gen)
    full = maxsim_varlen(Q.to(device), D.to(device), cq.to(device), cd.to(device))
    pairs = maxsim_pairs(Q.to(device), D.to(device), cq.to(device), cd.to(device), max_seqlen_q=5)
    assert pairs.shape == (3,)
    assert torch.allclose(pairs, full.diagonal(), atol=1e-6)
    cos = maxsim_pairs(Q.to(device), D.to(device), cq.to(device), cd.to(device), normalize=True)
    assert torch.allclose(cos, maxsim_varlen(Q.to(device), D.to(device), cq.to(device), cd.to(device),
                                             normalize=True).diagonal(), atol=1e-6)


def test_bad_calls_raise():
    Q, cq = _packed([2, 3], 8, torch.Generator().manual_seed(0))
    with pytest.raises(TensorError, match="Q_packed must be a torch.Tensor"):
        maxsim_varlen(Q.tolist(), Q, cq, cq)
    with pytest.raises(TensorError, match="max_seqlen_q must be an int"):
        maxsim_varlen(Q, Q, cq, cq, max_seqlen_q=2.5)
    with pytest.raises(TensorError, match="longer than max_seqlen"):
        maxsim_varlen(Q, Q, cq, cq, max_seqlen_q=2)
    with pytest.raises(TensorError, match="N \\+ 1 offsets"):
        maxsim_pairs(Q, Q, cq, cq[:2])
    with pytest.raises(TensorError, match="decrease"):
        maxsim_varlen(Q, Q, torch.tensor([0, 4, 5]), torch.tensor([0, 3, 2, 5]))
