#!/usr/bin/env python3
"""Probe: how far is an L2 key's predicted config from its tuned one? The Gaussian and min-distance MaxSim (issue
41 asks them within 1.25x of MaxSim) and the cosine, at issue 41's shapes and held-out ones, fp16 / bf16, d 128:
the predicted config's time, the time after HSR_AUTOTUNE=1 tuned the key (HSR_TUNE_SECONDS, default 20 here), and
the bundled MaxSim's in the same process; do_bench medians (ms, the public call), the configs each ran.

    python3 bench/experiments/l2_predict_probe.py [--shapes 8x1000x32x300,...[:bf16]] [--out DIR]    # a GPU
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

os.environ.setdefault("HSR_TUNE_SECONDS", "20")
import torch  # noqa: E402
import triton  # noqa: E402

import hsr  # noqa: E402
from hsr import autotune, kept, tuned  # noqa: E402
from hsr.ops import maxsim  # noqa: E402

DECL = "Q[i, s, d]: float\nD[j, t, d]: float\n"
SPECS = {"gaussian": "sum_s max_t exp(-||Q_s - D_t||^2)", "min-distance": "sum_s min_t ||Q_s - D_t||^2",
         "cosine": "sum_s max_t cos(Q_s, D_t)"}
SHAPES = "8x1000x32x300,1x512x1024x1024,1x1000x32x300,16x2000x32x180,4x300x128x512,1x5000x64x700:bf16,32x500x32x300:bf16"


def configs():
    return sorted({autotune._describe(c) for t in autotune._tuned.values()
                   for c in (*t.predicted.values(), *t.configs.values())})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    ops = {name: hsr.compile(DECL + f"score[i, j] = {text}\n") for name, text in SPECS.items()}
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    for shape in args.shapes.split(","):
        sizes, dtype = (shape.split(":") + ["fp16"])[:2]
        nq, nd, lq, ld = (int(v) for v in sizes.split("x"))
        dt = torch.bfloat16 if dtype == "bf16" else torch.float16
        q = torch.nn.functional.normalize(torch.randn(nq, lq, 128, generator=gen, device="cuda"), dim=-1).to(dt)
        d = torch.nn.functional.normalize(torch.randn(nd, ld, 128, generator=gen, device="cuda"), dim=-1).to(dt)
        maxsim(q, d)
        row = {"shape": shape, "maxsim ms": round(triton.testing.do_bench(lambda: maxsim(q, d)), 4)}
        for name, op in ops.items():
            for t in autotune._tuned.values():
                t.predicted.clear()
                t.configs.clear()
            kept.forget(launches=True)
            op(q, d)
            row[f"{name} ms"] = round(triton.testing.do_bench(lambda: op(q, d)), 4)
            row[f"{name} predicted"] = configs()
            os.environ["HSR_AUTOTUNE"] = "1"
            kept.forget(launches=True)
            op(q, d)
            os.environ.pop("HSR_AUTOTUNE")
            kept.forget(launches=True)
            row[f"{name} tuned ms"] = round(triton.testing.do_bench(lambda: op(q, d)), 4)
            row[f"{name} tuned"] = configs()
            tuned.store_path().unlink(missing_ok=True)  # a later shape predicts from the shipped table alone
        print(json.dumps(row), flush=True)
        rows.append(row)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "l2_predict.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")


if __name__ == "__main__":
    main()
