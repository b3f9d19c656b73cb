#!/usr/bin/env python3
"""Probe: where the time of maxsim_residual_varlen's kernel goes. One query (32 x 128, fp16) against packed documents
of 150-300 tokens stored as 2-bit PLAID codes (32768 centroids); the op's spec compiled with its computed rows cut to
one term or another (the centroid gather, the residual's unpack, the normalisation), each timed (do_bench ms, the
public call), in one process. At 1M documents the whole spec took 66 ms (H200), the centroid-score probe's unpack
60% of its own 28 (bench/results/h200-centroid-scores-2026-11-28/).

    python3 bench/experiments/residual_terms_probe.py [--docs 200000] [--out DIR]     # a GPU
    python3 bench/experiments/residual_terms_probe.py --check                         # the interpreter, 6 documents
    python3 bench/experiments/residual_terms_probe.py --tune [--only whole,residual]   # each also tuned (HSR_AUTOTUNE=1)
    ncu --profile-from-start off ... python3 bench/experiments/residual_terms_probe.py --ncu   # one warm call each
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

if "--check" in sys.argv:
    os.environ["TRITON_INTERPRET"] = "1"
import torch  # noqa: E402

HEAD = """Q[i, s, d]: float
cu[j]: offsets
"""
ROWS = {  # the computed rows' definition, and the inputs it reads beside codes
    "whole": ("normalize(centroids[codes[j, t], d] + bucket_weights[residuals[j, t, d]])", ("C", "R")),
    "no normalize": ("centroids[codes[j, t], d] + bucket_weights[residuals[j, t, d]]", ("C", "R")),
    "centroid, normalized": ("normalize(centroids[codes[j, t], d])", ("C",)),
    "centroid": ("centroids[codes[j, t], d]", ("C",)),
    "residual": ("bucket_weights[residuals[j, t, d]]", ("R",)),
    "residual, normalized": ("normalize(bucket_weights[residuals[j, t, d]])", ("R",)),
}


def spec(rows: str, reads: tuple) -> str:
    decl = ("centroids[c, d]: float\ncodes[j, t by cu]: int\n" if "C" in reads else "") + \
        ("residuals[j, t by cu, d]: uint2\nbucket_weights[b]: float\n" if "R" in reads else "")
    return HEAD + decl + f"D[j, t, d] = {rows}\nscore[i, j] = sum_s max_t <Q_s, D_t>\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--docs", type=int, default=200000)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--tune", action="store_true", help="each spec timed again after HSR_AUTOTUNE=1 tuned its key")
    ap.add_argument("--only", default="", help="comma-separated names of ROWS")
    ap.add_argument("--ncu", action="store_true", help="one warm call of each between cudaProfilerStart/Stop")
    ap.add_argument("--set", default="", help="hsr.dispatch constants for the whole run: NAME=VALUE;... (dispatch_probe)")
    args = ap.parse_args()
    import hsr
    sys.path.insert(0, str(Path(__file__).parent))
    from centroid_scores_probe import corpus
    if args.set:
        from dispatch_probe import variant
        from hsr import dispatch
        for name, value in variant(args.set).items():
            setattr(dispatch, name, value)
    device = "cpu" if args.check else "cuda"
    gen = torch.Generator(device=device).manual_seed(0)
    C, codes, res, w, cu = corpus(6 if args.check else args.docs, device, gen)
    q = torch.nn.functional.normalize(torch.randn(1, 32, 128, generator=gen, device=device), dim=-1).half()
    named = {"C": dict(centroids=C, codes=codes), "R": dict(residuals=res, bucket_weights=w)}
    rows = []
    only = [x for x in args.only.split(",") if x]
    for name, (text, reads) in ROWS.items():
        if only and name not in only:
            continue
        op = hsr.compile(spec(text, reads))
        inputs = dict(Q=q, cu=cu, **{k: v for r in reads for k, v in named[r].items()})
        out = op(**inputs)
        row = {"rows": name, "set": args.set or os.environ.get("HSR_PERSIST", ""), "docs": cu.numel() - 1, "tokens": codes.numel(), "checksum": float(out.float().sum()),
               "kernel": [line.strip() for line in op.explain().splitlines() if "computed operand" in line][:1]}
        if args.ncu:
            for _ in range(3):
                op(**inputs)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push(name)
            torch.cuda.profiler.start()
            op(**inputs)
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
            torch.cuda.nvtx.range_pop()
        elif not args.check:
            import triton
            row["ms"] = round(triton.testing.do_bench(lambda: op(**inputs), warmup=10, rep=60), 3)
            if args.tune:  # the predicted config, then the tuned one and its time
                from hsr import autotune, kept
                row["predicted"] = autotune.chosen(op.module.score_fwd)
                os.environ["HSR_AUTOTUNE"] = "1"
                kept.forget()
                op(**inputs)
                torch.cuda.synchronize()
                os.environ.pop("HSR_AUTOTUNE")
                kept.forget()
                row["tuned"] = autotune.chosen(op.module.score_fwd)
                row["tuned ms"] = round(triton.testing.do_bench(lambda: op(**inputs), warmup=10, rep=60), 3)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if not args.check:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "residual_terms_probe.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")


if __name__ == "__main__":
    main()
