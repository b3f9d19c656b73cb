#!/usr/bin/env python3
"""The lean MaxSim forward's blocks, timed at the forward shapes (GPU only).

hsr.ops.maxsim at Nq = 1, B = 1000, d = 128, fp16 with dispatch.LEAN_BLOCKS set to
each candidate (rows per chunk, columns per tile, warps, stages), against the
general forward (lean off), in one process; do_bench median with L2 flushed.
Writes lean_blocks.json and lean_blocks.md under --out.

    python3 bench/experiments/lean_blocks.py --out DIR [--shapes colpali,visual,medium,long-doc]
"""

from __future__ import annotations

import argparse
import json
import os
import platform

import torch
import torch.nn.functional as F
import triton
from triton.testing import do_bench

SHAPES = {"colpali": (1024, 1024), "visual": (512, 1024), "medium": (128, 1024), "long-doc": (32, 1024),
          "textual": (32, 300)}
CANDIDATES = [(128, 64, 8, 3), (128, 64, 8, 4), (128, 128, 8, 3), (64, 64, 4, 3), (64, 64, 4, 4),
              (128, 32, 8, 4), (256, 64, 8, 3)]
# shapes of at most 64 query rows take dispatch.LEAN_SMALL_BLOCKS: one warp group's 64 rows
SMALL_CANDIDATES = [(64, 64, 4, 3), (64, 64, 4, 4), (64, 64, 4, 6), (64, 128, 4, 2), (64, 128, 4, 3),
                    (64, 32, 4, 4), (64, 32, 4, 6), (64, 256, 4, 2), (64, 128, 8, 3)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="bench/results")
    p.add_argument("--shapes", default="colpali,visual,medium,long-doc")
    p.add_argument("--small", action="store_true",
                   help="shapes of at most 64 rows: sweep dispatch.LEAN_SMALL_BLOCKS (SMALL_CANDIDATES), lean on at any length")
    args = p.parse_args(argv)
    from hsr import dispatch, runtime
    from hsr.ops import maxsim

    os.makedirs(args.out, exist_ok=True)
    result = {"device": torch.cuda.get_device_name(0),
              "versions": {"torch": torch.__version__, "triton": triton.__version__,
                           "python": platform.python_version()},
              "what": "hsr.ops.maxsim, Nq=1, B=1000, d=128, fp16; do_bench median ms (warmup 25, rep 100)",
              "shapes": {}}
    candidates = SMALL_CANDIDATES if args.small else CANDIDATES
    lines = [f"Lean forward blocks on {result['device']} (torch {torch.__version__}, triton {triton.__version__}); "
             "ms, do_bench median, L2 flushed. general: the lean forward off.", "",
             "| shape | general | " + " | ".join("x".join(map(str, c)) for c in candidates)
             + " | general, dmask | lean, dmask |",
             "|" + "---|" * (len(candidates) + 4)]
    timed = False
    name_blocks = "LEAN_SMALL_BLOCKS" if args.small else "LEAN_BLOCKS"
    saved = dispatch.LEAN_MIN_ROWS, getattr(dispatch, name_blocks)
    for name in args.shapes.split(","):
        lq, ld = SHAPES[name]
        g = torch.Generator(device="cuda").manual_seed(0)
        Q = F.normalize(torch.randn(1, lq, 128, device="cuda", generator=g), dim=-1).half()
        D = F.normalize(torch.randn(1000, ld, 128, device="cuda", generator=g), dim=-1).half()
        # a document mask as PyLate passes one: the last tenth of each document is padding
        dmask = torch.ones(1000, ld, dtype=torch.bool, device="cuda")
        dmask[:, ld - ld // 10:] = False
        scores = torch.einsum("qsd,ntd->qnst", Q.float(), D.float())
        refs = {False: scores.amax(-1).sum(-1),
                True: scores.masked_fill(~dmask[None, :, None, :], float("-inf")).amax(-1).sum(-1)}
        del scores
        row = {}
        runs = [("general", 0, saved[1], False)] + [("x".join(map(str, c)), 1, c, False) for c in candidates]
        runs += [("general, dmask", 0, saved[1], True), ("lean, dmask", 1, saved[1], True)]
        for label, rows, blocks, masked in runs:
            dispatch.LEAN_MIN_ROWS = rows
            setattr(dispatch, name_blocks, blocks)
            kw = {"d_mask": dmask} if masked else {}
            ref = refs[masked]
            try:
                err = ((maxsim(Q, D, **kw) - ref).abs().max() / ref.abs().max()).item()
                if not timed:  # the process's first timing reads slow (bench/NOTES.md): one discarded
                    do_bench(lambda: maxsim(Q, D, **kw), warmup=25, rep=100, return_mode="median")
                    timed = True
                ms = do_bench(lambda: maxsim(Q, D, **kw), warmup=25, rep=100, return_mode="median")
                row[label] = {"ms": ms, "rel_err": err}
            except Exception as e:  # a config that does not compile or fit: recorded, the sweep goes on
                row[label] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
            print(name, label, row[label], flush=True)
        dispatch.LEAN_MIN_ROWS = saved[0]
        setattr(dispatch, name_blocks, saved[1])
        result["shapes"][name] = row
        cells = [f"{row[k]['ms']:.4f}" if "ms" in row[k] else "error" for k in row]
        lines.append(f"| {name} {lq}x{ld} | " + " | ".join(cells) + " |")
        with open(os.path.join(args.out, "lean_blocks.json"), "w") as f:
            json.dump(result, f, indent=2)
        with open(os.path.join(args.out, "lean_blocks.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
