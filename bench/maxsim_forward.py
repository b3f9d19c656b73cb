#!/usr/bin/env python3
"""MaxSim forward on the five reference shapes: hsr against eager PyTorch.

Run on the GPU machine from the repository root:

    python3 bench/maxsim_forward.py --out DIR [--dtype fp16|bf16|fp32] [--quick] [--table off-grid [--big]]

In one run it

1. measures the machine's two ceilings: a large matrix product (TFLOP/s, in
   the benchmark's dtype, random data) and a large device-to-device copy
   (TB/s, counting bytes read plus bytes written);
2. times, for each shape (Nq=1 query, B=1000 documents, d=128), the hsr
   forward ``maxsim(Q, D)`` under ``torch.no_grad``, the eager einsum in the
   input dtype, an eager baseline with fp32 accumulation and fp32
   intermediates, and the optional peers flash_maxsim and
   late_interaction_kernels where they import;
3. checks every result against a float64 reference (and hsr against the fp32
   baseline), flagging a relative error above 1e-2;
4. writes maxsim_forward.json and maxsim_forward.md into --out and prints the
   table last.

Timings are medians of ``triton.testing.do_bench`` (which flushes L2 before
every timed run), after a warm-up call so that autotuning and compilation stay
out of them. Inputs are L2-normalised random tokens, as ColBERT and ColPali
produce; shapes whose inputs could sit in L2 rotate among several input sets.
The physical limit of a shape is max(FLOPs / matmul rate, bytes / copy rate)
with FLOPs = 2 Nq B Lq Ld d and bytes = (Nq Lq + B Ld) d elem + 4 Nq B.

``--table off-grid`` times, the same way, hsr, eager and the peers on shapes
off that grid (``OFF_GRID``): other widths d, LateOn's long documents, and 64
queries against 10000 documents of 150 to 300 tokens padded to 300 with a
document mask (``--big``: 200000 of them). The padded tokens count in the
floor, and the mask's bytes (one a token) in its bytes; writes
maxsim_forward_off_grid.{json,md}. ``--dry`` builds each row's inputs at tiny
sizes on the CPU and checks hsr (its float64 evaluator there) and eager against
the float64 reference.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time

NQ, B, DIM = 1, 1000, 128
SHAPES = (  # name, Lq, Ld
    ("textual", 32, 300),
    ("long-doc", 32, 1024),
    ("medium", 128, 1024),
    ("visual", 512, 1024),
    ("colpali", 1024, 1024),
)
DTYPE_NAMES = ("fp16", "bf16", "fp32")
ELEM_BYTES = {"fp16": 2, "bf16": 2, "fp32": 4}
FLAG_REL_ERR = 1e-2
DEVICE = "cuda"
MATMUL_N = 8192  # the matmul ceiling's size
SWEEP_LQ = SWEEP_LD = 1024  # the corpus sweep's shape (ColPali)
COPY_NUMEL = 1 << 28  # the copy ceiling's fp32 elements (1 GiB)
CHUNK_NUMEL = 1 << 28  # fp32 elements of random tokens drawn at once
LONG_DOCS = {f"long-{nq}x{nd}x{ld // 1024}k": (nq, nd, 32, ld)  # LateOn's published shapes: Nq, Nd, Lq, Ld
             for nq, nd, ld in ((8, 16, 2048), (16, 32, 4096), (8, 16, 8192), (1, 256, 8192), (1, 32, 16384))}
OFF_GRID = (  # name, Nq, Nd, Lq, Ld, d, ragged (lengths in [Ld / 2, Ld], padded to Ld, a document mask)
    ("wide-768", 1, 1000, 32, 512, 768, False),
    ("narrow-96", 1, 1000, 128, 1024, 96, False),
    ("wide-256", 1, 1000, 32, 300, 256, False),
    *((name, nq, nd, lq, ld, DIM, False) for name, (nq, nd, lq, ld) in LONG_DOCS.items()),
    ("ragged-64x10k", 64, 10000, 32, 300, DIM, True),
)
BIG = ("ragged-64x200k", 64, 200000, 32, 300, DIM, True)  # behind --big: 14.3 GiB of padded documents


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results",
                   help="directory for maxsim_forward[_off_grid].{json,md} (default: %(default)s)")
    p.add_argument("--dtype", default="fp16", choices=DTYPE_NAMES, help="input dtype (default: %(default)s)")
    p.add_argument("--quick", action="store_true", help="shorter timing windows, one timing per variant")
    p.add_argument("--table", default="grid", choices=("grid", "off-grid"),
                   help="grid: the five reference shapes; off-grid: other widths, long documents, batched ragged "
                        "queries (default: %(default)s)")
    p.add_argument("--shapes", help="comma-separated subset of the table's rows (default: all): "
                                    + ", ".join(s[0] for s in SHAPES + OFF_GRID + (BIG,)))
    p.add_argument("--big", action="store_true", help=f"off-grid: also {BIG[0]} (needs its documents' memory free)")
    p.add_argument("--dry", action="store_true", help="build each row's inputs at tiny sizes on the CPU, check hsr "
                                                      "and eager against the float64 reference, and exit")
    p.add_argument("--no-peers", action="store_true", help="skip flash_maxsim and late_interaction_kernels")
    p.add_argument("--budget-s", type=float, default=float(os.environ.get("HSR_BENCH_BUDGET_S", "330")),
                   help="wall-clock budget; work left when it runs out is skipped and noted (default: %(default)s)")
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile baseline (it compiles per shape)")
    p.add_argument("--sweep", action="store_true",
                   help="also the corpus sweep at the ColPali shape (Lq = Ld = 1024): time and peak memory per B")
    p.add_argument("--sweep-b", default="1000,2000,5000,10000,20000", help="the sweep's corpus sizes (default: %(default)s)")
    p.add_argument("--eager-gib", type=float, default=40.0,
                   help="in the sweep and off-grid, skip eager where its scores would pass this many GiB "
                        "(default: %(default)s)")
    p.add_argument("--plan", action="store_true", help="print the shapes, FLOPs and bytes, and exit (no GPU needed)")
    args = p.parse_args(argv)
    try:
        args.sweep_sizes = [int(x) for x in args.sweep_b.split(",") if x.strip()]
    except ValueError:
        p.error(f"--sweep-b takes comma-separated integers, got {args.sweep_b!r}")
    rows = [(n, NQ, B, lq, ld, DIM, False) for n, lq, ld in SHAPES] if args.table == "grid" else \
        [*OFF_GRID, *((BIG,) if args.big else ())]
    names = [s.strip() for s in (args.shapes or ",".join(r[0] for r in rows)).split(",") if s.strip()]
    bad = [n for n in names if n not in {r[0] for r in rows}]
    if bad:
        p.error(f"unknown shape(s) {', '.join(bad)} in the {args.table} table; choose from "
                f"{', '.join(r[0] for r in rows)}")
    args.shape_list = [r for r in rows if r[0] in names]  # name, Nq, Nd, Lq, Ld, d, ragged
    return args


def shape_cost(lq, ld, dtype_name, nq=None, b=None, d=None, ragged=False):
    """(FLOPs, bytes) of one forward: every input read once (a document mask one byte a
    token), the fp32 output written once; padded tokens count in both."""
    nq, b, d = nq or NQ, b or B, d or DIM
    flops = 2 * nq * b * lq * ld * d
    nbytes = (nq * lq + b * ld) * d * ELEM_BYTES[dtype_name] + nq * b * 4 + (b * ld if ragged else 0)
    return flops, nbytes


def print_plan(args):
    print(f"{args.table} table, dtype={args.dtype}; ragged: lengths in [Ld / 2, Ld], padded to Ld, masked")
    print(f"{'shape':16s} {'Nq':>4s} {'Nd':>7s} {'Lq':>5s} {'Ld':>6s} {'d':>4s} {'GFLOP':>9s} {'MB':>9s} "
          f"{'FLOP/byte':>10s} {'eager GiB':>10s}")
    for name, nq, nd, lq, ld, d, ragged in args.shape_list:
        f, b = shape_cost(lq, ld, args.dtype, nq, nd, d, ragged)
        print(f"{name:16s} {nq:4d} {nd:7d} {lq:5d} {ld:6d} {d:4d} {f / 1e9:9.2f} "
              f"{b / 1e6:9.1f} {f / b:10.1f} {eager_scores_gib(nd, args.dtype, nq, lq, ld):10.2f}")
    if args.sweep:
        print(f"sweep at the ColPali shape ({SWEEP_LQ} x {SWEEP_LD}), eager skipped past {args.eager_gib:g} GiB of scores:")
        print(f"{'B':>7s} {'GFLOP':>9s} {'input MB':>9s} {'eager scores GiB':>17s}")
        for b in args.sweep_sizes:
            f, nbytes = shape_cost(SWEEP_LQ, SWEEP_LD, args.dtype, b=b)
            print(f"{b:7d} {f / 1e9:9.1f} {nbytes / 1e6:9.1f} {eager_scores_gib(b, args.dtype):17.1f}")


def eager_scores_gib(b, dtype_name, nq=NQ, lq=SWEEP_LQ, ld=SWEEP_LD):
    """The [Nq, B, Lq, Ld] score tensor eager einsum materialises (default: the sweep's shape)."""
    return nq * b * lq * ld * ELEM_BYTES[dtype_name] / 2**30


def skip_reason(name, args, D, nq, lq):
    """Why a variant is not run on documents D, or None: eager's scores past --eager-gib, and
    late_interaction_kernels at 2^31 elements of D or more, where its kernel met an illegal
    memory access (B = 20000 at the ColPali shape, results/h100-forward-2026-11-24-first-sweep),
    which ends the process's CUDA context: every later number lost."""
    gib = eager_scores_gib(D.shape[0], args.dtype, nq, lq, D.shape[1])
    if name == "eager" and gib > args.eager_gib:
        return f"scores {gib:.0f} GiB > --eager-gib"
    if name == "late_interaction_kernels" and D.numel() >= 2**31:
        return "D has 2^31 elements or more: an illegal memory access there"
    return None


# --------------------------------------------------------------------------- GPU part

class Bench:
    def __init__(self, args, device=DEVICE):
        import torch
        import triton
        import triton.testing

        self.torch, self.triton = torch, triton
        self.args, self.device = args, device
        self.t0 = time.monotonic()
        self.dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[args.dtype]
        self.warmup_ms, self.rep_ms = (10, 30) if args.quick else (25, 150)
        self.repeats = 1 if args.quick else 2
        self.notes = []
        self.process_warm = False
        # fp32 inputs: hsr uses an IEEE dot, so the eager fp32 baselines and the fp32
        # matmul ceiling are measured without tf32 too.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    # ---- utilities

    def elapsed(self):
        return time.monotonic() - self.t0

    def over_budget(self, what):
        if self.elapsed() > self.args.budget_s:
            msg = f"skipped {what}: past the {self.args.budget_s:.0f} s budget"
            print("  " + msg, flush=True)
            self.notes.append(msg)
            return True
        return False

    def time_fn(self, fn):
        """Median ms over `repeats` do_bench calls (each itself a median); all runs kept."""
        torch = self.torch
        fn()  # warm-up: compilation and autotuning happen here
        fn()
        torch.cuda.synchronize()
        # The process's first timing read 1.7-2.3x slow twice (results/h100-forward-2026-11-24-lean-blocks,
        # h100-forward-2026-11-24): discarded.
        if not self.process_warm:
            self.triton.testing.do_bench(fn, warmup=self.warmup_ms, rep=self.rep_ms, return_mode="median")
            self.process_warm = True
        runs = [self.triton.testing.do_bench(fn, warmup=self.warmup_ms, rep=self.rep_ms, return_mode="median")
                for _ in range(self.repeats)]
        return statistics.median(runs), runs

    def guarded(self, label, thunk):
        """Run thunk(); OOM and other errors become a status string instead of a crash."""
        torch = self.torch
        try:
            return thunk(), "ok"
        except torch.cuda.OutOfMemoryError:
            status = "OOM"
        except RuntimeError as e:  # older OOM spellings, cuBLAS allocation failures
            status = "OOM" if "out of memory" in str(e).lower() else _error(e)
        except Exception as e:  # noqa: BLE001 - a baseline's failure must not end the run
            status = _error(e)
        print(f"  {label}: {status}", flush=True)
        try:
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        except Exception as e:  # noqa: BLE001 - a broken context shows in the next call too
            print(f"  after {label}: {type(e).__name__}: {str(e)[:200]}", flush=True)
        return None, status

    # ---- ceilings

    def matmul_ceiling(self):
        torch = self.torch
        n = MATMUL_N
        g = torch.Generator(device=DEVICE).manual_seed(1)
        a = torch.randn(n, n, device=DEVICE, dtype=self.dtype, generator=g)
        b = torch.randn(n, n, device=DEVICE, dtype=self.dtype, generator=g)
        out = torch.empty(n, n, device=DEVICE, dtype=self.dtype)
        ms, runs = self.time_fn(lambda: torch.mm(a, b, out=out))
        runs = runs + [self.triton.testing.do_bench(lambda: torch.mm(a, b, out=out), warmup=self.warmup_ms,
                                                    rep=self.rep_ms, return_mode="median")]
        ms = statistics.median(runs)
        del a, b, out
        torch.cuda.empty_cache()
        tflops = 2 * n ** 3 / (ms * 1e-3) / 1e12
        what = f"torch.mm {n}x{n}x{n} {self.args.dtype}" + (" (IEEE, tf32 off)" if self.args.dtype == "fp32" else "")
        return {"what": what, "n": n, "ms": ms, "runs_ms": runs, "tflops": tflops}

    def copy_ceiling(self):
        torch = self.torch
        numel = COPY_NUMEL
        src = torch.randn(numel, device=DEVICE, dtype=torch.float32)
        dst = torch.empty_like(src)
        ms, runs = self.time_fn(lambda: dst.copy_(src))
        runs = runs + [self.triton.testing.do_bench(lambda: dst.copy_(src), warmup=self.warmup_ms,
                                                    rep=self.rep_ms, return_mode="median")]
        ms = statistics.median(runs)
        ok = torch.equal(dst[:1024], src[:1024]) and torch.equal(dst[-1024:], src[-1024:])
        moved = 2 * src.numel() * src.element_size()
        del src, dst
        torch.cuda.empty_cache()
        return {"what": f"Tensor.copy_ of {numel * 4 / 2**30:g} GiB, device to device", "bytes_moved": moved, "ms": ms,
                "runs_ms": runs, "tb_per_s": moved / (ms * 1e-3) / 1e12, "checked": bool(ok)}

    # ---- inputs and references

    def inputs(self, lq, ld, n_sets, seed, b=B, nq=NQ, d=DIM):
        """n_sets of (Q, D); D drawn in chunks of CHUNK_NUMEL fp32 elements, so that its fp32
        draw never doubles a large corpus's memory."""
        torch, dev = self.torch, self.device
        g = torch.Generator(device=dev).manual_seed(seed)
        step = max(1, CHUNK_NUMEL // (ld * d))
        sets = []
        for _ in range(n_sets):
            q = torch.nn.functional.normalize(torch.randn(nq, lq, d, device=dev, generator=g), dim=-1)
            docs = torch.empty(b, ld, d, device=dev, dtype=self.dtype)
            for lo in range(0, b, step):
                x = torch.randn(min(step, b - lo), ld, d, device=dev, generator=g)
                docs[lo:lo + step] = torch.nn.functional.normalize(x, dim=-1, out=x)
                del x
            sets.append((q.to(self.dtype), docs))
            del q, docs
        return sets

    def row_inputs(self, row, n_sets, seed):
        """A row's input sets; a ragged row's also carry its document mask [Nd, Ld] and
        lengths [Nd] (int32), lengths drawn in [Ld / 2, Ld] from the row's seed."""
        torch = self.torch
        _, nq, nd, lq, ld, d, ragged = row
        sets = self.inputs(lq, ld, n_sets, seed, b=nd, nq=nq, d=d)
        if not ragged:
            return sets
        lengths = torch.randint(ld // 2, ld + 1, (nd,), generator=torch.Generator().manual_seed(seed))
        mask = (torch.arange(ld)[None] < lengths[:, None]).to(self.device)
        return [(q, docs, mask, lengths.to(self.device, torch.int32)) for q, docs in sets]

    def memory_short(self, row):
        """Why a row's inputs cannot be made in the free device memory, or None: its documents,
        their mask, and 2 GiB for the fp32 draw and the float64 reference's chunk."""
        _, nq, nd, lq, ld, d, ragged = row
        need = nd * ld * (d * ELEM_BYTES[self.args.dtype] + ragged) + (2 << 30)
        free = self.torch.cuda.mem_get_info()[0]
        return f"needs {need / 2**30:.1f} GiB, {free / 2**30:.1f} GiB free" if need > free else None

    def n_sets_for(self, nbytes):
        """Rotate among several input sets when the inputs could sit in L2."""
        l2 = getattr(self.torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20) or (50 << 20)
        if nbytes >= 2 * l2:
            return 1
        return max(2, min(8, math.ceil(4 * l2 / nbytes)))

    def reference64(self, Q, D, d_mask=None, lengths=None):
        """float64 scores [Nq, B], in document chunks of at most ~1 GiB of scores; masked
        document tokens leave the max."""
        torch = self.torch
        nq, lq, _ = Q.shape
        b, ld, _ = D.shape
        chunk = max(1, (1 << 30) // (nq * lq * ld * 8))
        q64 = Q.double()
        out = torch.empty(nq, b, dtype=torch.float64, device=Q.device)
        for lo in range(0, b, chunk):
            s = torch.einsum("qsd,ntd->qnst", q64, D[lo:lo + chunk].double())
            if d_mask is not None:
                s.masked_fill_(~d_mask[None, lo:lo + chunk, None, :], float("-inf"))
            out[:, lo:lo + chunk] = s.amax(-1).sum(-1)
            del s
        return out

    @staticmethod
    def rel_err(out, ref):
        out = out.double().reshape(ref.shape)
        if not bool(out.isfinite().all()):
            return float("nan")
        return ((out - ref).norm() / ref.norm()).item()


def _error(e):
    return f"error: {type(e).__name__}: {' '.join(str(e).split())[:300]}"


def fp32_baseline(torch, dtype):
    """The eager fp32-accumulate baseline: (callable, description).

    Preferred: torch.mm with out_dtype=float32 on the low-precision operands
    (tensor cores, fp32 accumulation, fp32 scores), the same operand
    precision as hsr. Where that overload is missing: einsum on fp32-cast
    inputs with tf32 off (IEEE fp32, slower)."""

    def mm_out_fp32(Q, D):
        nq, lq, d = Q.shape
        b, ld, _ = D.shape
        s = torch.mm(Q.reshape(nq * lq, d), D.reshape(b * ld, d).t(), out_dtype=torch.float32)
        return s.view(nq, lq, b, ld).amax(-1).sum(1)

    def einsum_fp32(Q, D):
        return torch.einsum("qsd,ntd->qnst", Q.float(), D.float()).amax(-1).sum(-1)

    if dtype == torch.float32:
        return einsum_fp32, "einsum on fp32 inputs (IEEE fp32, tf32 off): fp32 [Nq,B,Lq,Ld] scores, then max, sum"
    try:
        q = torch.randn(1, 4, 16, device=DEVICE, dtype=dtype)
        d = torch.randn(3, 5, 16, device=DEVICE, dtype=dtype)
        got = mm_out_fp32(q, d)
        want = einsum_fp32(q, d)
        if got.dtype == torch.float32 and torch.allclose(got, want, rtol=1e-3, atol=1e-3):
            return mm_out_fp32, ("torch.mm(..., out_dtype=float32) on the low-precision operands (tensor cores, "
                                 "fp32 accumulate), fp32 [Nq,Lq,B,Ld] scores, then amax, sum")
    except Exception as e:  # noqa: BLE001
        print(f"torch.mm out_dtype=float32 unavailable ({type(e).__name__}); fp32 baseline is einsum on fp32 inputs")
    return einsum_fp32, "einsum on fp32-cast inputs (IEEE fp32, tf32 off): fp32 scores, then max, sum"


def hsr_and_eager(torch, maxsim, dtype_name):
    """hsr's public call and the eager baseline in the input dtype, both taking a ragged row's mask:
    {name: (callable(Q, D, d_mask=None, lengths=None) -> [Nq, B], description)}."""
    def eager(Q, D, d_mask=None, lengths=None):
        s = torch.einsum("qsd,ntd->qnst", Q, D)
        if d_mask is not None:
            s.masked_fill_(~d_mask[None, :, None, :], float("-inf"))
        return s.max(-1).values.sum(-1)

    return {"hsr": (lambda Q, D, d_mask=None, lengths=None: maxsim(Q, D, d_mask=d_mask),
                    "hsr.ops.maxsim(Q, D, d_mask=), generated Triton kernel, fp32 accumulate"),
            "eager": (eager, f"torch.einsum('qsd,ntd->qnst', Q, D).max(-1).values.sum(-1) in {dtype_name} "
                             "(masked document tokens filled with -inf first)")}


def load_peers(torch):
    """Optional peer libraries: {name: (callable(Q, D, d_mask=None, lengths=None) -> [Nq, B],
    description)}; flash_maxsim takes a ragged row's lengths, late_interaction_kernels its mask."""
    peers = {}
    try:
        import flash_maxsim as fm
    except Exception as e:  # noqa: BLE001
        print(f"peer flash_maxsim not available ({type(e).__name__}: {e}); skipped")
    else:
        ver = getattr(fm, "__version__", "?")
        single = getattr(fm, "flash_maxsim", None)
        batched = getattr(fm, "flash_maxsim_batched", None)
        if callable(single):
            def run_fm(Q, D, d_mask=None, lengths=None, _f=single, _b=batched):
                if Q.shape[0] == 1 or not callable(_b):  # flash_maxsim(Q [Lq, d], D [B, Ld, d]) -> [B]
                    return torch.stack([_f(q, D, doc_lengths=lengths) for q in Q])
                return _b(Q, D, doc_lengths=lengths)
            peers["flash_maxsim"] = (run_fm, f"flash_maxsim {ver}: flash_maxsim(Q[Lq,d], D[B,Ld,d], doc_lengths=) "
                                             "-> [B], flash_maxsim_batched for Nq > 1")
        elif callable(batched):
            peers["flash_maxsim"] = (lambda Q, D, d_mask=None, lengths=None, _b=batched: _b(Q, D, doc_lengths=lengths),
                                     f"flash_maxsim {ver}: flash_maxsim_batched(Q, D, doc_lengths=) -> [Nq,B]")
        else:
            print("peer flash_maxsim imported but has no flash_maxsim/flash_maxsim_batched; skipped")
    try:
        import late_interaction_kernels as lik
    except Exception as e:  # noqa: BLE001
        print(f"peer late_interaction_kernels not available ({type(e).__name__}: {e}); skipped")
    else:
        ver = getattr(lik, "__version__", "?")
        fn = getattr(lik, "maxsim", None)
        if callable(fn):
            peers["late_interaction_kernels"] = (lambda Q, D, d_mask=None, lengths=None, _f=fn: _f(Q, D, d_mask=d_mask),
                                                 f"late_interaction_kernels {ver}: maxsim(Q[Nq,Lq,d], D[B,Ld,d], "
                                                 "d_mask=) -> [Nq,B]")
        else:
            print("peer late_interaction_kernels imported but has no maxsim; skipped")
    return peers


def fmt_ms(x):
    if x is None:
        return "-"
    return f"{x:.3f}" if x >= 0.1 else f"{x * 1000:.1f}us"


def ceilings_line(result):
    c = result["ceilings"]
    return (f"Ceilings measured in this run: matmul {c['matmul']['tflops']:.0f} TFLOP/s ({c['matmul']['what']}), "
            f"copy {c['copy']['tb_per_s']:.2f} TB/s (read + write).")


def markdown(result):
    lines = [
        f"MaxSim forward, Nq={NQ}, B={B}, d={DIM}, {result['dtype']}, on {result['device']} "
        f"(torch {result['versions']['torch']}, triton {result['versions']['triton']}).",
        ceilings_line(result),
        f"Eager: einsum in {result['dtype']}; fp32-acc: {result['baselines']['eager_fp32acc']}.",
        "",
    ]
    peer_names = [p for p in result["peers"]]
    compiled = "torch_compile" in result["baselines"]
    head = ["shape", "Lq x Ld", "limit (bound)", "hsr", "% of limit", "hsr graph", "hsr lean", "hsr general",
            "hsr train fwd",
            "eager", "x eager", "fp32-acc", "x fp32-acc"] + (["torch.compile", "x compile"] if compiled else [])
    head += [f"{p} (x)" for p in peer_names] + ["hsr rel err (vs fp64)"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for s in result["shapes"]:
        t, st = s["times_ms"], s["status"]

        def cell(name):
            if st.get(name) == "ok":
                return fmt_ms(t.get(name))
            return (st.get(name) or "-").split(":")[0]  # "error", "OOM", "skipped (budget)"; details in the JSON

        def ratio(name):
            r = s["speedup_vs_hsr"].get(name)
            return f"{r:.2f}x" if r else "-"

        frac = s.get("fraction_of_limit")
        err = s["rel_err_vs_fp64"].get("hsr")
        flag = " FLAG" if s.get("flags") else ""
        row = [s["name"], f"{s['Lq']} x {s['Ld']}", f"{fmt_ms(s['limit_ms'])} ({s['bound']})", cell("hsr"),
               f"{100 * frac:.0f}%" if frac else "-", cell("hsr_graph"), cell("hsr_lean"), cell("hsr_general"),
               cell("hsr_train_fwd"),
               cell("eager"), ratio("eager"), cell("eager_fp32acc"), ratio("eager_fp32acc")]
        row += [cell("torch_compile"), ratio("torch_compile")] if compiled else []
        row += [f"{cell(p)} ({ratio(p)})" for p in peer_names]
        row += [(f"{err:.1e}" if err is not None else "-") + flag]
        lines.append("| " + " | ".join(row) + " |")
    if result.get("sweep"):
        names = list(dict.fromkeys(n for r in result["sweep"] for n in r["status"]))
        lines += ["", f"Corpus sweep at the ColPali shape (Nq={NQ}, Lq = Ld = {SWEEP_LQ}, d={DIM}): "
                  "ms / peak GiB beyond the inputs (x: the other's time over hsr's).", ""]
        lines.append("| B | limit | " + " | ".join(names) + " |")
        lines.append("|" + "---|" * (len(names) + 2))
        for r in result["sweep"]:
            cells = []
            for n in names:
                if r["status"].get(n) != "ok":
                    cells.append((r["status"].get(n) or "-").split(":")[0])
                    continue
                x = r["times_ms"][n] / r["times_ms"]["hsr"] if n != "hsr" and r["times_ms"].get("hsr") else None
                cells.append(f"{fmt_ms(r['times_ms'][n])} / {r['peak_gib'][n]:.2f}" + (f" ({x:.2f}x)" if x else ""))
            lines.append(f"| {r['B']} | {fmt_ms(r['limit_ms'])} | " + " | ".join(cells) + " |")
    if result["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in result["notes"]]
    return "\n".join(lines) + "\n"


def markdown_off_grid(result):
    """The off-grid table: each variant's time, the share of the row's floor it reaches, its time over hsr's."""
    names = ["hsr", "eager", *result["peers"]]
    lines = [f"MaxSim forward off the grid, {result['dtype']}, under no_grad, on {result['device']} "
             f"(torch {result['versions']['torch']}, triton {result['versions']['triton']}).", ceilings_line(result),
             "Each cell: ms (% of the floor reached, and the time over hsr's); - (why): not run. Ragged rows: "
             "lengths in [Ld / 2, Ld] padded to Ld with a document mask (flash_maxsim gets the lengths); their "
             "floor counts the padded tokens.", "",
             "| row | Nq x Nd | Lq x Ld | d | floor (bound) | " + " | ".join(names) + " | hsr rel err (vs fp64) |",
             "|" + "---|" * (len(names) + 6)]
    for s in result["shapes"]:
        err = s["rel_err_vs_fp64"].get("hsr")
        lines.append(f"| {s['name']} | {s['Nq']} x {s['B']} | {s['Lq']} x {s['Ld']} | {s['d']} | "
                     f"{fmt_ms(s['limit_ms'])} ({s['bound']}) | " + " | ".join(off_grid_cell(s, n) for n in names)
                     + f" | {'-' if err is None else f'{err:.1e}'}{' FLAG' if s['flags'] else ''} |")
    if result["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in result["notes"]]
    return "\n".join(lines) + "\n"


def not_run(status):
    """The cell of a variant that did not run: - and why (the whole status is in the JSON)."""
    why = status or "not run"
    if why.startswith("skipped ("):
        why = why[len("skipped ("):].removesuffix(")")
    return f"- ({why.replace('|', '/')[:80]})"


def off_grid_cell(s, name):
    status = s["status"].get(name)
    if status != "ok":
        return not_run(status)
    t, hsr_ms = s["times_ms"][name], s["times_ms"].get("hsr")
    x = f", {t / hsr_ms:.2f}x" if hsr_ms and name != "hsr" else ""
    return f"{fmt_ms(t)} ({100 * s['limit_ms'] / t:.0f}%{x})"


def plot_sweep(result, path):
    """ms against B for each variant of the sweep, log-log, with the physical limit; False without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001 - the plot is optional; the table carries the numbers
        print(f"no plot ({type(e).__name__}: {e})")
        return False
    rows = result["sweep"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name in dict.fromkeys(n for r in rows for n in r["times_ms"]):
        pts = [(r["B"], r["times_ms"][name]) for r in rows if name in r["times_ms"]]
        ax.plot(*zip(*pts), marker="o", label=name)
    ax.plot([r["B"] for r in rows], [r["limit_ms"] for r in rows], "k--", label="physical limit")
    ax.set(xscale="log", yscale="log", xlabel="documents B", ylabel="ms",
           title=f"MaxSim forward, Lq = Ld = {SWEEP_LQ}, d = {DIM}, {result['dtype']}, {result['device']}")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def run_sweep(bench, result, fns, save):
    """The corpus sweep: for each B, every variant's time and peak memory beyond its inputs
    (one input set: at B >= 1000 the corpus is far past L2), checked against float64."""
    torch, args = bench.torch, bench.args
    mm, cp = result["ceilings"]["matmul"], result["ceilings"]["copy"]
    for bi, b in enumerate(args.sweep_sizes):
        if bench.over_budget(f"the sweep at B={b}"):
            break
        flops, nbytes = shape_cost(SWEEP_LQ, SWEEP_LD, args.dtype, b=b)
        rec = {"B": b, "flops": flops, "bytes": nbytes,
               "limit_ms": max(flops / (mm["tflops"] * 1e12), nbytes / (cp["tb_per_s"] * 1e12)) * 1e3,
               "times_ms": {}, "peak_gib": {}, "rel_err_vs_fp64": {}, "status": {}}
        result["sweep"].append(rec)
        made, st = bench.guarded(f"inputs at B={b}", lambda: bench.inputs(SWEEP_LQ, SWEEP_LD, 1, 5000 + bi, b=b))
        if made is None:
            rec["status"] = {n: f"inputs: {st}" for n in fns}
            continue
        (Q, D), = made
        ref64, _ = bench.guarded(f"fp64 reference at B={b}", lambda: bench.reference64(Q, D))
        for name, fn in fns.items():
            why = skip_reason(name, args, D, NQ, SWEEP_LQ)
            if why:
                rec["status"][name] = f"skipped ({why})"
                print(f"  sweep B={b:6d} {name}: {rec['status'][name]}", flush=True)
                continue
            if bench.over_budget(f"{name} at B={b}"):
                rec["status"][name] = "skipped (budget)"
                continue

            def go(fn=fn):
                with torch.no_grad():
                    ms, _ = bench.time_fn(lambda: fn(Q, D))
                    torch.cuda.synchronize()
                    torch.cuda.reset_peak_memory_stats()
                    base = torch.cuda.memory_allocated()
                    out = fn(Q, D)
                    torch.cuda.synchronize()
                    peak = (torch.cuda.max_memory_allocated() - base) / 2**30
                return ms, peak, (bench.rel_err(out, ref64) if ref64 is not None else None)

            r, rec["status"][name] = bench.guarded(f"{name} at B={b}", go)
            if r is not None:
                rec["times_ms"][name], rec["peak_gib"][name], rec["rel_err_vs_fp64"][name] = r
                print(f"  sweep B={b:6d} {name:26s} {r[0]:9.3f} ms  peak {r[1]:7.3f} GiB", flush=True)
            torch.cuda.empty_cache()
        del Q, D, made, ref64
        torch.cuda.empty_cache()
        save()


def tuned_configs():
    """The autotuner's choices so far for the in-batch MaxSim kernel, as text."""
    try:
        import hsr.autotune
        import hsr.generated.maxsim as generated
        return hsr.autotune.chosen(generated.score_fwd)
    except Exception as e:  # noqa: BLE001 - a report, not a requirement
        return {"error": repr(e)}


def dry_run(args):
    """Each row's inputs at tiny sizes (Nd / 500, Ld / 32) on the CPU, hsr (its float64 evaluator
    there) and eager against the float64 reference, and a ragged row's reference against its
    documents cut to their lengths: the row builders and the masks run without a GPU."""
    import torch
    from hsr.ops import maxsim

    bench, fns, bad = Bench(args, device="cpu"), hsr_and_eager(torch, maxsim, args.dtype), 0
    for si, (name, nq, nd, lq, ld, d, ragged) in enumerate(args.shape_list):
        row = (name, nq, max(2, nd // 500), lq, max(4, ld // 32), d, ragged)
        (inputs,) = bench.row_inputs(row, 1, 1000 + si)
        ref = bench.reference64(*inputs)
        errs = {k: bench.rel_err(fn(*inputs), ref) for k, (fn, _) in fns.items()}
        if ragged:
            q, docs, _, lengths = inputs
            errs["cut"] = bench.rel_err(torch.cat([bench.reference64(q, docs[j:j + 1, :n])
                                                   for j, n in enumerate(lengths.tolist())], 1), ref)
        bad += not max(errs.values()) <= FLAG_REL_ERR
        print(f"{name:16s} Nq, Nd, Lq, Ld, d = {row[1:6]}{' ragged' * ragged}: rel err vs fp64 "
              + ", ".join(f"{k} {v:.1e}" for k, v in errs.items()), flush=True)
    return 1 if bad else 0


def main(argv=None):
    args = parse_args(argv)
    if args.plan:
        print_plan(args)
        return 0
    if args.dry:
        return dry_run(args)
    import torch
    import triton

    if not torch.cuda.is_available():
        print("maxsim_forward: no CUDA device; nothing to time (use --plan to see the shapes)", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    from hsr.ops import maxsim

    bench = Bench(args)
    props = torch.cuda.get_device_properties(0)
    result = {
        "device": torch.cuda.get_device_name(0),
        "sm_count": props.multi_processor_count,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "memory_bytes": props.total_memory,
        "versions": {"torch": torch.__version__, "triton": triton.__version__, "python": platform.python_version(),
                     "cuda": torch.version.cuda},
        "table": args.table, "dtype": args.dtype, "quick": args.quick, "Nq": NQ, "B": B, "d": DIM,
        "inputs": "L2-normalised random normal tokens (torch.randn, then F.normalize), cast to the dtype",
        "timing": f"triton.testing.do_bench median (L2 flushed before each run), warmup {bench.warmup_ms} ms, "
                  f"rep {bench.rep_ms} ms, {bench.repeats} timing(s) per variant, median of those",
        "ceilings": {}, "baselines": {}, "peers": {}, "shapes": [], "notes": bench.notes,
    }
    stem = os.path.join(args.out, "maxsim_forward" + ("_off_grid" if args.table == "off-grid" else ""))
    json_path, md_path = stem + ".json", stem + ".md"
    render = markdown if args.table == "grid" else markdown_off_grid

    def save():
        """Write what is known so far (a run cut off by a time limit still leaves results)."""
        with open(json_path, "w") as f:
            json.dump(result, f, indent=2, default=str)
        if isinstance(result["ceilings"].get("copy"), dict) and result["baselines"]:
            with open(md_path, "w") as f:
                f.write(render(result))

    print(f"device: {result['device']} ({result['sm_count']} SMs, L2 {result['l2_bytes']} B); "
          f"torch {torch.__version__}, triton {triton.__version__}, python {platform.python_version()}", flush=True)

    # 1. ceilings
    mm, st = bench.guarded("matmul ceiling", bench.matmul_ceiling)
    cp, st2 = bench.guarded("copy ceiling", bench.copy_ceiling)
    if mm is None or cp is None:
        print("cannot measure the ceilings; stopping", file=sys.stderr)
        result["ceilings"] = {"matmul": st, "copy": st2}
        save()
        return 1
    result["ceilings"] = {"matmul": mm, "copy": cp}
    print(f"matmul: {mm['tflops']:.1f} TFLOP/s ({mm['what']}; runs {[round(x, 3) for x in mm['runs_ms']]} ms)")
    print(f"copy:   {cp['tb_per_s']:.3f} TB/s (runs {[round(x, 3) for x in cp['runs_ms']]} ms)", flush=True)
    save()

    # 2. variants
    fp32_fn, fp32_desc = fp32_baseline(torch, bench.dtype)
    def hsr_graph():
        """hsr replayed from a CUDA graph: the kernel's time without Python launch overhead."""
        graphs = {}

        def fn(Q, D):
            key = (Q.data_ptr(), D.data_ptr(), tuple(Q.shape), tuple(D.shape))
            if key not in graphs:
                if len(graphs) > 8:
                    graphs.clear()
                maxsim(Q, D)  # autotune outside the capture
                torch.cuda.synchronize()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    out = maxsim(Q, D)
                graphs[key] = (graph, out)
            graph, out = graphs[key]
            graph.replay()
            return out
        return fn

    def hsr_lean_rows(rows):
        """hsr with the lean forward's row threshold set (1: lean wherever it applies, 0: never)."""
        from hsr import dispatch

        def fn(Q, D):
            saved, dispatch.LEAN_MIN_ROWS = dispatch.LEAN_MIN_ROWS, rows
            try:
                return maxsim(Q, D)
            finally:
                dispatch.LEAN_MIN_ROWS = saved
        return fn

    def hsr_train_forward(Q, D):
        """The training forward: saves the int32 argmax for the backward."""
        with torch.enable_grad():
            return maxsim(Q.detach().requires_grad_(), D).detach()

    base = hsr_and_eager(torch, maxsim, args.dtype)
    variants = {
        "hsr": base["hsr"],
        "hsr_graph": (hsr_graph(), "hsr.ops.maxsim replayed from a CUDA graph (no host overhead)"),
        "hsr_lean": (hsr_lean_rows(1), "hsr.ops.maxsim with the lean forward at every row count"),
        "hsr_general": (hsr_lean_rows(0), "hsr.ops.maxsim with the general forward only (lean off)"),
        "hsr_train_fwd": (hsr_train_forward, "hsr.ops.maxsim forward with Q requiring grad (writes the argmax)"),
        "eager": base["eager"],
        "eager_fp32acc": (fp32_fn, fp32_desc),
    }
    if args.table == "off-grid":
        variants = base
    elif not args.no_compile:
        variants["torch_compile"] = (torch.compile(base["eager"][0], dynamic=False),
                                     "torch.compile (inductor, dynamic=False) of the eager einsum; compiled per shape "
                                     "in the untimed warm-up")
    result["baselines"] = {k: v[1] for k, v in variants.items()}
    peers = {} if args.no_peers else load_peers(torch)
    result["peers"] = {k: v[1] for k, v in peers.items()}
    for k, v in peers.items():
        print(f"peer {k}: {v[1]}")
    save()

    def run_shape_variants(rec, sets, ref64, fp32_out, names_fns):
        for name, fn in names_fns:
            why = skip_reason(name, args, sets[0][1], rec["Nq"], rec["Lq"])
            if why:
                rec["status"][name] = f"skipped ({why})"
                print(f"  {rec['name']:9s} {name:26s} - ({why})", flush=True)
                continue
            if bench.over_budget(f"{name} at {rec['name']}"):
                rec["status"][name] = "skipped (budget)"
                continue

            def go(fn=fn):
                out = fn(*sets[0])
                torch.cuda.synchronize()
                err = bench.rel_err(out, ref64)
                err_fp32 = bench.rel_err(out, fp32_out) if fp32_out is not None else None
                del out
                state = [0]

                def call():
                    i = state[0]
                    state[0] = (i + 1) % len(sets)
                    return fn(*sets[i])

                ms, runs = bench.time_fn(call)
                return ms, runs, err, err_fp32

            r, status = bench.guarded(f"{name} at {rec['name']}", go)
            rec["status"][name] = status
            if r is None:
                continue
            ms, runs, err, err_fp32 = r
            rec["times_ms"][name] = ms
            rec["runs_ms"][name] = runs
            rec["rel_err_vs_fp64"][name] = err
            if name == "hsr" and err_fp32 is not None:
                rec["rel_err_hsr_vs_fp32acc"] = err_fp32
            if not (err <= FLAG_REL_ERR):  # NaN fails the comparison too
                rec["flags"].append(f"{name}: rel err {err:.3e} vs fp64 > {FLAG_REL_ERR}")
            print(f"  {rec['name']:9s} {name:26s} {ms:9.4f} ms  {100 * rec['limit_ms'] / ms:3.0f}% of floor  "
                  f"rel err vs fp64 {err:.2e}"
                  + (f", vs fp32-acc {err_fp32:.2e}" if name == "hsr" and err_fp32 is not None else ""), flush=True)
            torch.cuda.empty_cache()

    def finish(rec):
        t = rec["times_ms"]
        hsr_ms = t.get("hsr")
        rec["speedup_vs_hsr"] = {k: (v / hsr_ms if hsr_ms else None) for k, v in t.items() if k != "hsr"}
        rec["fraction_of_limit"] = rec["limit_ms"] / hsr_ms if hsr_ms else None
        rec["fraction_of_floor"] = {k: rec["limit_ms"] / v for k, v in t.items()}
        e = rec.get("rel_err_hsr_vs_fp32acc")
        msg = f"hsr: rel err {e:.3e} vs fp32-acc > {FLAG_REL_ERR}" if e is not None else None
        if msg and not (e <= FLAG_REL_ERR) and msg not in rec["flags"]:
            rec["flags"].append(msg)

    for phase, names in (("core", list(variants)), ("peers", list(peers))):
        if not names:
            continue
        print(f"\n== {phase}: {', '.join(names)}", flush=True)
        for si, row in enumerate(args.shape_list):
            sname, nq, nd, lq, ld, d, ragged = row
            if bench.over_budget(f"{phase} at {sname}"):
                break
            flops, nbytes = shape_cost(lq, ld, args.dtype, nq, nd, d, ragged)
            short = bench.memory_short(row) if phase == "core" else None
            if short:
                bench.notes.append(f"skipped {sname}: {short}")
                print(f"  skipped {sname}: {short}", flush=True)
            elif phase == "core":
                t_c = flops / (mm["tflops"] * 1e12) * 1e3
                t_m = nbytes / (cp["tb_per_s"] * 1e12) * 1e3
                rec = {"name": sname, "Nq": nq, "B": nd, "Lq": lq, "Ld": ld, "d": d, "ragged": ragged,
                       "flops": flops, "bytes": nbytes,
                       "compute_ms": t_c, "memory_ms": t_m, "limit_ms": max(t_c, t_m),
                       "bound": "compute" if t_c >= t_m else "memory", "n_input_sets": bench.n_sets_for(nbytes),
                       "times_ms": {}, "runs_ms": {}, "status": {}, "rel_err_vs_fp64": {}, "flags": [],
                       "speedup_vs_hsr": {}, "fraction_of_limit": None}
                result["shapes"].append(rec)
            else:
                rec = next((r for r in result["shapes"] if r["name"] == sname), None)
            if short or rec is None:
                continue
            made, st = bench.guarded(f"inputs at {sname}",
                                     lambda: bench.row_inputs(row, rec["n_input_sets"], 1000 + si))
            if made is None:
                for name in names:
                    rec["status"][name] = f"inputs: {st}"
                continue
            sets = made
            ref64, _ = bench.guarded(f"fp64 reference at {sname}", lambda: bench.reference64(*sets[0]))
            if ref64 is None:
                for name in names:
                    rec["status"][name] = "no fp64 reference"
                continue
            fp32_out = None
            if phase == "core" and "eager_fp32acc" in variants:
                fp32_out, _ = bench.guarded(f"fp32-acc output at {sname}", lambda: fp32_fn(*sets[0]).double())
            with torch.no_grad():
                fns = [(n, variants[n][0]) for n in names] if phase == "core" else [(n, peers[n][0]) for n in names]
                run_shape_variants(rec, sets, ref64, fp32_out, fns)
            del sets, ref64, fp32_out
            torch.cuda.empty_cache()
            finish(rec)
            if phase == "core":
                rec["autotuned"] = tuned_configs()
            save()

    if args.sweep and args.table == "grid":
        print("\n== corpus sweep at the ColPali shape", flush=True)
        result["sweep"] = []
        run_sweep(bench, result, {"hsr": variants["hsr"][0], "eager": variants["eager"][0],
                                  **{k: v[0] for k, v in peers.items()}}, save)
        if result["sweep"] and plot_sweep(result, os.path.join(args.out, "maxsim_sweep.png")):
            print(f"wrote {os.path.join(args.out, 'maxsim_sweep.png')}")
    result["elapsed_s"] = bench.elapsed()
    save()
    table = render(result)
    with open(md_path, "w") as f:
        f.write(table)
    flags = [f"{s['name']}: {fl}" for s in result["shapes"] for fl in s["flags"]]
    print(f"\nwrote {json_path} and {md_path} ({result['elapsed_s']:.0f} s)")
    if flags:
        print("FLAGGED (rel err > 1e-2):\n  " + "\n  ".join(flags))
    print()
    print(table, flush=True)
    hsr_bad = [f for f in flags if ": hsr:" in f] + [
        f"{s['name']}: hsr {s['status'].get('hsr')}" for s in result["shapes"] if s["status"].get("hsr", "ok") != "ok"]
    return 1 if hsr_bad else 0


if __name__ == "__main__":
    sys.exit(main())
