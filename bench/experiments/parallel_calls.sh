#!/usr/bin/env bash
# One device call, several GPUs: each line of the file $1 is a command run on its own GPU
# (CUDA_VISIBLE_DEVICES = its line number, from 0), its output in $OUT/gpu<N>.log; lines past the
# machine's GPUs wait for the first free one. Returns one archive ($OUT/results.tgz): a device
# call brings back only a few files. A device call's time is its wall time whatever its GPUs use.
#   bash bench/experiments/parallel_calls.sh bench/experiments/jobs.txt
set -o pipefail
bash bench/run_gpu.sh none > "$OUT/setup.log" 2>&1
export PYTHONPATH=/tmp/site
nvidia-smi -L > "$OUT/gpus.txt"
gpus=$(wc -l < "$OUT/gpus.txt")
mapfile -t jobs < "$1"
for ((g = 0; g < gpus; g++)); do
  (for ((j = g; j < ${#jobs[@]}; j += gpus)); do
     echo "== ${jobs[$j]}" >> "$OUT/gpu$g.log"
     CUDA_VISIBLE_DEVICES=$g bash -c "${jobs[$j]}" >> "$OUT/gpu$g.log" 2>&1
   done) &
done
wait
cd "$OUT" && tar czf /tmp/results.tgz . && rm -rf ./* && mv /tmp/results.tgz .
