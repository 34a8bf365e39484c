#!/bin/bash
# Twenty-ninth session, last call: the final binary's staged-dy kernels against the reference
# (bf16 all, fp16 samples) with sanitizers, the graph-capture launch counts, and gconv run --check
# through the registry (shipped model M34) on r2plus1d's staged layers.
source .device/env.sh
export GCONV_CACHE_DIR=$PWD/.jitcache GCONV_MODELS_DIR=$PWD/models GCONV_CONFIG_DIR=$PWD/configs GCONV_PROBLEMS_DIR=$PWD/problems
OUT=${OUT:-/tmp/out}; ncpu=$(nproc)
source <(sed -n '/^check_kernels() {/,/^}/p' bench/device_call.sh)
check_kernels wst wgmma 'family==wgmma && tma && realign' 'Pools/PoolCorrectness.*' 'Pools/PoolCorrectness.*/bwd_*_bf16_*'
mkdir -p /tmp/gclogs
LOG_DIR=/tmp/gclogs GCONV_GPU_TEST_JOBS=4 scripts/gpu-test .device 'Launches/GraphCapture.*' > "$OUT/graph_capture.txt" 2>&1
tail -n 2 "$OUT/graph_capture.txt"; cat /tmp/gclogs/*.log | grep -E "FAILED|PASSED|Failure" | head -n 8
for s in "bwd_weight_bf16_n4c128k230g1_d8h28w28_z1y3x3_s1_p0,1,1_dil1" "bwd_data_bf16_n4c128k230g1_d8h28w28_z1y3x3_s1_p0,1,1_dil1" \
         "bwd_data_bf16_n4c512k921g1_d2h7w7_z1y3x3_s1_p0,1,1_dil1" "bwd_weight_bf16_n4c64k230g1_d16h56w56_z1y3x3_s1,2,2_p0,1,1_dil1"; do
  .device/gconv run "$s" --check 2>&1 | grep -v warn | tail -n 2
done | tee "$OUT/run_check.txt"
