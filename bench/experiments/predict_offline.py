#!/usr/bin/env python3
"""The config predictor replayed offline on recorded regret rows: for each MaxSim row of the given regret.json
files, the prediction this checkout makes from the shipped table (no GPU: the key and the pruner's arguments are
rebuilt from the row), beside the row's recorded prediction and its tuned config. A rule change can then be read
against rows already timed: a new prediction equal to the tuned config is the tuned time; one equal to the
recorded prediction is the recorded time; any other is untimed.

    python3 bench/experiments/predict_offline.py bench/results/<run>/regret-*/regret.json ...

Prints one line a row: regret, sizes, then "same" / "TUNED" / "other" and the configs."""

from __future__ import annotations

import ast
import json
import sys

import torch

from hsr import autotune
from hsr.generated import maxsim


def named_for(key: tuple, persist_rows: int, sizes: dict, dtype: str) -> dict:
    r_b, c_b, g_b, split, block_d, size_d, need_idx, small_d, dot_mode, dkey = key
    precision = dkey.split(":")[1] if ":" in dkey else "tf32"
    return {"Q_ptr": torch.empty(0, dtype=getattr(torch, dtype)), "size_s": sizes["s"], "size_t": sizes["t"],
            "size_i": sizes["i"], "BLOCK_D": block_d, "size_d": size_d, "DOT_MODE": dot_mode, "SMALL_D": small_d,
            "SPLIT_S": split, "PERSIST": persist_rows, "PRECISION": precision, "NEED_IDX": need_idx,
            "r_bucket": r_b, "c_bucket": c_b, "g_bucket": g_b}


def describe(config: dict) -> str:
    return autotune._describe(autotune.Tuned._renamed(config, {}))


def main(paths):
    autotune.autotuning = lambda: True
    autotune.arch = lambda: "sm90"
    autotune._where = lambda: "offline"
    fwd = autotune.forward(maxsim.score_fwd, lowering="sum_max_dot-67d735b87539", operand="Q_ptr",
                           block_r="BLOCK_S", block_c="BLOCK_T", block_k="BLOCK_D", size_r="size_s",
                           size_c="size_t", size_k="size_d", block_g="BLOCK_I", size_g="size_i", split="SPLIT_S")
    for path in paths:
        for row in json.load(open(path))["rows"]:
            if row.get("family") != "maxsim" or not row.get("predicted_config"):
                continue
            (text, recorded), = row["predicted_config"].items()
            key, persist = ast.literal_eval(text)
            tuned_cfg = next(iter(row["tuned_config"].values()), "")
            now = describe(fwd.predict(key, named_for(key, persist, row["sizes"], row["dtype"])))
            mark = "same" if now == recorded else "TUNED" if now == tuned_cfg else "other"
            print(f"{row.get('regret', 0):5.2f} {row['dtype']:9s} {row['sizes']} {mark:5s} now: {now} | "
                  f"recorded: {recorded} | tuned: {tuned_cfg}")


if __name__ == "__main__":
    main(sys.argv[1:])
