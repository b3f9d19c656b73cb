bash bench/run_gpu.sh none >/dev/null 2>&1; export PYTHONPATH=/tmp/site
export HSR_CACHE_DIR=$(mktemp -d) HSR_TUNE_SECONDS=25
for dt in float16 bfloat16 float32; do for s in n=1048576,k=1024,d=64 n=1048576,k=1024,d=128 n=1048576,k=4096,d=128; do
  timeout 60 python3 -m hsr.cli tune examples/kmeans_assign.hsr --shapes $s --dtype $dt 2>&1 | grep -i "tuned\|error" | cut -c1-300
done; done
python3 -m hsr.cli tune --export $OUT/kmeans_tuned.json
timeout 200 python3 bench/experiments/l2_rank_probe.py --out $OUT --tag tuned --variants default 2>&1 | grep -v "Warning\|JITFunction" | cut -c1-300 | grep kmeans
