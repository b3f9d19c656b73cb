#!/usr/bin/env python3
"""Probe: hsr.ops.maxsim_from_hidden against the three steps written out (F.linear,
F.normalize, hsr.ops.maxsim) and late-interaction-kernels' maxsim_from_hidden, bf16,
Lq = 32, d_out = 128, at LateOn's and LateOn-Code's shapes: forward under no_grad and a
training step (forward + backward into Q, H_d, W and b), do_bench medians and peak
memory, one process.

    python3 bench/experiments/hidden_step_probe.py [--out DIR]
"""
import argparse
import json
import os

import torch
import torch.nn.functional as F
import triton
import triton.testing

from hsr.ops import maxsim, maxsim_from_hidden

SHAPES = ((1, 128, 1024, 768), (16, 128, 1024, 768), (1, 512, 2048, 768), (1, 1024, 2048, 768),
          (1, 256, 4096, 384), (16, 256, 4096, 384))


def unfused(Q, H, W, b):
    return maxsim(Q, F.normalize(F.linear(H, W, b), dim=-1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    args = p.parse_args()
    try:
        from late_interaction_kernels import maxsim_from_hidden as lik
    except Exception as e:  # noqa: BLE001
        lik = None
        print("late-interaction-kernels:", e)
    calls = {"hsr": maxsim_from_hidden, "unfused": unfused, "lik": lik}
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    for nq, nd, ld, dm in SHAPES:
        Q = F.normalize(torch.randn(nq, 32, 128, device="cuda", generator=g), dim=-1).bfloat16().requires_grad_(True)
        H = torch.randn(nd, ld, dm, device="cuda", generator=g).bfloat16().requires_grad_(True)
        W = (torch.randn(128, dm, device="cuda", generator=g) / dm ** 0.5).bfloat16().requires_grad_(True)
        b = torch.zeros(128, device="cuda").bfloat16().requires_grad_(True)
        row = {"shape": f"Nq {nq}, Nd {nd}, Ld {ld}, d_model {dm}"}
        for name, call in calls.items():
            if call is None:
                continue
            try:
                with torch.no_grad():
                    row[f"{name}_fwd"] = round(triton.testing.do_bench(lambda: call(Q, H, W, b)), 4)

                def step():
                    for x in (Q, H, W, b):
                        x.grad = None
                    call(Q, H, W, b).sum().backward()
                step()
                torch.cuda.reset_peak_memory_stats()
                step()
                row[f"{name}_step_peak_gb"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
                row[f"{name}_step"] = round(triton.testing.do_bench(step), 4)
            except Exception as e:  # noqa: BLE001
                row[f"{name}_step"] = f"error: {type(e).__name__}: {str(e)[:160]}"
        print(json.dumps(row), flush=True)
        rows.append(row)
        del Q, H, W, b
        torch.cuda.empty_cache()
    with open(os.path.join(args.out, "hidden_step.json"), "w") as fh:
        json.dump({"torch": torch.__version__, "triton": triton.__version__,
                   "device": torch.cuda.get_device_name(), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
