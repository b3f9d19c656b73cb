#!/usr/bin/env python3
"""Host time of one MaxSim forward call, layer by layer, against the peers.

At a shape whose kernel takes a few microseconds (Nq = 1, B = 4, Lq = Ld = 32,
d = 128, fp16, no gradient) a loop of calls is bound by the host: the wall time
of N calls issued back to back, over N, is each call's host cost. Layers, from
the outside in:

- ``hsr.ops.maxsim``: the public call;
- ``generated apply``: the generated module's entry (binds the spec's axes);
- ``_score_forward``: allocation, arguments, the tuned launch (axes bound once);
- ``tuned launch``: ``hsr.autotune.Tuned``'s key and lookup, then hsr's launcher;
- ``hsr launcher``: ``hsr.launcher.launch`` of a launch key seen before (the
  compiled kernel's launcher, called directly);
- ``triton launch``: ``score_fwd[grid](...)`` with the chosen config (Triton's
  binder: every argument specialised, then the launcher);
- ``compiled launch``: the compiled kernel's own launcher with the same
  arguments (no specialisation: the floor of a Python launch).

    python3 bench/experiments/launch_host.py [--out DIR] [--calls 3000]

Writes launch_host.json and launch_host.md; shape configurable for the
textual shape's own figures (--b 1000 --ld 300)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import torch
import triton


def per_call_us(fn, calls):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):  # the best of three loops: the host's own noise only adds
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / calls * 1e6)
    return best


def profile(args, call, Q, D):
    """Where the public call's host time goes (cProfile inflates small calls;
    read it for shares) and what single torch calls on CUDA tensors cost."""
    import cProfile
    import io
    import pstats

    from hsr import runtime
    from hsr.generated import maxsim as gen
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.calls):
        call()
    torch.cuda.synchronize()
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(40)
    Q3 = Q.unsqueeze(0)
    ops = {
        "torch.empty((1, B)) on cuda": lambda: torch.empty((1, D.shape[0]), device=D.device),
        "torch.empty(..., device=Q.device)": lambda: torch.empty((1, D.shape[0]), dtype=torch.float32, device=Q.device),
        "Q.unsqueeze(0)": lambda: Q.unsqueeze(0),
        "Q.device": lambda: Q.device,
        "Q.device.type": lambda: Q.device.type,
        "Q.stride()": lambda: Q.stride(),
        "Q.shape[0]": lambda: Q.shape[0],
        "Q.dim()": lambda: Q.dim(),
        "Q.dtype": lambda: Q.dtype,
        "Q.requires_grad": lambda: Q.requires_grad,
        "torch.cuda.current_device()": torch.cuda.current_device,
        "torch.is_grad_enabled()": torch.is_grad_enabled,
        "torch.compiler.is_compiling()": torch.compiler.is_compiling,
        "runtime.interpreting()": runtime.interpreting,
        "runtime.bind(...)": lambda: runtime.bind(gen.OUTPUT, gen.SIGNATURE, (Q3, D), {}),
    }
    lines = []
    for name, fn in ops.items():
        t0 = time.perf_counter()
        for _ in range(20000):
            fn()
        lines.append(f"{name}: {(time.perf_counter() - t0) / 20000 * 1e6:.2f} us")
    with open(os.path.join(args.out, "launch_host_profile.txt"), "w") as f:
        f.write("\n".join(lines) + "\n\n" + s.getvalue())
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--b", type=int, default=4)
    ap.add_argument("--lq", type=int, default=32)
    ap.add_argument("--ld", type=int, default=32)
    ap.add_argument("--profile", action="store_true",
                    help="also cProfile the public call (launch_host_profile.txt) and time single torch calls")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    from hsr import autotune, launcher
    from hsr.generated import maxsim as gen
    from hsr.ops import maxsim

    g = torch.Generator(device="cuda").manual_seed(0)
    Q = torch.randn(args.lq, 128, device="cuda", generator=g).half()
    D = torch.randn(args.b, args.ld, 128, device="cuda", generator=g).half()
    Q3 = Q.unsqueeze(0)
    torch.set_grad_enabled(False)

    # capture what the tuned launch receives, and the config it runs with
    seen = {}
    launch_of = autotune.Tuned.__getitem__

    def spy(self, grid):
        inner = launch_of(self, grid)

        def launch(*a, **k):
            seen.update(tuned=self, grid=grid, args=a, kwargs=k)
            return inner(*a, **k)
        return launch
    autotune.Tuned.__getitem__ = spy
    maxsim(Q, D)
    autotune.Tuned.__getitem__ = launch_of
    torch.cuda.synchronize()
    tuned, grid, a, k = seen["tuned"], seen["grid"], seen["args"], seen["kwargs"]
    config = tuned.lookup(tuned.key(a, k))
    full = {**k, **config["kwargs"], "num_warps": config["num_warps"], "num_stages": config["num_stages"]}
    compiled = gen.score_fwd[grid](*a, **full)
    grid3 = grid({**full}) if callable(grid) else grid
    grid3 = tuple(grid3) + (1,) * (3 - len(grid3))
    # the compiled launcher takes every parameter in order, constexprs included (it skips them)
    names = gen.score_fwd.arg_names
    given = dict(zip(names, a))
    given.update(full)
    ordered = [given.get(n) for n in names]
    runner = compiled[grid3]
    t, sizes = gen.runtime.bind(gen.OUTPUT, gen.SIGNATURE, (Q3, D), {})

    layers = {
        "hsr.ops.maxsim": lambda: maxsim(Q, D),
        "generated apply": lambda: gen.apply(Q3, D),
        "_score_forward": lambda: gen._score_forward(t, sizes, False),
        "tuned launch": lambda: tuned[grid](*a, **k),
        "hsr launcher (kept launch)": lambda: launcher.launch(gen.score_fwd, grid, *a, **full),
        "triton launch": lambda: gen.score_fwd[grid](*a, **full),
        "compiled launch": lambda: runner(*ordered),
        "torch.empty (for scale)": lambda: torch.empty((1, args.b), device="cuda"),
    }
    peers = {}
    try:
        import flash_maxsim as fm
        fn = getattr(fm, "flash_maxsim", None)
        if fn is not None:
            peers["flash_maxsim"] = lambda f=fn: f(Q, D)  # (bound now: the loop below rebinds fn)
    except Exception as e:  # noqa: BLE001
        print(f"flash_maxsim skipped: {e}")
    try:
        import late_interaction_kernels as lik
        peers["late_interaction_kernels"] = lambda: lik.maxsim(Q3, D)
    except Exception as e:  # noqa: BLE001
        print(f"late_interaction_kernels skipped: {e}")

    ref = maxsim(Q, D)
    rows = []
    for name, fn in {**layers, **peers}.items():
        try:
            us = per_call_us(fn, args.calls)
            rows.append({"layer": name, "us_per_call": round(us, 2)})
        except Exception as e:  # noqa: BLE001
            rows.append({"layer": name, "error": f"{type(e).__name__}: {e}"[:300]})
        print(rows[-1], flush=True)
    # the direct launch writes the same output buffer as the captured call
    a_out = given["out_ptr"] if "out_ptr" in given else None
    same = None
    if a_out is not None:
        a_out.zero_()
        runner(*ordered)
        torch.cuda.synchronize()
        same = bool(torch.equal(a_out.reshape(-1), ref.reshape(-1)))
    if args.profile:
        profile(args, lambda: maxsim(Q, D), Q, D)
    meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
            "python": platform.python_version(), "shape": {"Nq": 1, "B": args.b, "Lq": args.lq, "Ld": args.ld, "d": 128},
            "config": config, "calls": args.calls, "direct_launch_matches": same, "rows": rows}
    with open(os.path.join(args.out, "launch_host.json"), "w") as f:
        json.dump(meta, f, indent=1)
    lines = [f"Host time per MaxSim forward call, {meta['device']} (torch {meta['torch']}, triton {meta['triton']}), "
             f"Nq=1, B={args.b}, Lq={args.lq}, Ld={args.ld}, d=128, fp16, best of 3 loops of {args.calls} calls.",
             f"Direct launch gives the same scores: {same}.", "", "| layer | us per call |", "|---|---|"]
    for r in rows:
        lines.append(f"| {r['layer']} | {r.get('us_per_call', r.get('error'))} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "launch_host.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
