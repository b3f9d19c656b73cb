#!/usr/bin/env python3
"""Probe: the Gaussian, min-distance and cosine MaxSim specs against the bundled MaxSim
(fp16, d = 128, L2-normalised rows), do_bench medians of the public calls in one
process, and the registers and spills of each forward kernel that ran. PROBE_SHAPES
"nq,nd,lq,ld;..." picks the shapes; PROBE_LEAN_BLOCKS "rows,cols,warps,stages" sets
dispatch.LEAN_BLOCKS (and LEAN_L2_BLOCKS) for every lean call; HSR_CONTRACTION and
HSR_AUTOTUNE=1 act as usual. Run it once with this checkout and once with an earlier
package tree first on PYTHONPATH to compare.

    python3 bench/experiments/l2_blocks_probe.py [--out DIR] [--tag NAME]
"""
import argparse
import gc
import json
import os

import torch
import triton
from triton.runtime.jit import JITFunction

import hsr
from hsr import dispatch
from hsr.ops import maxsim

DECL = "Q[i, s, d]: float\nD[j, t, d]: float\n"
SHAPES = ((1, 512, 1024, 1024), (1, 1000, 128, 1024), (1, 200, 512, 2048), (1, 1000, 96, 300),
          (1, 1000, 32, 300), (8, 1000, 32, 300))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    p.add_argument("--tag", default="this")
    args = p.parse_args()
    shapes = SHAPES
    if os.environ.get("PROBE_SHAPES"):
        shapes = [tuple(int(x) for x in s.split(",")) for s in os.environ["PROBE_SHAPES"].split(";")]
    if os.environ.get("PROBE_LEAN_BLOCKS"):
        dispatch.LEAN_BLOCKS = dispatch.LEAN_L2_BLOCKS = tuple(int(x) for x in os.environ["PROBE_LEAN_BLOCKS"].split(","))
    ops = {"gaussian": hsr.compile(DECL + "score[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n"),
           "min_dist": hsr.compile(DECL + "score[i, j] = sum_s min_t ||Q_s - D_t||^2\n"),
           "cos": hsr.compile(DECL + "score[i, j] = sum_s max_t cos(Q_s, D_t)\n")}
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    for nq, nd, lq, ld in shapes:
        Q = torch.nn.functional.normalize(torch.randn(nq, lq, 128, device="cuda", generator=g), dim=-1).half()
        D = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda", generator=g), dim=-1).half()
        row = {"shape": f"{nq}x{nd} {lq}x{ld}", "maxsim": triton.testing.do_bench(lambda: maxsim(Q, D))}
        for name, op in ops.items():
            row[name] = triton.testing.do_bench(lambda op=op: op(Q, D))
        rows.append(row)
        print(args.tag, json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}), flush=True)
    kernels = []
    for obj in gc.get_objects():
        if isinstance(obj, JITFunction) and obj.__name__.startswith("score_fwd"):
            for caches in getattr(obj, "device_caches", {}).values():
                for k in caches[0].values():
                    kernels.append(dict(module=obj.fn.__module__, kernel=obj.__name__, regs=k.n_regs,
                                        spills=k.n_spills, warps=k.metadata.num_warps))
    print(args.tag, json.dumps(kernels))
    with open(os.path.join(args.out, f"l2_blocks_{args.tag}.json"), "w") as f:
        json.dump({"tag": args.tag, "hsr": hsr.__file__, "torch": torch.__version__, "triton": triton.__version__,
                   "device": torch.cuda.get_device_name(), "rows": rows, "kernels": kernels}, f, indent=1)


if __name__ == "__main__":
    main()
