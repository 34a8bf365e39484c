#!/bin/bash
# Thirty-fifth session, call 9: two MMA groups pending in the consumers (kPend, TMA kernels of >= 4 stages):
# TMA kernels against the reference (sample, and with the grid capped at 3), the old / new headers A/B on
# .device/abenv_pairs.csv (the model's top 4 TMA kernels of the public problems), and untraced-loop clocks.
gunzip -f .device/lib/libgconv.so.gz .device/gconv_gpu_tests.gz .device/lib/libzstd.so.1.gz 2>/dev/null
source .device/env.sh; export GCONV_CACHE_DIR=$PWD/.jitcache GCONV_MODELS_DIR=$PWD/models GCONV_CLI=$PWD/.device/gconv
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT /tmp/caplogs; ncpu=$(nproc)
GCONV_WGMMA_PERSISTENT=3 TEST_TIMEOUT_S=100 GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_FILTER='family==wgmma && tma==true' \
  GCONV_GPU_TEST_SAMPLE=4 GCONV_GPU_TEST_JOBS=$ncpu GPUS=1 LOG_DIR=/tmp/caplogs timeout -k 5 120 scripts/gpu-test .device 'Pools/PoolCorrectness*' > /tmp/caplogs/t.txt 2>&1
echo "TMA kernels, grid capped at 3: $(tail -n 1 /tmp/caplogs/t.txt)"; cat /tmp/caplogs/*.log | grep -h -E "Failure|failed|crash|mismatch" | head -n 6
AB_VAR=GCONV_KERNEL_SOURCES AB_VA=$PWD/.device/old_kernels AB_ENV_S=150 REPEATS=7 bash bench/device_call.sh abenv 2>&1 | tail -n 30
S=fwd_bf16_n32c2048k512g1_h7w7_y1x1_s1_p0_dil1
F="family==wgmma && tma && split_k==1 && !realign && tile_k==64"
export TRACE_CASES="$S|$F && tile_m==64 && tile_n==128 && stages==6;$S|$F && tile_m==128 && tile_n==128 && warps_m==2 && stages==4"
GCONV_WGMMA_TRACE_LIGHT=1 bash bench/device_call.sh trace 2>&1 | grep -E "^trace|blocks on|first full|consumed|  end"
cd $OUT && tar czf /tmp/all.tgz . && rm -rf $OUT/* && mv /tmp/all.tgz $OUT/
