#!/bin/bash
# Thirty-fifth session, call 8: phase clocks without the per-stage marks (GCONV_WGMMA_TRACE_LIGHT), with
# and without loads: a small tile's untraced stage pace = (consumed - first full) / (stages - 1).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
S=fwd_bf16_n32c2048k512g1_h7w7_y1x1_s1_p0_dil1
F="family==wgmma && tma && split_k==1 && !realign && tile_k==64"
export TRACE_CASES="$S|$F && tile_m==64 && tile_n==128 && stages==6;$S|$F && tile_m==64 && tile_n==64 && stages==6;$S|$F && tile_m==64 && tile_n==256 && stages==4;$S|$F && tile_m==128 && tile_n==128 && warps_m==2 && stages==4;$S|$F && tile_m==128 && tile_n==256 && warps_m==2 && stages==4;$S|$F && tile_m==128 && tile_n==64 && warps_m==1 && stages==4"
for mode in loads noload; do
  if [ $mode = noload ]; then export GCONV_WGMMA_NOLOAD=1; fi
  GCONV_WGMMA_TRACE_LIGHT=1 bash bench/device_call.sh trace
  mkdir -p $OUT/$mode; mv $OUT/trace_*.txt $OUT/$mode/
done
