#!/usr/bin/env python3
"""MaxSim against a corpus stored quantized (int8 or fp8 rows, a scale per token): hsr against the peers.

    python3 bench/compressed.py [--out DIR] [--quick] [--device cpu|cuda] [--budget-s 300]

One fp16 query of Lq tokens against Nd documents of Ld tokens, d = 128, (Lq, Ld, Nd) = (32, 300, 1000),
(32, 300, 10000), (1024, 1024, 1000) (--quick: smaller), bench/int8_accuracy.py's corpus (L2-normalised tokens,
4 relevant documents made of the query's tokens plus noise). Each library quantizes the corpus with its own
helper, untimed; the query is quantized inside the timed call. Rows: hsr maxsim(Q16, D16), hsr maxsim(Q16,
quantize_int8(D16)) and quantize_fp8 (sm89+), late-interaction-kernels' (LIK) maxsim_inference_fp8, flash-maxsim's
flash_maxsim_int8 (affine uint8 rows) and flash_maxsim_int8x8 (symmetric int8, int8 dots). Each: do_bench median
ms, speedup over hsr fp16, peak memory of a call beyond what was allocated before it; against eager fp32 (the
fp16 inputs' einsum in fp32, max over document tokens, sum over query tokens; untimed), top-10 overlap and max
|error| / mean |score|. A missing peer's row says "not installed", a failing one its error; no row starts past
--budget-s. Writes compressed.json and .md to --out (else $OUT, else bench/results). --device cpu: every row
through Triton's interpreter at tiny sizes, a smoke test (ms: one call's wall time; LIK's bf16 fallback).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench/int8_accuracy.py, also under python -P
SHAPES = {("cuda", False): [(32, 300, 1000), (32, 300, 10000), (1024, 1024, 1000)],
          ("cuda", True): [(32, 300, 1000), (256, 512, 500)],
          ("cpu", False): [(8, 24, 32), (16, 40, 24)], ("cpu", True): [(4, 12, 16)]}
PEERS = {"lik": "late_interaction_kernels", "flash_maxsim": "flash_maxsim"}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT") or "bench/results")
    p.add_argument("--device", default="cuda", choices=["cpu", "cuda"])
    p.add_argument("--quick", action="store_true", help="small shapes, short timings")
    p.add_argument("--budget-s", type=float, default=300.0, help="no row starts after this many seconds")
    return p.parse_args(argv)


def load(name):
    """(module, version) of a peer, or (None, 'not installed' / its import error)."""
    try:
        mod = importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - a missing or broken peer is a row's note, not a crash
        return None, "not installed" if getattr(e, "name", None) == name else f"error: {type(e).__name__}: {e}"
    return mod, getattr(mod, "__version__", "?")


def variants(lib, Q, D, fp8, hopper):
    """[(row, prepare)]: prepare() quantizes the corpus (untimed) and returns the timed call, or a note.
    fp8: hsr's fp8 runs (sm89+, or the interpreter); hopper: LIK's fp8 runs on fp8 tensor cores."""
    import hsr.ops as ops
    (lik, lik_note), (fm, fm_note) = lib["lik"], lib["flash_maxsim"]
    note = lambda text: lambda: text  # noqa: E731

    def stored(quantize):  # hsr: D the pair (rows, scales); Q stays fp16, quantized inside the call
        pair = quantize(D)
        return lambda: ops.maxsim(Q, pair)

    def lik_fp8():  # Q and D both float8_e4m3fn, per-token fp32 scales [Lq], [Nd, Ld]
        from late_interaction_kernels.fp8 import maxsim_inference_fp8, quantize_fp8_per_token as quant
        d8, ds = quant(D)

        def call():
            q8, qs = quant(Q)
            return maxsim_inference_fp8(q8, d8, scale_Q=qs, scale_D=ds)
        return call

    def flash(quantize, run):  # Q fp16 [Lq, d]; rows [Nd, Ld, d], fp16 scales [Nd, Ld, 1] (affine: and mins)
        parts = quantize(D)
        return lambda: run(Q, *parts)

    return [("hsr fp16", lambda: lambda: ops.maxsim(Q, D)),
            ("hsr int8 stored", lambda: stored(ops.quantize_int8)),
            ("hsr fp8 stored", (lambda: stored(ops.quantize_fp8)) if fp8 else note("skipped: fp8 needs sm89+")),
            ("LIK maxsim_inference_fp8" + (" (bf16 fallback)" if lik and not hopper else ""),
             lik_fp8 if lik else note(lik_note)),
            ("flash_maxsim_int8", (lambda: flash(fm.quantize_int8, fm.flash_maxsim_int8)) if fm else note(fm_note)),
            ("flash_maxsim_int8x8", (lambda: flash(fm.quantize_int8_symmetric, fm.flash_maxsim_int8x8)) if fm
             else note(fm_note))]


def reference(torch, Q, D, chunk=128):
    """fp32 eager MaxSim of Q [Lq, d] against D [Nd, Ld, d], -> [Nd], a chunk of documents at a time."""
    q = Q.float()
    return torch.cat([torch.einsum("sd,jtd->jst", q, d.float()).amax(2).sum(1) for d in D.split(chunk)])


def measure(torch, triton, args, call, want):
    """One row: first call (compiles, autotunes), checked against want; peak memory; median time."""
    from int8_accuracy import compare
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = call().float().reshape(-1)
    rec = {k: v for k, v in compare(torch, got[None], want[None]).items() if k != "top1_changed"}
    rec["note"] = "; ".join(sorted({str(w.message)[:120] for w in caught}))
    if args.device == "cpu":  # the interpreter: one call's wall time, no device memory
        t0 = time.perf_counter()
        call()
        return {**rec, "ms": (time.perf_counter() - t0) * 1e3, "peak_mib": None}
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    call()
    torch.cuda.synchronize()
    rec["peak_mib"] = (torch.cuda.max_memory_allocated() - before) / 2**20
    warmup, rep = (10, 30) if args.quick else (25, 100)
    rec["ms"] = triton.testing.do_bench(call, warmup=warmup, rep=rep, return_mode="median")
    return rec


def run_row(torch, triton, args, prepare, want, t0):
    """prepare() then measure(), under no_grad; a note, a failure or the budget becomes the row's status."""
    if time.monotonic() - t0 > args.budget_s:
        return {"status": f"skipped: past the {args.budget_s:g} s budget"}
    try:
        with torch.no_grad():
            call = prepare()
            return {"status": call} if isinstance(call, str) else measure(torch, triton, args, call, want)
    except Exception as e:  # noqa: BLE001 - one row's failure must not end the run
        return {"status": f"error: {type(e).__name__}: {' '.join(str(e).split())[:200]}"}
    finally:
        call = None  # the quantized corpus goes with it
        if args.device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.empty_cache()


