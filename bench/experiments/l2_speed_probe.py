#!/usr/bin/env python3
"""Probe: what an L2 key costs against a dot key on the same kernels, and what an
index-free L2 loop would cost: a dot key with a column term, <Q, D> - w_t, runs the
general loop as |D|^2 - 2<Q, D> would without an index (one FMA a pair and the running
selection), and cos(Q, D) the lean loop (one FMUL a pair, column norms from a pre-pass).
Also near rows (each document token a noisy copy of a query token, as real embeddings
have them). Prints do_bench medians (ms) and each spec's forward-kernel line; writes
probe.json. (The certified lean L2 value of commit e24b9a0 added HSR_CERTIFY,
HSR_BSQ_AHEAD and a count of redone rows to this probe; bench/NOTES.md, session 29.)

    python3 bench/experiments/l2_speed_probe.py [--out DIR]
"""
import argparse
import json
import os

import torch
import triton

import hsr
from hsr.ops import maxsim

DECL = "Q[i, s, d]: float\nD[j, t, d]: float\n"
SPECS = {
    "gaussian": DECL + "score[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n",
    "min_dist": DECL + "score[i, j] = sum_s min_t ||Q_s - D_t||^2\n",
    "dot_col_term": DECL + "w[j, t]: float\nscore[i, j] = sum_s max_t (<Q_s, D_t> - w_t)\n",
    "cos": DECL + "score[i, j] = sum_s max_t cos(Q_s, D_t)\n",  # the lean loop with one FMUL a pair, no index
    "dot_spec": DECL + "score[i, j] = sum_s max_t <Q_s, D_t>\n",
}
SHAPES = {"8x1000 32x300": (8, 1000, 32, 300), "1x1000 32x300": (1, 1000, 32, 300),
          "1x512 1024x1024": (1, 512, 1024, 1024), "1x32 32x16384": (1, 32, 32, 16384)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    args = p.parse_args()
    rows = []
    ops = {k: hsr.compile(v) for k, v in SPECS.items()}
    for shape, (nq, nd, lq, ld) in SHAPES.items():
        g = torch.Generator(device="cuda").manual_seed(0)
        Q = torch.nn.functional.normalize(torch.randn(nq, lq, 128, device="cuda", generator=g), dim=-1).half()
        D = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda", generator=g), dim=-1).half()
        w = torch.rand(nd, ld, device="cuda", generator=g).half()
        sizes = dict(i=nq, j=nd, s=lq, t=ld, d=128)
        row = {"shape": shape, "maxsim": triton.testing.do_bench(lambda: maxsim(Q, D))}
        for name, op in ops.items():
            call = (lambda op=op: op(Q, D, w)) if name == "dot_col_term" else (lambda op=op: op(Q, D))
            row[name] = triton.testing.do_bench(call)
            lines = [ln.strip() for ln in op.explain(sizes, torch.float16).splitlines() if "forward kernel" in ln]
            row[name + "_kernel"] = lines[0] if lines else ""
        # near rows, as real embeddings have them: each document token a noisy copy of a query token
        near = torch.nn.functional.normalize(Q[0].float()[torch.randint(0, lq, (nd, ld), device="cuda", generator=g)]
                                             + 0.05 * torch.randn(nd, ld, 128, device="cuda", generator=g), dim=-1).half()
        row["gaussian_near"] = triton.testing.do_bench(lambda: ops["gaussian"](Q, near))
        row["maxsim_near"] = triton.testing.do_bench(lambda: maxsim(Q, near))
        rows.append(row)
        print(json.dumps(row), flush=True)
        with open(os.path.join(args.out, "probe.json"), "w") as f:
            json.dump({"torch": torch.__version__, "triton": triton.__version__,
                       "device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
