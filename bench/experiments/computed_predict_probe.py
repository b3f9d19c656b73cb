#!/usr/bin/env python3
"""Probe: the predicted config of specs whose operand is formed in the kernel (PLAID codes, a gather, a
projection), none of them bundled, at shapes none was tuned at: with the predictor's "formed" weight (a
neighbour of the same kind of operand first, hsr.autotune.DISTANCE_WEIGHTS) against without it, interleaved
rounds of do_bench medians (ms, the public call) in one process; --tune adds the time after HSR_AUTOTUNE=1.

    python3 bench/experiments/computed_predict_probe.py [--only NAME,...] [--tune] [--out DIR]    # a GPU
    python3 bench/experiments/computed_predict_probe.py --check                                  # the interpreter
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

if "--check" in sys.argv:
    os.environ["TRITON_INTERPRET"] = "1"
import torch  # noqa: E402

HEAD = "Q[i, s, d]: float\n"
CODES = ("centroids[c, d]: float\ncu[j]: offsets\ncodes[j, t by cu]: int\nresiduals[j, t by cu, d]: uint{bits}\n"
         "bucket_weights[b]: float\n")
SPECS = {  # name: (declarations and definitions after Q's, score line, kind of corpus)
    "codes2": (CODES.format(bits=2) + "D[j, t, d] = centroids[codes[j, t], d] + bucket_weights[residuals[j, t, d]]\n",
               "sum_s max_t <Q_s, D_t>", "codes2"),
    "codes4": (CODES.format(bits=4) + "D[j, t, d] = centroids[codes[j, t], d] + bucket_weights[residuals[j, t, d]]\n",
               "sum_s max_t <Q_s, D_t>", "codes4"),
    "gauss2": (CODES.format(bits=2) + "D[j, t, d] = normalize(centroids[codes[j, t], d] + "
               "bucket_weights[residuals[j, t, d]])\n", "sum_s max_t exp(-||Q_s - D_t||^2)", "codes2"),
    "gather": ("centroids[c, d]: float\ncodes[j, t]: int\nD[j, t, d] = normalize(centroids[codes[j, t], d])\n",
               "sum_s max_t <Q_s, D_t>", "padded"),
    "project": ("H[j, t, h]: float\nW[d, h]: float\nD[j, t, d] = <H[j, t, :], W[d, :]>\n", "sum_s max_t <Q_s, D_t>", "hidden"),
}
SHAPES = {  # name: [(queries, documents, query tokens, least and most document tokens, hidden width)]
    "codes2": [(1, 200000, 32, 150, 300, 0), (8, 10000, 32, 150, 300, 0), (1, 1024, 32, 512, 1024, 0)],
    "codes4": [(1, 20000, 32, 150, 300, 0), (1, 1024, 32, 2048, 4096, 0)],
    "gauss2": [(1, 10000, 32, 150, 300, 0)],
    "gather": [(1, 100000, 32, 300, 300, 0), (32, 1000, 32, 300, 300, 0)],
    "project": [(1, 128, 32, 1024, 1024, 768), (16, 64, 32, 512, 512, 384)],
}


def inputs_for(kind, nq, nd, lq, lo, hi, hidden, device, gen):
    dt = torch.float16
    q = torch.nn.functional.normalize(torch.randn(nq, lq, 128, generator=gen, device=device), dim=-1).to(dt)
    if kind == "hidden":
        return dict(Q=q, H=torch.randn(nd, hi, hidden, generator=gen, device=device).to(dt),
                    W=(torch.randn(128, hidden, generator=gen, device=device) / hidden ** 0.5).to(dt))
    centroids = torch.nn.functional.normalize(torch.randn(32768, 128, generator=gen, device=device), dim=-1).to(dt)
    if kind == "padded":
        return dict(Q=q, centroids=centroids, codes=torch.randint(0, 32768, (nd, hi), generator=gen, device=device))
    bits = 2 if kind == "codes2" else 4
    lengths = torch.randint(lo, hi + 1, (nd,), generator=gen, device=device)
    cu = torch.zeros(nd + 1, dtype=torch.int64, device=device)
    cu[1:] = lengths.cumsum(0)
    total = int(cu[-1])
    return dict(Q=q, centroids=centroids, cu=cu,
                codes=torch.randint(0, 32768, (total,), generator=gen, device=device, dtype=torch.int32),
                residuals=torch.randint(0, 256, (total, 128 * bits // 8), generator=gen, device=device,
                                        dtype=torch.uint8),
                bucket_weights=torch.linspace(-0.03, 0.03, 1 << bits, device=device).to(dt))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--tune", action="store_true")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    import hsr
    from hsr import autotune, kept
    device = "cpu" if args.check else "cuda"
    gen = torch.Generator(device=device).manual_seed(0)
    rows = []
    for name, (decls, score, kind) in SPECS.items():
        if args.only and name not in args.only.split(","):
            continue
        op = hsr.compile(HEAD + decls + f"score[i, j] = {score}\n")
        for shape in SHAPES[name][:1] if args.check else SHAPES[name]:
            nq, nd, lq, lo, hi, hidden = shape
            if args.check:
                nq, nd, lo, hi, hidden = 2, 3, 5, 40, hidden and 24
            inputs = inputs_for(kind, nq, nd, lq, lo, hi, hidden, device, gen)
            row = {"spec": name, "shape": shape, "lowering": [line.split()[-1] for line in op.explain().splitlines()
                                                               if "keyed by lowering" in line]}
            times, outs = {"formed": [], "without": []}, {}
            for _ in range(1 if args.check else args.rounds):
                for variant, weight in (("formed", 8.0), ("without", 0.0)):
                    autotune.DISTANCE_WEIGHTS["formed"] = weight
                    for tuned in autotune._tuned.values():
                        tuned.configs.clear()
                        tuned.predicted.clear()
                    kept.forget(launches=True)
                    outs[variant] = op(**inputs)
                    if not args.check:
                        import triton
                        times[variant].append(triton.testing.do_bench(lambda: op(**inputs), warmup=10, rep=50))
                    row[f"{variant} config"] = [autotune._describe(c) for t in autotune._tuned.values()
                                                for c in t.predicted.values()]
            row["max diff"] = float((outs["formed"] - outs["without"]).abs().max())
            row.update({f"{v} ms": round(statistics.median(t), 4) for v, t in times.items() if t})
            if args.tune and not args.check:
                import triton
                os.environ["HSR_AUTOTUNE"] = "1"
                kept.forget(launches=True)
                op(**inputs)
                os.environ.pop("HSR_AUTOTUNE")
                kept.forget(launches=True)
                row["tuned ms"] = round(triton.testing.do_bench(lambda: op(**inputs), warmup=10, rep=50), 4)
            print(json.dumps(row), flush=True)
            rows.append(row)
    if not args.check:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "computed_predict.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")


if __name__ == "__main__":
    main()
