#!/bin/bash
# Thirtieth session: M35's picks with native cuDNN on the public set, M34's picks (gconv only) and
# M35's top 8 (gconv only, the pool's best as far as the model's candidates reach) in the same call.
source .device/env.sh
export GCONV_CACHE_DIR=$PWD/.jitcache GCONV_MODELS_DIR=$PWD/models GCONV_CONFIG_DIR=$PWD/configs
OUT=${OUT:-/tmp/out}
rm -f /tmp/pol.csv /tmp/pol_m34.csv /tmp/top8.csv
POL_TAG=m35 POL_S=335 bash bench/device_call.sh policy 2>&1 | tail -n 12
GCONV_MODELS_DIR=$PWD/.device/m34 timeout -k 5 75 .device/gconv bench --problems problems/cudnn_public_h200.jsonl \
  --policy heuristic --provider gconv --out /tmp/pol_m34.csv --warmup 2 --repeats 5 --check none --jobs 16 \
  2> "$OUT/policy_summary_m34.txt"; echo "m34 rc=$?"; grep -v ETA "$OUT/policy_summary_m34.txt" | tail -n 3
timeout -k 5 110 .device/gconv bench --problems problems/cudnn_public_h200.jsonl --policy topk:8 --provider gconv \
  --out /tmp/top8.csv --warmup 2 --repeats 5 --check none --jobs 16 2> "$OUT/top8.txt"; echo "top8 rc=$?"; grep -v ETA "$OUT/top8.txt" | tail -n 2
for f in pol_m34 top8; do gzip -c /tmp/$f.csv > "$OUT/$f.csv.gz"; done
python3 bench/class_report.py --sweep /tmp/pol.csv > "$OUT/class_report_m35.txt" 2>&1; head -n 30 "$OUT/class_report_m35.txt"
