#!/usr/bin/env python3
"""Probe: fp32 rows ranked on the fp16 tensor cores after a power-of-two scale, against
TF32. A stand-alone k-means assignment (argmin_c |c|^2 - 2<x, c>, with its index) whose
key takes one TF32 product, three (Triton's tf32x3), one fp16 product of the scaled rows
("fp16", TF32's 11 bits at twice its rate) or three of their hi/lo halves ("fp16x3", 22
bits as tf32x3 gives, at half its cost?). The centres are split on the host (K x f, small);
each program splits its rows' tile once. Prints do_bench ms and the share of points whose
pick is farther than the nearest (float64) by more than 4 * 2^-23 of its distance.

    python3 bench/experiments/split_fp16_probe.py [--out DIR]
"""
import argparse
import json
import os

import torch
import triton
import triton.language as tl
import triton.testing

MODES = {"tf32": 0, "tf32x3": 1, "fp16": 2, "fp16x3": 3}


@triton.jit
def _assign(x_ptr, chi_ptr, clo_ptr, c32_ptr, csq_ptr, out_ptr, n, k, x_scale, inv_scale,
            F: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, MODE: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_f = tl.arange(0, F)
    x = tl.load(x_ptr + rows[:, None].to(tl.int64) * F + offs_f[None, :], mask=(rows < n)[:, None], other=0.0)
    if MODE >= 2:  # the rows scaled by a power of two, split into fp16 halves once a program
        xs = x * x_scale
        x_hi = xs.to(tl.float16)
        x_lo = (xs - x_hi.to(tl.float32)).to(tl.float16)
    best = tl.full([BLOCK_N, BLOCK_K], float("inf"), tl.float32)
    idx = tl.zeros([BLOCK_N, BLOCK_K], tl.int32)
    for c0 in range(0, k, BLOCK_K):
        cols = c0 + tl.arange(0, BLOCK_K)
        at = cols[:, None] * F + offs_f[None, :]
        if MODE == 0:
            dot = tl.dot(x, tl.trans(tl.load(c32_ptr + at)), input_precision="tf32")
        elif MODE == 1:
            dot = tl.dot(x, tl.trans(tl.load(c32_ptr + at)), input_precision="tf32x3")
        elif MODE == 2:
            dot = tl.dot(x_hi, tl.trans(tl.load(chi_ptr + at))) * inv_scale
        else:
            c_hi = tl.trans(tl.load(chi_ptr + at))
            dot = tl.dot(x_hi, c_hi)
            dot = tl.dot(x_lo, c_hi, dot)
            dot = tl.dot(x_hi, tl.trans(tl.load(clo_ptr + at)), dot) * inv_scale
        key = tl.load(csq_ptr + cols)[None, :] - 2.0 * dot
        better = key < best
        idx = tl.where(better, cols[None, :], idx)
        best = tl.where(better, key, best)
    row_best = tl.min(best, axis=1)
    pick = tl.min(tl.where(best == row_best[:, None], idx, k), axis=1)
    tl.store(out_ptr + rows, pick, mask=rows < n)


def split(c, scale):
    cs = c * scale
    hi = cs.half()
    return hi.contiguous(), (cs - hi.float()).half().contiguous()


def assign(x, c, mode, block_n, block_k, warps, stages):
    n, f = x.shape
    # one power of two per tensor: the largest magnitude near 2^14 (fp16 holds to 65504)
    sx = 2.0 ** (14 - int(torch.ceil(torch.log2(x.abs().max())).item()))
    sc = 2.0 ** (14 - int(torch.ceil(torch.log2(c.abs().max())).item()))
    chi, clo = split(c, sc)
    csq = c.square().sum(1)
    out = torch.empty(n, dtype=torch.int32, device=x.device)

    def run():
        _assign[(triton.cdiv(n, block_n),)](x, chi, clo, c, csq, out, n, c.shape[0], sx, 1.0 / (sx * sc), F=f,
                                            BLOCK_N=block_n, BLOCK_K=block_k, MODE=MODES[mode],
                                            num_warps=warps, num_stages=stages)
        return out
    return run


def bad(x, c, a, sample=8192):
    xs = x[:sample].double()
    d = torch.cdist(xs, c.double()).square()
    best = d.min(1).values
    return float(((d.gather(1, a[:sample].long()[:, None])[:, 0] - best) > 4 * 2 ** -23 * best + 1e-30).float().mean())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    args = p.parse_args()
    rows = []
    configs = ((128, 64, 4, 2), (256, 64, 8, 3), (128, 128, 8, 3))
    g = torch.Generator(device="cuda").manual_seed(0)
    for n, k, f in ((1 << 20, 1024, 64), (1 << 20, 1024, 128), (1 << 20, 4096, 128)):
        for offset in (0.0, 1000.0):
            x = torch.rand(n, f, device="cuda", generator=g) + offset
            c = torch.rand(k, f, device="cuda", generator=g) + offset
            shift = x[:4096].mean(0)  # hsr ranks on rows shifted near their data (runtime.l2_shift)
            xs, cs = (x - shift).contiguous(), (c - shift).contiguous()
            for mode in MODES:
                for cfg in configs:
                    row = dict(shape=f"{n}x{k}x{f}", offset=offset, mode=mode, config=cfg)
                    try:
                        run = assign(xs, cs, mode, *cfg)
                        got = run()
                        row["ms"] = round(triton.testing.do_bench(run), 4)
                        row["bad"] = bad(x, c, got)
                    except Exception as e:  # noqa: BLE001
                        row["error"] = f"{type(e).__name__}: {str(e)[:160]}"
                    print(json.dumps(row), flush=True)
                    rows.append(row)
            del x, c, xs, cs
            torch.cuda.empty_cache()
    with open(os.path.join(args.out, "split_fp16_probe.json"), "w") as fh:
        json.dump({"device": torch.cuda.get_device_name(), "triton": triton.__version__, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
