#!/usr/bin/env python3
"""The general loop's selected axis in parts, through TMA loads: a top-1 search of a few
queries over a corpus of wide rows (16-bit, d > 256 takes TMA loads on sm90), parts
(the default) against one program per row block (HSR_COL_PARTS=0) and eager, in one process.

    python3 bench/experiments/parts_tma.py --out DIR

do_bench medians of the public call, host included. Writes parts_tma.json and prints a table."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import torch
import triton

import hsr
from hsr import kept

SPEC = """\
Q[q, d]: float
E[k, d]: float
nn[q] = argmax_k <Q_q, E_k>
"""
SHAPES = [(16, 1 << 20, 768), (1, 1 << 20, 768), (16, 1 << 20, 384), (16, 1 << 20, 128), (64, 1 << 19, 768)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    op = hsr.compile(SPEC)
    rows = []
    for nq, n, d in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(0)
        q = torch.randn(nq, d, device="cuda", generator=g, dtype=torch.float16)
        e = torch.randn(n, d, device="cuda", generator=g, dtype=torch.float16)
        row = {"queries": nq, "rows": n, "d": d, "explain": op.explain({"q": nq, "k": n, "d": d}, dtype="float16")}
        want = (q.float() @ e.float().T).argmax(-1)
        for label, env in (("parts", None), ("whole", "0")):
            if env is None:
                os.environ.pop("HSR_COL_PARTS", None)
            else:
                os.environ["HSR_COL_PARTS"] = env
            kept.forget()
            got = op(q, e)
            row[f"{label}_agree"] = bool(torch.equal(got, want))
            row[label] = triton.testing.do_bench(lambda: op(q, e))
        os.environ.pop("HSR_COL_PARTS", None)
        kept.forget()
        row["eager"] = triton.testing.do_bench(lambda: (q @ e.T).argmax(-1))
        row["floor_ms"] = n * d * 2 / 4.8e12 * 1e3
        rows.append(row)
        print(f"{nq} x {n} x {d}: parts {row['parts']:.3f} whole {row['whole']:.3f} eager {row['eager']:.3f} "
              f"floor {row['floor_ms']:.3f} ms; agree {row['parts_agree']} {row['whole_agree']}", flush=True)
    meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__}
    (out / "parts_tma.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
