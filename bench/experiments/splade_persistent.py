"""Whether the Splade forward reaches 1.2x its GEMM floor with a persistent
loop over tiles, TMA loads, or both: an experiment with one hand-written
kernel (constexpr flags), timed beside the generated forward
(hsr.ops.splade_max) and cuBLAS in one process (GPU only).

The generated forward (v12) runs one program per (sequence, block of V): at
the benchmark's shape and its tuned 128 x 256 tiles that is one tile of 12
chunks of H per program, 7,648 programs in 58 waves, and each program fills
its load pipeline from empty and then drains it into the max epilogue. Here:

  PERSIST   0: one program per tile (the generated kernel's grid);
            n: n programs per SM, striding over the tiles.
  FLAT      0: nested loops (tile, token tile, chunk of H);
            1: the compiler's flattening of that nest (tl.range(flatten=True));
            2: one hand-flattened loop over (tile, token tile, chunk), the max
            epilogue and the store in `if`s, so loads of the next tile are in
            flight during the last chunks and the epilogue of this one.
  TMA       1: loads through host-built tensor descriptors (W as [V, H], the
            hidden states as [B * L, H]); 2: descriptors made in the kernel
            (tl.make_tensor_descriptor; the hidden states as [B, L, H]);
            0: pointer loads with masks.
  ORDER     0: V blocks outer, sequences inner (programs in flight share W
            blocks); 1: sequences outer.
  NEED_IDX  the argmax the backward needs.
NaN handling is left out (the generated kernel's second pass is rare work).

    python3 bench/experiments/splade_persistent.py [--out DIR] [--quick]

Writes splade_persistent.json and prints ms, the multiple of the compute floor
measured in the same run, and the error against the generated kernel.
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

try:  # Triton >= 3.4
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError:  # pragma: no cover
    TensorDescriptor = None


@triton.jit
def _tile_of(tile, B, n_v, ORDER: tl.constexpr):
    """(sequence, block of V) of a tile number."""
    if ORDER == 0:
        return tile % B, tile // B
    return tile // n_v, tile % n_v


@triton.jit
def _load_pair(W, Hs, w_desc, h_desc, b, v0, s0, k0, V, L, HD, s_wv, s_wh, s_hr, s_hh,
               BLOCK_V: tl.constexpr, BLOCK_S: tl.constexpr, BLOCK_K: tl.constexpr, TMA: tl.constexpr):
    """One chunk of W rows [BLOCK_V, BLOCK_K] and of one sequence's tokens [BLOCK_S, BLOCK_K]."""
    if TMA == 1:
        a = w_desc.load([v0, k0])
        h = h_desc.load([b * L + s0, k0])
    elif TMA == 2:  # descriptors made in the kernel: H as [B, L, H], rows past L zero-filled
        a = w_desc.load([v0, k0])
        h = h_desc.load([b, s0, k0]).reshape(BLOCK_S, BLOCK_K)
    else:
        offs_v = v0 + tl.arange(0, BLOCK_V)
        offs_s = s0 + tl.arange(0, BLOCK_S)
        offs_k = k0 + tl.arange(0, BLOCK_K)
        k_in = offs_k < HD
        a = tl.load(W + offs_v.to(tl.int64)[:, None] * s_wv + offs_k[None, :] * s_wh,
                    mask=(offs_v < V)[:, None] & k_in[None, :], other=0.0)
        h = tl.load(Hs + (b * L + offs_s).to(tl.int64)[:, None] * s_hr + offs_k[None, :] * s_hh,
                    mask=(offs_s < L)[:, None] & k_in[None, :], other=0.0)
    return a, h


@triton.jit
def _fold_tile(acc, best, bidx, mask, b, s0, L, s_mb, s_ms, BLOCK_S: tl.constexpr, NEED_IDX: tl.constexpr):
    """A finished token tile into the running row max (lowest index on ties)."""
    offs_s = s0 + tl.arange(0, BLOCK_S)
    s_in = offs_s < L
    ok = s_in & (tl.load(mask + b * s_mb + offs_s * s_ms, mask=s_in, other=0) != 0)
    key = tl.where(ok[None, :], acc, float("-inf"))
    tb = tl.max(key, axis=1)
    if NEED_IDX:
        ti = tl.min(tl.where(key == tb[:, None], offs_s[None, :], 2147483647), axis=1)
        bidx = tl.where(tb > best, ti, bidx)
    best = tl.maximum(best, tb)
    return best, bidx


