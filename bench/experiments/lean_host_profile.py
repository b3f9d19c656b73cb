"""Host time of one lean MaxSim call at the medium shape (1 query of 128 tokens x 1000
documents of 1024, d = 128 fp16), with a cProfile of 200 calls. Session 19 ran it with
this checkout and with an earlier commit's package tree (PYTHONPATH=.base/pkg, python -P)
on the same GPU machine: 118 us a call at v5's commit, 190 now (bench/NOTES.md)."""

import cProfile
import pstats
import time

import torch
import triton

import hsr
import hsr.ops

print(hsr.__file__)
Q = torch.randn(1, 128, 128, device="cuda").half()
D = torch.randn(1000, 1024, 128, device="cuda").half()


def call():
    return hsr.ops.maxsim(Q, D)


for _ in range(3):
    call()
torch.cuda.synchronize()
print("do_bench medium", triton.testing.do_bench(call))
t0 = time.perf_counter()
for _ in range(200):
    call()
t1 = time.perf_counter()
torch.cuda.synchronize()
t2 = time.perf_counter()
print(f"host per call {(t1 - t0) / 200 * 1e6:.1f} us, wall per call {(t2 - t0) / 200 * 1e6:.1f} us")
profile = cProfile.Profile()
profile.enable()
for _ in range(200):
    call()
profile.disable()
torch.cuda.synchronize()
pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
