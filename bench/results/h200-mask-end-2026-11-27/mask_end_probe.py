#!/usr/bin/env python3
"""Probe: a mask's last kept position bounding the general loop (dispatch.mask_end), on and off
(HSR_MASK_END) in one process: MaxSim of query batches against documents padded to the longest and
masked to lengths drawn in [Ld / 2, Ld], do_bench ms of the public call. The first row is the off-grid
table's batched row; the others are held out (not tuned for). Writes mask_end.json.

    python3 bench/experiments/mask_end_probe.py [--out DIR]
"""
import argparse
import json
import os

import torch
import triton
import triton.testing

from hsr import kept
from hsr.ops import maxsim

SHAPES = ((64, 10000, 32, 300), (16, 5000, 32, 180), (64, 2000, 48, 200), (128, 2000, 64, 500),
          (8, 1000, 32, 300), (32, 3000, 32, 256), (4, 20000, 32, 512))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    args = p.parse_args()
    g = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    for nq, nd, lq, ld in SHAPES:
        Q = torch.nn.functional.normalize(torch.randn(nq, lq, 128, device="cuda", generator=g), dim=-1).half()
        D = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda", generator=g), dim=-1).half()
        lengths = torch.randint(ld // 2, ld + 1, (nd,), device="cuda", generator=g)
        mask = torch.arange(ld, device="cuda")[None, :] < lengths[:, None]
        row = dict(shape=f"{nq}x{nd} of {lq}x{ld}", flops_padded=2 * nq * nd * lq * ld * 128)
        outs = {}
        for rnd in range(2):
            for flag in ("0", "1"):
                os.environ["HSR_MASK_END"] = flag
                kept.forget()
                outs[flag] = maxsim(Q, D, d_mask=mask)
                row.setdefault(f"ms_{flag}", []).append(round(triton.testing.do_bench(lambda: maxsim(Q, D, d_mask=mask)), 4))
        row["equal"] = bool(torch.equal(outs["0"], outs["1"]))
        row["tflops_padded_1"] = round(row["flops_padded"] / min(row["ms_1"]) / 1e9, 1)
        print(json.dumps(row), flush=True)
        rows.append(row)
        del Q, D
        torch.cuda.empty_cache()
    with open(os.path.join(args.out, "mask_end.json"), "w") as fh:
        json.dump({"device": torch.cuda.get_device_name(), "triton": triton.__version__, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
