"""MaxSim training step on the GPU: in-batch contrastive loss, forward + backward.

scores = maxsim(Q, D) over Nq = Nd = B, loss = cross_entropy(scores, arange(B)),
then loss.backward(): timed (triton.testing.do_bench medians, in rounds that
interleave the variants; the median over rounds) with the peak
memory beyond the inputs, for naive autograd, hsr's two backwards and the two
peers when they import. Each variant's loss and gradients are checked against
an fp32 autograd reference on the same inputs.

    python bench/maxsim_train.py --out DIR [--shapes colbert128,colpali32] [--no-peers] [--variants a,b]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

SHAPES = {  # name: (B, Lq, Ld)
    "colbert128": (128, 32, 300),
    "colbert512": (512, 32, 300),
    "colpali32": (32, 1024, 1024),
    "colpali64": (64, 1024, 1024),
}
DIM = 128


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results")
    p.add_argument("--shapes", default=",".join(SHAPES))
    p.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    p.add_argument("--no-peers", action="store_true")
    p.add_argument("--variants", default="", help="comma-separated variant names to run (default: all)")
    p.add_argument("--budget-s", type=float, default=400.0, help="start no new variant after this many seconds")
    p.add_argument("--rounds", type=int, default=3, help="timing rounds, the variants interleaved in each")
    return p.parse_args(argv)


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


def main(argv=None) -> int:
    args = parse_args(argv)
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
        "dtype": args.dtype, "d": DIM,
        "step": "scores = f(Q, D) [B, B]; loss = cross_entropy(scores, arange(B)); loss.backward()",
        "inputs": "unit-norm random tokens (randn, normalised), requires_grad on Q and D",
        "timing": f"triton.testing.do_bench median, grads reset to None each run; the median of {args.rounds} "
                  "rounds that interleave the variants",
        "memory": "torch.cuda.max_memory_allocated during one step, minus what was allocated before it",
        "variants": {}, "shapes": [],
    }
    fns = variants(torch, not args.no_peers)
    if args.variants:
        fns = {k: v for k, v in fns.items() if k in args.variants.split(",")}
    result["variants"] = {k: v[1] for k, v in fns.items()}

    def step(fn, Q, D):
        labels = torch.arange(Q.shape[0], device=Q.device)
        loss = F.cross_entropy(fn(Q, D), labels)
        loss.backward()
        return loss

    for name in args.shapes.split(","):
        B, lq, ld = SHAPES[name]
        gen = torch.Generator(device="cuda").manual_seed(0)
        Q0 = F.normalize(torch.randn(B, lq, DIM, device="cuda", generator=gen), dim=-1)
        D0 = F.normalize(torch.randn(B, ld, DIM, device="cuda", generator=gen), dim=-1)
        Qr, Dr = Q0.clone().requires_grad_(), D0.clone().requires_grad_()
        ref_loss = step(lambda q, d: reference_scores(torch, q, d, dtype), Qr, Dr)
        ref = (ref_loss.item(), Qr.grad, Dr.grad)
        del Qr, Dr
        rec = {"name": name, "B": B, "Lq": lq, "Ld": ld, "flops_fwd": 2 * B * B * lq * ld * DIM,
               "ms": {}, "ms_rounds": {}, "peak_gib": {}, "rel_err": {}, "status": {}}
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
                print(f"{name:11s} {vname:26s} {rec['ms'][vname]:9.3f} ms (rounds: "
                      f"{', '.join(f'{t:.3f}' for t in times)})", flush=True)
        del ready
        torch.cuda.empty_cache()
        with open(os.path.join(args.out, "maxsim_train.json"), "w") as f:
            json.dump(result, f, indent=2)

    names = list(fns)
    lines = [f"MaxSim contrastive training step (forward + backward), {args.dtype}, d={DIM}, on "
             f"{result['device']} (torch {torch.__version__}, triton {triton.__version__}).",
             "Each cell: ms / peak GiB beyond the inputs.", "",
             "| shape | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for rec in result["shapes"]:
        cells = [f"{rec['ms'][n]:.3f} / {rec['peak_gib'][n]:.3f}" if rec["status"].get(n) == "ok"
                 else (rec["status"].get(n) or "-").split(":")[0] for n in names]
        lines.append(f"| {rec['name']} (B={rec['B']}, {rec['Lq']}x{rec['Ld']}) | " + " | ".join(cells) + " |")
    table = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "maxsim_train.md"), "w") as f:
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
