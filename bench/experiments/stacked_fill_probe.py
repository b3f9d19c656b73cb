#!/usr/bin/env python3
"""Probe: stacked MaxSim calls of few documents, where the predicted stacked block (queries a program)
leaves the GPU with few programs. The off-grid table's 16 x 32 of 32 x 4096 ran 0.114 ms (2026-11-28)
against 45 us on 2026-11-27: its key's neighbours hold 16 queries a program (tuned at many documents),
so it launched 32 programs.

Times hsr.ops.maxsim (fp16, d = 128, no_grad, do_bench medians, ms) with the config the call takes and
with its stacked block forced to 16, 8, 4, 2 and 1 queries, on calls of few cells; prints the programs
each launches. One JSON line a shape.

    python3 bench/experiments/stacked_fill_probe.py [--out DIR] [--held-out | --band | --shapes S] [--warps] [--columns]

--shapes 'NQxNDxLQxLDxD[:dtype],...': these calls (d and dtype their own; long documents of wide rows, where seed
38's fp16 8 x 61 of 32 x 2000 at d 160 and seed 42's 8 x 29 of 32 x 4096 at d 1024 tuned fewer, larger programs
than the doubling allows). --columns: each forced block also at 64 and 128 columns.

--band: calls of many programs where the predicted block may hold too few queries (seed 36's bf16 8 x 119 of
32 x 1024 ran 2 queries a program, 1.47x the tuned 4; 8 x 100 of 32 x 1024 1.22x): which programs count wins.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

import torch
import triton

import hsr.ops
from hsr import autotune, kept

SHAPES = [(16, 32, 32, 4096), (8, 16, 32, 2048), (8, 16, 32, 8192), (16, 64, 32, 1024), (64, 8, 32, 2048),
          (32, 32, 64, 2048), (16, 16, 32, 16384), (64, 32, 32, 512)]
# --band: 8 to 16 queries against 50-500 documents (the stacked block's programs, 0.5 to 30 a multiprocessor)
BAND = [(8, 60, 32, 1024), (8, 120, 32, 1024), (8, 240, 32, 1024), (8, 500, 32, 1024), (16, 100, 32, 1024),
        (8, 400, 32, 300), (12, 50, 48, 700), (32, 60, 32, 512)]
# --held-out: shapes the rule's threshold was not read from
HELD_OUT = [(24, 20, 32, 3000), (48, 12, 32, 1500), (16, 40, 64, 2048), (8, 100, 32, 1024), (32, 16, 32, 8192),
            (12, 50, 48, 700), (64, 64, 32, 300), (128, 4, 32, 1024)]


def bench(f):
    return round(triton.testing.do_bench(f, warmup=25, rep=150), 4)


def diagnose(out):
    """Two held-out shapes, with the fill rule on and off (STACKED_MIN_PROGRAMS 0): do_bench, the host time a
    call (perf_counter over 100 calls, no sync between), and what the kept table holds for the call."""
    from hsr import dispatch
    share = dispatch.STACKED_MIN_PROGRAMS
    torch.manual_seed(0)
    with torch.no_grad():
        for nq, nd, lq, ld in ((32, 16, 32, 8192), (24, 20, 32, 3000), (16, 32, 32, 4096)):
            q = torch.nn.functional.normalize(torch.randn(nq, lq, 128, device="cuda"), dim=-1).half()
            d = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda"), dim=-1).half()
            row = {"shape": f"{nq} x {nd} of {lq} x {ld}"}
            for name, value in (("fill", share), ("off", 0.0), ("fill again", share)):
                dispatch.STACKED_MIN_PROGRAMS = value
                kept.forget(launches=True)
                hsr.ops.maxsim(q, d)
                torch.cuda.synchronize()
                row[f"{name} kept"] = sorted({type(v).__name__ if not isinstance(v, str) else v[:60]
                                              for t in kept._tables for v in t.entries.values()})
                row[name] = bench(lambda: hsr.ops.maxsim(q, d))
                torch.cuda.synchronize()
                import time
                t0 = time.perf_counter()
                for _ in range(100):
                    hsr.ops.maxsim(q, d)
                row[f"{name} host us"] = round((time.perf_counter() - t0) * 1e4, 1)
                torch.cuda.synchronize()
            dispatch.STACKED_MIN_PROGRAMS = share
            print(json.dumps(row), file=out, flush=True)
            print(json.dumps(row), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--held-out", action="store_true", help="the HELD_OUT shapes")
    ap.add_argument("--band", action="store_true", help="the BAND shapes")
    ap.add_argument("--warps", action="store_true", help="each forced block at 4 and 8 warps as well")
    ap.add_argument("--shapes", default="", help="NQxNDxLQxLDxD[:dtype],... instead of a named set")
    ap.add_argument("--columns", action="store_true", help="each forced block at 64 and 128 columns as well")
    ap.add_argument("--diagnose", action="store_true", help="the rule on and off, host time, kept entries")
    args = ap.parse_args()
    if args.diagnose:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        with open(Path(args.out) / "stacked_fill_diagnose.jsonl", "w") as out:
            return diagnose(out)
    launch, seen = autotune.launch_kernel, {}

    def forced(kernel, grid, *a, **kw):
        if seen.get("force") and "BLOCK_I" in kw:
            kw["BLOCK_I"] = seen["force"]
            if seen.get("warps"):
                kw["num_warps"] = seen["warps"]
            if seen.get("cols"):
                kw["BLOCK_T"] = seen["cols"]
        meta = {**kw}
        try:
            seen["programs"] = math.prod(grid(meta) if callable(grid) else grid)
        except Exception:  # noqa: BLE001 - a grid that needs more than the kwargs
            seen["programs"] = None
        seen["BLOCK_I"] = kw.get("BLOCK_I")
        return launch(kernel, grid, *a, **kw)
    autotune.launch_kernel = forced
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    lines = []
    torch.manual_seed(0)
    with torch.no_grad():
        named = HELD_OUT if args.held_out else BAND if args.band else SHAPES
        given = [(*(int(v) for v in shape.split(":")[0].split("x")), (shape.split(":") + ["float16"])[1])
                 for shape in args.shapes.split(",") if shape]
        for nq, nd, lq, ld, dim, dtype in given or [(*shape, 128, "float16") for shape in named]:
            q = torch.nn.functional.normalize(torch.randn(nq, lq, dim, device="cuda"), dim=-1).to(getattr(torch, dtype))
            d = torch.nn.functional.normalize(torch.randn(nd, ld, dim, device="cuda"), dim=-1).to(q.dtype)
            row = {"shape": f"{nq} x {nd} of {lq} x {ld}" + (f", d {dim} {dtype}" if given else ""), "sms": sms}
            forced_runs = [(None, None, None)] + [(g, w, c) for g in (16, 8, 4, 2, 1)
                                                  for w in ((None, 4, 8) if args.warps else (None,))
                                                  for c in ((None, 64, 128) if args.columns else (None,))]
            # the rule timed again last: the first timing of a shape once read 0.037 ms where the same block
            # forced read 0.0257 (band probe, 32 x 60 of 32 x 512; bench/NOTES.md, session 48)
            for n, (force, warps, cols) in enumerate(forced_runs + [(None, None, None)]):
                seen.clear()
                seen["force"], seen["warps"], seen["cols"] = force, warps, cols
                kept.forget(launches=True)
                name = (f"G={force}" + (f" w{warps}" if warps else "") + (f" c{cols}" if cols else "")) if force \
                    else "rule" if n == 0 else "rule again"
                try:
                    hsr.ops.maxsim(q, d)
                    row[name] = bench(lambda: hsr.ops.maxsim(q, d))
                except Exception as e:  # noqa: BLE001 - a block the call cannot take is a row's note
                    row[name] = f"{type(e).__name__}: {str(e)[:60]}"
                row[name + " programs"] = seen.get("programs")
                if force is None and n == 0:
                    row["rule G"] = seen.get("BLOCK_I")
            print(json.dumps(row), flush=True)
            lines.append(json.dumps(row))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    stem = ("stacked_fill_shapes" if args.shapes else "stacked_fill_band" if args.band else "stacked_fill_probe") \
        + ("_warps" if args.warps else "")
    (Path(args.out) / f"{stem}.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
