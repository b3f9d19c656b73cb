#!/usr/bin/env bash
# The one script a GPU (device) call runs, from the repository root:
#   bash bench/run_gpu.sh [all|tests|bench|train|offgrid|lang|langtests|rel|edges|scatter|quant|exact|kmeans|base|specs|host|varlen|compressed|none]    (carry .whl with the call)
# It installs the carried wheels and hsr without network, prints the machine,
# runs the GPU tests, then the MaxSim forward benchmark. Logs and results go
# to $OUT (gpu_tests.log, bench.log, maxsim_forward.json, maxsim_forward.md).
# A failing test run does not stop the benchmark; the script's exit status
# is non-zero if either failed. Time: tests <= 200 s, benchmark <= 290 s (it
# starts no new work after 230 s), about 8 minutes at the very most.
# Stages run alone: train (MaxSim training step, <= 520 s), offgrid (the off-grid tables
# of maxsim_forward.py and maxsim_train.py, maxsim_*_off_grid.json/md, <= 560 s; arguments
# after the stage name, e.g. --big, go to the forward), lang (the other bundled ops: Chamfer distance,
# chamfer.log/json/md, <= 280 s with no new work after 230 s; then the Splade
# head, splade.log/json/md, <= 250 s with no new work after 200 s), rel (GPU
# tests of reliability and the custom ops, then the forward benchmark, <= 660 s:
# give it the whole 600 s call and expect the benchmark to stop early).
# scatter: the backward suites on CUDA (<= 270 s). quant: int8/fp8 suites
# and bench/int8_accuracy.py --time (<= 290 s). exact: the L2 suites on CUDA and
# bench/offsets.py's Chamfer and Hausdorff rows (<= 560 s). kmeans: its k-means rows against
# flash-kmeans and eager (<= 360 s). base: bench/chamfer.py with this
# checkout and with a carried .base/pkg (an earlier commit's package tree), <= 330 s.
# host: bench/host.py, small calls against the peers (host.log/json/md, <= 400 s).
# varlen: the ragged-axis suites on CUDA, then bench/varlen.py, packed MaxSim against the peers'
# varlen (ragged_tests.log, varlen.log/json/md, <= 550 s).
# compressed: bench/compressed.py, one query against a corpus stored quantized: hsr's int8/fp8 rows against
# LIK's maxsim_inference_fp8 and flash-maxsim's int8 (compressed.log/json/md, <= 380 s, no new row after 300 s).
# specs: bench/specs.py, specs of the language that no bundled op is (compiled from their text)
# against eager PyTorch and the bundled sibling, values checked against float64 (specs.log/json/md,
# <= 420 s, no new row after 280 s); arguments after the stage name go to the script: the whole suite
# takes two calls, `bash bench/run_gpu.sh specs --part 1/2` and `... specs --part 2/2` (~200 s each).
# none: install only.
set -eo pipefail

OUT="${OUT:-bench/results}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
PY=python3
T0=$(date +%s)

# 1. Carried wheels (lark for hsr.compile; optional peers) into /tmp/site.
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
else
    echo "note: no .whl/ carried (lark missing: hsr.compile will fail; peers skipped)"
fi

# 2. hsr itself, without network: an editable install; if that fails, a copy of
#    the package tree laid out as pyproject's package-dir maps it, with python -P
#    so that the repository root (whose hsr/ lacks templates/ops/generated) does
#    not shadow it.
hsr_ok() { (cd "$1" && $PY -c "import hsr.templates, hsr.ops, hsr.generated, hsr.ops.maxsim") >/dev/null 2>&1; }
if python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . >/tmp/hsr_install.log 2>&1 \
        && hsr_ok /tmp && hsr_ok .; then
    echo "hsr: editable install"
