#!/usr/bin/env python3
"""Squared-L2 reductions on clouds far from the origin: exactness, and what it costs in time.

Run on the GPU machine from the repository root:

    python3 bench/offsets.py --out DIR [--quick] [--budget-s S]

Chamfer and Hausdorff run at offsets 0, 100 and 10000, k-means at 0 and 1000, on the same fp32 data:
uniform in [0, 1)^d (fixed seed, drawn on the CPU) plus the offset, added in fp32 (at 10000 that rounds
coordinates to a 2^-10 grid; k-means rows then convert to their dtype; the references use those values).
The float64 references are exact at any offset: nearest points from |x|^2 + |y|^2 - 2<x, y> in float64 on
clouds shifted by the float64 mean of x, the chosen pairs' squared distances from direct float64 differences.

1. Chamfer (hsr.ops.chamfer_distance, pytorch3d semantics, fp32, mean/mean) at 1 x 10K, 1 x 100K,
   32 x 2048 and 8 x 8192 points: forward (no_grad) and forward + loss.backward() times for hsr and
   flash_chamfer / flash_chamfer_train (flash-maxsim, where importable); the loss's error for those, naive
   fp32 ((x - y) ** 2).sum(-1) and fp32 torch.cdist(x, y).pow(2); the largest per-point error
   (point_reduction=None) of hsr and naive fp32; the gradient's error in x (vs bench/chamfer.py's reference64).
2. Directed Hausdorff, hsr.compile(examples/hausdorff.hsr), 4 x 20K x 20K, d = 3: time and value error,
   against eager chunked torch.cdist.
3. k-means assignment, hsr.compile(examples/kmeans_assign.hsr), 2^20 points, (K, f) = (1024, 64), (1024, 128),
   (4096, 128), in fp16, bf16, fp32 under float32 matmul precision "highest" and fp32 under "high": times against
   eager |c|^2 - 2<x, c> + argmin (64K-row blocks, the product in the data's dtype, the rest in fp32) and
   flash-kmeans' euclid_assign_triton (where importable; its squared norms computed outside the timing, as a
   Lloyd loop keeps them), and for each the fraction of the first 65536 points whose chosen centre is farther
   than the nearest by more than 4 * 2^-23 of the nearest distance.

Times: triton.testing.do_bench medians after two warm-up calls (public call, host included); tf32 off but in
the k-means rows under "high".
--quick: tiny shapes, one time.perf_counter call each, on the CPU through Triton's interpreter when there
is no CUDA (under a minute). No row starts after --budget-s seconds. Writes offsets.json and offsets.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import platform
import sys
import time
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # bench/chamfer.py and bench/harness.py, also under python -P
ROOT = HERE.parent
OFFSETS = (0.0, 100.0, 10000.0)
KMEANS_OFFSETS = (0.0, 1000.0)
KMEANS_MODES = {"fp16": ("float16", "highest"), "bf16": ("bfloat16", "highest"),  # dtype, float32 matmul precision
                "fp32 highest": ("float32", "highest"), "fp32 high": ("float32", "high")}
FULL = {"chamfer": [(1, 10_000), (1, 100_000), (32, 2048), (8, 8192)],  # B x N points, N = M
        "hausdorff": (4, 20_000, 3), "kmeans": [(1 << 20, 1024, 64), (1 << 20, 1024, 128), (1 << 20, 4096, 128)]}
QUICK = {"chamfer": [(1, 64), (2, 32)], "hausdorff": (2, 64, 3), "kmeans": [(256, 32, 16), (128, 16, 32)]}
CHUNK_BYTES = 1 << 30  # float64 distances per block of the references
NAIVE_BYTES = 1 << 31  # fp32 temporaries per block of the naive computations
KMEANS_ROWS = 65536
KMEANS_SAMPLE = 65536  # points whose picks are checked: the float64 reference of all would be K x 2^20
FP32_ROUND = 2.0 ** -23


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="directory for offsets.json and offsets.md")
    p.add_argument("--quick", action="store_true", help="tiny shapes, one perf_counter call each (CPU smoke run)")
    p.add_argument("--budget-s", type=float, default=400.0, help="start no new row after this (default %(default)s)")
    p.add_argument("--only", help="comma-separated cases to run: chamfer, hausdorff, kmeans (default: all)")
    p.add_argument("--kmeans", help="the k-means shapes, NxKxF comma-separated (default: the issue's three at 2^20 points)")
    p.add_argument("--modes", help="the k-means modes, comma-separated, of: " + ", ".join(KMEANS_MODES))
    return p.parse_args(argv)


# --------------------------------------------------------------------------- references and baselines

def centred64(x, y):
    """float64 copies of both clouds minus the float64 mean of x over its points (axis -2)."""
    mean = x.detach().double().mean(dim=-2, keepdim=True)
    return x.detach().double() - mean, y.detach().double() - mean


def nearest64(torch, x, y, cols=True):
    """x [n, d], y [m, d] float64, centred: the index of each x's nearest y (and of each y's nearest x)
    from |x|^2 + |y|^2 - 2<x, y> in float64 (error ~1e-16 of the centred extent squared: only a tie that
    close can pick another point, whose exact distance then differs by as little); ties: lowest index."""
    rows = max(1, CHUNK_BYTES // (8 * y.shape[0]))
    xn, yn = (x * x).sum(1), (y * y).sum(1)
    ix = torch.empty(x.shape[0], dtype=torch.long, device=x.device)
    iy = torch.zeros(y.shape[0], dtype=torch.long, device=x.device)
    best = x.new_full((y.shape[0],), math.inf)
    for lo in range(0, x.shape[0], rows):
        d = torch.addmm(yn[None], x[lo:lo + rows], y.t(), alpha=-2.0).add_(xn[lo:lo + rows, None])
        ix[lo:lo + rows] = d.argmin(1)
        if cols:
            v, i = d.min(0)
            better = v < best  # strict: an earlier block keeps a tie
            best, iy = torch.where(better, v, best), torch.where(better, i + lo, iy)
        del d
    return ix, (iy if cols else None)


def sq64(a, b):
    """Squared distances of paired rows from the fp32 values in float64: exact differences and squares,
    one rounding in the sum."""
    return ((a.double() - b.double()) ** 2).sum(-1)


def naive_fp32(torch, x, y):
    """Per-point nearest squared distances [B, N], [B, M] in fp32 by direct differences, chunked."""
    m = y.shape[1]
    rows = max(1, NAIVE_BYTES // (7 * 4 * m))  # difference, square (3 each), sum
    dx = x.new_empty(x.shape[:2])
    dy = x.new_full(y.shape[:2], math.inf)
    for b in range(x.shape[0]):
        for lo in range(0, x.shape[1], rows):
            d = ((x[b, lo:lo + rows, None] - y[b, None]) ** 2).sum(-1)
            dx[b, lo:lo + rows] = d.min(1).values
            dy[b] = torch.minimum(dy[b], d.min(0).values)
            del d
    return dx, dy


def point_err(v, r):
    """Largest |v - r| / r over points (0 where both are 0, inf where only r is); NaN if v has a NaN."""
    e = (v.detach().double() - r).abs() / r
    e[(r == 0) & (v == 0)] = 0.0
    return e.max().item()


def hausdorff_eager(torch, p, r):
    """Directed Hausdorff per batch with fp32 torch.cdist, in blocks of rows of p (~1 GiB of distances)."""
    rows = max(1, (1 << 30) // (4 * p.shape[0] * r.shape[1]))
    mins = [torch.cdist(p[:, lo:lo + rows], r).min(2).values for lo in range(0, p.shape[1], rows)]
    return torch.cat(mins, 1).max(1).values


def kmeans_eager(torch, x, c):
    """argmin_k |x - c_k|^2 as users write it: |c|^2 - 2<x, c> (|x|^2 leaves the argmin) in 64K-row blocks,
    the product in the inputs' dtype, the rest in fp32 (one addmm for fp32)."""
    cn = c.float().square().sum(1)[None]

    def scores(xb):
        return torch.addmm(cn, xb, c.t(), alpha=-2.0) if x.dtype == torch.float32 else cn - 2 * (xb @ c.t()).float()
    return torch.cat([scores(x[lo:lo + KMEANS_ROWS]).argmin(1) for lo in range(0, x.shape[0], KMEANS_ROWS)])


