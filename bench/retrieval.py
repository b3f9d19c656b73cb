#!/usr/bin/env python3
"""MaxSim top-k over a corpus streamed from host memory: throughput on one GPU.

Run on the GPU machine from the repository root:

    python3 bench/retrieval.py --out DIR [--n 100000] [--nq 1,32,128] [--quick]

In one run it

1. builds a ColBERT-like corpus in host memory: N documents of Ld = 300
   tokens of d = 128, fp16 (7.7 GB at N = 100K), random normal tokens, and a
   mask with a random length per document (150 to 300 tokens); pinned, and a
   pageable copy of it for the staging path;
2. measures the host-to-device copy bandwidth of this machine in the same
   run: pinned and pageable, one large copy (256 MiB) repeated, and the
   block-sized copies the search makes (copy stream only, no scoring);
3. for each query count Nq (Lq = 32), times ``maxsim_topk`` (k = 100):
   - ``resident``: the corpus already on the GPU (no copy, maxsim_topk's
     default blocks for a resident corpus: the scoring and merging alone);
   - ``copy only``: the same blocks copied to the two device buffers, no scoring;
   - ``overlap``: streamed from pinned memory, copies on a side stream;
   - ``serial``: streamed from pinned memory, ``overlap=False`` (copy, then score);
   - ``pageable``: streamed from the pageable copy through the pinned staging buffers;
   and reports documents per second, host-to-device GB/s (corpus and mask
   bytes over time) against the measured pinned bandwidth, and the fraction
   of the hideable time that the overlap hid:
   ``hidden = (serial - overlap) / min(copy only, compute)`` with the GPU's
   compute time estimated as ``serial - copy only`` (1: the slower of copy
   and compute alone sets the time; 0: no overlap at all; n/a where one is
   under a tenth of the other, as the copy-bound Nq = 1 is). The serial run is
   GPU-bound (the host enqueues blocks faster than the GPU copies them), so
   that difference is the scoring's GPU time; the resident run's wall time
   is not, where the host's per-block work (~0.5 ms) outlasts the kernels;
4. checks that every streamed result equals the resident one, indices and
   scores, bitwise (same kernels, same blocks), and that a 2,000-document
   slice matches an fp32 einsum brute force to 1e-3;
5. writes retrieval.json and retrieval.md into --out and prints the table.

Times are medians of --reps runs (wall clock around a synchronised call,
after a warm-up call for autotuning).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import torch

LQ, LD, DIM = 32, 300, 128


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results", help="directory for retrieval.{json,md}")
    p.add_argument("--n", type=int, default=100_000, help="documents in the corpus (default: %(default)s)")
    p.add_argument("--ld", type=int, default=LD, help="tokens per document (default: %(default)s)")
    p.add_argument("--lq", type=int, default=LQ, help="tokens per query (default: %(default)s)")
    p.add_argument("--d", type=int, default=DIM, help="token dimension (default: %(default)s)")
    p.add_argument("--nq", default="1,32,128", help="comma-separated query counts (default: %(default)s)")
    p.add_argument("--k", type=int, default=100, help="results per query (default: %(default)s)")
    p.add_argument("--block-size", type=int, default=None,
                   help="documents per block (default: maxsim_topk's, about 64 MiB)")
    p.add_argument("--sweep-blocks", default="256,1024,4096",
                   help="block sizes also timed (overlap, first Nq >= 32); empty to skip (default: %(default)s)")
    p.add_argument("--reps", type=int, default=3, help="timed runs per variant (median; default: %(default)s)")
    p.add_argument("--no-pageable", action="store_true", help="skip the pageable (staging) variant")
    p.add_argument("--quick", action="store_true", help="N = 20000, Nq = 1,32, one sweep size, 2 reps")
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.nq, args.sweep_blocks, args.reps = 20_000, "1,32", "1024", 2
    args.nq_list = [int(x) for x in args.nq.split(",") if x.strip()]
    args.sweep = [int(x) for x in args.sweep_blocks.split(",") if x.strip()]
    return args


def log(msg):
    print(msg, flush=True)


def make_corpus(n, ld, d, seed=0, chunk=2048):
    """Pinned host corpus [n, ld, d] fp16 and mask [n, ld], generated on the GPU
    chunk by chunk (deterministic for a seed) and copied down."""
    corpus = torch.empty((n, ld, d), dtype=torch.float16, pin_memory=True)
    mask = torch.empty((n, ld), dtype=torch.bool, pin_memory=True)
    gen = torch.Generator(device="cuda")
    pos = torch.arange(ld, device="cuda")
    for s in range(0, n, chunk):
        e = min(n, s + chunk)
        gen.manual_seed(seed * 1_000_003 + s)
        x = torch.randn((e - s, ld, d), device="cuda", generator=gen, dtype=torch.float16)
        x = x / x.float().norm(dim=-1, keepdim=True).half()
        lengths = torch.randint(ld // 2, ld + 1, (e - s, 1), device="cuda", generator=gen)
        corpus[s:e].copy_(x)
        mask[s:e].copy_(pos[None, :] < lengths)
    torch.cuda.synchronize()
    return corpus, mask


def h2d_bandwidth(src, reps=10, barrier=None):
    """GB/s of src (host) -> a device buffer, events around `reps` copies;
    ``barrier`` (dist.barrier) lines ranks up so that they copy at once."""
    dst = torch.empty(src.shape, dtype=src.dtype, device="cuda")
    dst.copy_(src, non_blocking=True)
    torch.cuda.synchronize()
    if barrier is not None:
        barrier()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        dst.copy_(src, non_blocking=True)
    end.record()
    end.synchronize()
    return reps * src.numel() * src.element_size() / (start.elapsed_time(end) / 1e3) / 1e9


def copy_only(corpus, mask, block):
    """Seconds to copy every block into two alternating device buffers on a side
    stream, as the search does, with no scoring."""
    stream = torch.cuda.Stream()
    bufs = [torch.empty((block,) + tuple(corpus.shape[1:]), dtype=corpus.dtype, device="cuda") for _ in range(2)]
    mbufs = [torch.empty((block, mask.shape[1]), dtype=torch.bool, device="cuda") for _ in range(2)]
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.cuda.stream(stream):
        for i, s in enumerate(range(0, corpus.shape[0], block)):
            e = min(corpus.shape[0], s + block)
            bufs[i % 2][:e - s].copy_(corpus[s:e], non_blocking=True)
            mbufs[i % 2][:e - s].copy_(mask[s:e], non_blocking=True)
    stream.synchronize()
    return time.perf_counter() - t0


def hidden_text(hidden, copy_s, compute_s):
    """The hidden fraction, or n/a where one side is under 10% of the other
    (the difference of two nearly equal times is then mostly noise)."""
    if min(copy_s, compute_s) < 0.1 * max(copy_s, compute_s):
        return "n/a"
    return f"{100 * hidden:.0f}%"


def timed(fn, reps):
    """Median wall time of `reps` synchronised calls, after one untimed call
    (Triton compiles a kernel again for new argument specialisations, e.g. a
    corpus size divisible by 16)."""
    fn()
    times, out = [], None
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv=None):
    args = parse_args(argv)
    from hsr.ops.retrieval import default_block_size, maxsim_topk

    os.makedirs(args.out, exist_ok=True)
    if not torch.cuda.is_available():
        sys.exit("bench/retrieval.py needs a CUDA device")
    import triton

    info = dict(device=torch.cuda.get_device_name(0), torch=torch.__version__, triton=triton.__version__,
                python=platform.python_version(), n=args.n, ld=args.ld, lq=args.lq, d=args.d, k=args.k,
                dtype="fp16")
    log(f"device {info['device']}, torch {torch.__version__}, triton {triton.__version__}")
    t0 = time.perf_counter()
    corpus, mask = make_corpus(args.n, args.ld, args.d)
    bytes_total = corpus.numel() * corpus.element_size() + mask.numel()
    info["corpus_gb"] = bytes_total / 1e9
    info["build_s"] = time.perf_counter() - t0
    log(f"corpus: {args.n} x {args.ld} x {args.d} fp16 + mask, {bytes_total / 1e9:.2f} GB pinned, "
        f"built in {info['build_s']:.1f} s")
    block = args.block_size or default_block_size(corpus)
    info["block_size"] = block
    info["block_mb"] = block * args.ld * args.d * 2 / 2**20

    # 2. Copy bandwidth, measured now.
    big = corpus[: max(1, (256 << 20) // (args.ld * args.d * 2))]
    info["h2d_pinned_gbs"] = h2d_bandwidth(big)
    info["h2d_pinned_block_gbs"] = h2d_bandwidth(corpus[:block])
    pageable_big = torch.empty(big.shape, dtype=big.dtype)  # not pinned
    pageable_big.copy_(big)
    assert not pageable_big.is_pinned()
    info["h2d_pageable_gbs"] = h2d_bandwidth(pageable_big, reps=4)
    del pageable_big
    copy_only(corpus, mask, block)
    info["copy_only_s"] = statistics.median(copy_only(corpus, mask, block) for _ in range(args.reps))
    info["copy_only_gbs"] = bytes_total / info["copy_only_s"] / 1e9
    log(f"host->device: pinned {info['h2d_pinned_gbs']:.1f} GB/s (256 MiB copies), "
        f"{info['h2d_pinned_block_gbs']:.1f} GB/s ({info['block_mb']:.0f} MiB blocks), "
        f"pageable {info['h2d_pageable_gbs']:.1f} GB/s; the corpus in blocks on a side stream, no scoring: "
        f"{info['copy_only_s'] * 1e3:.0f} ms = {info['copy_only_gbs']:.1f} GB/s")

    resident = corpus.cuda()
    resident_mask = mask.cuda()
    pageable = pageable_mask = None
    if not args.no_pageable:
        pageable = torch.empty(corpus.shape, dtype=corpus.dtype)
        pageable.copy_(corpus)
        pageable_mask = mask.clone()
    rows, checks = [], []
    gen = torch.Generator(device="cuda").manual_seed(1)
    for nq in args.nq_list:
        Q = torch.randn((nq, args.lq, args.d), device="cuda", generator=gen, dtype=torch.float16)
        Q = Q / Q.float().norm(dim=-1, keepdim=True).half()
        maxsim_topk(Q, corpus[: 2 * block], args.k, corpus_mask=mask[: 2 * block], block_size=block)  # warm-up

        def run(src, msk, **kw):
            return lambda: maxsim_topk(Q, src, args.k, corpus_mask=msk, block_size=block, **kw)
        row = dict(nq=nq, block_size=block)
        t_res, want = timed(lambda: maxsim_topk(Q, resident, args.k, corpus_mask=resident_mask), args.reps)
        t_ovl, got_ovl = timed(run(corpus, mask), args.reps)
        t_ser, got_ser = timed(run(corpus, mask, overlap=False), args.reps)
        row.update(resident_s=t_res, overlap_s=t_ovl, serial_s=t_ser, copy_only_s=info["copy_only_s"])
        variants = {"overlap": got_ovl, "serial": got_ser}
        if pageable is not None:
            t_pag, got_pag = timed(run(pageable, pageable_mask), args.reps)
            row["pageable_s"] = t_pag
            row["pageable_docs_per_s"] = args.n / t_pag
            variants["pageable"] = got_pag
        for name, got in variants.items():
            same = torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
            checks.append(dict(nq=nq, variant=name, equal_to_resident=same))
            if not same:
                log(f"MISMATCH: nq={nq} {name} differs from the resident run")
        compute_est = max(t_ser - info["copy_only_s"], 0.0)
        hideable = min(info["copy_only_s"], compute_est)
        row.update(docs_per_s=args.n / t_ovl, gbs=bytes_total / t_ovl / 1e9,
                   frac_of_pinned_bw=bytes_total / t_ovl / 1e9 / info["h2d_pinned_gbs"],
                   resident_docs_per_s=args.n / t_res, serial_docs_per_s=args.n / t_ser,
                   compute_est_s=compute_est,
                   hidden_frac=(t_ser - t_ovl) / hideable if hideable > 0 else float("nan"),
                   bound="copy" if info["copy_only_s"] >= compute_est else "compute")
        rows.append(row)
        log(f"Nq={nq:4d}: overlap {t_ovl * 1e3:8.1f} ms ({row['docs_per_s'] / 1e3:8.1f} K docs/s, "
            f"{row['gbs']:5.1f} GB/s = {100 * row['frac_of_pinned_bw']:3.0f}% of pinned), serial {t_ser * 1e3:8.1f} ms, "
            f"resident {t_res * 1e3:8.1f} ms, copy only {info['copy_only_s'] * 1e3:6.1f} ms, "
            f"compute ~{compute_est * 1e3:6.1f} ms, "
            f"hidden {hidden_text(row['hidden_frac'], info['copy_only_s'], compute_est)}"
            + (f", pageable {row['pageable_s'] * 1e3:8.1f} ms" if "pageable_s" in row else ""))

        if nq == args.nq_list[0]:
            # brute force on a slice: fp32 einsum, masked max, sum, sorted
            m = min(2000, args.n)
            s, i = maxsim_topk(Q, corpus[:m], args.k, corpus_mask=mask[:m], block_size=min(block, 700))
            S = torch.einsum("isd,jtd->ijst", Q.float(), resident[:m].float())
            S = S.masked_fill(~resident_mask[:m][None, :, None, :], float("-inf")).amax(-1).sum(-1)
            ref = torch.sort(S, dim=1, descending=True, stable=True).values[:, :args.k]
            err = ((s - ref).abs().max() / ref.abs().max()).item()
            checks.append(dict(nq=nq, variant="brute_force_slice", max_rel_err=err, ok=err < 1e-3))
            log(f"brute-force slice ({m} docs): max rel err of the top-{args.k} scores {err:.2e}")

    sweep = []
    nq_sweep = next((q for q in args.nq_list if q >= 32), args.nq_list[-1])
    Q = torch.randn((nq_sweep, args.lq, args.d), device="cuda", generator=gen, dtype=torch.float16)
    for bs in args.sweep:
        maxsim_topk(Q, corpus[: 2 * bs], args.k, corpus_mask=mask[: 2 * bs], block_size=bs)
        t, _ = timed(lambda: maxsim_topk(Q, corpus, args.k, corpus_mask=mask, block_size=bs), args.reps)
        t_r, _ = timed(lambda: maxsim_topk(Q, resident, args.k, corpus_mask=resident_mask, block_size=bs), args.reps)
        sweep.append(dict(nq=nq_sweep, block_size=bs, overlap_s=t, resident_s=t_r, docs_per_s=args.n / t,
                          gbs=bytes_total / t / 1e9))
        log(f"block {bs:5d} docs ({bs * args.ld * args.d * 2 / 2**20:6.1f} MiB), Nq={nq_sweep}: "
            f"overlap {t * 1e3:8.1f} ms ({args.n / t / 1e3:8.1f} K docs/s, {bytes_total / t / 1e9:5.1f} GB/s), "
            f"resident {t_r * 1e3:8.1f} ms")
    info["peak_gpu_mb_last_run"] = torch.cuda.max_memory_allocated() / 2**20

    result = dict(info=info, rows=rows, sweep=sweep, checks=checks)
    with open(os.path.join(args.out, "retrieval.json"), "w") as f:
        json.dump(result, f, indent=1)
    md = [f"# MaxSim top-{args.k} streamed from host memory: {info['device']}", "",
          f"Corpus {args.n} docs x {args.ld} x {args.d} fp16 + mask = {info['corpus_gb']:.2f} GB pinned; "
          f"Lq {args.lq}; block {block} docs ({info['block_mb']:.0f} MiB). "
          f"Host->device, measured in this run: pinned {info['h2d_pinned_gbs']:.1f} GB/s, "
          f"pageable {info['h2d_pageable_gbs']:.1f} GB/s; the corpus's blocks alone "
          f"{info['copy_only_s'] * 1e3:.0f} ms ({info['copy_only_gbs']:.1f} GB/s).", "",
          "| Nq | overlap | docs/s | GB/s | % pinned bw | serial | compute (serial - copy) | hidden | "
          "resident (no copy) | pageable |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['nq']} | {r['overlap_s'] * 1e3:.1f} ms | {r['docs_per_s'] / 1e3:.0f} K | {r['gbs']:.1f} | "
                  f"{100 * r['frac_of_pinned_bw']:.0f}% | {r['serial_s'] * 1e3:.1f} ms | {r['compute_est_s'] * 1e3:.1f} ms | "
                  f"{hidden_text(r['hidden_frac'], r['copy_only_s'], r['compute_est_s'])} | {r['resident_s'] * 1e3:.1f} ms | "
                  + (f"{r['pageable_s'] * 1e3:.1f} ms |" if "pageable_s" in r else "- |"))
    if sweep:
        md += ["", f"Block size (Nq = {nq_sweep}):", "", "| block | MiB | overlap | docs/s | GB/s | resident |",
               "|---|---|---|---|---|---|"]
        for r in sweep:
            md.append(f"| {r['block_size']} | {r['block_size'] * args.ld * args.d * 2 / 2**20:.1f} | "
                      f"{r['overlap_s'] * 1e3:.1f} ms | {r['docs_per_s'] / 1e3:.0f} K | {r['gbs']:.1f} | "
                      f"{r['resident_s'] * 1e3:.1f} ms |")
    ok = all(c.get("equal_to_resident", c.get("ok", False)) for c in checks)
    md += ["", f"Checks: {'all passed' if ok else 'FAILED'} ({len(checks)}): streamed == resident bitwise; "
           "brute-force slice within 1e-3."]
    with open(os.path.join(args.out, "retrieval.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    log("\n".join(md))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
