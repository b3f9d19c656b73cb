#!/usr/bin/env python3
"""Tune the bundled MaxSim forward over a grid of serving and training shapes and
write the picks as a table hsr ships (hsr/tuned.json's layout), on the GPU.

    python3 bench/tune_grid.py --out DIR [--grid G[,G..]] [--dims D,..] [--budget-s 300] [--tune-seconds 2] [--shard I/N]

Grid (fp16 serving, no indices): Nq 1 / 8 / 64 / 512 queries, Lq 32 / 128 / 1024,
Ld 128 / 512 / 1024, d 64 / 96 / 128, with Nd documents such that a call stays
short (the key holds the lengths' buckets and d, not Nd). Training (bf16, the
forward that writes indices): in-batch B = 32 / 128 / 512 at 32 x 300 and
1024 x 1024, d = 128. Calls that take the lean forward (fixed blocks) tune nothing.
`--grid wide`: wide rows instead (fp16 serving, Nq 1 against 1000 documents, d 384 / 512 /
640 / 1024, Lq x Ld 32 x 300, 32 x 1024, 128 x 1024); d = 768 and 32 x 512 stay out, to judge
the prediction on. `--grid training`: the bundled grid's training keys alone (run it with
HSR_AUTOTUNE_CACHE=0 after a change to the loop they were tuned on); `--grid training-long`: in-batch steps of
32-token queries over documents of 1024 and 2048 tokens, B 8 / 32 / 128. `--grid broad`: fp16 serving over every d bucket from 64 to 1024 (448 and 896 for the wide ones), Nq 1 / 6 /
40, Lq 24 / 100 / 400, Ld 250 / 1500, at sizes none of bench/regret.py's draws take. `--grid fp32`:
fp32 serving at d 80 / 200 / 896, Nq 1 / 40, Lq 24 / 400, Ld 250 / 1500, also out of regret.py's
draws, under `--precision` (highest: the key as three TF32 products, high: one; dispatch.precision). `--grid stacked`: wide rows of stacked queries (fp16 serving, d 448 / 896,
Nq 16 / 48, Lq 24 / 48, Ld 80 / 400 / 1500; the tiles-long loop's row sets stacked), out of regret.py's
draws too. `--grid wide-one`: one query's wide rows (fp16, d 448 / 896, Lq 48 / 200 / 700, Ld 700 /
3000), out of regret.py's draws. `--grid stacked-dtypes`: stacked queries in fp16, bf16 and fp32 (Nq 6 / 40, Lq 24 / 48 / 100,
Ld 250 / 1500, d 40 / 80 / 200 / 448 / 896), out of regret.py's draws. `--grid fp32-short`: fp32 rows of a
contraction held whole (d 40 / 56, Nq 1 / 6 / 40, Lq 24 / 100 / 400, Ld 250 / 1500), out of regret.py's draws. `--grid batched`: the bundled grid's keys of 64 and 512 queries
(fp16 serving, Lq 32 / 128, Ld 128 / 512 / 1024, d = 128), tuned again over the stacked pool (run it
with HSR_AUTOTUNE_CACHE=0, else the shipped picks answer; its picks replace them). `--grid persistent`:
the keys of 16, 64 and 512 queries of 32 and 64 tokens (Ld 128 / 512 / 1024, d = 128) at as many documents as make
the stacked loop's programs persistent (dispatch.persistent), with HSR_AUTOTUNE_CACHE=0 too. Writes
DIR/tuned_grid.json ({"sm90": {entry: config}}, merge it into hsr/tuned.json: the entries there
already win) and DIR/tuned_grid.log.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import torch

SERVING = [(nq, lq, ld, d) for nq in (1, 8, 64, 512) for lq in (32, 128, 1024)
           for ld in (128, 512, 1024) for d in (64, 96, 128)]
TRAINING = [(b, lq, ld, 128) for b in (32, 128, 512) for lq, ld in ((32, 300), (1024, 1024))]
# in-batch steps over long documents: the keys of 32-token queries at Ld 1024 / 2048, whose 300-token neighbours'
# picks (tuned in-batch at B 32) served 8 x 64 of 32 x 1024 1.6x slower (bench/NOTES.md, session 51)
TRAINING_LONG = [(b, 32, ld, 128) for b in (8, 32, 128) for ld in (1024, 2048)]
WIDE = [(1, lq, ld, d) for d in (384, 512, 640, 1024) for lq, ld in ((32, 300), (32, 1024), (128, 1024))]
FP32 = [(nq, lq, ld, d) for d in (80, 200, 896) for nq in (1, 40) for lq in (24, 400) for ld in (250, 1500)]
# fp32 rows of 100 query tokens (bucket 128): between the grid's 32 and 512, whose 32-row picks served held-out
# one-query calls of 64-200 rows up to 1.85x slower than tuned (bench/NOTES.md, session 41)
FP32_MID = [(nq, 100, ld, d) for d in (80, 200, 896) for nq in (1, 40) for ld in (250, 1500)]
# one fp32 query against CORPUS_DOCUMENTS documents: cells enough that the outer sum is not split in chunks
# (a key of its own, which the grids' 1000 documents at most never reach; bench/NOTES.md, session 41)
FP32_CORPUS = [(1, lq, ld, d) for d in (80, 200, 896) for lq in (100, 400) for ld in (100, 300)]
CORPUS_DOCUMENTS = 2000
# wide rows at 448 and 896, whole chunks of 64 (DOT_MODE 1) as models' widths are: at 450 and 900 every tile
# read a ragged last chunk, and their picks ran held-out d 320-1024 up to 1.6x slower than tuned (bench/NOTES.md,
# session 40)
BROAD = [(nq, lq, ld, d) for d in (448, 896, 40, 80, 200) for nq in (40, 6, 1) for lq in (24, 100, 400)
         for ld in (250, 1500)]
STACKED = [(nq, lq, ld, d) for d in (448, 896) for nq in (16, 48) for lq in (24, 48) for ld in (80, 400, 1500)]
BATCHED = [(nq, lq, ld, 128) for nq in (64, 512) for lq in (32, 128) for ld in (128, 512, 1024)]
# 16, 64 and 512 queries of 32 and 64 tokens against as many documents as make the call's programs
# persistent (dispatch.persistent), which is how such keys run at a corpus's size
PERSISTENT = [(nq, lq, ld, 128) for nq in (16, 64, 512) for lq in (32, 64) for ld in (128, 512, 1024)]
WIDE_ONE = [(1, lq, ld, d) for d in (448, 896) for lq in (48, 200, 700) for ld in (700, 3000)]
# stacked queries in every dtype (fp32 under --precision), each d bucket: the stacked keys were fp16 but for a few,
# and fp32 / bf16 stacked calls took an fp16 key's blocks at up to 1.97x their tuned time (seed 31's worst rows,
# bench/NOTES.md, session 42); sizes out of regret.py's draws
STACKED_DTYPES = [(nq, lq, ld, d) for d in (40, 80, 200, 448, 896) for nq in (6, 40) for lq in (24, 48, 100)
                  for ld in (250, 1500)]

# fp32 rows whose whole contraction is one tile (d <= 64, DOT_MODE 0): the table held no fp32 key of that path, so
# such calls took 16-bit neighbours' tiles (seed 36's 8 x 4 of 1024 x 2000 at d 64: 2.17x; bench/NOTES.md,
# session 46); sizes out of regret.py's draws (d 40 and 56 share its d 48 and 64's key); under --precision
# highest (three TF32 products), then again under high
FP32_SHORT = [(nq, lq, ld, d) for d in (40, 56) for nq in (1, 6, 40) for lq in (24, 100, 400) for ld in (250, 1500)]


GRIDS = {  # each grid's cases: (kind, (Nq, Lq, Ld, d), dtype, indices written)
    "bundled": lambda: [("serve", c, "float16", False) for c in SERVING] + [("train", c, "bfloat16", True)
                                                                            for c in TRAINING],
    "training": lambda: [("train", c, "bfloat16", True) for c in TRAINING],
    "training-long": lambda: [("train", c, "bfloat16", True) for c in TRAINING_LONG],
    "fp32": lambda: [("serve", c, "float32", False) for c in FP32],
    "fp32-mid": lambda: [("serve", c, "float32", False) for c in FP32_MID],
    "fp32-corpus": lambda: [("corpus", c, "float32", False) for c in FP32_CORPUS],
    "fp32-short": lambda: [("serve", c, "float32", False) for c in FP32_SHORT],
    "persistent": lambda: [("persistent", c, "float16", False) for c in PERSISTENT],
    "stacked-dtypes": lambda: [("serve", c, dtype, False) for dtype in ("float32", "bfloat16", "float16")
                               for c in STACKED_DTYPES],
    **{name: (lambda cases=cases: [("serve", c, "float16", False) for c in cases])
       for name, cases in (("wide", WIDE), ("broad", BROAD), ("stacked", STACKED), ("wide-one", WIDE_ONE),
                           ("batched", BATCHED))},
}


def documents(nq: int, lq: int, ld: int) -> int:
    """Documents per call: a serving call's 1000 for one query, fewer as the work grows."""
    return max(4, min(1000, int(2e9 // (nq * lq * ld * 128))))


def persistent_documents(nq: int, lq: int, ld: int) -> int:
    """Documents per call of --grid persistent: a corpus's thousands, where programs persist (dispatch.persistent)."""
    return max(300, min(4000, int(8e11 // (nq * lq * ld * 128))))


def measured_table() -> dict:
    """This machine's tuned picks (this architecture's) as entries of hsr/tuned.json's table."""
    from hsr import autotune, tuned

    where = autotune._where()
    table = {}
    for name, config in tuned.measured().items():
        lowering, at, key = json.loads(name)
        if at == where:
            table[json.dumps([lowering, "", key])] = config
    return table


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--budget-s", type=float, default=300)
    ap.add_argument("--tune-seconds", type=float, default=2.0)
    ap.add_argument("--shard", default="0/1", help="I/N: every N-th case from the I-th (a grid over N GPUs, one process each)")
    ap.add_argument("--precision", default="highest", choices=("highest", "high"),
                    help="torch's float32 matmul precision while tuning (--grid fp32: the keys of that precision)")
    ap.add_argument("--grid", default="bundled", help="one of " + ", ".join(GRIDS) + ", or several, comma-separated")
    ap.add_argument("--dims", default="", help="only the cases of these d (comma-separated)")
    args = ap.parse_args()
    os.environ["HSR_TUNE_SECONDS"] = str(args.tune_seconds)
    torch.set_float32_matmul_precision(args.precision)
    from hsr import tune
    from hsr.cli import bundled_spec

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = open(out / "tuned_grid.log", "w")
    spec = str(bundled_spec("maxsim"))
    t0 = time.monotonic()
    cases = [case for grid in args.grid.split(",") for case in GRIDS[grid]()]
    if args.dims:
        cases = [case for case in cases if case[1][3] in {int(d) for d in args.dims.split(",")}]
    shard, shards = (int(v) for v in args.shard.split("/"))
    for kind, (nq, lq, ld, d), dtype, grad in cases[shard::shards]:
        if time.monotonic() - t0 > args.budget_s:
            print(f"budget spent: stopped before {kind} {nq} x {lq} x {ld} x {d}", file=log, flush=True)
            break
        nd = nq if grad else persistent_documents(nq, lq, ld) if kind == "persistent" else \
            CORPUS_DOCUMENTS if kind == "corpus" else documents(nq, lq, ld)
        started = time.monotonic()
        picks = tune.tune(spec, {"i": nq, "s": lq, "j": nd, "t": ld, "d": d}, dtype, grad)
        print(f"{kind} Nq={nq} Nd={nd} {lq}x{ld} d={d} {dtype}: {time.monotonic() - started:.1f} s {picks}",
              file=log, flush=True)
        torch.cuda.empty_cache()
    table = measured_table()
    device = torch.cuda.get_device_name()
    (out / "tuned_grid.json").write_text(json.dumps(
        {"_source": f"bench/tune_grid.py on {device}, HSR_TUNE_SECONDS={args.tune_seconds}", "sm90": table},
        indent=1, sort_keys=True))
    print(f"{len(table)} picks in {time.monotonic() - t0:.0f} s", file=log, flush=True)


if __name__ == "__main__":
    main()
