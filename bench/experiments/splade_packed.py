"""Whether the Splade forward gains from streaming only the real tokens: an
experiment with a hand-written kernel, timed beside the generated one
(hsr.ops.splade_max) in one process (GPU only).

The generated forward runs one program per (sequence, block of V) over all L
token positions, masked ones included: 28% of the GEMM's work at the
benchmark's lengths (uniform in [L/2, L]). Here the unmasked tokens are packed
into one list (their flat row numbers, in order), and one program per (group of
GROUP_B sequences, block of V) streams its group's list in tiles of BLOCK_S
rows. A tile can hold the end of one sequence and the start of the next, so
each tile is reduced once per sequence it holds (a masked max), and the
running max moves on to the next sequence where the tile crosses it. Sequences
with no real token score 0. Ties: the lowest token. NaN is left out here.

    python3 bench/experiments/splade_packed.py [--out DIR] [--quick]

Writes splade_packed.json and prints ms against the generated kernel, the
compute floors (all tokens, real tokens) measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import torch
import triton
import triton.language as tl
import triton.testing

from splade_variants import SHAPE, make_inputs, matmul_ceiling


@triton.jit
def _store_head(out, idx, b, offs_v, v_in, V, best, bidx, bv, NEED_IDX: tl.constexpr):
    """log1p(relu(best + bias)) of one sequence (0 where nothing was selected)."""
    picked = best > float("-inf")
    tl.store(out + b * V + offs_v, tl.where(picked, tl.log(1.0 + tl.maximum(best + bv, 0.0)), 0.0), mask=v_in)
    if NEED_IDX:
        tl.store(idx + b * V + offs_v, tl.where(picked, bidx, -1), mask=v_in)


@triton.jit
def splade_packed(W, Hs, bias, rows_ptr, cu_ptr, out, idx,
                  V, HD, B, L, GROUP_B,
                  s_wv, s_wh, s_hr, s_hh,
                  BLOCK_V: tl.constexpr, BLOCK_S: tl.constexpr, BLOCK_K: tl.constexpr, NEED_IDX: tl.constexpr):
    g = tl.program_id(0)
    offs_v = tl.program_id(1) * BLOCK_V + tl.arange(0, BLOCK_V)
    v_in = offs_v < V
    a_row = W + offs_v.to(tl.int64) * s_wv
    bv = tl.load(bias + offs_v, mask=v_in, other=0.0).to(tl.float32)
    b_lo = g * GROUP_B
    b_hi = tl.minimum(b_lo + GROUP_B, B)
    t_lo = tl.load(cu_ptr + b_lo)
    t_hi = tl.load(cu_ptr + b_hi)
    cur_b = b_lo
    best = tl.full([BLOCK_V], float("-inf"), tl.float32)
    bidx = tl.full([BLOCK_V], -1, tl.int32)
    for t0 in range(t_lo, t_hi, BLOCK_S):
        offs_t = t0 + tl.arange(0, BLOCK_S)
        t_in = offs_t < t_hi
        r = tl.load(rows_ptr + offs_t, mask=t_in, other=0)
        acc = tl.zeros([BLOCK_V, BLOCK_S], tl.float32)
        for k0 in tl.range(0, HD, BLOCK_K):
            offs_k = k0 + tl.arange(0, BLOCK_K)
            k_in = offs_k < HD
            a = tl.load(a_row[:, None] + offs_k[None, :] * s_wh, mask=v_in[:, None] & k_in[None, :], other=0.0)
            h = tl.load(Hs + r.to(tl.int64)[:, None] * s_hr + offs_k[None, :] * s_hh,
                        mask=t_in[:, None] & k_in[None, :], other=0.0)
            acc = tl.dot(a, tl.trans(h), acc)
        sb = tl.where(t_in, r // L, B)
        s_pos = r % L
        b_first = tl.min(sb, axis=0)
        b_last = tl.max(tl.where(t_in, sb, -1), axis=0)
        for b in range(b_first, b_last + 1):
            key = tl.where((sb == b)[None, :], acc, float("-inf"))
            m = tl.max(key, axis=1)
            if NEED_IDX:
                mi = tl.min(tl.where(key == m[:, None], s_pos[None, :], 2147483647), axis=1)
            if b != cur_b:
                _store_head(out, idx, cur_b, offs_v, v_in, V, best, bidx, bv, NEED_IDX)
                for e in range(cur_b + 1, b):  # sequences with no real token
                    _store_head(out, idx, e, offs_v, v_in, V, tl.full([BLOCK_V], float("-inf"), tl.float32),
                                bidx, bv, NEED_IDX)
                best = m
                if NEED_IDX:
                    bidx = mi
                cur_b = b
            else:
                if NEED_IDX:
                    bidx = tl.where(m > best, mi, bidx)
                best = tl.maximum(best, m)
    _store_head(out, idx, cur_b, offs_v, v_in, V, best, bidx, bv, NEED_IDX)
    for e in range(cur_b + 1, b_hi):
        _store_head(out, idx, e, offs_v, v_in, V, tl.full([BLOCK_V], float("-inf"), tl.float32), bidx, bv, NEED_IDX)


def pack(mask):
    """(flat row numbers of the real tokens, in order; each sequence's first place in that list)."""
    rows = mask.reshape(-1).nonzero().squeeze(1).to(torch.int32)
    cu = torch.zeros(mask.shape[0] + 1, dtype=torch.int32, device=mask.device)
    cu[1:] = mask.sum(1).cumsum(0)
    return rows, cu


def run_packed(hidden, weight, bias, mask, cfg, need_idx, packed=None):
    B, L, HD = hidden.shape
    V = weight.shape[0]
    bv, bs, bk, warps, stages, group_b = cfg
    rows, cu = packed if packed is not None else pack(mask)
    out = torch.empty((B, V), device=hidden.device, dtype=torch.float32)
    idx = torch.empty((B, V), device=hidden.device, dtype=torch.int32)
    h2 = hidden.reshape(B * L, HD)
    grid = (triton.cdiv(B, group_b), triton.cdiv(V, bv))
    splade_packed[grid](weight, h2, bias, rows, cu, out, idx, V, HD, B, L, group_b,
                        *weight.stride(), *h2.stride(),
                        BLOCK_V=bv, BLOCK_S=bs, BLOCK_K=bk, NEED_IDX=need_idx, num_warps=warps, num_stages=stages)
    return out, idx


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--budget-s", type=float, default=240)
    args = ap.parse_args()
    t0 = time.monotonic()
    B, L, HD, V = SHAPE
    dev = "cuda"
    hidden, weight, bias, mask = make_inputs(dev, empty=(3,))  # one sequence with no real token
    real = int(mask.sum())

    def bench(fn):
        fn()
        torch.cuda.synchronize()
        return triton.testing.do_bench(fn, warmup=25, rep=150 if not args.quick else 40, return_mode="median")

    peak = matmul_ceiling(bench, dev)
    floor_full = 2 * B * L * HD * V / peak / 1e9
    floor_real = 2 * real * HD * V / peak / 1e9
    head = (f"device {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}; "
            f"matmul {peak:.0f} TFLOP/s; floors: all tokens {floor_full:.3f} ms, real tokens "
            f"({real / (B * L):.0%}) {floor_real:.3f} ms")
    print(head, flush=True)

    import hsr.generated.splade as gen
    import hsr.ops
    rows = []
    ref = hsr.ops.splade_max(hidden, weight, bias, mask)
    ref_idx = gen.forward_with_indices(hidden, weight, bias=bias, mask=mask)[1]
    rows.append({"variant": "hsr generated, no idx", "ms": bench(lambda: hsr.ops.splade_max(hidden, weight, bias, mask))})
    rows.append({"variant": "hsr generated, with idx",
                 "ms": bench(lambda: gen.forward_with_indices(hidden, weight, bias=bias, mask=mask))})
    packed = pack(mask)
    rows.append({"variant": "packing alone (nonzero, cumsum)", "ms": bench(lambda: pack(mask))})
    for r in rows:
        print(f"{r['variant']:<64} {r['ms']:.3f} ms", flush=True)

    configs = [(128, 256, 64, 8, 3, 8), (128, 256, 64, 8, 3, 4), (128, 256, 64, 8, 3, 16),
               (256, 128, 64, 8, 3, 8), (128, 128, 64, 8, 4, 8), (128, 256, 64, 8, 4, 8),
               (256, 128, 64, 8, 4, 8), (128, 128, 64, 4, 4, 8), (128, 256, 64, 8, 3, 32)]
    if args.quick:
        configs = configs[:3]
    plans = [(cfg, 0) for cfg in configs]
    for cfg, ni in plans + [(cfg, 1) for cfg in configs[:4]]:
        if time.monotonic() - t0 > args.budget_s:
            print("budget reached", flush=True)
            break
        name = f"packed cfg=(V {cfg[0]}, S {cfg[1]}, K {cfg[2]}, {cfg[3]} warps, {cfg[4]} stages, {cfg[5]} seqs) idx={ni}"
        try:
            o, i = run_packed(hidden, weight, bias, mask, cfg, ni, packed)
            err = ((o - ref).abs().max() / ref.abs().max()).item()
            ms = bench(lambda: run_packed(hidden, weight, bias, mask, cfg, ni, packed))
            ms_pack = bench(lambda: run_packed(hidden, weight, bias, mask, cfg, ni))
            r = {"variant": name, "cfg": cfg, "NEED_IDX": ni, "ms": ms, "ms_with_packing": ms_pack, "rel_err": err,
                 "of_floor": floor_full / ms}
            if ni:
                r["idx_mismatch"] = int((i != ref_idx).sum())
        except Exception as e:  # noqa: BLE001
            r = {"variant": name, "error": f"{type(e).__name__}: {str(e)[:300]}"}
            torch.cuda.synchronize()
        rows.append(r)
        print(f"{name:<80} " + (f"{r['ms']:.3f} ms ({r['ms_with_packing']:.3f} with packing)  "
                                f"x floor {r['ms'] / floor_full:.2f}  err {r['rel_err']:.1e}"
                                + (f"  idx mismatches {r['idx_mismatch']}" if ni else "")
                                if "ms" in r else r["error"]), flush=True)
    meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
            "python": platform.python_version(), "shape": {"B": B, "L": L, "H": HD, "V": V, "dtype": "bf16"},
            "real_tokens": real, "matmul_tflops": peak, "floor_all_tokens_ms": floor_full,
            "floor_real_tokens_ms": floor_real}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "splade_packed.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
