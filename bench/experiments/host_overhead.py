"""Where a small training step's host time goes: cProfile over repeated
MaxSim steps (forward, in-batch cross-entropy, backward) at ColBERT B=128, with
the GPU's own time per step beside it (CUDA events around a synchronised batch
of steps vs. the kernels' total from torch.profiler is bench/experiments/profile_kernels.py).

    python3 bench/experiments/host_overhead.py [--out DIR] [--backward atomic] [--steps 200]

Prints the wall time per step (synchronised every step and not), and the
functions with the most cumulative host time; writes host_overhead.txt."""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import time

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--backward", default="atomic")
    ap.add_argument("--steps", type=int, default=200)
    args = ap.parse_args()
    from hsr.ops import maxsim
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(128, 32, 128, device="cuda", generator=g).bfloat16().requires_grad_()
    d = torch.randn(128, 300, 128, device="cuda", generator=g).bfloat16().requires_grad_()
    labels = torch.arange(128, device="cuda")

    def step():
        q.grad = d.grad = None
        torch.nn.functional.cross_entropy(maxsim(q, d, backward=args.backward), labels).backward()

    for _ in range(20):
        step()
    torch.cuda.synchronize()
    lines = [f"{torch.cuda.get_device_name()}, torch {torch.__version__}, backward={args.backward}"]
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step()
    host = (time.perf_counter() - t0) / args.steps * 1e3
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t0) / args.steps * 1e3
    lines.append(f"per step: host (enqueue) {host:.3f} ms, wall {wall:.3f} ms")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.steps):
        step()
    torch.cuda.synchronize()
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(45)
    lines.append(s.getvalue())
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(30)
    lines.append(s.getvalue())
    text = "\n".join(lines)
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"host_overhead_{args.backward}.txt"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
