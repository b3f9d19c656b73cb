#!/usr/bin/env python3
"""MaxSim over PLAID residual codes, scored as stored: hsr against late-interaction-kernels and the unfused path.

    python3 bench/residual.py [--out DIR] [--quick] [--device cpu|cuda] [--nbits 2,4] [--budget-s 400]
    python3 bench/residual.py --tune-grid --out DIR    (the residual ops' forward tuned, GPU)

One bf16 query (Lq = 32, d = 128) against Nd packed documents of lengths drawn in [Ld / 2, Ld], each token a
centroid id (32768 centroids) and nbits-bit residual codes (LSB-first, d * nbits / 8 bytes), bucket weights
[2^nbits]; the shapes late-interaction-kernels publishes: (Nd, Ld) = (1024, 200), (1024, 512), (1024, 1024),
(1024, 4096), (512, 8192), (256, 512), (2048, 512). Rows, each checked against float64 MaxSim of the
decompressed, normalised rows:
- hsr maxsim_residual_varlen (the rows formed in the kernel);
- late-interaction-kernels' maxsim_residual_varlen (LIK; it reads the same bytes);
- "unfused": a PyTorch transliteration of fast-plaid's exact slice (decompress, normalise, pad, matmul,
  masked max, sum), as a user without a fused kernel runs it;
- hsr maxsim on the rows already decompressed and padded (the bound where memory is free; the
  decompression untimed).
Each: do_bench median ms, peak memory of a call beyond its inputs, and the bytes floor (codes as int32,
residuals, offsets, the query: read once, over the run's copy bandwidth). Writes residual.json and .md to --out
(else $OUT, else bench/results). --device cpu: tiny shapes through Triton's interpreter (a smoke test).
--tune-grid: tune the residual ops' forwards (padded and packed, nbits 2 and 4, bf16 and fp16 queries of 32
tokens) at Ld 150 / 400 / 800 / 3000 / 6000, none of them a table shape's length, and write the picks as
residual_tuned.json in hsr/tuned.json's layout (merge it there).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
SHAPES = {("cuda", False): [(1024, 200), (1024, 512), (1024, 1024), (1024, 4096), (512, 8192), (256, 512),
                            (2048, 512)],
          ("cuda", True): [(1024, 512), (256, 2048)],
          ("cpu", False): [(6, 20), (4, 40)], ("cpu", True): [(4, 12)]}
LQ, D, CENTROIDS = 32, 128, 32768


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT") or "bench/results")
    p.add_argument("--device", default="cuda", choices=["cpu", "cuda"])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--nbits", default="2,4")
    p.add_argument("--budget-s", type=float, default=400.0)
    p.add_argument("--dtype", default="bf16")  # (the harness reads it)
    p.add_argument("--tune-grid", action="store_true")
    return p.parse_args(argv)


def corpus(torch, nd, ld, nbits, device, gen):
    """Packed codes, residual bytes, offsets, centroids (fp16, unit rows), bucket weights, and a query."""
    lengths = torch.randint(max(ld // 2, 1), ld + 1, (nd,), generator=gen)
    cu = torch.zeros(nd + 1, dtype=torch.int32)
    cu[1:] = lengths.cumsum(0)
    total = int(cu[-1])
    centroids = torch.nn.functional.normalize(torch.randn(min(CENTROIDS, 64 * nd), D, generator=gen), dim=-1)
    codes = torch.randint(0, centroids.shape[0], (total,), generator=gen, dtype=torch.int32)
    residuals = torch.randint(0, 256, (total, D * nbits // 8), generator=gen, dtype=torch.uint8)
    weights = torch.linspace(-0.05, 0.05, 1 << nbits)
    q = torch.randn(LQ, D, generator=gen)
    to = dict(device=device)
    return (q.to(torch.bfloat16).to(**to), codes.to(**to), residuals.to(**to), cu.to(**to),
            centroids.to(torch.float16).to(**to), weights.to(**to), lengths)


def decompress(torch, codes, residuals, centroids, weights, nbits):
    """The rows as fast-plaid decompresses them (LSB-first codes here), normalised, fp32."""
    per = 8 // nbits
    f = torch.arange(D, device=codes.device)
    buckets = (residuals.long()[:, f // per] >> ((f % per) * nbits)) & ((1 << nbits) - 1)
    rows = centroids.float()[codes.long()] + weights.float()[buckets]
    return torch.nn.functional.normalize(rows, dim=-1)


def unfused(torch, q, codes, residuals, cu, centroids, weights, nbits, longest):
    """decompress, pad, matmul, masked max, sum (bf16 products, fp32 out)."""
    rows = decompress(torch, codes, residuals, centroids, weights, nbits).to(q.dtype)
    nd = cu.numel() - 1
    lengths = (cu[1:] - cu[:-1]).long()
    doc = torch.repeat_interleave(torch.arange(nd, device=q.device), lengths)
    pos = torch.arange(rows.shape[0], device=q.device) - cu[:-1].long()[doc]
    padded = rows.new_zeros(nd, longest, D)
    padded[doc, pos] = rows
    mask = torch.arange(longest, device=q.device)[None, :] < lengths[:, None]
    scores = torch.einsum("sd,jtd->jst", torch.nn.functional.normalize(q.float(), dim=-1).to(q.dtype), padded)
    scores = scores.float().masked_fill(~mask[:, None, :], float("-inf"))
    return scores.amax(-1).clamp_min(-1e30).sum(-1)


def tune_grid(args):
    """Each residual op's forward tuned once a key (HSR_AUTOTUNE=1), the picks written as a table."""
    os.environ["HSR_AUTOTUNE"], os.environ["HSR_AUTOTUNE_CACHE"] = "1", "0"
    import torch

    import hsr.ops as ops

    gen = torch.Generator().manual_seed(1)
    os.makedirs(args.out, exist_ok=True)
    for nbits in (2, 4):
        for dtype in (torch.bfloat16, torch.float16):
            for ld in (150, 400, 800, 3000, 6000):
                nd = max(64, 400_000 // ld)
                q, codes, res, cu, cent, w, lengths = corpus(torch, nd, ld, nbits, "cuda", gen)
                q, longest = q.to(dtype), int(lengths.max())
                ops.maxsim_residual_varlen(q, codes, res, cu, cent, w, nbits=nbits, max_seqlen_d=longest)
                pc = torch.zeros(nd, longest, dtype=codes.dtype, device="cuda")
                pr = torch.zeros(nd, longest, res.shape[1], dtype=res.dtype, device="cuda")
                doc = torch.repeat_interleave(torch.arange(nd, device="cuda"), lengths.cuda())
                pos = torch.arange(codes.numel(), device="cuda") - cu[:-1].long()[doc]
                pc[doc, pos], pr[doc, pos] = codes, res
                ops.maxsim_residual(q, pc, pr, lengths.cuda(), cent, w, nbits=nbits)
                print(f"tuned nbits {nbits} {dtype} Ld {ld}", flush=True)
    from tune_grid import measured_table

    table = measured_table()
    with open(os.path.join(args.out, "residual_tuned.json"), "w") as f:
        json.dump({"_source": f"bench/residual.py --tune-grid on {torch.cuda.get_device_name()}", "sm90": table}, f,
                  indent=1, sort_keys=True)
    print(f"{len(table)} picks")


def main(argv=None):
    args = parse_args(argv)
    if args.tune_grid:
        return tune_grid(args)
    on_gpu = args.device == "cuda"
    if not on_gpu:
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton (imported by hsr.ops) is
    import torch

    import hsr.ops as ops
    from harness import Harness
    h = Harness(args) if on_gpu else None
    try:
        lik = importlib.import_module("late_interaction_kernels")
        lik_note = getattr(lik, "__version__", "?")
    except Exception as e:  # noqa: BLE001 - a missing peer is a row's note
        lik, lik_note = None, f"not installed ({type(e).__name__})"
    copy = h.copy_ceiling() if on_gpu else None
    gbps = copy["tb_per_s"] * 1e3 if copy else None  # GB/s
    import triton

    results = dict(device=torch.cuda.get_device_name() if on_gpu else "cpu", torch=torch.__version__,
                   triton=triton.__version__, lik=lik_note, copy=copy, rows=[])
    gen = torch.Generator().manual_seed(0)
    for nbits in (int(x) for x in args.nbits.split(",")):
        for nd, ld in SHAPES[(args.device, args.quick)]:
            q, codes, residuals, cu, centroids, weights, lengths = corpus(torch, nd, ld, nbits, args.device, gen)
            longest = int(lengths.max())
            exact = unfused(torch, q.double(), codes, residuals, cu, centroids.double(), weights.double(), nbits,
                            longest) if not on_gpu else None
            want = unfused(torch, q.float(), codes, residuals, cu, centroids, weights, nbits, longest).double()
            if exact is not None:
                want = exact
            rows = decompress(torch, codes, residuals, centroids, weights, nbits).to(q.dtype)
            nbytes = codes.numel() * 4 + residuals.numel() + cu.numel() * 4 + q.numel() * 2
            variants = {
                "hsr residual_varlen": lambda: ops.maxsim_residual_varlen(q, codes, residuals, cu, centroids, weights,
                                                                          nbits=nbits, max_seqlen_d=longest),
                "unfused (fast-plaid slice)": lambda: unfused(torch, q, codes, residuals, cu, centroids, weights,
                                                              nbits, longest),
                "hsr maxsim, decompressed": lambda: ops.maxsim_varlen(
                    torch.nn.functional.normalize(q.float(), dim=-1).to(q.dtype), rows,
                    torch.tensor([0, LQ], dtype=torch.int32, device=q.device), cu, max_seqlen_q=LQ,
                    max_seqlen_d=longest)[0],
            }
            if lik is not None:
                from late_interaction_kernels.plaid import maxsim_residual_varlen as lik_varlen
                variants["LIK residual_varlen"] = lambda: lik_varlen(q, codes, residuals, cu, centroids, weights,
                                                                     nbits, max_seqlen_d=longest)
            shape = dict(nbits=nbits, Nd=nd, Ld=ld, tokens=int(cu[-1]), bytes=nbytes,
                         floor_ms=nbytes / gbps / 1e6 if gbps else None)
            print(f"nbits {nbits}, {nd} x {ld} ({shape['tokens']} tokens, {nbytes / 2**20:.1f} MiB)", flush=True)

            def check(out):
                err = (out.double().reshape(-1) - want.reshape(-1)).abs().max().item()
                return {"max_abs_err": err}

            for label, call in variants.items():
                if on_gpu:
                    rec = h.measure(label, call, check, no_grad=True)
                else:
                    t = time.perf_counter()
                    out = call()
                    rec = {"status": "ok", "ms": (time.perf_counter() - t) * 1e3, **check(out)}
                    print(f"  {label:28s} {rec['ms']:9.2f} ms (interpreter)  max err {rec['max_abs_err']:.1e}")
                results["rows"].append(dict(shape, variant=label, **rec))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "residual.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(args.out, "residual.md"), "w") as f:
        f.write(table(results))
    print(table(results))


def table(results) -> str:
    """ms (speedup of hsr over each), peak memory, share of the bytes floor."""
    lines = [f"# MaxSim over residual codes, {results['device']} (torch {results['torch']}, Triton "
             f"{results.get('triton', '?')}, LIK {results['lik']})", "",
             "| nbits | Nd x Ld | variant | ms | peak GiB | of the bytes floor | max abs err |", "|---|---|---|---|---|---|---|"]
    for r in results["rows"]:
        ms = r.get("ms")
        floor = f"{r['floor_ms'] / ms:.0%}" if ms and r.get("floor_ms") else "-"
        lines.append(f"| {r['nbits']} | {r['Nd']} x {r['Ld']} | {r['variant']} | "
                     + (f"{ms:.4f}" if ms else r["status"]) + f" | {r.get('peak_gib', 0):.3f} | {floor} | "
                     + (f"{r['max_abs_err']:.1e}" if "max_abs_err" in r else "-") + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
