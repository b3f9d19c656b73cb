#!/usr/bin/env python3
"""Host-bound (small) calls: hsr against flash-maxsim, late-interaction-kernels (LIK) and eager PyTorch.

    python3 bench/host.py --out DIR [--calls 300] [--rounds 5] [--budget-s 240] [--only name,name]

Run on the GPU machine from the repository root, with hsr and the carried peers installed as
bench/run_gpu.sh installs them (and its interpreter: ``python3 -P`` where it copied the package tree).
Cases (one query, fp16, d = 128 unless named; tokens random normal, L2-normalised): tiny (Nd = 4,
Lq = Ld = 32: wall per call); textual (Nd = 1000, 32 x 300: do_bench and wall), textual_d64/_d96
(do_bench); rerank100/rerank1000 (lengths uniform in 40..300, padded to 300 with a document mask for
hsr and eager; the peers packed (flash_maxsim_rerank, LIK maxsim_varlen) and, as extra columns, padded
(doc_lengths=, d_mask=): wall per call, rerank1000 also kernel time per call from torch.profiler);
chamfer10k (two 10K-point clouds, d = 3 fp32, forward + backward, do_bench); compile_twice (hsr.compile
of the same text again, in process); first_call (fresh interpreters, spawn to first synchronised result,
run twice and the warm second reported: hsr.ops.maxsim, flash_maxsim, LIK, and a user spec's
hsr.compile + first call, also apart). wall: calls back to back, one synchronise, divided by --calls.
Figures are medians over --rounds rounds interleaving the variants (the host's speed drifts); outputs
are first checked against an eager fp32 (Chamfer: float64) reference. For tiny and textual, cProfile
of hsr's public call (each call alone, the GPU idle) gives the top 15 functions by tottime per call.
No case starts past --budget-s; a failing variant keeps its error string. Writes DIR/host.json and
DIR/host.md, and prints the tables.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = ("hsr", "flash_maxsim", "lik", "eager")
META = ("name", "metric", "note", "rel_err", "rounds")
FLAG = 1e-2  # relative error past which the note flags a variant
SPEC = ("Q[i, s, d]: float\nD[j, t, d]: float\nw[i, s]: float\n"
        "score[i, j] = sum_s w_s * max_t <Q_s, D_t>\n")  # bench/specs.py's weighted_maxsim


def failed(e):
    """The error string of e, after letting pending GPU work finish."""
    try:
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001 - a broken context shows in the next call anyway
        pass
    return f"error: {type(e).__name__}: {' '.join(str(e).split())[:200]}"


def load(name):
    """The module, or the error string of its import."""
    try:
        return importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - a missing peer is a cell, not a crash
        return failed(e)


def bind(mod, fn):
    """fn, or the module's error string where it did not import."""
    return mod if isinstance(mod, str) else fn


def git_commit():
    git = lambda *a: subprocess.run(["git", "-C", ROOT, *a], capture_output=True, text=True, timeout=10)  # noqa: E731
    try:
        rev = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
        return rev.stdout.strip() + ("+dirty" if dirty else "") if rev.returncode == 0 else "unknown"
    except Exception:  # noqa: BLE001 - no git, not a checkout
        return "unknown"


def eager_maxsim(Q, D, pad=None):
    """Eager MaxSim of Q [Lq, d] against D [Nd, Ld, d] -> [Nd] fp32: einsum scores, -inf where pad [Nd, Ld]
    (True at padding, i.e. the mask is False), max over document tokens, sum over query tokens."""
    s = torch.einsum("sd,ntd->nst", Q, D)
    if pad is not None:
        s = s.masked_fill(pad[:, None, :], float("-inf"))
    return s.amax(-1).float().sum(-1)


def tokens(g, *shape, d=128):
    return torch.nn.functional.normalize(torch.randn(*shape, d, device="cuda", generator=g), dim=-1).half()


# --------------------------------------------------------------------------- timing

