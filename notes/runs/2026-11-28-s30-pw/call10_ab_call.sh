#!/bin/bash
# Thirtieth session: the shipped M35 (after the pw estimate's fix) against the model of call 4
# (same data, trained before it), both gconv only, on the public set in one call.
source .device/env.sh
export GCONV_CACHE_DIR=$PWD/.jitcache GCONV_CONFIG_DIR=$PWD/configs
OUT=${OUT:-/tmp/out}
for m in shipped:$PWD/models call4:$PWD/.device/m35a; do
  tag=${m%%:*}; rm -f /tmp/ab_$tag.csv
  GCONV_MODELS_DIR=${m#*:} timeout -k 5 80 .device/gconv bench --problems problems/cudnn_public_h200.jsonl \
    --policy heuristic --provider gconv --out /tmp/ab_$tag.csv --warmup 2 --repeats 5 --check none --jobs 16 \
    2> "$OUT/ab_$tag.txt"; echo "$tag rc=$?"; grep -v ETA "$OUT/ab_$tag.txt" | tail -n 2
  gzip -c /tmp/ab_$tag.csv > "$OUT/ab_$tag.csv.gz"
done
