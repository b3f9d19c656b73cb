#!/usr/bin/env python3
"""Probe: hsr.ops.maxsim's forward (no_grad) with constants of hsr.dispatch set otherwise, against the
defaults, in one process: three interleaved rounds of do_bench medians (ms, host included).

    python3 bench/experiments/dispatch_probe.py --shapes 8x16x32x8192,1x32x32x16384:bfloat16 \\
        --set PART_PROGRAMS_PER_SM=4 --set 'LEAN_TINY_BLOCKS=(64, 64, 4, 3)' [--out DIR]

--shapes NQxNDxLQxLD[xD][:dtype][:cos] (d 128 and fp16 by default; cos: normalize=True; dtype int8 or fp8:
an fp16 query against the documents stored quantized, hsr.ops.quantize_int8 / quantize_fp8). Each --set is one
variant: NAME=VALUE, VALUE a Python literal, several joined by ';'; a NAME starting HSR_ is an environment switch
(its VALUE the string); TABLE=PATH reads the shipped configs from that file (hsr/tuned.json's layout)
instead, the process's kept and predicted configs dropped at each switch. --spec "score[i, j] = ..." times
hsr.compile of that definition over Q[i, s, d] and D[j, t, d] instead of hsr.ops.maxsim. --grad: the forward with Q requiring a gradient (the index a backward reads is
written; no backward runs). --profile: each variant's kernels (us a call, torch.profiler) and the host's enqueue
(kmeans_shift_probe's). One JSON line a shape; each variant's median of the rounds' medians; max_diff: the
largest difference of a variant's scores from the default's.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
from pathlib import Path

import torch
import triton

import hsr.ops
from hsr import autotune, dispatch, kept, tuned
from kmeans_shift_probe import _profile

SHIPPED = tuned.SHIPPED


def variant(text: str) -> dict:
    pairs = [part.split("=", 1) for part in text.split(";") if part.strip()]
    for name, _ in pairs:
        if name.strip() != "TABLE" and not name.strip().startswith("HSR_") and not hasattr(dispatch, name.strip()):
            raise SystemExit(f"dispatch_probe: hsr.dispatch has no {name.strip()!r}")
    return {name.strip(): value.strip() if name.strip().startswith(("HSR_", "TABLE"))
            else ast.literal_eval(value.strip()) for name, value in pairs}


def apply(values: dict) -> None:
    """Set each dispatch constant, or each HSR_ switch (None: unset)."""
    for key, value in values.items():
        if key == "TABLE":  # another table of shipped configs: the autotuners made again, so nothing kept is read
            if Path(value) != tuned.SHIPPED:
                tuned.SHIPPED = Path(value)
                autotune._tuned.clear()
        elif not key.startswith("HSR_"):
            setattr(dispatch, key, value)
        elif value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--set", dest="sets", action="append", default=[])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--spec", default="", help="a definition over Q[i, s, d] and D[j, t, d] to time instead")
    ap.add_argument("--grad", action="store_true", help="Q requires a gradient (the training forward)")
    ap.add_argument("--profile", action="store_true", help="each variant's kernels and host enqueue, a call")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    variants = {"default": {}} | {text: variant(text) for text in args.sets}
    defaults = {name: str(SHIPPED) if name == "TABLE" else os.environ.get(name) if name.startswith("HSR_")
                else getattr(dispatch, name) for v in variants.values() for name in v}
    op = hsr.compile("Q[i, s, d]: float\nD[j, t, d]: float\n" + args.spec + "\n") if args.spec else None

    def call(q, d, cos):
        return op(q, d) if op is not None else hsr.ops.maxsim(q, d, normalize=cos)
    lines = []
    torch.manual_seed(0)
    with torch.set_grad_enabled(args.grad):
        for shape in args.shapes.split(","):
            cos = shape.endswith(":cos")
            sizes, dtype = (shape.removesuffix(":cos").split(":") + ["float16"])[:2]
            nq, nd, lq, ld, dim = ([int(v) for v in sizes.split("x")] + [128])[:5]
            stored = {"int8": hsr.ops.quantize_int8, "fp8": hsr.ops.quantize_fp8}.get(dtype)
            q = torch.nn.functional.normalize(torch.randn(nq, lq, dim, device="cuda"), dim=-1).to(
                torch.float16 if stored else getattr(torch, dtype))
            d = torch.nn.functional.normalize(torch.randn(nd, ld, dim, device="cuda"), dim=-1).to(q.dtype)
            d = stored(d) if stored else d
            q.requires_grad_(args.grad)
            times = {name: [] for name in variants}
            outs, profiled = {}, {}
            for round_ in range(args.rounds):
                for name, values in variants.items():
                    apply({**defaults, **values})
                    kept.forget(launches=True)
                    outs[name] = call(q, d, cos).detach().float()
                    times[name].append(triton.testing.do_bench(lambda: call(q, d, cos), warmup=25, rep=100))
                    if args.profile and round_ == args.rounds - 1:
                        profiled[name] = _profile(lambda: call(q, d, cos))
            apply(defaults)
            row = {"shape": f"{nq} x {nd} of {lq} x {ld}, d {dim} {dtype}" + (" cos" if cos else "") + (" grad" if args.grad else ""),
                   **({"spec": args.spec} if args.spec else {})}
            row.update({name: round(statistics.median(t), 4) for name, t in times.items()})
            # each variant's scores against the default's: the variants change the schedule, not the result
            row["max_diff"] = max((outs[name] - outs["default"]).abs().max().item() for name in outs)
            row.update({"profile": profiled} if profiled else {})
            print(json.dumps(row), flush=True)
            lines.append(json.dumps(row))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "dispatch_probe.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