def wall_us(fn, calls):
    """Microseconds per call: `calls` calls back to back, one synchronise at the end."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / calls * 1e6


def bench_ms(fn, grad_to_none=None):
    """triton.testing.do_bench median (L2 flushed before each run), ms."""
    import triton.testing
    return triton.testing.do_bench(fn, warmup=25, rep=100, grad_to_none=grad_to_none, return_mode="median")


def gpu_us(fn, calls):
    """(kernel us per call, launches per call): the CUDA kernels' self time under torch.profiler."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    evs = [e for e in prof.key_averages() if e.device_type.name == "CUDA"]
    t = sum(getattr(e, "self_device_time_total", 0) or getattr(e, "self_cuda_time_total", 0) for e in evs)
    return t / calls, sum(e.count for e in evs) / calls


def each(variants, f):
    """{variant: f(fn)}; a variant given as an error string, or whose f raises, gets an error string."""
    out = {}
    for name, fn in variants.items():
        try:
            out[name] = fn if isinstance(fn, str) else f(fn)
        except Exception as e:  # noqa: BLE001 - one variant's failure must not end the case
            out[name] = failed(e)
    return out


def interleaved(variants, timer, rounds):
    """({variant: median over rounds of timer(fn)}, {variant: its rounds}): five warm-up calls each (the
    first compiles and autotunes), then rounds that interleave the variants. Failures: error strings."""
    out = {n: v for n, v in each(variants, lambda fn: [fn() for _ in range(5)]).items() if isinstance(v, str)}
    got = {n: [] for n in variants if n not in out}
    for _ in range(rounds):
        for name, v in each({n: variants[n] for n in got if n not in out}, timer).items():
            if isinstance(v, str):
                out[name] = v
            else:
                got[name].append(v)
    out.update({n: statistics.median(r) for n, r in got.items() if n not in out})
    return {n: out[n] for n in variants}, {n: [round(x, 4) for x in r] for n, r in got.items()}


def check(outputs, ref):
    """({variant: relative error (norm) of its output against ref}, a note naming those past FLAG or failing)."""
    ref = ref.detach().double().reshape(-1)
    out1 = lambda o: o[0] if isinstance(o, (tuple, list)) else o  # noqa: E731 - pytorch3d's (loss, None)
    rel = each({k: f for k, f in outputs.items() if callable(f)},
               lambda f: float((out1(f()).detach().double().reshape(-1) - ref).norm() / ref.norm()))
    bad = [f"{k} {v:.1e}" if isinstance(v, float) else f"{k} {v[:80]}" for k, v in rel.items()
           if not (isinstance(v, float) and v <= FLAG)]
    return rel, f"check vs reference failed: {'; '.join(bad)}" if bad else ""


def breakdown(fn, calls, top=15):
    """cProfile of `calls` calls of fn, each profiled alone after a synchronise: the top functions by
    tottime, us per call (cProfile inflates small functions: read it for shares)."""
    prof = cProfile.Profile()
    for _ in range(calls):
        torch.cuda.synchronize()
        prof.enable()
        fn()
        prof.disable()
    torch.cuda.synchronize()
    stats = {k: v for k, v in pstats.Stats(prof).stats.items() if "_lsprof" not in k[2]}
    best = sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]
    return {"calls": calls, "total_tottime_us": sum(v[2] for v in stats.values()) / calls * 1e6,
            "top": [{"function": fname(*k), "tottime_us": v[2] / calls * 1e6, "cumtime_us": v[3] / calls * 1e6,
                     "ncalls": v[1] / calls} for k, v in best]}


def fname(path, _line, func):
    """file:function, the file relative to site-packages or the checkout (else its last two parts)."""
    short = next((path.split(m, 1)[1] for m in ("site-packages" + os.sep, ROOT + os.sep) if m in path),
                 os.sep.join(path.split(os.sep)[-2:]))
    return func if path == "~" else f"{short}:{func}"  # "~": a built-in


# --------------------------------------------------------------------------- cases

def row(name, metric, values, rounds=None, rel=None, note=""):
    return {"name": name, "metric": metric, **values, "note": note, "rel_err": rel or {}, "rounds": rounds or {}}


