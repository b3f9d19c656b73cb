#!/usr/bin/env python3
"""Probe: does an L2 key's column term cost less inside the MMA than beside it? (bench/NOTES.md, session 43:
the lean L2 loop is 2x MaxSim's time one query against 1024 x 1024; per tile it adds an FFMA a pair and the
norms' loads in the accumulator's layout; issue 41 asks 1.25x.) One program per (document, 64 query rows),
64 x 64 tiles, 4 warps, 3 stages, pointer loads, fp16, d = 128. Modes:
  dot      running max of <a, b>                                       (MaxSim's loop)
  idx      running min of |b|^2 - 2<a, b> and its index, a slot each    (the lean L2 loop today)
  dot_idx  running max of <a, b> and its index                          (the floor of the next mode)
  mma      running max of <a, b> - |b|^2 / 2 and its index, the column term a second product of K = 16:
           ones [rows, 16] (three of them) times bf16 pieces of -|b|^2 / 2 (hi, mid, lo: 24 bits) [16, cols]
Each mode's values and indices are checked against float64; prints do_bench medians (ms) on a GPU, or runs a
small case through the interpreter.

    python3 bench/experiments/l2_mma_norm_probe.py            # a GPU
    python3 bench/experiments/l2_mma_norm_probe.py --kmeans   # 2^20 points x 1024 / 4096 centres, f 64 / 128, at
        # hsr's k-means blocks (128 x 64, 4 warps, 2 stages), beside hsr's own assignment (argmin, one process)
    TRITON_INTERPRET=1 python3 bench/experiments/l2_mma_norm_probe.py
"""
import os
import sys

import torch
import triton
import triton.language as tl

MODES = ("dot", "idx", "dot_idx", "mma")


@triton.jit
def probe(a_ptr, b_ptr, bsq_ptr, pieces_ptr, val_ptr, idx_ptr, n_rows, n_cols, MODE: tl.constexpr,
          BR: tl.constexpr, BC: tl.constexpr, K: tl.constexpr, IEEE: tl.constexpr):
    """IEEE: fp32 products (the interpreter multiplies bf16 bit patterns as integers)."""
    chunk = tl.program_id(0)
    doc = tl.program_id(1)
    r = chunk * BR + tl.arange(0, BR)
    k = tl.arange(0, K)
    cols = tl.arange(0, BC)
    e = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * K + k[None, :])
    ones = tl.where(e[None, :] < 3, 1.0, 0.0).to(tl.bfloat16) + tl.zeros([BR, 16], tl.bfloat16)
    best = tl.full([BR, BC], float("inf") if MODE == 1 else float("-inf"), tl.float32)
    idx = tl.zeros([BR, BC], tl.int32)
    base = doc.to(tl.int64) * n_cols
    for c0 in range(0, n_cols, BC):
        c = c0 + cols
        b = tl.load(b_ptr + (base + c)[:, None] * K + k[None, :])
        if MODE == 3:  # the column term inside the product: <a, b> + <ones, pieces>
            p = tl.load(pieces_ptr + (base + c)[:, None] * 4 + e[None, :], mask=(e < 4)[None, :], other=0.0)
            if IEEE:
                s = tl.dot(ones.to(tl.float32), tl.trans(p.to(tl.float32)), tl.dot(a, tl.trans(b)),
                           input_precision="ieee")
            else:
                s = tl.dot(ones, tl.trans(p), tl.dot(a, tl.trans(b)))
        else:
            s = tl.dot(a, tl.trans(b))
        if MODE == 0:
            best = tl.maximum(best, s)
        elif MODE == 1:
            s = tl.load(bsq_ptr + base + c)[None, :] - 2.0 * s
            idx = tl.where(s < best, c0, idx)  # a slot keeps its tile's start; the column is added after
            best = tl.minimum(best, s)
        else:
            idx = tl.where(s > best, c0, idx)
            best = tl.maximum(best, s)
    if MODE == 1:
        row = tl.min(best, axis=1)
        at = tl.min(tl.where(best == row[:, None], idx + cols[None, :], n_cols), axis=1)
    else:
        row = tl.max(best, axis=1)
        at = tl.min(tl.where(best == row[:, None], idx + cols[None, :], n_cols), axis=1)
    tl.store(val_ptr + doc.to(tl.int64) * n_rows + r, row)
    tl.store(idx_ptr + doc.to(tl.int64) * n_rows + r, at)


