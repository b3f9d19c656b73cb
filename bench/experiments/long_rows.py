"""Few cells, long rows: which lean/general and parts/whole rule wins at LateOn's long documents,
and which backward.

    python3 bench/experiments/long_rows.py OUT_DIR [--train]

hsr's bundled maxsim under four rule settings (the default; the selected axis whole;
the lean forward at any query count; both), late-interaction-kernels and eager, forward
(no_grad) and forward + backward, do_bench medians in ms, one process. --train: training
steps only, hsr's backward="auto", "atomic" and "deterministic" against LIK and eager,
ROUNDS rounds with the contenders interleaved (the median of each's rounds).
"""

import json
import sys

import torch
import triton.testing

from hsr import dispatch, kept
from hsr.ops import maxsim

SHAPES = [(1, 32, 16384), (8, 16, 2048), (16, 32, 4096), (8, 16, 8192), (1, 256, 8192)]  # Nq, Nd, Ld; Lq 32
RULES = {"default": {}, "whole": {"PART_MIN_COLS": 10**9}, "lean": {"LEAN_FEW_CELLS": 10**6},
         "lean-whole": {"LEAN_FEW_CELLS": 10**6, "PART_MIN_COLS": 10**9}}


def ruled(settings):
    """maxsim under dispatch constants `settings`, set around each call (kept calls forgotten once)."""
    saved = {k: getattr(dispatch, k) for k in settings}

    def call(Q, D):
        for k, v in settings.items():
            setattr(dispatch, k, v)
        try:
            return maxsim(Q, D)
        finally:
            for k, v in saved.items():
                setattr(dispatch, k, v)
    return call


ROUNDS = 3
KD = (32, 64, 300)  # per-query candidates, Nq x K x Ld: few contributions per row, many rows


def contenders(train_only=False):
    out = {name: ruled(s) for name, s in RULES.items()} if not train_only else {
        mode: (lambda Q, D, mode=mode: maxsim(Q, D, backward=mode)) for mode in ("auto", "atomic", "deterministic")}
    out["eager"] = lambda Q, D: torch.einsum("qsd,ntd->qnst", Q, D).amax(-1).float().sum(-1)
    try:
        import late_interaction_kernels as lik
        out["lik"] = lik.maxsim
    except ImportError as e:
        print("late_interaction_kernels skipped:", e)
    return out


def timed(fn, Q, D, train):
    def fwd():
        with torch.no_grad():
            return fn(Q, D)

    def step():
        Q.grad = D.grad = None
        fn(Q, D).sum().backward()
    kept.forget(launches=True)
    (step if train else fwd)()
    return triton.testing.do_bench(step if train else fwd, warmup=25, rep=100)


def train_rows(out_dir):
    """Training steps only, the contenders interleaved ROUNDS times."""
    rows = []
    for nq, nd, ld in SHAPES + [KD]:
        Q = torch.nn.functional.normalize(torch.randn(nq, 32, 128, device="cuda"), dim=-1).half()
        shape = (nq, nd, ld, 128) if (nq, nd, ld) == KD else (nd, ld, 128)
        D = torch.nn.functional.normalize(torch.randn(*shape, device="cuda"), dim=-1).half()
        Qg, Dg = Q.clone().requires_grad_(), D.clone().requires_grad_()
        times = {}
        for _ in range(ROUNDS):
            for name, fn in contenders(train_only=True).items():
                if name == "eager" and D.dim() == 4:
                    continue
                try:
                    times.setdefault(name, []).append(timed(fn, Qg, Dg, True))
                except Exception as e:  # noqa: BLE001 - a peer that does not take this layout
                    print(name, "skipped:", type(e).__name__, str(e)[:100])
                    times[name] = [float("nan")]
        row = {"shape": "x".join(map(str, shape[:-1])), **{k: round(sorted(v)[len(v) // 2], 4) for k, v in times.items()}}
        rows.append(row)
        print(json.dumps(row), flush=True)
    with open(f"{out_dir}/long_rows_train.json", "w") as f:
        json.dump(rows, f, indent=1)


def main(out_dir):
    torch.manual_seed(0)
    if "--train" in sys.argv:
        return train_rows(out_dir)
    rows = []
    for nq, nd, ld in SHAPES:
        Q = torch.nn.functional.normalize(torch.randn(nq, 32, 128, device="cuda"), dim=-1).half()
        D = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda"), dim=-1).half()
        ref = contenders()["eager"](Q, D)
        for train in (False, True):
            Qg, Dg = Q.clone().requires_grad_(train), D.clone().requires_grad_(train)
            row = {"shape": f"{nq}x{nd}x{ld}", "train": train}
            for name, fn in contenders().items():
                with torch.no_grad():
                    err = (fn(Q, D).float() - ref).abs().max().item()
                row[name] = round(timed(fn, Qg, Dg, train), 4)
                row[name + "_err"] = err
            rows.append(row)
            print(json.dumps(row), flush=True)
    with open(f"{out_dir}/long_rows.json", "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
