#!/usr/bin/env python3
"""Probe: how far the wide-row MaxSim (one query of 32 tokens against 1000 documents of 512, d = 768,
fp16) sits from a read-only floor, and which of the dispatch's switches moves it.

The off-grid table measures its floor with a copy (read + write); this kernel only reads. Timed here in
one process, do_bench medians, ms: reads of D alone (torch's sum and amax over it, and a Triton kernel
that loads every byte), hsr.ops.maxsim under its rules and under each switch (HSR_PERSIST, HSR_TMA,
HSR_CONTRACTION chunks), and flash-maxsim where installed. One JSON line a row.

    python3 bench/experiments/wide_probe.py [--out DIR] [--entry]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
from pathlib import Path

import torch
import triton
import triton.language as tl

import hsr.ops
from hsr import kept

SWITCHES = [{}, {"HSR_PERSIST": "1"}, {"HSR_TMA": "1"}, {"HSR_CONTRACTION": "1,128"}, {"HSR_CONTRACTION": "1,32"},
            {"HSR_PERSIST": "1", "HSR_CONTRACTION": "1,128"}]


@triton.jit
def _read(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Every element of x read once, a block a program; one partial max stored (so nothing is elided)."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + tl.program_id(0), tl.max(x, axis=0))


ENTRY = '["sum_max_dot-67d735b87539", "", [32, 512, 1, 0, 64, 1024, false, 0, 1, "torch.float16"]]'
# (BLOCK_C, stages, warps, BLOCK_R): the shipped entry of that key (tuned at d = 896) and the others
ENTRY_CONFIGS = [(64, 3, 4, 32), (128, 4, 4, 32), (128, 3, 4, 32), (64, 4, 4, 32), (128, 3, 4, 64), (256, 3, 8, 32)]


def entry_configs(out, lengths=(512,)):
    """One query of 32 tokens against 1000 documents of each length (257 to 512: one bucket) at d = 640 to
    1024 (one key: d's bucket 1024), under each of ENTRY_CONFIGS put in place of the shipped entry."""
    from hsr import autotune, tuned
    shipped = tuned.shipped
    q_all = torch.nn.functional.normalize(torch.randn(1, 32, 1024, device="cuda"), dim=-1).half()
    for ld, dim in ((ld, dim) for ld in lengths for dim in (640, 768, 896, 1024)):
        q = q_all[..., :dim].contiguous()
        d = torch.nn.functional.normalize(torch.randn(1000, ld, dim, device="cuda"), dim=-1).half()
        row = {"Ld": ld, "d": dim}
        for cols, stages, warps, rows in ENTRY_CONFIGS:
            config = {"kwargs": {"BLOCK_C": cols, "BLOCK_G": 1, "BLOCK_R": rows}, "num_stages": stages,
                      "num_warps": warps}
            tuned.shipped = lambda arch, c=config: {**shipped(arch), ENTRY: c}
            for kernel in [k for k in gc.get_objects() if isinstance(k, autotune.Tuned)]:
                kernel.configs.clear()
                kernel.predicted.clear()
            kept.forget(launches=True)
            row[f"{rows}x{cols} {warps}w {stages}s"] = bench(lambda: hsr.ops.maxsim(q, d))
        tuned.shipped = shipped
        print(json.dumps(row), file=out, flush=True)
        print(json.dumps(row), flush=True)
        del d


def bench(f):
    return round(triton.testing.do_bench(f, warmup=25, rep=200), 4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--entry", action="store_true", help="also time the d-bucket-1024 key's candidate configs")
    ap.add_argument("--lengths", default="512", help="--entry's document lengths (257 to 512), comma-separated")
    ap.add_argument("--entry-only", action="store_true", help="--entry alone")
    args = ap.parse_args()
    torch.manual_seed(0)
    if args.entry_only:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        with open(Path(args.out) / "wide_entry.jsonl", "w") as out:
            entry_configs(out, tuple(int(x) for x in args.lengths.split(",")))
        return
    q = torch.nn.functional.normalize(torch.randn(1, 32, 768, device="cuda"), dim=-1).half()
    d = torch.nn.functional.normalize(torch.randn(1000, 512, 768, device="cuda"), dim=-1).half()
    gb = d.numel() * d.element_size() / 1e9
    row = {"bytes_GB": round(gb, 4)}
    flat = d.view(-1)
    for block in (4096, 16384):
        part = torch.empty(triton.cdiv(flat.numel(), block), device="cuda", dtype=torch.float16)
        row[f"triton read {block}"] = bench(lambda: _read[(part.numel(),)](flat, part, flat.numel(), BLOCK=block))
    row["torch sum"] = bench(lambda: d.sum(dtype=torch.float32))
    row["torch amax"] = bench(lambda: d.amax())
    best_read = min(v for k, v in row.items() if k.startswith(("triton read", "torch")))
    row["read TB/s"] = round(gb / best_read, 3)
    for switch in SWITCHES:
        saved = {k: os.environ.get(k) for k in switch}
        os.environ.update(switch)
        kept.forget(launches=True)
        name = "hsr " + (",".join(f"{k}={v}" for k, v in switch.items()) or "rules")
        try:
            row[name] = bench(lambda: hsr.ops.maxsim(q, d))
        except Exception as e:  # noqa: BLE001 - a switch the call cannot take is a row's note
            row[name] = f"{type(e).__name__}: {str(e)[:80]}"
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    kept.forget(launches=True)
    try:
        import flash_maxsim as fm
        row["flash_maxsim"] = bench(lambda: fm.flash_maxsim(q[0], d))
    except Exception as e:  # noqa: BLE001
        row["flash_maxsim"] = f"{type(e).__name__}: {str(e)[:80]}"
    print(json.dumps(row), flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "wide_probe.json").write_text(json.dumps(row, indent=1) + "\n")
    if args.entry:
        with open(Path(args.out) / "wide_entry.jsonl", "w") as out:
            entry_configs(out, tuple(int(x) for x in args.lengths.split(",")))


if __name__ == "__main__":
    main()
