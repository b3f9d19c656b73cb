#!/usr/bin/env python3
"""The hidden-states table: hsr.ops.maxsim_from_hidden as called ("hsr": the path
dispatch.hidden_fused picks), its projection formed in the MaxSim kernel (the spec
ops/maxsim_hidden.hsr, "fused") and by a GEMM first ("unfused", its backward on the
selected rows), against the three steps written out
(F.linear, F.normalize, hsr.ops.maxsim) and eager PyTorch (the same with an einsum
MaxSim). bf16, Lq = 32, d_out = 128, at LateOn's (Nd 128, Ld 1024, d_model 768),
LateOn-Code's (Nd 512 and 1024, Ld 2048) and a long-document shape (Nd 256, Ld 4096,
d_model 384), one query and 16. Forward under no_grad and a training step (forward +
backward into Q, H_d, W and b): do_bench medians (ms), peak memory of a step (GiB),
one process. Results: hidden.json and hidden.md under --out.

    python3 bench/hidden.py [--out DIR] [--quick]
    python3 bench/hidden.py --tune-grid [--out DIR]

--tune-grid: the fused forward (inference and training, which writes indices) tuned once a key
(HSR_AUTOTUNE=1) for 1 and 16 queries of 32 tokens at Ld 1024, 2048, 4096 and 8192, bf16 and fp16; the picks
written to DIR/hidden_tuned.json in hsr/tuned.json's layout (merge them there).
"""
import argparse
import json
import os

import torch
import torch.nn.functional as F
import triton
import triton.testing

from hsr.ops import maxsim, maxsim_from_hidden

SHAPES = ((1, 128, 1024, 768), (16, 128, 1024, 768), (1, 512, 2048, 768), (16, 512, 2048, 768),
          (1, 1024, 2048, 768), (1, 256, 4096, 384), (16, 256, 4096, 384))


def _path(name):
    def call(Q, H, W, b):
        os.environ["HSR_HIDDEN"] = name
        try:
            return maxsim_from_hidden(Q, H, W, b)
        finally:
            del os.environ["HSR_HIDDEN"]
    return call


def composite(Q, H, W, b):
    return maxsim(Q, F.normalize(F.linear(H, W, b), dim=-1))


def eager(Q, H, W, b):
    D = F.normalize(F.linear(H, W, b), dim=-1)
    return torch.einsum("isd,jtd->ijst", Q, D).amax(-1).float().sum(-1)


CALLS = {"hsr": maxsim_from_hidden, "fused": _path("fused"), "unfused": _path("unfused"), "composite": composite,
         "eager": eager}


def tune_grid(out):
    """The fused forward tuned once a key, the picks written as a table (bench/tune_grid.measured_table)."""
    import sys

    os.environ["HSR_AUTOTUNE"], os.environ["HSR_AUTOTUNE_CACHE"], os.environ["HSR_HIDDEN"] = "1", "0", "fused"
    g = torch.Generator(device="cuda").manual_seed(1)
    for dtype, ld, nq in ((dt, ld, nq) for dt in (torch.bfloat16, torch.float16) for ld in (1024, 2048, 4096, 8192)
                          for nq in (1, 16)):
        nd = max(16, 2**21 // ld)
        Q = F.normalize(torch.randn(nq, 32, 128, device="cuda", generator=g), dim=-1).to(dtype)
        H = torch.randn(nd, ld, 768, device="cuda", generator=g).to(dtype)
        W = (torch.randn(128, 768, device="cuda", generator=g) / 768 ** 0.5).to(dtype)
        with torch.no_grad():
            maxsim_from_hidden(Q, H, W)
        maxsim_from_hidden(Q.requires_grad_(), H, W).sum().backward()
        print(f"tuned {dtype} Ld {ld} Nq {nq}", flush=True)
    sys.path.insert(0, os.path.dirname(__file__))
    from tune_grid import measured_table

    table = measured_table()
    with open(os.path.join(out, "hidden_tuned.json"), "w") as f:
        json.dump({"_source": f"bench/hidden.py --tune-grid on {torch.cuda.get_device_name()}", "sm90": table}, f,
                  indent=1, sort_keys=True)
    print(f"{len(table)} picks")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    p.add_argument("--quick", action="store_true", help="the first two shapes only")
    p.add_argument("--tune-grid", action="store_true", help="tune the fused forward; write hidden_tuned.json")
    args = p.parse_args()
    if args.tune_grid:
        return tune_grid(args.out)
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    for nq, nd, ld, dm in SHAPES[:2] if args.quick else SHAPES:
        Q = F.normalize(torch.randn(nq, 32, 128, device="cuda", generator=g), dim=-1).bfloat16().requires_grad_(True)
        H = torch.randn(nd, ld, dm, device="cuda", generator=g).bfloat16().requires_grad_(True)
        W = (torch.randn(128, dm, device="cuda", generator=g) / dm ** 0.5).bfloat16().requires_grad_(True)
        b = (torch.randn(128, device="cuda", generator=g) * 0.1).bfloat16().requires_grad_(True)
        row = {"nq": nq, "nd": nd, "ld": ld, "d_model": dm}
        with torch.no_grad():
            want = eager(Q, H, W, b)
        for name, call in CALLS.items():
            try:
                with torch.no_grad():
                    got = call(Q, H, W, b)
                    row[f"{name}_err"] = float((got - want).abs().max())
                    row[f"{name}_fwd"] = round(triton.testing.do_bench(lambda: call(Q, H, W, b)), 4)

                def step():
                    for x in (Q, H, W, b):
                        x.grad = None
                    call(Q, H, W, b).sum().backward()
                step()
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                step()
                row[f"{name}_step_peak_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
                row[f"{name}_step"] = round(triton.testing.do_bench(step), 4)
            except Exception as e:  # noqa: BLE001
                row[f"{name}_step"] = f"error: {type(e).__name__}: {str(e)[:200]}"
                torch.cuda.empty_cache()
        print(json.dumps(row), flush=True)
        rows.append(row)
        del Q, H, W, b
        torch.cuda.empty_cache()
    meta = {"torch": torch.__version__, "triton": triton.__version__, "device": torch.cuda.get_device_name()}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "hidden.json"), "w") as fh:
        json.dump({**meta, "rows": rows}, fh, indent=1)
    lines = [f"# maxsim_from_hidden, bf16, Lq 32, d_out 128 ({meta['device']}, torch {meta['torch']}, "
             f"Triton {meta['triton']}); ms, do_bench medians", "",
             "| Nq, Nd, Ld, d_model | forward: hsr / fused / unfused / composite / eager | step: hsr / fused / "
             "unfused / composite / eager | step peak GiB: hsr / composite |", "|---|---|---|---|"]
    for r in rows:
        f = lambda k: str(r.get(k, "-"))  # noqa: E731
        lines.append(f"| {r['nq']}, {r['nd']}, {r['ld']}, {r['d_model']} | "
                     + " / ".join(f(f"{n}_fwd") for n in CALLS) + " | "
                     + " / ".join(f(f"{n}_step") for n in CALLS) + " | "
                     + f"{f('hsr_step_peak_gib')} / {f('composite_step_peak_gib')} |")
    with open(os.path.join(args.out, "hidden.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
