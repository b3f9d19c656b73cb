#!/usr/bin/env python3
"""Probe: a maxsim_from_hidden training step and its host. Calls of bench/hidden.py ("fused", "unfused",
"composite") interleaved in one process: three rounds of do_bench medians of a step (ms, host included) and of
each step's host enqueue (median of 20, no sync inside). bf16, Lq 32, d_out 128; --shapes NQxNDxLDxDMODEL.
--shares 4,8: the fused and unfused calls again at each share (dispatch.ROWS_DENSE_SHARE and
hsr.ops.hidden.DENSE_SHARE: the backward over the selected rows where they are at most 1 / share of the rows).

    python3 bench/experiments/hidden_host_probe.py [--shapes 1x128x1024x768,...] [--shares 4,8] [--out DIR]
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from hidden import CALLS  # noqa: E402

from hsr import dispatch, kept  # noqa: E402
from hsr.ops import hidden as hidden_op  # noqa: E402

SHARES = dispatch.ROWS_DENSE_SHARE  # (the package's; hsr.ops.hidden.DENSE_SHARE is the same number)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="1x32x512x768,2x64x512x384,1x128x1024x768,1x512x2048x768,1x1024x2048x768")
    p.add_argument("--shares", default="")
    p.add_argument("--out", default=os.environ.get("OUT", "."))
    args = p.parse_args()
    calls = {(name, None): CALLS[name] for name in ("fused", "unfused", "composite")}
    for share in (int(v) for v in args.shares.split(",") if v):
        calls.update({(name, share): CALLS[name] for name in ("fused", "unfused")})
    g = torch.Generator(device="cuda").manual_seed(0)
    lines = []
    for shape in args.shapes.split(","):
        nq, nd, ld, dm = (int(v) for v in shape.split("x"))
        Q = torch.nn.functional.normalize(torch.randn(nq, 32, 128, device="cuda", generator=g), dim=-1)
        leaves = [Q.bfloat16(), torch.randn(nd, ld, dm, device="cuda", generator=g).bfloat16(),
                  (torch.randn(128, dm, device="cuda", generator=g) / dm ** 0.5).bfloat16(),
                  (torch.randn(128, device="cuda", generator=g) * 0.1).bfloat16()]
        leaves = [x.requires_grad_(True) for x in leaves]
        steps, hosts = {n: [] for n in calls}, {n: [] for n in calls}
        for _ in range(3):
            for name, call in calls.items():
                dispatch.ROWS_DENSE_SHARE = hidden_op.DENSE_SHARE = name[1] or SHARES
                kept.forget()

                def step():
                    for x in leaves:
                        x.grad = None
                    call(*leaves).sum().backward()
                steps[name].append(triton.testing.do_bench(step, warmup=25, rep=100))
                enqueue = []
                for _ in range(20):
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    step()
                    enqueue.append(time.perf_counter() - t0)
                hosts[name].append(statistics.median(enqueue) * 1e3)
        named = {n: f"{n[0]}{f' share {n[1]}' if n[1] else ''}" for n in calls}
        row = {"shape": f"{nq} x {nd} x {ld}, d_model {dm}, bf16 step",
               **{f"{named[n]} ms": round(statistics.median(v), 4) for n, v in steps.items()},
               **{f"{named[n]} host ms": round(statistics.median(v), 4) for n, v in hosts.items()}}
        print(json.dumps(row), flush=True)
        lines.append(json.dumps(row))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "hidden_host_probe.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
