#!/bin/bash
# Thirty-fifth session's device calls (one H200 each), as run from the repository root with the
# bundle of the twenty-seventh session in .device (sweeps moved out of the tree for the carry limit).
# Call 1: small dense 1x1 public layers (call1_list below) in the harness with and without the L2 flush
# (topk:6 picks + native cuDNN, twice each), then Nsight Compute durations of the heuristic pick
# (caches flushed / not) and of cuDNN's kernels, warp states of three picks.
call1_list="fwd_bf16_n32c8k32g1_h1w1_y1x1_s1_p0_dil1 fwd_bf16_n32c24k144g1_h56w56_y1x1_s1_p0_dil1
fwd_bf16_n32c2048k512g1_h7w7_y1x1_s1_p0_dil1 fwd_bf16_n32c480k80g1_h14w14_y1x1_s1_p0_dil1
fwd_bf16_n32c40k240g1_h28w28_y1x1_s1_p0_dil1 bwd_data_bf16_n32c160k960g1_h7w7_y1x1_s1_p0_dil1
bwd_data_bf16_n32c144k32g1_h28w28_y1x1_s1_p0_dil1 bwd_data_bf16_n32c512k2048g1_h7w7_y1x1_s1_p0_dil1
bwd_weight_bf16_n32c256k1024g1_h14w14_y1x1_s1_p0_dil1 bwd_weight_bf16_n32c1152k192g1_h7w7_y1x1_s1_p0_dil1
bwd_weight_bf16_n32c8k32g1_h1w1_y1x1_s1_p0_dil1"
call1() {
  printf '%s\n' $call1_list > /tmp/fc_list.txt
  for fl in "" "--no-flush"; do for rep in 1 2; do
    .device/gconv bench --problems /tmp/fc_list.txt --policy topk:6 --provider gconv,cudnn $fl --warmup 3 --repeats 15 \
      --check none --out /tmp/fc_${fl:-flush}_$rep.csv
  done; done
  i=0; for spec in $call1_list; do i=$((i+1))
    for cc in all none; do
      ncu --clock-control none --cache-control $cc --kernel-name gconv_main --launch-skip 3 --launch-count 1 \
        --metrics gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed.sum,launch__grid_size \
        .device/gconv run "$spec" --tuning-cache off --warmup 3 --repeats 2 > /tmp/ncu_g_${i}_$cc.txt 2>&1
    done
    echo $spec > /tmp/one.txt
    ncu --clock-control none --cache-control all --kernel-name regex:'^(?!gconv_|.*[Mm]emset)' --launch-count 40 \
      --metrics gpu__time_duration.sum,sm__cycles_active.avg,launch__grid_size .device/gconv bench --problems /tmp/one.txt \
      --provider cudnn --filter 'family == pw' --warmup 1 --repeats 2 --check none --out /tmp/nc_$i.csv > /tmp/ncu_c_$i.txt 2>&1
  done
}
# Call 2: phase clocks (GCONV_WGMMA_TRACE) and SASS stall samples.
call2() {
  TRACE_CASES="fwd_bf16_n32c480k80g1_h14w14_y1x1_s1_p0_dil1|family==wgmma && tile_m==64 && tile_n==96 && stages==6 && tma;bwd_data_bf16_n32c160k960g1_h7w7_y1x1_s1_p0_dil1|family==wgmma && tile_m==64 && tile_n==64 && tile_k==64 && stages==6 && tma && split_k==1;fwd_bf16_n32c2048k512g1_h7w7_y1x1_s1_p0_dil1|family==wgmma && tile_m==64 && tile_n==128 && stages==6 && tma && split_k==1" \
  NS_CASES="fwd_bf16_n32c480k80g1_h14w14_y1x1_s1_p0_dil1|family==wgmma && tile_m==64 && tile_n==96 && stages==6 && tma;fwd_bf16_n32c8k32g1_h1w1_y1x1_s1_p0_dil1|family==igemm && tile_m==64 && tile_n==16 && tile_k==32 && warps_m==4 && stages==4 && vec==8 && split_k==1 && groups_per_block==1 && !packed" \
  bash bench/device_call.sh trace ncusass
}
# Call 3: TMA multicast (GCONV_WGMMA_MULTICAST) off / on / off / on over call3_mc_pairs.csv (the analytic and
# heuristic top 6 TMA fwd kernels without split of the 195 public fwd problems), after a correctness sample
# with it on (GCONV_WGMMA_MULTICAST=1 GCONV_GPU_TEST_FILTER='family==wgmma && tma==true && direction==fwd &&
# split_k==1' GCONV_GPU_TEST_SAMPLE=8 scripts/gpu-test .device 'Pools/PoolCorrectness*').
call3() {
  grep '"direction": "fwd"' problems/cudnn_public_h200.jsonl > /tmp/pub_fwd.jsonl
  for r in 1 2; do for m in 0 1; do
    GCONV_WGMMA_MULTICAST=$m .device/gconv bench --problems /tmp/pub_fwd.jsonl --pairs call3_mc_pairs.csv \
      --out /tmp/mc_${m}_$r.csv --warmup 2 --repeats 7 --check none
  done; done
}
# Call 4: call 2's trace cases (the third with 64x64 tiles), then the same with GCONV_WGMMA_MULTICAST=1.
# Call 5: call5_deep_rings.patch applied and built; `DR_F="family == wgmma && tma && tile_m == 64 && stages >= 8 &&
# split_k == 1 && direction != bwd_weight"`: check_kernels on DR_F (bf16 all, fp16 sample, grid capped at 3,
# sanitizers), then the shipped model's top 8 without DR_F (hold: with native cuDNN) and every DR_F kernel on
# call5_dr_hold.txt / call5_dr_train.txt (the pkcheck / pkbench stages of bench/device_call.sh with PK_F=DR_F).
"$@"
