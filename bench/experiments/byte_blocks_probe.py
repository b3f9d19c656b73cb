"""Probe: the lean forward's blocks for int8 and fp8 rows of few query rows.

At 32 query rows the lean forward takes LEAN_TINY_BLOCKS (32 rows, 2 warps): mma v2, where
fp8 operands are likely converted (bench/NOTES.md, session 36: fp8 at 32 x 300 of 10000 0.161 ms
against int8's 0.120). This times `hsr.ops.maxsim(q, stored)` (one query, d = 128) with the
rule's blocks replaced by each candidate, against fp16 and flash-maxsim's int8 in the same
process. do_bench medians of the public call, ms, one JSON line a row.

    python3 bench/experiments/byte_blocks_probe.py [--out DIR] [--wide]
"""

import argparse
import json
import os
from pathlib import Path

import torch
import triton

import hsr.ops
from hsr import dispatch, kept
from hsr.ops import quantize_fp8, quantize_int8

CANDIDATES = [None, (32, 64, 2, 3), (32, 128, 2, 3), (32, 64, 2, 4), (64, 64, 4, 3), (64, 128, 4, 3),
              (64, 64, 4, 4), (32, 128, 4, 3)]
# --wide: more warps, stages and wider tiles, at the memory-bound shape alone
WIDE = [None, (64, 64, 4, 3), (64, 64, 4, 5), (64, 64, 8, 3), (64, 128, 4, 4), (64, 128, 8, 3), (64, 128, 8, 4),
        (64, 256, 8, 3), (128, 64, 8, 3), (128, 128, 8, 3), (32, 128, 4, 4), (32, 256, 4, 3)]


def bench(f):
    return round(triton.testing.do_bench(f, warmup=25, rep=150), 4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--wide", action="store_true", help="the WIDE candidates at 32 x 300 of 10000 alone")
    args = ap.parse_args()
    candidates = WIDE if args.wide else CANDIDATES
    shapes = ((32, 300, 10000),) if args.wide else ((32, 300, 10000), (32, 300, 1000), (32, 512, 20000), (48, 300, 5000))
    out = open(Path(args.out) / "byte_blocks_probe.jsonl", "w")
    rule = dispatch._gpu_lean_blocks
    torch.manual_seed(0)
    for lq, ld, nd in shapes:
        q = torch.nn.functional.normalize(torch.randn(lq, 128, device="cuda"), dim=-1).half()
        d = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda"), dim=-1).half()
        row = {"shape": f"{lq} x {ld} x {nd}", "fp16": bench(lambda: hsr.ops.maxsim(q, d))}
        for name, quant in (("int8", quantize_int8), ("fp8", quantize_fp8)):
            stored = quant(d)
            for blocks in candidates:
                if blocks is None:
                    dispatch._gpu_lean_blocks = rule
                else:
                    dispatch._gpu_lean_blocks = lambda rows, l2=False, byte=False, b=blocks: b if byte else rule(rows, l2, byte)
                kept.forget(launches=True)
                try:
                    row[f"{name} {blocks or 'rule'}"] = bench(lambda: hsr.ops.maxsim(q, stored))
                except Exception as e:  # a block the kernel cannot take
                    row[f"{name} {blocks}"] = f"{type(e).__name__}: {str(e)[:80]}"
            dispatch._gpu_lean_blocks = rule
            kept.forget(launches=True)
            del stored
        print(json.dumps(row), file=out, flush=True)
        print(json.dumps(row), flush=True)
        del d


if __name__ == "__main__":
    main()
