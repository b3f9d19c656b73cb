#!/usr/bin/env python3
"""Is the k-means assignment's gap to flash-kmeans its predicted config? The same
shapes as kmeans_precision.py (N = 1M; fp16, and fp32 under "high"), predicted
config against HSR_AUTOTUNE=1 (tuned on the call). Prints one JSON row a case.

    python3 bench/experiments/kmeans_tuned.py --out DIR
"""

import argparse
import json
import os

import torch
import triton.testing

import hsr
from hsr import kept

SHAPES = [(1 << 20, 1024, 64), (1 << 20, 1024, 128), (1 << 20, 4096, 128)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    args = p.parse_args()
    op = hsr.compile(open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "kmeans_assign.hsr")).read())
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    torch.set_float32_matmul_precision("high")
    for n, k, f in SHAPES:
        for dt in (torch.float16, torch.float32):
            x = torch.randn(n, f, device="cuda", generator=g).to(dt)
            c = torch.randn(k, f, device="cuda", generator=g).to(dt)
            row = dict(n=n, k=k, f=f, dtype=str(dt))
            for name, env in (("predicted", None), ("tuned", "1")):
                if env:
                    os.environ["HSR_AUTOTUNE"] = env
                else:
                    os.environ.pop("HSR_AUTOTUNE", None)
                kept.forget()
                op(x, c)
                row[name + "_ms"] = triton.testing.do_bench(lambda: op(x, c))
            print(json.dumps(row), flush=True)
            rows.append(row)
    os.environ.pop("HSR_AUTOTUNE", None)
    with open(os.path.join(args.out, "kmeans_tuned.json"), "w") as fh:
        json.dump(dict(device=torch.cuda.get_device_name(0), rows=rows), fh, indent=1)


if __name__ == "__main__":
    main()
