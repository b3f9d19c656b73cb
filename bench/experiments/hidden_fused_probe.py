#!/usr/bin/env python3
"""Probe: where a fused maxsim_from_hidden step's time goes (torch.profiler, CUDA
kernels by total time), at 1 x 512 x 2048 and 1 x 128 x 1024 (d_model 768), bf16.

    python3 bench/experiments/hidden_fused_probe.py [--out DIR]
"""
import argparse
import os

import torch
import torch.nn.functional as F

from hsr.ops import maxsim_from_hidden


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    args = p.parse_args()
    os.environ["HSR_HIDDEN"] = "fused"
    g = torch.Generator(device="cuda").manual_seed(0)
    with open(os.path.join(args.out, "hidden_profile.txt"), "w") as fh:
        for nq, nd, ld, dm in ((1, 512, 2048, 768), (1, 128, 1024, 768), (16, 128, 1024, 768)):
            Q = F.normalize(torch.randn(nq, 32, 128, device="cuda", generator=g), dim=-1).bfloat16().requires_grad_(True)
            H = torch.randn(nd, ld, dm, device="cuda", generator=g).bfloat16().requires_grad_(True)
            W = (torch.randn(128, dm, device="cuda", generator=g) / dm ** 0.5).bfloat16().requires_grad_(True)
            b = torch.zeros(128, device="cuda").bfloat16().requires_grad_(True)

            def step():
                for x in (Q, H, W, b):
                    x.grad = None
                maxsim_from_hidden(Q, H, W, b).sum().backward()
            for _ in range(3):
                step()
            torch.cuda.synchronize()
            import time
            host, total = [], []
            for _ in range(20):
                t0 = time.perf_counter()
                step()
                t1 = time.perf_counter()
                torch.cuda.synchronize()
                host.append(t1 - t0)
                total.append(time.perf_counter() - t0)
            host.sort(), total.sort()
            line = f"host enqueue {host[10] * 1e3:.3f} ms of {total[10] * 1e3:.3f} ms a step (medians of 20)"
            fh.write(f"== Nq {nq}, Nd {nd}, Ld {ld}, d_model {dm}: {line}\n")
            print(line, flush=True)
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA,
                                                    torch.profiler.ProfilerActivity.CPU]) as prof:
                for _ in range(5):
                    step()
                torch.cuda.synchronize()
            table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=30)
            fh.write(f"== Nq {nq}, Nd {nd}, Ld {ld}, d_model {dm} (5 steps)\n{table}\n")
            print(f"== Nq {nq}, Nd {nd}, Ld {ld}, d_model {dm}\n{table}", flush=True)


if __name__ == "__main__":
    main()
