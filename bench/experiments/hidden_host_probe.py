#!/usr/bin/env python3
"""Probe: a maxsim_from_hidden training step's host, and what keeping hsr.row_grads inside the kept backward
saves. Calls of bench/hidden.py ("fused", "unfused", "composite") and "fused as before" (the backward replayed,
then the package of --base's hsr.row_grads run as written after it, as the tree before did), interleaved in one
process: three rounds of do_bench medians of a step (ms, host included) and each step's host enqueue (median
of 20, no sync inside). bf16, Lq 32, d_out 128.

    python3 bench/experiments/hidden_host_probe.py --base .base/pkg [--shapes 1x128x1024x768,...] [--out DIR]
"""
import argparse
import importlib.util
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

from hsr import generated, kept  # noqa: E402


def backward_before(base):
    """The fused call's backward as the tree before ran it: row_grads (the base's) after the replay, not in it."""
    spec = importlib.util.spec_from_file_location("hsr._base_row_grads", Path(base) / "hsr" / "row_grads.py")
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    mod, table = generated.maxsim_hidden, kept.Table()

    def backward(t, sizes, saved, grad_out, mode, into=None, rows_grad=None):
        rows_grad = any(t[n] is not None and t[n].requires_grad for n in ("H", "W", "bias"))
        inputs = (*(t[name] for name in mod.NAMES), *saved[:3], *saved[3], grad_out)
        grads = kept.call(table, kept.signature(inputs, mode, len(saved[3]), True, rows_grad), inputs,
                          mod._score_backward_as_written, t, sizes, saved, grad_out, mode, None, rows_grad)
        if rows_grad and "D" in grads:
            idx = saved[0]
            compact = old.compact(idx.numel(), old.n_rows(mod.ROWS_BY_NAME["D"], sizes))
            grads.update(old.grads(mod.ROWS_BY_NAME["D"], t, sizes, grads.pop("D"),
                                   (idx, ["i", "j"], "t") if compact else None))
        return grads

    return backward


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--shapes", default="1x128x1024x768,1x512x2048x768,1x1024x2048x768")
    p.add_argument("--out", default=os.environ.get("OUT", "."))
    args = p.parse_args()
    mod = generated.maxsim_hidden
    calls = {"fused": (CALLS["fused"], mod._score_backward), "unfused": (CALLS["unfused"], None),
             "fused as before": (CALLS["fused"], backward_before(args.base)), "composite": (CALLS["composite"], None)}
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
            for name, (call, backward) in calls.items():
                def step():
                    for x in leaves:
                        x.grad = None
                    if backward is not None:
                        mod._score_backward = backward
                    call(*leaves).sum().backward()
                steps[name].append(triton.testing.do_bench(step, warmup=25, rep=100))
                enqueue = []
                for _ in range(20):
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    step()
                    enqueue.append(time.perf_counter() - t0)
                hosts[name].append(statistics.median(enqueue) * 1e3)
        row = {"shape": f"{nq} x {nd} x {ld}, d_model {dm}, bf16 step",
               **{f"{n} ms": round(statistics.median(v), 4) for n, v in steps.items()},
               **{f"{n} host ms": round(statistics.median(v), 4) for n, v in hosts.items()}}
        print(json.dumps(row), flush=True)
        lines.append(json.dumps(row))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "hidden_host_probe.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
