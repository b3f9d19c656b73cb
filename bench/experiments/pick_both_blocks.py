#!/usr/bin/env python3
"""Print HSR_BOTH_BLOCKS ("r,c,w;r,c,w": without;with the saved index) from the
fastest checked both_ways configs at 100K in a both_ways_blocks.json.

    export HSR_BOTH_BLOCKS=$(python3 bench/experiments/pick_both_blocks.py DIR/both_ways_blocks_*.json)
"""
import json
import sys

rows = [r for path in sys.argv[1:] for r in json.load(open(path))["rows"] if r["variant"] == "both_ways" and r["ok"]]
pick = []
for need_idx in (False, True):
    cands = [r for r in rows if r["need_idx"] == need_idx and r["shape"] == "100k"] or \
        [r for r in rows if r["need_idx"] == need_idx]
    pick.append(",".join(map(str, min(cands, key=lambda r: r["ms"])["blocks"])) if cands else "64,64,4")
print(";".join(pick))
