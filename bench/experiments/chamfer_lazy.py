"""Two changes to Chamfer's CUDA-core tile loop, tried on hand-written kernels of
one direction before the template takes them: an experiment (GPU; the
interpreter checks it here at small sizes with --check).

1. Prefetch: the next tile's coordinates and squared norms are loaded while this
   tile's pairs are worked. The generated loop (bench/NOTES.md, v10) issues its
   four loads at the top of each tile and its first FFMA waits on them; with 255
   registers a thread there are 2 warps a scheduler to cover that wait.
2. A lazy index: the training forward keeps, per tile slot, only the running min
   of the current segment of SEG tiles (one FMNMX a pair, as without indices); at
   a segment's end each slot that improved strictly notes the segment. After the
   loop each row rescans, in the slots that reached its best first, that
   segment's SEG tiles (gathered loads, masked to those slots) for the lowest
   index of the least key. The generated loop pays FSETP + SEL + FMNMX a pair for
   its index (7.1 instructions a pair against 4.5 without).

    python3 bench/experiments/chamfer_lazy.py --out DIR [--sizes 100000] [--budget-s 240]
    TRITON_INTERPRET=1 python3 bench/experiments/chamfer_lazy.py --check

Times (triton.testing.do_bench, median ms) one direction, dist[n] = min_m
||x_n - y_m||^2 with its index, for each variant and block config, beside the
generated kernel (hsr.generated.chamfer_point.dist_fwd) at the same blocks.
Every result is compared with the hand kernel's per-pair index at (64, 64, 4):
the largest difference of the distances and the number of indices that differ
(--check adds the error against float64). Writes chamfer_lazy.json and
chamfer_lazy.md.
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

CONFIGS = [(128, 64, 4), (64, 64, 4), (128, 32, 4), (64, 128, 4), (128, 64, 8), (64, 32, 2)]


@triton.jit
def _key(a0, a1, a2, y_ptr, bsq_ptr, offs, ok):
    """|y|^2 - 2 <x, y> as the generated loop forms it (FMAs into the norm)."""
    b0 = tl.load(y_ptr + offs * 3 + 0, mask=ok, other=0.0)
    b1 = tl.load(y_ptr + offs * 3 + 1, mask=ok, other=0.0)
    b2 = tl.load(y_ptr + offs * 3 + 2, mask=ok, other=0.0)
    bq = tl.load(bsq_ptr + offs, mask=ok, other=0.0)
    key = bq + a0 * (-2.0 * b0)
    key += a1 * (-2.0 * b1)
    key += a2 * (-2.0 * b2)
    return key


@triton.jit
def one_way(x_ptr, y_ptr, bsq_ptr, out_ptr, idx_ptr, n, m,
            BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr, PREFETCH: tl.constexpr,
            NEED_IDX: tl.constexpr, SEG: tl.constexpr):
    """min_m |y_m|^2 - 2 <x_n, y_m> (+ |x_n|^2 after) for a block of rows; SEG = 0: the
    index per pair (the generated loop's way), SEG > 0: the lazy index."""
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    n_in = offs_n < n
    a0 = tl.load(x_ptr + offs_n * 3 + 0, mask=n_in, other=0.0)
    a1 = tl.load(x_ptr + offs_n * 3 + 1, mask=n_in, other=0.0)
    a2 = tl.load(x_ptr + offs_n * 3 + 2, mask=n_in, other=0.0)
    a0c, a1c, a2c = a0[:, None], a1[:, None], a2[:, None]
    best2 = tl.full([BLOCK_N, BLOCK_M], float("inf"), tl.float32)
    idx2 = tl.full([BLOCK_N, BLOCK_M], -1, tl.int32)
    m_full = (m // BLOCK_M) * BLOCK_M
    ar = tl.arange(0, BLOCK_M)
    seg_len = SEG * BLOCK_M
    n_seg = tl.cdiv(m_full, seg_len) if SEG > 0 else 1
    if PREFETCH:
        nb0 = tl.load(y_ptr + ar * 3 + 0, mask=ar < m_full, other=0.0)
        nb1 = tl.load(y_ptr + ar * 3 + 1, mask=ar < m_full, other=0.0)
        nb2 = tl.load(y_ptr + ar * 3 + 2, mask=ar < m_full, other=0.0)
        nbq = tl.load(bsq_ptr + ar, mask=ar < m_full, other=0.0)
    for s in range(0, n_seg):
        if SEG > 0:
            s0 = s * seg_len
            s1 = tl.minimum(s0 + seg_len, m_full)
            cur2 = tl.full([BLOCK_N, BLOCK_M], float("inf"), tl.float32)
        else:
            s0 = 0
            s1 = m_full
            cur2 = best2
        for m0 in range(s0, s1, BLOCK_M):
            offs = m0 + ar
            if PREFETCH:
                b0, b1, b2, bq = nb0, nb1, nb2, nbq
                nxt = offs + BLOCK_M
                nok = nxt < m_full
                nb0 = tl.load(y_ptr + nxt * 3 + 0, mask=nok, other=0.0)
                nb1 = tl.load(y_ptr + nxt * 3 + 1, mask=nok, other=0.0)
                nb2 = tl.load(y_ptr + nxt * 3 + 2, mask=nok, other=0.0)
                nbq = tl.load(bsq_ptr + nxt, mask=nok, other=0.0)
            else:
                b0 = tl.load(y_ptr + offs * 3 + 0)
                b1 = tl.load(y_ptr + offs * 3 + 1)
                b2 = tl.load(y_ptr + offs * 3 + 2)
                bq = tl.load(bsq_ptr + offs)
            key = bq[None, :] + a0c * (-2.0 * b0)[None, :]
            key += a1c * (-2.0 * b1)[None, :]
            key += a2c * (-2.0 * b2)[None, :]
            if NEED_IDX and SEG == 0:
                better = key < cur2
                idx2 = tl.where(better, offs[None, :], idx2)
            cur2 = tl.minimum(cur2, key, propagate_nan=tl.PropagateNan.ALL)
        if SEG > 0:
            if NEED_IDX:
                idx2 = tl.where(cur2 < best2, s0, idx2)  # the segment's start, where the slot improved
            best2 = tl.minimum(best2, cur2, propagate_nan=tl.PropagateNan.ALL)
        else:
            best2 = cur2
    # the partial tile, if any: masked, its index per pair
    if m_full < m:
        offs = m_full + ar
        ok = offs < m
        key = _key(a0c, a1c, a2c, y_ptr, bsq_ptr, offs[None, :], ok[None, :])
        key = tl.where(ok[None, :], key, float("inf"))
        if NEED_IDX:
            better = key < best2
            if SEG > 0:
                idx2 = tl.where(better, m_full, idx2)
            else:
                idx2 = tl.where(better, offs[None, :], idx2)
        best2 = tl.minimum(best2, key, propagate_nan=tl.PropagateNan.ALL)
    best = tl.min(best2, axis=1)
    if NEED_IDX:
        hit = best2 == best[:, None]
        first = tl.min(tl.where(hit, idx2, m), axis=1)
        if SEG > 0:
            # rescan, in the slots that reached the best first in the first segment holding it,
            # that segment's SEG tiles: the lowest index of the least key there (no bit-equality
            # with the loop's keys assumed; a tie between points is a tie here too)
            cand = hit & (idx2 == first[:, None]) & (first >= 0)[:, None]
            found = tl.full([BLOCK_N], m, tl.int32)
            low = tl.full([BLOCK_N], float("inf"), tl.float32)
            for t in range(0, SEG):
                offs = first[:, None] + t * BLOCK_M + ar[None, :]
                ok = cand & (offs < m)
                key = tl.where(ok, _key(a0c, a1c, a2c, y_ptr, bsq_ptr, offs, ok), float("inf"))
                kmin = tl.min(key, axis=1)
                kat = tl.min(tl.where(key == kmin[:, None], offs, m), axis=1)
                found = tl.where(kmin < low, kat, found)
                low = tl.minimum(low, kmin)
            first = tl.where(first >= 0, found, -1)
        tl.store(idx_ptr + offs_n, first, mask=n_in)
    tl.store(out_ptr + offs_n, best + (a0 * a0 + a1 * a1 + a2 * a2), mask=n_in)


def run_variant(x, y, bsq, config, prefetch, need_idx, seg):
    n, m = x.shape[0], y.shape[0]
    bn, bm, warps = config
    out = torch.empty(n, device=x.device, dtype=torch.float32)
    idx = torch.empty(n, device=x.device, dtype=torch.int32)
    one_way[(triton.cdiv(n, bn),)](x, y, bsq, out, idx, n, m, BLOCK_N=bn, BLOCK_M=bm, PREFETCH=prefetch,
                                   NEED_IDX=need_idx, SEG=seg, num_warps=warps, num_stages=1)
    return out, (idx if need_idx else None)


def generated_fixed(x, y, config, need_idx):
    """The generated forward (hsr.generated.chamfer_point.dist_fwd) at fixed blocks: (dist, idx)."""
    from hsr import runtime
    from hsr.generated import chamfer_point as mod
    bn, bm, warps = config
    xb, yb = x[None], y[None]
    n, m = x.shape[0], y.shape[0]
    aux = [runtime.squared_norms(xb, 2), runtime.squared_norms(yb, 2)]
    out = torch.empty((1, n), dtype=torch.float32, device=x.device)
    idx = torch.empty((1, n), dtype=torch.int32, device=x.device)
    xsel = torch.empty((1, n), dtype=torch.float32, device=x.device)
    mod.dist_fwd[(1, triton.cdiv(n, bn))](
        xb, yb, *aux, out, out, idx, out, xsel, 1, n, m, 3, *xb.stride(), *yb.stride(),
        *(st for t in aux for st in t.stride()), 0, *out.stride(), 0, 0,
        HAS_ylen=False, BLOCK_N=bn, BLOCK_M=bm, BLOCK_D=4, NEED_IDX=need_idx, PRECISION="ieee",
        DOT_FP32=True, DOT_MODE=2, SMALL_D=3, num_warps=warps, num_stages=1)
    return out[0], (idx[0] if need_idx else None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--sizes", default="100000")
    ap.add_argument("--budget-s", type=float, default=240.0)
    ap.add_argument("--check", action="store_true", help="small sizes through the interpreter, no timing")
    args = ap.parse_args(argv)
    device = "cpu" if args.check else "cuda"
    sizes = [300, 517] if args.check else [int(s) for s in args.sizes.split(",")]
    configs = [(32, 32, 4)] if args.check else CONFIGS
    segs = (2, 16) if args.check else (16, 32)
    t0 = time.monotonic()
    rows = []
    for size in sizes:
        g = torch.Generator(device=device).manual_seed(0)
        x = torch.randn(size, 3, device=device, generator=g)
        y = torch.randn(size + 17, 3, device=device, generator=g)
        if args.check:  # ties: repeated points
            y[40:80] = y[0:40]
        bsq = (y * y).sum(-1)
        ref_v = torch.cdist(x.double(), y.double()).pow(2).min(1).values if args.check else None
        base, base_idx = run_variant(x, y, bsq, configs[min(1, len(configs) - 1)], False, True, 0)
        if not args.check:
            warm = time.monotonic()
            while time.monotonic() - warm < 2.0:  # clocks up before the first timing
                run_variant(x, y, bsq, configs[0], False, False, 0)
            torch.cuda.synchronize()
        for config in configs:
            variants = [("generated", False, False, 0), ("generated", False, True, 0)] if not args.check else []
            variants += [("hand", pf, ni, seg) for pf in (False, True)
                         for ni, seg in ((False, 0), (True, 0)) + tuple((True, k) for k in segs)]
            for kind, prefetch, need_idx, seg in variants:
                if time.monotonic() - t0 > args.budget_s:
                    break
                if kind == "hand" and config == (128, 64, 4) and (prefetch or need_idx):
                    continue  # spills (sm_90 SASS, Triton 3.6): 150-180 ms
                name = f"{kind}-{'pf' if prefetch else 'plain'}-{'idx-seg%d' % seg if need_idx and seg else 'idx' if need_idx else 'noidx'}"
                fn = (lambda: generated_fixed(x, y, config, need_idx)) if kind == "generated" else \
                     (lambda: run_variant(x, y, bsq, config, prefetch, need_idx, seg))
                try:
                    out, idx = fn()
                except Exception as e:  # noqa: BLE001 (a config that does not compile is a row)
                    rows.append(dict(size=size, config=config, variant=name, error=repr(e)[:200]))
                    print(size, config, name, "error", repr(e)[:200])
                    continue
                row = dict(size=size, config=config, variant=name,
                           max_diff=float((out - base).abs().max()),
                           idx_mismatch=int((idx != base_idx).sum()) if idx is not None else None)
                if args.check:
                    row["err"] = (out.double() - ref_v).abs().max().item()
                else:
                    row["ms"] = triton.testing.do_bench(fn, warmup=50, rep=300)
                rows.append(row)
                print(row, flush=True)
    meta = dict(device=torch.cuda.get_device_name(0) if device == "cuda" else "cpu (interpreter)",
                torch=torch.__version__, triton=triton.__version__, python=platform.python_version())
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "chamfer_lazy.json"), "w") as f:
        json.dump(dict(meta=meta, rows=rows), f, indent=1)
    lines = [f"# Chamfer one direction: prefetch and lazy index ({meta['device']}, torch {meta['torch']}, triton {meta['triton']})",
             "", "| size | blocks (n, m, warps) | variant | ms | max diff from base | index mismatches |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['size']} | {r.get('config', '')} | {r['variant']} | {r.get('ms', r.get('err', r.get('error', '')))} "
                     f"| {r.get('max_diff', '')} | {r.get('idx_mismatch', '')} |")
    with open(os.path.join(args.out, "chamfer_lazy.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
