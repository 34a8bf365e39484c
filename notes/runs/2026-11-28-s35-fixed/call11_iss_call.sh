#!/bin/bash
# Thirty-fifth session, call 11: untraced stage pace (TRACE_LIGHT) with one and two TMA issuing threads,
# with and without loads.
gunzip -f .device/lib/libgconv.so.gz .device/gconv_gpu_tests.gz .device/lib/libzstd.so.1.gz 2>/dev/null
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
S=fwd_bf16_n32c2048k512g1_h7w7_y1x1_s1_p0_dil1
F="family==wgmma && tma && split_k==1 && !realign && tile_k==64"
export TRACE_CASES="$S|$F && tile_m==64 && tile_n==128 && stages==6;$S|$F && tile_m==64 && tile_n==64 && stages==6"
for iss in 1 0; do for nl in 1 0; do
  echo "=========== ISSUERS2=$iss NOLOAD=$nl"
  GCONV_WGMMA_TMA_ISSUERS2=$iss GCONV_WGMMA_NOLOAD=$nl GCONV_WGMMA_TRACE_LIGHT=1 bash bench/device_call.sh trace 2>&1 | grep -E "^trace|first full|consumed"
  rm -f $OUT/trace_*.txt
done; done
