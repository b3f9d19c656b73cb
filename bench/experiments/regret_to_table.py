#!/usr/bin/env python3
"""Regret rows as table entries: each timed row's tuned config (exhaustive tuning on the GPU that ran it) as an
entry of hsr/tuned.json's table, and a leave-one-draw-out replay of what those entries would change, without a GPU.

    python3 bench/experiments/regret_to_table.py --out DIR bench/results/<run>/regret-*/regret.json ...

A row gives an entry where its tuned config ran at least as fast as the predicted one in the same run (regret
>= 1) and the shipped table has no entry for its key (the table's entries win, as bench/tune_grid.py merges). Writes
DIR/tuned_regret.json ({"sm90": {entry: config}}, tune_grid's layout). Then, for each draw (a seed's files, named
regret-seedN* or regret-N-*), the entries of the other draws are added to the shipped table and that draw's rows
replayed (bench/experiments/predict_offline.py's rebuilding of a row's key) against the shipped table alone: how
many rows keep the shipped prediction, move to their tuned config, or move to another (untimed) one, each with its
regret under the shipped prediction where the row timed it. The moved-to-tuned rows' regrets are what those entries
gain on a draw they were not taken from; the others need a GPU."""

from __future__ import annotations

import argparse
import ast
import collections
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import predict_offline as po  # noqa: E402

from hsr import autotune, tuned  # noqa: E402


def parse(text: str, names: dict) -> dict:
    """'BLOCK_I=2, BLOCK_S=64, BLOCK_T=128, 8 warps, 3 stages' as a table config (blocks by role)."""
    kwargs = {names.get(k, k): int(v) for k, v in re.findall(r"(BLOCK_\w+)=(\d+)", text)}
    warps, stages = (int(re.search(rf"(\d+) {w}", text).group(1)) for w in ("warps", "stages"))
    return {"kwargs": kwargs, "num_warps": warps, "num_stages": stages}


def draw_of(path: str) -> str:
    m = re.search(r"regret-(?:seed)?(\d+)", path)
    return m.group(1) if m else path


def entries(rows, kernels, shipped: dict) -> dict:
    """{entry_key: config} of the rows whose tuned config ran at least as fast as the predicted one."""
    out = {}
    for row in rows:
        fwd = kernels.get(row.get("family"))
        if fwd is None or not row.get("tuned_config") or row.get("regret", 0) < 1.0:
            continue
        (text, described), = row["tuned_config"].items()
        name = tuned.entry_key(fwd.lowering, ast.literal_eval(text))
        if name not in shipped and name not in out:
            out[name] = parse(described, {v: k for k, v in fwd.roles.items()})
    return out


def replay(rows, kernels, shipped: dict, extra: dict) -> collections.Counter:
    """Each row's prediction from the shipped table, then with extra entries: unchanged, moved to the row's
    tuned config, or moved to another. A moved row's regret before is known where the shipped prediction is the
    one the row recorded (else '?': a rule changed since the row was timed)."""
    counts = collections.Counter()
    for row in rows:
        fwd = kernels.get(row.get("family"))
        if fwd is None or not row.get("predicted_config"):
            continue
        tuned.shipped = lambda arch: shipped if arch == "sm90" else {}
        base = po.predicted_now(fwd, row)
        tuned.shipped = lambda arch: {**shipped, **extra} if arch == "sm90" else {}
        now = po.predicted_now(fwd, row)
        recorded, tuned_cfg = next(iter(row["predicted_config"].values())), next(iter(row["tuned_config"].values()))
        if now == base:
            counts["unchanged"] += 1
            continue
        before = f"{row['regret']:.2f}" if base == recorded else "1.00 (tuned)" if base == tuned_cfg else "?"
        mark = "tuned" if now == tuned_cfg else "other"
        counts[mark] += 1
        counts[f"{mark}: from {before}"] += 1
    tuned.shipped = lambda arch: shipped if arch == "sm90" else {}
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    autotune.autotuning = lambda: True
    autotune.arch = lambda: "sm90"
    autotune._where = lambda: "offline"
    kernels = {"maxsim": po.maxsim._score_kernel(), "kmeans": po.hsr.compile(po.KMEANS).module._assign_kernel()}
    draws = collections.defaultdict(list)
    for path in args.paths:
        draws[draw_of(path)].extend(json.load(open(path))["rows"])
    shipped = tuned.shipped("sm90")
    table = entries([r for rows in draws.values() for r in rows], kernels, shipped)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tuned_regret.json").write_text(json.dumps(
        {"_source": "bench/experiments/regret_to_table.py: the tuned configs of regret rows (regret >= 1) of draws "
                    + ", ".join(sorted(draws)), "sm90": table}, indent=1, sort_keys=True))
    print(f"{len(table)} entries from {sum(map(len, draws.values()))} rows of draws {', '.join(sorted(draws))}")
    for draw, rows in sorted(draws.items()):
        others = entries([r for d, rs in draws.items() if d != draw for r in rs], kernels, shipped)
        counts = replay(rows, kernels, shipped, others)
        moved = sorted((k for k in counts if ":" in k), key=lambda k: (k.split(":")[0], k))
        print(f"draw {draw}: {len(others)} entries of the others; rows unchanged {counts['unchanged']}, to their "
              f"tuned config {counts['tuned']}, to another {counts['other']}")
        for k in moved:
            print(f"    {k} (x{counts[k]})" if counts[k] > 1 else f"    {k}")


if __name__ == "__main__":
    main()
