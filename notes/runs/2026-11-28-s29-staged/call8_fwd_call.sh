#!/bin/bash
# Twenty-ninth session, call 8: staged operands after the fwd entry (x and w copied) and the
# refactor of the copies (staged.hpp): every staged kernel (all directions) against the reference,
# sanitizers, the graph-capture launch counts; every staged fwd kernel + native cuDNN and the
# shipped model's top 16 of the other kernels on the public fwd problems with one group and C off
# 8 (.device/wsf_pub.jsonl); rows of the staged fwd kernels on .device/wsf_train.txt.
source .device/env.sh
export GCONV_CACHE_DIR=$PWD/.jitcache GCONV_MODELS_DIR=$PWD/models GCONV_CONFIG_DIR=$PWD/configs GCONV_PROBLEMS_DIR=$PWD/problems
OUT=${OUT:-/tmp/out}; ncpu=$(nproc)
source <(sed -n '/^check_kernels() {/,/^}/p' bench/device_call.sh)
source <(sed -n '/^pack() {/,/^}/p' bench/device_call.sh)
check_kernels wsf wgmma 'family==wgmma && tma && realign' 'Pools/PoolCorrectness.*' 'Pools/PoolCorrectness.*/*_bf16_*'
mkdir -p /tmp/gclogs; rm -f /tmp/gclogs/*
LOG_DIR=/tmp/gclogs GCONV_GPU_TEST_JOBS=4 scripts/gpu-test .device 'Launches/GraphCapture.*' > "$OUT/graph_capture.txt" 2>&1
tail -n 1 "$OUT/graph_capture.txt"; cat /tmp/gclogs/*.log | grep -E "Failure|FAILED" | head -n 8
rm -f /tmp/wsf_new.csv /tmp/wsf_top.csv /tmp/wsfrows.csv
timeout -k 5 60 .device/gconv bench --problems .device/wsf_pub.jsonl --filter 'family==wgmma && tma && realign' \
  --provider gconv,cudnn --out /tmp/wsf_new.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2> "$OUT/wsf_new.log"
echo "new rc=$?"
timeout -k 5 60 .device/gconv bench --problems .device/wsf_pub.jsonl --filter '!(family==wgmma && realign)' \
  --policy topk:16 --provider gconv --out /tmp/wsf_top.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" \
  2> "$OUT/wsf_top.log"; echo "top rc=$?"
python3 bench/best_by_label.py --baseline cudnn new=/tmp/wsf_new.csv before=/tmp/wsf_top.csv cudnn=/tmp/wsf_new.csv:cudnn \
  --per-problem "$OUT/wsf_per_problem.csv" > "$OUT/wsf_compare.txt" 2>&1; grep -A3 "^label" "$OUT/wsf_compare.txt"
timeout -k 5 60 .device/gconv bench --problems .device/wsf_train.txt --filter 'family==wgmma && tma && realign' \
  --out /tmp/wsfrows.csv --warmup 1 --repeats 5 --check none --timeout-s 60 --jobs "$ncpu" 2> "$OUT/wsfrows.log"
echo "rows rc=$?: $(tail -n 1 "$OUT/wsfrows.log" | cut -c1-120)"
for f in wsf_new wsf_top wsfrows; do gzip -c /tmp/$f.csv > "$OUT/$f.csv.gz"; done
