#!/bin/bash
# Thirty-fifth session, call 6: the call-4 trace cases with producers that arm stages without loading them.
gunzip -f .device/lib/libgconv.so.gz .device/gconv_gpu_tests.gz .device/lib/libzstd.so.1.gz 2>/dev/null
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
C1="fwd_bf16_n32c480k80g1_h14w14_y1x1_s1_p0_dil1|family==wgmma && tile_m==64 && tile_n==96 && stages==6 && tma"
C2="fwd_bf16_n32c2048k512g1_h7w7_y1x1_s1_p0_dil1|family==wgmma && tile_m==64 && tile_n==128 && stages==6 && tma && split_k==1 && !realign"
C3="fwd_bf16_n32c2048k512g1_h7w7_y1x1_s1_p0_dil1|family==wgmma && tile_m==64 && tile_n==64 && stages==6 && tma && split_k==1 && !realign"
C4="fwd_bf16_n32c2048k512g1_h7w7_y1x1_s1_p0_dil1|family==wgmma && tile_m==128 && tile_n==256 && warps_m==2 && stages==4 && tma && split_k==1 && !realign"
export TRACE_CASES="$C1;$C2;$C3;$C4"
GCONV_WGMMA_NOLOAD=1 bash bench/device_call.sh trace 2>&1 | grep -v "^time\|^rate\|^check"
mkdir -p $OUT/noload; mv $OUT/trace_*.txt $OUT/noload/
echo "=========== LOADS, 128x256"
export TRACE_CASES="$C4"
bash bench/device_call.sh trace 2>&1 | grep -v "^time\|^rate\|^check"
