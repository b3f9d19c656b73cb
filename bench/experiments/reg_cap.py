#!/usr/bin/env python3
"""The cosine key's register cap (dispatch.register_cap) on and off: `hsr.ops.maxsim(..., normalize=True)`
(inference, stacked queries: the general loop) at shapes the cap was not measured on, do_bench medians in one
process, HSR_REG_CAP=1 / 0 interleaved, with the compiled kernels' registers and spills.

    python3 bench/experiments/reg_cap.py [--out DIR]
"""
import argparse
import gc
import json
import os

import torch
import triton
import triton.testing
from triton.runtime.jit import JITFunction

from hsr import kept
from hsr.ops import maxsim

SHAPES = [(8, 1000, 32, 300, 128), (64, 1000, 32, 300, 128), (8, 1000, 128, 300, 128), (16, 500, 32, 1024, 128),
          (8, 2000, 32, 300, 96), (32, 300, 64, 512, 256), (4, 1000, 32, 300, 128)]


def regs():
    out = {}
    for obj in gc.get_objects():
        if isinstance(obj, JITFunction) and obj.__name__.endswith("_fwd"):
            for caches in getattr(obj, "device_caches", {}).values():
                for k in caches[0].values():
                    out[f"{obj.__name__}/{k.metadata.num_warps}w/{getattr(k, 'n_regs', '?')}r"] = getattr(k, "n_spills", None)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    args = p.parse_args()
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    for nq, nd, lq, ld, d in SHAPES:
        for dtype in (torch.float16, torch.bfloat16):
            Q = torch.randn(nq, lq, d, device="cuda", generator=g).to(dtype)
            D = torch.randn(nd, ld, d, device="cuda", generator=g).to(dtype)
            row = dict(shape=f"{nq}x{nd} {lq}x{ld} d{d}", dtype=str(dtype).removeprefix("torch."))
            outs = {}
            for rnd in range(2):
                for cap in ("1", "0"):
                    os.environ["HSR_REG_CAP"] = cap
                    kept.forget()
                    with torch.no_grad():
                        outs[cap] = maxsim(Q, D, normalize=True)
                        t = triton.testing.do_bench(lambda: maxsim(Q, D, normalize=True))
                    row.setdefault(f"cap{cap}", []).append(round(t, 4))
            row["same"] = bool(torch.equal(outs["1"], outs["0"]))
            for cap in ("1", "0"):
                row[f"cap{cap}"] = min(row[f"cap{cap}"])
            row["ratio"] = round(row["cap0"] / row["cap1"], 3)
            print(json.dumps(row), flush=True)
            rows.append(row)
    os.environ.pop("HSR_REG_CAP", None)
    info = dict(rows=rows, kernels=regs(), device=torch.cuda.get_device_name(), torch=torch.__version__,
                triton=triton.__version__)
    print(json.dumps(info["kernels"]))
    with open(os.path.join(args.out, "reg_cap.json"), "w") as fh:
        json.dump(info, fh, indent=1)


if __name__ == "__main__":
    main()
