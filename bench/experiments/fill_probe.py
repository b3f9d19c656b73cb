#!/usr/bin/env python3
"""Probe: how fast a dense gradient's zeros are written (grad H_d of a hidden-state step: 1.6 and 3.2 GB bf16):
torch.zeros, torch.empty then zero_(), a Triton kernel storing zeros, against a bare copy's rate. do_bench ms, TB/s.

    python3 bench/experiments/fill_probe.py
"""
import json

import torch
import triton
import triton.language as tl
import triton.testing


@triton.jit
def _zeros(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros([BLOCK], x_ptr.dtype.element_ty), mask=offs < n)


def main():
    for n in (512 * 2048 * 768, 1024 * 2048 * 768):
        x = torch.empty(n, dtype=torch.bfloat16, device="cuda")
        y = torch.empty_like(x)
        gb = n * 2 / 1e9
        row = {"GB": round(gb, 2)}
        for name, fn in (("torch.zeros", lambda: torch.zeros(n, dtype=torch.bfloat16, device="cuda")),
                         ("zero_", lambda: x.zero_()),
                         ("triton 4096", lambda: _zeros[(triton.cdiv(n, 4096),)](x, n, BLOCK=4096)),
                         ("triton 16384", lambda: _zeros[(triton.cdiv(n, 16384),)](x, n, BLOCK=16384, num_warps=8)),
                         ("copy (read + write)", lambda: y.copy_(x))):
            ms = triton.testing.do_bench(fn)
            row[name] = f"{ms:.4f} ms, {gb * (2 if 'copy' in name else 1) / ms:.2f} TB/s"
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
