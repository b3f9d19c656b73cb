#!/usr/bin/env python3
"""Probe, CPU: the host work of a maxsim_from_hidden training step (fused path), with no GPU. Under
TRITON_INTERPRET=1 the step runs three times for real (recording its kept calls), then every kernel launch is
stubbed (integer outputs zeroed, so that the torch steps after it index safely) and the step is timed: what
is left is the Python and the torch ops on tiny CPU tensors, the part of a host-bound step that hsr's host path
decides. Prints the step's microseconds (median of --rounds rounds of --calls) and each kept call's replay
steps, and writes them as one JSON line to OUT/host_proxy.json. Run against another package tree with
PYTHONPATH=TREE (bench/NOTES.md, session 53). --kmeans: a call of the k-means assignment instead
(examples/kmeans_assign.hsr, fp16 256 x 16 points against 32 centres 5 from the origin; HSR_SHIFT16 as set).

    python3 bench/experiments/host_proxy.py [--kmeans] [--out DIR]
"""
import argparse
import json
import os
import statistics
import time
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"
os.environ["HSR_HIDDEN"] = "fused"
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import hsr  # noqa: E402
from hsr import kept, launcher  # noqa: E402
from hsr.ops.hidden import maxsim_from_hidden  # noqa: E402


def _zero_ints(args):
    for a in args:
        if isinstance(a, torch.Tensor) and not a.is_floating_point():
            a.zero_()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--kmeans", action="store_true")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    torch.manual_seed(0)
    Q = F.normalize(torch.randn(1, 8, 16), dim=-1).requires_grad_()
    H, W, b = (torch.randn(*s).requires_grad_() for s in ((1, 64, 24), (16, 24), (16,)))
    assign = hsr.compile(Path(__file__).resolve().parents[2].joinpath("examples", "kmeans_assign.hsr").read_text())
    x, c = (torch.randn(256, 16) + 5).half(), (torch.randn(32, 16) + 5).half()

    def step():
        if args.kmeans:
            return assign(x, c)
        Q.grad = H.grad = W.grad = b.grad = None
        maxsim_from_hidden(Q, H, W, b).sum().backward()
    for _ in range(3):
        step()
    kept._Launch.triton_launch = lambda self, slots: _zero_ints([kept._resolve(s, slots) for s in self.specs])
    launcher.launch = lambda kernel, grid, *a, **k: _zero_ints(a)
    times = []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        for _ in range(args.calls):
            step()
        times.append((time.perf_counter() - t0) / args.calls * 1e6)
    replays = [[getattr(s, "func", getattr(s, "kernel", None)).__name__ for s in v.program]
               for table in kept._tables for v in table.entries.values() if isinstance(v, kept.Replay)]
    line = {"package": os.path.dirname(hsr.__file__), "step_us": round(statistics.median(times), 1),
            "replays": replays}
    print(json.dumps(line))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    Path(args.out, "host_proxy.json").write_text(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
