#!/usr/bin/env python3
"""Per-kernel GPU time of one training step of a bundled op (torch.profiler).

Run on the GPU machine from the repository root:

    python3 bench/experiments/profile_kernels.py --out DIR [--which splade,colbert128,colpali32]

(cases as bench/experiments/onehot_blocks.py's make_case builds them).

For each case and backward mode it runs the step (forward, a scalar loss,
backward) three times to warm up, then profiles five steps and prints the CUDA
kernels by total time, per step. Writes profile_kernels.txt into --out. What
it shows is where a step's time goes; bench/splade.py and
bench/maxsim_train.py are the benchmarks.
"""

from __future__ import annotations

import argparse
import os

from onehot_blocks import make_case  # bench/experiments/onehot_blocks.py, beside this script

STEPS = 5


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="bench/results")
    p.add_argument("--which", default="splade,colbert128,colpali32")
    args = p.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile

    lines = [f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}"]
    for name in args.which.split(","):
        leaves, loss = make_case(torch, name)
        for bw in ("atomic", "deterministic"):
            def step():
                for t in leaves:
                    t.grad = None
                loss(bw).backward()
            for _ in range(3):
                step()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(STEPS):
                    step()
                torch.cuda.synchronize()
            events = [e for e in prof.key_averages() if e.device_time_total > 0]
            events.sort(key=lambda e: -e.device_time_total)
            total = sum(e.device_time_total for e in events) / STEPS / 1e3
            lines.append(f"\n== {name}, backward={bw}: {total:.3f} ms of kernels per step")
            for e in events[:12]:
                lines.append(f"  {e.device_time_total / STEPS / 1e3:8.3f} ms  x{e.count // STEPS:<3d} {e.key[:110]}")
            print("\n".join(lines[-14:]), flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "profile_kernels.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
