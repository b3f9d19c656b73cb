"""PLAID-style late-interaction search built from hsr alone, end to end:

    python examples/plaid_search.py          # CPU, through Triton's interpreter: about 30 s
    python examples/plaid_search.py --gpu    # 20000 documents on a GPU

1. A synthetic corpus with structure that pruning can use: topics, each a few
   concepts; a document's tokens are noisy copies of its topic's concepts, and a
   query is noisy copies of tokens of one document (its relevant one).
2. Centroids by k-means, the assignment step compiled from
   examples/kmeans_assign.hsr (argmin_k ||X_n - C_k||^2, exact at any offset).
3. Residual codes: each coordinate of a token's residual (the token less its
   centroid) bucketed by cut-offs (quantiles of the residuals), nbits a
   coordinate, packed LSB-first; the bucket weights are each bucket's median.
4. Search three ways, each scoring the index as stored (no decompressed copy):
   candidates from PLAID's centroid stage (hsr.ops.plaid_centroid_scores_varlen)
   reranked by hsr.ops.maxsim_residual_varlen; the exhaustive scan over the codes
   (hsr.ops.maxsim_topk over a ResidualCorpus).
5. recall@10 of each against exact MaxSim over the uncompressed tokens, and the
   index's size against the same tokens in fp16.

Ends with "OK" where the exhaustive scan's recall@10 is at least 0.8, its scores
match MaxSim over the same index decompressed in float64 (the fp16 centroids'
rounding), and the index is at least 6x smaller than fp16 tokens.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import torch

SPEC = Path(__file__).resolve().with_name("kmeans_assign.hsr")


def corpus(n_docs, d, gen, device, per_topic=10, concepts=6, lengths=(20, 40), n_queries=3, q_len=16):
    """Unit tokens [T, d] fp32, offsets [n_docs + 1], queries [Nq, q_len, d] and each query's document.
    Each topic holds per_topic documents, whose tokens are noisy copies of its concepts: a query's
    exact top 10 is its topic, which pruning by centroids can find."""
    topics = max(1, n_docs // per_topic)
    centre = torch.nn.functional.normalize(torch.randn(topics, concepts, d, generator=gen), dim=-1)
    topic = torch.arange(n_docs) % topics
    length = torch.randint(lengths[0], lengths[1] + 1, (n_docs,), generator=gen)
    doc = torch.repeat_interleave(torch.arange(n_docs), length)
    concept = torch.randint(0, concepts, (doc.numel(),), generator=gen)
    tokens = centre[topic[doc], concept] + 1.2 * torch.randn(doc.numel(), d, generator=gen) / d ** 0.5
    tokens = torch.nn.functional.normalize(tokens, dim=-1)
    cu = torch.zeros(n_docs + 1, dtype=torch.int64)
    cu[1:] = length.cumsum(0)
    relevant = torch.randint(0, n_docs, (n_queries,), generator=gen)
    picks = [cu[j] + torch.randint(0, int(length[j]), (q_len,), generator=gen) for j in relevant.tolist()]
    queries = tokens[torch.stack(picks)] + 0.1 * torch.randn(n_queries, q_len, d, generator=gen) / d ** 0.5
    return tokens.to(device), cu.to(device), torch.nn.functional.normalize(queries, dim=-1).to(device), relevant


def kmeans(tokens, k, iters, assign, gen):
    """Lloyd's iterations from k random tokens; the assignment step is the compiled spec."""
    C = tokens[torch.randperm(tokens.shape[0], generator=gen)[:k].to(tokens.device)].clone()
    for _ in range(iters):
        labels = assign(tokens, C)
        sums = torch.zeros_like(C).index_add_(0, labels, tokens)
        counts = torch.bincount(labels, minlength=k).clamp_min(1).unsqueeze(1)
        C = torch.where(counts > 0, sums / counts, C)
    return torch.nn.functional.normalize(C, dim=-1)


def bucket_levels(residual, nbits):
    """(cut-offs [2^nbits - 1], bucket weights [2^nbits]): quantiles of a sample of residual coordinates."""
    levels = 1 << nbits
    sample = residual.flatten()[:1 << 20].float()
    cutoffs = torch.quantile(sample, torch.arange(1, levels, device=residual.device) / levels)
    weights = torch.quantile(sample, (torch.arange(levels, device=residual.device) + 0.5) / levels)
    return cutoffs, weights