def kmeans_bad_fraction(x, c, assign, dmin):
    """Fraction of points whose chosen centre's exact distance exceeds the minimum by > 4 fp32 roundings
    (an index outside [0, K) counts as bad)."""
    chosen = sq64(x, c[assign.long().clamp(0, c.shape[0] - 1)])
    bad = (chosen - dmin > 4 * FP32_ROUND * dmin + 1e-30) | (assign < 0) | (assign >= c.shape[0])
    return bad.double().mean().item()


def load_flash_kmeans():
    """flash-kmeans' assignment kernel and its version, or (None, None) where it is not importable."""
    try:
        from flash_kmeans.assign_euclid_triton import euclid_assign_triton
    except Exception as e:  # noqa: BLE001
        print(f"peer flash_kmeans not available ({type(e).__name__}: {e}); skipped")
        return None, None
    return euclid_assign_triton, next((d.version for d in metadata.distributions(name="flash-kmeans")), "?")


# --------------------------------------------------------------------------- the run

class Runner:
    """Times calls (do_bench, or perf_counter with --quick) and guards failures."""

    def __init__(self, torch, args, device):
        self.torch, self.args, self.device = torch, args, device
        self.t0 = time.monotonic()
        self.errors = []

    def time_ms(self, fn, grad_to_none=()):
        """ms of fn(): do_bench median after two warm-up calls; --quick (or no CUDA): one perf_counter call."""
        if self.args.quick or self.device != "cuda":
            t = time.perf_counter()
            fn()
            if self.device == "cuda":
                self.torch.cuda.synchronize()
            return (time.perf_counter() - t) * 1e3
        import triton.testing

        for _ in range(2):  # compilation and autotuning stay out of the timing
            fn()
            for t in grad_to_none:
                t.grad = None
        self.torch.cuda.synchronize()
        return triton.testing.do_bench(fn, warmup=25, rep=100, grad_to_none=list(grad_to_none) or None,
                                       return_mode="median")

    def guard(self, row, what, thunk):
        """thunk() or None; a failure is noted in the row and printed."""
        try:
            return thunk()
        except Exception as e:  # noqa: BLE001 - one failure must not end the run
            msg = f"{what}: {type(e).__name__}: {' '.join(str(e).split())[:300]}"
            print(f"  FAILED {row['name']} {msg}", flush=True)
            row.setdefault("errors", []).append(msg)
            self.errors.append(f"{row['name']} {msg}")
            return None


