#!/usr/bin/env python3
"""Does the launch order of packed sequences matter? The same packed data with
the documents (and queries) in drawn order, longest first and shortest first,
timed through hsr.ops.maxsim_varlen (do_bench, fp16), for uniform lengths and a
skewed draw (most documents short, a few 10x longer). Longest first is what a
sorted grid would launch; if it is not faster, balancing the grid buys nothing
here (the block scheduler already fills the SMs from the queue)."""

import os
import sys

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import varlen as V  # noqa: E402
from hsr.ops import maxsim_varlen  # noqa: E402


def pack(lengths, gen):
    rows, cu = V._pack(torch, lengths, torch.float16, gen)
    return rows.cuda(), cu.cuda()


def case(name, lq, ld, gen, grad=False):
    out = {}
    for order in ("drawn", "longest first", "shortest first", "drawn again"):
        if order.startswith("drawn"):
            q_idx, d_idx = torch.arange(len(lq)), torch.arange(len(ld))
        else:
            q_idx = torch.argsort(lq, descending=order == "longest first")
            d_idx = torch.argsort(ld, descending=order == "longest first")
        (Q, cq), (D, cd) = pack(lq[q_idx], gen), pack(ld[d_idx], gen)
        mq, md = int(lq.max()), int(ld.max())
        if grad:
            Q.requires_grad_(), D.requires_grad_()
            fn = lambda: maxsim_varlen(Q, D, cq, cd, mq, md).sum().backward()  # noqa: E731
        else:
            fn = lambda: maxsim_varlen(Q, D, cq, cd, mq, md)  # noqa: E731
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        out[order] = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median",
                                             grad_to_none=[Q, D] if grad else None)
    base = out["drawn"]
    print(f"{name:38s} " + "  ".join(f"{k} {v:.4f} ms ({base / v:.2f}x)" for k, v in out.items()), flush=True)


def main():
    gen = torch.Generator().manual_seed(0)
    print(torch.cuda.get_device_name())
    for b in (128, 512):
        lq, ld = V._lengths(torch, gen, b, 1, 32), V._lengths(torch, gen, b, 1, 300)
        case(f"in-batch B={b} uniform, forward", lq, ld, gen)
        case(f"in-batch B={b} uniform, step", lq, ld, gen, grad=True)
        skew = torch.where(torch.rand(b, generator=gen) < 0.05, 3000, 1) * V._lengths(torch, gen, b, 20, 100)
        skew = skew.clamp(max=3000)
        case(f"in-batch B={b} skewed, forward", lq, skew, gen)
    lq = torch.tensor([32])
    ld = V._lengths(torch, gen, 1000, 40, 300)
    case("rerank 1000 uniform", lq, ld, gen)
    skew = torch.where(torch.rand(1000, generator=gen) < 0.05, 3000, 1) * V._lengths(torch, gen, 1000, 20, 100)
    case("rerank 1000 skewed", lq, skew.clamp(max=3000), gen)


if __name__ == "__main__":
    main()
