#!/usr/bin/env python3
"""Interop with a real index, on a GPU: fast-plaid 1.7 builds an index (nbits 2 and 4) over
a synthetic corpus, hsr.ops.load_fast_plaid reads it, and each query's candidates (fast-plaid's
own top 100) are scored by hsr.ops.maxsim_residual_varlen over the index as stored and by
MaxSim (float64) over fast-plaid's own decompression of the same documents
(FastPlaid.get_embeddings). Prints and writes (plaid_interop.json under --out) the largest
differences, against fast-plaid's search scores too.

    pip install --no-deps --target /tmp/site_fp .whl/plaid/*.whl
    PYTHONPATH=/tmp/site_fp:$PYTHONPATH python3 bench/plaid_interop.py --out DIR
"""
import argparse
import json
import os
import tempfile

import torch

from hsr.ops import load_fast_plaid, maxsim_residual_varlen, maxsim_varlen


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    p.add_argument("--docs", type=int, default=3000)
    args = p.parse_args()
    from importlib.metadata import version

    from fast_plaid import search as fp_search

    gen = torch.Generator().manual_seed(0)
    topics = torch.nn.functional.normalize(torch.randn(64, 128, generator=gen), dim=-1)
    docs = []
    for _ in range(args.docs):
        n = int(torch.randint(30, 121, (1,), generator=gen))
        centre = topics[torch.randint(0, 64, (n,), generator=gen)]
        docs.append(torch.nn.functional.normalize(centre + 0.3 * torch.randn(n, 128, generator=gen), dim=-1))
    queries = torch.nn.functional.normalize(topics[torch.randint(0, 64, (8, 32), generator=gen)]
                                            + 0.3 * torch.randn(8, 32, 128, generator=gen), dim=-1)
    result = {"fast_plaid": version("fast-plaid"), "torch": torch.__version__,
              "device": torch.cuda.get_device_name(), "docs": args.docs, "rows": []}
    for nbits in (2, 4):
        path = tempfile.mkdtemp()
        index = fp_search.FastPlaid(index=path, device="cuda")
        index.create(documents_embeddings=docs, nbits=nbits)
        corpus = load_fast_plaid(path, device="cuda")
        found = index.search(queries_embeddings=queries, top_k=100, show_progress=False)
        worst_rows = worst_search = 0.0
        for q, hits in zip(queries, found):
            ids = [d for d, _s in hits]
            rows = index.get_embeddings(ids)  # fast-plaid's own decompression of each candidate
            lengths = torch.tensor([0] + [len(r) for r in rows])
            want = maxsim_varlen(q.double(), torch.cat([r.double().cpu() for r in rows]),
                                 torch.tensor([0, q.shape[0]]), lengths.cumsum(0)).reshape(-1)
            mine = maxsim_residual_varlen(q[None].cuda().to(corpus.centroids.dtype), corpus.codes, corpus.residuals,
                                          corpus.cu_seqlens, corpus.centroids, corpus.bucket_weights,
                                          corpus.nbits).reshape(-1)[ids].double().cpu()
            theirs = torch.tensor([s for _d, s in hits], dtype=torch.float64)
            worst_rows = max(worst_rows, float((mine - want).abs().max()))
            worst_search = max(worst_search, float((mine - theirs).abs().max()))
        row = {"nbits": nbits, "tokens": int(corpus.codes.numel()),
               "max |hsr - MaxSim over fast-plaid's decompression|": worst_rows,
               "max |hsr - fast-plaid's search score|": worst_search,
               "score scale": float(want.abs().max())}
        print(json.dumps(row), flush=True)
        result["rows"].append(row)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "plaid_interop.json"), "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
