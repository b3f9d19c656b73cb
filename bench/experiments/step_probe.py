#!/usr/bin/env python3
"""Probe: MaxSim training steps (forward, cross_entropy over arange(Nq), backward into Q and D) with HSR_
switches as variants, interleaved in one process: three rounds of do_bench medians, ms, host included (steps
timed in two processes moved 1.4-2.9x run to run; bench/NOTES.md, session 51).

    python3 bench/experiments/step_probe.py --shapes 1x256x32x8192,8x16x32x2048 --set HSR_GATHER_PARTS=0 [--out DIR]

--shapes NQxNDxLQxLD (bf16, d 128); each --set NAME=VALUE[;NAME=VALUE] one variant; both backwards, each a column.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

import torch
import torch.nn.functional as F
import triton

import hsr.ops
from hsr import kept


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--set", dest="sets", action="append", default=[])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    variants = {"default": {}} | {text: dict(part.split("=", 1) for part in text.split(";")) for text in args.sets}
    lines = []
    torch.manual_seed(0)
    for shape in args.shapes.split(","):
        nq, nd, lq, ld = (int(v) for v in shape.split("x"))
        Q = F.normalize(torch.randn(nq, lq, 128, device="cuda"), dim=-1).bfloat16().requires_grad_()
        D = F.normalize(torch.randn(nd, ld, 128, device="cuda"), dim=-1).bfloat16().requires_grad_()
        labels = torch.arange(nq, device="cuda") % nd
        times = {(name, b): [] for name in variants for b in ("atomic", "deterministic")}
        for _ in range(args.rounds):
            for (name, backward), got in times.items():
                for key, value in variants[name].items():
                    os.environ[key] = value
                kept.forget(launches=True)

                def step():
                    Q.grad = D.grad = None
                    F.cross_entropy(hsr.ops.maxsim(Q, D, backward=backward), labels).backward()
                step()
                got.append(triton.testing.do_bench(step, warmup=25, rep=100))
                for key in variants[name]:
                    os.environ.pop(key, None)
        row = {"shape": f"{nq} x {nd} of {lq} x {ld} bf16 step",
               **{f"{name} {b}": round(statistics.median(t), 4) for (name, b), t in times.items()}}
        print(json.dumps(row), flush=True)
        lines.append(json.dumps(row))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "step_probe.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
