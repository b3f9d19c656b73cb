#!/usr/bin/env python3
"""Accuracy of low-precision MaxSim (int8, fp8) against fp32, and (on a GPU) its speed.

    python3 bench/int8_accuracy.py --out DIR [--device cpu|cuda] [--time]

Corpus: Nq queries of Lq tokens and Nd documents of Ld tokens, d = 128, every
token L2-normalised (as ColBERT's); each query has a few relevant documents
made of its own tokens with noise, among random ones, so the scores spread as
in retrieval. Reference: fp32 MaxSim (eager einsum, fp32 accumulation). For
each variant (hsr with fp16 inputs, bf16 inputs, precision="int8" and
precision="fp8": per-token symmetric scales, int8 or fp8 e4m3 tensor cores) it reports the largest and mean
absolute score error relative to the mean |score|, the mean top-10 overlap
with fp32's ranking, and the share of queries whose top-1 document changed.
--time (CUDA only) also times the forward, one query against 1000 documents,
at the medium (128 x 1024) and ColPali (1024 x 1024) shapes: int8 rows
and fp8 quantized beforehand (a corpus is quantized once) against fp16.
Writes int8_accuracy.json and prints a table. On the CPU the kernels run
through the Triton interpreter (small default sizes).
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="bench/results")
    p.add_argument("--device", default="cuda", choices=["cpu", "cuda"])
    p.add_argument("--nq", type=int, default=None, help="queries (default: 64 on cuda, 8 on cpu)")
    p.add_argument("--nd", type=int, default=None, help="documents (default: 2000 on cuda, 64 on cpu)")
    p.add_argument("--lq", type=int, default=32)
    p.add_argument("--ld", type=int, default=None, help="document tokens (default: 300 on cuda, 64 on cpu)")
    p.add_argument("--time", action="store_true", help="also time int8 against fp16 (CUDA)")
    return p.parse_args(argv)


def corpus(torch, nq, nd, lq, ld, d, gen):
    """Queries, and documents of which the first 4 per query hold its tokens plus noise."""
    norm = torch.nn.functional.normalize
    Q = norm(torch.randn(nq, lq, d, generator=gen), dim=-1)
    D = norm(torch.randn(nd, ld, d, generator=gen), dim=-1)
    for q in range(min(nq, nd // 4)):
        for k in range(4):
            doc = q * 4 + k
            take = torch.randint(0, lq, (ld // 3,), generator=gen)
            noise = (0.3 + 0.2 * k) * torch.randn(ld // 3, d, generator=gen)
            D[doc, : ld // 3] = norm(Q[q, take] + noise, dim=-1)
    return Q, D


def compare(torch, got, want):
    scale = want.abs().mean()
    err = (got.double() - want.double()).abs()
    top = min(10, want.shape[1])
    overlap = [len(set(a.tolist()) & set(b.tolist())) / top
               for a, b in zip(got.topk(top, dim=1).indices, want.topk(top, dim=1).indices)]
    return dict(max_rel_err=float(err.max() / scale), mean_rel_err=float(err.mean() / scale),
                top10_overlap=sum(overlap) / len(overlap),
                top1_changed=float((got.argmax(1) != want.argmax(1)).double().mean()))


def main(argv=None):
    args = parse_args(argv)
    if args.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    import torch
    import triton
    from hsr.ops import maxsim, quantize_int8

    cuda = args.device == "cuda"
    nq, nd, ld = args.nq or (64 if cuda else 8), args.nd or (2000 if cuda else 64), args.ld or (300 if cuda else 64)
    gen = torch.Generator().manual_seed(0)
    Q, D = corpus(torch, nq, nd, args.lq, ld, 128, gen)
    Q, D = Q.to(args.device), D.to(args.device)
    want = torch.einsum("isd,jtd->ijst", Q, D).amax(3).sum(2)  # fp32 eager
    rows = {}
    with torch.no_grad():
        for name, run in (("hsr fp32", lambda: maxsim(Q, D)),
                          ("hsr fp16", lambda: maxsim(Q.half(), D.half())),
                          ("hsr bf16", lambda: maxsim(Q.bfloat16(), D.bfloat16())),
                          ("hsr int8", lambda: maxsim(Q, D, precision="int8")),
                          ("hsr fp8", lambda: maxsim(Q, D, precision="fp8"))):
            rows[name] = compare(torch, run().float(), want)
            print(name, rows[name], flush=True)
    timing = {}
    if args.time and cuda:
        from hsr.generated import maxsim as fp_mod
        from hsr.generated import maxsim_fp8 as f8_mod
        from hsr.generated import maxsim_int8 as i8_mod
        from hsr.ops import quantize_fp8
        for shape, (t_lq, t_ld) in (("medium", (128, 1024)), ("colpali", (1024, 1024))):
            q = torch.nn.functional.normalize(torch.randn(1, t_lq, 128, device="cuda"), dim=-1)
            docs = torch.nn.functional.normalize(torch.randn(1000, t_ld, 128, device="cuda"), dim=-1)
            qh, dh = q.half(), docs.half()
            (q8, qs), (d8, ds) = quantize_int8(q), quantize_int8(docs)
            (qf, qfs), (df, dfs) = quantize_fp8(q), quantize_fp8(docs)
            with torch.no_grad():
                t16 = triton.testing.do_bench(lambda: fp_mod.apply(qh, dh), warmup=50, rep=300, return_mode="median")
                t8 = triton.testing.do_bench(lambda: i8_mod.apply(q8, d8, qs, ds), warmup=50, rep=300,
                                             return_mode="median")
                tf8 = triton.testing.do_bench(lambda: f8_mod.apply(qf, df, qfs, dfs), warmup=50, rep=300,
                                              return_mode="median")
            timing[shape] = dict(fp16_ms=t16, int8_ms=t8, fp8_ms=tf8, speedup=t16 / t8, fp8_speedup=t16 / tf8)
            print(shape, timing[shape], flush=True)
    meta = dict(device=torch.cuda.get_device_name() if cuda else "cpu (Triton interpreter)",
                torch=torch.__version__, triton=triton.__version__, python=sys.version.split()[0],
                nq=nq, nd=nd, lq=args.lq, ld=ld, d=128)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "int8_accuracy.json"), "w") as f:
        json.dump(dict(meta=meta, accuracy=rows, timing=timing), f, indent=1)
    print(f"\nMaxSim against fp32 eager, {meta}")
    print("| variant | max abs err / mean score | mean abs err / mean score | top-10 overlap | top-1 changed |")
    print("|---|---|---|---|---|")
    for name, r in rows.items():
        print(f"| {name} | {r['max_rel_err']:.1e} | {r['mean_rel_err']:.1e} | {r['top10_overlap']:.3f} "
              f"| {r['top1_changed']:.3f} |")
    for shape, t in timing.items():
        print(f"{shape}: fp16 {t['fp16_ms']:.3f} ms, int8 {t['int8_ms']:.3f} ms ({t['speedup']:.2f}x), "
              f"fp8 {t['fp8_ms']:.3f} ms ({t['fp8_speedup']:.2f}x)")


if __name__ == "__main__":
    main()
