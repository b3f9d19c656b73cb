#!/usr/bin/env python3
"""Where a MaxSim training step's time goes (GPU only): kernel time against wall time.

For each variant (hsr's two backwards and the peers that import) at one shape of
bench/maxsim_train.py: the wall time per step (steps back to back, synchronised
at the end), the summed CUDA kernel time per step from torch.profiler, and the
kernels that take it. Wall well above kernel time means the step waits on the
host (launches, Python), not on the GPU. Writes train_profile.md under --out.
bench/experiments/host_overhead.py breaks hsr's own host time down by function; this one
puts the peers beside hsr.

    python3 bench/experiments/train_profile.py --out DIR [--shape colbert128] [--steps 50]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/: maxsim_train


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="bench/results")
    p.add_argument("--shape", default="colbert128")
    p.add_argument("--steps", type=int, default=50)
    args = p.parse_args(argv)
    import torch
    import torch.nn.functional as F
    from torch.profiler import ProfilerActivity, profile

    from maxsim_train import DIM, SHAPES, variants

    B, lq, ld = SHAPES[args.shape]
    gen = torch.Generator(device="cuda").manual_seed(0)
    Q = F.normalize(torch.randn(B, lq, DIM, device="cuda", generator=gen), dim=-1).bfloat16().requires_grad_()
    D = F.normalize(torch.randn(B, ld, DIM, device="cuda", generator=gen), dim=-1).bfloat16().requires_grad_()
    labels = torch.arange(B, device="cuda")
    import platform

    import triton
    lines = [f"Training step at {args.shape} (B={B}, {lq}x{ld}, bf16) on {torch.cuda.get_device_name(0)} "
             f"(torch {torch.__version__}, triton {triton.__version__}, python {platform.python_version()}): "
             f"per step, {args.steps} steps back to back", "",
             "| variant | wall ms | kernel ms | kernels | top kernels (ms per step) |", "|---|---|---|---|---|"]
    for name, (fn, _) in variants(torch, True).items():
        if name == "naive":
            continue

        def step():
            Q.grad = D.grad = None
            F.cross_entropy(fn(Q, D), labels).backward()

        for _ in range(5):
            step()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            step()
        torch.cuda.synchronize()
        wall = (time.perf_counter() - t0) * 1e3 / args.steps
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(args.steps):
                step()
            torch.cuda.synchronize()
        events = [e for e in prof.key_averages() if e.device_type.name == "CUDA"]
        total = sum(e.self_device_time_total for e in events) / 1e3 / args.steps
        count = sum(e.count for e in events) / args.steps
        top = sorted(events, key=lambda e: -e.self_device_time_total)[:5]
        desc = "; ".join(f"{e.key[:40]} {e.self_device_time_total / 1e3 / args.steps:.3f}" for e in top)
        print(f"{name}: wall {wall:.3f} ms, kernels {total:.3f} ms ({count:.0f} a step): {desc}", flush=True)
        lines.append(f"| {name} | {wall:.3f} | {total:.3f} | {count:.0f} | {desc} |")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "train_profile.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
