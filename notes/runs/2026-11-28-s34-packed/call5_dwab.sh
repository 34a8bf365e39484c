#!/bin/bash
# Thirty-fourth session: the depthwise bwd_weight window kernels' plan knobs on the public set's 30 depthwise
# bwd_weight problems, one run: every window kernel per setting (each its own bench process: knobs read once).
source .device/env.sh; export GCONV_CACHE_DIR=$PWD/.jitcache GCONV_MODELS_DIR=$PWD/models
OUT=${OUT:-/tmp/out}; mkdir -p $OUT; ncpu=$(nproc)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
F='window_w > 0 && direction == bwd_weight'
.device/gconv build --direction bwd_weight --dtype bf16 --ndim 2 --filter "$F" --jobs $ncpu 2>&1 | tail -n 2
run() {  # tag env...
  local tag=$1; shift
  env "$@" timeout -k 5 90 .device/gconv bench --problems .device/dw_bw_pub.jsonl --filter "$F" --out /tmp/dw_$tag.csv \
    --warmup 2 --repeats 7 --check first --jobs $ncpu > /dev/null 2> $OUT/dw_$tag.log
  echo "$tag rc=$? $(tail -n 1 $OUT/dw_$tag.log)"
}
run def0 A=0
run b528 GCONV_DIRECT_WINDOW_BLOCKS=528
run b1056 GCONV_DIRECT_WINDOW_BLOCKS=1056
run b2112 GCONV_DIRECT_WINDOW_BLOCKS=2112
run b132 GCONV_DIRECT_WINDOW_BLOCKS=132
run r4 GCONV_DIRECT_WINDOW_ROWS=4
run r2 GCONV_DIRECT_WINDOW_ROWS=2
run s64 GCONV_DIRECT_WINDOW_SMEM_KB=64
run def1 A=1
tar czf $OUT/dwab.tar.gz /tmp/dw_*.csv 2>/dev/null; ls -la $OUT
