#!/usr/bin/env python3
"""hsr.compile of a new spec (the Gaussian MaxSim) in fresh processes on the CPU: with an
empty cache (a new HSR_CACHE_DIR) and then with the cache that run filled; torch is imported
before the clock starts. --tree times another package tree in the same run (a folder
holding hsr/ with templates/, ops/ and generated/ inside, as bench/run_gpu.sh lays it out).

    python3 bench/compile_cpu.py --out DIR [--rounds 5] [--tree NAME=PATH ...]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

CHILD = """import time, torch
t = time.perf_counter()
import hsr
op = hsr.compile("Q[i, s, d]: float\\nD[j, t, d]: float\\nscore[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\\n")
print("COMPILE_S", time.perf_counter() - t, hsr.__file__)
"""


def once(tree, cache):
    env = dict(os.environ, HSR_CACHE_DIR=cache)
    if tree:
        env["PYTHONPATH"] = tree
    out = subprocess.run([sys.executable, "-P", "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    line = next(s for s in out.stdout.splitlines() if s.startswith("COMPILE_S"))
    return float(line.split()[1]), line.split()[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--tree", action="append", default=[], help="NAME=PATH of another package tree")
    args = ap.parse_args()
    trees = [("this", "")] + [tuple(t.split("=", 1)) for t in args.tree]
    res = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(), "rows": []}
    for _ in range(args.rounds):  # rounds interleave the trees (the host's speed drifts)
        for name, tree in trees:
            cache = tempfile.mkdtemp(prefix="compile-cpu-")
            cold, where = once(tree, cache)
            warm, _ = once(tree, cache)
            res["rows"].append(dict(tree=name, hsr=where, cold_s=round(cold, 3), warm_s=round(warm, 3)))
    lines = ["| tree | empty cache, s | warm cache, s |", "|---|---|---|"]
    for name, _ in trees:
        rows = [r for r in res["rows"] if r["tree"] == name]
        lines.append(f"| {name} | {statistics.median(r['cold_s'] for r in rows):.2f} | "
                     f"{statistics.median(r['warm_s'] for r in rows):.2f} |")
    text = f"hsr.compile of the Gaussian MaxSim spec, {res['cores']} CPU cores, medians of {args.rounds}\n\n" \
        + "\n".join(lines) + "\n"
    print(text)
    os.makedirs(args.out, exist_ok=True)
    json.dump(res, open(os.path.join(args.out, "compile_cpu.json"), "w"), indent=1)
    open(os.path.join(args.out, "compile_cpu.md"), "w").write(text)


if __name__ == "__main__":
    main()
