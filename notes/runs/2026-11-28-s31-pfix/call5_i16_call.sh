#!/bin/bash
# Thirty-first session, call 5: the graph-capture launch counts with the 16 KB rule, then on the public
# set in one run: M35's picks with native cuDNN, M35's top 8 (gconv only: the pool's best as far as the
# model's candidates reach) and the model's top 4 of the wgmma family alone (issue 16's family column).
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/gc5; LOG_DIR=/tmp/gc5 timeout -k 5 100 scripts/gpu-test .device 'Launches/GraphCapture*' > "$OUT/gc.txt" 2>&1
echo "graph capture: $(tail -n 1 "$OUT/gc.txt")"; cat /tmp/gc5/*.log | grep -h -E "Failure|Expected|Which is|deterministic" | head -n 12
rm -f /tmp/pol.csv /tmp/top8.csv /tmp/wg4.csv
POL_TAG=m35 POL_S=305 bash bench/device_call.sh policy 2>&1 | tail -n 6
timeout -k 5 100 .device/gconv bench --problems problems/cudnn_public_h200.jsonl --policy topk:8 --provider gconv \
  --out /tmp/top8.csv --warmup 2 --repeats 5 --check none --jobs 16 2> "$OUT/top8.txt"; echo "top8 rc=$?"; grep -v ETA "$OUT/top8.txt" | tail -n 1
timeout -k 5 85 .device/gconv bench --problems problems/cudnn_public_h200.jsonl --policy topk:4 --filter 'family==wgmma' \
  --provider gconv --out /tmp/wg4.csv --warmup 2 --repeats 5 --check none --jobs 16 2> "$OUT/wg4.txt"; echo "wg4 rc=$?"; grep -v ETA "$OUT/wg4.txt" | tail -n 1
for f in top8 wg4; do gzip -c /tmp/$f.csv > "$OUT/$f.csv.gz"; done
