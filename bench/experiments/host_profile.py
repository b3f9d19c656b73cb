"""Where hsr's host time goes at host-bound calls (tiny, textual, medium lean, a compiled
spec, Chamfer 10K forward): per-call host and wall time, and a cProfile (tottime) of each.
Run before and after the kept-signature path; writes nothing, prints everything."""

import cProfile
import pstats
import sys
import time

import torch
import triton

import hsr
import hsr.ops

g = torch.Generator(device="cuda").manual_seed(0)


def rnd(*shape, dtype=torch.float16):
    return torch.randn(*shape, device="cuda", generator=g).to(dtype)


WEIGHTED = """
Q[i, s, d]: float
D[j, t, d]: float
w[i, s]: float
score[i, j] = sum_s w_s * max_t <Q_s, D_t>
"""
weighted = hsr.compile(WEIGHTED)
P1, P2 = rnd(1, 10000, 3, dtype=torch.float32), rnd(1, 10000, 3, dtype=torch.float32)
cases = {
    "tiny": (lambda q=rnd(1, 32, 128), d=rnd(4, 32, 128): hsr.ops.maxsim(q, d)),
    "tiny_mask": (lambda q=rnd(1, 32, 128), d=rnd(4, 32, 128), m=torch.ones(4, 32, dtype=torch.bool, device="cuda"):
                  hsr.ops.maxsim(q, d, d_mask=m)),
    "textual": (lambda q=rnd(1, 32, 128), d=rnd(1000, 300, 128): hsr.ops.maxsim(q, d)),
    "medium_lean": (lambda q=rnd(1, 128, 128), d=rnd(1000, 1024, 128): hsr.ops.maxsim(q, d)),
    "weighted_spec": (lambda q=rnd(1, 32, 128), d=rnd(4, 32, 128), w=rnd(1, 32): weighted(q, d, w)),
    "chamfer10k_fwd": (lambda: hsr.ops.chamfer_distance(P1, P2)),
}
only = sys.argv[1].split(",") if len(sys.argv) > 1 else list(cases)
for name in only:
    call = cases[name]
    first = call()
    for _ in range(5):
        again = call()
    from hsr import kept
    same = all(torch.equal(x, y) for x, y in zip(first if isinstance(first, tuple) else (first,),
                                                 again if isinstance(again, tuple) else (again,)))
    kept.forget()
    plain = call()
    same_plain = all(torch.equal(x, y) for x, y in zip(first if isinstance(first, tuple) else (first,),
                                                       plain if isinstance(plain, tuple) else (plain,)))
    print(f"{name}: replay == first {same}, == recorded again {same_plain}")
    torch.cuda.synchronize()
    n = 300
    t0 = time.perf_counter()
    for _ in range(n):
        call()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    print(f"== {name}: host {(t1 - t0) / n * 1e6:.1f} us/call, wall {(t2 - t0) / n * 1e6:.1f} us/call, "
          f"do_bench {triton.testing.do_bench(call):.4f} ms")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        call()
    prof.disable()
    torch.cuda.synchronize()
    pstats.Stats(prof).sort_stats("tottime").print_stats(22)