def markdown(res):
    """The header line and the table."""
    cell = lambda v, f, unit="": "-" if v is None else format(v, f) + unit  # noqa: E731
    m = res["meta"]
    lines = [f"MaxSim, one query against a quantized corpus, d = 128: {m['device']}; torch {m['torch']}, triton "
             f"{m['triton']}; late-interaction-kernels {m['lik']}, flash-maxsim {m['flash_maxsim']}", "",
             "| Lq x Ld x Nd | variant | ms | vs hsr fp16 | top-10 overlap | max err / mean score | peak MiB | note |",
             "|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        g = r.get
        lines.append(f"| {g('shape')} | {g('variant')} | {cell(g('ms'), '.4f')} | {cell(g('speedup'), '.2f', 'x')} "
                     f"| {cell(g('top10_overlap'), '.2f')} | {cell(g('max_rel_err'), '.1e')} | "
                     f"{cell(g('peak_mib'), '.1f')} | {g('status') if g('status') != 'ok' else g('note', '')} |")
    return "\n".join(lines) + "\n"


def save(out, res):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "compressed.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out, "compressed.md"), "w") as f:
        f.write(markdown(res))


def main(argv=None):
    args = parse_args(argv)
    if args.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # before triton is first imported
    import torch
    import triton.testing
    from int8_accuracy import corpus

    t0, cuda = time.monotonic(), args.device == "cuda"
    torch.backends.cuda.matmul.allow_tf32 = False
    lib = {k: load(name) for k, name in PEERS.items()}
    cc = torch.cuda.get_device_capability() if cuda else None
    res = {"meta": dict(device=torch.cuda.get_device_name() if cuda else "cpu (Triton interpreter)",
                        torch=torch.__version__, triton=triton.__version__, python=sys.version.split()[0],
                        **{k: v[1] for k, v in lib.items()}, d=128, quick=args.quick), "rows": []}
    print(markdown(res).splitlines()[0], flush=True)
    for lq, ld, nd in SHAPES[(args.device, args.quick)]:
        shape = f"{lq} x {ld} x {nd}"
        with torch.device(args.device):  # made where it is scored: a CPU generator takes minutes at 10000 documents
            Q, D = corpus(torch, 1, nd, lq, ld, 128, torch.Generator(args.device).manual_seed(0))
        Q, D = Q[0].half(), D.half()
        want = reference(torch, Q, D)
        base = None
        for name, prepare in variants(lib, Q, D, not cuda or cc >= (8, 9), cuda and cc >= (9, 0)):
            row = {"shape": shape, "variant": name, "status": "ok", **run_row(torch, triton, args, prepare, want, t0)}
            base = row.get("ms") if name == "hsr fp16" else base
            row["speedup"] = base / row["ms"] if base and row.get("ms") else None
            res["rows"].append(row)
            print(markdown({**res, "rows": [row]}).splitlines()[-1], flush=True)
        del Q, D, want
        save(args.out, res)
    res["meta"]["elapsed_s"] = time.monotonic() - t0
    save(args.out, res)
    print(f"\nwrote {args.out}/compressed.json and compressed.md ({res['meta']['elapsed_s']:.0f} s)\n")
    print(markdown(res), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
