"""MaxSim training step on the GPU: in-batch contrastive loss, forward + backward.

scores = maxsim(Q, D) over Nq = Nd = B, loss = cross_entropy(scores, arange(B)),
then loss.backward(): timed (triton.testing.do_bench medians, in rounds that
interleave the variants; the median over rounds) with the peak
memory beyond the inputs, for naive autograd, hsr's two backwards and the two
peers when they import. Each variant's loss and gradients are checked against
an fp32 autograd reference on the same inputs.

    python bench/maxsim_train.py --out DIR [--shapes colbert128,colpali32] [--no-peers] [--variants a,b]
    python bench/maxsim_train.py --table off-grid --out DIR

``--table off-grid`` runs the same step at LateOn's long-document shapes
(maxsim_forward.LONG_DOCS: Nq queries of 32 tokens against Nd documents,
labels arange(Nq)) for hsr, late_interaction_kernels and eager autograd, and
measures the machine's matmul and copy ceilings first (maxsim_forward.Bench):
each row's floor is max(FLOPs / matmul rate, bytes / copy rate) with FLOPs =
2 Nq Nd Lq Ld d (the scores) + 4 Nq Nd Lq d (each query token's chosen
document row, gathered for grad Q and scattered into grad D) and bytes = Q
and D read once, grad Q and grad D written once, the fp32 scores written and
their gradient read; writes maxsim_train_off_grid.{json,md}. ``--plan``
prints the shapes and their floors' counts without a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # maxsim_forward, also under python -P
from maxsim_forward import ELEM_BYTES, LONG_DOCS, Bench, ceilings_line, fmt_ms, not_run  # noqa: E402

SHAPES = {  # name: (Nq, Nd, Lq, Ld); in-batch: Nq = Nd = B
    "colbert128": (128, 128, 32, 300),
    "colbert512": (512, 512, 32, 300),
    "colpali32": (32, 32, 1024, 1024),
    "colpali64": (64, 64, 1024, 1024),
}
TABLES = {"grid": SHAPES, "off-grid": LONG_DOCS}
OFF_GRID_VARIANTS = "naive,hsr_atomic,hsr_deterministic,late_interaction_kernels"
DIM = 128


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results")
    p.add_argument("--table", default="grid", choices=tuple(TABLES),
                   help="grid: in-batch Nq = Nd; off-grid: LateOn's long documents (default: %(default)s)")
    p.add_argument("--shapes", help="comma-separated subset of the table's shapes (default: all): "
                                    + ", ".join(n for t in TABLES.values() for n in t))
    p.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    p.add_argument("--no-peers", action="store_true")
    p.add_argument("--variants", default="", help="comma-separated variant names to run (default: all; "
                                                  f"off-grid: {OFF_GRID_VARIANTS})")
    p.add_argument("--budget-s", type=float, default=400.0, help="start no new variant after this many seconds")
    p.add_argument("--rounds", type=int, default=3, help="timing rounds, the variants interleaved in each")
    p.add_argument("--plan", action="store_true", help="print the shapes and their floors' counts, and exit")
    args = p.parse_args(argv)
    table = TABLES[args.table]
    args.shape_list = (args.shapes or ",".join(table)).split(",")
    bad = [n for n in args.shape_list if n not in table]
    if bad:
        p.error(f"unknown shape(s) {', '.join(bad)} in the {args.table} table; choose from {', '.join(table)}")
    if args.table == "off-grid" and not args.variants:
        args.variants = OFF_GRID_VARIANTS
    return args


def step_cost(nq, nd, lq, ld, dtype_name):
    """(FLOPs, bytes) of one step at least: the scores' products, one gathered and one scattered
    row per (query token, document); Q and D read, their gradients written, the fp32 scores
    written and their gradient read, once each."""
    flops = 2 * nq * nd * lq * ld * DIM + 4 * nq * nd * lq * DIM
    return flops, 2 * (nq * lq + nd * ld) * DIM * ELEM_BYTES[dtype_name] + 8 * nq * nd


def ceilings(args):
    """The matmul (in the dtype) and copy ceilings, measured once, as maxsim_forward measures them."""
    bench = Bench(argparse.Namespace(dtype=args.dtype, quick=False, budget_s=float("inf")))
    (mm, st), (cp, st2) = bench.guarded("matmul ceiling", bench.matmul_ceiling), \
        bench.guarded("copy ceiling", bench.copy_ceiling)
    if mm and cp:
        print(f"matmul: {mm['tflops']:.1f} TFLOP/s ({mm['what']}); copy: {cp['tb_per_s']:.3f} TB/s", flush=True)
    return {"matmul": mm or st, "copy": cp or st2}


def floor_ms(rec, ceil):
    """max(FLOPs / matmul rate, bytes / copy rate) in ms, and which bound it is."""
    t_c = rec["flops"] / (ceil["matmul"]["tflops"] * 1e12) * 1e3
    t_m = rec["bytes"] / (ceil["copy"]["tb_per_s"] * 1e12) * 1e3
    return max(t_c, t_m), "compute" if t_c >= t_m else "memory"


def variants(torch, peers: bool):
    from hsr.ops import maxsim

    def naive(Q, D):
        return torch.einsum("qsd,ntd->qnst", Q, D).amax(-1).sum(-1).float()

    out = {
        "naive": (naive, "einsum -> amax -> sum, autograd"),
        "hsr_atomic": (lambda Q, D: maxsim(Q, D, backward="atomic"), "hsr.ops.maxsim(backward='atomic')"),
        "hsr_deterministic": (lambda Q, D: maxsim(Q, D, backward="deterministic"),
                              "hsr.ops.maxsim(backward='deterministic')"),
    }
    if peers:
        try:
            import flash_maxsim
            out["flash_maxsim"] = (lambda Q, D: flash_maxsim.flash_maxsim_batched_train(Q, D, shared_docs=True),
                                   f"flash_maxsim {getattr(flash_maxsim, '__version__', '?')} flash_maxsim_batched_train")
        except Exception as e:  # noqa: BLE001 - optional peer
            print(f"flash_maxsim skipped: {type(e).__name__}: {e}")
        try:
            import late_interaction_kernels as lik
            out["late_interaction_kernels"] = (lambda Q, D: lik.maxsim(Q, D),
                                               f"late_interaction_kernels {getattr(lik, '__version__', '?')} maxsim")
        except Exception as e:  # noqa: BLE001 - optional peer
            print(f"late_interaction_kernels skipped: {type(e).__name__}: {e}")
    return out


def reference_scores(torch, Q, D, dtype, chunk=8):
    """fp32 MaxSim of the dtype-rounded inputs, a few queries at a time, each
    chunk recomputed in the backward (checkpointed) so memory stays bounded."""
    from torch.utils.checkpoint import checkpoint

    def part(q, d):
        return torch.einsum("qsd,ntd->qnst", q.to(dtype).float(), d.to(dtype).float()).amax(-1).sum(-1)

    return torch.cat([checkpoint(part, Q[i:i + chunk], D, use_reentrant=False)
                      for i in range(0, Q.shape[0], chunk)])


def cell(rec, name, floors):
    """ms / peak GiB (and the share of the floor reached); a variant not run: its status (- and why, off-grid)."""
    status = rec["status"].get(name)
    if status != "ok":
        return not_run(status) if floors else (status or "-").split(":")[0]
    share = f" ({100 * rec['floor_ms'] / rec['ms'][name]:.0f}%)" if floors else ""
    return f"{rec['ms'][name]:.3f} / {rec['peak_gib'][name]:.3f}{share}"


def markdown(result, names, floors):
    lines = [f"MaxSim contrastive training step (forward + backward), {result['dtype']}, d={DIM}, on "
             f"{result['device']} (torch {result['versions']['torch']}, triton {result['versions']['triton']}).",
             "Each cell: ms / peak GiB beyond the inputs" + (" (% of the row's floor reached); - (why): not run"
                                                              if floors else "") + ".", "",
             "| shape | " + "floor (bound) | " * floors + " | ".join(names) + " |",
             "|---|" + "---|" * (len(names) + floors)]
    if floors:
        lines[1:1] = [ceilings_line(result)]
    for rec in result["shapes"]:
        shape = f"B={rec['B']}" if rec["Nq"] == rec["B"] else f"Nq={rec['Nq']}, Nd={rec['B']}"
        floor = f"{fmt_ms(rec['floor_ms'])} ({rec['bound']}) | " if floors else ""
        lines.append(f"| {rec['name']} ({shape}, {rec['Lq']}x{rec['Ld']}) | {floor}"
                     + " | ".join(cell(rec, n, floors) for n in names) + " |")
    return "\n".join(lines) + "\n"


def print_plan(args):
    print(f"{args.table} table, {args.dtype}, d={DIM}; a step: forward, cross_entropy over arange(Nq), backward")
    for name in args.shape_list:
        nq, nd, lq, ld = TABLES[args.table][name]
        f, b = step_cost(nq, nd, lq, ld, args.dtype)
        print(f"{name:14s} Nq={nq:4d} Nd={nd:4d} Lq={lq:5d} Ld={ld:6d} {f / 1e9:9.2f} GFLOP {b / 1e6:8.1f} MB "
              f"{f / b:7.1f} FLOP/byte")


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.plan:
        print_plan(args)
        return 0
    import torch
    import torch.nn.functional as F
    import triton
    from triton.testing import do_bench

    if not torch.cuda.is_available():
        print("maxsim_train: no CUDA device", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    t0 = time.time()
    result = {
        "device": torch.cuda.get_device_name(0),
        "versions": {"torch": torch.__version__, "triton": triton.__version__, "python": platform.python_version()},
        "table": args.table, "dtype": args.dtype, "d": DIM,
        "step": "scores = f(Q, D) [Nq, Nd]; loss = cross_entropy(scores, arange(Nq)); loss.backward()",
        "inputs": "unit-norm random tokens (randn, normalised), requires_grad on Q and D",
        "timing": f"triton.testing.do_bench median, grads reset to None each run; the median of {args.rounds} "
                  "rounds that interleave the variants",
        "memory": "torch.cuda.max_memory_allocated during one step, minus what was allocated before it",
        "variants": {}, "shapes": [], "ceilings": ceilings(args) if args.table == "off-grid" else {},
    }
    floors = all(isinstance(c, dict) for c in result["ceilings"].values()) and bool(result["ceilings"])
    stem = os.path.join(args.out, "maxsim_train" + ("_off_grid" if args.table == "off-grid" else ""))
    fns = variants(torch, not args.no_peers)
    if args.variants:
        fns = {k: v for k, v in fns.items() if k in args.variants.split(",")}
    result["variants"] = {k: v[1] for k, v in fns.items()}

    def step(fn, Q, D):
        labels = torch.arange(Q.shape[0], device=Q.device)
        loss = F.cross_entropy(fn(Q, D), labels)
        loss.backward()
        return loss

    for name in args.shape_list:
        nq, nd, lq, ld = TABLES[args.table][name]
        gen = torch.Generator(device="cuda").manual_seed(0)
        Q0 = F.normalize(torch.randn(nq, lq, DIM, device="cuda", generator=gen), dim=-1)
        D0 = F.normalize(torch.randn(nd, ld, DIM, device="cuda", generator=gen), dim=-1)
        Qr, Dr = Q0.clone().requires_grad_(), D0.clone().requires_grad_()
        ref_loss = step(lambda q, d: reference_scores(torch, q, d, dtype), Qr, Dr)
        ref = (ref_loss.item(), Qr.grad, Dr.grad)
        del Qr, Dr
        rec = {"name": name, "Nq": nq, "B": nd, "Lq": lq, "Ld": ld, "flops_fwd": 2 * nq * nd * lq * ld * DIM,
               "ms": {}, "ms_rounds": {}, "peak_gib": {}, "rel_err": {}, "status": {}}
        if floors:
            rec["flops"], rec["bytes"] = step_cost(nq, nd, lq, ld, args.dtype)
            rec["floor_ms"], rec["bound"] = floor_ms(rec, result["ceilings"])
        ready = {}
        result["shapes"].append(rec)
        for vname, (fn, _) in fns.items():
            if time.time() - t0 > args.budget_s:
                rec["status"][vname] = "skipped (budget)"
                continue
            Q = Q0.to(dtype).requires_grad_()
            D = D0.to(dtype).requires_grad_()
            try:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
                loss = step(fn, Q, D)  # warm-up: compile, autotune
                torch.cuda.synchronize()
                err = {
                    "loss": abs(loss.item() - ref[0]) / max(abs(ref[0]), 1e-12),
                    "grad_Q": ((Q.grad.float() - ref[1]).norm() / ref[1].norm()).item(),
                    "grad_D": ((D.grad.float() - ref[2]).norm() / ref[2].norm()).item(),
                }
                Q.grad = D.grad = None
                torch.cuda.synchronize()
                before = torch.cuda.memory_allocated()
                torch.cuda.reset_peak_memory_stats()
                step(fn, Q, D)
                torch.cuda.synchronize()
                peak = (torch.cuda.max_memory_allocated() - before) / 2**30
                Q.grad = D.grad = None
                rec["peak_gib"][vname], rec["rel_err"][vname] = peak, err
                ready[vname] = (fn, Q, D)
                print(f"{name:11s} {vname:26s} peak {peak:7.3f} GiB  "
                      f"rel err loss {err['loss']:.1e} gQ {err['grad_Q']:.1e} gD {err['grad_D']:.1e}", flush=True)
            except torch.cuda.OutOfMemoryError:
                rec["status"][vname] = "OOM"
                print(f"{name:11s} {vname:26s} OOM", flush=True)
            except Exception as e:  # noqa: BLE001 - record and go on
                rec["status"][vname] = f"error: {type(e).__name__}: {e}"[:300]
                print(f"{name:11s} {vname:26s} error {type(e).__name__}: {e}", flush=True)
            del Q, D
            torch.cuda.empty_cache()
        # timed in rounds that interleave the variants (the host's speed drifts,
        # and small shapes are bound by it): each variant's median over rounds
        rounds = {v: [] for v in ready}
        for _ in range(args.rounds):
            for vname, (fn, Q, D) in ready.items():
                try:
                    rounds[vname].append(do_bench(lambda: step(fn, Q, D), grad_to_none=[Q, D], warmup=25, rep=100,
                                                  return_mode="median"))
                except Exception as e:  # noqa: BLE001 - record and go on
                    rec["status"][vname] = f"error: {type(e).__name__}: {e}"[:300]
        for vname, times in rounds.items():
            if times and vname not in rec["status"]:
                rec["ms"][vname], rec["ms_rounds"][vname] = statistics.median(times), times
                rec["status"][vname] = "ok"
                share = f", {100 * rec['floor_ms'] / rec['ms'][vname]:.0f}% of floor" if floors else ""
                print(f"{name:11s} {vname:26s} {rec['ms'][vname]:9.3f} ms (rounds: "
                      f"{', '.join(f'{t:.3f}' for t in times)}){share}", flush=True)
        del ready
        torch.cuda.empty_cache()
        with open(stem + ".json", "w") as f:
            json.dump(result, f, indent=2)

    table = markdown(result, list(fns), floors)
    with open(stem + ".md", "w") as f:
        f.write(table)
    print()
    print(table)
    bad = [f"{r['name']} {n}: {e}" for r in result["shapes"] for n, e in r["rel_err"].items()
           if n.startswith("hsr") and max(e.values()) > 5e-2]
    if bad:
        print("FLAGGED:", *bad, sep="\n  ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
