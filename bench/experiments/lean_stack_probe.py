#!/usr/bin/env python3
"""Probe: the lean forward's row sets several a program (dispatch.lean_stack) against one a program, on
stacked MaxSim calls of few cells and long rows (LateOn's long documents and held-out neighbours).
8 queries x 16 documents of 8192 tokens ran one query's 32 rows a lean program at 2 warps, each document
read once for every query (46.5 us against late-interaction-kernels' 50.2, 2026-11-28 off-grid table).

Times hsr.ops.maxsim under no_grad (do_bench medians, ms) with the rule as shipped and with it off
(dispatch.lean_stack patched to False), interleaved in rounds, and the largest difference of the two
outputs. One JSON line a shape.

    python3 bench/experiments/lean_stack_probe.py [--out DIR] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
import triton

import hsr.ops
from hsr import dispatch, kept

# (queries, documents, query tokens, document tokens, d, dtype): LateOn's shapes, then held out
SHAPES = [(8, 16, 32, 2048, 128, "float16"), (16, 32, 32, 4096, 128, "float16"), (8, 16, 32, 8192, 128, "float16"),
          (1, 32, 32, 16384, 128, "float16"), (4, 8, 32, 8192, 128, "float16"), (16, 16, 32, 4096, 128, "bfloat16"),
          (8, 32, 32, 4096, 96, "float16"), (2, 64, 32, 4096, 128, "float16"), (8, 8, 32, 16384, 128, "float16"),
          (8, 16, 64, 8192, 128, "bfloat16"), (6, 10, 16, 6000, 64, "float16"), (32, 8, 32, 2048, 128, "float16")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench/results/lean-stack")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    real = dispatch.lean_stack
    taken = []

    def spy(*a, **k):
        taken.append(real(*a, **k))
        return taken[-1]
    lines = []
    torch.manual_seed(0)
    with torch.no_grad():
        for nq, nd, lq, ld, dim, dtype in SHAPES:
            q = torch.nn.functional.normalize(torch.randn(nq, lq, dim, device="cuda"), dim=-1).to(getattr(torch, dtype))
            d = torch.nn.functional.normalize(torch.randn(nd, ld, dim, device="cuda"), dim=-1).to(q.dtype)
            row = {"shape": f"{nq} x {nd} of {lq} x {ld}, d {dim} {dtype}", "rule": [], "off": []}
            outs = {}
            for _ in range(args.rounds):
                for name, rule in (("rule", spy), ("off", lambda *a, **k: False)):
                    dispatch.lean_stack = rule
                    kept.forget(launches=True)
                    taken.clear()
                    outs[name] = hsr.ops.maxsim(q, d)
                    if name == "rule":
                        row["stacked"] = bool(taken and taken[-1])
                    row[name].append(round(triton.testing.do_bench(lambda: hsr.ops.maxsim(q, d), warmup=25, rep=150), 4))
            dispatch.lean_stack = real
            row["rule ms"], row["off ms"] = sorted(row["rule"])[len(row["rule"]) // 2], sorted(row["off"])[len(row["off"]) // 2]
            row["off / rule"] = round(row["off ms"] / row["rule ms"], 3)
            row["max |rule - off|"] = float((outs["rule"] - outs["off"]).abs().max())
            print(json.dumps(row), flush=True)
            lines.append(json.dumps(row))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "lean_stack_probe.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
