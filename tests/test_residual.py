"""hsr.ops.maxsim_residual, maxsim_residual_varlen, plaid_centroid_scores and plaid_bytes
(ops/residual.py) against the same MaxSim on the rows decompressed by hand, in float64,
through the interpreter (or on CUDA with HSR_TEST_DEVICE=cuda)."""

from __future__ import annotations

import pytest
import torch

from hsr.errors import TensorError
from hsr.ops import maxsim_residual, maxsim_residual_varlen, plaid_bytes, plaid_centroid_scores


def _corpus(nbits, lengths, d, gen, n_centroids=6):
    total = sum(lengths)
    centroids = torch.randn(n_centroids, d, generator=gen)
    codes = torch.randint(0, n_centroids, (total,), generator=gen)
    buckets = torch.randint(0, 1 << nbits, (total, d), generator=gen)
    per = 8 // nbits
    padded = torch.zeros(total, -(-d // per) * per, dtype=torch.int64)
    padded[:, :d] = buckets
    residuals = (padded.view(total, -1, per) << (torch.arange(per) * nbits)).sum(-1).to(torch.uint8)
    weights = torch.randn(1 << nbits, generator=gen) * 0.3
    rows = centroids.double()[codes] + weights.double()[buckets]
    return centroids, codes, residuals, weights, rows


def _maxsim(Q, rows, lengths, normalize):
    """float64 MaxSim of Q [Nq, Lq, d] against packed rows (normalised where asked)."""
    if normalize:
        Q, rows = torch.nn.functional.normalize(Q, dim=-1), torch.nn.functional.normalize(rows, dim=-1)
    out, at = [], 0
    for n in lengths:
        doc = rows[at:at + n]
        at += n
        out.append(torch.einsum("isd,td->ist", Q, doc).amax(-1).sum(-1) if n else torch.zeros(Q.shape[0], dtype=Q.dtype))
    return torch.stack(out, dim=1)


@pytest.mark.parametrize("nbits, normalize", [(2, True), (4, True), (1, True), (4, False)])
def test_residual_ops_match_the_decompressed_rows(device, nbits, normalize):
    gen = torch.Generator().manual_seed(nbits)
    lengths, d = [7, 0, 12, 3, 70], 24  # (70: tiles of 64 tokens, whose product the kernel swaps)
    centroids, codes, residuals, weights, rows = _corpus(nbits, lengths, d, gen)
    Q = torch.randn(2, 5, d, generator=gen)
    want = _maxsim(Q.double(), rows, lengths, normalize)
    cu = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int32)
    dev = lambda *xs: [x.to(device) for x in xs]  # noqa: E731
    packed = maxsim_residual_varlen(*dev(Q, codes, residuals, cu, centroids, weights), nbits, max_seqlen_d=70,
                                    normalize=normalize)
    assert torch.allclose(packed.double().cpu(), want, atol=1e-4)
    longest = max(lengths)
    pc, pr = torch.zeros(len(lengths), longest, dtype=torch.int64), torch.zeros(len(lengths), longest, residuals.shape[1],
                                                                                dtype=torch.uint8)
    at = 0
    for j, n in enumerate(lengths):
        pc[j, :n], pr[j, :n] = codes[at:at + n], residuals[at:at + n]
        at += n
    Qg = Q.to(device).requires_grad_()
    padded = maxsim_residual(Qg, *dev(pc, pr, torch.tensor(lengths), centroids, weights), nbits, normalize=normalize)
    assert torch.allclose(padded.double().cpu(), want, atol=1e-4)
    Qr = Q.double().requires_grad_()
    g = torch.randn(want.shape, generator=gen)
    (grad,) = torch.autograd.grad((padded * g.to(device)).sum(), Qg)
    (want_grad,) = torch.autograd.grad((_maxsim(Qr, rows, lengths, normalize) * g.double()).sum(), Qr)
    assert torch.allclose(grad.double().cpu(), want_grad, atol=1e-4)
    one = maxsim_residual(*dev(Q[0], pc, pr), None, *dev(centroids, weights), nbits, normalize=normalize)
    assert one.shape == (len(lengths),)


def test_centroid_stage_and_plaid_bytes(device):
    gen = torch.Generator().manual_seed(0)
    lengths = [4, 9]
    centroids, codes, _res, _w, _rows = _corpus(2, lengths, 16, gen)
    Q = torch.randn(3, 4, 16, generator=gen)
    pc = torch.stack([torch.cat([codes[:4], torch.zeros(5, dtype=torch.int64)]), codes[4:]])
    out = plaid_centroid_scores(*(x.to(device) for x in (Q, pc, torch.tensor(lengths), centroids)))
    want = _maxsim(Q.double(), centroids.double()[codes], lengths, True)
    assert torch.allclose(out.double().cpu(), want, atol=1e-4)
    x = torch.tensor([0b00000001, 0b10110000, 0xFF], dtype=torch.uint8)
    assert plaid_bytes(x).tolist() == [0b10000000, 0b00001101, 0xFF]


def test_bad_arguments():
    Q, c, r, w = torch.randn(2, 8), torch.randn(3, 8), torch.zeros(1, 2, 2, dtype=torch.uint8), torch.randn(4)
    codes = torch.zeros(1, 2, dtype=torch.int64)
    with pytest.raises(TensorError, match="nbits must be one of"):
        maxsim_residual(Q, codes, r, None, c, w, 3)
    with pytest.raises(TensorError, match="bucket_weights must hold 2\\^nbits = 4 values"):
        maxsim_residual(Q, codes, r, None, c, w[:2], 2)
    with pytest.raises(TensorError, match="'residuals' holds 2-bit codes along 'd'"):
        maxsim_residual(Q, codes, r[..., :1], None, c, w, 2)
    with pytest.raises(TensorError, match="must be torch.uint8"):
        plaid_bytes(r.to(torch.int32))


FAST_PLAID = __import__("pathlib").Path(__file__).parent / "data" / "fast_plaid_2bit"


def test_a_fast_plaid_index_scores_as_fast_plaid_decompresses_it(device):
    """tests/data/fast_plaid_2bit (built by fast-plaid 1.7.0; its README says how): hsr's scores over the index
    as stored equal MaxSim over fast-plaid's own decompression of every token, within its fp16 rounding."""
    import numpy as np

    from hsr.ops import load_fast_plaid, maxsim_varlen

    corpus = load_fast_plaid(FAST_PLAID, device=device)
    assert (len(corpus), corpus.nbits, corpus.max_seqlen) == (24, 2, 11)
    rows = torch.from_numpy(np.load(FAST_PLAID / "expected_embeddings.npy")).double()
    Q = torch.nn.functional.normalize(torch.randn(3, 6, 64, generator=torch.Generator().manual_seed(2)), dim=-1)
    mine = maxsim_residual_varlen(Q.to(device), corpus.codes, corpus.residuals, corpus.cu_seqlens, corpus.centroids,
                                  corpus.bucket_weights, corpus.nbits)
    want = maxsim_varlen(Q.reshape(-1, 64).double(), rows, torch.tensor([0, 6, 12, 18]), corpus.cu_seqlens.cpu())
    assert torch.allclose(mine.double().cpu(), want, atol=2e-3)  # (fast-plaid's rows are fp16: 6 of them summed)
    per_token = corpus.codes.numel() * 4 + corpus.residuals.numel()  # 20 bytes a token: 6.4x fewer than fp16 rows
    assert per_token * 6 < rows.numel() * 2
