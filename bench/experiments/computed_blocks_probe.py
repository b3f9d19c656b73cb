#!/usr/bin/env python3
"""Probe: which blocks suit a computed operand's general loop? maxsim_residual_varlen's spec, one query (32 x 128,
fp16) against packed documents of 2-bit PLAID codes: its kernel held 191 registers at 4 warps and 128-token tiles
(2 programs a multiprocessor, 8 warps: ncu's "no eligible warp" 58% of cycles; bench/results/
h200-residual-terms-2026-11-28/). Each config given is launched as the prediction (hsr.autotune.Tuned.predict
patched), at each PERSIST_PROGRAMS_PER_SM given; do_bench medians (ms) of the public call, in one process.

    python3 bench/experiments/computed_blocks_probe.py --docs 200000 --configs 128,4,4 64,4,3 128,8,3 --per-sm 2,4
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ["HSR_AUTOTUNE_CACHE"] = "0"  # no kept or shipped pick: every call runs the prediction, patched below
import torch  # noqa: E402
import triton  # noqa: E402

import hsr  # noqa: E402
from hsr import autotune, dispatch, kept  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from centroid_scores_probe import corpus  # noqa: E402
from residual_terms_probe import ROWS, spec  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=200000)
    ap.add_argument("--rows", default="whole", help="a name of residual_terms_probe.ROWS")
    ap.add_argument("--configs", nargs="+", default=["128,4,4"], help="BLOCK_T,warps,stages (BLOCK_S 32)")
    ap.add_argument("--per-sm", default="2")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(0)
    C, codes, res, w, cu = corpus(args.docs, "cuda", gen)
    q = torch.nn.functional.normalize(torch.randn(1, 32, 128, generator=gen, device="cuda"), dim=-1).half()
    text, reads = ROWS[args.rows]
    op = hsr.compile(spec(text, reads))
    named = {"C": dict(centroids=C, codes=codes), "R": dict(residuals=res, bucket_weights=w)}
    inputs = dict(Q=q, cu=cu, **{k: v for r in reads for k, v in named[r].items()})
    rows, want = [], None
    for per_sm in (int(x) for x in args.per_sm.split(",")):
        dispatch.PERSIST_PROGRAMS_PER_SM = per_sm
        for text_cfg in args.configs:
            t, warps, stages = (int(x) for x in text_cfg.split(","))
            config = {"kwargs": {"BLOCK_S": 32, "BLOCK_T": t, "BLOCK_I": 1}, "num_warps": warps, "num_stages": stages}
            autotune.Tuned.predict = lambda self, key, named, config=config: config
            for tuned in autotune._tuned.values():
                tuned.configs.clear()
                tuned.predicted.clear()
            kept.forget(launches=True)
            row = {"rows": args.rows, "docs": args.docs, "per_sm": per_sm, "config": text_cfg}
            try:
                out = op(**inputs)
                want = out if want is None else want
                row["max diff"] = float((out - want).abs().max())
                row["ms"] = round(triton.testing.do_bench(lambda: op(**inputs), warmup=10, rep=60), 3)
            except Exception as e:  # out of resources: the next config
                row["error"] = f"{type(e).__name__}: {str(e)[:120]}"
            print(json.dumps(row), flush=True)
            rows.append(row)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / f"computed_blocks_{args.rows}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")


if __name__ == "__main__":
    main()
