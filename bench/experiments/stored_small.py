#!/usr/bin/env python3
"""Why a small call on a corpus stored as int8 / fp8 rows reads slower than fp16 (bench/compressed.py,
1 query of 32 tokens against 1000 documents of 300: int8 0.058 ms, fp8 0.055, fp16 0.033 on an H200).

    python3 bench/experiments/stored_small.py --out DIR

Times (do_bench medians, host included) the public call on fp16 rows and on stored int8 / fp8 rows, the
quantization of the query alone, and the generated spec on a pre-quantized query; lists each call's GPU
kernels with their times (torch.profiler), and its host time (perf_counter over 200 calls, no sync between)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
import triton

import hsr.ops as ops
from hsr import generated


def kernels(fn):
    """[(kernel name, device us)] of one call, after warm-up."""
    from torch.profiler import ProfilerActivity, profile
    fn(); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(); torch.cuda.synchronize()
    return [(e.name[:70], round(e.device_time_total, 2)) for e in prof.events()
            if e.device_time_total > 0 and e.device_type == torch.autograd.DeviceType.CUDA]


def host_us(fn, n=200):
    fn(); torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    out = Path(p.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for lq, ld, nd in ((32, 300, 1000), (32, 300, 10000)):
        g = torch.Generator(device="cuda").manual_seed(0)
        Q = torch.nn.functional.normalize(torch.randn(lq, 128, device="cuda", generator=g), dim=-1).half()
        D = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda", generator=g), dim=-1).half()
        i8, f8 = ops.quantize_int8(D), ops.quantize_fp8(D)
        q8, qs = ops.quantize_int8(Q)
        calls = {"fp16": lambda: ops.maxsim(Q, D),
                 "int8 stored": lambda: ops.maxsim(Q, i8),
                 "fp8 stored": lambda: ops.maxsim(Q, f8),
                 "quantize_int8(Q)": lambda: ops.quantize_int8(Q),
                 "maxsim_int8.apply, Q pre-quantized": lambda: generated.maxsim_int8.apply(q8[None], i8[0], qs[None], i8[1])}
        for name, fn in calls.items():
            row = {"shape": f"{lq}x{ld}x{nd}", "call": name, "ms": triton.testing.do_bench(fn),
                   "host_us": host_us(fn), "kernels": kernels(fn)}
            rows.append(row)
            print(f"{row['shape']} {name}: {row['ms']:.4f} ms, host {row['host_us']:.1f} us, kernels {row['kernels']}",
                  flush=True)
    (out / "stored_small.json").write_text(json.dumps({"device": torch.cuda.get_device_name(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
