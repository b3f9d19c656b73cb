"""Where a call of the split pass spends its time: host ms a call (launches
queued without waiting) against wall ms, and torch.profiler's table of the
GPU kernels, one direction of Chamfer at 10K and 100K points. GPU only.

    HSR_SPLIT=1 python3 bench/experiments/profile_split.py [--sizes 10000,100000]

Prints only (the numbers quoted in bench/NOTES.md, session 15, come from its log)."""

from __future__ import annotations

import argparse
import os
import time

import torch
from torch.profiler import ProfilerActivity, profile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    args = ap.parse_args()
    os.environ.setdefault("HSR_SPLIT", "1")
    from hsr.generated import chamfer_point as gen
    for size in (int(s) for s in args.sizes.split(",")):
        g = torch.Generator(device="cuda").manual_seed(0)
        x = torch.rand(1, size, 3, device="cuda", generator=g) * 2 - 1
        y = torch.rand(1, size, 3, device="cuda", generator=g) * 2 - 1
        for _ in range(3):
            gen.forward_with_indices(x, y)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(20):
            gen.forward_with_indices(x, y)
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        print(size, "host ms/call", (t1 - t0) / 20 * 1e3, "wall ms/call", (t2 - t0) / 20 * 1e3, flush=True)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                gen.forward_with_indices(x, y)
            torch.cuda.synchronize()
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=14), flush=True)


if __name__ == "__main__":
    main()
