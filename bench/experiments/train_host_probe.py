#!/usr/bin/env python3
"""Where a small MaxSim training step's time goes (host-bound long-document shapes of the off-grid
training table): each variant's step timed (do_bench median, as bench/maxsim_train.py times it), the
forward alone and the backward alone, the torch ops and kernel launches of one step (torch.profiler),
and the step's Python functions (cProfile, 200 steps).

    python3 bench/experiments/train_host_probe.py --out DIR [--shapes 8x16x32x2048,1x32x32x16384]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats

import torch
import torch.nn.functional as F
from triton.testing import do_bench


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default="8x16x32x2048,1x32x32x16384,16x32x32x4096")
    ap.add_argument("--profile", action="store_true", help="torch.profiler and cProfile of hsr's step")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    from hsr.ops import maxsim
    variants = {"hsr_auto": lambda q, d: maxsim(q, d),
                "hsr_atomic": lambda q, d: maxsim(q, d, backward="atomic"),
                "hsr_deterministic": lambda q, d: maxsim(q, d, backward="deterministic")}
    try:
        import late_interaction_kernels as lik
        variants["lik"] = lambda q, d: lik.maxsim(q, d)
    except Exception as e:  # noqa: BLE001
        print("LIK:", e)
    result = {}
    for text in args.shapes.split(","):
        nq, nd, lq, ld = map(int, text.split("x"))
        g = torch.Generator(device="cuda").manual_seed(0)
        Q = F.normalize(torch.randn(nq, lq, 128, device="cuda", generator=g), dim=-1).bfloat16().requires_grad_()
        D = F.normalize(torch.randn(nd, ld, 128, device="cuda", generator=g), dim=-1).bfloat16().requires_grad_()
        labels = torch.arange(nq, device="cuda") % nd

        def step(fn):
            loss = F.cross_entropy(fn(Q, D), labels)
            loss.backward()

        rec = result.setdefault(text, {})
        for name, fn in variants.items():
            try:
                for _ in range(3):
                    step(fn)
                Q.grad = D.grad = None
                rec[name] = do_bench(lambda: step(fn), grad_to_none=[Q, D], warmup=25, rep=200, return_mode="median")
                s = fn(Q, D)
                rec[name + "_fwd"] = do_bench(lambda: fn(Q, D), warmup=25, rep=100, return_mode="median")
                with torch.no_grad():
                    rec[name + "_fwd_nograd"] = do_bench(lambda: fn(Q, D), warmup=25, rep=100, return_mode="median")
                del s
            except Exception as e:  # noqa: BLE001
                rec[name] = f"error {type(e).__name__}: {e}"[:200]
            print(text, name, rec.get(name), rec.get(name + "_fwd"), rec.get(name + "_fwd_nograd"), flush=True)
        if args.profile:
            fn = variants["hsr_auto"]
            for _ in range(5):
                step(fn)
            torch.cuda.synchronize()
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                    torch.profiler.ProfilerActivity.CUDA]) as prof:
                for _ in range(10):
                    step(fn)
                torch.cuda.synchronize()
            table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=60)
            open(os.path.join(args.out, f"profile_{text}.txt"), "w").write(table)
            pr = cProfile.Profile()
            torch.cuda.synchronize()
            pr.enable()
            for _ in range(200):
                step(fn)
            torch.cuda.synchronize()
            pr.disable()
            for key in ("tottime", "cumulative"):
                s = io.StringIO()
                pstats.Stats(pr, stream=s).sort_stats(key).print_stats(60)
                open(os.path.join(args.out, f"cprofile_{key}_{text}.txt"), "w").write(s.getvalue())
    json.dump(result, open(os.path.join(args.out, "train_host.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
