#!/usr/bin/env python3
"""Probe: a maxsim_from_hidden training step and its host. Calls of bench/hidden.py ("fused", "unfused",
"composite") interleaved in one process: three rounds of do_bench medians of a step (ms, host included) and of
each step's host enqueue (median of 20, no sync inside). bf16, Lq 32, d_out 128; --shapes NQxNDxLDxDMODEL.

    python3 bench/experiments/hidden_host_probe.py [--shapes 1x128x1024x768,...] [--out DIR]
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from hidden import CALLS  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="1x32x512x768,2x64x512x384,1x128x1024x768,1x512x2048x768,1x1024x2048x768")
    p.add_argument("--out", default=os.environ.get("OUT", "."))
    args = p.parse_args()
    calls = {name: CALLS[name] for name in ("fused", "unfused", "composite")}
    g = torch.Generator(device="cuda").manual_seed(0)
    lines = []
    for shape in args.shapes.split(","):
        nq, nd, ld, dm = (int(v) for v in shape.split("x"))
        Q = torch.nn.functional.normalize(torch.randn(nq, 32, 128, device="cuda", generator=g), dim=-1)
        leaves = [Q.bfloat16(), torch.randn(nd, ld, dm, device="cuda", generator=g).bfloat16(),
                  (torch.randn(128, dm, device="cuda", generator=g) / dm ** 0.5).bfloat16(),
                  (torch.randn(128, device="cuda", generator=g) * 0.1).bfloat16()]
        leaves = [x.requires_grad_(True) for x in leaves]
        steps, hosts = {n: [] for n in calls}, {n: [] for n in calls}
        for _ in range(3):
            for name, call in calls.items():
                def step():
                    for x in leaves:
                        x.grad = None
                    call(*leaves).sum().backward()
                steps[name].append(triton.testing.do_bench(step, warmup=25, rep=100))
                enqueue = []
                for _ in range(20):
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    step()
                    enqueue.append(time.perf_counter() - t0)
                hosts[name].append(statistics.median(enqueue) * 1e3)
        row = {"shape": f"{nq} x {nd} x {ld}, d_model {dm}, bf16 step",
               **{f"{n} ms": round(statistics.median(v), 4) for n, v in steps.items()},
               **{f"{n} host ms": round(statistics.median(v), 4) for n, v in hosts.items()}}
        print(json.dumps(row), flush=True)
        lines.append(json.dumps(row))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "hidden_host_probe.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
