#!/usr/bin/env python3
"""Host-bound calls, timed three ways (GPU only), hsr beside the peers.

A step whose kernels take less than its Python is timed by its host, and the
timers disagree about it (do_bench flushes L2 and records events around each
call; steps back to back overlap the host with the GPU), and the host's speed
drifts from second to second, so the variants are timed in interleaved rounds
and each figure is the median over rounds. For each variant:

- wall: calls back to back, synchronised once at the end;
- events: CUDA events around each call after an L2 flush (do_bench's way);
- kernels: the kernels' own time per call (torch.profiler);
- syncs: whether torch's sync debug mode saw a synchronising call.

Cases: the ColBERT B=128 training step (forward, in-batch cross-entropy,
backward) and the textual forward (Nq = 1, B = 1000, 32 x 300, fp16). Writes
step_host.md and step_host.json under --out.

    python3 bench/experiments/step_host.py --out DIR [--calls 100] [--rounds 7] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/: maxsim_train, maxsim_forward


def timings(torch, call, calls, flush):
    """(wall, events) ms per call for one round: calls back to back; then each
    call between CUDA events after an L2 flush (median)."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        call()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t0) * 1e3 / calls
    times = []
    for _ in range(calls):
        flush.zero_()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        call()
        b.record()
        times.append((a, b))
    torch.cuda.synchronize()
    return wall, statistics.median(a.elapsed_time(b) for a, b in times)


def kernels_and_syncs(torch, call, calls):
    """Kernel ms and launches per call (torch.profiler), and whether torch's sync
    debug mode saw a synchronising call."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            call()
        torch.cuda.synchronize()
    evs = [e for e in prof.key_averages() if e.device_type.name == "CUDA"]
    kernels = sum(e.self_device_time_total for e in evs) / 1e3 / calls
    launches = sum(e.count for e in evs) / calls
    torch.cuda.set_sync_debug_mode("error")
    try:
        call()
        syncs = "none"
    except RuntimeError as e:
        syncs = str(e).splitlines()[0][:80]
    finally:
        torch.cuda.set_sync_debug_mode("default")
    torch.cuda.synchronize()
    return kernels, launches, syncs


def measure_case(torch, case, calls_by_name, calls, rounds):
    """Every variant of a case, in rounds that interleave the variants (the
    host's speed drifts over seconds): medians over rounds."""
    flush = torch.empty(256 * 2**20, dtype=torch.int8, device="cuda")
    for call in calls_by_name.values():
        for _ in range(10):
            call()
    got = {name: [] for name in calls_by_name}
    for _ in range(rounds):
        for name, call in calls_by_name.items():
            got[name].append(timings(torch, call, calls, flush))
    rows = []
    for name, call in calls_by_name.items():
        kernels, launches, syncs = kernels_and_syncs(torch, call, calls)
        walls, events = zip(*got[name])
        rows.append(dict(case=case, variant=name, wall=statistics.median(walls), events=statistics.median(events),
                         wall_rounds=[round(x, 4) for x in walls], events_rounds=[round(x, 4) for x in events],
                         kernels=kernels, launches=launches, syncs=syncs))
        print(rows[-1], flush=True)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="bench/results")
    p.add_argument("--calls", type=int, default=100)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--profile", action="store_true", help="also cProfile hsr's step (host_overhead-style)")
    args = p.parse_args(argv)
    import torch
    import torch.nn.functional as F
    import triton

    from maxsim_train import variants

    gen = torch.Generator(device="cuda").manual_seed(0)
    Q = F.normalize(torch.randn(128, 32, 128, device="cuda", generator=gen), dim=-1).bfloat16().requires_grad_()
    D = F.normalize(torch.randn(128, 300, 128, device="cuda", generator=gen), dim=-1).bfloat16().requires_grad_()
    labels = torch.arange(128, device="cuda")
    steps = {}
    for name, (fn, _) in variants(torch, True).items():
        if name == "naive":
            continue

        def step(fn=fn):
            Q.grad = D.grad = None
            F.cross_entropy(fn(Q, D), labels).backward()
        steps[name] = step
    rows = measure_case(torch, "colbert128 step", steps, args.calls, args.rounds)
    q1 = torch.randn(1, 32, 128, device="cuda", generator=gen).half()
    docs = torch.randn(1000, 300, 128, device="cuda", generator=gen).half()
    from maxsim_forward import load_peers

    from hsr.ops import maxsim
    forwards = {"hsr": (lambda: maxsim(q1, docs))}
    for name, (fn, _) in load_peers(torch).items():
        forwards[name] = (lambda fn=fn: fn(q1, docs))
    with torch.no_grad():
        rows += measure_case(torch, "textual forward", forwards, args.calls, args.rounds)
    head = (f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}, triton {triton.__version__}, "
            f"python {platform.python_version()}; ms per call, medians of {args.rounds} rounds "
            f"of {args.calls} calls, the variants interleaved")
    lines = [head, "", "| case | variant | wall | events (L2 flushed) | kernels | launches | syncs |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['case']} | {r['variant']} | {r['wall']:.3f} | {r['events']:.3f} | "
              f"{r['kernels']:.3f} | {r['launches']:.0f} | {r['syncs']} |" for r in rows]
    if args.profile:
        import cProfile
        import io
        import pstats
        from hsr.ops import maxsim as ms

        def step():
            Q.grad = D.grad = None
            F.cross_entropy(ms(Q, D, backward="atomic"), labels).backward()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.calls):
            step()
        torch.cuda.synchronize()
        prof.disable()
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(40)
        lines += ["", "```", s.getvalue(), "```"]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "step_host.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(args.out, "step_host.json"), "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(0), torch=torch.__version__, triton=triton.__version__,
                       calls=args.calls, rounds=args.rounds, rows=rows), f, indent=1)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
