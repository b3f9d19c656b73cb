"""Chamfer distance between two clouds of 10K points, forward + backward: the kernels
one step launches (torch.profiler), their GPU time, the host's own time by function,
and the step's do_bench time, for backward="auto", "atomic" and "deterministic", and
with the indexed both-ways pass forced on (HSR_BOTH_WAYS_INDEX=1: its first version met
an illegal memory access at 100K points; checked here against the two calls)."""

import os
import sys

import torch
import triton
from torch.profiler import ProfilerActivity, profile

from hsr import kept
from hsr.ops import chamfer_distance

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
g = torch.Generator(device="cuda").manual_seed(0)
x = torch.randn(1, n, 3, device="cuda", generator=g).requires_grad_()
y = torch.randn(1, n, 3, device="cuda", generator=g).requires_grad_()


def grads(mode):
    x.grad = y.grad = None
    loss = chamfer_distance(x, y, backward=mode)
    loss.backward()
    return loss.detach().clone(), x.grad.clone(), y.grad.clone()


for fused in ("0", "1"):
    os.environ["HSR_BOTH_WAYS_INDEX"] = fused
    kept.forget()
    if fused == "1":
        os.environ["HSR_BOTH_WAYS_INDEX"] = "0"
        kept.forget()
        want = grads("atomic")
        os.environ["HSR_BOTH_WAYS_INDEX"] = "1"
        kept.forget()
        got = grads("atomic")
        torch.cuda.synchronize()
        print("fused indexed both-ways vs two calls: loss", (got[0] - want[0]).abs().item(),
              "grad x", (got[1] - want[1]).abs().max().item(), "grad y", (got[2] - want[2]).abs().max().item())
    for mode in ("auto", "atomic", "deterministic") if fused == "0" else ("auto",):
        def step():
            x.grad = y.grad = None
            chamfer_distance(x, y, backward=mode).backward()
        for _ in range(5):
            step()
        torch.cuda.synchronize()
        print(f"== n {n}, HSR_BOTH_WAYS_INDEX={fused}, {mode}: do_bench {triton.testing.do_bench(step):.3f} ms")
        with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
            for _ in range(10):
                step()
            torch.cuda.synchronize()
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12, max_name_column_width=60))
        if mode == "auto":
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25, max_name_column_width=70))
