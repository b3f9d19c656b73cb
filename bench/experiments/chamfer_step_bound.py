"""Is the Chamfer 10K training step bound by the host, the GPU, or a synchronisation?
(GPU only)

A step is chamfer_distance(x, y).backward() on one pair of clouds. Printed:
  - kernels a step launches and their GPU time (torch.profiler, 10 steps);
  - host time a step over 10 steps (too few to fill the launch queue, which would
    make the host wait and read as host-bound), and the wall time of the same steps;
  - any synchronisation the step makes (torch.cuda.set_sync_debug_mode("warn"));
  - do_bench of the step, hsr and flash_chamfer_train, in the same process.

    python3 bench/experiments/chamfer_step_bound.py [points]
"""

import sys
import time
import warnings

import torch
import triton
from torch.profiler import ProfilerActivity, profile

from hsr.ops import chamfer_distance

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
g = torch.Generator(device="cuda").manual_seed(0)
x = torch.randn(1, n, 3, device="cuda", generator=g).requires_grad_()
y = torch.randn(1, n, 3, device="cuda", generator=g).requires_grad_()


def step():
    x.grad = y.grad = None
    chamfer_distance(x, y).backward()


for _ in range(5):
    step()
torch.cuda.synchronize()

with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
    for _ in range(10):
        step()
    torch.cuda.synchronize()
kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
gpu_us = sum(e.device_time for e in kernels) / 10
print(f"== {n} points: {len(kernels) / 10:.1f} GPU ops a step, {gpu_us:.1f} us of GPU time a step")
print(prof.key_averages().table(sort_by="device_time_total", row_limit=15, max_name_column_width=60))

for rounds in range(3):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(10):
        step()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    print(f"10 steps: host {(t1 - t0) / 10 * 1e6:.1f} us a step, wall {(t2 - t0) / 10 * 1e6:.1f} us a step")

torch.cuda.set_sync_debug_mode("warn")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    step()
torch.cuda.set_sync_debug_mode(0)
print(f"synchronisations in a step: {len(caught)}")
for w in caught[:5]:
    print("  ", str(w.message)[:300])

print(f"do_bench hsr step: {triton.testing.do_bench(step):.3f} ms")
try:
    from flash_maxsim import flash_chamfer_train

    def flash_step():
        x.grad = y.grad = None
        flash_chamfer_train(x, y).backward()
    flash_step()
    print(f"do_bench flash_chamfer_train step: {triton.testing.do_bench(flash_step):.3f} ms")
except Exception as e:  # noqa: BLE001
    print("flash_chamfer_train:", type(e).__name__, str(e)[:200])
print(f"do_bench hsr step again: {triton.testing.do_bench(step):.3f} ms")
