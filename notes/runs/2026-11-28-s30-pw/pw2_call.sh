#!/bin/bash
# Second pw call: the stage, then ncu on three public problems with one pw kernel each and the
# shipped model's pick beside it.
set -uo pipefail
OUT=${OUT:-/tmp/out}
PW_ROWS_S=${PW_ROWS_S:-60} OUT=$OUT bash bench/device_call.sh pwcheck 2>&1 | tail -n 40
source .device/env.sh
export GCONV_CONFIG_DIR=$PWD/configs GCONV_PROBLEMS_DIR=$PWD/problems GCONV_CACHE_DIR=$PWD/.jitcache
prof() {  # TAG SPEC FILTER
  timeout 120 ncu --clock-control none -k regex:gconv_main --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section LaunchStats --print-details all \
    .device/gconv run "$2" --policy analytic --filter "$3" --repeats 2 --warmup 2 > "$OUT/ncu_$1.txt" 2>&1
  echo "ncu $1 rc=$?"; grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Block Limit|Stall|Eligible|Issued Warp" "$OUT/ncu_$1.txt" | head -n 14
}
prof a fwd_bf16_n32c192k32g1_h28w28_y1x1_s1_p0_dil1 'family==pw && tile_m==64 && tile_n==32 && tile_k==256 && stages==2'
#prof b bwd_data_bf16_n32c240k80g1_h14w14_y1x1_s1_p0_dil1 'family==pw && tile_m==128 && tile_n==64 && tile_k==128 && warps_m==8'
prof c fwd_bf16_n32c32k48g1_h112w112_y1x1_s1_p0_dil1 'family==pw && tile_m==128 && tile_n==64 && tile_k==32 && warps_m==4'
#prof d fwd_bf16_n32c32k48g1_h112w112_y1x1_s1_p0_dil1 '!(family==pw)'
