#!/usr/bin/env python3
"""Block sizes of the tensor-core one-hot backward ("deterministic") at the
training shapes: MaxSim in-batch contrastive steps and the Splade head.

Run on the GPU machine from the repository root:

    python3 bench/experiments/onehot_blocks.py --out DIR [--cases splade,colbert128,...] [--budget-s S]

For each case it times (triton.testing.do_bench medians) the training step
with backward="atomic", then with backward="deterministic" for each
(block of selected rows, block of outer rows, block of d, warps, stages) in
CONFIGS, set through HSR_ONEHOT_BLOCKS. For each configuration it checks that
two runs give bitwise-equal gradients, and reports the relative norm
difference of its gradients from the atomic backward's. Cases: the Splade head
(B=32, L=256, H=768, V=30522, lengths uniform in [L/2, L], loss out.sum()) and
MaxSim in-batch cross-entropy (ColBERT B=128/512 with Lq=32, Ld=300; ColPali
B=32/64 with Lq=Ld=1024), bf16, d=128; make_case also builds Chamfer
distances (chamfer10k, chamfer100k: fp32 clouds of N points, d=3). Writes onehot_blocks.json and prints a
table.
"""

from __future__ import annotations

import argparse
import json
import os
import time

CONFIGS = [(64, 64, 128, 4, 3), (64, 64, 128, 8, 3), (128, 64, 128, 8, 3), (64, 32, 128, 4, 3),
           (128, 128, 128, 8, 2), (64, 128, 128, 4, 3), (128, 64, 64, 4, 3), (32, 64, 128, 4, 4)]
CASES = ("splade", "colbert128", "colbert512", "colpali32", "colpali64")


def make_case(torch, name):
    """(leaves, loss(backward) -> scalar)."""
    from hsr.ops import maxsim, splade_max
    g = torch.Generator(device="cuda").manual_seed(0)
    if name == "splade":
        B, L, H, V = 32, 256, 768, 30522
        hidden = torch.randn(B, L, H, device="cuda", generator=g).bfloat16().requires_grad_()
        weight = (torch.randn(V, H, device="cuda", generator=g) / H ** 0.5).bfloat16().requires_grad_()
        bias = (0.1 * torch.randn(V, device="cuda", generator=g)).bfloat16().requires_grad_()
        lengths = torch.randint(L // 2, L + 1, (B,), device="cuda", generator=g)
        mask = torch.arange(L, device="cuda")[None, :] < lengths[:, None]
        return [hidden, weight, bias], lambda bw: splade_max(hidden, weight, bias, mask, backward=bw).sum()
    if name.startswith("chamfer"):  # chamfer10k, chamfer100k: two clouds of N points in 3-d, fp32
        from hsr.ops import chamfer_distance
        n = int(name[len("chamfer"):].rstrip("k")) * 1000
        x = torch.randn(1, n, 3, device="cuda", generator=g).requires_grad_()
        y = torch.randn(1, n, 3, device="cuda", generator=g).requires_grad_()
        return [x, y], lambda bw: chamfer_distance(x, y, backward=bw)
    b, lq, ld = {"colbert128": (128, 32, 300), "colbert512": (512, 32, 300),
                 "colpali32": (32, 1024, 1024), "colpali64": (64, 1024, 1024)}[name]
    q = torch.randn(b, lq, 128, device="cuda", generator=g).bfloat16().requires_grad_()
    d = torch.randn(b, ld, 128, device="cuda", generator=g).bfloat16().requires_grad_()
    labels = torch.arange(b, device="cuda")
    return [q, d], lambda bw: torch.nn.functional.cross_entropy(maxsim(q, d, backward=bw), labels)


def make_step(leaves, loss):
    """step(backward) -> the leaves' gradients (cloned) after one forward and backward."""
    def step(bw):
        for t in leaves:
            t.grad = None
        loss(bw).backward()
        return [t.grad.clone() for t in leaves]
    return step


def case_args(doc, cases):
    """--out, --cases (of make_case), --budget-s: what the case sweeps take."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--out", default="bench/results")
    p.add_argument("--cases", default=",".join(cases))
    p.add_argument("--budget-s", type=float, default=400.0)
    return p.parse_args()


def write_cases(out_dir, filename, results):
    """Write {device, versions, cases} as JSON under out_dir; returns it."""
    import torch
    import triton
    out = dict(device=torch.cuda.get_device_name(0), torch=torch.__version__, triton=triton.__version__,
               cases=results)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, filename), "w") as f:
        json.dump(out, f, indent=1)
    return out


def main():
    args = case_args(__doc__, CASES)
    import torch
    import triton
    import triton.testing

    t0 = time.monotonic()
    results = []
    for name in args.cases.split(","):
        leaves, loss = make_case(torch, name)
        step = make_step(leaves, loss)

        def ms(fn):
            fn()
            fn()
            return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")

        os.environ.pop("HSR_ONEHOT_BLOCKS", None)
        atomic_ms, atomic = ms(lambda: step("atomic")), step("atomic")
        default_ms = ms(lambda: step("deterministic"))
        row = dict(case=name, atomic_ms=atomic_ms, deterministic_default_ms=default_ms, configs=[])
        print(f"{name}: atomic {atomic_ms:.3f} ms, deterministic (default blocks) {default_ms:.3f} ms", flush=True)
        for cfg in CONFIGS:
            if time.monotonic() - t0 > args.budget_s:
                print(f"  skipped {cfg}: past the budget", flush=True)
                continue
            os.environ["HSR_ONEHOT_BLOCKS"] = ",".join(map(str, cfg))
            try:
                t = ms(lambda: step("deterministic"))
                g1, g2 = step("deterministic"), step("deterministic")
                entry = dict(config=cfg, ms=t, rerun_bitwise_equal=all(torch.equal(a, b) for a, b in zip(g1, g2)),
                             rel_diff_vs_atomic=[((a.double() - b.double()).norm() / b.double().norm()).item()
                                                 for a, b in zip(g1, atomic)])
            except Exception as e:  # noqa: BLE001
                entry = dict(config=cfg, error=f"{type(e).__name__}: {' '.join(str(e).split())[:200]}")
            print("  ", entry, flush=True)
            row["configs"].append(entry)
        os.environ.pop("HSR_ONEHOT_BLOCKS", None)
        results.append(row)
        del leaves, loss
        torch.cuda.empty_cache()
    out = write_cases(args.out, "onehot_blocks.json", results)
    print(f"\n{out['device']}, torch {out['torch']}, triton {out['triton']}; step ms")
    print("| case | atomic | deterministic, default | best config | best ms | rerun bitwise | rel diff vs atomic |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        ok = [c for c in r["configs"] if "ms" in c]
        best = min(ok, key=lambda c: c["ms"]) if ok else None
        print(f"| {r['case']} | {r['atomic_ms']:.3f} | {r['deterministic_default_ms']:.3f} | "
              + (f"{best['config']} | {best['ms']:.3f} | {best['rerun_bitwise_equal']} | "
                 f"{' / '.join(f'{e:.1e}' for e in best['rel_diff_vs_atomic'])} |" if best else "- | - | - | - |"))


if __name__ == "__main__":
    main()
