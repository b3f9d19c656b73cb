"""Probe: the lean forward's blocks at contractions of 160 to 256.

The lean forward's blocks depend on the rows alone (dispatch._gpu_lean_tile): at d = 256 a
32-row program streams 64 x 256 tiles through 3 stages (112 KB of shared memory), and the
off-grid table's wide-256 row (1 x 1000 of 32 x 300) ran 62.7 us against LIK's 51.7. This times
`hsr.ops.maxsim` with the rule's blocks replaced by each candidate of the rows' class, at
held-in and held-out shapes and at d = 128 for control, with the peers in the same process.
Each candidate's scores are checked against the rule's. do_bench medians, ms, one JSON line a row.

    python3 bench/experiments/wide_lean_probe.py [--out DIR] [--quick] [--before] [--gaussian]

--before: the rule's blocks against the blocks it had before the column tiles narrowed, alone.
--gaussian: the Gaussian MaxSim spec (an L2 key, index through the loop) at four shapes, the rule's
blocks against the blocks it had before the column tiles narrowed.
"""

import argparse
import json
import os
import sys
from pathlib import Path

import torch
import triton

import hsr.ops
from hsr import dispatch, kept

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from maxsim_forward import load_peers  # noqa: E402

CANDIDATES = {  # (rows, columns, warps, stages) by the rows' class
    32: [(32, 64, 2, 2), (32, 32, 2, 3), (32, 32, 2, 4), (32, 64, 4, 3), (32, 64, 4, 2), (64, 64, 4, 3),
         (64, 64, 4, 2), (32, 128, 4, 2), (32, 32, 4, 4), (64, 32, 4, 4)],
    64: [(64, 64, 4, 2), (64, 32, 4, 3), (64, 32, 4, 4), (64, 128, 8, 2), (64, 64, 8, 3)],
    128: [(128, 64, 8, 2), (128, 32, 8, 3), (128, 32, 8, 4), (64, 64, 4, 3), (128, 128, 8, 2)],
}
SHAPES = [  # Lq, Ld, Nd, d, dtype
    (32, 300, 1000, 256, "float16"), (32, 300, 1000, 192, "float16"), (32, 300, 1000, 160, "float16"),
    (32, 300, 1000, 224, "float16"), (32, 300, 1000, 128, "float16"), (32, 512, 2000, 256, "float16"),
    (32, 300, 1000, 256, "bfloat16"), (24, 180, 3000, 256, "float16"), (64, 300, 1000, 256, "float16"),
    (48, 400, 1500, 192, "float16"), (128, 1024, 1000, 256, "float16"), (128, 1024, 1000, 192, "float16"),
    (256, 600, 500, 256, "float16"),
]


GAUSSIAN = "Q[i, s, d]: float\nD[j, t, d]: float\nscore[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n"
GAUSSIAN_SHAPES = [(32, 300, 1000, 256, "float16"), (32, 300, 1000, 192, "float16"), (64, 300, 1000, 256, "float16"),
                   (128, 1024, 1000, 256, "float16")]
BEFORE = {32: [(32, 64, 2, 3)], 64: [(64, 64, 4, 3)], 128: [(128, 64, 8, 3)]}
GAUSSIAN_BEFORE = {**BEFORE, 128: [(64, 64, 4, 3)]}


def bench(f):
    return round(triton.testing.do_bench(f, warmup=25, rep=100), 4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--quick", action="store_true", help="the first two shapes alone")
    ap.add_argument("--before", action="store_true", help="the rule against its blocks before, alone")
    ap.add_argument("--gaussian", action="store_true", help="the Gaussian MaxSim spec against its blocks before")
    args = ap.parse_args()
    out = open(Path(args.out) / ("wide_lean_gaussian.jsonl" if args.gaussian else "wide_lean_before.jsonl" if args.before
                                 else "wide_lean_probe.jsonl"), "w")
    rule = dispatch._gpu_lean_blocks
    peers = {} if args.gaussian else load_peers(torch)
    call = hsr.compile(GAUSSIAN) if args.gaussian else hsr.ops.maxsim
    candidates = GAUSSIAN_BEFORE if args.gaussian else BEFORE if args.before else CANDIDATES
    shapes = GAUSSIAN_SHAPES if args.gaussian else SHAPES[:2] if args.quick else SHAPES
    torch.manual_seed(0)
    for lq, ld, nd, dim, dt in shapes:
        dtype = getattr(torch, dt)
        q = torch.nn.functional.normalize(torch.randn(1, lq, dim, device="cuda"), dim=-1).to(dtype)
        d = torch.nn.functional.normalize(torch.randn(nd, ld, dim, device="cuda"), dim=-1).to(dtype)
        row = {"shape": f"1 x {nd} of {lq} x {ld}, d {dim}, {dt}",
               "rule": rule(lq, args.gaussian, "", dispatch.lean_row_bytes(dim, dt))}
        kept.forget(launches=True)
        want = call(q, d)
        row["rule ms"] = bench(lambda: call(q, d))
        klass = 32 if lq <= 32 else 64 if lq <= 64 else 128
        for blocks in candidates[klass]:
            dispatch._gpu_lean_blocks = lambda rows, l2=False, byte="", row_bytes=0, b=blocks: b
            kept.forget(launches=True)
            try:
                err = (call(q, d) - want).abs().max().item()
                row[str(blocks)] = bench(lambda: call(q, d)) if err < 1e-3 else f"wrong: {err:.3g}"
            except Exception as e:  # a block the kernel cannot take
                row[str(blocks)] = f"{type(e).__name__}: {str(e)[:80]}"
            dispatch._gpu_lean_blocks = rule
        kept.forget(launches=True)
        for name, (fn, _) in peers.items():
            try:
                row[name] = bench(lambda: fn(q, d))
            except Exception as e:  # noqa: BLE001
                row[name] = f"{type(e).__name__}: {str(e)[:80]}"
        print(json.dumps(row), file=out, flush=True)
        print(json.dumps(row), flush=True)
        del d


if __name__ == "__main__":
    main()