@triton.jit
def _store_row(out, idx, bias, b, v0, V, best, bidx, BLOCK_V: tl.constexpr, NEED_IDX: tl.constexpr):
    offs_v = v0 + tl.arange(0, BLOCK_V)
    v_in = offs_v < V
    bv = tl.load(bias + offs_v, mask=v_in, other=0.0).to(tl.float32)
    picked = best > float("-inf")
    tl.store(out + b * V + offs_v, tl.where(picked, tl.log(1.0 + tl.maximum(best + bv, 0.0)), 0.0), mask=v_in)
    if NEED_IDX:
        tl.store(idx + b * V + offs_v, tl.where(picked, bidx, -1), mask=v_in)


@triton.jit
def splade_tiles(W, Hs, w_desc, h_desc, bias, mask, out, idx,
                 V, B, L, HD, s_wv, s_wh, s_hr, s_hh, s_mb, s_ms, NUM_PROGS,
                 BLOCK_V: tl.constexpr, BLOCK_S: tl.constexpr, BLOCK_K: tl.constexpr,
                 TMA: tl.constexpr, FLAT: tl.constexpr, ORDER: tl.constexpr, NEED_IDX: tl.constexpr):
    pid = tl.program_id(0)
    n_v = tl.cdiv(V, BLOCK_V)
    n_tiles = B * n_v
    if TMA == 2:
        w_desc = tl.make_tensor_descriptor(W, shape=[V, HD], strides=[s_wv, 1], block_shape=[BLOCK_V, BLOCK_K])
        h_desc = tl.make_tensor_descriptor(Hs, shape=[B, L, HD], strides=[L * s_hr, s_hr, 1],
                                           block_shape=[1, BLOCK_S, BLOCK_K])
    if FLAT == 2:
        n_k = tl.cdiv(HD, BLOCK_K)
        n_s = tl.cdiv(L, BLOCK_S)
        total = tl.cdiv(n_tiles - pid, NUM_PROGS) * n_s * n_k
        best = tl.full([BLOCK_V], float("-inf"), tl.float32)
        bidx = tl.full([BLOCK_V], -1, tl.int32)
        acc = tl.zeros([BLOCK_V, BLOCK_S], tl.float32)
        for it in range(0, total):
            ki = it % n_k
            q = it // n_k
            si = q % n_s
            b, vb = _tile_of(pid + (q // n_s) * NUM_PROGS, B, n_v, ORDER)
            a, h = _load_pair(W, Hs, w_desc, h_desc, b, vb * BLOCK_V, si * BLOCK_S, ki * BLOCK_K, V, L, HD,
                              s_wv, s_wh, s_hr, s_hh, BLOCK_V, BLOCK_S, BLOCK_K, TMA)
            acc = tl.dot(a, tl.trans(h), acc)
            if ki == n_k - 1:
                best, bidx = _fold_tile(acc, best, bidx, mask, b, si * BLOCK_S, L, s_mb, s_ms, BLOCK_S, NEED_IDX)
                acc = tl.zeros([BLOCK_V, BLOCK_S], tl.float32)
                if si == n_s - 1:
                    _store_row(out, idx, bias, b, vb * BLOCK_V, V, best, bidx, BLOCK_V, NEED_IDX)
                    best = tl.full([BLOCK_V], float("-inf"), tl.float32)
                    bidx = tl.full([BLOCK_V], -1, tl.int32)
    else:
        for tile in tl.range(pid, n_tiles, NUM_PROGS, flatten=FLAT == 1):
            b, vb = _tile_of(tile, B, n_v, ORDER)
            best = tl.full([BLOCK_V], float("-inf"), tl.float32)
            bidx = tl.full([BLOCK_V], -1, tl.int32)
            for s0 in range(0, L, BLOCK_S):
                acc = tl.zeros([BLOCK_V, BLOCK_S], tl.float32)
                for k0 in range(0, HD, BLOCK_K):
                    a, h = _load_pair(W, Hs, w_desc, h_desc, b, vb * BLOCK_V, s0, k0, V, L, HD,
                                      s_wv, s_wh, s_hr, s_hh, BLOCK_V, BLOCK_S, BLOCK_K, TMA)
                    acc = tl.dot(a, tl.trans(h), acc)
                best, bidx = _fold_tile(acc, best, bidx, mask, b, s0, L, s_mb, s_ms, BLOCK_S, NEED_IDX)
            _store_row(out, idx, bias, b, vb * BLOCK_V, V, best, bidx, BLOCK_V, NEED_IDX)


@triton.jit
def splade_tail(w_desc, h_desc, h_half, bias, mask, out, idx, V, L, HD, s_mb, s_ms,
                BLOCK_V: tl.constexpr, BLOCK_S: tl.constexpr, BLOCK_K: tl.constexpr, SCAN: tl.constexpr,
                NEED_IDX: tl.constexpr):
    """One program per (sequence, block of V), TMA loads: token tiles end at the
    sequence's last unmasked token, and a rest of at most BLOCK_S / 2 tokens runs
    as a half-width tile."""
    b = tl.program_id(0)
    v0 = tl.program_id(1) * BLOCK_V
    offs = tl.arange(0, SCAN)
    last = tl.max(tl.full([SCAN], -1, tl.int32), axis=0)
    for c0 in range(0, L, SCAN):
        m = tl.load(mask + b * s_mb + (c0 + offs) * s_ms, mask=c0 + offs < L, other=0) != 0
        last = tl.maximum(last, tl.max(tl.where(m, c0 + offs, -1), axis=0))
    s_end = last + 1
    n_full = s_end // BLOCK_S + (s_end % BLOCK_S > BLOCK_S // 2).to(tl.int32)
    best = tl.full([BLOCK_V], float("-inf"), tl.float32)
    bidx = tl.full([BLOCK_V], -1, tl.int32)
    for si in range(0, n_full):
        acc = tl.zeros([BLOCK_V, BLOCK_S], tl.float32)
        for k0 in range(0, HD, BLOCK_K):
            a = w_desc.load([v0, k0])
            h = h_desc.load([b * L + si * BLOCK_S, k0])
            acc = tl.dot(a, tl.trans(h), acc)
        best, bidx = _fold_tile(acc, best, bidx, mask, b, si * BLOCK_S, L, s_mb, s_ms, BLOCK_S, NEED_IDX)
    if s_end > n_full * BLOCK_S:  # the rest, at most BLOCK_S / 2 tokens
        acc = tl.zeros([BLOCK_V, BLOCK_S // 2], tl.float32)
        for k0 in range(0, HD, BLOCK_K):
            a = w_desc.load([v0, k0])
            h = h_half.load([b * L + n_full * BLOCK_S, k0])
            acc = tl.dot(a, tl.trans(h), acc)
        best, bidx = _fold_tile(acc, best, bidx, mask, b, n_full * BLOCK_S, L, s_mb, s_ms, BLOCK_S // 2, NEED_IDX)
    _store_row(out, idx, bias, b, v0, V, best, bidx, BLOCK_V, NEED_IDX)


def run_tail(hidden, weight, bias, mask, cfg, need_idx):
    B, L, HD = hidden.shape
    V = weight.shape[0]
    bv, bs, bk, warps, stages = cfg
    out = torch.empty((B, V), device=hidden.device, dtype=torch.float32)
    idx = torch.empty((B, V), device=hidden.device, dtype=torch.int32)
    h2 = hidden.reshape(B * L, HD)
    m8 = mask.view(torch.uint8)
    splade_tail[(B, triton.cdiv(V, bv))](
        TensorDescriptor.from_tensor(weight, [bv, bk]), TensorDescriptor.from_tensor(h2, [bs, bk]),
        TensorDescriptor.from_tensor(h2, [bs // 2, bk]), bias, m8, out, idx, V, L, HD, *m8.stride(),
        BLOCK_V=bv, BLOCK_S=bs, BLOCK_K=bk, SCAN=256, NEED_IDX=need_idx, num_warps=warps, num_stages=stages)
    return out, idx


def run_tiles(hidden, weight, bias, mask, cfg, flags, need_idx, n_sm):
    """cfg: (BLOCK_V, BLOCK_S, BLOCK_K, warps, stages); flags: (PERSIST, FLAT, TMA, ORDER)."""
    B, L, HD = hidden.shape
    V = weight.shape[0]
    bv, bs, bk, warps, stages = cfg
    persist, flat, tma, order = flags
    out = torch.empty((B, V), device=hidden.device, dtype=torch.float32)
    idx = torch.empty((B, V), device=hidden.device, dtype=torch.int32)
    h2 = hidden.reshape(B * L, HD)
    m8 = mask.view(torch.uint8)
    if tma == 1:
        w_desc = TensorDescriptor.from_tensor(weight, [bv, bk])
        h_desc = TensorDescriptor.from_tensor(h2, [bs, bk])
    else:
        w_desc = h_desc = weight  # unused pointers
    n_tiles = B * triton.cdiv(V, bv)
    progs = min(n_sm * persist, n_tiles) if persist else n_tiles
    splade_tiles[(progs,)](weight, h2, w_desc, h_desc, bias, m8, out, idx, V, B, L, HD,
                           *weight.stride(), *h2.stride(), *m8.stride(), progs,
                           BLOCK_V=bv, BLOCK_S=bs, BLOCK_K=bk, TMA=tma, FLAT=flat, ORDER=order,
                           NEED_IDX=need_idx, num_warps=warps, num_stages=stages)
    return out, idx


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--budget-s", type=float, default=300)
    ap.add_argument("--round", type=int, default=1,
                    help="1: the first sweep; 2: descriptors made in the kernel; 3: smaller tiles, two programs an SM; 4: tiles that end at the "
                         "last unmasked token (splade_tail)")
    args = ap.parse_args()
    t0 = time.monotonic()
    B, L, HD, V = SHAPE
    dev = "cuda"
    hidden, weight, bias, mask = make_inputs(dev, empty=(3,))  # one sequence with no real token
    n_sm = torch.cuda.get_device_properties(0).multi_processor_count
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device=dev))

    def bench(fn):
        fn()
        torch.cuda.synchronize()
        return triton.testing.do_bench(fn, warmup=25, rep=150 if not args.quick else 40, return_mode="median")

    peak = matmul_ceiling(bench, dev)
    floor = 2 * B * L * HD * V / peak / 1e9
    head = (f"device {torch.cuda.get_device_name()} ({n_sm} SMs), torch {torch.__version__}, "
            f"triton {triton.__version__}; matmul {peak:.0f} TFLOP/s; floor {floor:.3f} ms, 1.2x = {1.2 * floor:.3f}")
    print(head, flush=True)

    import hsr.generated.splade as gen
    import hsr.ops
    ref = hsr.ops.splade_max(hidden, weight, bias, mask)
    ref_idx = gen.forward_with_indices(hidden, weight, bias=bias, mask=mask)[1]
    rows = [{"variant": "hsr generated, no idx", "ms": bench(lambda: hsr.ops.splade_max(hidden, weight, bias, mask))},
            {"variant": "hsr generated, with idx",
             "ms": bench(lambda: gen.forward_with_indices(hidden, weight, bias=bias, mask=mask))}]
    wpad = torch.zeros(30528, HD, device=dev, dtype=torch.bfloat16)
    wpad[:V] = weight
    rows.append({"variant": "cuBLAS GEMM, V padded to 30528 (writes the logits)", "ms": bench(lambda: hidden.view(-1, HD) @ wpad.T)})
    del wpad
    for r in rows:
        r["x_floor"] = r["ms"] / floor
        print(f"{r['variant']:<70} {r['ms']:.3f} ms  x floor {r['x_floor']:.2f}", flush=True)

    def run_plan(cfg, flags, ni):
        """Time one variant: splade_tiles with flags, or splade_tail where flags is None."""
        blocks = f"cfg=(V {cfg[0]}, S {cfg[1]}, K {cfg[2]}, w{cfg[3]}, st{cfg[4]})"
        if flags is None:
            name = f"tail {blocks} idx={ni}"
            run = lambda: run_tail(hidden, weight, bias, mask, cfg, ni)  # noqa: E731
        else:
            name = f"{blocks} PERSIST={flags[0]} FLAT={flags[1]} TMA={flags[2]} ORDER={flags[3]} idx={ni}"
            run = lambda: run_tiles(hidden, weight, bias, mask, cfg, flags, ni, n_sm)  # noqa: E731
        try:
            o, i = run()
            err = ((o - ref).abs().max() / ref.abs().max()).item()
            ms = bench(run)
            r = {"variant": name, "cfg": cfg, "flags": flags, "NEED_IDX": ni, "ms": ms, "x_floor": ms / floor,
                 "rel_err": err}
            if ni:
                r["idx_mismatch"] = int((i != ref_idx).sum())
            print(f"{name:<100} {ms:.3f} ms  x floor {ms / floor:.2f}  err {err:.1e}"
                  + (f"  idx mismatches {r['idx_mismatch']}" if ni else ""), flush=True)
        except Exception as e:  # noqa: BLE001
            r = {"variant": name, "error": f"{type(e).__name__}: {str(e)[:300]}"}
            print(f"{name:<100} {r['error']}", flush=True)
            torch.cuda.synchronize()
        rows.append(r)
        return r

    if args.round == 4:  # token tiles end at the last unmasked token, a half-width tile for the rest
        for cfg in ((256, 128, 64, 8, 3), (128, 256, 64, 8, 3), (256, 128, 64, 8, 4)):
            for ni in (0, 1):
                run_plan(cfg, None, ni)

    base = (128, 256, 64, 8, 3)
    if args.round == 2:  # descriptors made in the kernel, against host-built ones
        plans = [(base, f) for f in ((0, 0, 1, 0), (0, 0, 2, 0), (1, 0, 1, 0), (1, 0, 2, 0), (0, 0, 0, 0))]
        plans += [((256, 128, 64, 8, 3), f) for f in ((0, 0, 2, 0), (1, 0, 2, 0), (0, 0, 1, 0))]
        plans += [((128, 256, 64, 8, 4), (0, 0, 2, 0))]
    elif args.round == 4:
        plans = [((256, 128, 64, 8, 3), (0, 0, 1, 0))]
    elif args.round == 3:  # two programs an SM (one warp group each), fewer stages, longer chunks
        plans = [(c, f) for c in ((128, 128, 64, 4, 3), (128, 128, 64, 4, 2), (256, 128, 64, 8, 2),
                                  (256, 128, 128, 8, 2), (128, 128, 128, 4, 2), (64, 256, 64, 4, 3))
                 for f in ((0, 0, 1, 0), (2 if c[3] == 4 else 1, 0, 1, 0))]
        plans += [((256, 128, 64, 8, 3), (0, 0, 1, 0))]
    else:
        plans = []
    plans = plans or [(base, f) for f in ((0, 0, 0, 0), (0, 0, 1, 0), (1, 0, 0, 0), (1, 0, 1, 0), (1, 2, 0, 0), (1, 2, 1, 0),
                                 (1, 1, 1, 0), (1, 2, 1, 1))]
    cfgs = [(128, 256, 64, 8, 4), (256, 128, 64, 8, 3), (256, 128, 64, 8, 4), (128, 128, 64, 8, 4),
            (128, 256, 128, 8, 2), (128, 128, 64, 4, 4)]
    if args.round == 1:
        plans += [(c, f) for c in cfgs for f in ((1, 2, 1, 0), (1, 0, 1, 0))]
    if args.quick:
        plans = plans[:6]
    for cfg, flags in plans:
        if time.monotonic() - t0 > args.budget_s:
            print("budget reached", flush=True)
            break
        run_plan(cfg, flags, 0)
    done = sorted([r for r in rows if r.get("flags") and "ms" in r], key=lambda r: r["ms"])
    for r in done[:3]:
        if time.monotonic() - t0 < args.budget_s + 60:
            run_plan(r["cfg"], r["flags"], 1)

    meta = {"device": torch.cuda.get_device_name(), "sms": n_sm, "torch": torch.__version__,
            "triton": triton.__version__, "python": platform.python_version(),
            "shape": {"B": B, "L": L, "H": HD, "V": V, "dtype": "bf16"}, "real_tokens": int(mask.sum()),
            "matmul_tflops": peak, "floor_ms": floor}
    os.makedirs(args.out, exist_ok=True)
    name = "splade_persistent.json" if args.round == 1 else f"splade_persistent_round{args.round}.json"
    with open(os.path.join(args.out, name), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    print("\nfastest:")
    for r in sorted([r for r in rows if "ms" in r], key=lambda r: r["ms"])[:10]:
        print(f"  {r['variant']:<100} {r['ms']:.3f} ms  x floor {r['x_floor']:.2f}")


if __name__ == "__main__":
    main()
