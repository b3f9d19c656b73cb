#!/usr/bin/env python3
"""fp32 MaxSim under each float32 matmul precision: hsr's key ranked on the tensor
cores (three TF32 products under "highest", one under "high"; the selected pair's
value its IEEE dot at the index) against hsr's IEEE dot on the CUDA cores (the path
before, forced with HSR_PRECISION=ieee), eager PyTorch and the peers, in one process.

    python3 bench/fp32_keys.py --out DIR [--budget-s 400] [--only NAME,...]

Each row: do_bench medians of the public call (host included), ms, and the largest
error against the float64 reference over the largest |score| of the call. Writes
DIR/fp32_keys.json and DIR/fp32_keys.md.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

# (name, Nq, Nd, Lq, Ld, d, training)
SHAPES = [
    ("textual d128", 1, 1000, 32, 300, 128, False),
    ("wide d768", 1, 1000, 32, 512, 768, False),
    ("stacked d96", 8, 1000, 32, 300, 96, False),
    ("long rows d768", 1, 43, 1024, 700, 768, False),
    ("colpali d128", 1, 512, 1024, 1024, 128, False),
    ("batched d128", 64, 2000, 32, 300, 128, False),
    ("narrow d32", 1, 1000, 32, 300, 32, False),
    ("train in-batch d128", 32, 32, 32, 300, 128, True),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--budget-s", type=float, default=400)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    import torch
    import triton
    import triton.testing

    import hsr.ops
    from hsr import kept

    peers = {}
    try:
        import flash_maxsim as fm
        peers["flash_maxsim"] = lambda Q, D: fm.flash_maxsim_batched(Q, D)
    except Exception as e:  # noqa: BLE001
        print(f"flash_maxsim not available: {e}")
    try:
        import late_interaction_kernels as lik
        peers["late_interaction_kernels"] = lambda Q, D: lik.maxsim(Q, D)
    except Exception as e:  # noqa: BLE001
        print(f"late_interaction_kernels not available: {e}")

    def eager(Q, D):
        return torch.einsum("isd,jtd->ijst", Q, D).amax(-1).sum(-1)

    def ms(fn, grad=None):
        fn()
        torch.cuda.synchronize()
        return triton.testing.do_bench(fn, warmup=25, rep=100, grad_to_none=grad, return_mode="median")

    out, rows, t0 = Path(args.out), [], time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    only = [s for s in args.only.split(",") if s]
    g = torch.Generator(device="cuda").manual_seed(0)
    for name, nq, nd, lq, ld, d, train in SHAPES:
        if only and name not in only:
            continue
        if time.monotonic() - t0 > args.budget_s:
            print(f"budget spent: skipped {name}")
            continue
        Q = torch.randn(nq, lq, d, device="cuda", generator=g)
        D = torch.randn(nd, ld, d, device="cuda", generator=g)
        Q /= Q.norm(dim=-1, keepdim=True)
        D /= D.norm(dim=-1, keepdim=True)
        with torch.no_grad():
            ref = torch.einsum("isd,jtd->ijst", Q.double(), D.double()).amax(-1).sum(-1)
        scale = ref.abs().max().item()
        for mode in ("highest", "high"):
            torch.set_float32_matmul_precision(mode)
            row = {"shape": name, "Nq": nq, "Nd": nd, "Lq": lq, "Ld": ld, "d": d, "training": train,
                   "precision": mode}
            calls = {"hsr": None, "hsr ieee (before)": "ieee", "eager": "eager", **{p: p for p in peers}}
            for label, how in calls.items():
                if train and how not in (None, "ieee", "eager"):
                    continue
                os.environ.pop("HSR_PRECISION", None)
                if how == "ieee":
                    os.environ["HSR_PRECISION"] = "ieee"
                kept.forget()
                fn = (lambda: hsr.ops.maxsim(Q, D)) if how in (None, "ieee") else eager if how == "eager" \
                    else (lambda p=how: peers[p](Q, D))
                if how == "eager":
                    fn = lambda: eager(Q, D)  # noqa: E731
                try:
                    if train:
                        Qg, Dg = Q.clone().requires_grad_(), D.clone().requires_grad_()
                        f = (lambda: hsr.ops.maxsim(Qg, Dg)) if how != "eager" else (lambda: eager(Qg, Dg))
                        with torch.no_grad():
                            err = (f().double() - ref).abs().max().item() / scale
                        row[label] = round(ms(lambda: f().sum().backward(), grad=[Qg, Dg]), 4)
                    else:
                        with torch.no_grad():
                            got = fn()
                            err = (got.double().reshape(ref.shape) - ref).abs().max().item() / scale
                            row[label] = round(ms(fn), 4)
                    row[f"{label} err"] = float(f"{err:.2e}")
                except Exception as e:  # noqa: BLE001
                    row[label] = f"failed: {type(e).__name__}: {str(e)[:120]}"
                    torch.cuda.empty_cache()
            os.environ.pop("HSR_PRECISION", None)
            kept.forget()
            print(json.dumps(row), flush=True)
            rows.append(row)
            (out / "fp32_keys.json").write_text(json.dumps({"device": torch.cuda.get_device_name(),
                                                            "versions": f"torch {torch.__version__}, triton {triton.__version__}",
                                                            "rows": rows}, indent=1))
        del Q, D, ref
        torch.cuda.empty_cache()
    torch.set_float32_matmul_precision("highest")
    labels = ["hsr", "hsr ieee (before)", "eager", *peers]
    lines = [f"fp32 MaxSim, {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}; "
             "do_bench median ms (error: max |score - float64| / max |score|)", "",
             "| shape | Nq x Nd of Lq x Ld, d | precision | " + " | ".join(labels) + " | hsr / before |",
             "|---|---|---|" + "---|" * len(labels) + "---|"]
    for r in rows:
        cells = [f"{r[k]} ({r.get(k + ' err', '-')})" if isinstance(r.get(k), float) else str(r.get(k, "-"))
                 for k in labels]
        gain = (f"{r['hsr ieee (before)'] / r['hsr']:.2f}x" if isinstance(r.get("hsr"), float)
                and isinstance(r.get("hsr ieee (before)"), float) else "-")
        lines.append(f"| {r['shape']}{' (fwd + bwd)' if r['training'] else ''} | {r['Nq']} x {r['Nd']} of "
                     f"{r['Lq']} x {r['Ld']}, {r['d']} | {r['precision']} | " + " | ".join(cells) + f" | {gain} |")
    (out / "fp32_keys.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
