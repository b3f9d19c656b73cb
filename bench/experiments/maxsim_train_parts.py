"""Where a MaxSim training step spends its time: each generated kernel timed
alone, with a few launch variants, at the training shapes. Informs the
backward="auto" rule and the next kernel version (bench/NOTES.md).

    python bench/experiments/maxsim_train_parts.py --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
import triton
from triton.testing import do_bench

import hsr.generated.maxsim as gen
from hsr import runtime

SHAPES = {"colbert128": (128, 32, 300), "colbert512": (512, 32, 300),
          "colpali32": (32, 1024, 1024), "colpali64": (64, 1024, 1024)}


def launch_bwd(Q, D, grad, idx, sizes, gQ, gD, block_r, warps, stages, scatter):
    grid = (sizes["i"], triton.cdiv(sizes["s"], block_r))
    gen.score_bwd[grid](Q, D, grad, idx, grad, gQ, gD, sizes["i"], sizes["j"], sizes["s"], sizes["t"], sizes["d"],
                        *Q.stride(), *D.stride(), *gQ.stride(), *gD.stride(),
                        BLOCK_S=block_r, BLOCK_D=runtime.next_pow2(sizes["d"]), SCATTER=scatter,
                        num_warps=warps, num_stages=stages)


def launch_bwd_d(Q, D, grad, idx, sizes, gD, block_r, block_c, warps, stages):
    grid = (sizes["j"], triton.cdiv(sizes["t"], block_c))
    gen.score_bwd_D[grid](Q, D, grad, idx, grad, gD, sizes["i"], sizes["j"], sizes["s"], sizes["t"], sizes["d"],
                          *Q.stride(), *D.stride(), *gD.stride(), BLOCK_S=block_r, BLOCK_T=block_c,
                          BLOCK_D=runtime.next_pow2(sizes["d"]), PRECISION="tf32", DOT_FP32=False,
                          num_warps=warps, num_stages=stages)


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="bench/results")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    results = {"device": torch.cuda.get_device_name(0), "triton": triton.__version__, "torch": torch.__version__,
               "dtype": "bf16", "shapes": {}}
    for name, (B, lq, ld) in SHAPES.items():
        g = torch.Generator(device="cuda").manual_seed(0)
        Q = F.normalize(torch.randn(B, lq, 128, device="cuda", generator=g), dim=-1).bfloat16()
        D = F.normalize(torch.randn(B, ld, 128, device="cuda", generator=g), dim=-1).bfloat16()
        t = {"Q": Q, "D": D, "qmask": None, "dmask": None}
        sizes = {"i": B, "j": B, "s": lq, "t": ld, "d": 128}
        rec = {}
        gen._forward(t, sizes, False)
        gen._forward(t, sizes, True)
        rec["fwd_no_idx"] = do_bench(lambda: gen._forward(t, sizes, False), return_mode="median")
        rec["fwd_idx"] = do_bench(lambda: gen._forward(t, sizes, True), return_mode="median")
        _, idx, _ = gen._forward(t, sizes, True)
        grad = torch.randn(B, B, device="cuda")
        gQ = torch.empty_like(Q)
        gD32 = torch.zeros(D.shape, device="cuda")
        gD = torch.empty_like(D)
        for br in (32, 64):
            for warps, stages in ((4, 1), (4, 3), (8, 3)):
                if br > runtime.next_pow2(lq):
                    continue
                key = f"bwd_fused_r{br}_w{warps}_s{stages}"
                rec[key] = do_bench(lambda: launch_bwd(Q, D, grad, idx, sizes, gQ, gD32, br, warps, stages, True),
                                    return_mode="median")
                key = f"bwd_gather_r{br}_w{warps}_s{stages}"
                rec[key] = do_bench(lambda: launch_bwd(Q, D, grad, idx, sizes, gQ, gD32, br, warps, stages, False),
                                    return_mode="median")
        for br in (32, 64):
            for bc in (32, 64, 128):
                for warps, stages in ((4, 2), (8, 2)):
                    if br > runtime.next_pow2(lq):
                        continue
                    key = f"bwd_onehot_r{br}_c{bc}_w{warps}_s{stages}"
                    try:
                        rec[key] = do_bench(lambda: launch_bwd_d(Q, D, grad, idx, sizes, gD, br, bc, warps, stages),
                                            return_mode="median")
                    except Exception as e:  # noqa: BLE001 - out of resources for a big tile
                        rec[key] = f"error: {type(e).__name__}"
        results["shapes"][name] = rec
        best = {k: v for k, v in rec.items() if isinstance(v, float)}
        print(name, {k: round(v, 3) for k, v in best.items()}, flush=True)
    with open(os.path.join(args.out, "maxsim_train_parts.json"), "w") as f:
        json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
