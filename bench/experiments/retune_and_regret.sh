#!/usr/bin/env bash
# Tune a grid's keys again with no time limit, one shard a GPU, ship the picks into this checkout's
# hsr/tuned.json, then judge the prediction: bench/regret.py's 40 held-out shapes, a shard of 10 a GPU.
#   GRIDS=broad,wide,stacked,wide-one DIMS=384,448,512,640,896,1024 bash bench/experiments/retune_and_regret.sh
# (PRECISION=high: fp32 grids under one TF32 product; TUNE_S, REGRET_S: the budgets, seconds; SEEDS: the draws
#  judged, default 28, each in N shards; PICKS: only these shapes of each draw; THEN: a file whose line g GPU g runs after its regret shards;
#  REGRET=0: tune only; the grid's picks alone are $OUT/grid_picks.json either way, for regret.py --with-table;
#  SHIP=0: the checkout's table stays as shipped; WITH_TABLE: regret.py's --with-table, GRID naming grid_picks.json)
# (run from the repository root on a machine of N GPUs, after bench/run_gpu.sh none; results under $OUT)
set -u
N=$(nvidia-smi -L | wc -l)
for g in $(seq 0 $((N - 1))); do
  (export CUDA_VISIBLE_DEVICES=$g HSR_CACHE_DIR=$(mktemp -d) HSR_AUTOTUNE_CACHE=0
   python3 bench/tune_grid.py --grid "$GRIDS" --precision "${PRECISION:-highest}" --dims "${DIMS:-}" --tune-seconds 1e9 --budget-s "${TUNE_S:-260}" \
     --shard $g/$N --out "$OUT/tuned-$g" > "$OUT/tune-$g.log" 2>&1) &
done
wait
python3 - <<'PY'
import glob, json, os
path = "hsr/tuned.json"
table = json.load(open(path))
ship = os.environ.get("SHIP", "1") != "0"
for f in sorted(glob.glob(os.environ["OUT"] + "/tuned-*/tuned_grid.json")):
    table["sm90"].update(json.load(open(f))["sm90"])
if ship:
    open(path, "w").write(json.dumps(table, indent=1) + "\n")
open(os.environ["OUT"] + "/tuned.json", "w").write(json.dumps(table, indent=1) + "\n")
picks = {}
for f in sorted(glob.glob(os.environ["OUT"] + "/tuned-*/tuned_grid.json")):
    picks.update(json.load(open(f))["sm90"])
open(os.environ["OUT"] + "/grid_picks.json", "w").write(json.dumps({"sm90": picks}, indent=1) + "\n")
PY
if [ "${REGRET:-1}" = 0 ]; then (cd "$OUT" && tar czf /tmp/results.tgz . && rm -rf ./* && mv /tmp/results.tgz .); exit 0; fi
SHAPES=$((40 / N))
TABLES=()
[ -n "${WITH_TABLE:-}" ] && TABLES=(--with-table "${WITH_TABLE//GRID/$OUT/grid_picks.json}")
for g in $(seq 0 $((N - 1))); do
  (export CUDA_VISIBLE_DEVICES=$g HSR_CACHE_DIR=$(mktemp -d)
   for seed in ${SEEDS:-28}; do
     if [ -n "${PICKS:-}" ]; then  # only these shapes of the draw (1-based), every N-th from the g-th
       mine=$(echo "$PICKS" | tr , '\n' | awk -v g=$g -v n=$N 'NR % n == g % n' | paste -sd, -)
       [ -n "$mine" ] && python3 bench/regret.py --seed $seed --pick "$mine" --budget-s "${REGRET_S:-400}" --rounds 3 \
         "${TABLES[@]}" --out "$OUT/regret-$seed-$g" > "$OUT/regret-$seed-$g.log" 2>&1
     else
       python3 bench/regret.py --seed $seed --n $SHAPES --start $((g * SHAPES)) --budget-s "${REGRET_S:-400}" --rounds 3 \
         "${TABLES[@]}" --out "$OUT/regret-$seed-$g" > "$OUT/regret-$seed-$g.log" 2>&1
     fi
   done
   if [ -n "${THEN:-}" ]; then
     job=$(sed -n "$((g + 1))p" "$THEN")
     [ -n "$job" ] && bash -c "$job" > "$OUT/then-$g.log" 2>&1
   fi) &
done
wait
# one file back: the device returns a few files a call
(cd "$OUT" && tar czf /tmp/results.tgz . && rm -rf ./* && mv /tmp/results.tgz .)