def pieces(x: torch.Tensor) -> torch.Tensor:
    """[N, 4] bf16: hi, mid, lo (their sum x to about 2^-24 relative), 0."""
    hi = x.bfloat16()
    mid = (x - hi.float()).bfloat16()
    lo = (x - hi.float() - mid.float()).bfloat16()
    return torch.stack([hi, mid, lo, torch.zeros_like(hi)], dim=1).contiguous()


def main():
    interpreting = os.environ.get("TRITON_INTERPRET") == "1"
    device = "cpu" if interpreting else "cuda"
    torch.manual_seed(0)
    kmeans = "--kmeans" in sys.argv
    shapes = ((2, 64, 256, 128),) if interpreting else ((512, 1024, 1024, 128), (1000, 64, 320, 128),
                                                        (1000, 128, 1024, 128), (200, 64, 4096, 128))
    if kmeans:  # (one "document": the centres; the points its rows)
        shapes = ((1, 256, 192, 64),) if interpreting else ((1, 1 << 20, 1024, 64), (1, 1 << 20, 1024, 128),
                                                             (1, 1 << 20, 4096, 128))
    br, bc, warps, stages = (128, 64, 4, 2) if kmeans else (64, 64, 4, 3)
    for nd, lq, ld, f in shapes:
        for offset in (0.0,) if kmeans else (0.0, 3.0):
            q = (torch.nn.functional.normalize(torch.randn(lq, f, device=device), dim=-1) + offset).half()
            d = (torch.nn.functional.normalize(torch.randn(nd * ld, f, device=device), dim=-1) + offset).half()
            if kmeans and not interpreting:
                import hsr
                op = hsr.compile(open("examples/kmeans_assign.hsr").read())
                op(q, d)
                hsr_ms = triton.testing.do_bench(lambda: op(q, d))
                print(f"{lq} points {ld} centres f {f} hsr's assignment {hsr_ms:.4f} ms", flush=True)
            bsq = (d.float() ** 2).sum(-1)
            if not kmeans or interpreting:
                dots = q.double() @ d.double().T
                keys = (-0.5 * bsq.double()[None, :] + dots).view(lq, nd, ld)
                want_key, want_at = keys.max(-1)
                want_max = dots.view(lq, nd, ld).amax(-1)
            val = torch.empty(nd, lq, device=device)
            at = torch.empty(nd, lq, device=device, dtype=torch.int32)
            pc = pieces(-0.5 * bsq)
            for mode, name in enumerate(MODES):
                def run():
                    probe[(lq // br, nd)](q, d, bsq, pc, val, at, lq, ld, MODE=mode, BR=br, BC=bc, K=f,
                                          IEEE=interpreting, num_warps=warps, num_stages=stages)
                run()
                if kmeans and not interpreting:  # (no float64 check at 2^20 points: the ranking against float32's)
                    want_at32 = (-0.5 * bsq[None, :] + q.float() @ d.float().T).argmax(-1) if mode in (1, 3) else at
                    far = int((at.view(-1) != want_at32.view(-1)).sum()) if mode in (1, 3) else 0
                    ms = triton.testing.do_bench(run)
                    print(f"{lq} points {ld} centres f {f} {name:8s} {ms:.4f} ms  other picks than fp32's {far}",
                          flush=True)
                    continue
                got = keys.permute(1, 0, 2).gather(2, at.long().unsqueeze(-1)).squeeze(-1)
                far = int(((got - want_key.T).abs() > 1e-5 * (1 + want_key.T.abs())).sum()) if mode in (1, 3) else 0
                want = want_max.T if mode in (0, 2) else -2 * want_key.T if mode == 1 else want_key.T
                err = (val.double() - want).abs().max().item()
                ms = float("nan") if interpreting else triton.testing.do_bench(run)
                print(f"{nd} docs {lq}x{ld} offset {offset} {name:8s} {ms:.4f} ms  max |value err| {err:.2e}  "
                      f"far indices {far}", flush=True)


if __name__ == "__main__":
    main()
