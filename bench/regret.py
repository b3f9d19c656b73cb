#!/usr/bin/env python3
"""The config predictor's regret: on shapes drawn from a fixed seed, none of them in the
grids the shipped configs were tuned on, the public call's time with the predicted config
over its time after exhaustive tuning of that shape.

    python3 bench/regret.py --out DIR [--n 40] [--budget-s 400] [--start K] [--weights 'L,D,F,R;...']
                            [--dtype float32] [--pick 38,40] [--families maxsim,kmeans,splade,nearest] [--dry]
                            [--with-table FILE]

Families: the bundled MaxSim (serving, fp16 / bf16 / fp32, d from 48 to 1024, one to 64
queries) and the k-means assignment (argmin over centres, fp16 / bf16 / fp32); with
--families, also the Splade head and the nearest point of point clouds (a third of the
draws). A shape whose call runs a kernel of fixed blocks (the lean forward, the long
contraction through TMA) predicts nothing and is drawn again. --dry prints the draw and
each shape's kernel on any machine. Predicted: a fresh cache directory, so only the
shipped table and the rule serve.
Tuned: `hsr.tune` with no time limit (every config the pruner allows), then the same
call. Each shape starts from a fresh cache, so that no earlier shape's tuning serves it. Times are do_bench medians,
the predicted and the tuned call timed in --rounds interleaved rounds (the median of each), so that the machine's
drift between them does not read as regret. A row whose predicted and tuned configs are the same kernel's
one config is marked (same_config): its ratio is the machine's noise (a 13 us call's host path read 2.45 once
and 0.61 again), and the summary's worst_configs_differ leaves it out. Beside the public call's time, each round
also times the call's kernels alone (a CUDA graph of it replayed; graph_regret, worst_kernels_alone), labelled so.
A shape whose call fails (tuning it, or the tuned call) is recorded with its error (regret.json's "failed",
the summary's count, regret.md's last rows) and the draw goes on: such a call is a finding, not a lost shard.
Writes DIR/regret.json and DIR/regret.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

KMEANS = "X[n, f]: float\nC[k, f]: float\nassign[n] = argmin_k ||X_n - C_k||^2\n"
# --families adds these (the default draw, MaxSim and k-means, keeps its sequence): the Splade head's
# long contraction, and the nearest point of a point cloud (a few coordinates, the CUDA cores)
SPECS = {"kmeans": KMEANS,
         "splade": "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s log1p(relu(<H_s, W_v>))\n",
         "nearest": "X[b, n, c]: float\nY[b, m, c]: float\ndist[b, n] = min_m ||X_n - Y_m||^2\n"}
DIMS = (48, 64, 96, 160, 192, 320, 384, 768, 1024)
FIXED = ("lean ", "tiles-tma ")  # kernels of fixed blocks (dispatch: LEAN_*, LONG_TMA_BLOCKS): nothing predicted


def graph_ms(torch, triton, call) -> float | None:
    """The call's kernels alone (labelled so beside the public call's time): captured once in a CUDA graph
    after a warm call on a side stream, the replays timed; None where the call cannot be captured."""
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            call()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            call()
        return triton.testing.do_bench(graph.replay, warmup=10, rep=50)
    except RuntimeError:
        return None


def graph_regret(predicted: list, tuned: list) -> dict:
    """The kernels-alone times of a row's rounds and their ratio (host excluded: a small call's public time
    is its host path's)."""
    if not predicted or None in predicted + tuned:
        return {"graph_regret": None}
    return {"graph_ms": [round(statistics.median(predicted), 4), round(statistics.median(tuned), 4)],
            "graph_regret": round(statistics.median(predicted) / statistics.median(tuned), 3)}