else
    echo "hsr: editable install failed or incomplete; using a copied package tree"
    tail -5 /tmp/hsr_install.log || true
    rm -rf /tmp/hsrpkg && mkdir -p /tmp/hsrpkg
    cp -r hsr /tmp/hsrpkg/hsr
    for sub in templates ops generated; do cp -r "$sub" "/tmp/hsrpkg/hsr/$sub"; done
    export PYTHONPATH=/tmp/hsrpkg${PYTHONPATH:+:$PYTHONPATH}
    PY="python3 -P"
    hsr_ok . || { echo "hsr does not import"; $PY -c "import hsr.templates, hsr.ops, hsr.generated"; exit 1; }
fi

# 3. The machine.
nvidia-smi || true
$PY - <<'EOF'
import platform, torch, triton, hsr, hsr.generated
print(f"python {platform.python_version()}, torch {torch.__version__} (CUDA {torch.version.cuda}), triton {triton.__version__}")
print(f"device: {torch.cuda.get_device_name(0)}, hsr from {hsr.__file__}, generated from {hsr.generated.__file__}")
for name in ("lark", "flash_maxsim", "late_interaction_kernels"):
    try:
        mod = __import__(name)
        print(f"{name} {getattr(mod, '__version__', '?')}")
    except Exception as e:  # noqa: BLE001
        print(f"{name}: not importable ({type(e).__name__}: {e})")
EOF

STAGE="${1:-all}"
rc_tests=0
rc_bench=0
if [ "$STAGE" = all ] || [ "$STAGE" = tests ]; then
# 4. GPU tests (the conftest reads HSR_TEST_DEVICE before importing triton).
HSR_TEST_DEVICE=cuda timeout 200 $PY -m pytest -q -m gpu -p no:cacheprovider tests/test_gpu.py 2>&1 \
    | tee "$OUT/gpu_tests.log" || rc_tests=$?
echo "gpu tests: exit $rc_tests after $(( $(date +%s) - T0 )) s"
# 4b. The interpreter suites' kernel tests, on CUDA (fixed blocks: fewer compiles).
HSR_TEST_DEVICE=cuda HSR_AUTOTUNE=0 HYPOTHESIS_PROFILE=gpu timeout 330 $PY -m pytest -q -p no:cacheprovider \
    tests/test_maxsim.py tests/test_select_reduce.py 2>&1 | tee "$OUT/cuda_suites.log" || rc_tests=$?
echo "cuda suites: exit $rc_tests after $(( $(date +%s) - T0 )) s"
fi
if [ "$STAGE" = langtests ]; then
# 4c. The language's kernels on CUDA: Chamfer, Splade, random specs (fixed blocks), then the GPU tests.
HSR_TEST_DEVICE=cuda HSR_AUTOTUNE=0 HYPOTHESIS_PROFILE=gpu timeout 300 $PY -m pytest -q -x -p no:cacheprovider \
    tests/test_chamfer.py tests/test_splade.py $(ls tests/test_language.py 2>/dev/null) 2>&1 | tee "$OUT/lang_tests.log" || rc_tests=$?
echo "lang suites: exit $rc_tests after $(( $(date +%s) - T0 )) s"
HSR_TEST_DEVICE=cuda timeout 150 $PY -m pytest -q -m gpu -p no:cacheprovider tests/test_gpu.py 2>&1 \
    | tee "$OUT/gpu_tests.log" || rc_tests=$?
echo "gpu tests: exit $rc_tests after $(( $(date +%s) - T0 )) s"
fi
if [ "$STAGE" = rel ]; then
# 4d. Reliability and ecosystem on CUDA: the GPU tests (B = 20K ColPali, V = 250002,
#     streaming retrieval), opcheck and torch.compile through the custom ops.
HSR_TEST_DEVICE=cuda timeout 290 $PY -m pytest -q -m gpu -p no:cacheprovider tests/test_gpu.py tests/test_splade.py \
    tests/test_library.py $(ls tests/test_retrieval.py 2>/dev/null) 2>&1 | tee "$OUT/gpu_tests.log" || rc_tests=$?
echo "gpu tests: exit $rc_tests after $(( $(date +%s) - T0 )) s"
HSR_TEST_DEVICE=cuda HSR_AUTOTUNE=0 timeout 90 $PY -m pytest -q -p no:cacheprovider tests/test_library.py 2>&1 \
    | tee "$OUT/library_tests.log" || rc_tests=$?
