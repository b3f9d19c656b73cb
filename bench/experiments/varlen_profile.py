#!/usr/bin/env python3
"""Where a packed MaxSim call's time goes: the public call (do_bench), its host
time per call (wall, no sync), and each kernel's GPU time (torch.profiler), for
the reranking and pairs shapes of bench/varlen.py, packed against padded.
`varlen_profile.py step512`: the B=512 in-batch training step by backward."""

import os
import sys
import time

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import varlen as V  # noqa: E402
from hsr.ops import maxsim, maxsim_pairs, maxsim_varlen  # noqa: E402


def report(name, fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
    t0 = time.perf_counter()
    for _ in range(200):
        fn()
    host = (time.perf_counter() - t0) / 200 * 1e3
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            fn()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            kernels.setdefault(e.name, []).append(e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total)
    print(f"{name}: do_bench {ms:.4f} ms, host {host:.4f} ms/call")
    for k, v in sorted(kernels.items(), key=lambda kv: -sum(kv[1])):
        print(f"    {sum(v) / 10 / 1e3:8.4f} ms/call  x{len(v) // 10:3d}  {k[:90]}")


def step512():
    """The B=512 in-batch step by backward: every sequence full length (32 x 300, no masks), and
    lengths drawn uniform (packed, and padded with masks): which kernels take its time."""
    gen = torch.Generator().manual_seed(1)
    lq = V._lengths(torch, gen, 512, 1, 32)
    ld = V._lengths(torch, gen, 512, 1, 300)
    (Q, cq), (D, cd) = V._pack(torch, lq, torch.float16, gen), V._pack(torch, ld, torch.float16, gen)
    Qp, qm = V._pad(torch, Q, lq)
    Dp, dm = V._pad(torch, D, ld)
    Q, D, cq, cd, Qp, qm, Dp, dm = (x.cuda() for x in (Q, D, cq, cd, Qp, qm, Dp, dm))
    Q.requires_grad_(), D.requires_grad_(), Qp.requires_grad_(), Dp.requires_grad_()
    mq, md = int(lq.max()), int(ld.max())
    Qf = torch.randn(512, 32, 128, device="cuda", dtype=torch.float16).requires_grad_()
    Df = torch.randn(512, 300, 128, device="cuda", dtype=torch.float16).requires_grad_()
    for mode in ("atomic", "deterministic"):
        report(f"inbatch512 full-length step {mode}", lambda: maxsim(Qf, Df, backward=mode).sum().backward())
        report(f"inbatch512 packed step {mode}",
               lambda: maxsim_varlen(Q, D, cq, cd, mq, md, backward=mode).sum().backward())
        report(f"inbatch512 padded step {mode}", lambda: maxsim(Qp, Dp, qm, dm, backward=mode).sum().backward())


def main():
    if sys.argv[1:] == ["step512"]:
        return step512()
    gen = torch.Generator().manual_seed(0)
    dtype = torch.float16
    lq = torch.tensor([32])
    ld = V._lengths(torch, gen, 1000, 40, 300)
    (Q, cq), (D, cd) = V._pack(torch, lq, dtype, gen), V._pack(torch, ld, dtype, gen)
    Dp, dm = V._pad(torch, D, ld)
    md = int(ld.max())
    Q, D, cq, cd, Dp, dm = (x.cuda() for x in (Q, D, cq, cd, Dp, dm))
    report("rerank packed", lambda: maxsim_varlen(Q, D, cq, cd, 32, md))
    report("rerank packed, no max_seqlen", lambda: maxsim_varlen(Q, D, cq, cd))
    report("rerank padded", lambda: maxsim(Q, Dp, None, dm))
    lq = V._lengths(torch, gen, 512, 1, 32)
    ld = V._lengths(torch, gen, 512, 1, 300)
    (Q, cq), (D, cd) = V._pack(torch, lq, dtype, gen), V._pack(torch, ld, dtype, gen)
    Q, D, cq, cd = (x.cuda() for x in (Q, D, cq, cd))
    report("pairs512 packed", lambda: maxsim_pairs(Q, D, cq, cd, int(lq.max()), int(ld.max())))
    report("inbatch512 packed", lambda: maxsim_varlen(Q, D, cq, cd, int(lq.max()), int(ld.max())))
    lq = V._lengths(torch, gen, 128, 1, 32)
    ld = V._lengths(torch, gen, 128, 1, 300)
    (Q, cq), (D, cd) = V._pack(torch, lq, dtype, gen), V._pack(torch, ld, dtype, gen)
    Qp, qm = V._pad(torch, Q, lq)
    Dp, dm = V._pad(torch, D, ld)
    Q, D, cq, cd, Qp, qm, Dp, dm = (x.cuda() for x in (Q, D, cq, cd, Qp, qm, Dp, dm))
    report("inbatch128 packed", lambda: maxsim_varlen(Q, D, cq, cd, int(lq.max()), int(ld.max())))
    report("inbatch128 padded", lambda: maxsim(Qp, Dp, qm, dm))
    Q.requires_grad_(), D.requires_grad_(), Qp.requires_grad_(), Dp.requires_grad_()
    mq, md = int(lq.max()), int(ld.max())
    report("inbatch128 packed step", lambda: maxsim_varlen(Q, D, cq, cd, mq, md).sum().backward())
    report("inbatch128 padded step", lambda: maxsim(Qp, Dp, qm, dm).sum().backward())


if __name__ == "__main__":
    main()
