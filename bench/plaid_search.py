#!/usr/bin/env python3
"""Exhaustive MaxSim search over a corpus stored as PLAID codes, fp16 or int8 rows, against fast-plaid's search.

    python3 bench/plaid_search.py [--out DIR] [--docs 10000,200000,1000000] [--fast-plaid 10000] [--budget-s 500]

A synthetic corpus with topic structure (examples/plaid_search.py's: topics of 10 documents, each a few
concepts; 150 to 300 tokens a document, d = 128; 64 queries of 32 tokens, each copied from one document's
tokens), generated on the GPU a chunk at a time. The index is built with hsr: centroids by k-means (the
compiled assignment spec, on a sample), residuals bucketed by quantiles, nbits = 2. For each corpus size:
- exact: MaxSim of every query over the uncompressed rows (fp16, hsr.ops.maxsim_varlen), the top 10;
- hsr over the 2-bit codes: hsr.ops.maxsim_topk(Q, ResidualCorpus, 10), every document scored as stored,
  one query and the 64 as a batch (time per query);
- hsr over fp16 rows and int8 rows (quantize_int8), resident, where they fit (time per query);
- fast-plaid's search on the same documents (its own index, nbits = 2, defaults otherwise), where asked:
  its build time, time per query, one query and the batch.
Each: time per query (do_bench median, host included), recall@10 against exact, index bytes. Writes
plaid_search.json and .md to --out (else $OUT, else bench/results).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
D, NBITS, NQ, LQ, CHUNK = 128, 2, 64, 32, 20000


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT") or "bench/results")
    p.add_argument("--docs", default="10000,200000,1000000")
    p.add_argument("--fast-plaid", default="10000", help="corpus sizes to build fast-plaid indexes for ('' none)")
    p.add_argument("--budget-s", type=float, default=500.0)
    return p.parse_args(argv)


def make(n_docs, gen, torch):
    """(packed fp16 tokens [T, d] or None past 200000 documents, offsets, queries [NQ, LQ, d],
    exact top-10 [NQ, 10], the queries' documents), a chunk of documents at a time on the GPU."""
    from hsr.ops import maxsim_varlen

    topics = n_docs // 10
    centre = torch.nn.functional.normalize(torch.randn(topics, 6, D, generator=gen, device="cuda"), dim=-1)
    lengths = torch.randint(150, 301, (n_docs,), generator=gen, device="cuda")
    cu = torch.zeros(n_docs + 1, dtype=torch.int64, device="cuda")
    cu[1:] = lengths.cumsum(0)
    relevant = torch.randint(0, n_docs, (NQ,), generator=gen, device="cuda")
    keep = n_docs <= 200000
    chunks, exact, queries = [], [], None

    def chunk_tokens(lo, hi):
        g = torch.Generator(device="cuda").manual_seed(1000 + lo)
        doc = torch.repeat_interleave(torch.arange(lo, hi, device="cuda"), lengths[lo:hi])
        concept = torch.randint(0, 6, (doc.numel(),), generator=g, device="cuda")
        x = centre[doc % topics, concept] + 1.2 * torch.randn(doc.numel(), D, generator=g, device="cuda") / D ** 0.5
        return torch.nn.functional.normalize(x, dim=-1).half()

    picks = []
    for lo in range(0, n_docs, CHUNK):
        hi = min(n_docs, lo + CHUNK)
        x = chunk_tokens(lo, hi)
        for q, j in enumerate(relevant.tolist()):
            if lo <= j < hi:
                at = int(cu[j] - cu[lo])
                idx = at + torch.randint(0, int(lengths[j]), (LQ,), generator=gen, device="cuda")
                picks.append((q, x[idx].float()))
        if keep:
            chunks.append(x)
    rows = torch.zeros(NQ, LQ, D, device="cuda")
    for q, r in picks:
        rows[q] = r
    queries = torch.nn.functional.normalize(rows + 0.1 * torch.randn(NQ, LQ, D, generator=gen, device="cuda")
                                            / D ** 0.5, dim=-1).half()
    cu_q = torch.arange(0, NQ * LQ + 1, LQ, device="cuda", dtype=torch.int32)
    for lo in range(0, n_docs, CHUNK):  # exact scores, chunk by chunk (the tokens made again where not kept)
        hi = min(n_docs, lo + CHUNK)
        x = chunks[lo // CHUNK] if keep else chunk_tokens(lo, hi)
        exact.append(maxsim_varlen(queries.reshape(-1, D), x, cu_q, (cu[lo:hi + 1] - cu[lo]).int(),
                                   max_seqlen_q=LQ, max_seqlen_d=300))
    top = torch.cat(exact, dim=1).topk(10, dim=1).indices
    return (torch.cat(chunks) if keep else None), cu, queries, top, chunk_tokens


def build_index(n_docs, cu, tokens_of, gen, torch, hsr, k=16384):
    """hsr's PLAID index: centroids by k-means on a sample, then each chunk's codes and residual bytes."""
    from plaid_search import bucket_levels, encode, kmeans

    assign = hsr.compile(ROOT / "examples" / "kmeans_assign.hsr")
    sample = tokens_of(0, min(n_docs, CHUNK)).float()
    sample = sample[torch.randperm(sample.shape[0], device="cuda")[:k * 16]]
    half = lambda x, c: assign(x.half(), c.half())  # noqa: E731 - (the 16-bit key: the index's codes)
    C = kmeans(sample, k, 4, half, torch.Generator().manual_seed(0))
    levels = bucket_levels(sample - C[half(sample, C)], NBITS)
    weights = levels[1]
    total = int(cu[-1])
    codes = torch.empty(total, dtype=torch.int32, device="cuda")
    res = torch.empty(total, D * NBITS // 8, dtype=torch.uint8, device="cuda")
    for lo in range(0, n_docs, CHUNK):  # each chunk's codes and bytes, by the sample's cut-offs
        hi = min(n_docs, lo + CHUNK)
        t0, t1 = int(cu[lo]), int(cu[hi])
        codes[t0:t1], res[t0:t1], _ = encode(tokens_of(lo, hi).float(), C, NBITS, half, levels)
    return C.half(), weights, codes, res


def main(argv=None):
    args = parse_args(argv)
    import torch
    import triton
    import triton.testing

    import hsr
    from hsr.ops import ResidualCorpus, maxsim_topk, quantize_int8
    from plaid_search import recall

    t_start = time.monotonic()
    results = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                   triton=triton.__version__, rows=[])
    try:
        from importlib.metadata import version

        from fast_plaid import search as fp_search
        results["fast_plaid"] = version("fast-plaid")
    except Exception as e:  # noqa: BLE001 - a missing peer is a note
        fp_search, results["fast_plaid"] = None, f"not installed ({type(e).__name__})"
    fp_sizes = {int(x) for x in args.fast_plaid.split(",") if x}
    gen = torch.Generator(device="cuda").manual_seed(0)

    def timed(call, per):
        call(); torch.cuda.synchronize()
        return triton.testing.do_bench(call, warmup=5, rep=40, return_mode="median") / per

    for n in (int(x) for x in args.docs.split(",")):
        if time.monotonic() - t_start > args.budget_s:
            results["rows"].append(dict(docs=n, variant="skipped (budget)"))
            continue
        t0 = time.monotonic()
        tokens, cu, Q, exact, tokens_of = make(n, gen, torch)
        C, w, codes, res = build_index(n, cu, tokens_of, gen, torch, hsr)
        print(f"{n} documents ({int(cu[-1])} tokens): made and indexed in {time.monotonic() - t0:.1f} s", flush=True)
        corpus = ResidualCorpus(codes, res, cu, C, w, NBITS, max_seqlen=300)
        rows = []

        def row(variant, nbytes, one, batch):
            top = batch()[1]
            r = dict(docs=n, variant=variant, index_bytes=nbytes, recall10=recall(top, exact),
                     ms_one=timed(one, 1), ms_per_query_batch=timed(batch, NQ))
            rows.append(r)
            print(f"  {variant:26s} {r['ms_one']:9.3f} ms/query alone  {r['ms_per_query_batch']:8.3f} ms/query in 64"
                  f"  recall@10 {r['recall10']:.3f}  index {nbytes / 2**30:.2f} GiB", flush=True)

        row("hsr 2-bit codes", corpus.nbytes, lambda: maxsim_topk(Q[:1], corpus, 10), lambda: maxsim_topk(Q, corpus, 10))
        if tokens is not None:
            lengths = (cu[1:] - cu[:-1])
            padded = torch.zeros(n, 300, D, dtype=torch.float16, device="cuda")
            mask = torch.arange(300, device="cuda")[None, :] < lengths[:, None]
            padded[mask] = tokens
            del tokens
            row("hsr fp16 rows", padded.numel() * 2, lambda: maxsim_topk(Q[:1], padded, 10, corpus_mask=mask),
                lambda: maxsim_topk(Q, padded, 10, corpus_mask=mask))
            stored = quantize_int8(padded)
            del padded
            row("hsr int8 rows", sum(x.numel() * x.element_size() for x in stored),
                lambda: maxsim_topk(Q[:1], stored, 10, corpus_mask=mask), lambda: maxsim_topk(Q, stored, 10, corpus_mask=mask))
            del stored
        if fp_search is not None and n in fp_sizes:
            import shutil
            import tempfile
            path = tempfile.mkdtemp()
            docs = [tokens_of(lo, min(n, lo + CHUNK)) for lo in range(0, n, CHUNK)]
            flat = torch.cat(docs)
            per_doc = [flat[int(cu[j]):int(cu[j + 1])].float() for j in range(n)]
            t0 = time.monotonic()
            index = fp_search.FastPlaid(index=path, device="cuda")
            index.create(documents_embeddings=per_doc, nbits=NBITS)
            build = time.monotonic() - t0
            size = sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())

            def fp(q):
                out = index.search(queries_embeddings=q.float(), top_k=10, show_progress=False)
                return None, torch.tensor([[d for d, _s in r] + [-1] * (10 - len(r)) for r in out])
            row(f"fast-plaid search (build {build:.0f} s)", size, lambda: fp(Q[:1]), lambda: fp(Q))
            shutil.rmtree(path, ignore_errors=True)
        results["rows"] += rows
        del corpus, codes, res
        torch.cuda.empty_cache()
    os.makedirs(args.out, exist_ok=True)
    Path(args.out, "plaid_search.json").write_text(json.dumps(results, indent=1))
    lines = [f"# Exhaustive search over stored corpora, {results['device']} (torch {results['torch']}, "
             f"Triton {results['triton']}, fast-plaid {results['fast_plaid']})", "",
             "| documents | variant | ms / query, alone | ms / query, in a batch of 64 | recall@10 | index GiB |",
             "|---|---|---|---|---|---|"]
    for r in results["rows"]:
        if "ms_one" in r:
            lines.append(f"| {r['docs']} | {r['variant']} | {r['ms_one']:.3f} | {r['ms_per_query_batch']:.3f} | "
                         f"{r['recall10']:.3f} | {r['index_bytes'] / 2**30:.3f} |")
        else:
            lines.append(f"| {r['docs']} | {r['variant']} | | | | |")
    Path(args.out, "plaid_search.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
