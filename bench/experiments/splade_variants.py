"""Which loop structure brings the Splade forward near its GEMM floor: an
experiment with hand-written variants of the generated kernel's forward, timed
beside the generated one (hsr.ops.splade_max) in one process.

The variants (constexpr flags of one kernel, `splade_variant`):
  FLAT      1: one loop over (token tile, chunk of H) pairs, the max epilogue in
            an `if` on the last chunk, so the software pipeliner keeps loads in
            flight across token tiles; 0: a token-tile loop around a chunk loop
            (the generated kernel's structure); 2: that nest, flattened by the
            compiler (tl.range(..., flatten=True)).
  WS        warp_specialize=True on the chunk loop (a producer warp group).
  SLOT      1: a running max per tile slot, reduced once at the end (as the
            generated kernel); 0: each tile reduced to a row max at once.
  MASK_END  1: the mask row is scanned first and the loop covers only the tiles
            between its first and last true position; 0: every tile.
  NEED_IDX  the argmax the backward needs.
NaN handling is left out here (the generated kernel's second pass is rare work).

    python3 bench/experiments/splade_variants.py [--out DIR] [--quick]

Writes splade_variants.json and prints a table (ms, and the fraction of the
compute floor measured in the same run)."""

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


@triton.jit
def splade_variant(W, Hs, bias, mask, out, idx,
                   V, L, HD,
                   s_wv, s_wh, s_hb, s_hs, s_hh, s_mb, s_ms,
                   BLOCK_V: tl.constexpr, BLOCK_S: tl.constexpr, BLOCK_K: tl.constexpr,
                   FLAT: tl.constexpr, SLOT: tl.constexpr, MASK_END: tl.constexpr, NEED_IDX: tl.constexpr,
                   SCAN: tl.constexpr, WS: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    offs_v = tl.program_id(1) * BLOCK_V + tl.arange(0, BLOCK_V)
    v_in = offs_v < V
    a_row = W + offs_v.to(tl.int64) * s_wv
    h_rows = Hs + b * s_hb
    m_row = mask + b * s_mb
    s_begin = 0
    s_end = L
    if MASK_END:
        offs = tl.arange(0, SCAN)
        first = tl.min(tl.full([SCAN], 2147483647, tl.int32), axis=0)
        last = tl.max(tl.full([SCAN], -1, tl.int32), axis=0)
        for s0 in range(0, L, SCAN):
            m = tl.load(m_row + (s0 + offs) * s_ms, mask=s0 + offs < L, other=0) != 0
            first = tl.minimum(first, tl.min(tl.where(m, s0 + offs, 2147483647), axis=0))
            last = tl.maximum(last, tl.max(tl.where(m, s0 + offs, -1), axis=0))
        s_begin = (tl.minimum(first, last + 1) // BLOCK_S) * BLOCK_S
        s_end = last + 1
    n_k = tl.cdiv(HD, BLOCK_K)
    n_s = tl.cdiv(s_end - s_begin, BLOCK_S)
    if SLOT:
        best2 = tl.full([BLOCK_V, BLOCK_S], float("-inf"), tl.float32)
        idx2 = tl.full([BLOCK_V, BLOCK_S], -1, tl.int32)
    else:
        best = tl.full([BLOCK_V], float("-inf"), tl.float32)
        bidx = tl.full([BLOCK_V], -1, tl.int32)
    acc = tl.zeros([BLOCK_V, BLOCK_S], tl.float32)
    if FLAT == 1:
        for it in range(0, n_s * n_k):
            ki = it % n_k
            s0 = s_begin + (it // n_k) * BLOCK_S
            offs_k = ki * BLOCK_K + tl.arange(0, BLOCK_K)
            offs_s = s0 + tl.arange(0, BLOCK_S)
            k_in = offs_k < HD
            a = tl.load(a_row[:, None] + offs_k[None, :] * s_wh, mask=v_in[:, None] & k_in[None, :], other=0.0)
            h = tl.load(h_rows + offs_s.to(tl.int64)[:, None] * s_hs + offs_k[None, :] * s_hh,
                        mask=(offs_s < L)[:, None] & k_in[None, :], other=0.0)
            acc = tl.dot(a, tl.trans(h), acc)
            if ki == n_k - 1:
                ok = tl.load(m_row + offs_s * s_ms, mask=offs_s < L, other=0) != 0
                key = tl.where(ok[None, :], acc, float("-inf"))
                if SLOT:
                    if NEED_IDX:
                        idx2 = tl.where(key > best2, offs_s[None, :], idx2)
                    best2 = tl.maximum(best2, key)
                else:
                    tb = tl.max(key, axis=1)
                    if NEED_IDX:
                        ti = tl.min(tl.where(key == tb[:, None], offs_s[None, :], 2147483647), axis=1)
                        bidx = tl.where(tb > best, ti, bidx)
                    best = tl.maximum(best, tb)
                acc = tl.zeros([BLOCK_V, BLOCK_S], tl.float32)
    else:
        for si in tl.range(0, n_s, flatten=FLAT == 2):
            s0 = s_begin + si * BLOCK_S
            offs_s = s0 + tl.arange(0, BLOCK_S)
            acc = tl.zeros([BLOCK_V, BLOCK_S], tl.float32)
            for k0 in tl.range(0, HD, BLOCK_K, warp_specialize=WS):
                offs_k = k0 + tl.arange(0, BLOCK_K)
                k_in = offs_k < HD
                a = tl.load(a_row[:, None] + offs_k[None, :] * s_wh, mask=v_in[:, None] & k_in[None, :], other=0.0)
                h = tl.load(h_rows + offs_s.to(tl.int64)[:, None] * s_hs + offs_k[None, :] * s_hh,
                            mask=(offs_s < L)[:, None] & k_in[None, :], other=0.0)
                acc = tl.dot(a, tl.trans(h), acc)
            ok = tl.load(m_row + offs_s * s_ms, mask=offs_s < L, other=0) != 0
            key = tl.where(ok[None, :], acc, float("-inf"))
            if SLOT:
                if NEED_IDX:
                    idx2 = tl.where(key > best2, offs_s[None, :], idx2)
                best2 = tl.maximum(best2, key)
            else:
                tb = tl.max(key, axis=1)
                if NEED_IDX:
                    ti = tl.min(tl.where(key == tb[:, None], offs_s[None, :], 2147483647), axis=1)
                    bidx = tl.where(tb > best, ti, bidx)
                best = tl.maximum(best, tb)
    if SLOT:
        best = tl.max(best2, axis=1)
        if NEED_IDX:
            bidx = tl.min(tl.where((best2 == best[:, None]) & (idx2 >= 0), idx2, 2147483647), axis=1)
    bv = tl.load(bias + offs_v, mask=v_in, other=0.0).to(tl.float32)
    picked = best > float("-inf")
    val = tl.where(picked, tl.log(1.0 + tl.maximum(best + bv, 0.0)), 0.0)
    tl.store(out + b * V + offs_v, val, mask=v_in)
    if NEED_IDX:
        tl.store(idx + b * V + offs_v, tl.where(picked, bidx, -1), mask=v_in)


SHAPE = (32, 256, 768, 30522)  # B, L, H, V: BERT's vocabulary


def make_inputs(dev, empty=()):
    """(hidden, weight, bias, mask) at SHAPE in bf16, fixed seed; lengths uniform
    in [L/2, L], and 0 for the sequences in `empty`."""
    B, L, HD, V = SHAPE
    g = torch.Generator(device=dev).manual_seed(0)
    hidden = torch.randn(B, L, HD, device=dev, generator=g).to(torch.bfloat16)
    weight = (torch.randn(V, HD, device=dev, generator=g) * 0.05).to(torch.bfloat16)
    bias = (torch.randn(V, device=dev, generator=g) * 0.1).to(torch.bfloat16)
    lengths = torch.randint(L // 2, L + 1, (B,), device=dev, generator=g)
    for b in empty:
        lengths[b] = 0
    return hidden, weight, bias, torch.arange(L, device=dev)[None, :] < lengths[:, None]


def matmul_ceiling(bench, dev) -> float:
    """TFLOP/s of an 8192^3 bf16 product, timed with `bench`."""
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    return 2 * 8192 ** 3 / bench(lambda: a @ a) / 1e9


def run_variant(hidden, weight, bias, mask, cfg, flat, slot, mask_end, need_idx, ws=False):
    B, L, HD = hidden.shape
    V = weight.shape[0]
    bv, bs, bk, warps, stages = cfg
    out = torch.empty((B, V), device=hidden.device, dtype=torch.float32)
    idx = torch.empty((B, V), device=hidden.device, dtype=torch.int32)
    m8 = mask.view(torch.uint8)
    grid = (B, triton.cdiv(V, bv))
    splade_variant[grid](weight, hidden, bias, m8, out, idx, V, L, HD,
                         *weight.stride(), *hidden.stride(), *m8.stride(),
                         BLOCK_V=bv, BLOCK_S=bs, BLOCK_K=bk, FLAT=flat, SLOT=slot, MASK_END=mask_end,
                         NEED_IDX=need_idx, SCAN=256, WS=ws, num_warps=warps, num_stages=stages)
    return out, idx


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--budget-s", type=float, default=420)
    ap.add_argument("--round", type=int, default=1, help="1: the first sweep; 2: flatten, warp specialisation, wider tiles")
    ap.add_argument("--once", default=None, metavar="BV,BS,BK,WARPS,STAGES",
                    help="launch that one variant (FLAT=0, SLOT=0, no index) once and exit: for a profiler (ncu)")
    args = ap.parse_args()
    t0 = time.monotonic()
    B, L, HD, V = SHAPE
    dev = "cuda"
    hidden, weight, bias, mask = make_inputs(dev)
    real = int(mask.sum())
    if args.once:
        run_variant(hidden, weight, bias, mask, tuple(int(x) for x in args.once.split(",")), 0, 0, 0, 0)
        torch.cuda.synchronize()
        return

    def bench(fn):
        fn()
        torch.cuda.synchronize()
        return triton.testing.do_bench(fn, warmup=25, rep=150 if not args.quick else 40, return_mode="median")

    peak = matmul_ceiling(bench, dev)
    floor_full = 2 * B * L * HD * V / peak / 1e9
    floor_real = 2 * real * HD * V / peak / 1e9
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    print(f"matmul ceiling {peak:.0f} TFLOP/s; floors: all tokens {floor_full:.3f} ms, real tokens ({real / (B * L):.0%}) "
          f"{floor_real:.3f} ms", flush=True)

    # the reference: hsr's generated kernel, its value and index
    import hsr.ops
    import hsr.generated.splade as gen
    rows = []
    ref = hsr.ops.splade_max(hidden, weight, bias, mask)
    rows.append({"variant": "hsr generated, no idx", "ms": bench(lambda: hsr.ops.splade_max(hidden, weight, bias, mask))})
    hr = hidden.detach().requires_grad_()
    rows.append({"variant": "hsr generated, with idx (fwd of a grad call)",
                 "ms": bench(lambda: hsr.ops.splade_max(hr, weight, bias, mask))})
    print(f"hsr chose: {hsr.autotune.chosen(gen.rep_fwd)}", flush=True)
    wpad = torch.zeros(30528, HD, device=dev, dtype=torch.bfloat16)
    wpad[:V] = weight
    rows.append({"variant": "cuBLAS GEMM, V padded to 30528 (writes [8192, 30528] bf16)",
                 "ms": bench(lambda: hidden.view(-1, HD) @ wpad.T)})
    del wpad
    for r in rows:
        print(f"{r['variant']:<60} {r['ms']:.3f} ms", flush=True)

    # the index the generated kernel saves, for the index check
    ref_idx = gen.forward_with_indices(hidden, weight, bias=bias, mask=mask)[1]

    configs = [(128, 128, 64, 8, 3), (128, 64, 64, 4, 4), (128, 64, 64, 8, 4), (256, 64, 64, 8, 3),
               (128, 128, 64, 8, 4), (64, 128, 64, 4, 4), (128, 32, 64, 4, 5), (256, 128, 64, 8, 3),
               (128, 128, 128, 8, 3), (128, 64, 128, 4, 3)]
    plans = [(cfg, f, s, 0, 0) for cfg in configs for f in (0, 1) for s in (0, 1)]

    def key(r):
        return r["ms"]

    def run_plans(plans):
        for cfg, f, s, me, ni in plans:
            if time.monotonic() - t0 > args.budget_s:
                print("budget reached", flush=True)
                return
            name = f"cfg={cfg} FLAT={f} SLOT={s} MASK_END={me} NEED_IDX={ni}"
            try:
                o, i = run_variant(hidden, weight, bias, mask, cfg, f, s, me, ni)
                err = ((o - ref).abs().max() / ref.abs().max()).item()
                ms = bench(lambda: run_variant(hidden, weight, bias, mask, cfg, f, s, me, ni))
                r = {"variant": name, "cfg": cfg, "FLAT": f, "SLOT": s, "MASK_END": me, "NEED_IDX": ni,
                     "ms": ms, "rel_err": err, "of_floor": floor_full / ms}
                if ni and ref_idx is not None:
                    r["idx_mismatch"] = int((i.view(-1) != ref_idx.view(-1)[: i.numel()]).sum())
            except Exception as e:  # noqa: BLE001
                r = {"variant": name, "error": f"{type(e).__name__}: {str(e)[:300]}"}
                torch.cuda.synchronize()
            rows.append(r)
            print(f"{name:<72} " + (f"{r['ms']:.3f} ms  {r['of_floor']:.0%} of floor  err {r['rel_err']:.1e}"
                                    if "ms" in r else r["error"]), flush=True)

    if args.round == 2:
        plans = [(cfg, f, 0, 0, 0) for cfg in ((256, 128, 64, 8, 3), (128, 256, 64, 8, 3), (256, 128, 64, 8, 4),
                                              (128, 256, 64, 8, 4), (256, 256, 64, 16, 3), (256, 128, 128, 8, 2))
                 for f in (0, 2)]
        for cfg in ((256, 128, 64, 8, 3), (128, 128, 64, 8, 3)):
            for ni in (0, 1):
                name = f"cfg={cfg} FLAT=0 SLOT=0 WS=1 NEED_IDX={ni}"
                try:
                    o, _ = run_variant(hidden, weight, bias, mask, cfg, 0, 0, 0, ni, True)
                    ms = bench(lambda: run_variant(hidden, weight, bias, mask, cfg, 0, 0, 0, ni, True))
                    r = {"variant": name, "ms": ms, "rel_err": ((o - ref).abs().max() / ref.abs().max()).item()}
                    print(f"{name:<72} {ms:.3f} ms", flush=True)
                except Exception as e:  # noqa: BLE001
                    r = {"variant": name, "error": f"{type(e).__name__}: {str(e)[:300]}"}
                    print(f"{name:<72} {r['error']}", flush=True)
                rows.append(r)
    run_plans(plans)
    done = sorted([r for r in rows if "cfg" in r and "ms" in r], key=key)
    top = []
    for r in done:
        if (r["cfg"], r["FLAT"], r["SLOT"]) not in top:
            top.append((r["cfg"], r["FLAT"], r["SLOT"]))
        if len(top) == 3:
            break
    run_plans([(cfg, f, s, me, ni) for cfg, f, s in top for me, ni in ((1, 0), (0, 1), (1, 1))])

    meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
            "python": platform.python_version(), "shape": {"B": B, "L": L, "H": HD, "V": V, "dtype": "bf16"},
            "real_tokens": real, "matmul_tflops": peak, "floor_all_tokens_ms": floor_full,
            "floor_real_tokens_ms": floor_real}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "splade_variants.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    print("\nfastest:")
    for r in sorted([r for r in rows if "ms" in r], key=key)[:12]:
        print(f"  {r['variant']:<72} {r['ms']:.3f} ms")


if __name__ == "__main__":
    main()