def maxsim_case(args, lib, name, nd, lq, ld, d, metrics, profile=False):
    """One query against nd documents of ld tokens: a row per metric; hsr's breakdown if profile."""
    g = torch.Generator(device="cuda").manual_seed(0)
    q, D = tokens(g, lq, d=d), tokens(g, nd, ld, d=d)
    h, fm, lik = lib["hsr"], lib["flash_maxsim"], lib["lik"]
    variants = {"hsr": bind(h, lambda: h.maxsim(q, D)),
                "flash_maxsim": bind(fm, lambda: fm.flash_maxsim(q, D)),  # Q [Lq, d], D [B, Ld, d] -> [B]
                "lik": bind(lik, lambda: lik.maxsim(q, D)),                # Q [Lq, d] -> [Nd]
                "eager": lambda: eager_maxsim(q, D)}
    timers = {"wall_us": lambda fn: wall_us(fn, args.calls), "do_bench_ms": bench_ms}
    with torch.no_grad():
        rel, note = check(variants, eager_maxsim(q.float(), D.float()))
        rows = [row(name, m, *interleaved(variants, timers[m], args.rounds), rel=rel, note=note) for m in metrics]
        bd = breakdown(variants["hsr"], args.calls) if profile and callable(variants["hsr"]) else None
    return rows, bd


def rerank_case(args, lib, nd, ld=300, lq=32):
    """One query against nd ragged documents; the peers in their packed and their padded forms."""
    g = torch.Generator(device="cuda").manual_seed(nd)
    lens = torch.randint(40, ld + 1, (nd,), generator=torch.Generator().manual_seed(nd))
    q, D = tokens(g, lq), tokens(g, nd, ld)  # padding tokens random too: a peer ignoring lengths shows
    mask = (torch.arange(ld)[None] < lens[:, None]).cuda()
    pad = ~mask
    packed = torch.cat([D[i, :n] for i, n in enumerate(lens.tolist())])
    cu_d = torch.cat([torch.zeros(1, dtype=torch.int64), lens.cumsum(0)]).to("cuda", torch.int32)
    cu_q = torch.tensor([0, lq], dtype=torch.int32, device="cuda")
    lens_d, longest = lens.to("cuda", torch.int32), int(lens.max())
    h, fm, lik = lib["hsr"], lib["flash_maxsim"], lib["lik"]
    variants = {"hsr": bind(h, lambda: h.maxsim(q, D, d_mask=mask)),
                "flash_maxsim": bind(fm, lambda: fm.flash_maxsim_rerank(q, packed, cu_d, longest)),  # -> [Nd]
                "lik": bind(lik, lambda: lik.maxsim_varlen(q, packed, cu_q, cu_d, lq, longest)),  # -> [1, Nd]
                "eager": lambda: eager_maxsim(q, D, pad),
                "flash_maxsim_padded": bind(fm, lambda: fm.flash_maxsim(q, D, doc_lengths=lens_d)),
                "lik_masked": bind(lik, lambda: lik.maxsim(q, D, d_mask=mask))}
    with torch.no_grad():
        rel, note = check(variants, eager_maxsim(q.float(), D.float(), pad))
        rows = [row(f"rerank{nd}", "wall_us", *interleaved(variants, lambda fn: wall_us(fn, args.calls),
                                                           args.rounds), rel=rel, note=note)]
        if nd >= 1000:
            got = each(variants, lambda fn: gpu_us(fn, args.calls))
            gpu = {k: v if isinstance(v, str) else v[0] for k, v in got.items()}
            note = "launches per call: " + ", ".join(f"{k} {v[1]:g}" for k, v in got.items() if not isinstance(v, str))
            rows.append(row(f"rerank{nd}", "gpu_us", gpu, rel=rel, note=note))
    return rows, None