echo "library tests: exit $rc_tests after $(( $(date +%s) - T0 )) s"
timeout 190 $PY bench/maxsim_forward.py --out "$OUT" --budget-s 130 2>&1 | tee "$OUT/bench.log" || rc_bench=$?
fi
if [ "$STAGE" = edges ]; then
# 4e. Edge values, tensor errors and determinism (bigger shapes on CUDA), then the front ends' suites.
HSR_TEST_DEVICE=cuda HSR_AUTOTUNE=0 HYPOTHESIS_PROFILE=gpu timeout 520 $PY -m pytest -q -p no:cacheprovider \
    tests/test_edges.py tests/test_runtime.py tests/test_maxsim.py tests/test_chamfer.py tests/test_splade.py 2>&1 \
    | tee "$OUT/edge_tests.log" || rc_tests=$?
echo "edge suites: exit $rc_tests after $(( $(date +%s) - T0 )) s"
fi
if [ "$STAGE" = scatter ]; then
# 4f. The backwards on CUDA (every strategy: atomic, deterministic through the inverse
#     index and through one-hot tiles), one suite at a time with its own limit and its
#     slowest tests listed (the three together ran past 240 s).
for suite in maxsim:110 splade:90 chamfer:70; do
    name=${suite%%:*}; limit=${suite##*:}
    HSR_TEST_DEVICE=cuda HSR_AUTOTUNE=0 HYPOTHESIS_PROFILE=gpu timeout "$limit" $PY -m pytest -q -x -p no:cacheprovider \
        --durations=5 "tests/test_$name.py" 2>&1 | tee "$OUT/scatter_tests_$name.log" || rc_tests=$?
    echo "$name suite: exit $rc_tests after $(( $(date +%s) - T0 )) s"
done
fi
if [ "$STAGE" = quant ]; then
# 4g. int8 and fp8 on CUDA: the quantized suites, then accuracy against fp32 and the forward's time.
HSR_TEST_DEVICE=cuda HSR_AUTOTUNE=0 HYPOTHESIS_PROFILE=gpu timeout 90 $PY -m pytest -q -p no:cacheprovider \
    tests/test_quantize.py 2>&1 | tee "$OUT/quant_tests.log" || rc_tests=$?
timeout 200 $PY bench/int8_accuracy.py --out "$OUT" --time 2>&1 | tee "$OUT/int8.log" || rc_bench=$?
fi
if [ "$STAGE" = exact ]; then
# 4h. Distances far from the origin: the L2 suites on CUDA, then the offsets table (<= 560 s).
HSR_TEST_DEVICE=cuda HSR_AUTOTUNE=0 HYPOTHESIS_PROFILE=gpu timeout 200 $PY -m pytest -q -p no:cacheprovider \
    tests/test_select_reduce_l2.py tests/test_select_reduce_split.py tests/test_both_ways.py 2>&1 \
    | tee "$OUT/exact_tests.log" || rc_tests=$?
echo "exact suites: exit $rc_tests after $(( $(date +%s) - T0 )) s"
timeout 330 $PY bench/offsets.py --out "$OUT" --only chamfer,hausdorff --budget-s 270 2>&1 | tee "$OUT/offsets.log" || rc_bench=$?
fi
if [ "$STAGE" = kmeans ]; then
# 4h'. The k-means rows of the offsets table: flash-kmeans and eager, four dtypes and modes, offsets 0 and
#      1000 (about 250 s on an H200).
timeout 360 $PY bench/offsets.py --out "$OUT" --only kmeans --budget-s 300 2>&1 | tee "$OUT/offsets.log" || rc_bench=$?
fi
if [ "$STAGE" = base ]; then
# 4i. The Chamfer table with this checkout and with .base/pkg (a package tree of an earlier
#     commit, carried), in one call: the cost of a change on the same machine (<= 330 s).
mkdir -p "$OUT/base"
timeout 160 $PY bench/chamfer.py --out "$OUT" --shapes 100k,b8x8192 --budget-s 110 || rc_bench=$?
HSR_CACHE_DIR=/tmp/hsr-base-cache PYTHONPATH=$PWD/.base/pkg${PYTHONPATH:+:$PYTHONPATH} timeout 160 python3 bench/chamfer.py \
    --out "$OUT/base" --shapes 100k,b8x8192 --budget-s 110 || rc_bench=$?
fi
if [ "$STAGE" = specs ]; then
# 4j. Specs that no bundled op is: compile each from its text, time it against eager and the bundled
#     sibling, check it against the float64 reference evaluator (<= 420 s; no new row after 280 s).
timeout 420 $PY bench/specs.py --out "$OUT" --budget 280 "${@:2}" 2>&1 | tee "$OUT/specs.log" || rc_bench=$?
echo "specs: exit $rc_bench after $(( $(date +%s) - T0 )) s"
fi
if [ "$STAGE" = all ] || [ "$STAGE" = bench ]; then

# 5. Benchmark (stops starting new work past its budget; table printed last).
timeout 290 $PY bench/maxsim_forward.py --out "$OUT" --budget-s 230 2>&1 | tee "$OUT/bench.log" || rc_bench=$?
fi
if [ "$STAGE" = host ]; then
# 4k. Small, host-bound calls against the peers and eager; first calls in fresh processes (<= 400 s).
timeout 400 $PY bench/host.py --out "$OUT" --budget-s 300 2>&1 | tee "$OUT/host.log" || rc_bench=$?
fi
if [ "$STAGE" = varlen ]; then
# 4l. Ragged axes: the packed suites on CUDA (fixed blocks), then bench/varlen.py (<= 560 s).
HSR_TEST_DEVICE=cuda HSR_AUTOTUNE=0 HYPOTHESIS_PROFILE=gpu timeout 300 $PY -m pytest -q -p no:cacheprovider \
    tests/test_varlen.py tests/test_ragged.py tests/test_select_reduce_ragged.py 2>&1 | tee "$OUT/ragged_tests.log" || rc_tests=$?
echo "ragged suites: exit $rc_tests after $(( $(date +%s) - T0 )) s"
timeout 250 $PY bench/varlen.py --out "$OUT" --budget-s 200 2>&1 | tee "$OUT/varlen.log" || rc_bench=$?
fi
if [ "$STAGE" = compressed ]; then
# 4m. A corpus stored quantized (int8, fp8), one query: hsr against the peers' quantized MaxSim (<= 380 s).
timeout 380 $PY bench/compressed.py --out "$OUT" --budget-s 300 2>&1 | tee "$OUT/compressed.log" || rc_bench=$?
fi
if [ "$STAGE" = offgrid ]; then
timeout 320 $PY bench/maxsim_forward.py --table off-grid --out "$OUT" --budget-s 250 "${@:2}" 2>&1 | tee "$OUT/offgrid.log" || rc_bench=$?
timeout 220 $PY bench/maxsim_train.py --table off-grid --out "$OUT" --budget-s 160 2>&1 | tee "$OUT/offgrid_train.log" || rc_bench=$?
fi
if [ "$STAGE" = train ]; then
timeout 520 $PY bench/maxsim_train.py --out "$OUT" --budget-s 420 2>&1 | tee "$OUT/train.log" || rc_bench=$?
fi
if [ "$STAGE" = lang ]; then
timeout 280 $PY bench/chamfer.py --out "$OUT" --budget-s 230 2>&1 | tee "$OUT/chamfer.log" || rc_bench=$?
echo "chamfer: exit $rc_bench after $(( $(date +%s) - T0 )) s"
timeout 250 $PY bench/splade.py --out "$OUT" --budget-s 200 2>&1 | tee "$OUT/splade.log" || rc_bench=$?
echo "splade: exit $rc_bench after $(( $(date +%s) - T0 )) s"
fi
echo "run_gpu.sh: tests exit $rc_tests, bench exit $rc_bench, $(( $(date +%s) - T0 )) s in all"
[ "$rc_tests" -eq 0 ] && [ "$rc_bench" -eq 0 ]
