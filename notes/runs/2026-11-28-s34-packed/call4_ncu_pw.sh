#!/bin/bash
# Thirty-fourth session: where pointwise layers under 20 us lose to cuDNN (ncu, one H200).
source .device/env.sh; export GCONV_CACHE_DIR=$PWD/.jitcache GCONV_MODELS_DIR=$PWD/models
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S1=fwd_bf16_n32c24k144g1_h56w56_y1x1_s1_p0_dil1
S2=bwd_data_bf16_n32c116k116g1_h14w14_y1x1_s1_p0_dil1
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats"
MET="--metrics dram__bytes_write.sum,dram__bytes_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,gpu__time_duration.sum"
i=0
for c in "$S1|family == wgmma && tile_m == 128 && tile_n == 144 && stages == 5 && tma" \
         "$S1|family == pw && tile_m == 128 && tile_n == 32 && warps_m == 4 && stages == 2" \
         "$S2|family == igemm && tile_m == 64 && tile_n == 64 && tile_k == 32 && warps_m == 2 && warps_n == 2 && stages == 3 && vec == 4 && split_k == 1"; do
  spec=${c%%|*}; filt=${c#*|}; i=$((i+1))
  timeout -k 5 120 ncu --clock-control none --kernel-name gconv_main --launch-skip 3 --launch-count 1 $SEC $MET \
    .device/gconv run "$spec" --policy exhaustive --filter "$filt" --tuning-cache off --warmup 3 --repeats 2 > $OUT/ncu_$i.txt 2>&1
  echo "ncu $i rc=$? $spec [$filt]"
  grep -E "gconv_main|Duration|DRAM Throughput|Memory Throughput|dram__bytes|lts__t_sectors|Achieved Occupancy|Theoretical Occupancy|Registers Per|Issue Slots|No Eligible|Active Warps Per|Eligible Warps" $OUT/ncu_$i.txt | head -24
done
# cuDNN's kernels on S1 and S2 (native provider: heuristics + autotuning), SpeedOfLight + bytes of each launch.
for s in $S1 $S2; do
  i=$((i+1)); echo $s > /tmp/one.txt
  timeout -k 5 150 ncu --clock-control none --kernel-name regex:'^(?!gconv_|.*[Mm]emset)' --launch-count 30 --section SpeedOfLight $MET \
    .device/gconv bench --problems /tmp/one.txt --provider cudnn --filter 'family == pw' --warmup 1 --repeats 2 --check none \
    --out /tmp/nc_$i.csv > $OUT/ncu_$i.txt 2>&1
  echo "ncu $i (cudnn) rc=$? $s"
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|dram__bytes_write|gpu__time_duration" $OUT/ncu_$i.txt | head -60
done