def chamfer_case(args, lib, n=10000):
    """Forward + backward on one pair of n-point clouds, fp32, do_bench."""
    g = torch.Generator(device="cuda").manual_seed(3)
    x, y = ((torch.rand(1, n, 3, device="cuda", generator=g) * 2 - 1).requires_grad_() for _ in range(2))
    h, fm = lib["hsr"], lib["flash_maxsim"]

    def cdist_loss(a, b):
        d2 = torch.cdist(a, b).pow(2)
        return d2.amin(1).mean() + d2.amin(0).mean()

    losses = {"hsr": bind(h, lambda: h.chamfer_distance(x, y)),  # pytorch3d's call, x, y [N, P, 3]
              "flash_maxsim": bind(fm, lambda: fm.flash_chamfer_train(x[0], y[0])),  # one pair, [P, 3] each
              "eager": lambda: cdist_loss(x[0], y[0])}

    steps = {k: f if isinstance(f, str) else (lambda f=f: f().backward()) for k, f in losses.items()}
    with torch.no_grad():
        rel, note = check(losses, cdist_loss(x[0].double(), y[0].double()))
    return [row("chamfer10k", "do_bench_ms", *interleaved(steps, lambda fn: bench_ms(fn, [x, y]), args.rounds),
                rel=rel, note=(note + " " if note else "") + "forward + backward; check: the loss vs float64")], None


def compile_twice_case(args, lib):
    """hsr.compile of the same text four times in this process: the second reported, ms."""
    import hsr
    times = []
    for _ in range(4):
        t = time.perf_counter()
        hsr.compile(SPEC)
        times.append((time.perf_counter() - t) * 1e3)
    note = f"first in this process {times[0]:.2f} ms; third, fourth {times[2]:.2f}, {times[3]:.2f} ms"
    return [row("compile_twice", "compile_ms", {"hsr": times[1]}, note=note)], None


CHILD = """import json, time
import torch
g = torch.Generator(device="cuda").manual_seed(0)
Q = torch.nn.functional.normalize(torch.randn(32, 128, device="cuda", generator=g), dim=-1).half()
D = torch.nn.functional.normalize(torch.randn(4, 32, 128, device="cuda", generator=g), dim=-1).half()
W = torch.rand(1, 32, device="cuda", generator=g).half()
marks = [["setup", time.time()]]
mark = lambda name: marks.append([name, time.time()])
"""
BODIES = {"hsr": "import hsr.ops\nmark('import')\nout = hsr.ops.maxsim(Q, D)",
          "flash_maxsim": "import flash_maxsim\nmark('import')\nout = flash_maxsim.flash_maxsim(Q, D)",
          "lik": "import late_interaction_kernels as lik\nmark('import')\nout = lik.maxsim(Q, D)",
          "spec": "import hsr\nmark('import')\nop = hsr.compile(SPEC)\nmark('compile')\nout = op(Q=Q[None], D=D, w=W)",
          "gaussian": "import hsr\nmark('import')\nop = hsr.compile(GAUSSIAN)\nmark('compile')\nout = op(Q=Q[None], D=D)"}
GAUSSIAN = ("Q[i, s, d]: float\nD[j, t, d]: float\n"
            "score[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n")  # bench/specs.py's gaussian MaxSim
TAIL = "\ntorch.cuda.synchronize()\nmark('first_call')\nprint('HOST_JSON', json.dumps(marks))\n"


def spawn(body, timeout=180, caches=None):
    """body in a fresh interpreter: {"total_s": spawn to the synchronised result, "<phase>_s": ...} (phases
    after torch's import and the inputs: import, compile, first_call), or an error string. caches: a folder
    for Triton's and hsr's caches (TRITON_CACHE_DIR, HSR_CACHE_DIR); empty, the run is a cold one."""
    code = CHILD + f"SPEC = {SPEC!r}\nGAUSSIAN = {GAUSSIAN!r}\n" + body + TAIL
    env = None if caches is None else dict(os.environ, TRITON_CACHE_DIR=os.path.join(caches, "triton"),
                                           HSR_CACHE_DIR=os.path.join(caches, "hsr"))
    cmd = [sys.executable] + (["-P"] if getattr(sys.flags, "safe_path", False) else []) + ["-c", code]
    t = time.time()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return f"error: timed out after {timeout} s"
    line = next((s for s in p.stdout.splitlines() if s.startswith("HOST_JSON ")), None)
    if line is None:
        return f"error: exit {p.returncode}: {(p.stderr.strip().splitlines() or ['no output'])[-1][:200]}"
    marks = json.loads(line.split(" ", 1)[1])
    return {"total_s": marks[-1][1] - t, **{f"{b[0]}_s": b[1] - a[1] for a, b in zip(marks, marks[1:])}}


