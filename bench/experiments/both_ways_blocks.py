#!/usr/bin/env python3
"""Block sizes of the both-ways Chamfer forward (chamfer_point.hsr's both_ways:
both directions from one pass over the pairs) at N = M = 10K and 100K, d = 3,
fp32, against the two one-direction calls it replaces.

Run on the GPU machine from the repository root:

    python3 bench/experiments/both_ways_blocks.py --out DIR [--shapes 10k,100k] [--budget-s S]

For each shape it times (triton.testing.do_bench median) the two separate
forwards (autotuned, as chamfer_distance ran them before) and both_ways under
each (block of rows, block of columns, warps) in CONFIGS (HSR_BOTH_BLOCKS),
without and with the saved indices (the training forward), after checking the
values and indices against the separate calls. Writes both_ways_blocks.json
and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import time

# Columns across all the warps (BLOCK_C = 32 x warps): each thread holds its column's rows, so the
# column's min over the program's rows needs no exchange between threads (bench/NOTES.md, session 14)
CONFIGS = [(32, 128, 4), (16, 128, 4), (64, 128, 4), (32, 256, 8), (16, 256, 8), (32, 64, 2), (64, 32, 4),
           (32, 32, 1)]
SHAPES = {"10k": 10_000, "100k": 100_000}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="bench/results")
    p.add_argument("--shapes", default="10k,100k")
    p.add_argument("--budget-s", type=float, default=200.0)
    p.add_argument("--index", default="without", choices=["without", "with"],
                   help="the forward without the saved indices, or the training forward (run it in its own process)")
    args = p.parse_args(argv)
    import torch
    import triton
    from triton.testing import do_bench

    import hsr
    from hsr.generated import chamfer_point as m

    t0 = time.time()
    dev = torch.cuda.get_device_name(0)
    meta = dict(device=dev, torch=torch.__version__, triton=triton.__version__, hsr=hsr.__version__)
    rows = []

    def fused(x, y, need_idx):
        t, sizes = hsr.runtime.bind(m.OUTPUT, m.SIGNATURE, (x, y), {})
        t_sw, sizes_sw = hsr.runtime.bind(m.OUTPUT, m.SIGNATURE, (y, x), {})
        out, saved, out_sw, saved_sw = m._dist_forward_both(t, t_sw, sizes, sizes_sw, need_idx)
        return out, out_sw, saved[0], saved_sw[0]

    def separate(x, y, need_idx):
        if not need_idx:
            return m.apply(x, y), m.apply(y, x), None, None
        (a, ia), (b, ib) = m.forward_with_indices(x, y), m.forward_with_indices(y, x)
        return a, b, ia, ib

    for shape in args.shapes.split(","):
        n = SHAPES[shape]
        gen = torch.Generator(device="cuda").manual_seed(0)
        x = torch.rand(1, n, 3, device="cuda", generator=gen)
        y = torch.rand(1, n, 3, device="cuda", generator=gen)
        for need_idx in ([True] if args.index == "with" else [False]):
            want = separate(x, y, need_idx)
            ms = do_bench(lambda: separate(x, y, need_idx), warmup=50, rep=300)
            rows.append(dict(shape=shape, need_idx=need_idx, variant="two calls", ms=ms, ok=True))
            print(rows[-1], flush=True)
            for cfg in CONFIGS:
                if time.time() - t0 > args.budget_s:
                    print("budget spent: stopping", flush=True)
                    break
                os.environ["HSR_BOTH_BLOCKS"] = ",".join(map(str, cfg))
                got = fused(x, y, need_idx)
                ok = all(torch.allclose(g, w, rtol=1e-5, atol=1e-6) for g, w in zip(got[:2], want[:2]))
                if need_idx:  # uniform random points: near-ties are rare, indices should agree almost everywhere
                    agree = [(g.view(-1) == w.view(-1).to(g.dtype)).float().mean().item() for g, w in zip(got[2:], want[2:])]
                    ok = ok and min(agree) > 0.999
                ms = do_bench(lambda: fused(x, y, need_idx), warmup=50, rep=300)
                rows.append(dict(shape=shape, need_idx=need_idx, variant="both_ways", blocks=cfg, ms=ms, ok=ok))
                print(rows[-1], flush=True)
            os.environ.pop("HSR_BOTH_BLOCKS", None)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"both_ways_blocks_{args.index}.json"), "w") as f:
        json.dump(dict(meta=meta, rows=rows), f, indent=1)
    print(f"\nboth_ways blocks, Chamfer d=3 fp32, one forward of both directions, {meta}")
    print("| shape | indices | variant | blocks (rows, cols, warps) | ms | checked |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['shape']} | {r['need_idx']} | {r['variant']} | {r.get('blocks', '-')} | {r['ms']:.3f} | {r['ok']} |")


if __name__ == "__main__":
    main()
