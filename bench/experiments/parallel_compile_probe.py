#!/usr/bin/env python3
"""Probe: do two Triton compiles overlap when run in two threads? Fresh processes,
empty Triton caches; two kernels shaped like a first call's (a row-norms pass and a
tile loop with tl.dot), compiled one after the other, then in two threads.

    python3 bench/experiments/parallel_compile_probe.py
"""
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import sys, threading, time, torch, triton, triton.language as tl

@triton.jit
def norms(x_ptr, out_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    k = tl.arange(0, K)
    x = tl.load(x_ptr + rows[:, None] * K + k[None, :], mask=(rows < n)[:, None], other=0.0).to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(x * x, axis=1), mask=rows < n)

@triton.jit
def loop(a_ptr, b_ptr, bsq_ptr, out_ptr, n, K: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + r[:, None] * K + k[None, :])
    best = tl.full([BR, BC], float("inf"), tl.float32)
    idx = tl.zeros([BR, BC], tl.int32)
    for c0 in range(0, n, BC):
        c = c0 + tl.arange(0, BC)
        b = tl.load(b_ptr + c[:, None] * K + k[None, :], mask=(c < n)[:, None], other=0.0)
        s = tl.load(bsq_ptr + c, mask=c < n, other=float("inf"))[None, :] - 2.0 * tl.dot(a, tl.trans(b))
        idx = tl.where(s < best, c[None, :], idx)
        best = tl.minimum(best, s)
    m = tl.min(best, axis=1)
    i = tl.min(tl.where(best == m[:, None], idx, n), axis=1)
    tl.store(out_ptr + r, m + i.to(tl.float32))

x = torch.randn(256, 128, device="cuda").half()
bsq = torch.empty(256, device="cuda")
out = torch.empty(256, device="cuda")
torch.cuda.synchronize()
first = lambda: norms[(4,)](x, bsq, 256, K=128, BLOCK=64)
second = lambda: loop[(4,)](x, x, bsq, out, 256, K=128, BR=64, BC=64)
t0 = time.perf_counter()
if sys.argv[1] == "threads":
    th = threading.Thread(target=lambda: loop.warmup(x, x, bsq, out, 256, K=128, BR=64, BC=64, grid=(4,)))
    th.start()
    first()
    th.join()
    second()
else:
    first()
    second()
torch.cuda.synchronize()
print(f"{sys.argv[1]}: {time.perf_counter() - t0:.3f} s")
'''

for run in range(3):
    for mode in ("sequential", "threads"):
        env = dict(os.environ, TRITON_CACHE_DIR=tempfile.mkdtemp(prefix="pc-"))
        child = os.path.join(env["TRITON_CACHE_DIR"], "child.py")  # (@triton.jit needs its source in a file)
        with open(child, "w") as f:
            f.write(CHILD)
        done = subprocess.run([sys.executable, child, mode], env=env, capture_output=True, text=True)
        print(done.stdout.strip() or done.stderr[-2000:], flush=True)
