"""The Chamfer training step on one pair of clouds, three ways of writing the loss
(GPU only), with flash_chamfer_train in the same process.

- "reductions": both_ways' node, then sums, divisions and an addition in torch
  (chamfer_distance's loss until both_ways_sum);
- "sum": both_ways_sum (one node: forwards, one weighted sum), with the two
  backwards' gradients added by autograd (dispatch.both_ways_shared_grads off);
- "sum-shared": both_ways_sum with one fp32 buffer per operand (the default).

For each: GPU ops a step and their time (torch.profiler), host and wall time
per step over 10 steps (too few to fill the launch queue), and do_bench of the
step, in interleaved rounds (medians).

    python3 bench/experiments/chamfer_step_launches.py [points] [rounds]
"""

import statistics
import sys
import time
from unittest import mock

import torch
import triton
from torch.profiler import ProfilerActivity, profile

from hsr import dispatch
from hsr.generated import chamfer_point
from hsr.ops import chamfer_distance

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
g = torch.Generator(device="cuda").manual_seed(0)
x = torch.randn(1, n, 3, device="cuda", generator=g).requires_grad_()
y = torch.randn(1, n, 3, device="cuda", generator=g).requires_grad_()


def reductions():
    x.grad = y.grad = None
    a, b = chamfer_point.both_ways(x, y)
    (a.sum() / n + b.sum() / n).backward()


def summed():
    x.grad = y.grad = None
    with mock.patch.object(dispatch, "both_ways_shared_grads", return_value=False):
        chamfer_distance(x, y).backward()


def shared():
    x.grad = y.grad = None
    chamfer_distance(x, y).backward()


steps = {"reductions": reductions, "sum": summed, "sum-shared": shared}
try:
    from flash_maxsim import flash_chamfer_train

    def flash():
        x.grad = y.grad = None
        flash_chamfer_train(x[0], y[0]).backward()
    flash()
    steps["flash_chamfer_train"] = flash
except Exception as e:  # noqa: BLE001
    print("flash_chamfer_train:", type(e).__name__, str(e)[:200])

want = None
for name, step in steps.items():
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    grads = torch.cat([x.grad.flatten(), y.grad.flatten()])
    if want is None:
        want = grads
    print(f"{name}: gradients max |diff| from reductions {(grads - want).abs().max().item():.3g}")
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            step()
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    print(f"{name}: {len(kernels) / 10:.1f} GPU ops a step, {sum(e.device_time for e in kernels) / 10:.1f} us of GPU time")

host = {k: [] for k in steps}
wall = {k: [] for k in steps}
bench = {k: [] for k in steps}
for _ in range(rounds):
    for name, step in steps.items():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(10):
            step()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        host[name].append((t1 - t0) / 10 * 1e6)
        wall[name].append((t2 - t0) / 10 * 1e6)
        bench[name].append(triton.testing.do_bench(step))
print(f"\n{n} points, medians over {rounds} interleaved rounds")
print("| step | host us (10 steps) | wall us (10 steps) | do_bench ms |")
print("|---|---|---|---|")
for name in steps:
    print(f"| {name} | {statistics.median(host[name]):.0f} | {statistics.median(wall[name]):.0f} | "
          f"{statistics.median(bench[name]):.3f} |")
