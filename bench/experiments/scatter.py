#!/usr/bin/env python3
"""Which scatter backward="deterministic" should use: the inverse index or
one-hot tiles, against the atomic backward, at the training shapes.

Run on the GPU machine from the repository root:

    python3 bench/experiments/scatter.py --out DIR [--cases splade,colbert128,...] [--budget-s S]

For each case of bench/experiments/onehot_blocks.py's make_case (the Splade head; MaxSim
in-batch cross-entropy at ColBERT B=128/512 and ColPali B=32/64, bf16; Chamfer
at 10K and 100K points, fp32) it times the whole training step
(triton.testing.do_bench median, forward + loss + backward) with

- backward="atomic";
- backward="deterministic" with HSR_SCATTER=onehot (default blocks);
- backward="deterministic" with HSR_SCATTER=inverse, for each
  (entries per step, block of d, warps) in INVERSE_CONFIGS (HSR_INVERSE_BLOCKS);

each with its peak memory beyond the inputs, a check that two runs give
bitwise-equal gradients (deterministic ones), and the relative norm difference
of its gradients from the atomic backward's. Writes scatter.json and prints a
markdown table.
"""

from __future__ import annotations

import os
import time

from onehot_blocks import case_args, make_case, make_step, write_cases  # bench/experiments/onehot_blocks.py, beside this script

CASES = ("splade", "colbert128", "colbert512", "colpali32", "colpali64", "chamfer10k", "chamfer100k")
INVERSE_CONFIGS = [(16, 256, 4), (32, 256, 4), (32, 256, 8), (8, 256, 4), (16, 128, 4), (64, 128, 8)]


def main():
    args = case_args(__doc__, CASES)
    import torch
    import triton.testing

    t0 = time.monotonic()
    results = []
    for name in args.cases.split(","):
        if time.monotonic() - t0 > args.budget_s:
            print(f"{name}: skipped, past the budget", flush=True)
            continue
        leaves, loss = make_case(torch, name)
        step = make_step(leaves, loss)

        def measure(label, bw, scatter=None, blocks=None, reference=None):
            for key, value in (("HSR_SCATTER", scatter), ("HSR_INVERSE_BLOCKS", blocks)):
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            try:
                g1 = step(bw)
                g2 = step(bw)
                ms = triton.testing.do_bench(lambda: step(bw), warmup=25, rep=100, return_mode="median")
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                base = torch.cuda.memory_allocated()
                for t in leaves:
                    t.grad = None
                loss(bw).backward()
                torch.cuda.synchronize()
                peak = (torch.cuda.max_memory_allocated() - base) / 2**30
                entry = dict(variant=label, ms=ms, peak_gib=peak,
                             rerun_bitwise_equal=all(torch.equal(a, b) for a, b in zip(g1, g2)))
                if reference is not None:
                    entry["rel_diff_vs_atomic"] = [((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30)).item()
                                                   for a, b in zip(g1, reference)]
            except Exception as e:  # noqa: BLE001
                entry, g1 = dict(variant=label, error=f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"), None
            finally:
                os.environ.pop("HSR_SCATTER", None)
                os.environ.pop("HSR_INVERSE_BLOCKS", None)
            print(f"  {name}: {entry}", flush=True)
            return entry, g1

        atomic, atomic_grads = measure("atomic", "atomic")
        row = dict(case=name, variants=[atomic])
        row["variants"].append(measure("onehot", "deterministic", scatter="onehot", reference=atomic_grads)[0])
        row["variants"].append(measure("inverse (default)", "deterministic", scatter="inverse",
                                       reference=atomic_grads)[0])
        for cfg in INVERSE_CONFIGS:
            if time.monotonic() - t0 > args.budget_s:
                break
            row["variants"].append(measure(f"inverse {cfg}", "deterministic", scatter="inverse",
                                           blocks=",".join(map(str, cfg)), reference=atomic_grads)[0])
        results.append(row)
        del leaves, loss, atomic_grads
        torch.cuda.empty_cache()
    out = write_cases(args.out, "scatter.json", results)
    print(f"\n{out['device']}, torch {out['torch']}, triton {out['triton']}; training step ms / peak GiB")
    print("| case | atomic | onehot | inverse (default) | best inverse | its config | bitwise | rel diff vs atomic |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        by = {v["variant"]: v for v in r["variants"]}
        cell = lambda v: f"{v['ms']:.3f} / {v['peak_gib']:.3f}" if v and "ms" in v else "-"  # noqa: E731
        inv = [v for v in r["variants"] if v["variant"].startswith("inverse") and "ms" in v]
        best = min(inv, key=lambda v: v["ms"]) if inv else None
        print(f"| {r['case']} | {cell(by.get('atomic'))} | {cell(by.get('onehot'))} | {cell(by.get('inverse (default)'))} | "
              f"{cell(best)} | {best['variant'] if best else '-'} | {best['rerun_bitwise_equal'] if best else '-'} | "
              + (" / ".join(f"{e:.1e}" for e in best.get("rel_diff_vs_atomic", [])) if best else "-") + " |")


if __name__ == "__main__":
    main()