def first_call_case(args, lib):
    """Each body run cold (empty Triton and hsr caches of its own), then warm (the caches the cold run
    filled); the warm run reported in the first row, the cold one in the *_cold rows."""
    got, notes = {}, {}
    brief = lambda r: r if isinstance(r, str) else ", ".join(f"{k} {v:.2f}" for k, v in r.items())  # noqa: E731
    for name, body in BODIES.items():
        if over_budget(args):
            got[name] = "skipped: past the budget"
            continue
        caches = tempfile.mkdtemp(prefix=f"first-{name}-")
        cold, got[name] = spawn(body, caches=caches), spawn(body, caches=caches)
        got[name + "_cold"] = cold
        notes[name] = f"{name}: warm {brief(got[name])}; cold {brief(cold)}"
        print(f"  {notes[name]}", flush=True)
    pick = lambda k, key: got.get(k, "skipped") if isinstance(got.get(k, "skipped"), str) else got[k].get(key)  # noqa: E731
    peers = ("hsr", "flash_maxsim", "lik")
    rows = [row("first_call", "first_result_s", {k: pick(k, "total_s") for k in peers},
                note=" / ".join(notes[k] for k in peers if k in notes))]
    rows.append(row("first_call_cold", "first_result_s", {k: pick(k + "_cold", "total_s") for k in peers},
                    note="empty caches"))
    for spec in ("spec", "gaussian"):
        for run in (spec, spec + "_cold"):
            rows += [row(f"first_call_{run}", m, {"hsr": pick(run, key)}, note=n) for m, key, n in (
                ("first_result_s", "total_s", notes.get(spec, "")), ("compile_s", "compile_s", "hsr.compile(text)"),
                ("first_call_s", "first_call_s", "the compiled op's first call, synchronised"))]
    return rows, None


CASES = {
    "tiny": lambda a, lib: maxsim_case(a, lib, "tiny", 4, 32, 32, 128, ("wall_us",), profile=True),
    "textual": lambda a, lib: maxsim_case(a, lib, "textual", 1000, 32, 300, 128, ("do_bench_ms", "wall_us"),
                                          profile=True),
    "textual_d64": lambda a, lib: maxsim_case(a, lib, "textual_d64", 1000, 32, 300, 64, ("do_bench_ms",)),
    "textual_d96": lambda a, lib: maxsim_case(a, lib, "textual_d96", 1000, 32, 300, 96, ("do_bench_ms",)),
    "rerank100": lambda a, lib: rerank_case(a, lib, 100),
    "rerank1000": lambda a, lib: rerank_case(a, lib, 1000),
    "chamfer10k": chamfer_case,
    "compile_twice": compile_twice_case,
    "first_call": first_call_case,
}


# --------------------------------------------------------------------------- report

def over_budget(args):
    return time.monotonic() - args.t0 > args.budget_s


def cell(v):
    if v is None:
        return "-"
    return f"{v:.4g}" if isinstance(v, float) else str(v).replace("|", "/")[:70]


def markdown(res):
    cols = list(dict.fromkeys(list(COLUMNS) + [k for r in res["rows"] for k in r if k not in META]))
    p = res["peers"]
    lines = [f"Host-bound calls on {res['device']}: torch {res['torch']}, triton {res['triton']}, hsr "
             f"{res['hsr_commit']}, flash_maxsim {p['flash_maxsim']}, late_interaction_kernels {p['lik']}, "
             f"python {res['python']}; {res['calls']} calls x {res['rounds']} interleaved rounds (medians).", "",
             "wall_us: us per call, calls back to back, one synchronise; do_bench_ms: triton do_bench median; "
             "gpu_us: kernel time per call (torch.profiler); first_result_s: spawn to the first synchronised "
             "result, warm caches (second run); compile_ms, compile_s: hsr.compile.", "",
             "| case | metric | " + " | ".join(cols) + " | note |", "|" + "---|" * (len(cols) + 3)]
    lines += ["| " + " | ".join([r["name"], r.get("metric") or "-"] + [cell(r.get(c)) for c in cols]
                                + [cell(r.get("note") or "")]) + " |" for r in res["rows"]]
    for case, bd in res["breakdown"].items():
        lines += ["", f"{case}: hsr's public call under cProfile, {bd['calls']} calls each alone, "
                  f"{bd['total_tottime_us']:.1f} us/call of tottime in all (cProfile inflates; read for shares)", "",
                  "| function | tottime us/call | cumtime us/call | calls/call |", "|---|---|---|---|"]
        lines += [f"| {t['function'].replace('|', '/')} | {t['tottime_us']:.2f} | {t['cumtime_us']:.2f} | "
                  f"{t['ncalls']:g} |" for t in bd["top"]]
    return "\n".join(lines) + "\n"