def encode(tokens, C, nbits, assign, levels=None):
    """(codes int32 [T], residual bytes uint8 [T, d * nbits / 8], bucket weights [2^nbits]); levels:
    bucket_levels' (cut-offs, weights), else taken from these tokens' residuals."""
    codes = assign(tokens, C)
    residual = tokens - C[codes]
    cutoffs, weights = levels if levels is not None else bucket_levels(residual, nbits)
    buckets = torch.bucketize(residual, cutoffs)                     # 0 .. levels - 1 per coordinate
    per = 8 // nbits
    grouped = buckets.view(tokens.shape[0], -1, per) << (torch.arange(per, device=tokens.device) * nbits)
    return codes.to(torch.int32), grouped.sum(-1).to(torch.uint8), weights


def recall(found, exact):
    """Mean share of each query's exact top-10 that ``found`` holds."""
    return sum(len(set(f.tolist()) & set(e.tolist())) / len(e) for f, e in zip(found, exact)) / len(exact)


def main() -> int:
    GPU = "--gpu" in sys.argv
    if not GPU:
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton (imported by hsr.ops) is
    import hsr
    from hsr.ops import ResidualCorpus, maxsim_residual_varlen, maxsim_topk, plaid_centroid_scores_varlen

    device = "cuda" if GPU else "cpu"
    gen = torch.Generator().manual_seed(7)
    n_docs, d, k, nbits = (20000, 128, 4096, 2) if GPU else (60, 96, 16, 2)
    tokens, cu, Q, relevant = corpus(n_docs, d, gen, device)
    assign = hsr.compile(SPEC)
    C = kmeans(tokens, k, 4, assign, gen)
    codes, residuals, weights = encode(tokens, C, nbits, assign)
    index = ResidualCorpus(codes, residuals, cu, C.half(), weights, nbits)
    ratio = tokens.numel() * 2 / index.nbytes
    print(f"corpus: {n_docs} documents, {tokens.shape[0]} tokens of {d}; {k} centroids, nbits = {nbits}")
    print(f"index: {index.nbytes / 2**20:.2f} MiB against {tokens.numel() * 2 / 2**20:.2f} MiB of fp16 tokens "
          f"({ratio:.1f}x smaller)")

    nq = Q.shape[0]
    sims = torch.einsum("qsd,td->qst", Q.double(), tokens.double())  # exact: every pair, uncompressed
    exact = torch.stack([sims[:, :, int(cu[j]):int(cu[j + 1])].amax(-1).sum(-1) for j in range(n_docs)], dim=1)
    exact_top = exact.topk(10, dim=1).indices.cpu()

    scan_scores, scan_top = maxsim_topk(Q, index, 10)               # every document, as stored
    per = 8 // nbits                                                  # the check: the same rows decompressed here
    f = torch.arange(d, device=device)
    buckets = (residuals.long()[:, f // per] >> ((f % per) * nbits)) & ((1 << nbits) - 1)
    rows = torch.nn.functional.normalize(index.centroids.double()[codes.long()] + weights.double()[buckets], dim=-1)
    sims_c = torch.einsum("qsd,td->qst", Q.double(), rows)
    stored = torch.stack([sims_c[:, :, int(cu[j]):int(cu[j + 1])].amax(-1).sum(-1) for j in range(n_docs)], dim=1)
    error = (scan_scores.double() - stored.gather(1, scan_top)).abs().max().item()
    coarse = plaid_centroid_scores_varlen(Q, codes, cu, index.centroids)
    candidates = coarse.topk(min(n_docs, 20 if not GPU else 400), dim=1).indices
    reranked = []
    for q in range(nq):                                               # each query's candidates, as stored
        cand = candidates[q]
        lengths = (cu[1:] - cu[:-1])[cand]
        rows = torch.cat([torch.arange(int(cu[j]), int(cu[j + 1]), device=device) for j in cand.tolist()])
        sub_cu = torch.zeros(cand.numel() + 1, dtype=torch.int64, device=device)
        sub_cu[1:] = lengths.cumsum(0)
        scores = maxsim_residual_varlen(Q[q], codes[rows], residuals[rows], sub_cu, index.centroids, weights, nbits)
        reranked.append(cand[scores.topk(10).indices].cpu())
    r_scan, r_rerank = recall(scan_top, exact_top), recall(torch.stack(reranked), exact_top)
    hit = sum(int(r in t.tolist()) for r, t in zip(relevant.tolist(), scan_top.cpu())) / nq
    print(f"recall@10 against exact MaxSim: exhaustive scan over the codes {r_scan:.2f}, "
          f"centroid stage + rerank {r_rerank:.2f}; each query's own document in the scan's top 10: {hit:.2f}")
    print(f"the scan's scores against the rows decompressed in float64: max |error| {error:.1e}")
    if r_scan >= 0.8 and ratio >= 6 and error < 2e-2:
        print("OK")
        return 0
    print("FAILED: recall, the scores' check or the index's size")
    return 1


if __name__ == "__main__":
    sys.exit(main())