def draw(rng: random.Random, extra: tuple = ()) -> dict:
    """One shape: family, dtype and sizes (axis -> n). extra: families beside MaxSim and k-means,
    drawn a third of the time (none: the draw of the published runs)."""
    if extra and rng.random() < 1 / 3:
        family = rng.choice(extra)
        if family == "splade":
            return {"family": "splade", "dtype": rng.choice(("float16", "bfloat16")),
                    "sizes": {"b": rng.choice((1, 8, 32)), "s": rng.choice((64, 200, 512)),
                              "h": rng.choice((384, 768)), "v": rng.choice((8192, 30522))}}
        return {"family": "nearest", "dtype": "float32",
                "sizes": {"b": rng.choice((1, 8, 32)), "n": rng.choice((1000, 4096, 10000)),
                          "m": rng.choice((1000, 4096, 10000)), "c": rng.choice((2, 3))}}
    dtype = rng.choice(("float16", "bfloat16", "float32"))
    if rng.random() < 0.75:
        lq, ld = rng.choice((32, 64, 128, 200, 512, 1024)), rng.choice((100, 300, 700, 1024, 2000, 4096))
        nq = rng.choice((1, 1, 8, 64))
        nd = max(4, min(2000, int(4e9 // (nq * lq * ld * 128))))
        return {"family": "maxsim", "dtype": dtype,
                "sizes": {"i": nq, "j": nd, "s": lq, "t": ld, "d": rng.choice(DIMS)}}
    return {"family": "kmeans", "dtype": dtype,
            "sizes": {"n": rng.choice((50_000, 200_000, 1_000_000)), "k": rng.choice((100, 256, 1000, 3000)),
                      "f": rng.choice((16, 32, 48, 64, 96, 128))}}


def forget_picks(autotune):
    """Every autotuned kernel's configs of this process, kept and predicted, forgotten."""
    for kernel in [k for k in gc.get_objects() if isinstance(k, autotune.Tuned)]:
        kernel.configs.clear()
        kernel.predicted.clear()


def picks(autotune, kind):
    """The configs this shape's calls ran ("predicted" or "configs", by key), as text."""
    return {str(key): autotune._describe(config) for kernel in gc.get_objects() if isinstance(kernel, autotune.Tuned)
            for key, config in getattr(kernel, kind).items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--budget-s", type=float, default=400)
    ap.add_argument("--start", type=int, default=0, help="skip the first START shapes drawn (a run in parts)")
    ap.add_argument("--weights", default="", help="also time the prediction under other distance weights: "
                    "'length,d,fp32,ieee_rows;...' (autotune.DISTANCE_WEIGHTS), as regret_<weights>")
    ap.add_argument("--dtype", default="", help="only the shapes drawn with this dtype (float16, bfloat16, float32)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds timing the predicted and tuned configs")
    ap.add_argument("--pick", default="", help="only these shapes, by their 1-based place in the draw (e.g. '38,40')")
    ap.add_argument("--families", default="maxsim,kmeans",
                    help="maxsim,kmeans (the published draw), and splade, nearest: a third of the draws")
    ap.add_argument("--dry", action="store_true", help="print the draw and each shape's forward kernel; time nothing")
    ap.add_argument("--with-table", default="", help="also time the prediction with each of these files' entries "
                    "(comma-separated; tune_grid's layout, {'sm90': {entry: config}}) added to the shipped table, in the "
                    "same rounds: regret_table_<file's stem>; a file of several files' stems joined by '+' adds them all")
    args = ap.parse_args()
    os.environ["HSR_CACHE_DIR"] = tempfile.mkdtemp(prefix="hsr-regret-")  # nothing measured: the prediction
    os.environ["HSR_TUNE_SECONDS"] = "1e9"
    import torch
    import triton
    import triton.testing

    import hsr
    from hsr import autotune, kept, tune
    from hsr.cli import bundled_spec

    extra = tuple(f for f in args.families.split(",") if f not in ("maxsim", "kmeans"))
    ops = {"maxsim": hsr.compile(bundled_spec("maxsim")),
           **{f: hsr.compile(SPECS[f]) for f in ("kmeans", *extra)}}
    rng, rows, failed, t0, drawn = random.Random(args.seed), [], [], time.monotonic(), 0
    from hsr import tuned as hsr_tuned
    shipped = hsr_tuned.shipped
    tables = {}  # stem -> entries; "a+b" -> both
    for group in filter(None, args.with_table.split(",")):
        merged = {}
        for path in group.split("+"):
            merged.update(json.loads(Path(path).read_text())["sm90"])
        tables["+".join(Path(p).stem for p in group.split("+"))] = merged
    others = [tuple(float(v) for v in w.split(",")) for w in args.weights.split(";") if w]
    picked = {int(k) for k in args.pick.split(",") if k}
    default = dict(autotune.DISTANCE_WEIGHTS)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    while len(rows) + len(failed) < (len(picked) or args.n) and time.monotonic() - t0 < args.budget_s:
        case = draw(rng, extra)
        op, sizes = ops[case["family"]], case["sizes"]
        if args.dry:  # the draw alone, on any machine: each shape's kernel on an sm90 GPU, from explain
            kernel = next((line.strip() for line in op.explain(sizes, case["dtype"]).splitlines()
                           if "forward kernel:" in line), "")
            print(json.dumps({**case, "kernel": kernel}))
            if not any(f"forward kernel: {fixed}" in kernel for fixed in FIXED):
                rows.append(case)
            continue
        inputs = tune._inputs(op, sizes, getattr(torch, case["dtype"]))
        lines = op.explain(sizes, case["dtype"]).splitlines()
        if any(f"forward kernel: {fixed}" in line for line in lines for fixed in FIXED):
            continue
        drawn += 1
        if drawn <= args.start or (args.dtype and case["dtype"] != args.dtype) or \
                (picked and drawn not in picked):
            continue

        def call():
            with torch.no_grad():
                return op(**inputs)
        try:
            rows.append(time_shape(case, call, op, sizes, others, tables, shipped, default, args))
            print(json.dumps(rows[-1]), flush=True)
        except Exception as e:  # noqa: BLE001 - a call that fails is a finding: recorded, and the draw goes on
            failed.append({**case, "error": f"{type(e).__name__}: {e}"[:400]})
            print(json.dumps(failed[-1]), flush=True)
        (out / "regret_rows.json").write_text(json.dumps(rows + failed, indent=1))  # kept if the run is cut
        del inputs
        torch.cuda.empty_cache()
    if args.dry:
        return
    summarize(rows, failed, out, t0)


def time_shape(case, call, op, sizes, others, tables, shipped, default, args) -> dict:
    """One drawn shape's row: its predicted and tuned configs, each timed in interleaved rounds."""
    import torch
    import triton.testing

    from hsr import autotune, kept, tune
    from hsr import tuned as hsr_tuned
    # nothing an earlier shape tuned serves this one: a fresh cache, each kernel's picks forgotten
    os.environ["HSR_CACHE_DIR"] = predicted_dir = tempfile.mkdtemp(prefix="hsr-regret-")
    forget_picks(autotune)
    kept.forget()
    call()
    case["predicted_config"] = picks(autotune, "predicted")
    timed = {}
    for w in others:  # each kernel's kept predictions forgotten, then predicted again under w
        autotune.DISTANCE_WEIGHTS.update(zip(("length", "d", "fp32", "ieee_rows"), w))
        forget_picks(autotune)
        kept.forget()
        call()
        timed[w] = triton.testing.do_bench(call, warmup=10, rep=50)
        autotune.DISTANCE_WEIGHTS.update(default)
    os.environ["HSR_CACHE_DIR"] = tuned_dir = tempfile.mkdtemp(prefix="hsr-regret-")
    forget_picks(autotune)
    kept.forget()
    tune.tune(op, sizes, case["dtype"])
    call()
    case["tuned_config"] = picks(autotune, "configs")
    # the two timed in interleaved rounds, each round's cache and picks its own (the predicted
    # config from an empty cache, the tuned one from the cache tuning wrote): a median each, so that
    # a drift of the machine between the two does not read as regret
    runs = {predicted_dir: [], tuned_dir: []}
    graphs = {predicted_dir: [], tuned_dir: []}  # kernels alone: the call replayed as a CUDA graph
    with_table = {name: (None, []) for name in tables}  # (its config, its times) with a table's entries
    for _ in range(args.rounds):
        for where in runs:
            os.environ["HSR_CACHE_DIR"] = where
            forget_picks(autotune)
            kept.forget()
            call()
            runs[where].append(triton.testing.do_bench(call, warmup=10, rep=50))
            graphs[where].append(graph_ms(torch, triton, call))
        for name, entries in tables.items():
            os.environ["HSR_CACHE_DIR"] = tempfile.mkdtemp(prefix="hsr-regret-")
            hsr_tuned.shipped = lambda arch, e=entries: {**shipped(arch), **e} if arch == "sm90" else shipped(arch)
            forget_picks(autotune)
            kept.forget()
            call()
            ms = triton.testing.do_bench(call, warmup=10, rep=50)
            with_table[name] = (picks(autotune, "predicted"), with_table[name][1] + [ms])
            hsr_tuned.shipped = shipped
    predicted, tuned = statistics.median(runs[predicted_dir]), statistics.median(runs[tuned_dir])
    for name, (config, times) in with_table.items():
        case[f"table_config_{name}"] = config
        case.update({f"table_ms_{name}": round(statistics.median(times), 4),
                     f"regret_table_{name}": round(statistics.median(times) / tuned, 3)})
    return {**case, "predicted_ms": round(predicted, 4), "tuned_ms": round(tuned, 4),
            "regret": round(predicted / tuned, 3),
            # one kernel with one config each time: the ratio measures the machine, not the prediction
            "same_config": sorted(case["predicted_config"].values()) == sorted(case["tuned_config"].values()),
            "rounds_ms": [[round(ms, 4) for ms in runs[where]] for where in (predicted_dir, tuned_dir)],
            **graph_regret(graphs[predicted_dir], graphs[tuned_dir]),
            **{f"regret_{','.join(f'{v:g}' for v in w)}": round(ms / tuned, 3) for w, ms in timed.items()}}


def summarize(rows, failed, out, t0):
    """regret.json (the summary and the rows, failed shapes last), regret.md, and the summary printed."""
    import torch
    import triton
    regrets = [r["regret"] for r in rows]
    summary = {"shapes": len(rows), "failed": len(failed), "median": statistics.median(regrets) if rows else None,
               "worst": max(regrets) if rows else None,
               "worst_configs_differ": max((r["regret"] for r in rows if not r["same_config"]), default=None),
               "worst_kernels_alone": max((r["graph_regret"] for r in rows if r["graph_regret"]), default=None),
               "device": torch.cuda.get_device_name(),
               **{f"median_{w}": statistics.median(r[f"regret_{w}"] for r in rows)
                  for w in ([k.removeprefix("regret_") for k in rows[0] if k.startswith("regret_")] if rows else [])},
               **{f"worst_{w}": max(r[f"regret_{w}"] for r in rows)
                  for w in ([k.removeprefix("regret_") for k in rows[0] if k.startswith("regret_")] if rows else [])},
               "versions": f"torch {torch.__version__}, triton {triton.__version__}",
               "seconds": round(time.monotonic() - t0)}
    (out / "regret.json").write_text(json.dumps({"summary": summary, "rows": rows, "failed": failed}, indent=1))
    table = ["| family | dtype | sizes | predicted ms | tuned ms | regret | kernels alone (graph) | configs |",
             "|---|---|---|---|---|---|---|---|"]
    table += [f"| {r['family']} | {r['dtype']} | {r['sizes']} | {r['predicted_ms']} | {r['tuned_ms']} | "
              f"{r['regret']} | {r['graph_regret']} | {'the same' if r['same_config'] else 'differ'} |" for r in rows]
    table += [f"| {r['family']} | {r['dtype']} | {r['sizes']} | **failed**: {r['error']} | | | | |" for r in failed]
    (out / "regret.md").write_text(f"Regret on {summary['device']}: {summary}\n\n" + "\n".join(table) + "\n")
    print(summary)


if __name__ == "__main__":
    main()
