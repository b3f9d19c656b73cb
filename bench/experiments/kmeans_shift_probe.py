#!/usr/bin/env python3
"""Probe: the k-means assignment (examples/kmeans_assign.hsr) under HSR_ switches (16-bit rows shifted
or not: HSR_SHIFT16), against flash-kmeans (squared norms given), in one process: three interleaved rounds
of do_bench medians (ms). Each variant's picks are checked on a sample against float64 (bad: a centre
farther than the nearest by more than 4 fp32 roundings, as bench/offsets.py counts).

    python3 bench/experiments/kmeans_shift_probe.py --shapes 1048576x1024x64,1048576x1024x128 \\
        --variants HSR_SHIFT16=0,HSR_SHIFT16=1 --offsets 0,1000 [--dtypes float16,bfloat16] [--out DIR]

--variants: comma-separated, each NAME=VALUE[;NAME=VALUE] set before its calls; CONFIG=R/C/W/S ships that config
(rows, columns, warps, stages) for every key of the spec's lowering instead (a table of its own). One JSON line a (shape,
dtype, offset). --spec inertia: k-means' inertia (INERTIA, the lean forward) instead, its picks from
forward_with_indices. --profile: each variant's kernels (us a call, torch.profiler) and host enqueue.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import sys
from pathlib import Path

import torch
import triton

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import offsets  # noqa: E402  (bench/offsets.py: the bad-pick count and the peer's loader)

import hsr  # noqa: E402
from hsr import autotune, kept, tuned  # noqa: E402

SHIPPED = tuned.SHIPPED


INERTIA = "X[b, n, d]: float\nC[k, d]: float\ntotal[b] = sum_n min_k ||X_n - C_k||^2\n"


def _ship(config, out):
    """hsr's shipped table, or a copy whose k-means entries hold one config (autotune's kept objects dropped)."""
    path = SHIPPED
    if config:
        rows, cols, warps, stages = (int(v) for v in config.split("/"))
        table = json.loads(SHIPPED.read_text())
        for arch in (a for a in table if not a.startswith("_")):
            for entry in (e for e in table[arch] if "argmin_sqdist" in e or "sum_min_sqdist" in e):
                table[arch][entry] = {"kwargs": {"BLOCK_R": rows, "BLOCK_C": cols}, "num_warps": warps, "num_stages": stages}
        path = Path(out, f"table_{config.replace('/', '_')}.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(table))
    if tuned.SHIPPED != path:
        tuned.SHIPPED = path
        autotune._tuned.clear()


def _profile(fn, calls=20):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        [fn() for _ in range(calls)], torch.cuda.synchronize()
    kernels = {e.key[:40]: round(e.device_time_total / calls, 1) for e in prof.key_averages() if e.device_time_total}
    torch.cuda.synchronize()
    start = time.perf_counter()
    [fn() for _ in range(calls)]
    return {"kernels_us": kernels, "enqueue_us": round((time.perf_counter() - start) / calls * 1e6, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--variants", default="HSR_SHIFT16=0,HSR_SHIFT16=1")
    ap.add_argument("--offsets", default="0,1000")
    ap.add_argument("--dtypes", default="float16")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--spec", choices=("assign", "inertia"), default="assign")
    ap.add_argument("--profile", action="store_true", help="each kernel's time and the host's enqueue, a call")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    if args.spec == "inertia":  # timed as called; the picks from the same forward with its indices
        inertia = hsr.compile(INERTIA)
        op, picks = (lambda x, c: inertia(x[None], c)), (lambda x, c: inertia.forward_with_indices(x[None], c)[1])
    else:
        op = picks = hsr.compile(Path(__file__).resolve().parents[2].joinpath("examples", "kmeans_assign.hsr")
                                 .read_text())
    flash, _ = offsets.load_flash_kmeans()
    variants = {v: dict(part.split("=", 1) for part in v.split(";")) for v in args.variants.split(",")}
    lines = []
    for shape in args.shapes.split(","):
        n, k, f = (int(v) for v in shape.split("x"))
        torch.manual_seed(0)
        x0, c0 = torch.randn(n, f, device="cuda"), torch.randn(k, f, device="cuda") * 1.5
        for dtype in args.dtypes.split(","):
            for off in (float(o) for o in args.offsets.split(",")):
                x, c = (x0 + off).to(getattr(torch, dtype)), (c0 + off).to(getattr(torch, dtype))
                xs = x[:offsets.KMEANS_SAMPLE]
                xc, cc = offsets.centred64(xs, c)
                dmin = offsets.sq64(xs, c[offsets.nearest64(torch, xc, cc, cols=False)[0]])
                times = {name: [] for name in variants} | ({"flash_kmeans": []} if flash else {})
                bad, profiled = {}, {}
                x_sq, c_sq = x[None].float().square().sum(-1), c[None].float().square().sum(-1)
                for _ in range(args.rounds):
                    for name in times:
                        if name == "flash_kmeans":
                            fn = lambda: flash(x[None], c[None], x_sq, c_sq=c_sq)[0]  # noqa: E731
                            got = fn()
                        else:
                            os.environ.update({k: v for k, v in variants[name].items() if k != "CONFIG"})
                            _ship(variants[name].get("CONFIG"), args.out)
                            kept.forget(launches=True)
                            fn = lambda: op(x, c)  # noqa: E731
                            got = picks(x, c)
                        bad[name] = offsets.kmeans_bad_fraction(xs, c, got.view(-1)[:offsets.KMEANS_SAMPLE], dmin)
                        times[name].append(triton.testing.do_bench(fn))
                        if args.profile and _ == args.rounds - 1:  # each kernel's us a call, the host's enqueue
                            profiled[name] = _profile(fn)
                line = {"spec": args.spec, "shape": shape, "dtype": dtype, "offset": off,
                        "ms": {name: round(statistics.median(v), 4) for name, v in times.items()}, "bad": bad} | ({"profile": profiled} if profiled else {})
                print(json.dumps(line), flush=True)
                lines.append(line)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    Path(args.out, "kmeans_shift.jsonl").write_text("".join(json.dumps(v) + "\n" for v in lines))


if __name__ == "__main__":
    main()
