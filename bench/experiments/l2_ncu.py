#!/usr/bin/env python3
"""Where an L2 or cosine key's lean loop spends its time against MaxSim's: one warm call of each op
between cudaProfilerStart/Stop, for ncu with --profile-from-start off (the sections' counters of
each kernel: the main loop and any pre-pass).

    ncu --profile-from-start off --clock-control none --section SpeedOfLight ... \
        python3 bench/experiments/l2_ncu.py
"""
import os

import torch

import hsr
from hsr.ops import maxsim

DECL = "Q[i, s, d]: float\nD[j, t, d]: float\n"
SHAPES = [tuple(int(v) for v in s.split(",")) for s in
          os.environ.get("NCU_SHAPES", "1,512,1024,1024;1,1000,128,1024;8,1000,32,300").split(";")]


def main():
    ops = {"maxsim": maxsim,
           "cosine": hsr.compile(DECL + "score[i, j] = sum_s max_t cos(Q_s, D_t)\n"),
           "gaussian": hsr.compile(DECL + "score[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n")}
    g = torch.Generator(device="cuda").manual_seed(0)
    for nq, nd, lq, ld in SHAPES:
        Q = torch.nn.functional.normalize(torch.randn(nq, lq, 128, device="cuda", generator=g), dim=-1).half()
        D = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda", generator=g), dim=-1).half()
        for name, op in ops.items():
            for _ in range(3):
                op(Q, D)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push(f"{name} {nq}x{nd} {lq}x{ld}")
            torch.cuda.profiler.start()
            op(Q, D)
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
            torch.cuda.nvtx.range_pop()
            print(f"profiled {name} {nq}x{nd} {lq}x{ld}", flush=True)


if __name__ == "__main__":
    main()
