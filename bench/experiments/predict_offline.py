#!/usr/bin/env python3
"""The config predictor replayed offline on recorded regret rows: for each row of the given regret.json
files, the prediction this checkout makes from the shipped table (no GPU: the key and the pruner's arguments are
rebuilt from the row), beside the row's recorded prediction and its tuned config. A rule change can then be read
against rows already timed: a new prediction equal to the tuned config is the tuned time; one equal to the
recorded prediction is the recorded time; any other is untimed.

    python3 bench/experiments/predict_offline.py bench/results/<run>/regret-*/regret.json ...

Prints one line a row (MaxSim and the k-means assignment): regret, family, sizes, then "same" / "TUNED" / "other"
and the configs. `--by-neighbour` (first argument): instead, the MaxSim rows whose recorded prediction this checkout
still makes, grouped by the key their config came from (the bundled fp16 grid's keys, tuned on an H100 at 2 s a
key, or another 16-bit or fp32 key; of the row's class of rows, fp32 or 16-bit, or the other), with each group's
median and worst regret. `--launch` (first argument): the stacked MaxSim rows, each one's predicted (as this checkout
predicts it) and tuned configs as a call launches them (Tuned._stacked_fill on 132 multiprocessors, the programs
from the generated grid's formula), so that a launch rule is read against the timed rows too."""

from __future__ import annotations

import ast
import collections
import json
import statistics
import sys

import torch

import hsr
from hsr import autotune
from hsr.generated import maxsim

KMEANS = "X[n, f]: float\nC[k, f]: float\nassign[n] = argmin_k ||X_n - C_k||^2\n"  # bench/regret.py's


def named_for(fwd, key: tuple, persist_rows: int, sizes: dict, dtype: str) -> dict:
    """The pruner's and predictor's arguments of a call: the key's values by name, each axis's size_*,
    the operand's dtype, the precision of an fp32 key and a persistent call's rows."""
    named = dict(zip(fwd.keys, key))
    named.update({f"size_{axis}": n for axis, n in sizes.items()})
    named[fwd.operand] = torch.empty(0, dtype=getattr(torch, dtype))
    named["PRECISION"] = str(key[-1]).split(":")[1] if ":" in str(key[-1]) else "tf32"
    named["PERSIST"] = persist_rows
    return named


def describe(config: dict) -> str:
    return autotune._describe(config)


def predicted_now(fwd, row) -> str:
    """The config this checkout predicts for a recorded row (its key and pruner's arguments rebuilt)."""
    (text, _), = row["predicted_config"].items()
    key, persist = ast.literal_eval(text)
    return describe(fwd.predict(key, named_for(fwd, key, persist, row["sizes"], row["dtype"])))


def source(other: list, dtype: str) -> str:
    """The group of the key a config came from (--by-neighbour): bench/tune_grid.py's bundled grid (fp16,
    Lq 32 / 128 / 1024, Ld 128 / 512 / 1024, Nq 1 / 8 / 64 / 512, d 64 / 96 / 128, no indices) or another."""
    bundled = (other[-1] == "torch.float16" and other[0] in (32, 128, 1024) and other[1] in (128, 512, 1024)
               and other[2] in (1, 8, 64, 512) and other[5] in (64, 128) and not other[6])
    kind = "bundled fp16 grid" if bundled else "other fp32" if "float32" in other[-1] else "other 16-bit"
    return f"{kind}, {'same' if ('float32' in other[-1]) == ('float32' in dtype) else 'other'} class"


def by_neighbour(fwd, paths):
    grown, seen = fwd._rows_grown, {}

    def recording(config, key, other, allowed):  # the neighbour key each prediction takes its config from
        seen["other"] = list(other)
        return grown(config, key, other, allowed)
    fwd._rows_grown = recording
    groups = collections.defaultdict(list)
    for path in paths:
        for row in json.load(open(path))["rows"]:
            if row.get("family") != "maxsim" or not row.get("predicted_config"):
                continue
            recorded = next(iter(row["predicted_config"].values()))
            seen.clear()
            now = predicted_now(fwd, row)
            if now == recorded and "other" in seen:
                groups[source(seen["other"], row["dtype"])].append(row["regret"])
    for name, regrets in sorted(groups.items()):
        print(f"{name:32s} rows {len(regrets):3d}  median {statistics.median(regrets):.3f}  worst {max(regrets):.2f}"
              f"  above 1.35: {sum(r > 1.35 for r in regrets)}")


