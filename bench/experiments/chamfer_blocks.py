#!/usr/bin/env python3
"""Block sizes of the per-point Chamfer forward (chamfer_point.hsr, the CUDA-core
path for a few coordinates) at N = M = 10K and 100K, d = 3, fp32.

Run on the GPU machine from the repository root:

    python3 bench/experiments/chamfer_blocks.py --out DIR [--shapes 10k,100k] [--budget-s S]

For each shape and each (block of points, block of the other cloud, warps,
stages) in CONFIGS it launches the generated forward with those blocks (the
autotuner bypassed), with and without the saved index (NEED_IDX: the training
forward), checks the distances and indices against the default blocks', and
times one direction (triton.testing.do_bench median). Writes
chamfer_blocks.json and prints a table with pairs per second and FP32
instructions per pair implied by the fp32 rate given by --tflops.
"""

from __future__ import annotations

import argparse
import json
import os
import time

# (v8 also tried (64, 64, 4, 3): as (64, 64, 4, 1); (128, 128, 4, 1): spills, 30x slower with indices)
CONFIGS = [(64, 64, 4, 1), (128, 64, 4, 1), (64, 128, 4, 1), (128, 128, 8, 1), (32, 128, 4, 1),
           (256, 64, 8, 1), (32, 64, 2, 1), (16, 64, 4, 1), (64, 32, 4, 1), (128, 32, 4, 1)]
SHAPES = {"10k": 10_000, "100k": 100_000}


class Fixed:
    """Stands in for the autotuned launcher: the raw kernel with one config."""

    def __init__(self, kernel, config):
        self.kernel, (self.br, self.bc, self.warps, self.stages) = kernel, config

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            return self.kernel[grid](*args, **kwargs, BLOCK_N=self.br, BLOCK_M=self.bc,
                                     num_warps=self.warps, num_stages=self.stages)
        return launch


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="bench/results")
    p.add_argument("--shapes", default="10k,100k")
    p.add_argument("--budget-s", type=float, default=200.0)
    p.add_argument("--tflops", type=float, default=67.0, help="fp32 FMA rate, TFLOP/s (datasheet H100 SXM: 67)")
    args = p.parse_args(argv)
    import torch
    import triton
    from hsr.generated import chamfer_point as mod

    t0 = time.monotonic()
    rows = []
    default_kernel = mod._dist_kernel
    for shape in args.shapes.split(","):
        n = SHAPES[shape]
        g = torch.Generator(device="cuda").manual_seed(0)
        x = torch.randn(1, n, 3, device="cuda", generator=g)
        y = torch.randn(1, n, 3, device="cuda", generator=g)
        ylen = torch.full((1,), n, device="cuda", dtype=torch.int64)
        for need_idx in (False, True):
            def run():
                if need_idx:
                    x.requires_grad_(True)
                    out = mod.apply(x, y, ylen=ylen, backward="atomic")
                    x.requires_grad_(False)
                    return out.detach()
                return mod.apply(x, y, ylen=ylen)
            mod._dist_kernel = default_kernel
            ref = run()
            for config in CONFIGS:
                if time.monotonic() - t0 > args.budget_s:
                    print(f"budget spent: skipping {shape} {config}")
                    continue
                mod._dist_kernel = lambda c=config: Fixed(mod.dist_fwd, c)
                row = dict(shape=shape, n=n, need_idx=need_idx, config=config)
                try:
                    out = run()
                    row["max_abs_diff"] = float((out - ref).abs().max())
                    ms = triton.testing.do_bench(run, warmup=25, rep=150, return_mode="median")
                    row["ms"] = ms
                    pairs = n * n
                    row["gpairs_per_s"] = pairs / ms / 1e6
                    row["instr_per_pair"] = args.tflops / 2 * 1e12 * ms / 1e3 / pairs
                except Exception as e:  # noqa: BLE001
                    row["error"] = f"{type(e).__name__}: {e}"[:300]
                rows.append(row)
                print(row, flush=True)
    mod._dist_kernel = default_kernel
    os.makedirs(args.out, exist_ok=True)
    meta = dict(device=torch.cuda.get_device_name(), torch=torch.__version__, triton=triton.__version__)
    with open(os.path.join(args.out, "chamfer_blocks.json"), "w") as f:
        json.dump(dict(meta=meta, rows=rows), f, indent=1)
    print(f"\none direction, ms (instructions per pair at {args.tflops} TFLOP/s fp32), {meta}")
    print("| shape | NEED_IDX | BLOCK_N x BLOCK_M, warps, stages | ms | instr/pair | max diff |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if "ms" in r:
            print(f"| {r['shape']} | {r['need_idx']} | {r['config']} | {r['ms']:.3f} | {r['instr_per_pair']:.1f} "
                  f"| {r['max_abs_diff']:.1e} |")
        else:
            print(f"| {r['shape']} | {r['need_idx']} | {r['config']} | error | {r.get('error', '')[:80]} | |")


if __name__ == "__main__":
    main()
