#!/bin/bash
# Thirty-fourth session: wgmma store_rows reading a batch of vectors before storing them.
# Correctness (new code) on wgmma samples, then old vs new kernel headers on the public set's pairs.
source .device/env.sh; export GCONV_CACHE_DIR=$PWD/.jitcache GCONV_MODELS_DIR=$PWD/models
ncpu=$(nproc); export GPUS=1 GCONV_GPU_TEST_JOBS=$ncpu GCONV_CLI=$PWD/.device/gconv
L=/tmp/epilogs; mkdir -p $L/a $L/b $L/c
GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_FILTER='tma == false' GCONV_GPU_TEST_SAMPLE=4 TEST_TIMEOUT_S=100 LOG_DIR=$L/a \
  timeout -k 5 150 scripts/gpu-test .device 'Pools/PoolCorrectness*bf16*' > $L/a.txt 2>&1
echo "cp.async wgmma sample: $(tail -n 1 $L/a.txt)"; cat $L/a/*.log | grep -h "^TALLY" | grep -v "kernels=0" | sort
cat $L/a/*.log | grep -h -E "Failure|failed|crash|mismatch" | head -n 6
GCONV_WGMMA_PERSISTENT=3 GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_SAMPLE=4 TEST_TIMEOUT_S=100 LOG_DIR=$L/b \
  timeout -k 5 120 scripts/gpu-test .device 'Pools/PoolCorrectness*bf16_2d*' > $L/b.txt 2>&1
echo "capped grid sample: $(tail -n 1 $L/b.txt)"; cat $L/b/*.log | grep -h "^TALLY" | grep -v "kernels=0" | sort
cat $L/b/*.log | grep -h -E "Failure|failed|crash|mismatch" | head -n 6
GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_SAMPLE=2 SANITIZE=memcheck TEST_TIMEOUT_S=150 LOG_DIR=$L/c \
  timeout -k 5 120 scripts/gpu-test .device 'Pools/PoolCorrectness*/fwd_bf16_2d:Pools/PoolCorrectness*/bwd_data_bf16_2d' > $L/c.txt 2>&1
echo "memcheck: $(tail -n 1 $L/c.txt) | $(cat $L/c/*.log | grep -h 'ERROR SUMMARY' | sort | uniq -c | tr '\n' ' ')"
AB_VAR=GCONV_KERNEL_SOURCES AB_VA=$PWD/.device/old_kernels AB_ENV_S=200 AB_SAMPLE=6 bash bench/device_call.sh abenv 2>&1 | tail -n 40
