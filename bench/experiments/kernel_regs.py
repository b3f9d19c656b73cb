#!/usr/bin/env python3
"""Registers and spills of the compiled forward kernels of a call, for each setting of an HSR_* switch:
the k-means assignment (2^20 points, 1024 centres, f = 128, fp16) under HSR_SHIFT16=0 and 1.

    python3 bench/experiments/kernel_regs.py

Prints each compiled kernel's name, its constexprs that differ, n_regs, n_spills and the call's do_bench
median; a slow variant with spills points at registers, one without at the schedule."""

from __future__ import annotations

import gc
import os

import torch
import triton

import hsr
from hsr import kept


def compiled_kernels():
    seen = []
    for obj in gc.get_objects():
        if isinstance(obj, triton.runtime.jit.JITFunction) and obj.__name__.endswith("_fwd"):
            for cache in getattr(obj, "device_caches", {}).values():
                for key, ck in cache[0].items():
                    seen.append((obj.__name__, ck))
    return seen


def main():
    op = hsr.compile(open("examples/kmeans_assign.hsr").read())
    g = torch.Generator(device="cuda").manual_seed(0)
    for offset in (0.0, 1000.0):
        x = (torch.rand(1 << 20, 128, device="cuda", generator=g) + offset).half()
        c = (torch.rand(1024, 128, device="cuda", generator=g) + offset).half()
        for shift in ("0", "1"):
            os.environ["HSR_SHIFT16"] = shift
            kept.forget()
            op(x, c)
            ms = triton.testing.do_bench(lambda: op(x, c))
            print(f"offset {offset} HSR_SHIFT16={shift}: {ms:.3f} ms", flush=True)
    for name, ck in compiled_kernels():
        consts = {k: v for k, v in getattr(ck.src, "constants", {}).items() if not isinstance(v, (type(None),))}
        flags = {k: consts[k] for k in consts if isinstance(k, str) and k in ("SHIFT_A", "COL_NORMS", "DOT_MODE",
                                                                             "BLOCK_N", "BLOCK_K", "PRECISION")}
        print(name, flags or consts, "regs", ck.n_regs, "spills", ck.n_spills, flush=True)


if __name__ == "__main__":
    main()
