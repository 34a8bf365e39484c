#!/usr/bin/env bash
# One call on the GPU machine (see notes/device-runs.md). Stages:
#   tests   compile the bf16 pools (16 jobs) and run every GPU test
#   bench   gconv bench over the public cuDNN shapes + cuDNN through PyTorch
#   sanitize  compute-sanitizer memcheck/racecheck on a sample of every pool
# Usage: bash bench/device_call.sh STAGE...   ($OUT receives the logs)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source .device/env.sh
export GCONV_CONFIG_DIR=$PWD/configs GCONV_PROBLEMS_DIR=$PWD/problems
export GCONV_CACHE_DIR=$PWD/.jitcache GCONV_GPU_TEST_JOBS=16
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
for stage in "$@"; do
  start=$(date +%s)
  case $stage in
    build)
      .device/gconv build --direction all --dtype bf16 --jobs 16 > "$OUT/build_bf16.txt" 2>&1
      tail -n 8 "$OUT/build_bf16.txt" ;;
    tests)
      scripts/gpu-test .device > "$OUT/gpu_tests.log" 2>&1
      grep -E "^TALLY|gpu-test:" "$OUT/gpu_tests.log"
      grep -E "Failure|failed:|: wrong|error" "$OUT/gpu_tests.log" | head -n 40 ;;
    bench)
      grep -v '"about"' problems/cudnn_public_h200.jsonl > /tmp/public.jsonl
      .device/gconv bench --problems /tmp/public.jsonl --out "$OUT/sweep_public.csv" --warmup 2 --repeats 7 \
        --jobs 16 2> "$OUT/bench.log"
      tail -n 3 "$OUT/bench.log"
      PYTHONUNBUFFERED=1 python3 bench/cudnn_torch.py --problems problems/cudnn_public_h200.jsonl \
        --out "$OUT/cudnn_torch.jsonl" 2> "$OUT/cudnn.log"; tail -n 2 "$OUT/cudnn.log"
      python3 bench/compare_cudnn.py --sweep "$OUT/sweep_public.csv" --cudnn "$OUT/cudnn_torch.jsonl" \
        --per-problem "$OUT/compare.csv" | tee "$OUT/compare.txt" | head -n 40 ;;
    sanitize)
      for tool in memcheck racecheck; do
        GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool scripts/gpu-test .device 'Pools/PoolCorrectness.*bf16*' \
          > "$OUT/sanitize_$tool.log" 2>&1
        echo "$tool: $(grep -E 'gpu-test:|ERROR SUMMARY' "$OUT/sanitize_$tool.log" | sort | uniq -c | tr '\n' ' ')"
      done ;;
  esac
  echo "stage $stage: $(( $(date +%s) - start )) s"
done
