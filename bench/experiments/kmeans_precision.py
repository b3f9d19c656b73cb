#!/usr/bin/env python3
"""The k-means assignment (examples/kmeans_assign.hsr), N = 1M points, against
flash-kmeans and eager: fp16, bf16, and fp32 under each float32 matmul precision,
with the contraction in one tile (the default) or in chunks (HSR_CONTRACTION).

Question: where does fp32 fall off at f = 128 (tf32x3 on one 128-wide tile?),
and what does one TF32 product ("high") give? Every pick is checked on a sample
of points against the float64 nearest (a bad pick: farther than the nearest by
more than 1e-3 of it).

    python3 bench/experiments/kmeans_precision.py --out DIR [--offset 0]
"""

import argparse
import json
import os
import time

import torch
import triton.testing

import hsr
from hsr import kept

SHAPES = [(1 << 20, 1024, 64), (1 << 20, 1024, 128), (1 << 20, 4096, 128)]
SAMPLE = 8192


def eager(x, c):
    csq = c.float().square().sum(-1)
    out = torch.empty(x.shape[0], dtype=torch.int64, device=x.device)
    for i in range(0, x.shape[0], 1 << 16):
        xb = x[i:i + (1 << 16)]
        out[i:i + (1 << 16)] = (csq[None, :] - 2 * (xb @ c.T).float()).argmin(1)
    return out


def bad_fraction(x, c, assign):
    xs, a = x[:SAMPLE].double(), assign[:SAMPLE].long()
    d = torch.cdist(xs, c.double()).square()
    best = d.min(1).values
    got = d.gather(1, a[:, None])[:, 0]
    return float(((got - best) > 1e-3 * best + 1e-9).float().mean())


def measure(row, name, call, x, c):
    """row[name_ms]: do_bench of call; row[name_bad]: its picks' bad share (or the error)."""
    try:
        assign = call()
        row[f"{name}_ms"] = triton.testing.do_bench(call)
        row[f"{name}_bad"] = bad_fraction(x, c, assign)
    except Exception as e:  # noqa: BLE001 - one variant must not end the run
        row[f"{name}_ms"] = f"error: {type(e).__name__}: {str(e)[:160]}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--offset", type=float, default=0.0)
    p.add_argument("--budget-s", type=float, default=400)
    args = p.parse_args()
    t0 = time.monotonic()
    op = hsr.compile(open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "kmeans_assign.hsr")).read())
    try:
        from flash_kmeans.assign_euclid_triton import euclid_assign_triton
    except Exception as e:  # noqa: BLE001
        euclid_assign_triton = None
        print("flash-kmeans:", e)
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    for n, k, f in SHAPES:
        x32 = torch.randn(n, f, device="cuda", generator=g) + args.offset
        c32 = torch.randn(k, f, device="cuda", generator=g) + args.offset
        for dt in ("fp16", "bf16", "fp32"):
            x, c = x32.to(getattr(torch, {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}[dt])), None
            c = c32.to(x.dtype)
            variants = [("highest", None)] if dt != "fp32" else [
                ("highest", None), ("highest", "1,64"), ("highest", "1,32"), ("high", None), ("high", "1,64")]
            for mode, contraction in variants:
                if time.monotonic() - t0 > args.budget_s:
                    break
                torch.set_float32_matmul_precision(mode)
                if contraction:
                    os.environ["HSR_CONTRACTION"] = contraction
                else:
                    os.environ.pop("HSR_CONTRACTION", None)
                kept.forget()
                row = dict(n=n, k=k, f=f, dtype=dt, mode=mode, contraction=contraction or "default",
                           offset=args.offset)
                measure(row, "hsr", lambda: op(x, c), x, c)
                if contraction is None:
                    measure(row, "eager", lambda: eager(x, c), x, c)
                    if euclid_assign_triton is not None and dt != "bf16":
                        xb, cb = x[None], c[None]
                        xsq, csq = xb.float().square().sum(-1), cb.float().square().sum(-1)
                        measure(row, "flash_kmeans", lambda: euclid_assign_triton(xb, cb, xsq, c_sq=csq)[0], x, c)
                print(json.dumps(row), flush=True)
                rows.append(row)
        del x32, c32
        torch.cuda.empty_cache()
    os.environ.pop("HSR_CONTRACTION", None)
    torch.set_float32_matmul_precision("highest")
    with open(os.path.join(args.out, f"kmeans_precision_offset{int(args.offset)}.json"), "w") as fh:
        json.dump(dict(device=torch.cuda.get_device_name(0), torch=torch.__version__, triton=triton.__version__,
                       rows=rows), fh, indent=1)


if __name__ == "__main__":
    main()
