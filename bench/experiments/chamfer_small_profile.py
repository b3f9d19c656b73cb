"""Chamfer distance between two clouds of 10K points, forward + backward: the kernels
one step launches (torch.profiler), their GPU time, and the step's wall time, for
backward="auto", "atomic" and "deterministic"."""

import time

import torch
import triton
from torch.profiler import ProfilerActivity, profile

from hsr.ops import chamfer_distance

g = torch.Generator(device="cuda").manual_seed(0)
x = torch.randn(1, 10000, 3, device="cuda", generator=g).requires_grad_()
y = torch.randn(1, 10000, 3, device="cuda", generator=g).requires_grad_()
for mode in ("auto", "atomic", "deterministic"):
    def step():
        x.grad = y.grad = None
        chamfer_distance(x, y, backward=mode).backward()
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    print(f"== {mode}: do_bench {triton.testing.do_bench(step):.3f} ms")
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        for _ in range(10):
            step()
        torch.cuda.synchronize()
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=14, max_name_column_width=60))
