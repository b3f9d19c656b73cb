#!/usr/bin/env python3
"""Chamfer distance on 3-d point clouds: hsr against flash-maxsim's kernels and cdist.

Run on the GPU machine from the repository root:

    python3 bench/chamfer.py --out DIR [--dtype fp32|fp16|bf16] [--quick] [--budget-s S]

The loss is pytorch3d's ``chamfer_distance`` without normals: squared L2
distances, for every point of each cloud the nearest point of the other, mean
over the points of each cloud, the two directions summed, mean over the batch.
Shapes: batch 1 with N = M = 10_000 and N = M = 100_000, and batches of 32 x 2048 and
8 x 8192 points (``--shapes`` picks; ``--quick``: 10K only).

In one run it

1. measures the two ceilings the floor needs: an 8192^3 fp32 matrix product
   with tf32 off (cuBLAS SGEMM runs on the CUDA cores: the FP32 FMA rate that
   the per-pair work of d = 3 points runs at) and a 1 GiB device-to-device copy
   (bytes read plus bytes written);
2. for each shape, times
   (a) the forward under ``torch.no_grad``: ``hsr.ops.chamfer_distance``,
       flash-maxsim's ``flash_chamfer`` and a cdist baseline;
   (b) forward + ``loss.backward()``: hsr with backward "auto", "atomic" and
       "deterministic", flash-maxsim's ``flash_chamfer_train`` and
       ``flash_chamfer_invgrid_train``, and the cdist baseline under autograd;
   each with its peak memory beyond the inputs (``torch.cuda.max_memory_allocated``
   after ``reset_peak_memory_stats``, minus what was allocated before the call);
3. checks every loss against a chunked float64 reference on the same
   (dtype-rounded) inputs, relative tolerance 1e-3, and every gradient against
   the float64 gradient that the reference's nearest-neighbour indices give
   (relative norm error, tolerance 1e-2: a near tie can pick another neighbour
   for a few points); mismatches are printed and flagged;
4. writes chamfer.json and chamfer.md into --out and prints the table last.

Timings are medians of ``triton.testing.do_bench`` (which flushes L2 before
every timed run) after two warm-up calls, so that autotuning and compilation
stay out of them. Points are uniform in [-1, 1)^3 (fixed seed), cast to the
dtype. fp32 matrix products run with tf32 off (cdist uses one).

The floor of a shape (DESIGN.md: max(work / compute ceiling, bytes / copy
rate)) counts, per pair of points and per direction, 3 FMAs (``|y|^2 - 2<x, y>``
with ``-2y`` and ``|y|^2`` precomputed) and one min: 4 FP32 instructions, so
8 B N M instructions for both directions, at the SGEMM instruction rate (an FMA
is 2 FLOPs). Bytes: both clouds read once, the scalar written (forward); the
backward adds the two index arrays read, both clouds read twice more (as
sources and as gathered nearest neighbours) and the two gradients written.
See bench/NOTES.md.

The cdist baseline computes ``torch.cdist(x, y).pow(2)`` (fp32, inputs cast up)
in blocks of rows of x that fit --cdist-gib, taking the row minima and a
running column minimum; with gradients and more than one block, each block is
checkpointed (recomputed in the backward), so 100K x 100K (40 GB of fp32
distances) fits.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys

from harness import Harness  # bench/harness.py, beside this script

DIM = 3
SHAPES = (  # name, batch, N, M
    ("10k", 1, 10_000, 10_000),
    ("100k", 1, 100_000, 100_000),
    ("b32x2048", 32, 2048, 2048),
    ("b8x8192", 8, 8192, 8192),
)
DTYPE_NAMES = ("fp32", "fp16", "bf16")
ELEM_BYTES = {"fp16": 2, "bf16": 2, "fp32": 4}
LOSS_TOL = 1e-3  # every implementation does its pair arithmetic in fp32, whatever the input dtype
GRAD_TOL = 1e-2
INSTR_PER_PAIR_DIRECTION = 4  # 3 FMA + 1 min
DEVICE = "cuda"
MATMUL_N = 8192
# Timings quoted in the brief, measured on an H200 (compare only with runs on an H200).
ANCHORS_H200_MS = {
    ("10k", "forward", "flash_chamfer"): 0.366,
    ("100k", "forward", "flash_chamfer"): 10.2,
    ("10k", "fwd_bwd", "flash_chamfer_train"): 1.634,
    ("100k", "fwd_bwd", "flash_chamfer_train"): 15.2,
    ("100k", "forward", "cdist"): 95.5,
}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results", help="directory for chamfer.{json,md} (default: %(default)s)")
    p.add_argument("--dtype", default="fp32", choices=DTYPE_NAMES, help="input dtype (default: %(default)s)")
    p.add_argument("--quick", action="store_true", help="10K only, shorter timing windows, one timing per variant")
    p.add_argument("--shapes", default=",".join(s[0] for s in SHAPES),
                   help="comma-separated subset of: " + ", ".join(s[0] for s in SHAPES))
    p.add_argument("--no-peers", action="store_true", help="skip flash-maxsim's chamfer functions")
    p.add_argument("--cdist-gib", type=float, default=8.0,
                   help="memory for one block of the cdist baseline's distances (default: %(default)s GiB)")
    p.add_argument("--budget-s", type=float, default=float(os.environ.get("HSR_BENCH_BUDGET_S", "230")),
                   help="wall-clock budget; no measurement starts after it (default: %(default)s)")
    p.add_argument("--plan", action="store_true", help="print the shapes, work and bytes, and exit (no GPU needed)")
    args = p.parse_args(argv)
    names = [s.strip() for s in args.shapes.split(",") if s.strip()]
    known = {s[0] for s in SHAPES}
    bad = [n for n in names if n not in known]
    if bad:
        p.error(f"unknown shape(s) {', '.join(bad)}; choose from {', '.join(sorted(known))}")
    if args.quick:
        names = [n for n in names if n == "10k"] or ["10k"]
    args.shape_list = [next(s for s in SHAPES if s[0] == n) for n in dict.fromkeys(names)]  # in the order given
    return args


def shape_cost(batch, n, m, dtype_name):
    """Work and bytes of one shape (see the module docstring)."""
    elem = ELEM_BYTES[dtype_name]
    pairs = batch * n * m
    instr = 2 * INSTR_PER_PAIR_DIRECTION * pairs
    bytes_fwd = batch * (n + m) * DIM * elem + 4
    bytes_bwd = batch * (n + m) * (4 + 2 * DIM * elem + DIM * elem)  # index; clouds twice; gradients
    return {"pairs": pairs, "fp32_instructions": instr, "bytes_fwd": bytes_fwd, "bytes_fwd_bwd": bytes_fwd + bytes_bwd}


def floors(cost, sgemm_tflops, copy_tbps):
    """Floors in ms: the pair work at the FP32 instruction rate (SGEMM FLOP/s / 2), bytes at the copy rate."""
    compute_ms = cost["fp32_instructions"] / (sgemm_tflops * 1e12 / 2) * 1e3
    out = {"compute_ms": compute_ms}
    for mode, key in (("forward", "bytes_fwd"), ("fwd_bwd", "bytes_fwd_bwd")):
        mem_ms = cost[key] / (copy_tbps * 1e12) * 1e3
        out[mode] = {"memory_ms": mem_ms, "limit_ms": max(compute_ms, mem_ms),
                     "bound": "compute" if compute_ms >= mem_ms else "memory"}
    return out


def print_plan(args):
    print(f"Chamfer, d={DIM}, dtype={args.dtype}; work = {INSTR_PER_PAIR_DIRECTION} FP32 instructions per pair "
          f"and direction")
    print(f"{'shape':6s} {'batch':>5s} {'N':>8s} {'M':>8s} {'pairs':>10s} {'G instr':>9s} {'MB fwd':>8s} "
          f"{'MB fwd+bwd':>11s} {'fp32 dist MB':>13s}")
    for name, b, n, m in args.shape_list:
        c = shape_cost(b, n, m, args.dtype)
        print(f"{name:6s} {b:5d} {n:8d} {m:8d} {c['pairs']:10.3g} {c['fp32_instructions'] / 1e9:9.2f} "
              f"{c['bytes_fwd'] / 1e6:8.2f} {c['bytes_fwd_bwd'] / 1e6:11.2f} {b * n * m * 4 / 1e6:13.0f}")


# --------------------------------------------------------------------------- GPU part

class Bench(Harness):
    """The harness, and the fp32 CUDA-core ceiling that Chamfer's pair arithmetic runs at."""

    label_width = 42

    def sgemm_ceiling(self):
        """fp32 matrix product, tf32 off: cuBLAS SGEMM on the CUDA cores (2 FLOPs per FMA)."""
        torch = self.torch
        n = MATMUL_N
        g = torch.Generator(device=DEVICE).manual_seed(1)
        a = torch.randn(n, n, device=DEVICE, generator=g)
        b = torch.randn(n, n, device=DEVICE, generator=g)
        out = torch.empty(n, n, device=DEVICE)
        ms, runs = self.time_fn(lambda: torch.mm(a, b, out=out))
        del a, b, out
        torch.cuda.empty_cache()
        return {"what": f"torch.mm {n}x{n}x{n} fp32, tf32 off (CUDA-core FMA rate)", "n": n, "ms": ms,
                "runs_ms": runs, "tflops": 2 * n ** 3 / (ms * 1e-3) / 1e12}


