#!/usr/bin/env python3
"""Probe: is the lean L2 loop latency-bound, and does it pay to overlap a tile's MMA with the last
tile's selection? (bench/NOTES.md, session 39: every loop waits on its wgmma right after issuing it;
the L2 key with its index is 2x MaxSim's time, issue 41 asks 1.25x.) One program per (document, 64
query rows), LEAN_L2_BLOCKS (64 x 64, 4 warps, 3 stages), pointer loads, fp16, d = 128:
  dot        running max of <a, b>                                   (MaxSim's loop)
  dot_ahead  the same, tile j + 1's dot issued before tile j's max
  idx        running min of bsq - 2<a, b> and its index, a slot each (the lean L2 loop today)
  idx_ahead  the same, tile j + 1's dot issued before tile j's selection
  packed     the key's low 8 bits replaced by the tile's number, one integer min a pair: the index
             comes back from the slot and those bits (ranking to 2^-15 of the key)
Each mode's row results (value and index) are checked against torch; prints do_bench medians (ms)
on a GPU, or runs a small case through the interpreter (TRITON_INTERPRET=1) as a check.

    python3 bench/experiments/l2_lookahead_probe.py
"""
import os

import torch
import triton
import triton.language as tl

MODES = ("dot", "dot_ahead", "idx", "idx_ahead", "packed")


@triton.jit
def _select(best, idx, s, c0, MODE: tl.constexpr):
    """One tile's scores s into the running slots (best, idx)."""
    if MODE <= 1:
        best = tl.maximum(best, s)
    elif MODE <= 3:
        idx = tl.where(s < best, c0, idx)  # a slot keeps its tile's start; the column is added after
        best = tl.minimum(best, s)
    else:  # the float's bits as an ordered integer, its low 8 bits the tile's number
        bits = s.to(tl.int32, bitcast=True)
        key = bits ^ ((bits >> 31) & 0x7FFFFFFF)
        idx = tl.minimum(idx, (key & ~255) | (c0 // s.shape[1]))
    return best, idx


@triton.jit
def probe(a_ptr, b_ptr, bsq_ptr, val_ptr, idx_ptr, n_rows, n_cols, MODE: tl.constexpr,
          BR: tl.constexpr, BC: tl.constexpr, K: tl.constexpr):
    chunk = tl.program_id(0)
    doc = tl.program_id(1)
    r = chunk * BR + tl.arange(0, BR)
    k = tl.arange(0, K)
    cols = tl.arange(0, BC)
    a = tl.load(a_ptr + r[:, None] * K + k[None, :])
    best = tl.full([BR, BC], float("-inf") if MODE <= 1 else float("inf"), tl.float32)
    idx = tl.zeros([BR, BC], tl.int32) + (0x7FFFFFFF if MODE == 4 else 0)
    base = doc.to(tl.int64) * n_cols
    if MODE == 1 or MODE == 3:  # tile j + 1's dot issued before tile j's selection
        b = tl.load(b_ptr + (base + cols)[:, None] * K + k[None, :])
        s_next = tl.dot(a, tl.trans(b))
        for c0 in range(BC, n_cols + BC, BC):
            s = s_next
            if MODE == 3:
                s = tl.load(bsq_ptr + base + c0 - BC + cols)[None, :] - 2.0 * s
            c = c0 + cols
            b = tl.load(b_ptr + (base + c)[:, None] * K + k[None, :], mask=(c < n_cols)[:, None], other=0.0)
            s_next = tl.dot(a, tl.trans(b))
            best, idx = _select(best, idx, s, c0 - BC, MODE)
    else:
        for c0 in range(0, n_cols, BC):
            c = c0 + cols
            b = tl.load(b_ptr + (base + c)[:, None] * K + k[None, :])
            s = tl.dot(a, tl.trans(b))
            if MODE >= 2:
                s = tl.load(bsq_ptr + base + c)[None, :] - 2.0 * s
            best, idx = _select(best, idx, s, c0, MODE)
    if MODE <= 1:
        row = tl.max(best, axis=1)
        at = tl.zeros([BR], tl.int32)
    elif MODE <= 3:
        row = tl.min(best, axis=1)
        at = tl.min(tl.where(best == row[:, None], idx + cols[None, :], n_cols), axis=1)
    else:
        low = tl.min(idx, axis=1)
        slot = tl.min(tl.where(idx == low[:, None], cols[None, :], BC), axis=1)
        at = (low & 255) * BC + slot
        bits = low & ~255
        row = (bits ^ ((bits >> 31) & 0x7FFFFFFF)).to(tl.float32, bitcast=True)  # the key, to 2^-15
    tl.store(val_ptr + doc.to(tl.int64) * n_rows + r, row)
    tl.store(idx_ptr + doc.to(tl.int64) * n_rows + r, at)


def main():
    interpreting = os.environ.get("TRITON_INTERPRET") == "1"
    device = "cpu" if interpreting else "cuda"
    torch.manual_seed(0)
    shapes = ((2, 64, 256),) if interpreting else ((512, 1024, 1024), (1000, 128, 320), (1000, 64, 2048))
    for nd, lq, ld in shapes:
        q = torch.nn.functional.normalize(torch.randn(lq, 128, device=device), dim=-1).half()
        d = torch.nn.functional.normalize(torch.randn(nd * ld, 128, device=device), dim=-1).half()
        bsq = (d.float() ** 2).sum(-1)
        keys = (bsq.double()[None, :] - 2 * q.double() @ d.double().T).view(lq, nd, ld)
        want_min, want_at = keys.min(-1)
        want_max = (q.double() @ d.double().T).view(lq, nd, ld).amax(-1)
        val = torch.empty(nd, lq, device=device)
        at = torch.empty(nd, lq, device=device, dtype=torch.int32)
        for mode, name in enumerate(MODES):
            def run():
                probe[(lq // 64, nd)](q, d, bsq, val, at, lq, ld, MODE=mode, BR=64, BC=64, K=128,
                                      num_warps=4, num_stages=3)
            run()
            if mode <= 1:
                err, wrong = (val.double() - want_max.T).abs().max().item(), 0
            else:
                err = (val.double() - want_min.T).abs().max().item()
                # the index: its key within the key's rounding (to 2^-15 relative for the packed key)
                got = keys.permute(1, 0, 2).gather(2, at.long().unsqueeze(-1)).squeeze(-1)
                wrong = int(((got - want_min.T).abs() > 1e-3).sum())
            ms = float("nan") if interpreting else triton.testing.do_bench(run)
            print(f"{nd} docs {lq}x{ld} {name:10s} {ms:.4f} ms  max |value err| {err:.2e}  far indices {wrong}",
                  flush=True)


if __name__ == "__main__":
    main()
