#!/usr/bin/env python3
"""The deterministic training step over its backward's blocks (GPU only).

For each case of bench/experiments/onehot_blocks.py's make_case (default: the Splade head,
B=32, L=256, H=768, V=30522, bf16; ColBERT B=512; ColPali B=64), the step
(forward with indices, a scalar loss, backward="deterministic") timed with
do_bench, with its peak memory beyond the inputs, for each setting of:

- the inverse-index pass (HSR_INVERSE_BLOCKS: entries a step, block of d, warps);
- the counting sort's entries a program and a placing step
  (HSR_COUNT_BLOCKS: runtime.count_blocks);
- the gathering pass's rows a program (runtime.gather_rows).

Then the step's kernels (torch.profiler) at the defaults. Writes
deterministic_blocks.md under --out.

    python3 bench/experiments/deterministic_blocks.py --out DIR [--cases splade,colbert512,colpali64] [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

INVERSE = ["16,128,4", "8,128,4", "16,64,4", "8,64,4", "32,128,4", "16,128,8"]
COUNT = [(1024, 64), (1024, 32), (512, 64), (512, 32), (256, 32), (2048, 32)]
GATHER = [16, 32, 64]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="bench/results")
    p.add_argument("--cases", default="splade,colbert512,colpali64")
    p.add_argument("--quick", action="store_true", help="the counting sort's blocks only")
    args = p.parse_args(argv)
    import torch
    import triton
    from torch.profiler import ProfilerActivity, profile
    from triton.testing import do_bench

    from hsr import runtime
    from onehot_blocks import make_case

    lines = [f"Deterministic training steps, {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
             f"triton {triton.__version__}: ms (do_bench median) / peak GiB beyond the inputs", "",
             "| case | inverse blocks (entries, d, warps) | count block, sub | gather rows | ms | GiB |",
             "|---|---|---|---|---|---|"]
    gather_default = runtime.gather_rows
    for case in args.cases.split(","):
        leaves, loss = make_case(torch, case)

        def step():
            for t in leaves:
                t.grad = None
            loss("deterministic").backward()

        def timed(label):
            step()
            torch.cuda.synchronize()
            before = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            step()
            torch.cuda.synchronize()
            peak = (torch.cuda.max_memory_allocated() - before) / 2**30
            ms = do_bench(step, warmup=25, rep=200, return_mode="median")
            lines.append(f"| {case} | {label} | {ms:.3f} | {peak:.3f} |")
            print(lines[-1], flush=True)

        settings = [] if args.quick else [(inv, None, None) for inv in INVERSE]
        settings += [(None, cs, None) for cs in COUNT]
        settings += [] if args.quick else [(None, None, rows) for rows in GATHER]
        for inv, cs, rows in settings:
            if inv:
                os.environ["HSR_INVERSE_BLOCKS"] = inv
            if cs:
                os.environ["HSR_COUNT_BLOCKS"] = "%d,%d" % cs
            if rows:
                runtime.gather_rows = lambda r, d, rows=rows: min(rows, runtime.next_pow2(r))
            timed(f"{inv or 'default'} | {'%d, %d' % cs if cs else 'default'} | {rows or 'default'}")
            os.environ.pop("HSR_INVERSE_BLOCKS", None)
            os.environ.pop("HSR_COUNT_BLOCKS", None)
            runtime.gather_rows = gather_default
        step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                step()
            torch.cuda.synchronize()
        events = sorted((e for e in prof.key_averages() if e.device_time_total > 0), key=lambda e: -e.device_time_total)
        lines.append(f"| {case} kernels at the defaults | " + "; ".join(
            f"{e.key[:30]} {e.device_time_total / 5 / 1e3:.3f} x{e.count // 5}" for e in events[:8]) + " | | | | |")
        del leaves, loss
        torch.cuda.empty_cache()
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "deterministic_blocks.md"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