def rel(a, b):
    """|a - b| / |b| for scalars, ||a - b|| / ||b|| for tensors (float64); NaN if a is not finite."""
    import torch

    if isinstance(a, torch.Tensor):
        a = a.detach().double()
        if not bool(a.isfinite().all()):
            return float("nan")
        return ((a - b).norm() / b.norm().clamp_min(1e-300)).item()
    return abs(a - b) / max(abs(b), 1e-300) if math.isfinite(a) else float("nan")


# --------------------------------------------------------------------------- the functions compared

def reference64(torch, x, y, chunk_bytes=1 << 30):
    """float64 loss and gradients, pytorch3d semantics (squared L2, mean over points, sum of directions,
    mean over the batch), in row blocks of at most chunk_bytes of float64 distances. Ties: lowest index."""
    batch, n, _ = x.shape
    m = y.shape[1]
    loss = 0.0
    gx = torch.zeros(x.shape, dtype=torch.float64, device=x.device)
    gy = torch.zeros(y.shape, dtype=torch.float64, device=y.device)
    rows = max(1, chunk_bytes // (8 * m))
    for b in range(batch):
        x64, y64 = x[b].double(), y[b].double()
        xn, yn = (x64 * x64).sum(1), (y64 * y64).sum(1)
        d_x = torch.empty(n, dtype=torch.float64, device=x.device)  # nearest squared distance of each x
        a_x = torch.empty(n, dtype=torch.long, device=x.device)  # index of that nearest y
        d_y = torch.full((m,), float("inf"), dtype=torch.float64, device=x.device)
        a_y = torch.zeros(m, dtype=torch.long, device=x.device)
        for lo in range(0, n, rows):
            hi = min(n, lo + rows)
            dist = torch.addmm(yn[None, :], x64[lo:hi], y64.t(), alpha=-2.0)  # |y|^2 - 2<x, y>
            dist += xn[lo:hi, None]
            dist.clamp_min_(0.0)
            d_x[lo:hi], a_x[lo:hi] = dist.min(1)
            col_v, col_i = dist.min(0)
            better = col_v < d_y  # strict: an earlier block (lower x index) keeps a tie
            d_y = torch.where(better, col_v, d_y)
            a_y = torch.where(better, col_i + lo, a_y)
            del dist, col_v, col_i, better
        loss += (d_x.mean() + d_y.mean()).item() / batch
        # d/dx_i of (1/n) |x_i - y_a(i)|^2, and of (1/m) |y_j - x_b(j)|^2 for every j whose nearest x is i
        diff_x = x64 - y64[a_x]  # [n, 3]
        diff_y = y64 - x64[a_y]  # [m, 3]
        gx[b] = 2.0 / n * diff_x
        gx[b].index_add_(0, a_y, -2.0 / m * diff_y)
        gy[b] = 2.0 / m * diff_y
        gy[b].index_add_(0, a_x, -2.0 / n * diff_x)
    return loss, gx / batch, gy / batch


def cdist_chamfer(torch, x, y, rows):
    """The naive baseline: cdist(x, y)^2 (fp32) in blocks of `rows` rows of x, min over each direction,
    mean, sum, mean over the batch. With gradients and several blocks, each block is checkpointed."""
    from torch.utils.checkpoint import checkpoint

    def block(xb, yb):
        dist = torch.cdist(xb, yb).pow(2)
        return dist.min(1).values, dist.min(0).values

    losses = []
    for b in range(x.shape[0]):
        xb, yb = x[b].float(), y[b].float()
        n = xb.shape[0]
        if n <= rows:
            row_min, col_min = block(xb, yb)
        else:
            grad = torch.is_grad_enabled() and (xb.requires_grad or yb.requires_grad)
            parts = [checkpoint(block, xb[lo:lo + rows], yb, use_reentrant=False) if grad
                     else block(xb[lo:lo + rows], yb) for lo in range(0, n, rows)]
            row_min = torch.cat([p[0] for p in parts])
            col_min = torch.stack([p[1] for p in parts]).min(0).values
            del parts
        losses.append(row_min.mean() + col_min.mean())
    return torch.stack(losses).mean()


def load_hsr():
    """hsr.ops.chamfer_distance, or a stand-in that raises the import error (each hsr measurement FAILs)."""
    try:
        from hsr.ops import chamfer_distance
    except Exception as e:  # noqa: BLE001
        print(f"hsr.ops.chamfer_distance not importable ({type(e).__name__}: {e}); hsr measurements will fail")
        err = f"hsr.ops.chamfer_distance not importable: {type(e).__name__}: {e}"

        def chamfer_distance(*_a, **_k):
            raise ImportError(err)
    return chamfer_distance


def _scalar(out):
    """pytorch3d's chamfer_distance returns (loss, normals_loss); accept that spelling too."""
    return out[0] if isinstance(out, (tuple, list)) else out


def load_peers():
    """flash-maxsim's chamfer functions: {name: (forward fn or None, train fn or None, description)}.

    Semantics matched (read from flash_maxsim 0.3.0's signatures and docstrings): flash_chamfer(P, Q)
    and flash_chamfer_train(P, Q) take one cloud pair, P [N, d] and Q [M, d] (no batch axis), and
    return (1/N) sum_i min_j ||P_i - Q_j||^2 + (1/M) sum_j min_i ||Q_j - P_i||^2: squared L2 (its
    default metric "l2_sq"), mean over each cloud, both directions summed, which is pytorch3d's
    (and hsr's) loss for one cloud pair. The only conversion: we call it once per batch element on
    x[b], y[b] and take the mean over the batch (batch_reduction="mean"; batch is 1 here, so one
    call on x[0], y[0]). flash_chamfer_invgrid_train is the same loss with its atomic-free backward.
    Note: its kernel rounds the coordinates to fp16 for the dot product (norms stay fp32), so on fp32
    inputs its loss can differ from the fp64 reference by more than fp32 rounding; the check shows it.
    """
    try:
        import flash_maxsim as fm
    except Exception as e:  # noqa: BLE001
        print(f"peer flash_maxsim not available ({type(e).__name__}: {e}); skipped")
        return {}, None
    ver = getattr(fm, "__version__", "?")

    def per_batch(f):
        import torch

        def run(x, y):
            return torch.stack([f(x[b], y[b]) for b in range(x.shape[0])]).mean()
        return run

    peers = {}
    fwd, train = getattr(fm, "flash_chamfer", None), getattr(fm, "flash_chamfer_train", None)
    inv = getattr(fm, "flash_chamfer_invgrid_train", None)
    if callable(fwd):
        peers["flash_chamfer"] = (per_batch(fwd), None, f"flash_maxsim {ver} flash_chamfer(x[b], y[b]), mean over b")
    if callable(train):
        peers["flash_chamfer_train"] = (None, per_batch(train),
                                        f"flash_maxsim {ver} flash_chamfer_train(x[b], y[b]), mean over b "
                                        f"(backward: gather + scatter_add)")
    if callable(inv):
        peers["flash_chamfer_invgrid_train"] = (None, per_batch(inv),
                                                f"flash_maxsim {ver} flash_chamfer_invgrid_train(x[b], y[b]), "
                                                f"mean over b (backward: CSR inverse index, no atomics)")
    if not peers:
        print(f"peer flash_maxsim {ver} has none of flash_chamfer, flash_chamfer_train; skipped")
    return peers, ver


# --------------------------------------------------------------------------- report

def fmt_ms(x):
    if x is None:
        return "-"
    return f"{x:.3f}" if x >= 0.1 else f"{x * 1000:.1f}us"


def fmt_t(ms):
    return f"{ms:.3f} ms" if ms >= 0.1 else f"{ms * 1000:.2f} us"


def markdown(result):
    c = result["ceilings"]
    v = result["versions"]
    lines = [
        f"Chamfer distance (pytorch3d semantics: squared L2, mean over points, both directions summed), d={DIM}, "
        f"{result['dtype']}, on {result['device']} (python {v['python']}, torch {v['torch']}, triton {v['triton']}, "
        f"flash_maxsim {v.get('flash_maxsim') or 'absent'}, hsr {v.get('hsr') or '?'}).",
    ]
    if isinstance(c.get("sgemm"), dict) and isinstance(c.get("copy"), dict):
        lines.append(f"Ceilings measured in this run: fp32 SGEMM {c['sgemm']['tflops']:.1f} TFLOP/s "
                     f"({c['sgemm']['tflops'] / 2:.1f} T FP32 instructions/s), copy {c['copy']['tb_per_s']:.2f} TB/s.")
    lines += [
        f"Floor: {2 * INSTR_PER_PAIR_DIRECTION} FP32 instructions per pair of points (3 FMA + 1 min, each "
        "direction) at the SGEMM rate, or the bytes at the copy rate, whichever is larger.",
        "ms: do_bench median; GiB: peak beyond the inputs; x: the variant's time over hsr's (auto) in the same "
        "pass; rel err: loss and gradients vs float64. H200 anchor: the brief's timing on an H200.",
        "",
        "| shape | pass | variant | ms | GiB | x hsr | % of floor | rel err loss | rel err grad x / y "
        "| H200 anchor | status |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in result["shapes"]:
        for mode in ("forward", "fwd_bwd"):
            recs = s.get(mode, {})
            base = recs.get("hsr" if mode == "forward" else "hsr_auto", {}).get("ms")
            limit = (s.get("floors") or {}).get(mode, {}).get("limit_ms")
            for name, r in recs.items():
                ok = r.get("status") == "ok"
                ms = r.get("ms") if ok else None
                x = f"{ms / base:.2f}x" if ok and base and not name.startswith("hsr") else "-"
                frac = f"{100 * limit / ms:.0f}%" if ok and limit and name.startswith("hsr") else "-"
                gx, gy = r.get("rel_err_grad_x"), r.get("rel_err_grad_y")
                anchor = ANCHORS_H200_MS.get((s["name"], mode, name))
                flag = " FLAG" if any(f.startswith(f"{mode} {name}:") for f in s.get("flags", [])) else ""
                lines.append("| " + " | ".join([
                    f"{s['name']} ({s['N']}x{s['M']})", mode.replace("_", "+"), name, fmt_ms(ms),
                    f"{r['peak_gib']:.3f}" if ok else "-", x, frac,
                    (f"{r['rel_err_loss']:.1e}" if ok else "-") + flag,
                    f"{gx:.1e} / {gy:.1e}" if gx is not None else "-",
                    fmt_ms(anchor) if anchor else "-", r.get("status", "-").split(":")[0],
                ]) + " |")
    lines.append("")
    for s in result["shapes"]:
        f = s.get("floors")
        if f:
            lines.append(f"Floors at {s['name']}: pair work {fmt_t(f['compute_ms'])}, forward bytes "
                         f"{fmt_t(f['forward']['memory_ms'])}, forward+backward bytes "
                         f"{fmt_t(f['fwd_bwd']['memory_ms'])}.  ")
    if result["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in result["notes"]]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- main

def main(argv=None):
    args = parse_args(argv)
    if args.plan:
        print_plan(args)
        return 0
    import torch
    import triton

    if not torch.cuda.is_available():
        print("chamfer: no CUDA device; nothing to time (use --plan to see the shapes)", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    bench = Bench(args)
    chamfer_distance = load_hsr()
    peers, fm_ver = ({}, None) if args.no_peers else load_peers()
    try:
        import hsr
        hsr_ver = getattr(hsr, "__version__", "?")
    except Exception:  # noqa: BLE001
        hsr_ver = None

    props = torch.cuda.get_device_properties(0)
    result = {
        "device": torch.cuda.get_device_name(0), "sm_count": props.multi_processor_count,
        "memory_bytes": props.total_memory,
        "versions": {"python": platform.python_version(), "torch": torch.__version__, "triton": triton.__version__,
                     "cuda": torch.version.cuda, "flash_maxsim": fm_ver, "hsr": hsr_ver},
        "dtype": args.dtype, "quick": args.quick, "d": DIM,
        "loss": "pytorch3d chamfer_distance without normals: squared L2, mean over the points of each cloud, "
                "both directions summed, mean over the batch",
        "inputs": "points uniform in [-1, 1)^3 (torch.rand * 2 - 1, fixed seed), cast to the dtype; the fp64 "
                  "reference uses the cast values",
        "timing": f"triton.testing.do_bench median (L2 flushed before each run), warmup {bench.warmup_ms} ms, "
                  f"rep {bench.rep_ms} ms, {bench.repeats} timing(s) per variant, median of those; "
                  f"fwd+bwd: grads reset to None before each run",
        "memory": "torch.cuda.max_memory_allocated during one call minus what was allocated before it (GiB)",
        "tolerances": {"loss": LOSS_TOL, "grads": GRAD_TOL},
        "anchors_h200_ms": {" ".join(k): v for k, v in ANCHORS_H200_MS.items()},
        "variants": {}, "ceilings": {}, "shapes": [], "notes": bench.notes,
    }
    json_path = os.path.join(args.out, "chamfer.json")
    md_path = os.path.join(args.out, "chamfer.md")

    def save():
        """Write what is known so far (a run cut off by a time limit still leaves results)."""
        with open(json_path, "w") as f:
            json.dump(result, f, indent=2, default=str)
        with open(md_path, "w") as f:
            f.write(markdown(result))

    print(f"device: {result['device']} ({result['sm_count']} SMs); python {platform.python_version()}, "
          f"torch {torch.__version__}, triton {triton.__version__}, flash_maxsim {fm_ver}, hsr {hsr_ver}", flush=True)

    # 1. ceilings
    sg, st = bench.guarded("SGEMM ceiling", bench.sgemm_ceiling)
    cp, st2 = bench.guarded("copy ceiling", bench.copy_ceiling)
    result["ceilings"] = {"sgemm": sg or st, "copy": cp or st2}
    if sg:
        print(f"SGEMM: {sg['tflops']:.1f} TFLOP/s ({sg['what']})")
    if cp:
        print(f"copy:  {cp['tb_per_s']:.3f} TB/s", flush=True)
    save()

    # 2. variants: forward (called under no_grad) and training step (loss.backward())
    rows_fit = lambda m: max(1, int(args.cdist_gib * 2**30 // (3 * m * 4)))  # cdist result, its square, one temp
    fwd_variants = {"hsr": lambda x, y: _scalar(chamfer_distance(x, y))}
    train_variants = {f"hsr_{mode}": (lambda x, y, _m=mode: _scalar(chamfer_distance(x, y, backward=_m)))
                      for mode in ("auto", "atomic", "deterministic")}
    desc = {"hsr": "hsr.ops.chamfer_distance(x, y) under no_grad"}
    desc.update({k: f"hsr.ops.chamfer_distance(x, y, backward={k[4:]!r}), loss.backward()" for k in train_variants})
    for name, (f, t, d) in peers.items():
        if f is not None:
            fwd_variants[name] = f
        if t is not None:
            train_variants[name] = t
        desc[name] = d
    fwd_variants["cdist"] = None  # bound per shape (block size)
    train_variants["cdist"] = None
    desc["cdist"] = (f"torch.cdist(x.float(), y.float()).pow(2) in blocks of rows of x (at most {args.cdist_gib:g} "
                     f"GiB of distances each; checkpointed under autograd when several), row min and column min, "
                     f"mean, sum")
    result["variants"] = desc
    for k, v in desc.items():
        print(f"variant {k}: {v}")
    save()

    for si, (sname, batch, n, m) in enumerate(args.shape_list):
        if bench.over_budget(f"shape {sname}"):
            break
        cost = shape_cost(batch, n, m, args.dtype)
        rec = {"name": sname, "batch": batch, "N": n, "M": m, "d": DIM, **cost, "floors": None,
               "cdist_rows_per_block": min(n, rows_fit(m)), "forward": {}, "fwd_bwd": {}, "flags": []}
        if sg and cp:
            rec["floors"] = floors(cost, sg["tflops"], cp["tb_per_s"])
        result["shapes"].append(rec)
        rows = rec["cdist_rows_per_block"]
        print(f"\n== {sname}: batch {batch}, N = {n}, M = {m}", flush=True)
        if rows < n:
            msg = (f"{sname}: cdist in {math.ceil(n / rows)} blocks of {rows} rows of x "
                   f"({n * m * 4 / 1e9:.1f} GB of fp32 distances per cloud pair in all)")
            print("  " + msg)
            bench.notes.append(msg)

        def make_inputs():
            g = torch.Generator(device=DEVICE).manual_seed(2000 + si)
            x = (torch.rand(batch, n, DIM, device=DEVICE, generator=g) * 2 - 1).to(bench.dtype)
            y = (torch.rand(batch, m, DIM, device=DEVICE, generator=g) * 2 - 1).to(bench.dtype)
            return x, y

        made, st = bench.guarded(f"inputs at {sname}", make_inputs)
        ref, st_ref = (None, st) if made is None else bench.guarded(f"fp64 reference at {sname}",
                                                                    lambda: reference64(torch, *made))
        if ref is None:
            for mode, names in (("forward", fwd_variants), ("fwd_bwd", train_variants)):
                rec[mode] = {k: {"status": f"no reference: {st_ref}"} for k in names}
            save()
            continue
        x0, y0 = made
        ref_loss, ref_gx, ref_gy = ref
        rec["ref_loss"] = ref_loss
        print(f"  fp64 reference loss {ref_loss:.6e}", flush=True)

        def flag(mode, name, r):
            for key, tol in (("rel_err_loss", LOSS_TOL), ("rel_err_grad_x", GRAD_TOL), ("rel_err_grad_y", GRAD_TOL)):
                e = r.get(key)
                if e is not None and not (e <= tol):  # NaN fails too
                    msg = f"{mode} {name}: {key} {e:.3e} > {tol:g}"
                    rec["flags"].append(msg)
                    print(f"  MISMATCH {sname} {msg}", flush=True)

        # (a) forward
        for name, fn in fwd_variants.items():
            if name == "cdist":
                fn = lambda x, y: cdist_chamfer(torch, x, y, rows)
            r = bench.measure(f"{sname} forward {name}", lambda fn=fn: fn(x0, y0),
                              lambda out: {"rel_err_loss": rel(_scalar(out).item(), ref_loss)}, no_grad=True)
            rec["forward"][name] = r
            if r["status"] == "ok":
                flag("forward", name, r)
            save()

        # (b) forward + backward
        for name, fn in train_variants.items():
            if name == "cdist":
                fn = lambda x, y: cdist_chamfer(torch, x, y, rows)
            x = x0.detach().clone().requires_grad_()
            y = y0.detach().clone().requires_grad_()

            def step(fn=fn, x=x, y=y):
                loss = _scalar(fn(x, y))
                loss.backward()
                return loss.detach()

            def check(loss, x=x, y=y):
                if x.grad is None or y.grad is None:
                    raise RuntimeError("no gradient reached x or y")
                return {"rel_err_loss": rel(loss.item(), ref_loss), "rel_err_grad_x": rel(x.grad, ref_gx),
                        "rel_err_grad_y": rel(y.grad, ref_gy)}

            r = bench.measure(f"{sname} fwd+bwd {name}", step, check, grad_to_none=[x, y])
            rec["fwd_bwd"][name] = r
            if r["status"] == "ok":
                flag("fwd_bwd", name, r)
            del x, y
            save()
        del made, ref, x0, y0, ref_gx, ref_gy
        torch.cuda.empty_cache()

    result["elapsed_s"] = bench.elapsed()
    save()
    table = markdown(result)
    flags = [f"{s['name']} {f}" for s in result["shapes"] for f in s["flags"]]
    failed = [f"{s['name']} {mode} {k}: {r['status']}" for s in result["shapes"] for mode in ("forward", "fwd_bwd")
              for k, r in s[mode].items() if r.get("status", "ok") not in ("ok", "skipped (budget)")]
    print(f"\nwrote {json_path} and {md_path} ({result['elapsed_s']:.0f} s)")
    if failed:
        print("FAILED:\n  " + "\n  ".join(failed))
    if flags:
        print("MISMATCHES (vs float64):\n  " + "\n  ".join(flags))
    print()
    print(table, flush=True)
    hsr_bad = [f for f in flags + failed if " hsr" in f]
    return 1 if hsr_bad else 0


if __name__ == "__main__":
    sys.exit(main())
