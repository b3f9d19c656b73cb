#!/usr/bin/env python3
"""Where a fresh process's first result goes: hsr.compile of a user spec (the
Gaussian MaxSim) and its first call, under cProfile, with empty caches and then
with the caches that run filled. Prints the top functions by cumulative time,
and the Triton kernels compiled (files added to TRITON_CACHE_DIR).

    python3 bench/experiments/first_result_profile.py [--out DIR]
"""

import argparse
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import cProfile, pstats, time, io, torch
t0 = time.perf_counter()
import hsr
t1 = time.perf_counter()
Q = torch.randn(1, 32, 128, device="cuda").half()
D = torch.randn(4, 32, 128, device="cuda").half()
spec = "Q[i, s, d]: float\nD[j, t, d]: float\nscore[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n"
prof = cProfile.Profile()
prof.enable()
t2 = time.perf_counter()
op = hsr.compile(spec)
t3 = time.perf_counter()
out = op(Q, D)
torch.cuda.synchronize()
t4 = time.perf_counter()
prof.disable()
print(f"import hsr {t1 - t0:.2f} s, compile {t3 - t2:.2f} s, first call {t4 - t3:.2f} s")
s = io.StringIO()
pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(45)
print(s.getvalue())
'''


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=None)
    args = p.parse_args()
    caches = tempfile.mkdtemp(prefix="first-profile-")
    env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(caches, "triton"), HSR_CACHE_DIR=os.path.join(caches, "hsr"))
    text = []
    for run in ("cold", "warm"):
        done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
        kernels = sum(len(fs) for _, _, fs in os.walk(env["TRITON_CACHE_DIR"])) if os.path.isdir(env["TRITON_CACHE_DIR"]) else 0
        text.append(f"===== {run}: files in the Triton cache after it: {kernels}\n{done.stdout}\n{done.stderr[-3000:]}")
        print(text[-1], flush=True)
    if args.out:
        with open(os.path.join(args.out, "first_result_profile.txt"), "w") as f:
            f.write("\n".join(text))


if __name__ == "__main__":
    main()