def launched(fwd, row, text: str) -> str:
    """A recorded row's config (described) as its call launches it: the stacked fill on the call's programs."""
    import math
    from hsr import dispatch
    key, _ = ast.literal_eval(next(iter(row["predicted_config"])))
    blocks = dict(kv.split("=") for kv in text.split(", ")[:3])
    config = {"kwargs": {k: int(v) for k, v in blocks.items()}, "num_warps": int(text.split(", ")[3].split()[0]),
              "num_stages": int(text.split(", ")[4].split()[0])}
    s = row["sizes"]
    chunks = math.ceil(s["s"] / key[3]) if key[3] else 1
    persist = dispatch.persistent(s["s"], s["i"] * s["j"] * chunks, 132, key[3])
    kwargs = {**named_for(fwd, key, 0, s, row["dtype"]), "PERSIST": persist, "BLOCK_D": key[4], "DOT_MODE": key[8]}

    def grid(meta):
        blocks_i = math.ceil(s["i"] / meta["BLOCK_I"])
        return (dispatch.persistent_programs(blocks_i, s["j"] * chunks, 132) if persist else blocks_i * s["j"] * chunks,)
    return describe(fwd._stacked_fill(config, key, grid, (), kwargs)) + (" (persistent)" if persist else "")


def by_launch(fwd, paths):
    from hsr import dispatch
    dispatch.multiprocessors = lambda device: 132
    dispatch.INTERPRET_SMS = 132  # the rows' tensors are not passed: the fill reads this count
    for path in paths:
        for row in json.load(open(path))["rows"]:
            if row.get("family") != "maxsim" or not row.get("predicted_config") or row["sizes"]["i"] == 1:
                continue
            try:
                now, tuned_cfg = predicted_now(fwd, row), next(iter(row["tuned_config"].values()))
            except ValueError:  # an early record's key (no persistent rows beside it)
                continue
            go, tuned_go = launched(fwd, row, now), launched(fwd, row, tuned_cfg)
            print(f"{row['regret']:5.2f} {row['dtype']:9s} {row['sizes']} {'SAME' if go == tuned_go else 'differ':6s} "
                  f"launched: {go} | tuned, launched: {tuned_go}")


def main(paths):
    autotune.autotuning = lambda: True
    autotune.arch = lambda: "sm90"
    autotune._where = lambda: "offline"
    kernels = {"maxsim": maxsim._score_kernel(), "kmeans": hsr.compile(KMEANS).module._assign_kernel()}
    if paths and paths[0] == "--by-neighbour":
        return by_neighbour(kernels["maxsim"], paths[1:])
    if paths and paths[0] == "--launch":
        return by_launch(kernels["maxsim"], paths[1:])
    for path in paths:
        for row in json.load(open(path))["rows"]:
            fwd = kernels.get(row.get("family"))
            if fwd is None or not row.get("predicted_config"):
                continue
            recorded = next(iter(row["predicted_config"].values()))
            tuned_cfg = next(iter(row["tuned_config"].values()), "")
            try:
                now = predicted_now(fwd, row)
            except ValueError:  # a row recorded before the key held the persistent rows
                continue
            mark = "same" if now == recorded else "TUNED" if now == tuned_cfg else "other"
            print(f"{row.get('regret', 0):5.2f} {row['family']:6s} {row['dtype']:9s} {row['sizes']} {mark:5s} now: {now} | "
                  f"recorded: {recorded} | tuned: {tuned_cfg}")


if __name__ == "__main__":
    main(sys.argv[1:])
