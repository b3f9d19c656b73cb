#!/usr/bin/env python3
"""Probe: why an L2 (or cosine) key costs 1.75-2.4x MaxSim's lean loop, and what a
loop with no per-pair epilogue would cost. One program per (document, 128 query rows),
the lean forward's blocks (128 x 64, 8 warps, 3 stages), pointer loads:
  dot      running max of <a, b>                         (MaxSim)
  vec      running min of bsq[t] - 2<a, b>               (the lean L2 key today, no index)
  vec_idx  the same with the running index               (the lean L2 key today)
  aug      running min of the accumulator started from a K=16 dot of ones against
           [hi(bsq), lo(bsq), 0 ...] and then -2a against b: no per-pair epilogue
  cos      running max of <a, b> / |b| (the cosine key's per-pair work)
  *_nan    the same with a NaN-keeping max or min (propagate_nan=ALL), as hsr's loops keep them
Prints do_bench medians (ms) and the largest value difference to float64.

    python3 bench/experiments/l2_epilogue_probe.py
"""
import torch
import triton
import triton.language as tl


@triton.jit
def probe(a_ptr, b_ptr, bsq_ptr, aug_ptr, out_ptr, n_rows, n_cols, MODE: tl.constexpr, IS_MAX: tl.constexpr,
          BR: tl.constexpr, BC: tl.constexpr, K: tl.constexpr):
    chunk = tl.program_id(0)
    doc = tl.program_id(1)
    r = chunk * BR + tl.arange(0, BR)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + r[:, None] * K + k[None, :])
    if MODE == 3:
        a = a * -2.0
        ones = (tl.arange(0, 16)[None, :] < 2).to(tl.float16) + tl.zeros([BR, 16], tl.float16)
    best = tl.full([BR, BC], float("-inf") if IS_MAX else float("inf"), tl.float32)
    idx = tl.zeros([BR, BC], tl.int32)
    base = doc.to(tl.int64) * n_cols
    for c0 in range(0, n_cols, BC):
        c = c0 + tl.arange(0, BC)
        b = tl.load(b_ptr + (base + c)[:, None] * K + k[None, :])
        if MODE == 0:
            best = tl.maximum(best, tl.dot(a, tl.trans(b)))
        elif MODE == 3:
            aug = tl.load(aug_ptr + (base + c)[:, None] * 16 + tl.arange(0, 16)[None, :])
            s = tl.dot(a, tl.trans(b), acc=tl.dot(ones, tl.trans(aug)))
            best = tl.minimum(best, s)
        elif MODE == 4:  # the cosine's key, a running max
            s = tl.dot(a, tl.trans(b)) * (1.0 / tl.maximum(tl.sqrt(tl.load(bsq_ptr + base + c)), 1e-12))[None, :]
            best = tl.maximum(best, s)
        elif MODE == 5:  # the cosine's key, a NaN-keeping running max
            s = tl.dot(a, tl.trans(b)) * (1.0 / tl.maximum(tl.sqrt(tl.load(bsq_ptr + base + c)), 1e-12))[None, :]
            best = tl.maximum(best, s, propagate_nan=tl.PropagateNan.ALL)
        elif MODE == 6:  # MaxSim, a NaN-keeping running max
            best = tl.maximum(best, tl.dot(a, tl.trans(b)), propagate_nan=tl.PropagateNan.ALL)
        elif MODE == 7:  # the L2 key, a NaN-keeping running min
            s = tl.load(bsq_ptr + base + c)[None, :] - 2.0 * tl.dot(a, tl.trans(b))
            best = tl.minimum(best, s, propagate_nan=tl.PropagateNan.ALL)
        else:
            s = tl.load(bsq_ptr + base + c)[None, :] - 2.0 * tl.dot(a, tl.trans(b))
            if MODE == 2:
                idx = tl.where(s < best, c[None, :], idx)
            best = tl.minimum(best, s)
    if IS_MAX:
        row = tl.max(best, axis=1)
    else:
        row = tl.min(best, axis=1)
        if MODE == 2:
            row += tl.min(tl.where(best == row[:, None], idx, n_cols), axis=1).to(tl.float32) * 0.0
    tl.store(out_ptr + doc.to(tl.int64) * n_rows + r, row)


def main():
    torch.manual_seed(0)
    for nd, lq, ld in ((512, 1024, 1024), (1000, 128, 320)):
        q = torch.nn.functional.normalize(torch.randn(lq, 128, device="cuda"), dim=-1).half()
        d = torch.nn.functional.normalize(torch.randn(nd * ld, 128, device="cuda"), dim=-1).half()
        bsq = (d.float() ** 2).sum(-1)
        hi = bsq.half()
        lo = (bsq - hi.float()).half()
        aug = torch.zeros(nd * ld, 16, device="cuda", dtype=torch.float16)
        aug[:, 0], aug[:, 1] = hi, lo
        ref = (bsq.double()[None, :] - 2 * q.double() @ d.double().T).view(lq, nd, ld).amin(-1).T
        out = torch.empty(nd, lq, device="cuda")
        for mode, name in enumerate(("dot", "vec", "vec_idx", "aug", "cos", "cos_nan", "dot_nan", "vec_nan")):
            bc = 64 if ld % 64 == 0 else 4
            grid = (lq // 128, nd)
            run = lambda: probe[grid](q, d, bsq, aug, out, lq, ld, MODE=mode, IS_MAX=mode in (0, 4, 5, 6), BR=128, BC=64 if ld >= 64 else 16,
                                      K=128, num_warps=8, num_stages=3)
            if ld % 64:
                print(f"{nd}x{lq}x{ld} skip (ld not a multiple of 64)")
                break
            run()
            ms = triton.testing.do_bench(run)
            err = (out.double() - ref).abs().max().item() if mode in (1, 2, 3, 7) else float("nan")
            print(f"{nd} docs {lq}x{ld} {name:8s} {ms:.4f} ms  max |err| {err:.2e}", flush=True)


if __name__ == "__main__":
    main()