def chamfer_row(run, row, x0, y0, offset, hsr_cd, peers):
    torch = run.torch
    from chamfer import cdist_chamfer, reference64, rel

    x, y = x0 + offset, y0 + offset
    xc, yc = centred64(x, y)
    near = [nearest64(torch, xc[b], yc[b]) for b in range(x.shape[0])]
    ref_x = torch.stack([sq64(x[b], y[b][ix]) for b, (ix, _) in enumerate(near)])
    ref_y = torch.stack([sq64(y[b], x[b][iy]) for b, (_, iy) in enumerate(near)])
    row["ref_loss"] = ref_loss = (ref_x.mean(1) + ref_y.mean(1)).mean().item()
    _, ref_gx, _ = reference64(torch, xc, yc)  # the float64 gradient from float64 nearest-neighbour indices
    del near, xc, yc

    def naive():
        dx, dy = naive_fp32(torch, x, y)
        row["loss_err_naive"] = rel((dx.mean(1) + dy.mean(1)).mean().item(), ref_loss)
        row["pp_err_naive"] = max(point_err(dx, ref_x), point_err(dy, ref_y))
    with torch.no_grad():
        run.guard(row, "naive fp32", naive)
        rows = max(1, NAIVE_BYTES // (3 * 4 * y.shape[1]))
        run.guard(row, "cdist fp32", lambda: row.__setitem__(
            "loss_err_cdist", rel(cdist_chamfer(torch, x, y, rows).item(), ref_loss)))

    def fwd(fn, key):
        call = torch.no_grad()(lambda: fn(x, y))
        row[f"loss_err_{key}"] = rel(call().item(), ref_loss)
        row[f"{key}_fwd_ms"] = run.time_ms(call)

    def train(fn, key):
        xl, yl = x.clone().requires_grad_(), y.clone().requires_grad_()
        step = lambda: fn(xl, yl).backward()  # noqa: E731
        step()
        row[f"grad_x_err_{key}"] = rel(xl.grad, ref_gx)
        xl.grad = yl.grad = None
        row[f"{key}_fwd_bwd_ms"] = run.time_ms(step, (xl, yl))

    def per_point():
        with torch.no_grad():
            cx, cy = hsr_cd(x, y, point_reduction=None, batch_reduction=None)
        row["pp_err_hsr"] = max(point_err(cx, ref_x), point_err(cy, ref_y))
        naive_err = row.get("pp_err_naive")
        row["pp_ratio"] = row["pp_err_hsr"] / naive_err if naive_err else None

    run.guard(row, "hsr forward", lambda: fwd(hsr_cd, "hsr"))
    run.guard(row, "hsr per-point", per_point)
    run.guard(row, "hsr forward+backward", lambda: train(hsr_cd, "hsr"))
    if "flash_chamfer" in peers:
        run.guard(row, "flash_chamfer", lambda: fwd(peers["flash_chamfer"][0], "flash"))
    if "flash_chamfer_train" in peers:
        run.guard(row, "flash_chamfer_train", lambda: train(peers["flash_chamfer_train"][1], "flash"))


def compare(run, row, variants, metric, score):
    """Under no_grad, for hsr (first) and each baseline: score(output), forward time, its time / hsr's."""
    with run.torch.no_grad():
        for key, fn in variants:
            def go(key=key, fn=fn):
                row[f"{metric}_{key}"] = score(fn())
                row[f"{key}_fwd_ms"] = run.time_ms(fn)
            run.guard(row, key, go)
    for key, _ in variants[1:]:
        if row.get("hsr_fwd_ms") and row.get(f"{key}_fwd_ms"):
            row[f"{key}_vs_hsr"] = row[f"{key}_fwd_ms"] / row["hsr_fwd_ms"]


def hausdorff_row(run, row, p0, r0, offset, op):
    torch = run.torch
    p, r = p0 + offset, r0 + offset
    pc, rc = centred64(p, r)
    ref = torch.stack([sq64(p[b], r[b][nearest64(torch, pc[b], rc[b], cols=False)[0]]).max().sqrt()
                       for b in range(p.shape[0])])
    row["ref"] = ref.tolist()
    del pc, rc
    compare(run, row, (("hsr", lambda: op(p, r)), ("eager", lambda: hausdorff_eager(torch, p, r))), "err",
            lambda h: ((h.double() - ref).abs() / ref).max().item())


def kmeans_row(run, row, x0, c0, offset, op, flash_assign):
    """One dtype and float32 matmul precision (row["mode"]; "highest" again after): picks checked on a sample."""
    torch = run.torch
    dtype, precision = KMEANS_MODES[row["mode"]]
    x, c = (x0 + offset).to(getattr(torch, dtype)), (c0 + offset).to(getattr(torch, dtype))
    xs = x[:KMEANS_SAMPLE]
    xc, cc = centred64(xs, c)
    dmin = sq64(xs, c[nearest64(torch, xc, cc, cols=False)[0]])
    del xc, cc
    variants = [("hsr", lambda: op(x, c)), ("eager", lambda: kmeans_eager(torch, x, c))]
    if flash_assign:  # the norms as a Lloyd loop keeps them, outside the timed call
        x_sq, c_sq = x[None].float().square().sum(-1), c[None].float().square().sum(-1)
        variants.append(("flash_kmeans", lambda: flash_assign(x[None], c[None], x_sq, c_sq=c_sq)[0]))
    torch.set_float32_matmul_precision(precision)
    try:
        compare(run, row, variants, "bad_frac", lambda a: kmeans_bad_fraction(xs, c, a[:KMEANS_SAMPLE], dmin))
    finally:
        torch.set_float32_matmul_precision("highest")


# --------------------------------------------------------------------------- report

TABLES = {  # kind: (title, [(header, key, format)])
    "chamfer": ("Chamfer (hsr.ops.chamfer_distance, fp32, point and batch reduction mean)", [
        ("offset", "offset", "g"), ("hsr fwd ms", "hsr_fwd_ms", ".3f"), ("flash fwd ms", "flash_fwd_ms", ".3f"),
        ("hsr fwd+bwd ms", "hsr_fwd_bwd_ms", ".3f"), ("flash train ms", "flash_fwd_bwd_ms", ".3f"),
        ("loss err hsr", "loss_err_hsr", ".1e"), ("naive", "loss_err_naive", ".1e"),
        ("cdist", "loss_err_cdist", ".1e"), ("flash", "loss_err_flash", ".1e"),
        ("point max err hsr", "pp_err_hsr", ".1e"), ("naive", "pp_err_naive", ".1e"),
        ("hsr / naive", "pp_ratio", ".2f"), ("grad x err hsr", "grad_x_err_hsr", ".1e"),
        ("flash", "grad_x_err_flash", ".1e")]),
    "hausdorff": ("Directed Hausdorff (hsr.compile(examples/hausdorff.hsr), fp32)", [
        ("offset", "offset", "g"), ("hsr ms", "hsr_fwd_ms", ".3f"), ("cdist ms", "eager_fwd_ms", ".3f"),
        ("cdist / hsr", "eager_vs_hsr", ".2f"), ("rel err hsr", "err_hsr", ".1e"),
        ("rel err cdist", "err_eager", ".1e")]),
    "kmeans": ("k-means assignment (hsr.compile(examples/kmeans_assign.hsr); flash-kmeans given the squared norms; "
               f"bad: fraction of the first {KMEANS_SAMPLE} points whose chosen centre is farther than the nearest "
               "by > 4 * 2^-23 of its distance)", [
        ("dtype/mode", "mode", "s"), ("offset", "offset", "g"), ("hsr ms", "hsr_fwd_ms", ".3f"),
        ("flash-kmeans ms", "flash_kmeans_fwd_ms", ".3f"), ("eager ms", "eager_fwd_ms", ".3f"),
        ("flash-kmeans / hsr", "flash_kmeans_vs_hsr", ".2f"), ("eager / hsr", "eager_vs_hsr", ".2f"),
        ("bad hsr", "bad_frac_hsr", ".2e"), ("bad flash-kmeans", "bad_frac_flash_kmeans", ".2e"),
        ("bad eager", "bad_frac_eager", ".2e")]),
}


def markdown(res):
    lines = ["# Offsets: squared-L2 reductions far from the origin", "",
             f"Device: {res['device']}; python {res['python']}, torch {res['torch']}, triton {res['triton']}, "
             f"flash_maxsim {res['flash_maxsim'] or 'not importable'}, flash_kmeans "
             f"{res['flash_kmeans'] or 'not importable'}, hsr {res['hsr']}"
             + (" (--quick: tiny shapes, one perf_counter call each)" if res["quick"] else "") + ".", "",
             "The same fp32 data plus the offset (k-means: then in the row's dtype); errors relative to float64 "
             "(exact at any offset). ms, of the public call: " + ("one perf_counter call, first-call work included"
                                                                 if res["quick"] else "do_bench medians")
             + ". naive: fp32 direct differences; cdist: fp32 torch.cdist (matrix-product expansion); eager: "
             "|c|^2 - 2<x, c> + argmin. -: not importable, skipped or failed."]
    for kind, (title, cols) in TABLES.items():
        lines += ["", f"## {title}", "", "| shape | " + " | ".join(c[0] for c in cols) + " |",
                  "|---|" + "---|" * len(cols)]
        for r in (r for r in res["rows"] if r["kind"] == kind):
            cells = ["-" if r.get(k) is None else format(r[k], f) for _, k, f in cols]
            skipped = " (skipped: budget)" if r.get("skipped") else ""
            lines.append(f"| {r['shape']}{skipped} | " + " | ".join(cells) + " |")
    errs = [f"- {r['name']}: {e}" for r in res["rows"] for e in r.get("errors", [])]
    return "\n".join(lines + (["", "Failures:"] + errs if errs else [])) + "\n"


def _clean(v):
    """JSON without NaN/inf literals."""
    if isinstance(v, (dict, list)):
        return {k: _clean(x) for k, x in v.items()} if isinstance(v, dict) else [_clean(x) for x in v]
    return str(v) if isinstance(v, float) and not math.isfinite(v) else v


def main(argv=None):
    args = parse_args(argv)
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton (imported by hsr) is
    import triton

    import hsr
    from chamfer import load_hsr, load_peers

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    hsr_cd = load_hsr()
    peers, fm_ver = load_peers()
    flash_assign, fk_ver = load_flash_kmeans()
    sizes = QUICK if args.quick else FULL
    res = {"device": torch.cuda.get_device_name(0) if device == "cuda" else f"cpu ({platform.processor() or '?'}"
                     f", Triton interpreter: {os.environ.get('TRITON_INTERPRET', '0')})",
           "torch": torch.__version__, "triton": triton.__version__, "python": platform.python_version(),
           "flash_maxsim": fm_ver, "flash_kmeans": fk_ver, "hsr": getattr(hsr, "__version__", "?"),
           "quick": args.quick, "offsets": list(OFFSETS), "kmeans_offsets": list(KMEANS_OFFSETS), "rows": []}
    os.makedirs(args.out, exist_ok=True)
    run = Runner(torch, args, device)
    print(f"device {res['device']}; torch {res['torch']}, triton {res['triton']}, flash_maxsim {fm_ver}", flush=True)

    def save():
        with open(os.path.join(args.out, "offsets.json"), "w") as f:
            json.dump(_clean(res), f, indent=2, default=str)
        with open(os.path.join(args.out, "offsets.md"), "w") as f:
            f.write(markdown(res))

    # the examples' specs, compiled from their text once, on first use (a failure fails that row)
    op = functools.lru_cache(None)(lambda name: hsr.compile((ROOT / "examples" / name).read_text()))

    def pair(shape_x, shape_y, seed):  # uniform in [0, 1), fp32, drawn on the CPU: the same data on any device
        def make():
            g = torch.Generator().manual_seed(seed)
            return torch.rand(shape_x, generator=g).to(device), torch.rand(shape_y, generator=g).to(device)
        return make

    cham = [("chamfer", f"{b}x{n}", None, pair((b, n, 3), (b, n, 3), 11),
             lambda r, x, y, o: chamfer_row(run, r, x, y, o, hsr_cd, peers)) for b, n in sizes["chamfer"]]
    b, n, d = sizes["hausdorff"]
    haus = ("hausdorff", f"{b}x{n}x{d}", None, pair((b, n, d), (b, n, d), 21),
            lambda r, p, q, o: hausdorff_row(run, r, p, q, o, op("hausdorff.hsr")))
    kmeans = [("kmeans", f"{n}x{k}x{f}", mode, pair((n, f), (k, f), 31),
               lambda r, x, c, o: kmeans_row(run, r, x, c, o, op("kmeans_assign.hsr"), flash_assign))
              for n, k, f in ([tuple(int(v) for v in x.split("x")) for x in args.kmeans.split(",")] if args.kmeans
                              else sizes["kmeans"])
              for mode in (args.modes.split(",") if args.modes else KMEANS_MODES)]
    cases = cham[:2] + [haus] + kmeans + cham[2:]  # the batched Chamfer shapes last: first to go past the budget
    if args.only:
        cases = [c for c in cases if c[0] in args.only.split(",")]

    for kind, shape, mode, make, body in cases:
        data = None
        for offset in KMEANS_OFFSETS if kind == "kmeans" else OFFSETS:
            row = {"name": " ".join(filter(None, (kind, shape, mode))) + f" offset {offset:g}", "kind": kind,
                   "shape": shape, "offset": offset} | ({"mode": mode} if mode else {})
            res["rows"].append(row)
            if time.monotonic() - run.t0 > args.budget_s:
                row["skipped"] = f"past the {args.budget_s:g} s budget"
                print(f"  skipped {row['name']}: {row['skipped']}", flush=True)
                continue
            print(f"== {row['name']}", flush=True)
            data = data or run.guard(row, "inputs", make)
            if data is not None:
                run.guard(row, "row", lambda: body(row, *data, offset))
            row["elapsed_s"] = round(time.monotonic() - run.t0, 1)
            print("  " + ", ".join(f"{k} {v:.3g}" for k, v in row.items()
                                   if isinstance(v, float) and k not in ("offset", "elapsed_s")), flush=True)
            save()
            torch.cuda.empty_cache()  # a no-op without CUDA
        del data

    res["elapsed_s"] = round(time.monotonic() - run.t0, 1)
    save()
    print(f"\nwrote {args.out}/offsets.json and offsets.md ({res['elapsed_s']:.0f} s)")
    if run.errors:
        print("FAILED:\n  " + "\n  ".join(run.errors))
    print()
    print(markdown(res), flush=True)
    return 1 if run.errors else 0


if __name__ == "__main__":
    sys.exit(main())
