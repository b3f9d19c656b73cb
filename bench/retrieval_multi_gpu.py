#!/usr/bin/env python3
"""MaxSim top-k over a corpus sharded across GPUs: NCCL check and timings.

Run on a machine with several GPUs, from the repository root:

    torchrun --nproc_per_node=2 bench/retrieval_multi_gpu.py --out DIR [--n 100000] [--nq 1,32,128]

Each rank holds a shard of a ColBERT-like corpus (Ld = 300 tokens of d = 128,
fp16, a random length per document) in pinned host memory and calls
``maxsim_topk_distributed`` (NCCL) on its own GPU. In one run it

1. checks, for two layouts of the shards (even, and uneven: rank r holds a
   share proportional to r + 1), that every rank's merged top-k equals a
   single-GPU ``maxsim_topk`` over the whole corpus on rank 0, indices and
   scores, bitwise. The tokens are small integers (-4..4), so every score is
   exact in fp32 whatever kernel configuration each process's autotuner
   picked, and ties are many: the check covers the tie rule (lower global
   index first) across ranks. The same call through a gloo group is checked
   too;
2. times, per query count Nq (Lq = 32, k = 100): the distributed call (all
   ranks, gather and merge included), each rank's own streaming
   (``overlap`` and ``serial``: ``overlap=False``), its shard resident on its
   GPU (no copy), its blocks copied with no scoring, and the measured pinned
   host-to-device bandwidth of every rank copying at once; docs/s of the
   whole corpus, and the fraction of the hideable time the overlap hid,
   ``(serial - overlap) / min(copy only, serial - copy only)`` per rank
   (``serial - copy only`` estimates the scoring's GPU time: see
   bench/retrieval.py; n/a where one is under a tenth of the other);
3. writes retrieval_multi_gpu.json and retrieval_multi_gpu.md into --out
   (rank 0) and prints the table.
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
import torch.distributed as dist

from retrieval import copy_only, h2d_bandwidth  # bench/retrieval.py, beside this script

CHUNK = 1024  # documents per generator seed: any rank can build any range


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results", help="directory for retrieval_multi_gpu.{json,md}")
    p.add_argument("--n", type=int, default=100_000, help="documents in the whole corpus (default: %(default)s)")
    p.add_argument("--ld", type=int, default=300)
    p.add_argument("--lq", type=int, default=32)
    p.add_argument("--d", type=int, default=128)
    p.add_argument("--nq", default="1,32,128", help="comma-separated query counts (default: %(default)s)")
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--block-size", type=int, default=None, help="documents per block (default: maxsim_topk's)")
    p.add_argument("--reps", type=int, default=3, help="timed runs per variant, median (default: %(default)s)")
    p.add_argument("--quick", action="store_true", help="N = 20000, Nq = 1,32, 2 reps")
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.nq, args.reps = 20_000, "1,32", 2
    args.nq_list = [int(x) for x in args.nq.split(",") if x.strip()]
    return args


def log(msg, all_ranks=False):
    if all_ranks or dist.get_rank() == 0:
        print(f"[rank {dist.get_rank()}] {msg}" if all_ranks else msg, flush=True)


def make_docs(start, end, ld, d, out=None):
    """Documents start..end-1 (deterministic, whichever rank builds them): pinned
    host tensors [end-start, ld, d] fp16 of integers -4..4 and a mask [.., ld]."""
    n = end - start
    corpus = out[0] if out else torch.empty((n, ld, d), dtype=torch.float16, pin_memory=True)
    mask = out[1] if out else torch.empty((n, ld), dtype=torch.bool, pin_memory=True)
    gen = torch.Generator(device="cuda")
    pos = torch.arange(ld, device="cuda")
    for c in range(start // CHUNK, (end + CHUNK - 1) // CHUNK):
        gen.manual_seed(7_919 * c + 13)
        x = torch.randint(-4, 5, (CHUNK, ld, d), device="cuda", generator=gen).half()
        lengths = torch.randint(ld // 2, ld + 1, (CHUNK, 1), device="cuda", generator=gen)
        lo, hi = max(start, c * CHUNK), min(end, (c + 1) * CHUNK)
        corpus[lo - start:hi - start].copy_(x[lo - c * CHUNK:hi - c * CHUNK])
        mask[lo - start:hi - start].copy_((pos[None, :] < lengths)[lo - c * CHUNK:hi - c * CHUNK])
    torch.cuda.synchronize()
    return corpus, mask


def layout(n, world, kind):
    """[start, end) of every rank's shard."""
    weights = [1] * world if kind == "even" else list(range(1, world + 1))
    cuts = [0]
    for r in range(world):
        cuts.append(n * sum(weights[:r + 1]) // sum(weights))
    return list(zip(cuts[:-1], cuts[1:]))


def timed(fn, reps, barrier=False):
    """Median wall time of `reps` synchronised calls (the slowest rank's with
    barrier=True), after one untimed call (compiles, autotuning)."""
    fn()
    times, out = [], None
    for _ in range(reps):
        torch.cuda.synchronize()
        if barrier:
            dist.barrier()
        t0 = time.perf_counter()
        out = fn()
        torch.cuda.synchronize()
        if barrier:
            dist.barrier()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def gather_obj(obj):
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out


def main(argv=None):
    args = parse_args(argv)
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    gloo = dist.new_group(backend="gloo")
    from hsr.ops.retrieval import BLOCK_BYTES, maxsim_topk, maxsim_topk_distributed
    import triton

    ok = True
    info = dict(world=world, devices=gather_obj(torch.cuda.get_device_name()), torch=torch.__version__,
                triton=triton.__version__, python=platform.python_version(), n=args.n, ld=args.ld, lq=args.lq,
                d=args.d, k=args.k, nccl=".".join(map(str, torch.cuda.nccl.version())))
    log(f"{world} ranks on {info['devices']}, torch {torch.__version__}, triton {triton.__version__}, "
        f"NCCL {info['nccl']}")

    # The whole corpus on rank 0 (for the single-GPU run; rank 0's shards are views of it).
    t0 = time.perf_counter()
    full = make_docs(0, args.n, args.ld, args.d) if rank == 0 else None
    doc_bytes = args.ld * args.d * 2 + args.ld
    block = args.block_size or max(1, BLOCK_BYTES // (args.ld * args.d * 2))  # maxsim_topk's default
    info["block_size"] = block
    gen = torch.Generator(device="cuda").manual_seed(5)
    queries = {nq: torch.randint(-4, 5, (nq, args.lq, args.d), device="cuda", generator=gen).half()
               for nq in args.nq_list}
    singles = {}
    if rank == 0:
        log(f"whole corpus: {args.n} docs, {args.n * doc_bytes / 1e9:.2f} GB pinned, built in "
            f"{time.perf_counter() - t0:.1f} s")
    dist.barrier()
    if rank == 0:
        for nq, Q in queries.items():
            maxsim_topk(Q, full[0][: 2 * block], args.k, corpus_mask=full[1][: 2 * block], block_size=block)
            t, res = timed(lambda: maxsim_topk(Q, full[0], args.k, corpus_mask=full[1], block_size=block), args.reps)
            singles[nq] = dict(time_s=t, result=res)
            log(f"single GPU, Nq={nq}: {t * 1e3:.1f} ms, {args.n / t / 1e3:.1f} K docs/s")
    dist.barrier()

    rows, checks = [], []
    for kind in ("even", "uneven"):
        lo, hi = layout(args.n, world, kind)[rank]
        shard = (full[0][lo:hi], full[1][lo:hi]) if rank == 0 else make_docs(lo, hi, args.ld, args.d)
        dist.barrier()
        log(f"layout {kind}: shards {layout(args.n, world, kind)}")
        for nq, Q in queries.items():
            call = lambda: maxsim_topk_distributed(Q, shard[0], args.k, corpus_mask=shard[1],  # noqa: E731
                                                    block_size=block)
            t_dist, res = timed(call, args.reps, barrier=True)
            # every rank's answer against the single-GPU one, on rank 0
            mine = (res[0].cpu(), res[1].cpu())
            answers = gather_obj(mine)
            gloo_res = maxsim_topk_distributed(Q, shard[0], args.k, corpus_mask=shard[1], block_size=block,
                                               group=gloo)
            gloo_same = gather_obj(torch.equal(gloo_res[0].cpu(), mine[0]) and torch.equal(gloo_res[1].cpu(), mine[1]))
            if rank == 0:
                want = singles[nq]["result"]
                same = [torch.equal(a[0], want[0].cpu()) and torch.equal(a[1], want[1].cpu()) for a in answers]
                ties = int((want[0][:, 1:] == want[0][:, :-1]).sum())
                checks.append(dict(layout=kind, nq=nq, equal_to_single_gpu_per_rank=same, gloo_equal=gloo_same,
                                   tied_neighbours_in_answer=ties))
                ok &= all(same) and all(gloo_same)
                log(f"  Nq={nq}: NCCL result == single GPU on every rank: {same}; gloo group == NCCL: {gloo_same}; "
                    f"{ties} tied neighbours in the answer")
            row = dict(layout=kind, nq=nq, shard=[lo, hi], dist_s=t_dist)
            if kind == "even":
                t_loc, _ = timed(lambda: maxsim_topk(Q, shard[0], args.k, corpus_mask=shard[1], block_size=block),
                                 args.reps, barrier=True)
                t_ser, _ = timed(lambda: maxsim_topk(Q, shard[0], args.k, corpus_mask=shard[1], block_size=block,
                                                     overlap=False), args.reps, barrier=True)
                resident = (shard[0].cuda(), shard[1].cuda())
                t_res, _ = timed(lambda: maxsim_topk(Q, resident[0], args.k, corpus_mask=resident[1]),
                                 args.reps, barrier=True)
                del resident
                torch.cuda.empty_cache()
                dist.barrier()
                t_copy = statistics.median(copy_only(shard[0], shard[1], block) for _ in range(args.reps))
                compute_est = max(t_ser - t_copy, 0.0)
                hideable = min(t_copy, compute_est)
                row.update(local_overlap_s=t_loc, local_serial_s=t_ser, local_resident_s=t_res, copy_only_s=t_copy,
                           compute_est_s=compute_est,
                           hidden_frac=(t_ser - t_loc) / hideable if hideable > 0 else float("nan"))
            rows.append(row)
        del shard
    bw_block = h2d_bandwidth(make_docs(0, block, args.ld, args.d)[0], reps=8, barrier=dist.barrier)
    bws = gather_obj(bw_block)
    all_rows = gather_obj(rows)
    if rank == 0:
        info["h2d_pinned_gbs_per_rank_concurrent"] = bws
        table = []
        for i, r in enumerate(rows):
            per_rank = [rr[i] for rr in all_rows]
            entry = dict(layout=r["layout"], nq=r["nq"], dist_s=max(p["dist_s"] for p in per_rank),
                         docs_per_s=args.n / max(p["dist_s"] for p in per_rank),
                         single_gpu_s=singles[r["nq"]]["time_s"], per_rank=per_rank)
            entry["speedup_vs_single"] = entry["single_gpu_s"] / entry["dist_s"]
            entry["gbs_total"] = args.n * doc_bytes / entry["dist_s"] / 1e9
            table.append(entry)
        result = dict(info=info, rows=table, checks=checks, ok=ok)
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "retrieval_multi_gpu.json"), "w") as f:
            json.dump(result, f, indent=1)
        md = [f"# MaxSim top-{args.k} over {world} GPUs (NCCL): {info['devices'][0]}", "",
              f"Corpus {args.n} docs x {args.ld} x {args.d} fp16 + mask ({args.n * doc_bytes / 1e9:.2f} GB), pinned "
              f"host shards; Lq {args.lq}; block {block} docs. Pinned host->device per rank, all copying at once: "
              + ", ".join(f"{b:.1f}" for b in bws) + " GB/s.", "",
              "| layout | Nq | single GPU | distributed | docs/s | GB/s (all ranks) | speedup | "
              "per rank: overlap / serial / resident / copy only, hidden |",
              "|---|---|---|---|---|---|---|---|"]
        for e in table:
            per = "; ".join(
                f"{p['local_overlap_s'] * 1e3:.0f} / {p['local_serial_s'] * 1e3:.0f} / {p['local_resident_s'] * 1e3:.0f}"
                f" / {p['copy_only_s'] * 1e3:.0f} ms, "
                + ("n/a" if p["compute_est_s"] < 0.1 * p["copy_only_s"] or p["copy_only_s"] < 0.1 * p["compute_est_s"]
                   else f"{100 * p['hidden_frac']:.0f}%")
                for p in e["per_rank"]) if "local_overlap_s" in e["per_rank"][0] else "-"
            md.append(f"| {e['layout']} | {e['nq']} | {e['single_gpu_s'] * 1e3:.1f} ms | {e['dist_s'] * 1e3:.1f} ms | "
                      f"{e['docs_per_s'] / 1e3:.0f} K | {e['gbs_total']:.1f} | {e['speedup_vs_single']:.2f}x | {per} |")
        md += ["", f"Checks: {'all passed' if ok else 'FAILED'}: the NCCL answer equals the single-GPU answer "
               "bitwise on every rank, for both layouts and every Nq; a gloo group gives the same."]
        with open(os.path.join(args.out, "retrieval_multi_gpu.md"), "w") as f:
            f.write("\n".join(md) + "\n")
        log("\n".join(md))
    ok_all = all(gather_obj(ok))
    dist.destroy_process_group()
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
