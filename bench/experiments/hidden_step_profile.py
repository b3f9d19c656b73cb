#!/usr/bin/env python3
"""Probe: where a maxsim_from_hidden training step's time goes, at LateOn (1 x 128 x 1024, d_model 768) and
LateOn-Code (1 x 512 x 2048): torch.profiler's table (CUDA and CPU time by op) of ten steps of each of
bench/hidden.py's calls ("hsr", "fused", "unfused", "composite"), after a warm-up. Writes one table a call
and shape under --out.

    python3 bench/experiments/hidden_step_profile.py --out DIR [--shapes 1x128x1024x768,...]
"""
import argparse
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from hidden import CALLS  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--shapes", default="1x128x1024x768,1x512x2048x768")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    g = torch.Generator(device="cuda").manual_seed(0)
    for shape in args.shapes.split(","):
        nq, nd, ld, dm = (int(v) for v in shape.split("x"))
        Q = torch.nn.functional.normalize(torch.randn(nq, 32, 128, device="cuda", generator=g), dim=-1)
        Q = Q.bfloat16().requires_grad_(True)
        H = torch.randn(nd, ld, dm, device="cuda", generator=g).bfloat16().requires_grad_(True)
        W = (torch.randn(128, dm, device="cuda", generator=g) / dm ** 0.5).bfloat16().requires_grad_(True)
        b = (torch.randn(128, device="cuda", generator=g) * 0.1).bfloat16().requires_grad_(True)
        for name in ("hsr", "fused", "unfused", "composite"):
            def step():
                for x in (Q, H, W, b):
                    x.grad = None
                CALLS[name](Q, H, W, b).sum().backward()
            for _ in range(5):
                step()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for _ in range(10):
                    step()
                torch.cuda.synchronize()
            table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=30)
            cpu = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25)
            with open(os.path.join(args.out, f"{name}_{shape}.txt"), "w") as fh:
                fh.write(f"{name} {shape}: ten steps\n\nby CUDA time\n{table}\n\nby self CPU time\n{cpu}\n")
            print(name, shape, "done", flush=True)


if __name__ == "__main__":
    main()
