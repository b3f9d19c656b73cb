#!/usr/bin/env python3
"""Probe: the bundled MaxSim's general (stacked) forward with a running max per row and
column of the tile (HSR_ROW_SLOT=0) or per row, each tile reduced at once
(HSR_ROW_SLOT=1). Several queries against 1000 documents, fp16 d = 128, with and
without a document mask and an index (requires_grad: the training forward), and
in-batch bf16 training forwards; do_bench medians of the public call in one process.

    python3 bench/experiments/row_slot_probe.py [--out DIR]
"""
import argparse
import json
import os

import torch
import triton
import triton.testing

import hsr
from hsr import kept
from hsr.ops import maxsim

SHAPES = [(nq, 1000, lq, ld) for lq, ld in ((32, 300), (128, 1024)) for nq in (2, 4, 8, 16, 32, 64)]
IN_BATCH = ((128, 32, 300), (32, 1024, 1024))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    args = p.parse_args()
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)

    def measure(case, call):
        row = {"case": case}
        for slot in ("0", "1"):
            os.environ["HSR_ROW_SLOT"] = slot
            kept.forget()
            try:
                call()
                row[f"slot{slot}"] = round(triton.testing.do_bench(call), 4)
            except Exception as e:  # noqa: BLE001
                row[f"slot{slot}"] = f"error: {type(e).__name__}: {str(e)[:160]}"
        print(json.dumps(row), flush=True)
        rows.append(row)

    for nq, nd, lq, ld in SHAPES:
        Q = torch.randn(nq, lq, 128, device="cuda", generator=g).half()
        D = torch.randn(nd, ld, 128, device="cuda", generator=g).half()
        lengths = torch.randint(ld // 2, ld + 1, (nd,), device="cuda", generator=g)
        mask = torch.arange(ld, device="cuda")[None, :] < lengths[:, None]
        with torch.no_grad():
            measure(f"{nq}x{nd} {lq}x{ld}", lambda: maxsim(Q, D))
            measure(f"{nq}x{nd} {lq}x{ld} masked", lambda: maxsim(Q, D, d_mask=mask))
        Qg = Q.clone().requires_grad_(True)
        measure(f"{nq}x{nd} {lq}x{ld} with index", lambda: maxsim(Qg, D))
    for b, lq, ld in IN_BATCH:
        Q = torch.randn(b, lq, 128, device="cuda", generator=g).bfloat16().requires_grad_(True)
        D = torch.randn(b, ld, 128, device="cuda", generator=g).bfloat16().requires_grad_(True)
        measure(f"in-batch {b} {lq}x{ld} bf16 forward", lambda: maxsim(Q, D))
        measure(f"in-batch {b} {lq}x{ld} bf16 step", lambda: maxsim(Q, D).sum().backward())
    os.environ.pop("HSR_ROW_SLOT", None)
    with open(os.path.join(args.out, "row_slot.json"), "w") as fh:
        json.dump({"hsr": hsr.__file__, "torch": torch.__version__, "triton": triton.__version__,
                   "device": torch.cuda.get_device_name(), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
