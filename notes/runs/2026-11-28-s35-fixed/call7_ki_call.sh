#!/bin/bash
# Thirty-fifth session, call 7: two consumer warpgroups sharing a 64-row tile's K steps (GCONV_WGMMA_KINTER,
# a latency study on 128-row two-consumer kernels: both warpgroups compute rows 0-63, each every other
# stage), against the same kernels as they are, phase clocks.
gunzip -f .device/lib/libgconv.so.gz .device/gconv_gpu_tests.gz .device/lib/libzstd.so.1.gz 2>/dev/null
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
T1="fwd_bf16_n32c2048k512g1_h7w7_y1x1_s1_p0_dil1|family==wgmma && tile_m==128 && tile_n==128 && warps_m==2 && stages==4 && tma && split_k==1 && !realign && tile_k==64"
T2="fwd_bf16_n32c480k80g1_h14w14_y1x1_s1_p0_dil1|family==wgmma && tile_m==128 && tile_n==96 && warps_m==2 && stages==4 && tma && split_k==1"
T3="bwd_data_bf16_n32c160k960g1_h7w7_y1x1_s1_p0_dil1|family==wgmma && tile_m==128 && tile_n==128 && warps_m==2 && stages==4 && tma && split_k==1 && !realign && tile_k==64"
export TRACE_CASES="$T1;$T2;$T3"
for mode in plain kinter kinter_noload; do
  echo "=========== $mode"
  case $mode in
    plain) bash bench/device_call.sh trace ;;
    kinter) GCONV_WGMMA_KINTER=1 bash bench/device_call.sh trace ;;
    kinter_noload) GCONV_WGMMA_KINTER=1 GCONV_WGMMA_NOLOAD=1 bash bench/device_call.sh trace ;;
  esac 2>&1 | grep -v "^time\|^rate\|^check\|NVIDIA\|^cpus"
  mkdir -p $OUT/$mode; mv $OUT/trace_*.txt $OUT/$mode/
done
