"""Chamfer's one-direction min on the tensor cores, with the key folded into the
dot and an exact rescan of two candidate tiles a row: an experiment (GPU; the
interpreter checks it here at small sizes with --check). The template took it
as DOT_MODE 3 (bench/NOTES.md, session 15).

Session 13 ran the generated tensor-core forward on bf16-split rows and lost
(bench/NOTES.md): its key (norms added, masks, a slot per column) kept about the
CUDA-core path's work a pair after the dot. Here the dot is the whole key:
    <x'_n, y'_m> = |y_m|^2 - 2 <x_n, y_m>
with the squared norm carried in the rows (x' holds ones where y' holds the
norm's pieces), so a pair costs its share of the MMA and one FMNMX of the tile's
row min. Per row the loop keeps the least tile min and the tile that first
reached it, and the first tile that no later one beats by more than a tolerance
(ties across tiles); after the loop each row rescans those tiles (in chunks of
RESCAN_COLS columns) in fp32 on the CUDA cores, ||x - y||^2 as a sum of squared
differences, for the lowest index of the least distance. The value stored is that exact distance, so the tensor cores'
rounding only decides the tile (a near-tie across tiles may pick a neighbour
within that rounding of the nearest).

Two splits of the fp32 coordinates (products of pieces are exact in fp32):
  bf16x3: three bf16 pieces a coordinate, all 9 products of pieces, K = 32;
  fp16x2: a power-of-two scale (largest coordinate near 2^6, so |y|^2 fits
          fp16), two fp16 pieces, the products hi*hi + hi*lo + lo*hi, K = 16
          (half the bytes a point: the dropped lo*lo is 2^-22 of a product).

    python3 bench/experiments/chamfer_mma.py --out DIR [--sizes 100000,10000]
    TRITON_INTERPRET=1 python3 bench/experiments/chamfer_mma.py --check

Times (do_bench, median ms) each split and block config beside the generated
kernel (hsr.generated.chamfer_point, autotuned, with and without its index),
compares distances and indices with the generated kernel's (and float64 where
the size allows), and writes chamfer_mma.json and chamfer_mma.md.
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

CONFIGS = [(128, 128, 4, 3), (128, 64, 4, 4), (64, 128, 4, 3), (64, 64, 4, 4), (128, 128, 8, 3), (128, 64, 4, 3),
           (64, 64, 2, 4), (256, 64, 8, 3)]
RESCAN_COLS = (16, 32, 64)


def pieces(t, dtype, count):
    """count tensors of dtype whose fp32 sum is t (exact for bf16 x 3)."""
    out, rest = [], t.float()
    for _ in range(count):
        p = rest.to(dtype)
        out.append(p)
        rest = rest - p.float()
    return out


def split_rows(x, y, split):
    """(x', y') with <x'_n, y'_m> = s^2 (|y_m|^2 - 2 <x_n, y_m>), s, and max |y_m|^2 (for the tie tolerance)."""
    if split == "bf16x3":
        s, dtype, count, k = 1.0, torch.bfloat16, 3, 32
        prods = [(i, j) for i in range(3) for j in range(3)]
    else:
        big = max(x.abs().max().item(), y.abs().max().item(), 2.0 ** -60)
        s = 2.0 ** (6 - int(torch.tensor(big).log2().ceil().item()))
        dtype, count, k = torch.float16, 2, 16
        prods = [(0, 0), (0, 1), (1, 0)]
    xs, ys = pieces(x * s, dtype, count), pieces(-2.0 * (y * s), dtype, count)
    ysq = pieces(((y * s) ** 2).sum(-1, keepdim=True), dtype, count)
    cols_a = [xs[i][:, c:c + 1] for c in range(3) for i, _ in prods] + [torch.ones_like(xs[0][:, :1]) for _ in ysq]
    cols_b = [ys[j][:, c:c + 1] for c in range(3) for _, j in prods] + ysq
    a, b = torch.cat(cols_a, 1), torch.cat(cols_b, 1)
    pad = k - a.shape[1]
    ymax_sq = float((y * y).sum(-1).max())
    return (torch.nn.functional.pad(a, (0, pad)).contiguous(), torch.nn.functional.pad(b, (0, pad)).contiguous(), s,
            ymax_sq)


@triton.jit
def mma_one_way(xa_ptr, yb_ptr, x_ptr, y_ptr, out_ptr, idx_ptr, n, m, ymax_sq, tol_scale,
                K: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr, RESCAN: tl.constexpr,
                RESCAN_COLS: tl.constexpr, DOT_FP32: tl.constexpr):
    """dist[n] = min_m ||x_n - y_m||^2 and its index, for a block of rows."""
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    n_in = offs_n < n
    kk = tl.arange(0, K)
    ar = tl.arange(0, BLOCK_M)
    xa = tl.load(xa_ptr + offs_n[:, None] * K + kk[None, :], mask=n_in[:, None], other=0.0)
    x0 = tl.load(x_ptr + offs_n * 3 + 0, mask=n_in, other=0.0)
    x1 = tl.load(x_ptr + offs_n * 3 + 1, mask=n_in, other=0.0)
    x2 = tl.load(x_ptr + offs_n * 3 + 2, mask=n_in, other=0.0)
    # keys within tol of each other may be a tie: the rounding of the dot's sum, from the size of its terms
    tol = (x0 * x0 + x1 * x1 + x2 * x2 + ymax_sq) * tol_scale
    best = tl.full([BLOCK_N], float("inf"), tl.float32)  # least tile min, and the tile that first reached it
    tile = tl.zeros([BLOCK_N], tl.int32)
    near = tl.full([BLOCK_N], float("inf"), tl.float32)  # the first tile within tol of every later one
    tile_near = tl.zeros([BLOCK_N], tl.int32)
    m_full = (m // BLOCK_M) * BLOCK_M
    for m0 in range(0, m_full, BLOCK_M):
        yb = tl.load(yb_ptr + (m0 + ar)[None, :] * K + kk[:, None])
        if DOT_FP32:  # the interpreter (Triton 3.9) multiplies bf16 bit patterns as integers
            tmin = tl.min(tl.dot(xa.to(tl.float32), yb.to(tl.float32), input_precision="ieee"), axis=1)
        else:
            tmin = tl.min(tl.dot(xa, yb), axis=1)
        better = tmin < best
        best = tl.where(better, tmin, best)
        tile = tl.where(better, m0, tile)
        clear = tmin < near - tol
        near = tl.where(clear, tmin, near)
        tile_near = tl.where(clear, m0, tile_near)
    if m_full < m:
        ok = (m_full + ar) < m
        yb = tl.load(yb_ptr + (m_full + ar)[None, :] * K + kk[:, None], mask=ok[None, :], other=0.0)
        if DOT_FP32:
            dot = tl.dot(xa.to(tl.float32), yb.to(tl.float32), input_precision="ieee")
        else:
            dot = tl.dot(xa, yb)
        tmin = tl.min(tl.where(ok[None, :], dot, float("inf")), axis=1)
        better = tmin < best
        best = tl.where(better, tmin, best)
        tile = tl.where(better, m_full, tile)
        clear = tmin < near - tol
        tile_near = tl.where(clear, m_full, tile_near)
    if RESCAN:  # the two tiles, exact distances, the lowest index of the least
        dmin = tl.full([BLOCK_N], float("inf"), tl.float32)
        found = tl.full([BLOCK_N], m, tl.int32)
        rc = tl.arange(0, RESCAN_COLS)
        for which in tl.static_range(2):
            start = tile_near if which == 0 else tile
            for c0 in tl.static_range(0, BLOCK_M, RESCAN_COLS):  # in chunks: registers
                cols = start[:, None] + (c0 + rc)[None, :]
                ok = (cols < m) & n_in[:, None]
                if which == 1:  # the second tile only where it is another
                    ok = ok & (tile != tile_near)[:, None]
                d0 = x0[:, None] - tl.load(y_ptr + cols * 3 + 0, mask=ok, other=0.0)
                d1 = x1[:, None] - tl.load(y_ptr + cols * 3 + 1, mask=ok, other=0.0)
                d2 = x2[:, None] - tl.load(y_ptr + cols * 3 + 2, mask=ok, other=0.0)
                d = tl.where(ok, d0 * d0 + d1 * d1 + d2 * d2, float("inf"))
                tmin = tl.min(d, axis=1)
                at = tl.min(tl.where(d == tmin[:, None], cols, m), axis=1)
                take = (tmin < dmin) | ((tmin == dmin) & (at < found))
                found = tl.where(take, at, found)
                dmin = tl.minimum(dmin, tmin)
        tl.store(idx_ptr + offs_n, found, mask=n_in)
        tl.store(out_ptr + offs_n, dmin, mask=n_in)
    else:  # the dot's min with |x|^2 added (scaled back on the host)
        tl.store(out_ptr + offs_n, best, mask=n_in)


def run_mma(x, y, prep, config, rescan=True, rescan_cols=32):
    xa, yb, s, ymax_sq = prep
    bn, bm, warps, stages = config
    n, m = x.shape[0], y.shape[0]
    out = torch.empty(n, device=x.device, dtype=torch.float32)
    idx = torch.empty(n, device=x.device, dtype=torch.int32)
    mma_one_way[(triton.cdiv(n, bn),)](xa, yb, x, y, out, idx, n, m, ymax_sq, 2.0 ** -18 * s * s, K=xa.shape[1], BLOCK_N=bn, BLOCK_M=bm,
                                       RESCAN=rescan, RESCAN_COLS=min(rescan_cols, config[1]),
                                       DOT_FP32=x.device.type == "cpu", num_warps=warps, num_stages=stages)
    if not rescan:
        out = out / (s * s) + (x * x).sum(-1)
    return out, idx


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--sizes", default="100000,10000")
    ap.add_argument("--budget-s", type=float, default=240.0)
    ap.add_argument("--check", action="store_true", help="small sizes through the interpreter, no timing")
    args = ap.parse_args(argv)
    device = "cpu" if args.check else "cuda"
    sizes = [300, 517] if args.check else [int(s) for s in args.sizes.split(",")]
    configs = [(32, 32, 4, 1)] if args.check else CONFIGS
    from hsr.generated import chamfer_point as gen
    t0 = time.monotonic()
    rows = []
    for size in sizes:
        g = torch.Generator(device=device).manual_seed(0)
        x = torch.randn(size, 3, device=device, generator=g)
        y = torch.randn(size + 17, 3, device=device, generator=g)
        if args.check:  # ties: repeated points
            y[40:80] = y[0:40]
        ref = None
        if size <= 20000:
            ref = torch.cdist(x.double(), y.double()).pow(2).min(1)
        base_v, base_i = gen.forward_with_indices(x[None], y[None])
        base_v, base_i = base_v[0], base_i[0].to(torch.int32)

        def record(name, config, fn, ms_fn=None):
            try:
                v, i = fn()
            except Exception as e:  # noqa: BLE001 (a config that does not compile is a row)
                rows.append(dict(size=size, config=config, variant=name, error=repr(e)[:300]))
                print(size, config, name, "error", repr(e)[:300], flush=True)
                return
            row = dict(size=size, config=config, variant=name, diff_vs_generated=float((v - base_v).abs().max()),
                       idx_vs_generated=int((i.to(torch.int32) != base_i).sum()) if i is not None else None)
            if ref is not None:
                row["err_f64"] = float((v.double() - ref.values).abs().max())
                row["idx_vs_f64"] = int((i.long() != ref.indices).sum()) if i is not None else None
            if not args.check:
                row["ms"] = triton.testing.do_bench(ms_fn or fn, warmup=50, rep=300)
            rows.append(row)
            print(row, flush=True)

        if not args.check:
            warm = time.monotonic()
            while time.monotonic() - warm < 2.0:  # clocks up before the first timing
                gen.apply(x[None], y[None])
            torch.cuda.synchronize()
            record("generated-noidx", "auto", lambda: (gen.apply(x[None], y[None])[0], None))
            record("generated-idx", "auto", lambda: tuple(t[0] for t in gen.forward_with_indices(x[None], y[None])))
        for split in ("bf16x3", "fp16x2"):
            prep = split_rows(x, y, split)
            if not args.check:
                record(f"split-{split}-prep", None, lambda: (base_v, None), lambda: split_rows(x, y, split))
            for config in configs:
                if time.monotonic() - t0 > args.budget_s:
                    break
                for rc in (RESCAN_COLS if not args.check else (16,)):
                    if rc <= config[1]:
                        record(f"mma-{split}-rescan{rc}", config, lambda: run_mma(x, y, prep, config, True, rc))
                if not args.check:
                    record(f"mma-{split}-norescan", config, lambda: run_mma(x, y, prep, config, False))
    meta = dict(device=torch.cuda.get_device_name(0) if device == "cuda" else "cpu (interpreter)",
                torch=torch.__version__, triton=triton.__version__, python=platform.python_version())
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "chamfer_mma.json"), "w") as f:
        json.dump(dict(meta=meta, rows=rows), f, indent=1)
    lines = [f"# Chamfer one direction on the tensor cores ({meta['device']}, torch {meta['torch']}, "
             f"triton {meta['triton']})", "",
             "| size | blocks (n, m, warps, stages) | variant | ms | max diff from generated | indices differing "
             "| err vs float64 | indices differing from float64 |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['size']} | {r.get('config', '')} | {r['variant']} | {r.get('ms', r.get('error', ''))} "
                     f"| {r.get('diff_vs_generated', '')} | {r.get('idx_vs_generated', '')} | {r.get('err_f64', '')} "
                     f"| {r.get('idx_vs_f64', '')} |")
    with open(os.path.join(args.out, "chamfer_mma.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