def save(out, res):
    with open(os.path.join(out, "host.json"), "w") as f:
        json.dump(res, f, indent=1, default=str)
    with open(os.path.join(out, "host.md"), "w") as f:
        f.write(markdown(res))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog="cases: " + ", ".join(CASES))
    p.add_argument("--out", required=True, help="directory for host.json and host.md")
    p.add_argument("--calls", type=int, default=300, help="calls per timed loop (default: %(default)s)")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default: %(default)s)")
    p.add_argument("--budget-s", type=float, default=240, help="no case starts after this (default: %(default)s)")
    p.add_argument("--only", default="", help="comma-separated subset of the cases (default: all)")
    args = p.parse_args(argv)
    args.cases = [c.strip() for c in args.only.split(",") if c.strip()] or list(CASES)
    if any(c not in CASES for c in args.cases):
        p.error(f"unknown case in --only {args.only!r}; choose from {', '.join(CASES)}")
    return args


def main(argv=None):
    args = parse_args(argv)
    args.t0 = time.monotonic()
    if not torch.cuda.is_available():
        print("host.py: no CUDA device; nothing to time", file=sys.stderr)
        return 2
    import triton
    torch.backends.cuda.matmul.allow_tf32 = False
    lib = {"hsr": load("hsr.ops"), "flash_maxsim": load("flash_maxsim"), "lik": load("late_interaction_kernels")}
    version = lambda m: m if isinstance(m, str) else getattr(m, "__version__", "?")  # noqa: E731
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "triton": triton.__version__,
           "python": platform.python_version(), "hsr_commit": git_commit(),
           "hsr_file": getattr(sys.modules.get("hsr"), "__file__", None),
           "peers": {"flash_maxsim": version(lib["flash_maxsim"]), "lik": version(lib["lik"])},
           "calls": args.calls, "rounds": args.rounds, "budget_s": args.budget_s, "rows": [], "breakdown": {}}
    print(f"{res['device']}; torch {res['torch']}, triton {res['triton']}, hsr {res['hsr_commit']} "
          f"({lib['hsr'] if isinstance(lib['hsr'], str) else res['hsr_file']}); peers {res['peers']}", flush=True)
    os.makedirs(args.out, exist_ok=True)
    for name in args.cases:
        if over_budget(args):
            res["rows"].append({"name": name, "metric": None, "note": f"skipped: past the {args.budget_s:g} s budget"})
            print(f"== {name}: skipped (budget)", flush=True)
            continue
        print(f"== {name} ({time.monotonic() - args.t0:.0f} s)", flush=True)
        try:
            rows, bd = CASES[name](args, lib)
        except Exception as e:  # noqa: BLE001 - one case must not end the run
            rows, bd = [{"name": name, "metric": None, "note": failed(e)}], None
        for r in rows:
            print("  " + ", ".join(f"{k} {cell(r.get(k))}" for k in r if k not in ("name", "rel_err", "rounds")),
                  flush=True)
        res["rows"] += rows
        if bd:
            res["breakdown"][name] = bd
        torch.cuda.empty_cache()
        save(args.out, res)
    res["elapsed_s"] = time.monotonic() - args.t0
    save(args.out, res)
    print(f"\nwrote {args.out}/host.json and host.md ({res['elapsed_s']:.0f} s)\n")
    print(markdown(res), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
