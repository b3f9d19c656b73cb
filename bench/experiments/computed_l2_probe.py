#!/usr/bin/env python3
"""Probe: L2 and L1 pairs over a computed operand (PLAID residual codes formed in the kernel), against
the same spec on rows decompressed first, and the dot (maxsim_residual_varlen) as the reference point.

One query of 32 tokens against packed documents (bench/residual.py's corpus: lengths in [Ld / 2, Ld],
32768 unit centroids, bucket weights), d = 128. do_bench medians of the public call, ms, host included;
"decompressed" times the spec alone on rows formed beforehand (what a user pays again per call is the
decompression: timed as its own row). Each L2 row's largest difference from the decompressed spec's
output is printed beside it.

    python3 bench/experiments/computed_l2_probe.py [--out DIR]   (HSR_AUTOTUNE=1: each call's config tuned first)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from pathlib import Path

import torch
import triton

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import residual  # noqa: E402  (bench/residual.py: the corpus and its decompression)

import hsr  # noqa: E402
import hsr.ops as ops  # noqa: E402

HEAD = "cu[j]: offsets\nQ[i, s, d]: float\n"
COMPUTED = HEAD + """C[c, d]: float
codes[j, t by cu]: int
res[j, t by cu, d]: uint{bits}
w[b]: float
D[j, t, d] = normalize(C[codes[j, t], d] + w[res[j, t, d]])
score[i, j] = sum_s {sel}_t {pair}
"""
STORED = HEAD + """D[j, t by cu, d]: float
score[i, j] = sum_s {sel}_t {pair}
"""
PAIRS = {"l2": ("min", "||Q_s - D_t||^2"), "gauss": ("max", "exp(-||Q_s - D_t||^2)"), "l1": ("min", "||Q_s - D_t||_1")}


def bench(f):
    return round(triton.testing.do_bench(f, warmup=25, rep=150), 4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--quick", action="store_true", help="the first corpus alone (a tuning run)")
    args = ap.parse_args()
    lines = []
    gen = torch.Generator().manual_seed(0)
    for nbits, nd, ld in ((2, 1024, 512), (4, 1024, 512), (2, 1024, 1024))[:1 if args.quick else 3]:
        q, codes, res, cu, centroids, weights, lengths = residual.corpus(torch, nd, ld, nbits, "cuda", gen)
        longest = int(lengths.max())
        for dtype in (torch.float16, torch.float32):
            Q = torch.nn.functional.normalize(q.float(), dim=-1).to(dtype)[None]
            C, w = centroids.to(dtype), weights.to(dtype)
            row = dict(nbits=nbits, Nd=nd, Ld=ld, dtype=str(dtype).split(".")[-1])
            row["dot residual_varlen"] = bench(lambda: ops.maxsim_residual_varlen(
                q, codes, res, cu, centroids, weights, nbits=nbits, max_seqlen_d=longest))
            row["decompress"] = bench(lambda: residual.decompress(torch, codes, res, centroids, weights, nbits))
            rows = residual.decompress(torch, codes, res, C, w, nbits).to(dtype)
            for name, (sel, pair) in PAIRS.items():
                computed = hsr.compile(COMPUTED.format(bits=nbits, sel=sel, pair=pair))
                stored = hsr.compile(STORED.format(sel=sel, pair=pair))
                got = computed(cu, Q, C, codes, res, w)
                want = stored(cu, Q, rows)
                row[f"{name} computed"] = bench(lambda: computed(cu, Q, C, codes, res, w))
                row[f"{name} decompressed"] = bench(lambda: stored(cu, Q, rows))
                row[f"{name} max diff"] = float((got.double() - want.double()).abs().max())
            print(json.dumps(row), flush=True)
            lines.append(json.dumps(row))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "computed_l2_probe.jsonl").write_text("\n".join(lines) + "\n")
    from hsr import autotune  # the configs the calls ran (tuned under HSR_AUTOTUNE=1), by lowering and key
    picks = {f"{k.lowering} {key}": autotune._describe(cfg) for k in gc.get_objects() if isinstance(k, autotune.Tuned)
             for kind in ("configs", "predicted") for key, cfg in getattr(k, kind).items()}
    (Path(args.out) / "computed_l2_picks.json").write_text(json.dumps(picks, indent=1) + "\n")


if __name__ == "__main__":
    main()
