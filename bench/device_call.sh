#!/usr/bin/env bash
# One call on the GPU machine (a 1- or several-GPU host). Stages:
#   build     compile the bf16 pools (all cores) into the JIT cache
#   tests     every GPU test, one process each, spread over the GPUs
#   bench     gconv bench over the public cuDNN shapes (one direction per GPU)
#             and cuDNN through PyTorch, then the comparison
#   sanitize  compute-sanitizer memcheck and racecheck on 2 kernels of each bf16 pool
#   train     train_sweep only, every GPU (or DEVS), TRAIN_S seconds (default 420), no checks,
#             resumed from .device/train_prev.csv.zst; SAMPLE=0 full pools, SHAPES first shapes
#   subset    fp16/fp32 training rows over the first SUBSET_SHAPES shapes (full pools),
#             resumed from .device/subset_<dtype>_prev.csv.zst
#   demo      scripts/demo.sh on GPU DEMO_GPU (the shipped model's ResNet-50 picks vs cuDNN)
#   wgcheck   the wgmma pools (every dtype) built, then their GPU correctness tests
#             (GCONV_GPU_TEST_FAMILY=wgmma), then `gconv run --check` on a few shapes
#   ncu       Nsight Compute on a few kernels (NCU_CASES)
#   trace     phase clocks of wgmma kernels built with GCONV_WGMMA_TRACE (TRACE_CASES)
#   tmaprobe  bench/tma_probe (built here into .device/tma_probe): what one block's TMA loads stream
#   wgprobe   bench/wgmma_probe (built here into .device/wgmma_probe): a warpgroup's wgmma chains
#   sass      SASS of wgmma kernels (SASS_CASES 'spec|filter;...') and of .device/tma_probe, through
#             cuobjdump/nvdisasm wherever the image has them (e.g. Triton's copies), else ncu's source page
#   ncusass   Nsight Compute's source page (SASS with per-instruction warp-stall samples) of the
#             kernels of NS_CASES ('spec|filter;...'), CSV
#   cudnnk    cuDNN's kernels for CK_SPECS through PyTorch: names, times, Nsight Compute sections
#   dwcheck   direct register-window kernels (DW_FILTER): built, GPU correctness (bf16 all, fp16/fp32
#             samples), sanitizers (DW_SAN) on 2 kernels per bf16 2D pool
#   dwsweep   the public set's depthwise problems: every direct kernel (DW_SWEEP_FILTER), cuDNN, compared
#   dwwg      window_wgrad (register-window bwd_weight): every direct bwd_weight kernel and native cuDNN on the
#             depthwise bwd_weight problems of the public set and problems/small_classes.csv, then the
#             window kernels' rows on .device/dwwg_train.csv / dwwg_hold.csv (DWWG_S seconds each)
#   dwwgab    window_wgrad A/B: the public set's depthwise bwd_weight problems, tile kernels and cuDNN once, the
#             window kernels per variant of DWWG_VARIANTS ("label:ENV=V ...;..."), a report per variant
#   dwst      the row-stream window kernels (_tma): against the reference, sanitizers, every window
#             kernel vs cuDNN on the public depthwise fwd / bwd_data problems, then the stream kernels'
#             rows on .device/dwst_train.csv / dwst_hold.csv (DWST_S / DWST_HOLD_S seconds)
#   pkcheck   packed igemm kernels: correctness, sanitizers, then every fwd / bwd_data kernel + cuDNN on
#             .device/scpg_pub.jsonl (the public grouped problems with C/G <= 16)
#   pkrows    selector rows: every packed igemm kernel on .device/pk_train.txt and .device/pk_hold.txt
#   pkwcheck  packed igemm bwd_weight kernels: correctness, sanitizers, every bwd_weight kernel + cuDNN on
#             .device/scpg_pub.jsonl, their rows on .device/pkw_train.txt / pkw_hold.txt
#   scpgdiag  every kernel + cuDNN on the public grouped problems with C/G <= 16 (.device/scpg_pub.jsonl)
#   racheck   realigned igemm kernels (_ra): correctness, sanitizers, then every kernel + cuDNN on
#             .device/ra_pub.jsonl (the public problems they serve: odd C/G > 8 fwd, odd K/G > 8 bwd)
#   rarows    selector rows: every realigned kernel on .device/ra_train.txt and .device/ra_hold.txt
#   sbdcheck  strided bwd_data through TMA (one dy im2col map for every stride phase, wgmma/tma.hpp
#             bwd_data_corners): every bwd_data TMA kernel against the reference (bf16 all, fp16 samples),
#             SBD_CAP_SAMPLE per pool with the grid capped at 3 blocks, sanitizers; every wgmma bwd_data
#             kernel, the shipped model's pick and top SBD_TOP without the TMA kernels (what it had before),
#             native cuDNN on .device/sbd_pub.jsonl (the public problems the path takes); then the
#             .device/sbd_ab_pairs.csv (stride 1, TMA) timed with the headers of .device/old_kernels and the
#             current ones (the producer's walk changed for stride 1 too)
#   sbdrows   selector rows: every bwd_data TMA kernel on .device/sbd_train.txt and .device/sbd_hold.txt
#   tcwcheck  tinyc bwd_weight (grouped, C/G = K/G of 4, 8, 16; tinyc_wgrad.cuh): every kernel against the
#             reference (bf16, fp16), sanitizers; every tinyc bwd_weight kernel, the shipped model's top
#             TCW_TOP without them (what it had before) and native cuDNN on .device/tcw_pub.jsonl
#   tcwrows   selector rows: every tinyc bwd_weight kernel on .device/tcw_train.txt and .device/tcw_hold.txt
#   wncheck   wgmma fwd tiles 96/144/192 wide: correctness, sanitizers, every such kernel + cuDNN on the public
#             fwd problems, the shipped model's top WN_TOP of the other kernels there (before)
#   wnrows    their selector rows: .device/wn_{train,hold}.csv with .device/wn_pairs.csv / wn_hold_pairs.csv
#   tpad      wgmma TMA kernels with taps padded to whole channel blocks: correctness (bf16 all, fp16/fp32
#             samples, the tap_padded_problems list), sanitizers
#   tpadbench the problems tap padding opens (.device/tpad_pub.jsonl, .device/tpad_small.csv): the model's
#             top TP_TOP + native cuDNN, then every wgmma TMA kernel
#   tpadrows  their selector rows on .device/tpad_train.txt / tpad_hold.txt
#   tpadtop   the shipped model's top TPT_TOP on the same problems (rows of one device)
#   wstcheck  staged operands (wgmma _tma_ra): correctness, sanitizers, every realigned wgmma kernel + cuDNN and the
#             model's top WST_TOP of the others on .device/wst_pub.jsonl, rows on .device/wst_{train,hold}.txt
#   pwcheck   pointwise streaming GEMM (pw): correctness, sanitizers, every pw kernel + cuDNN and the model's top
#             PW_TOP of the others on .device/pw_pub.jsonl, rows on .device/pw_{train,hold}.txt
#   nbcheck   realigned igemm bwd_data on a C/G off the vector: correctness, sanitizers, every such kernel and
#             the model's top NB_TOP + native cuDNN on .device/nb_pub.jsonl, rows on .device/nb_{train,hold}.txt
#   clab      cluster split-K's batched reduction: correctness, sanitizers, A/B on .device/r8_pub.jsonl, rows of
#             the deep-ring and cluster bwd_weight kernels on .device/r8_train.txt / r8_hold.txt
#   ring8     wgmma bwd_weight deep rings (6 / 8 stages): correctness, sanitizers, every TMA bwd_weight kernel and
#             the model's top R8_TOP + native cuDNN on .device/r8_pub.jsonl
#   stemrows  the same for the stem entry (.device/stem_train.txt, stem_hold.txt), plus the shipped model's
#             top STEM_TOP other kernels and native cuDNN on those problems
#   oddab     igemm vec 1 (odd channels, batched loads): correctness, sanitizers, then before
#             (.device/oldlib) vs after on the public problems with an odd C or K (.device/odd_pub.jsonl)
#   dwdata    held-out depthwise problems (direct kernels + native cuDNN, reported), then window kernels
#             on the training set's depthwise problems for DW_DATA_S seconds (selector training rows)
#   wgsan     compute-sanitizer memcheck, racecheck and synccheck on 2 wgmma kernels per bf16 pool
#             (WS_FILTER: a kernel filter; WS_PATTERN: the tests, default every bf16 pool)
#   clcheck   the wgmma cluster split-K kernels (CL_FILTER): built (bf16, fp16), one bounded smoke run
#             per direction, every one against the reference (GPU pool tests), then the sanitizers
#             (CL_SAN) on 2 per bf16 pool
#   candrows  selector training rows for kernels the stored training sweeps lack: per training
#             problem (the problems of data/sweeps/h200_*_train.csv.zst), the analytic top CAND_TOP
#             (default 12) of the new kernels (CAND_FILTER, default the wgmma family and the
#             register-window kernels); per problem of problems/train_odd.csv (all directions), the
#             analytic top ODD_TOP (default 24) of every family; timed for CAND_S seconds
#   tccheck   the tinyc kernels (bwd_data, C <= 8): built, GPU correctness (bf16, fp16), sanitizers, then
#             every tinyc kernel and cuDNN (native provider) on the public set's bwd_data problems with C <= 8
#   persist   the persistent wgmma grid: correctness (a sample of PERSIST_SAMPLE wgmma kernels per pool,
#             grid capped at 3 blocks so that every test problem walks several tiles per block;
#             memcheck/racecheck/synccheck on 2 per bf16 pool the same way), then the public set's
#             pairs of .device/persist_pairs_wg.csv timed with one tile per block and with the
#             persistent grid in the same run (bench/ab_sweeps.py), the pairs of
#             .device/persist_pairs_other.csv (igemm/direct/tinyc bests) once, cuDNN, compare
#   quick     one short call (a session with a few minutes of device time left): the tinyc
#             kernels against the reference (every kernel, bf16 and fp16), QUICK_SAMPLE wgmma
#             kernels per bf16 pool against the reference with the grid capped at 3 blocks,
#             memcheck on 2 wgmma kernels (capped grid) and 2 tinyc kernels, the A/B of the
#             persistent grid on .device/quick_pairs_wg.csv, tinyc vs cuDNN on the C <= 8
#             bwd_data problems of the public set; every step under its own time limit
#   quick2    the persistent-grid A/B on training problems (.device/train_ab_problems.txt,
#             .device/train_pairs_wg.csv: two wgmma kernels each), tile / persistent / tile again;
#             then memcheck, racecheck, synccheck on 2 tinyc kernels per bf16 ndim and racecheck on
#             2 wgmma fwd kernels with the grid capped at 3 blocks (logs kept)
#   gtests    after the direct family's grouped entries (Cg = Kg = 2, 4, 8): the direct tile kernels
#             against the reference (G_DIRECT_SAMPLE per pool, every dtype), the odd-channel igemm
#             bwd_weight kernels of split <= 4, every GPU test on a sample of G_ALL_SAMPLE kernels per
#             pool, memcheck and racecheck on 2 direct kernels per chosen bf16 pool
#   gbench    the grouped entries on the public set's C = K, C/G in {2,4,8} problems: every direct
#             tile kernel with GCONV_DIRECT_GROUPED=0 and with the entries, the stored sweeps' three
#             best igemm and wgmma kernels per problem (.device/grouped_pairs.csv) and native cuDNN,
#             bench/best_by_label.py; r2plus1d_18's odd-channel bwd_weight problems with the igemm
#             vec < 8 kernels; then direct rows for the training problems of .device/grouped_train.txt
#             for GT_S seconds (selector training data)
#   gnew      the direct pools' grouped tiles (vec 4/2 with more outputs per thread, GNEW_FILTER):
#             against the reference (bf16, fp16), memcheck on 2, then the gbench comparison again
#             (every direct tile kernel, gemm pairs, cuDNN) and their rows on .device/grouped_train.txt
#   gab       the direct family after a change: GPU tests (GAB_SAMPLE per pool, bf16 and fp32),
#             memcheck on 2; the bwd_weight split target GCONV_DIRECT_WGRAD_BLOCKS = 1024 (default) /
#             2048 / 4096 on the public set's grouped and depthwise bwd_weight problems
#             (.device/wgrad_pub.jsonl, every direct tile kernel; GAB_WB='' skips it); then gbench's
#             comparison again, and on an H200 (GT_GPU) every direct tile kernel on .device/grouped_train.txt
#   oddbw     bwd_weight with channel counts 8 does not divide: correctness + sanitizers of the wgmma
#             vec 4 / 2 one-launch splits and the igemm realigned kernels, then every kernel + cuDNN
#   stemra    the realigned bwd_weight kernels' run merge (C = 3 stems): checks, stems + odd_bw benches, rows
#   obrows    selector rows of those kernels on .device/ob_train.txt and .device/ob_hold.txt
#   n192check the bwd directions' 192-wide wgmma tiles and bwd_weight's serial splits off the powers of two
#             (N192_F): every bf16 kernel against the reference, fp16 samples, sanitizers on 2 a bf16 2D pool
#   n192bench the public dense bwd_data / bwd_weight problems of >= 5 GFLOP: the model's top N192_TOP (default
#             16), then every N192_F kernel, then cuDNN through PyTorch and cuBLAS on the equivalent GEMM;
#             compare_cudnn.py of the top alone and of both sweeps together
#   n192rows  the N192_F kernels' selector rows (.device/n192_{train,hold}.csv with their _pairs.csv)
#   n192top   the shipped model's top N192T_TOP on the same problems (rows of one device)
#   rtop      the shipped model's top RT_TOP on the other bf16 training / holdout problems (.device/rt_*.csv)
#   pkcheck   the packed wgmma bwd_weight kernels (PK_F; wgmma/packed.hpp): every bf16 one against the
#             reference (odd + packed problems), an fp16 sample, a sample with the grid capped at 3
#             blocks, sanitizers on 2 of the bf16 2D pool
#   pkbench   grouped bwd_weight layers they take (.device/pk_hold.txt: held-out shapes, .device/pk_train.txt):
#             the model's top PK_TOP (default 8) without them beside native cuDNN (hold only), then every
#             PK_F kernel; class_report.py of hold, before (top alone) and after (both sweeps)
#   cublas    dense public problems >= CB_GFLOP GFLOP: the model's top CB_TOP kernels + native cuDNN,
#             then cuDNN and cuBLAS (torch.matmul on the equivalent GEMM) through PyTorch, compared
#   policy    what a user gets: `gconv bench --policy heuristic --provider gconv,cudnn` (the shipped
#             model's pick per problem beside native cuDNN) over POL_PROBLEMS (default the public set)
#             for POL_S seconds (default 360), its summary per direction and network
#   grows     training rows for problems/train_grouped.csv (all directions, on an H200 only): the
#             analytic top GR_TOP (default 32) of every family, then every direct tile kernel
#   smallsweep  problems/small_classes.csv (issue 17's classes, held out), every direction: the
#             policy's top SC_TOP (default 16) kernels per problem and native cuDNN, SC_S seconds
#             (default 480; --out resumes), then bench/class_report.py
#   pubsweep  one GPU, one process at a time: gconv bench over the public shapes for the
#             kernels of FILTER (default: every kernel), resumed from .device/pub_prev.csv.zst,
#             plus with TOP=K each problem's K best igemm/direct kernels of the stored full
#             sweep (bench/top_pairs.py), for PUB_S seconds in all; then cuDNN (and cuBLAS on the equivalent GEMM of dense
#             problems >= 5 GFLOP) through PyTorch in the same call, and compare --by-family
#   data      training data for the selector, bounded by DATA_S seconds (default 420):
#             cuDNN (native provider) on the public shapes, then the full pools on
#             validation_holdout (shuffled) on the last GPU; train_sweep with a sample
#             of kernels per problem (--sample) on the other GPUs. Run `build` first.
#   fixup1    serial split-K in one launch (igemm/fixup.cuh): the graph-capture launch counts,
#             FIX_BF16_SAMPLE serial bf16 kernels per pool against the reference, then the pairs of
#             .device/fixup_pairs.csv timed with GCONV_SPLITK_FIXUP=0 (memset + main + reduce) and with
#             the fixup in the same run (bench/ab_sweeps.py)
#   fixup2    the serial wgmma kernels with the grid capped at 3 blocks (every block walks several
#             tiles, so the fixup words and roles repeat), fp16 samples, memcheck / synccheck /
#             racecheck on 2 serial kernels per bf16 2D pool
#   fixdirect the direct tile bwd_weight kernels with atomics in one launch (common/fixup.cuh): the
#             graph-capture launch counts, FIXD_SAMPLE of them per pool against the reference (bf16,
#             fp16, fp32), memcheck / racecheck on 2 per bf16 2D pool; every non-deterministic
#             direct tile kernel on .device/wgrad_pub.jsonl (the public set's grouped and depthwise
#             bwd_weight problems) with GCONV_SPLITK_FIXUP=0 (memset + kernel + finish) and with the
#             fixup in the same run (bench/ab_sweeps.py)
#   deep      wgmma bwd_weight serial kernels with 64 / 128 splits: every bf16 one against the
#             reference (+ DEEP_FP16 fp16 per pool); on the public bwd_weight problems
#             (.device/bw_pub.jsonl) each problem's three best kernels of the stored sweeps
#             (.device/bw_pairs.csv) with native cuDNN, and the new kernels; bench/best_by_label.py
#   episep    wgmma kernels with their own epilogue staging area (kEpiSep: unsplit tiles >= 128 x 128,
#             persistent by default): ES_SAMPLE of them per pool against the reference with the grid
#             capped at 3 blocks (every dtype), 6 per bf16 pool on the default grid, memcheck /
#             racecheck / synccheck (capped) on 2 per bf16 2D pool; then .device/sep_pairs.csv timed
#             with GCONV_WGMMA_PERSISTENT=0 (one tile per block) and by default (bench/ab_sweeps.py,
#             the kEpiSep kernels of .device/sep_names.txt and all pairs); ES_FILTER: the kernels tested;
#             ES_SAN: the sanitizers (default memcheck racecheck synccheck; '' none); ES_VAR: the
#             variable of the A/B (default GCONV_WGMMA_PERSISTENT), ES_VA / ES_VB its values (default 0 /
#             unset), ES_LA / ES_LB their labels
#   smoke     every GPU test on a sample of each pool, then SMOKE_FILTER's kernels with a capped grid
#   retime    re-measure the (kernel, problem) pairs of .device/rt_pairs.csv over .device/rt_problems.csv
#             (bench/retime_pairs.py: kernels whose times changed since the stored sweeps, with anchors)
#             for RT_S seconds (default 540), no checks -> $OUT/rt_rows.csv.zst
#   pwtma     TMA producers on pointwise problems whose channels are not multiples of 64 (wgmma/tma.hpp
#             tma_ok, sixteenth session): PW_SAMPLE (default 10) TMA kernels per pool against the
#             reference (the odd shapes hold such problems), 6 per pool with the grid capped at 3
#             blocks, memcheck on 2 per bf16 pool; then .device/pw_pairs.csv (each problem's current
#             pick and its best-ranked TMA kernels) over .device/pw.jsonl with native cuDNN
#   abenv     an on/off switch A/B (AB_VAR, e.g. GCONV_WGMMA_TMA_PREFETCH): AB_SAMPLE (default 6) wgmma TMA
#             kernels per pool against the reference first, then the public set's .device/abenv_pairs.csv
#             timed with AB_VAR=0 and unset in the same run (bench/ab_sweeps.py)
#   sweepf    every kernel of SF_FILTER on the problems of .device/sf.jsonl with native cuDNN, SF_S seconds
#             (default 240) -> $OUT/sf.csv.zst
#   pfix      parallel split-K and direct _det in one launch: launch counts, correctness (forced for every
#             size, capped grid, fp16 samples), sanitizers
#   pfixab    .device/pfix_pairs.csv with the reduce kernel and with the one launch forced (bench/ab_sweeps.py)
#   abpicks   two selectors' picks (.device/ab_pairs.csv, the union) on AB_PROBLEMS (default the public
#             cuDNN shapes) with native cuDNN in the same run -> $OUT/ab_picks.csv.zst (bench/compare_picks.py)
# Usage: bash bench/device_call.sh STAGE...   ($OUT receives the logs)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source .device/env.sh
export GCONV_CONFIG_DIR=${DEVICE_CONFIG_DIR:-$PWD/configs} GCONV_PROBLEMS_DIR=$PWD/problems GCONV_CACHE_DIR=$PWD/.jitcache
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# head_shapes FILE N: the comment and header lines of a problem CSV and its first N problems
head_shapes() { awk -v n="$2" '/^#/ || !h++ {print; next} k++ < n' "$1"; }
# ab_env VAR TAG LABEL LOGDIR SECONDS REPEATS PAIRS [A [B]]: the public set's PAIRS timed with VAR=A
# (default 0; mode 0) and with VAR=B (default unset; mode on) -> /tmp/TAG_MODE.csv and $OUT/TAG_MODE.csv.zst,
# bench stderr in LOGDIR
# pack SRC DST.zst: compressed with .device/zstd, or with gzip into DST.gz where the
# bundle left zstd out (the 64 MiB carry limit).
pack() {
  if [ -x .device/zstd ]; then .device/zstd -q -T0 -12 "$1" -o "$2"; else gzip -c "$1" > "${2%.zst}.gz"; fi
}
# check_kernels TAG FAMILY FILTER TESTS SANITIZED [TOOLS]: the bf16 kernels of FILTER built, the
# GPU correctness tests TESTS (gtest pattern) on FAMILY's kernels of FILTER (bf16 all, fp16/fp32
# samples) -> $OUT/TAG_tests.txt, TAG_tests.log.gz and the tallies, then each sanitizer of TOOLS
# (default memcheck racecheck synccheck) on 2 kernels per pool of SANITIZED -> $OUT/TAGsan_TOOL.txt
# (name only pools FILTER leaves kernels in: a test process that never calls CUDA fails under
# compute-sanitizer).
check_kernels() {
  local tag=$1 family=$2 tests=$4 sanitized=$5 tools=${6:-memcheck racecheck synccheck} tool
  export GCONV_GPU_TEST_FILTER=$3
  .device/gconv build --direction all --dtype bf16 --filter "$3" --jobs "$ncpu" > "$OUT/${tag}_build.txt" 2>&1
  grep -v '^  ' "$OUT/${tag}_build.txt" | tail -n 3
  mkdir -p "/tmp/${tag}logs"
  GCONV_GPU_TEST_FAMILY=$family LOG_DIR=/tmp/${tag}logs scripts/gpu-test .device "$tests" \
    > "$OUT/${tag}_tests.txt" 2>&1; tail -n 1 "$OUT/${tag}_tests.txt"
  cat /tmp/${tag}logs/*.log > "/tmp/${tag}_tests.log"; gzip -c "/tmp/${tag}_tests.log" > "$OUT/${tag}_tests.log.gz"
  grep -h "^TALLY" "/tmp/${tag}_tests.log" | sort; grep -h -E "Failure|failed|crash" "/tmp/${tag}_tests.log" | head -n 12
  for tool in $tools; do
    mkdir -p "/tmp/${tag}san_$tool"
    GCONV_GPU_TEST_FAMILY=$family GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool LOG_DIR=/tmp/${tag}san_$tool \
      scripts/gpu-test .device "$sanitized" > "$OUT/${tag}san_$tool.txt" 2>&1
    echo "$tool: $(tail -n 1 "$OUT/${tag}san_$tool.txt") | $(cat /tmp/${tag}san_$tool/*.log 2>/dev/null | grep -h 'ERROR SUMMARY' | sort | uniq -c | tr '\n' ' ')"
  done
}
# gpu_tests LABEL DIR LIMIT PATTERN [N]: scripts/gpu-test PATTERN under the caller's environment (test filter,
# sample, TEST_TIMEOUT_S, ...), logs in DIR, the whole run cut at LIMIT seconds; prints LABEL with the result,
# the pools' tallies and the first N (default 8) failure lines.
gpu_tests() {
  local label=$1 dir=$2 limit=$3 pattern=$4 n=${5:-8}
  mkdir -p "$dir"
  LOG_DIR=$dir timeout -k 5 "$limit" scripts/gpu-test .device "$pattern" > "$dir.txt" 2>&1
  echo "$label: $(tail -n 1 "$dir.txt")"
  cat "$dir"/*.log | grep -h "^TALLY" | grep -v "kernels=0" | sort
  cat "$dir"/*.log | grep -h -E "Failure|failed|crash|mismatch" | head -n "$n"
}
# top_rows TAG K SECONDS [FILES]: the shipped model's top K of each problem of the train and hold problem
# files (FILES, a printf pattern of the set name, default .device/TAG_%s.csv; SECONDS each; TOP_SETS="train"
# or "hold" for one of them) -> $OUT/TAGtop_{train,hold}.csv.zst
top_rows() {
  local tag=$1 files=${4:-.device/${1}_%s.csv} set
  for set in ${TOP_SETS:-train hold}; do
    rm -f /tmp/${tag}top_$set.csv
    timeout -k 10 "$3" .device/gconv bench --problems "$(printf "$files" "$set")" --policy "topk:$2" \
      --out /tmp/${tag}top_$set.csv --warmup 1 --repeats 5 --check none --timeout-s 60 --jobs "$ncpu" --progress-s 60 \
      2> "$OUT/${tag}top_$set.log"
    echo "${tag}top $set rc=$?: $(grep -v ETA "$OUT/${tag}top_$set.log" | grep "rows (" | tail -n 1)"
    pack /tmp/${tag}top_$set.csv "$OUT/${tag}top_$set.csv.zst"
  done
}
# bench_rows TAG FILTER SECONDS: selector rows of the kernels of FILTER on .device/TAG_train.txt and
# .device/TAG_hold.txt (SECONDS each) -> $OUT/TAGrows_{train,hold}.csv.zst
bench_rows() {
  local tag=$1 set
  for set in train hold; do
    rm -f /tmp/${tag}rows_$set.csv  # gconv bench resumes an existing --out: a warm machine must measure again
    timeout -k 10 "$3" .device/gconv bench --problems .device/${tag}_$set.txt --filter "$2" \
      --out /tmp/${tag}rows_$set.csv --warmup 1 --repeats 5 --check none --timeout-s 60 --jobs "$ncpu" --progress-s 60 \
      2> "$OUT/${tag}rows_$set.log"
    echo "${tag}rows $set rc=$?"; grep -v ETA "$OUT/${tag}rows_$set.log" | tail -n 2
    pack /tmp/${tag}rows_$set.csv "$OUT/${tag}rows_$set.csv.zst"
  done
}
ab_env() {
  local var=$1 tag=$2 label=$3 logs=$4 secs=$5 reps=$6 pairs=$7 va=${8:-0} vb=${9:-} mode
  grep -v '^#' problems/cudnn_public_h200.jsonl > /tmp/pub.jsonl
  # gconv bench resumes an existing --out: a repeat on a warm machine must measure again.
  rm -f "/tmp/${tag}_0.csv" "/tmp/${tag}_on.csv"
  for mode in 0 on; do
    ( if [ "$mode" = on ]; then if [ -n "$vb" ]; then export "$var=$vb"; else unset "$var"; fi; else export "$var=$va"; fi
      timeout -k 10 "$secs" .device/gconv bench --problems /tmp/pub.jsonl --pairs "$pairs" \
        --out "/tmp/${tag}_$mode.csv" --warmup 2 --repeats "$reps" --jobs "$ncpu" 2> "$logs/${tag}_${mode}_stderr.log" )
    echo "$label bench $mode rc=$?: $(tail -n 1 "$logs/${tag}_${mode}_stderr.log")"
    pack "/tmp/${tag}_$mode.csv" "$OUT/${tag}_$mode.csv.zst"
  done
}
# The thirty-third session's kernels (n192check, n192bench): the bwd directions' 192-wide wgmma tiles and
# bwd_weight's serial splits off the powers of two.
# The thirty-fourth session's packed wgmma weight gradients (pkcheck, pkbench).
PK_F=${PK_F:-"family == wgmma && packed"}
N192_F=${N192_F:-"family == wgmma && direction != fwd && (tile_n == 192 || split_k == 3 || split_k == 5 || split_k == 6 || split_k == 11 || split_k == 14 || split_k == 22)"}
ngpu=$(nvidia-smi -L | wc -l); ncpu=$(nproc)
export GPUS=$ngpu GCONV_GPU_TEST_JOBS=$(( ncpu / ngpu )) GCONV_CLI=$PWD/.device/gconv
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sort | uniq -c; echo "cpus $ncpu"
for stage in "$@"; do
  start=$(date +%s)
  case $stage in
    build)
      .device/gconv build --direction all --dtype bf16 --jobs "$ncpu" > "$OUT/build_bf16.txt" 2>&1
      grep -v '^  ' "$OUT/build_bf16.txt" | tail -n 12 ;;
    tests)
      mkdir -p /tmp/gpulogs
      LOG_DIR=/tmp/gpulogs scripts/gpu-test .device | tee "$OUT/gpu_tests_summary.txt"
      cat /tmp/gpulogs/*.log > /tmp/gpu_tests.log; gzip -c /tmp/gpu_tests.log > "$OUT/gpu_tests.log.gz"
      grep -h "^TALLY" /tmp/gpulogs/*.log | sort
      grep -h -E "^(igemm|direct)_.* on |Failure|no test problem|CUDNN|crash" /tmp/gpu_tests.log | head -n 30 ;;
    bench)
      i=0
      for d in fwd bwd_data bwd_weight; do
        grep "\"direction\": \"$d\"" problems/cudnn_public_h200.jsonl > /tmp/public_$d.jsonl
        CUDA_VISIBLE_DEVICES=$((i % ngpu)) .device/gconv bench --problems /tmp/public_$d.jsonl \
          --out "$OUT/sweep_$d.csv" --warmup 2 --repeats 7 --jobs $(( ncpu / 4 )) 2> "$OUT/bench_$d.log" &
        i=$((i + 1))
      done
      CUDA_VISIBLE_DEVICES=$((3 % ngpu)) PYTHONUNBUFFERED=1 python3 bench/cudnn_torch.py \
        --problems problems/cudnn_public_h200.jsonl --out "$OUT/cudnn_torch.jsonl" 2> "$OUT/cudnn.log" &
      wait
      tail -q -n 1 "$OUT"/bench_*.log "$OUT/cudnn.log"
      { head -n 1 "$OUT/sweep_fwd.csv"; tail -q -n +2 "$OUT"/sweep_{fwd,bwd_data,bwd_weight}.csv; } > /tmp/sweep.csv
      gzip -c /tmp/sweep.csv > "$OUT/sweep_public.csv.gz"; rm -f "$OUT"/sweep_*.csv
      python3 bench/compare_cudnn.py --sweep /tmp/sweep.csv --cudnn "$OUT/cudnn_torch.jsonl" \
        --per-problem "$OUT/compare.csv" | tee "$OUT/compare.txt" | head -n 24 ;;
    build16)
      GCONV_CACHE_DIR=/tmp/jit16 .device/gconv build --direction all --dtype bf16 --jobs 16 > "$OUT/build16.txt" 2>&1
      grep -v '^  ' "$OUT/build16.txt" | tail -n 4 ;;
    examples)
      for t in bf16 fp16 fp32; do
        for ex in conv_fwd conv_bwd_data conv_bwd_weight; do
          for spec in n8c256k256_h28w28_y3x3_p1 n2c64k64g4_h20w20_y3x3_s2_p1 n2c32k32g32_d4h9w9_z3y3x3_p1 n4c24k40_w33_x5_s2_p2; do
            o=$(.device/$ex $spec --dtype $t --check --iters 5 2>&1); rc=$?
            echo "$ex $t $spec: rc=$rc $(grep -h -E 'check:' <<<"$o") $(grep -h time: <<<"$o") $(grep -h kernel <<<"$o" | sed 's/.*kernel //' | cut -d' ' -f1)"
          done
        done
      done > "$OUT/examples.txt"
      grep -v 'rc=0 check: ok' "$OUT/examples.txt" | head -n 20
      echo "examples: $(grep -c . "$OUT/examples.txt") runs, $(grep -c 'rc=0 check: ok' "$OUT/examples.txt") ok"
      echo "conv_c: $(.device/conv_c 2>&1 | tail -n 1)" ;;
    sweep)
      # The benchmark-harness check: one sweep, gconv and cuDNN side by side,
      # worker processes over every GPU, then gconv report.
      devs=$(seq -s, 0 $((ngpu - 1)))
      .device/gconv bench --problems problems/cudnn_public_h200.jsonl --provider gconv,cudnn --devices "$devs" \
        --out /tmp/sweep.csv --warmup 2 --repeats 5 --timeout-s 120 --jobs "$ncpu" --progress-s 30 2> "$OUT/sweep_stderr.log"
      echo "bench rc=$?"; tail -n 4 "$OUT/sweep_stderr.log"
      gzip -c /tmp/sweep.csv > "$OUT/sweep_public_providers.csv.gz"
      .device/gconv report /tmp/sweep.csv --baseline cudnn --plots /tmp/plots > "$OUT/report.txt" 2>&1
      cp /tmp/plots/*.png "$OUT/" 2>/dev/null
      head -n 60 "$OUT/report.txt" ;;
    data)
      T=${DATA_S:-420}; last=$((ngpu - 1)); train_devs=$(seq -s, 0 $((ngpu > 1 ? ngpu - 2 : 0)))
      .device/gconv device > "$OUT/gpu.json"
      python3 -c "import random,sys; l=open('problems/validation_holdout.csv').read().splitlines(); h=[x for x in l if x.startswith('#')]; b=[x for x in l if not x.startswith('#')]; r=b[1:]; random.Random(3).shuffle(r); open('/tmp/holdout.csv','w').write('\n'.join(h+b[:1]+r)+'\n')"
      timeout -k 10 "$T" .device/gconv bench --problems problems/train_sweep.csv --directions all --sample "${SAMPLE:-28}" \
        --devices "$train_devs" --out /tmp/train.csv --warmup 1 --repeats 5 --timeout-s 60 --progress-s 60 2> "$OUT/train_stderr.log" &
      ( CUDA_VISIBLE_DEVICES=$last timeout -k 10 120 .device/gconv bench --problems problems/cudnn_public_h200.jsonl \
          --provider cudnn --out /tmp/cudnn_public.csv --warmup 2 --repeats 5 --timeout-s 60 2> "$OUT/cudnn_stderr.log"
        left=$(( T - ( $(date +%s) - start ) - 5 ))
        timeout -k 10 "$left" .device/gconv bench --problems /tmp/holdout.csv --directions all --devices "$last" \
          --out /tmp/holdout_sweep.csv --warmup 1 --repeats 5 --timeout-s 60 --progress-s 60 2> "$OUT/holdout_stderr.log" ) &
      wait
      tail -n 2 "$OUT/train_stderr.log" "$OUT/cudnn_stderr.log" "$OUT/holdout_stderr.log"
      for f in train holdout_sweep cudnn_public; do echo "$f: $(wc -l < /tmp/$f.csv) lines"; gzip -c /tmp/$f.csv > "$OUT/$f.csv.gz"; done
      ls -la "$OUT" ;;
    train)
      # More training rows: train_sweep on every GPU for TRAIN_S seconds, no
      # checks (every kernel was checked by the GPU tests and the holdout sweep),
      # resuming from .device/train_prev.csv.zst when a run left one. SAMPLE=0
      # measures the full pools; SHAPES limits the sweep to the set's first
      # SHAPES shapes (any prefix of train_sweep is representative).
      T=${TRAIN_S:-420}; devs=${DEVS:-$(seq -s, 0 $((ngpu - 1)))}
      head_shapes problems/train_sweep.csv "${SHAPES:-100000}" > /tmp/train_sweep.csv
      [ -f .device/train_prev.csv.zst ] && .device/zstd -dqc .device/train_prev.csv.zst > /tmp/train.csv
      timeout -k 10 "$T" .device/gconv bench --problems /tmp/train_sweep.csv --directions all --sample "${SAMPLE:-28}" \
        --devices "$devs" --out /tmp/train.csv --warmup 1 --repeats 5 --check none --timeout-s 60 --progress-s 60 \
        --jobs "$ncpu" 2> "$OUT/train_stderr.log"
      tail -n 3 "$OUT/train_stderr.log"; echo "train: $(wc -l < /tmp/train.csv) lines"
      pack /tmp/train.csv "$OUT/train.csv.zst"; ls -la "$OUT" ;;
    subset)
      # fp16 / fp32 training rows: the first SUBSET_SHAPES shapes of train_sweep
      # (default 250) in each of SUBSET_DTYPES (default fp16,fp32), all
      # directions, full pools unless SAMPLE is set, on DEVS, for SUBSET_S seconds.
      T=${SUBSET_S:-300}; devs=${DEVS:-$(seq -s, 0 $((ngpu - 1)))}; t0=$(date +%s)
      for dt in $(tr , ' ' <<<"${SUBSET_DTYPES:-fp16,fp32}"); do
        head_shapes problems/train_sweep.csv "${SUBSET_SHAPES:-250}" | sed -e "s/,bf16,/,$dt,/" -e "s/_bf16_/_${dt}_/" > /tmp/subset_$dt.csv
        rm -f /tmp/subset_$dt.out.csv
        [ -f .device/subset_${dt}_prev.csv.zst ] && .device/zstd -dqc .device/subset_${dt}_prev.csv.zst > /tmp/subset_$dt.out.csv
        left=$(( T - ( $(date +%s) - t0 ) ))
        [ "$left" -gt 20 ] || { echo "subset $dt: no time left"; continue; }
        timeout -k 10 "$left" .device/gconv bench --problems /tmp/subset_$dt.csv --directions all --sample "${SAMPLE:-0}" \
          --devices "$devs" --out /tmp/subset_$dt.out.csv --warmup 1 --repeats 5 --check "${CHECK:-first}" --timeout-s 60 \
          --progress-s 60 --jobs "$ncpu" 2> "$OUT/subset_${dt}_stderr.log"
        tail -n 2 "$OUT/subset_${dt}_stderr.log"; echo "subset $dt: $(wc -l < /tmp/subset_$dt.out.csv) lines"
        pack /tmp/subset_$dt.out.csv "$OUT/subset_$dt.csv.zst"
      done ;;
    demo)
      # scripts/dev demo's main job on the GPU: the shipped model's picks for
      # ResNet-50, each run with --check, against cuDNN's best on the same GPU.
      CUDA_VISIBLE_DEVICES=${DEMO_GPU:-0} GCONV=$PWD/.device/gconv GCONV_CUDNN_GRAPH_CONFIGS=4 GCONV_CUDNN_GRAPH_BUDGET_S=0.8 \
        bash scripts/demo.sh > "$OUT/demo.txt" 2>&1; echo "demo rc=$?"
      grep -E "FAILED|sums|cuDNN/gconv|Error|error" "$OUT/demo.txt" | head -n 20 ;;
    final)
      # GPUs 0..n-2: more training rows (TRAIN_S s); the last GPU: the cuDNN
      # provider's GPU tests (legacy + graph outputs checked). Then the public
      # shapes on every GPU with --provider cudnn,gconv (PUB_S s) and the report.
      T=${TRAIN_S:-190}; last=$((ngpu - 1)); train_devs=$(seq -s, 0 $((ngpu > 1 ? ngpu - 2 : 0)))
      ( CUDA_VISIBLE_DEVICES=$last timeout -k 5 150 .device/gconv_gpu_tests --gtest_filter='*CudnnProvider*:*CudnnGraph*' \
          > "$OUT/cudnn_gpu_tests.txt" 2>&1; echo "cudnn gpu tests rc=$?" ) &
      [ -f .device/train_prev.csv.gz ] && zcat .device/train_prev.csv.gz > /tmp/train.csv
      timeout -k 10 "$T" .device/gconv bench --problems problems/train_sweep.csv --directions all --sample "${SAMPLE:-28}" \
        --devices "$train_devs" --out /tmp/train.csv --warmup 1 --repeats 5 --check none --timeout-s 60 --progress-s 60 \
        2> "$OUT/train_stderr.log"
      wait
      grep -E "^\[  (PASSED|FAILED) |tests ran" "$OUT/cudnn_gpu_tests.txt" | head
      tail -n 2 "$OUT/train_stderr.log"; echo "train: $(wc -l < /tmp/train.csv) lines"
      gzip -c /tmp/train.csv > "$OUT/train.csv.gz"
      devs=$(seq -s, 0 $((ngpu - 1)))
      GCONV_CUDNN_GRAPH_CONFIGS=${GRAPH_CONFIGS:-4} GCONV_CUDNN_GRAPH_BUDGET_S=${GRAPH_BUDGET_S:-0.8} \
        timeout -k 10 "${PUB_S:-270}" .device/gconv bench --problems problems/cudnn_public_h200.jsonl --provider cudnn,gconv \
        --devices "$devs" --out /tmp/public.csv --warmup 1 --repeats 5 --timeout-s 60 --progress-s 30 2> "$OUT/public_stderr.log"
      echo "public bench rc=$?"; tail -n 3 "$OUT/public_stderr.log"
      gzip -c /tmp/public.csv > "$OUT/sweep_public_providers.csv.gz"
      .device/gconv report /tmp/public.csv --baseline cudnn > "$OUT/report.txt" 2>&1
      head -n 40 "$OUT/report.txt" ;;
    cli)
      for spec in fwd_bf16_n32c256k256_h56w56_y3x3_p1 bwd_data_bf16_n32c128k128g32_h56w56_y3x3_p1 \
                  bwd_weight_fp16_n32c64k64_h56w56_y3x3_p1 fwd_fp32_n8c96k96g96_h112w112_y3x3_s2_p0:1; do
        echo "== gconv run $spec"; .device/gconv run "$spec" --check 2>&1 | tail -n 4
      done ;;
    wgcheck)
      for dt in $(tr , ' ' <<<"${WG_DTYPES:-bf16,fp16,fp32}"); do
        .device/gconv build --direction all --dtype "$dt" ${WG_NDIM:+--ndim $WG_NDIM} --filter 'family==wgmma' \
          --jobs "$ncpu" >> "$OUT/build_wgmma.txt" 2>&1
      done
      grep -v '^  ' "$OUT/build_wgmma.txt" | tail -n 6
      # One kernel per direction first, each bounded: a hung kernel shows here.
      for spec in fwd_bf16_n8c128k128_h20w20_y3x3_p1 bwd_data_bf16_n8c128k128_h20w20_y3x3_s2_p1 \
                  bwd_weight_bf16_n8c128k128_h20w20_y3x3_p1; do
        echo "smoke $spec: $(timeout -k 5 60 .device/gconv run "$spec" --policy exhaustive --check \
          --filter 'family==wgmma && tile_m==128 && tile_n==128 && warps_m==1 && split_k==1' 2>&1 | tr '\n' ' ' | cut -c1-400) rc=$?"
      done
      for spec in fwd_bf16_n32c256k256_h56w56_y3x3_p1 bwd_data_bf16_n32c256k256_h28w28_y3x3_s2_p1 \
                  bwd_weight_bf16_n32c256k256_h14w14_y3x3_p1 fwd_fp32_n16c128k128_h28w28_y3x3_p1; do
        for f in wgmma igemm; do
          echo "== $f $spec: $(timeout -k 5 120 .device/gconv run "$spec" --policy exhaustive --filter "family==$f" --check 2>&1 | grep -E 'kernel|time|check' | tr '\n' ' ')"
        done
      done
      mkdir -p /tmp/wglogs
      TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-300} GCONV_GPU_TEST_FAMILY=wgmma LOG_DIR=/tmp/wglogs scripts/gpu-test .device "${WG_TESTS:-Pools/PoolCorrectness*}" \
        | tee "$OUT/wgmma_tests_summary.txt"
      cat /tmp/wglogs/*.log > /tmp/wg_tests.log; gzip -c /tmp/wg_tests.log > "$OUT/wgmma_tests.log.gz"
      grep -h "^TALLY" /tmp/wglogs/*.log | sort
      grep -h -E "^wgmma_.* on |Failure|build failed" /tmp/wg_tests.log | head -n 20 ;;
    wgsan)
      for tool in memcheck racecheck synccheck; do
        mkdir -p /tmp/wsan_$tool
        env ${WS_FILTER:+"GCONV_GPU_TEST_FILTER=$WS_FILTER"} GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_SAMPLE=2 \
          SANITIZE=$tool LOG_DIR=/tmp/wsan_$tool \
          scripts/gpu-test .device "${WS_PATTERN:-Pools/PoolCorrectness.*bf16*}" > "$OUT/wsan_$tool.txt" 2>&1
        echo "$tool: $(tail -n 1 "$OUT/wsan_$tool.txt") | $(cat /tmp/wsan_$tool/*.log 2>/dev/null | grep -h 'ERROR SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done ;;
    abenv)
      L=/tmp/abenvlogs; mkdir -p $L/t
      TEST_TIMEOUT_S=100 GCONV_GPU_TEST_FILTER='family==wgmma && tma==true' GCONV_GPU_TEST_SAMPLE=${AB_SAMPLE:-6} \
        LOG_DIR=$L/t timeout -k 5 120 scripts/gpu-test .device 'Pools/PoolCorrectness*' > "$L/t.txt" 2>&1
      echo "TMA kernels against the reference: $(tail -n 1 "$L/t.txt")"
      cat $L/t/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch" | head -n 8
      ab_env "$AB_VAR" abenv "$AB_VAR" "$L" "${AB_ENV_S:-150}" "${REPEATS:-7}" .device/abenv_pairs.csv "${AB_VA:-0}" "${AB_VB:-}"
      python3 bench/ab_sweeps.py --a /tmp/abenv_0.csv --b /tmp/abenv_on.csv --label-a off --label-b on \
        | tee "$OUT/abenv.txt" ;;
    sweepf)
      timeout -k 10 "${SF_S:-240}" .device/gconv bench --problems .device/sf.jsonl --filter "$SF_FILTER" \
        --provider gconv,cudnn --out /tmp/sf.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" \
        --progress-s 60 2> "$OUT/sf_bench.log"
      echo "sweepf bench rc=$?"; grep -v ETA "$OUT/sf_bench.log" | tail -n 2
      pack /tmp/sf.csv "$OUT/sf.csv.zst" ;;
    abpicks)
      timeout -k 10 "${AB_S:-420}" .device/gconv bench --problems "${AB_PROBLEMS:-problems/cudnn_public_h200.jsonl}" \
        --pairs .device/ab_pairs.csv --provider gconv,cudnn --out /tmp/ab.csv --warmup 2 --repeats 5 --check none \
        --jobs "$ncpu" --progress-s 60 2> "$OUT/ab_bench.log"
      echo "abpicks bench rc=$?"; grep -v ETA "$OUT/ab_bench.log" | tail -n 3
      pack /tmp/ab.csv "$OUT/ab_picks.csv.zst" ;;
    pwtma)
      L=/tmp/pwlogs; mkdir -p $L/d $L/c $L/san
      F=${PW_FILTER:-'family==wgmma && tma==true'}
      TEST_TIMEOUT_S=150 GCONV_GPU_TEST_FILTER="$F" GCONV_GPU_TEST_SAMPLE=${PW_SAMPLE:-10} LOG_DIR=$L/d \
        timeout -k 5 "${PW_S:-170}" scripts/gpu-test .device 'Pools/PoolCorrectness*' > "$L/d.txt" 2>&1
      echo "TMA kernels, default grid: $(tail -n 1 "$L/d.txt")"
      cat $L/d/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat $L/d/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch|wgmma_.* on " | head -n 12
      GCONV_WGMMA_PERSISTENT=3 TEST_TIMEOUT_S=100 GCONV_GPU_TEST_FILTER="$F" GCONV_GPU_TEST_SAMPLE=6 LOG_DIR=$L/c \
        timeout -k 5 110 scripts/gpu-test .device 'Pools/PoolCorrectness*bf16*' > "$L/c.txt" 2>&1
      echo "grid capped at 3: $(tail -n 1 "$L/c.txt")"
      cat $L/c/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch" | head -n 8
      GCONV_GPU_TEST_FILTER="$F" GCONV_GPU_TEST_SAMPLE=2 SANITIZE=memcheck LOG_DIR=$L/san \
        timeout -k 5 80 scripts/gpu-test .device 'Pools/PoolCorrectness*bf16_2d' > "$L/san.txt" 2>&1
      echo "memcheck: $(tail -n 1 "$L/san.txt") | $(cat $L/san/*.log 2>/dev/null | grep -h 'ERROR SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      timeout -k 10 "${PW_AB_S:-150}" .device/gconv bench --problems "${PW_PROBLEMS:-.device/pw.jsonl}" --pairs .device/pw_pairs.csv \
        --provider gconv,cudnn --out /tmp/pw_ab.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" \
        --progress-s 60 2> "$OUT/pw_ab_bench.log"
      echo "pw bench rc=$?"; grep -v ETA "$OUT/pw_ab_bench.log" | tail -n 2
      pack /tmp/pw_ab.csv "$OUT/pw_ab.csv.zst"
      tar -czf "$OUT/pw_logs.tar.gz" -C /tmp pwlogs ;;
    smoke)
      # After a kernel change: every GPU test on SMOKE_SAMPLE (default 2) kernels per pool, then the
      # kernels of SMOKE_FILTER (default the wgmma kernels with their own staging area) on SMOKE_SAMPLE2
      # (default 8) per pool with the grid capped at 3 blocks (several tiles per block).
      L=/tmp/smokelogs; mkdir -p $L/all $L/f
      TEST_TIMEOUT_S=150 GCONV_GPU_TEST_SAMPLE=${SMOKE_SAMPLE:-2} LOG_DIR=$L/all timeout -k 5 "${SMOKE_S:-240}" \
        scripts/gpu-test .device > "$L/all.txt" 2>&1
      echo "all GPU tests (sample ${SMOKE_SAMPLE:-2}): $(tail -n 1 "$L/all.txt")"
      cat $L/all/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch| on " | head -n 12
      GCONV_WGMMA_PERSISTENT=3 TEST_TIMEOUT_S=150 GCONV_GPU_TEST_SAMPLE=${SMOKE_SAMPLE2:-8} LOG_DIR=$L/f \
        GCONV_GPU_TEST_FILTER="${SMOKE_FILTER:-family==wgmma && split_mode==none && ((tile_m>=128 && tile_n>=128) || (tile_m==64 && tile_n==256) || (tile_m==256 && tile_n==64))}" \
        timeout -k 5 180 scripts/gpu-test .device 'Pools/PoolCorrectness*' > "$L/f.txt" 2>&1
      echo "filtered kernels, grid capped at 3: $(tail -n 1 "$L/f.txt")"
      cat $L/f/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat $L/f/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch|wgmma_.* on " | head -n 12
      tar -czf "$OUT/smoke_logs.tar.gz" -C /tmp smokelogs ;;
    retime)
      for f in rt_pairs rt_problems; do [ -f .device/$f.csv.zst ] && .device/zstd -dqf .device/$f.csv.zst -o .device/$f.csv; done
      echo "retime: $(($(wc -l < .device/rt_pairs.csv) - 1)) pairs, $(($(wc -l < .device/rt_problems.csv) - 1)) problems"
      timeout -k 10 "${RT_S:-540}" .device/gconv bench --problems .device/rt_problems.csv --pairs .device/rt_pairs.csv \
        --out /tmp/rt.csv --warmup 1 --repeats 5 --check none --timeout-s 60 --progress-s 60 --jobs "$ncpu" \
        2> "$OUT/rt_bench.log"
      echo "retime bench rc=$?"; tail -n 2 "$OUT/rt_bench.log"; echo "rows: $(wc -l < /tmp/rt.csv)"
      pack /tmp/rt.csv "$OUT/rt_rows.csv.zst" ;;
    candrows)
      filt=${CAND_FILTER:-family==wgmma || window_w > 0}
      for dt in bf16 fp16 fp32; do
        .device/zstd -dqc data/sweeps/h200_${dt}_train.csv.zst | python3 bench/sweep_problems.py > /tmp/cand_$dt.csv
        .device/gconv select --problems /tmp/cand_$dt.csv --policy analytic --top "${CAND_TOP:-12}" --filter "$filt" \
          --json > /tmp/cand_$dt.jsonl 2> "$OUT/cand_select_$dt.log"
      done
      python3 bench/sweep_problems.py --expand-directions < problems/train_odd.csv > /tmp/cand_odd.csv
      : > /tmp/cand_odd.jsonl  # ODD_TOP=0: no train_odd rows
      [ "${ODD_TOP:-24}" != 0 ] && .device/gconv select --problems /tmp/cand_odd.csv --policy analytic --top "${ODD_TOP:-24}" \
        --json > /tmp/cand_odd.jsonl 2> "$OUT/cand_select_odd.log"
      cat /tmp/cand_bf16.jsonl /tmp/cand_fp16.jsonl /tmp/cand_fp32.jsonl /tmp/cand_odd.jsonl | python3 bench/sweep_problems.py --pairs > /tmp/cand_pairs.csv
      (head -n 1 /tmp/cand_bf16.csv; tail -q -n +2 /tmp/cand_bf16.csv /tmp/cand_fp16.csv /tmp/cand_fp32.csv /tmp/cand_odd.csv) > /tmp/cand_problems.csv
      echo "candrows: $(($(wc -l < /tmp/cand_pairs.csv) - 1)) pairs, $(($(wc -l < /tmp/cand_problems.csv) - 1)) problems"
      timeout -k 10 "${CAND_S:-420}" .device/gconv bench --problems /tmp/cand_problems.csv --pairs /tmp/cand_pairs.csv \
        --out /tmp/cand.csv --warmup 1 --repeats 5 --check none --timeout-s 60 --progress-s 60 --jobs "$ncpu" \
        2> "$OUT/cand_bench.log"
      echo "cand bench rc=$?"; tail -n 2 "$OUT/cand_bench.log"; echo "rows: $(wc -l < /tmp/cand.csv)"
      pack /tmp/cand.csv "$OUT/cand_rows.csv.zst" ;;
    tccheck)
      .device/gconv build --direction bwd_data --filter 'family==tinyc' --jobs "$ncpu" > "$OUT/tc_build.txt" 2>&1
      .device/gconv build --direction bwd_data --dtype fp16 --filter 'family==tinyc' --jobs "$ncpu" >> "$OUT/tc_build.txt" 2>&1
      grep -v '^  ' "$OUT/tc_build.txt" | tail -n 3
      echo "smoke: $(timeout -k 5 90 .device/gconv run bwd_data_bf16_n32c3k64g1_h224w224_y7x7_s2_p3_dil1 --policy exhaustive \
        --check --filter 'family==tinyc' 2>&1 | grep -E 'kernel|time|check|rror' | tr '\n' ' ' | cut -c1-400)"
      mkdir -p /tmp/tclogs
      TEST_TIMEOUT_S=200 GCONV_GPU_TEST_FAMILY=tinyc LOG_DIR=/tmp/tclogs scripts/gpu-test .device 'Pools/PoolCorrectness*bwd_data*' \
        > "$OUT/tc_tests.txt" 2>&1; tail -n 1 "$OUT/tc_tests.txt"
      cat /tmp/tclogs/*.log > /tmp/tc_tests.log; grep -h "^TALLY" /tmp/tc_tests.log | grep -v "kernels=0" | sort
      grep -h -E "Failure|failed|crash|mismatch|tinyc_.* on " /tmp/tc_tests.log | head -n 20
      for tool in memcheck racecheck synccheck; do
        mkdir -p /tmp/tsan_$tool
        GCONV_GPU_TEST_FAMILY=tinyc GCONV_GPU_TEST_SAMPLE=3 SANITIZE=$tool LOG_DIR=/tmp/tsan_$tool \
          scripts/gpu-test .device 'Pools/PoolCorrectness*bwd_data_bf16_2d*' > "$OUT/tsan_$tool.txt" 2>&1
        echo "$tool: $(tail -n 1 "$OUT/tsan_$tool.txt") | $(cat /tmp/tsan_$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done
      python3 -c "import json; l=[x for x in open('problems/cudnn_public_h200.jsonl') if x.strip()]; \
        open('/tmp/tc.jsonl','w').write(''.join(x for x in l if 'about' in json.loads(x) or \
        (json.loads(x)['direction'] == 'bwd_data' and json.loads(x)['C'] <= 8)))"
      timeout -k 10 "${TC_S:-200}" .device/gconv bench --problems /tmp/tc.jsonl --provider gconv,cudnn \
        --filter "${TC_FILTER:-family==tinyc || (family==igemm && tile_n<=32) || (family==wgmma && tile_n<=64)}" \
        --out /tmp/tc.csv --warmup 3 --repeats 9 --jobs "$ncpu" 2> "$OUT/tc_bench.log"
      echo "tc bench rc=$?"; tail -n 1 "$OUT/tc_bench.log"; pack /tmp/tc.csv "$OUT/tc.csv.zst"
      python3 - <<'PY'
import csv, collections
best = collections.defaultdict(dict)
for r in csv.DictReader(open('/tmp/tc.csv')):
    if r['status'] != 'ok': continue
    fam = r['provider'] if r['provider'] != 'gconv' else r['family']
    t = float(r['latency_ms'])
    if t < best[r['spec']].get(fam, (9e9,))[0]: best[r['spec']][fam] = (t, r['kernel'])
for s, b in sorted(best.items()):
    print(s, ' '.join('%s=%.4f' % (f, v[0]) for f, v in sorted(b.items())), b.get('tinyc', (0, ''))[1])
PY
      ;;
    clcheck)
      export GCONV_GPU_TEST_FILTER="${CL_FILTER:-split_mode == cluster}"
      for dt in bf16 fp16; do
        .device/gconv build --direction all --dtype $dt --filter "family==wgmma && $GCONV_GPU_TEST_FILTER" \
          --jobs "$ncpu" >> "$OUT/cl_build.txt" 2>&1
      done
      grep -v '^  ' "$OUT/cl_build.txt" | tail -n 4
      for spec in fwd_bf16_n8c512k256_h7w7_y3x3_p1 bwd_data_bf16_n8c256k512_h7w7_y3x3_p1 \
                  bwd_weight_bf16_n32c256k256_h14w14_y3x3_p1; do
        echo "smoke $spec: $(timeout -k 5 90 .device/gconv run "$spec" --policy exhaustive --check \
          --filter "family==wgmma && $GCONV_GPU_TEST_FILTER" 2>&1 | grep -E 'kernel|time|check|rror' | tr '\n' ' ' | cut -c1-400) rc=$?"
      done
      mkdir -p /tmp/cllogs
      TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-300} GCONV_GPU_TEST_FAMILY=wgmma LOG_DIR=/tmp/cllogs \
        scripts/gpu-test .device 'Pools/PoolCorrectness*' > "$OUT/cl_tests.txt" 2>&1; tail -n 1 "$OUT/cl_tests.txt"
      cat /tmp/cllogs/*.log > /tmp/cl_tests.log; gzip -c /tmp/cl_tests.log > "$OUT/cl_tests.log.gz"
      grep -h "^TALLY" /tmp/cl_tests.log | sort; grep -h -E "Failure|failed|crash|mismatch" /tmp/cl_tests.log | head -n 20
      for tool in ${CL_SAN:-memcheck racecheck synccheck}; do
        mkdir -p /tmp/csan_$tool
        GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool LOG_DIR=/tmp/csan_$tool \
          scripts/gpu-test .device 'Pools/PoolCorrectness.*bf16_2d' > "$OUT/csan_$tool.txt" 2>&1
        echo "$tool: $(tail -n 1 "$OUT/csan_$tool.txt") | $(cat /tmp/csan_$tool/*.log 2>/dev/null | grep -h 'ERROR SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done ;;
    persist)
      mkdir -p /tmp/pslogs
      GCONV_WGMMA_PERSISTENT=3 TEST_TIMEOUT_S=300 GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_SAMPLE=${PERSIST_SAMPLE:-20} \
        LOG_DIR=/tmp/pslogs scripts/gpu-test .device 'Pools/PoolCorrectness*' > "$OUT/persist_tests.txt" 2>&1
      tail -n 1 "$OUT/persist_tests.txt"; cat /tmp/pslogs/*.log | gzip > "$OUT/persist_tests.log.gz"
      zcat "$OUT/persist_tests.log.gz" | grep -h "^TALLY" | grep -v "kernels=0" | sort | head -n 30
      zcat "$OUT/persist_tests.log.gz" | grep -h -E "Failure|failed|crash|mismatch" | head -n 20
      for tool in ${PERSIST_SAN:-memcheck racecheck synccheck}; do
        mkdir -p /tmp/psan_$tool
        GCONV_WGMMA_PERSISTENT=3 GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool LOG_DIR=/tmp/psan_$tool \
          scripts/gpu-test .device 'Pools/PoolCorrectness.*bf16_2d*' > "$OUT/psan_$tool.txt" 2>&1
        echo "$tool: $(tail -n 1 "$OUT/psan_$tool.txt") | $(cat /tmp/psan_$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done
      grep -v '^#' problems/cudnn_public_h200.jsonl > /tmp/pub.jsonl
      for mode in 0 on 0b; do
        ( [ "$mode" = on ] && unset GCONV_WGMMA_PERSISTENT || export GCONV_WGMMA_PERSISTENT=0
          timeout -k 10 "${PERSIST_S:-150}" .device/gconv bench --problems /tmp/pub.jsonl --pairs .device/persist_pairs_wg.csv \
            --out /tmp/ps_$mode.csv --warmup 2 --repeats "${REPEATS:-5}" --jobs "$ncpu" 2> "$OUT/ps_${mode}_stderr.log" )
        echo "persist bench $mode rc=$?: $(tail -n 1 "$OUT/ps_${mode}_stderr.log")"
      done
      timeout -k 10 "${PERSIST_S:-150}" .device/gconv bench --problems /tmp/pub.jsonl --pairs .device/persist_pairs_other.csv \
        --out /tmp/ps_other.csv --warmup 2 --repeats "${REPEATS:-5}" --jobs "$ncpu" 2> "$OUT/ps_other_stderr.log"
      echo "other bench rc=$?: $(tail -n 1 "$OUT/ps_other_stderr.log")"
      for mode in 0 on 0b; do tail -n +2 /tmp/ps_other.csv >> /tmp/ps_$mode.csv; pack /tmp/ps_$mode.csv "$OUT/ps_$mode.csv.zst"; done
      python3 bench/ab_sweeps.py --a /tmp/ps_0.csv --b /tmp/ps_on.csv --label-a tile --label-b persistent --family wgmma | tee "$OUT/ab.txt"
      python3 bench/ab_sweeps.py --a /tmp/ps_0.csv --b /tmp/ps_0b.csv --label-a tile --label-b tile_again --family wgmma | tee "$OUT/ab_noise.txt"
      if [ "${CUDNN:-1}" != 0 ]; then
        PYTHONUNBUFFERED=1 python3 bench/cudnn_torch.py --problems /tmp/pub.jsonl \
          --out "$OUT/cudnn_torch.jsonl" --gemm-gflop 5 --modes "${CUDNN_MODES:-exh}" 2> "$OUT/cudnn.log"
        for mode in 0 on; do
          python3 bench/compare_cudnn.py --sweep /tmp/ps_$mode.csv --cudnn "$OUT/cudnn_torch.jsonl" --by-family \
            --per-problem "$OUT/compare_$mode.csv" > "$OUT/compare_$mode.txt"
        done
        tail -n 45 "$OUT/compare_on.txt"; grep -A5 "cuBLAS" "$OUT/compare_0.txt"
      fi ;;
    quick)
      # At most 8 files come back: the small logs go to $L, packed into one archive at the end.
      L=/tmp/qlogs; mkdir -p /tmp/qtc /tmp/qwg /tmp/qsan $L
      TEST_TIMEOUT_S=80 GCONV_GPU_TEST_FAMILY=tinyc LOG_DIR=/tmp/qtc timeout -k 5 90 \
        scripts/gpu-test .device 'Pools/PoolCorrectness*bwd_data*' > "$L/q_tc_tests.txt" 2>&1
      echo "tinyc tests: $(tail -n 1 "$L/q_tc_tests.txt")"
      cat /tmp/qtc/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat /tmp/qtc/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch|tinyc_.* on " | head -n 12
      GCONV_WGMMA_PERSISTENT=3 TEST_TIMEOUT_S=60 GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_SAMPLE=${QUICK_SAMPLE:-8} \
        LOG_DIR=/tmp/qwg timeout -k 5 110 scripts/gpu-test .device 'Pools/PoolCorrectness*bf16*' > "$L/q_wg_tests.txt" 2>&1
      echo "wgmma tests (grid <= 3 blocks): $(tail -n 1 "$L/q_wg_tests.txt")"
      cat /tmp/qwg/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat /tmp/qwg/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch" | head -n 12
      cat /tmp/qtc/*.log /tmp/qwg/*.log 2>/dev/null | gzip > "$OUT/q_tests.log.gz"
      grep -v '^#' problems/cudnn_public_h200.jsonl > /tmp/pub.jsonl
      for mode in 0 on; do
        ( [ "$mode" = on ] && unset GCONV_WGMMA_PERSISTENT || export GCONV_WGMMA_PERSISTENT=0
          timeout -k 5 "${QUICK_AB_S:-45}" .device/gconv bench --problems /tmp/pub.jsonl --pairs .device/quick_pairs_wg.csv \
            --out /tmp/q_$mode.csv --warmup 2 --repeats 5 --jobs "$ncpu" 2> "$L/q_${mode}_stderr.log" )
        echo "A/B bench $mode rc=$?: $(tail -n 1 "$L/q_${mode}_stderr.log")"
        pack /tmp/q_$mode.csv "$OUT/q_$mode.csv.zst"
      done
      python3 bench/ab_sweeps.py --a /tmp/q_0.csv --b /tmp/q_on.csv --label-a tile --label-b persistent --family wgmma | tee "$L/q_ab.txt"
      python3 -c "import json; l=[x for x in open('problems/cudnn_public_h200.jsonl') if x.strip()]; \
        open('/tmp/tc.jsonl','w').write(''.join(x for x in l if 'about' in json.loads(x) or \
        (json.loads(x)['direction'] == 'bwd_data' and json.loads(x)['C'] <= 8)))"
      timeout -k 5 "${QUICK_TC_S:-30}" .device/gconv bench --problems /tmp/tc.jsonl --provider gconv,cudnn --filter 'family==tinyc' \
        --out /tmp/q_tc.csv --warmup 3 --repeats 9 --jobs "$ncpu" 2> "$L/q_tc_stderr.log"
      echo "tinyc bench rc=$?: $(tail -n 1 "$L/q_tc_stderr.log")"; gzip -c /tmp/q_tc.csv > "$OUT/q_tc.csv.gz"
      # Large problems on the default persistent grid (more tiles than the device holds), each
      # against the naive GPU kernel: the analytic policy's wgmma pick, unsplit, one TMA one not.
      for st in 'fwd_bf16_n32c256k256_h56w56_y3x3_p1 tma' 'bwd_data_bf16_n32c128k128_h56w56_y3x3_s2_p1 !tma' \
                'bwd_weight_bf16_n32c256k256_h56w56_y3x3_p1 !tma' 'bwd_data_bf16_n32c256k64_h56w56_y1x1 tma'; do
        set -- $st
        echo "run $1 [$2]: $(timeout -k 5 25 .device/gconv run "$1" --policy analytic --check --repeats 5 \
          --filter "family==wgmma && split_k==1 && $2" 2>&1 | grep -E 'kernel|check|rror' | tr '\n' ' ' | cut -c1-300)"
      done
      GCONV_WGMMA_PERSISTENT=3 GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_SAMPLE=2 SANITIZE=memcheck LOG_DIR=/tmp/qsan \
        timeout -k 5 40 scripts/gpu-test .device 'Pools/PoolCorrectness*fwd_bf16_2d*' > "$L/q_san.txt" 2>&1
      GCONV_GPU_TEST_FAMILY=tinyc GCONV_GPU_TEST_SAMPLE=2 SANITIZE=memcheck LOG_DIR=/tmp/qsan \
        timeout -k 5 30 scripts/gpu-test .device 'Pools/PoolCorrectness*bwd_data_bf16*' >> "$L/q_san.txt" 2>&1
      echo "memcheck: $(grep gpu-test "$L/q_san.txt" | tr '\n' ' ') | $(cat /tmp/qsan/*.log 2>/dev/null | grep -h 'ERROR SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      tar -czf "$OUT/q_logs.tar.gz" -C /tmp qlogs ;;
    quick2)
      L=/tmp/q2logs; mkdir -p $L
      for mode in 0 on 0b; do
        ( [ "$mode" = on ] && unset GCONV_WGMMA_PERSISTENT || export GCONV_WGMMA_PERSISTENT=0
          timeout -k 5 "$([ $mode = 0 ] && echo 55 || echo 40)" .device/gconv bench --problems .device/train_ab_problems.txt \
            --pairs .device/train_pairs_wg.csv --out /tmp/t_$mode.csv --warmup 2 --repeats 5 --jobs "$ncpu" 2> "$L/t_${mode}_stderr.log" )
        echo "A/B train $mode rc=$?: $(tail -n 1 "$L/t_${mode}_stderr.log")"
        pack /tmp/t_$mode.csv "$OUT/t_$mode.csv.zst"
      done
      python3 bench/ab_sweeps.py --a /tmp/t_0.csv --b /tmp/t_on.csv --label-a tile --label-b persistent --family wgmma | tee "$L/t_ab.txt"
      python3 bench/ab_sweeps.py --a /tmp/t_0.csv --b /tmp/t_0b.csv --label-a tile --label-b tile_again --family wgmma | head -n 6 | tee "$L/t_noise.txt"
      for tool in memcheck racecheck synccheck; do
        mkdir -p $L/tc_$tool
        GCONV_GPU_TEST_FAMILY=tinyc GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool LOG_DIR=$L/tc_$tool timeout -k 5 45 \
          scripts/gpu-test .device 'Pools/PoolCorrectness*bwd_data_bf16_2d:Pools/PoolCorrectness*bwd_data_bf16_3d' > "$L/tc_$tool.txt" 2>&1
        echo "tinyc $tool: $(tail -n 1 "$L/tc_$tool.txt") | $(cat $L/tc_$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done
      mkdir -p $L/wg_racecheck
      GCONV_WGMMA_PERSISTENT=3 GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_SAMPLE=2 SANITIZE=racecheck LOG_DIR=$L/wg_racecheck \
        timeout -k 5 45 scripts/gpu-test .device 'Pools/PoolCorrectness*fwd_bf16_2d*' > "$L/wg_racecheck.txt" 2>&1
      echo "wgmma racecheck (grid <= 3): $(tail -n 1 "$L/wg_racecheck.txt") | $(cat $L/wg_racecheck/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      tar -czf "$OUT/q2_logs.tar.gz" -C /tmp q2logs ;;
    fixup1)
      L=/tmp/fxlogs; mkdir -p $L/bf16 $L/gc
      LOG_DIR=$L/gc timeout -k 5 90 scripts/gpu-test .device 'Launches/GraphCapture*' > "$L/gc.txt" 2>&1
      echo "graph capture: $(tail -n 1 "$L/gc.txt")"; cat $L/gc/*.log | grep -h -E "Failure|Expected|Which is|nodes" | head -n 20
      TEST_TIMEOUT_S=170 GCONV_GPU_TEST_FILTER='split_mode == serial' GCONV_GPU_TEST_SAMPLE=${FIX_BF16_SAMPLE:-40} \
        LOG_DIR=$L/bf16 timeout -k 5 "${FIX_T_S:-190}" scripts/gpu-test .device 'Pools/PoolCorrectness*bf16*' > "$L/bf16.txt" 2>&1
      echo "serial bf16 tests: $(tail -n 1 "$L/bf16.txt")"
      cat $L/bf16/*.log | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat $L/bf16/*.log | grep -h -E "Failure|failed|crash|mismatch|_sk[0-9]+s_.* on " | head -n 12
      tar -czf "$OUT/fx1_logs.tar.gz" -C /tmp fxlogs
      ab_env GCONV_SPLITK_FIXUP fx fixup "$OUT" "${FIX_S:-130}" "${REPEATS:-5}" .device/fixup_pairs.csv
      python3 bench/ab_sweeps.py --a /tmp/fx_0.csv --b /tmp/fx_on.csv --label-a three_launches --label-b fixup \
        --match '_sk[0-9]+s_' | tee "$OUT/ab_serial.txt"
      python3 bench/ab_sweeps.py --a /tmp/fx_0.csv --b /tmp/fx_on.csv --label-a three_launches --label-b fixup \
        | tee "$OUT/ab_all.txt" ;;
    fixup2)
      L=/tmp/fx2logs
      GCONV_WGMMA_PERSISTENT=3 TEST_TIMEOUT_S=120 GCONV_GPU_TEST_FILTER='split_mode == serial && family == wgmma' \
        GCONV_GPU_TEST_SAMPLE=${FIX_CAP_SAMPLE:-12} gpu_tests "serial wgmma, grid capped at 3" $L/cap 130 'Pools/PoolCorrectness*bf16*'
      TEST_TIMEOUT_S=80 GCONV_GPU_TEST_FILTER='split_mode == serial' GCONV_GPU_TEST_SAMPLE=${FIX_FP16_SAMPLE:-6} \
        gpu_tests "serial fp16 tests" $L/fp16 100 'Pools/PoolCorrectness*fp16*'
      for tool in memcheck synccheck racecheck; do
        mkdir -p $L/san_$tool
        GCONV_GPU_TEST_FILTER='split_mode == serial' GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool LOG_DIR=$L/san_$tool \
          timeout -k 5 "${FIX_SAN_S:-80}" scripts/gpu-test .device 'Pools/PoolCorrectness*bf16_2d' > "$L/san_$tool.txt" 2>&1
        echo "$tool: $(tail -n 1 "$L/san_$tool.txt") | $(cat $L/san_$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done
      tar -czf "$OUT/fx2_logs.tar.gz" -C /tmp fx2logs ;;
    fixdirect)
      L=/tmp/fdlogs; mkdir -p $L/t $L/gc
      LOG_DIR=$L/gc timeout -k 5 90 scripts/gpu-test .device 'Launches/GraphCapture*' > "$L/gc.txt" 2>&1
      echo "graph capture: $(tail -n 1 "$L/gc.txt")"; cat $L/gc/*.log | grep -h -E "Failure|Expected|Which is|nodes" | head -n 20
      TEST_TIMEOUT_S=90 GCONV_GPU_TEST_FAMILY=direct GCONV_GPU_TEST_FILTER='window_w==0 && !deterministic' \
        GCONV_GPU_TEST_SAMPLE=${FIXD_SAMPLE:-16} LOG_DIR=$L/t timeout -k 5 120 scripts/gpu-test .device \
        'Pools/PoolCorrectness*bwd_weight*' > "$L/t.txt" 2>&1
      echo "direct bwd_weight tests: $(tail -n 1 "$L/t.txt")"
      cat $L/t/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat $L/t/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch|direct_.* on " | head -n 12
      for tool in memcheck racecheck; do
        mkdir -p $L/san_$tool
        GCONV_GPU_TEST_FAMILY=direct GCONV_GPU_TEST_FILTER='window_w==0 && !deterministic' GCONV_GPU_TEST_SAMPLE=2 \
          SANITIZE=$tool LOG_DIR=$L/san_$tool timeout -k 5 60 scripts/gpu-test .device \
          'Pools/PoolCorrectness*bwd_weight_bf16_2d' > "$L/san_$tool.txt" 2>&1
        echo "$tool: $(tail -n 1 "$L/san_$tool.txt") | $(cat $L/san_$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done
      for mode in 0 on; do
        ( [ "$mode" = on ] && unset GCONV_SPLITK_FIXUP || export GCONV_SPLITK_FIXUP=0
          timeout -k 5 70 .device/gconv bench --problems .device/wgrad_pub.jsonl \
            --filter 'family==direct && window_w==0 && !deterministic' --out /tmp/fd_$mode.csv --warmup 2 --repeats 7 \
            --check none --jobs "$ncpu" 2> "$L/fd_${mode}_stderr.log" )
        echo "direct bench $mode rc=$?: $(tail -n 1 "$L/fd_${mode}_stderr.log")"
        pack /tmp/fd_$mode.csv "$OUT/fd_$mode.csv.zst"
      done
      python3 bench/ab_sweeps.py --a /tmp/fd_0.csv --b /tmp/fd_on.csv --label-a three_launches --label-b fixup \
        | tee "$OUT/ab_direct.txt"
      tar -czf "$OUT/fd_logs.tar.gz" -C /tmp fdlogs ;;
    deep)
      L=/tmp/dplogs; mkdir -p $L/t $L/h
      TEST_TIMEOUT_S=150 GCONV_GPU_TEST_FILTER='family==wgmma && split_k >= 64' LOG_DIR=$L/t timeout -k 5 170 \
        scripts/gpu-test .device 'Pools/PoolCorrectness*bwd_weight_bf16*' > "$L/t.txt" 2>&1
      echo "deep-split bf16 tests: $(tail -n 1 "$L/t.txt")"
      cat $L/t/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat $L/t/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch|wgmma_.* on " | head -n 12
      TEST_TIMEOUT_S=80 GCONV_GPU_TEST_FILTER='family==wgmma && split_k >= 64' GCONV_GPU_TEST_SAMPLE=${DEEP_FP16:-3} \
        LOG_DIR=$L/h timeout -k 5 90 scripts/gpu-test .device 'Pools/PoolCorrectness*bwd_weight_fp16*' > "$L/h.txt" 2>&1
      echo "deep-split fp16 tests: $(tail -n 1 "$L/h.txt")"
      cat $L/h/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      timeout -k 5 "${DEEP_OLD_S:-150}" .device/gconv bench --problems .device/bw_pub.jsonl --pairs .device/bw_pairs.csv \
        --provider gconv,cudnn --out /tmp/dp_old.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2> "$L/old_stderr.log"
      echo "old pairs + cuDNN rc=$?: $(tail -n 1 "$L/old_stderr.log")"
      timeout -k 5 "${DEEP_NEW_S:-120}" .device/gconv bench --problems .device/bw_pub.jsonl \
        --filter 'family==wgmma && split_k >= 64' --out /tmp/dp_new.csv --warmup 2 --repeats 7 --jobs "$ncpu" \
        2> "$L/new_stderr.log"
      echo "new kernels rc=$?: $(tail -n 1 "$L/new_stderr.log")"
      cp /tmp/dp_old.csv /tmp/dp_all.csv; tail -n +2 /tmp/dp_new.csv >> /tmp/dp_all.csv
      python3 bench/best_by_label.py --baseline cudnn before=/tmp/dp_old.csv deep=/tmp/dp_new.csv with_deep=/tmp/dp_all.csv \
        cudnn=/tmp/dp_old.csv:cudnn --per-problem "$OUT/deep_per_problem.csv" | tee "$OUT/deep_report.txt"
      for f in old new; do pack /tmp/dp_$f.csv "$OUT/dp_$f.csv.zst"; done
      tar -czf "$OUT/dp_logs.tar.gz" -C /tmp dplogs ;;
    episep)
      L=/tmp/eslogs; mkdir -p $L/c $L/d
      F=${ES_FILTER:-'family==wgmma && split_k == 1 && tile_m >= 128 && tile_n >= 128'}
      GCONV_WGMMA_PERSISTENT=3 TEST_TIMEOUT_S=150 GCONV_GPU_TEST_FILTER="$F" GCONV_GPU_TEST_SAMPLE=${ES_SAMPLE:-10} \
        LOG_DIR=$L/c timeout -k 5 180 scripts/gpu-test .device 'Pools/PoolCorrectness*' > "$L/c.txt" 2>&1
      echo "kEpiSep-eligible wgmma, grid capped at 3: $(tail -n 1 "$L/c.txt")"
      cat $L/c/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat $L/c/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch|wgmma_.* on " | head -n 12
      TEST_TIMEOUT_S=100 GCONV_GPU_TEST_FILTER="$F" GCONV_GPU_TEST_SAMPLE=6 LOG_DIR=$L/d timeout -k 5 110 \
        scripts/gpu-test .device 'Pools/PoolCorrectness*bf16*' > "$L/d.txt" 2>&1
      echo "default grid: $(tail -n 1 "$L/d.txt")"
      cat $L/d/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch" | head -n 8
      for tool in ${ES_SAN-memcheck racecheck synccheck}; do
        mkdir -p $L/san_$tool
        GCONV_WGMMA_PERSISTENT=3 GCONV_GPU_TEST_FILTER="$F" GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool LOG_DIR=$L/san_$tool \
          timeout -k 5 70 scripts/gpu-test .device 'Pools/PoolCorrectness*bf16_2d' > "$L/san_$tool.txt" 2>&1
        echo "$tool: $(tail -n 1 "$L/san_$tool.txt") | $(cat $L/san_$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done
      ab_env "${ES_VAR:-GCONV_WGMMA_PERSISTENT}" es episep "$L" "${ES_S:-100}" "${REPEATS:-7}" .device/sep_pairs.csv \
        "${ES_VA:-0}" "${ES_VB:-}"
      la=${ES_LA:-tile} lb=${ES_LB:-persistent_sep}
      python3 bench/ab_sweeps.py --a /tmp/es_0.csv --b /tmp/es_on.csv --label-a "$la" --label-b "$lb" \
        --kernels-file .device/sep_names.txt | tee "$OUT/ab_sep.txt"
      python3 bench/ab_sweeps.py --a /tmp/es_0.csv --b /tmp/es_on.csv --label-a "$la" --label-b "$lb" \
        | tee "$OUT/ab_sep_all.txt"
      tar -czf "$OUT/es_logs.tar.gz" -C /tmp eslogs ;;
    gtests)
      L=/tmp/gtlogs; mkdir -p $L/dir $L/odd $L/all $L/san
      TEST_TIMEOUT_S=60 GCONV_GPU_TEST_FAMILY=direct GCONV_GPU_TEST_FILTER='window_w==0' \
        GCONV_GPU_TEST_SAMPLE=${G_DIRECT_SAMPLE:-16} LOG_DIR=$L/dir timeout -k 5 "${G_DIRECT_S:-190}" \
        scripts/gpu-test .device 'Pools/PoolCorrectness*' > "$L/dir.txt" 2>&1
      echo "direct tests: $(tail -n 1 "$L/dir.txt")"
      cat $L/dir/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat $L/dir/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch|direct_.* on " | head -n 12
      TEST_TIMEOUT_S=60 GCONV_GPU_TEST_FILTER='family==igemm && vec < 8 && split_k <= 4' LOG_DIR=$L/odd \
        timeout -k 5 80 scripts/gpu-test .device 'Pools/PoolCorrectness*bwd_weight*' > "$L/odd.txt" 2>&1
      echo "odd-channel igemm bwd_weight tests: $(tail -n 1 "$L/odd.txt")"
      cat $L/odd/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat $L/odd/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch|igemm_.* on " | head -n 8
      TEST_TIMEOUT_S=60 GCONV_GPU_TEST_SAMPLE=${G_ALL_SAMPLE:-2} LOG_DIR=$L/all timeout -k 5 "${G_ALL_S:-170}" \
        scripts/gpu-test .device > "$L/all.txt" 2>&1
      echo "all GPU tests (sample ${G_ALL_SAMPLE:-2}): $(tail -n 1 "$L/all.txt")"
      cat $L/all/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch| on " | head -n 12
      for tool in memcheck racecheck; do
        mkdir -p $L/san/$tool
        GCONV_GPU_TEST_FAMILY=direct GCONV_GPU_TEST_FILTER='window_w==0' GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool \
          LOG_DIR=$L/san/$tool timeout -k 5 60 scripts/gpu-test .device \
          'Pools/PoolCorrectness*fwd_bf16_2d:Pools/PoolCorrectness*bwd_weight_bf16_2d:Pools/PoolCorrectness*bwd_data_bf16_3d' \
          > "$L/san_$tool.txt" 2>&1
        echo "direct $tool: $(tail -n 1 "$L/san_$tool.txt") | $(cat $L/san/$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done
      tar -czf "$OUT/gt_logs.tar.gz" -C /tmp gtlogs ;;
    gbench)
      L=/tmp/gblogs; mkdir -p $L
      for mode in 0 on; do
        ( [ "$mode" = on ] && unset GCONV_DIRECT_GROUPED || export GCONV_DIRECT_GROUPED=0
          timeout -k 5 "${GB_S:-70}" .device/gconv bench --problems .device/grouped_pub.jsonl --filter 'family==direct && window_w==0' \
            --out /tmp/g_$mode.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2> "$L/g_${mode}_stderr.log" )
        echo "direct bench grouped=$mode rc=$?: $(tail -n 1 "$L/g_${mode}_stderr.log")"
      done
      timeout -k 5 60 .device/gconv bench --problems .device/grouped_pub.jsonl --pairs .device/grouped_pairs.csv \
        --provider gconv,cudnn --out /tmp/g_gemm.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2> "$L/g_gemm_stderr.log"
      echo "gemm pairs + cudnn rc=$?: $(tail -n 1 "$L/g_gemm_stderr.log")"
      python3 bench/best_by_label.py --baseline cudnn direct_before=/tmp/g_0.csv direct_grouped=/tmp/g_on.csv \
        gemm=/tmp/g_gemm.csv cudnn=/tmp/g_gemm.csv:cudnn --per-problem $L/g_per_problem.csv | tee $L/g_report.txt
      timeout -k 5 50 .device/gconv bench --problems .device/oddch_pub.jsonl --filter 'family==igemm && vec < 8' \
        --provider gconv,cudnn --out /tmp/g_odd.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2> "$L/g_odd_stderr.log"
      echo "odd-channel bwd_weight rc=$?: $(tail -n 1 "$L/g_odd_stderr.log")"
      timeout -k 5 30 .device/gconv bench --problems .device/oddch_pub.jsonl --pairs .device/grouped_pairs.csv \
        --out /tmp/g_odd_prev.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2>> "$L/g_odd_stderr.log"
      python3 bench/best_by_label.py --baseline cudnn new_splits=/tmp/g_odd.csv:igemm_ stored_best=/tmp/g_odd_prev.csv \
        cudnn=/tmp/g_odd.csv:cudnn --per-problem $L/g_odd_per_problem.csv | tee $L/g_odd_report.txt
      if [ -s .device/grouped_train.txt ] && nvidia-smi -L | grep -q "${GT_GPU:-H200}"; then
        timeout -k 5 "${GT_S:-120}" .device/gconv bench --problems .device/grouped_train.txt --filter 'family==direct && window_w==0' \
          --out /tmp/g_train.csv --warmup 2 --repeats 5 --jobs "$ncpu" 2> "$L/g_train_stderr.log"
        echo "grouped training rows rc=$?: $(tail -n 1 "$L/g_train_stderr.log")"
        pack /tmp/g_train.csv "$OUT/g_train.csv.zst"
      fi
      for f in g_0 g_on g_gemm g_odd g_odd_prev; do gzip -c /tmp/$f.csv > $L/$f.csv.gz; done
      tar -czf "$OUT/gb_logs.tar.gz" -C /tmp gblogs ;;
    gnew)
      L=/tmp/gnlogs; mkdir -p $L/t $L/san
      F=${GNEW_FILTER:-family==direct && window_w==0 && vec < 8 && vec > 1 && ndim > 1 && (per_thread == 8 || block_w == 32 || block_h == 16 || block_h == 4 || (direction == bwd_weight && (per_thread == 4 || block_w == 8)))}
      TEST_TIMEOUT_S=60 GCONV_GPU_TEST_FILTER="$F" LOG_DIR=$L/t timeout -k 5 150 \
        scripts/gpu-test .device 'Pools/PoolCorrectness*_2d:Pools/PoolCorrectness*_3d' > "$L/t.txt" 2>&1
      echo "new grouped tiles: $(tail -n 1 "$L/t.txt")"
      cat $L/t/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat $L/t/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch|direct_.* on " | head -n 12
      GCONV_GPU_TEST_FILTER="$F" GCONV_GPU_TEST_SAMPLE=2 SANITIZE=memcheck LOG_DIR=$L/san timeout -k 5 50 scripts/gpu-test .device \
        'Pools/PoolCorrectness*fwd_bf16_2d:Pools/PoolCorrectness*bwd_weight_bf16_2d' > "$L/san.txt" 2>&1
      echo "memcheck: $(tail -n 1 "$L/san.txt") | $(cat $L/san/*.log 2>/dev/null | grep -h 'ERROR SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      timeout -k 5 70 .device/gconv bench --problems .device/grouped_pub.jsonl --filter 'family==direct && window_w==0' \
        --out /tmp/gn_dir.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2> "$L/gn_dir_stderr.log"
      echo "direct bench rc=$?: $(tail -n 1 "$L/gn_dir_stderr.log")"
      timeout -k 5 60 .device/gconv bench --problems .device/grouped_pub.jsonl --pairs .device/grouped_pairs.csv \
        --provider gconv,cudnn --out /tmp/gn_gemm.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2> "$L/gn_gemm_stderr.log"
      python3 bench/best_by_label.py --baseline cudnn direct=/tmp/gn_dir.csv gemm=/tmp/gn_gemm.csv cudnn=/tmp/gn_gemm.csv:cudnn \
        --per-problem $L/gn_per_problem.csv | tee $L/gn_report.txt
      timeout -k 5 "${GT_S:-60}" .device/gconv bench --problems .device/grouped_train.txt --filter "$F" \
        --out /tmp/gn_train.csv --warmup 2 --repeats 5 --jobs "$ncpu" 2> "$L/gn_train_stderr.log"
      echo "grouped training rows rc=$?: $(tail -n 1 "$L/gn_train_stderr.log")"
      pack /tmp/gn_train.csv "$OUT/gn_train.csv.zst"
      for f in gn_dir gn_gemm; do gzip -c /tmp/$f.csv > $L/$f.csv.gz; done
      tar -czf "$OUT/gn_logs.tar.gz" -C /tmp gnlogs ;;
    gab)
      L=/tmp/gablogs; mkdir -p $L/t $L/san
      TEST_TIMEOUT_S=60 GCONV_GPU_TEST_FAMILY=direct GCONV_GPU_TEST_FILTER='window_w==0' GCONV_GPU_TEST_SAMPLE=${GAB_SAMPLE:-10} \
        LOG_DIR=$L/t timeout -k 5 150 scripts/gpu-test .device 'Pools/PoolCorrectness*bf16*:Pools/PoolCorrectness*fp32*' > "$L/t.txt" 2>&1
      echo "direct tests: $(tail -n 1 "$L/t.txt")"
      cat $L/t/*.log 2>/dev/null | grep -h "^TALLY" | grep -v "kernels=0" | sort
      cat $L/t/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch|direct_.* on " | head -n 12
      GCONV_GPU_TEST_FAMILY=direct GCONV_GPU_TEST_FILTER='window_w==0' GCONV_GPU_TEST_SAMPLE=2 SANITIZE=memcheck LOG_DIR=$L/san \
        timeout -k 5 50 scripts/gpu-test .device 'Pools/PoolCorrectness*fwd_bf16_2d:Pools/PoolCorrectness*bwd_data_bf16_2d' > "$L/san.txt" 2>&1
      echo "memcheck: $(tail -n 1 "$L/san.txt") | $(cat $L/san/*.log 2>/dev/null | grep -h 'ERROR SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      for nb in ${GAB_WB-1024 2048 4096}; do
        GCONV_DIRECT_WGRAD_BLOCKS=$nb timeout -k 5 60 .device/gconv bench --problems .device/wgrad_pub.jsonl \
          --filter 'family==direct && window_w==0' --out /tmp/wb_$nb.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" \
          2> "$L/wb_${nb}_stderr.log"
        echo "wgrad blocks $nb rc=$?: $(tail -n 1 "$L/wb_${nb}_stderr.log")"
      done
      if [ -f /tmp/wb_4096.csv ]; then
        python3 bench/best_by_label.py --baseline b1024 b1024=/tmp/wb_1024.csv b2048=/tmp/wb_2048.csv b4096=/tmp/wb_4096.csv \
          --per-problem $L/wb_per_problem.csv | tee $L/wb_report.txt
        python3 bench/ab_sweeps.py --a /tmp/wb_1024.csv --b /tmp/wb_2048.csv --label-a b1024 --label-b b2048 --family direct > $L/wb_ab.txt
      fi
      timeout -k 5 70 .device/gconv bench --problems .device/grouped_pub.jsonl --filter 'family==direct && window_w==0' \
        --out /tmp/ga_dir.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2> "$L/ga_dir_stderr.log"
      timeout -k 5 60 .device/gconv bench --problems .device/grouped_pub.jsonl --pairs .device/grouped_pairs.csv \
        --provider gconv,cudnn --out /tmp/ga_gemm.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2> "$L/ga_gemm_stderr.log"
      python3 bench/best_by_label.py --baseline cudnn direct=/tmp/ga_dir.csv gemm=/tmp/ga_gemm.csv cudnn=/tmp/ga_gemm.csv:cudnn \
        --per-problem $L/ga_per_problem.csv | tee $L/ga_report.txt
      if nvidia-smi -L | grep -q "${GT_GPU:-H200}" && [ "${GAB_TRAIN:-1}" = 1 ]; then
        timeout -k 5 "${GT_S:-100}" .device/gconv bench --problems .device/grouped_train.txt --filter 'family==direct && window_w==0' \
          --out /tmp/ga_train.csv --warmup 2 --repeats 5 --jobs "$ncpu" 2> "$L/ga_train_stderr.log"
        echo "grouped training rows rc=$?: $(tail -n 1 "$L/ga_train_stderr.log")"
        pack /tmp/ga_train.csv "$OUT/ga_train.csv.zst"
      fi
      for f in wb_1024 wb_2048 wb_4096 ga_dir ga_gemm; do [ -f /tmp/$f.csv ] && gzip -c /tmp/$f.csv > $L/$f.csv.gz; done
      tar -czf "$OUT/gab_logs.tar.gz" -C /tmp gablogs ;;
    oddbw)
      # bwd_weight with channel counts 8 does not divide: the wgmma vec 4 / 2 kernels' one-launch
      # splits and the igemm realigned kernels (odd C/G: x read in 16-byte vectors from any offset)
      # against the reference with sanitizers, then every applicable kernel and native cuDNN on the
      # public problems of the kind (.device/odd_bw.jsonl), OB_S seconds.
      check_kernels obw wgmma 'direction==bwd_weight && family==wgmma && vec<8 && split_k>1 && split_mode!=parallel' \
        'Pools/PoolCorrectness.*' 'Pools/PoolCorrectness.*/bwd_weight_bf16_*'
      check_kernels obr igemm "${OB_RA_FILTER:-direction==bwd_weight && family==igemm && realign}" \
        'Pools/PoolCorrectness.*' 'Pools/PoolCorrectness.*/bwd_weight_bf16_*'
      rm -f /tmp/obw.csv
      timeout -k 10 "${OB_S:-240}" .device/gconv bench --problems .device/odd_bw.jsonl --provider gconv,cudnn \
        --out /tmp/obw.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/obw_bench.log"
      echo "obw bench rc=$?"; grep -v ETA "$OUT/obw_bench.log" | tail -n 2
      pack /tmp/obw.csv "$OUT/obw.csv.zst" ;;
    stemra)
      # The realigned bwd_weight kernels' run merge (x's X * C elements of a filter row as one run: the
      # C = 3 stems, docs/realign.md): correctness and sanitizers of every realigned bwd_weight kernel,
      # every applicable kernel and native cuDNN on the public stems (.device/stem7.jsonl) and the
      # realigned kernels + cuDNN again on .device/odd_bw.jsonl, then rows of the realigned kernels on
      # .device/sm_train.txt / sm_hold.txt (SMR_S seconds each).
      check_kernels smr igemm 'direction==bwd_weight && family==igemm && realign' \
        'Pools/PoolCorrectness.*' 'Pools/PoolCorrectness.*/bwd_weight_bf16_*'
      rm -f /tmp/stem7.csv /tmp/obra.csv
      timeout -k 10 "${SM_S:-150}" .device/gconv bench --problems .device/stem7.jsonl --provider gconv,cudnn \
        --out /tmp/stem7.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/stem7_bench.log"
      echo "stem7 bench rc=$?"; grep -v ETA "$OUT/stem7_bench.log" | tail -n 2; pack /tmp/stem7.csv "$OUT/stem7.csv.zst"
      timeout -k 10 "${SM_S:-150}" .device/gconv bench --problems .device/odd_bw.jsonl --provider gconv,cudnn --filter realign \
        --out /tmp/obra.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/obra_bench.log"
      echo "obra bench rc=$?"; grep -v ETA "$OUT/obra_bench.log" | tail -n 2; pack /tmp/obra.csv "$OUT/obra.csv.zst"
      bench_rows sm 'direction==bwd_weight && family==igemm && realign' "${SMR_S:-90}" ;;
    ring8)
      # wgmma bwd_weight deep rings (6 / 8 stages, TMA): correctness and sanitizers, then on the public
      # dense bwd_weight problems the TMA producer reads (.device/r8_pub.jsonl: G = 1, C a multiple
      # of 64) every TMA bwd_weight kernel without parallel split, and the shipped model's top R8_TOP
      # (default 8) with native cuDNN beside them, R8_S seconds each.
      check_kernels r8 wgmma 'direction==bwd_weight && family==wgmma && tma && stages>=6' \
        'Pools/PoolCorrectness.*' 'Pools/PoolCorrectness.*/bwd_weight_bf16_*'
      rm -f /tmp/r8_tma.csv /tmp/r8_top.csv
      timeout -k 10 "${R8_S:-200}" .device/gconv bench --problems .device/r8_pub.jsonl --policy "topk:${R8_TOP:-8}" \
        --provider gconv,cudnn --out /tmp/r8_top.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" --progress-s 60 \
        2> "$OUT/r8_top.log"
      echo "r8 top bench rc=$?"; grep -v ETA "$OUT/r8_top.log" | tail -n 4; pack /tmp/r8_top.csv "$OUT/r8_top.csv.zst"
      timeout -k 10 "${R8_S:-200}" .device/gconv bench --problems .device/r8_pub.jsonl \
        --filter 'direction==bwd_weight && family==wgmma && tma && split_mode!=parallel' \
        --out /tmp/r8_tma.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/r8_tma.log"
      echo "r8 tma bench rc=$?"; grep -v ETA "$OUT/r8_tma.log" | tail -n 2; pack /tmp/r8_tma.csv "$OUT/r8_tma.csv.zst" ;;
    clab)
      # Cluster split-K's batched reduction (wgmma/epilogue.cuh reduce_cluster_batched): every cluster
      # kernel against the reference (all directions), sanitizers on bwd_weight; A/B of every bwd_weight
      # cluster kernel on .device/r8_pub.jsonl with GCONV_WGMMA_CLUSTER_BATCH=0 (the per-vector loop) and
      # on; then selector rows of the deep-ring and cluster bwd_weight kernels on .device/r8_train.txt /
      # r8_hold.txt (CL_ROWS_S seconds each).
      check_kernels cl wgmma 'family==wgmma && split_mode==cluster' 'Pools/PoolCorrectness.*' \
        'Pools/PoolCorrectness.*/bwd_weight_bf16_*'
      for mode in 0 1; do
        rm -f /tmp/clab_$mode.csv
        GCONV_WGMMA_CLUSTER_BATCH=$mode timeout -k 10 "${CLAB_S:-120}" .device/gconv bench --problems .device/r8_pub.jsonl \
          --filter 'direction==bwd_weight && family==wgmma && split_mode==cluster' --out /tmp/clab_$mode.csv \
          --warmup 2 --repeats 7 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/clab_$mode.log"
        echo "clab $mode rc=$?"; grep -v ETA "$OUT/clab_$mode.log" | tail -n 1; pack /tmp/clab_$mode.csv "$OUT/clab_$mode.csv.zst"
      done
      bench_rows r8 'direction==bwd_weight && family==wgmma && ((tma && stages>=6) || split_mode==cluster)' "${CL_ROWS_S:-150}" ;;
    nbcheck)
      # Realigned igemm bwd_data on a C/G off the vector (config.cuh NarrowBConfig: w in 2-byte pieces,
      # dy in 16-byte vectors): every such kernel against the reference (bf16 all, fp16 / fp32 samples),
      # sanitizers; on the public problems it serves (.device/nb_pub.jsonl) every realigned bwd_data
      # kernel, then the shipped model's top NB_TOP (default 8) with native cuDNN; rows of the
      # realigned bwd_data kernels on .device/nb_train.txt / nb_hold.txt (NB_ROWS_S seconds each).
      check_kernels nb igemm 'direction==bwd_data && family==igemm && realign' 'Pools/PoolCorrectness.*' \
        'Pools/PoolCorrectness.*/bwd_data_bf16_*'
      rm -f /tmp/nb_ra.csv /tmp/nb_top.csv
      timeout -k 10 "${NB_S:-120}" .device/gconv bench --problems .device/nb_pub.jsonl \
        --filter 'direction==bwd_data && family==igemm && realign' --out /tmp/nb_ra.csv --warmup 2 --repeats 7 \
        --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/nb_ra.log"
      echo "nb ra bench rc=$?"; grep -v ETA "$OUT/nb_ra.log" | tail -n 1; pack /tmp/nb_ra.csv "$OUT/nb_ra.csv.zst"
      timeout -k 10 "${NB_S:-120}" .device/gconv bench --problems .device/nb_pub.jsonl --policy "topk:${NB_TOP:-8}" \
        --provider gconv,cudnn --out /tmp/nb_top.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" --progress-s 60 \
        2> "$OUT/nb_top.log"
      echo "nb top bench rc=$?"; grep -v ETA "$OUT/nb_top.log" | tail -n 3; pack /tmp/nb_top.csv "$OUT/nb_top.csv.zst"
      bench_rows nb 'direction==bwd_data && family==igemm && realign' "${NB_ROWS_S:-90}" ;;
    wstcheck)
      # Staged operands (wgmma _tma_ra: gconv_pad copies dy, or fwd x and w, into the workspace with padded rows, then a TMA
      # kernel): every such kernel against the reference (bf16 all, fp16 samples), sanitizers on 2
      # kernels per bf16 pool; on the public problems it serves (.device/wst_pub.jsonl) every realigned
      # wgmma kernel (staged and cp.async) with native cuDNN, then the shipped model's top WST_TOP
      # (default 16) without them (what it had before); rows of the staged kernels on
      # .device/wst_train.txt / wst_hold.txt (WST_ROWS_S seconds each).
      check_kernels wst wgmma 'family==wgmma && tma && realign' 'Pools/PoolCorrectness.*' \
        'Pools/PoolCorrectness.*/bwd_*_bf16_*'
      rm -f /tmp/wst_new.csv /tmp/wst_top.csv
      timeout -k 10 "${WST_S:-150}" .device/gconv bench --problems .device/wst_pub.jsonl \
        --filter 'family==wgmma && realign' --provider gconv,cudnn --out /tmp/wst_new.csv --warmup 2 --repeats 7 \
        --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/wst_new.log"
      echo "wst new bench rc=$?"; grep -v ETA "$OUT/wst_new.log" | tail -n 1; pack /tmp/wst_new.csv "$OUT/wst_new.csv.zst"
      timeout -k 10 "${WST_S:-150}" .device/gconv bench --problems .device/wst_pub.jsonl \
        --filter '!(family==wgmma && realign)' --policy "topk:${WST_TOP:-16}" --provider gconv --out /tmp/wst_top.csv \
        --warmup 2 --repeats 7 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/wst_top.log"
      echo "wst top bench rc=$?"; grep -v ETA "$OUT/wst_top.log" | tail -n 1; pack /tmp/wst_top.csv "$OUT/wst_top.csv.zst"
      python3 bench/best_by_label.py --baseline cudnn new=/tmp/wst_new.csv before=/tmp/wst_top.csv \
        cudnn=/tmp/wst_new.csv:cudnn --per-problem "$OUT/wst_per_problem.csv" > "$OUT/wst_compare.txt" 2>&1
      head -n 20 "$OUT/wst_compare.txt"
      bench_rows wst 'family==wgmma && tma && realign' "${WST_ROWS_S:-90}" ;;
    pfix)
      # Parallel split-K in one launch (igemm/fixup.cuh, kernels/fixup.hpp parallel_fixup): the graph-capture
      # launch counts (and the bitwise replay of parallel kernels); with the one-launch path forced for every
      # tile and split factor (GCONV_PARALLEL_FIXUP_KB large), PF_SAMPLE (default 20) parallel kernels per bf16
      # pool against the reference, the wgmma ones again with the grid capped at 3 blocks, fp16 samples,
      # memcheck / racecheck / synccheck on 2 per bf16 2D pool.
      L=/tmp/pflogs; mkdir -p $L/gc
      LOG_DIR=$L/gc timeout -k 5 120 scripts/gpu-test .device 'Launches/GraphCapture*' > "$L/gc.txt" 2>&1
      echo "graph capture: $(tail -n 1 "$L/gc.txt")"
      cat $L/gc/*.log | grep -h -E "Failure|Expected|Which is|nodes|deterministic" | head -n 20
      ( export GCONV_PARALLEL_FIXUP_KB=1048576
        TEST_TIMEOUT_S=150 GCONV_GPU_TEST_FILTER='split_mode == parallel' GCONV_GPU_TEST_SAMPLE=${PF_SAMPLE:-20} \
          gpu_tests "parallel bf16 tests" $L/bf16 "${PF_T_S:-170}" 'Pools/PoolCorrectness*bf16*' 12
        GCONV_WGMMA_PERSISTENT=3 TEST_TIMEOUT_S=90 GCONV_GPU_TEST_FILTER='split_mode == parallel && family == wgmma' \
          GCONV_GPU_TEST_SAMPLE=${PF_CAP_SAMPLE:-8} gpu_tests "parallel wgmma, grid capped at 3" $L/cap 100 'Pools/PoolCorrectness*bf16*'
        TEST_TIMEOUT_S=90 GCONV_GPU_TEST_FAMILY=direct GCONV_GPU_TEST_FILTER='deterministic' \
          GCONV_GPU_TEST_SAMPLE=${PF_DET_SAMPLE:-12} gpu_tests "direct _det tests" $L/det 100 'Pools/PoolCorrectness*bwd_weight*'
        TEST_TIMEOUT_S=70 GCONV_GPU_TEST_FILTER='split_mode == parallel' GCONV_GPU_TEST_SAMPLE=${PF_FP16_SAMPLE:-4} \
          gpu_tests "parallel fp16 tests" $L/fp16 80 'Pools/PoolCorrectness*fp16*'
        for tool in ${PF_SAN-memcheck racecheck synccheck}; do
          mkdir -p $L/san_$tool
          GCONV_GPU_TEST_FILTER='split_mode == parallel' GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool LOG_DIR=$L/san_$tool \
            timeout -k 5 "${PF_SAN_S:-70}" scripts/gpu-test .device 'Pools/PoolCorrectness*bf16_2d' > "$L/san_$tool.txt" 2>&1
          echo "$tool: $(tail -n 1 "$L/san_$tool.txt") | $(cat $L/san_$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
        done
        for tool in ${PF_DET_SAN-memcheck racecheck}; do
          mkdir -p $L/dsan_$tool
          GCONV_GPU_TEST_FAMILY=direct GCONV_GPU_TEST_FILTER='deterministic' GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool \
            LOG_DIR=$L/dsan_$tool timeout -k 5 60 scripts/gpu-test .device 'Pools/PoolCorrectness*bwd_weight_bf16_2d' \
            > "$L/dsan_$tool.txt" 2>&1
          echo "_det $tool: $(tail -n 1 "$L/dsan_$tool.txt") | $(cat $L/dsan_$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
        done )
      tar -czf "$OUT/pf_logs.tar.gz" -C /tmp pflogs ;;
    tpad)
      # wgmma TMA kernels with taps padded to whole channel blocks (wgmma/tma.hpp tap_k): every fwd /
      # bwd_data TMA kernel of the bf16 pools against the reference (the odd list, tap_padded_problems),
      # fp16 / fp32 samples, sanitizers on 2 kernels of the bf16 2D pools and the fwd 3D pool.
      check_kernels tpad wgmma 'family==wgmma && tma==true && direction!=bwd_weight' \
        'Pools/PoolCorrectness.*/fwd_*:Pools/PoolCorrectness.*/bwd_data_*' \
        'Pools/PoolCorrectness.*/fwd_bf16_2d:Pools/PoolCorrectness.*/bwd_data_bf16_2d:Pools/PoolCorrectness.*/fwd_bf16_3d' ;;
    tpadbench)
      # The problems tap padding opens to the TMA kernels (.device/tpad_pub.jsonl: public; .device/tpad_small.csv:
      # problems/small_classes.csv, fwd and bwd_data): the model's top TP_TOP (default 16) beside native cuDNN,
      # then every wgmma TMA kernel (checked against the reference), same run (TP_S seconds each, default 120).
      for set in pub small; do
        f=.device/tpad_pub.jsonl dirs=""; [ $set = small ] && f=.device/tpad_small.csv dirs="--directions fwd,bwd_data"
        rm -f /tmp/tp_${set}_top.csv /tmp/tp_${set}_tma.csv
        timeout -k 10 "${TP_S:-120}" .device/gconv bench --problems $f $dirs --policy "topk:${TP_TOP:-16}" \
          --provider gconv,cudnn --out /tmp/tp_${set}_top.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" \
          --progress-s 60 2> "$OUT/tp_${set}_top.log"
        echo "tpad $set top rc=$?: $(grep -v ETA "$OUT/tp_${set}_top.log" | tail -n 1)"
        timeout -k 10 "${TP_S:-120}" .device/gconv bench --problems $f $dirs --filter 'family==wgmma && tma==true' \
          --out /tmp/tp_${set}_tma.csv --warmup 2 --repeats 5 --jobs "$ncpu" --progress-s 60 2> "$OUT/tp_${set}_tma.log"
        echo "tpad $set tma rc=$?: $(grep -v ETA "$OUT/tp_${set}_tma.log" | tail -n 1)"
        pack /tmp/tp_${set}_top.csv "$OUT/tp_${set}_top.csv.zst"; pack /tmp/tp_${set}_tma.csv "$OUT/tp_${set}_tma.csv.zst"
      done ;;
    tpadrows)
      # Selector rows of the tap-padded TMA kernels: every wgmma fwd / bwd_data TMA kernel on
      # .device/tpad_train.txt and .device/tpad_hold.txt (the bf16 problems of the training and holdout
      # sweeps whose C/G or K/G the padding opens), TPR_S seconds each (default 150).
      bench_rows tpad 'family==wgmma && tma==true && direction!=bwd_weight' "${TPR_S:-150}" ;;
    pwtop)
      # As tpadtop for the pw family's problems (.device/pw_{train,hold}top.txt: the problems of
      # h200_train_pw_s30 / h200_bf16_holdout_pw_s30, whose pw rows are H200 rows among older H100 ones):
      # the shipped model's top PWT_TOP (default 16) -> $OUT/pwtop_{train,hold}.csv.zst
      top_rows pw "${PWT_TOP:-16}" "${PWT_S:-200}" .device/pw_%stop.txt ;;
    tpadtop)
      # The same problems' other candidates on this GPU (the shipped model's top TPT_TOP, default 16), so
      # that the tap-padded kernels' rows meet rows of the same device (the older training rows of these
      # problems are partly H100 rows): -> $OUT/tpadtop_{train,hold}.csv.zst
      top_rows tpad "${TPT_TOP:-16}" "${TPT_S:-150}" .device/tpad_%s.txt ;;
    pfixab)
      # The one launch against main + reduce: .device/pfix_pairs.csv (each public problem's analytic best
      # parallel kernel per family and split factor) timed with GCONV_PARALLEL_FIXUP_KB=0 (reduce kernel)
      # and with the one-launch path forced, same run (PFAB_S seconds each, default 150).
      ab_env GCONV_PARALLEL_FIXUP_KB pf pfix "$OUT" "${PFAB_S:-150}" "${REPEATS:-5}" .device/pfix_pairs.csv 0 1048576
      python3 bench/ab_sweeps.py --a /tmp/pf_0.csv --b /tmp/pf_on.csv --label-a two_launches --label-b one_launch \
        | tee "$OUT/ab_pfix.txt" ;;
    pwcheck)
      # Pointwise streaming GEMM (pw, src/kernels/pw): every pw kernel against the reference (bf16
      # all, fp16 samples), sanitizers on 2 kernels per bf16 fwd / bwd_data pool; on the public
      # pointwise problems it serves (.device/pw_pub.jsonl) every pw kernel with native cuDNN, then
      # the shipped model's top PW_TOP (default 16) of the other kernels; rows of the pw kernels on
      # .device/pw_train.txt / pw_hold.txt (PW_ROWS_S seconds each).
      check_kernels pw pw 'family==pw' 'Pools/PoolCorrectness.*' \
        'Pools/PoolCorrectness.*/fwd_bf16_*:Pools/PoolCorrectness.*/bwd_data_bf16_*'
      rm -f /tmp/pw_new.csv /tmp/pw_top.csv
      timeout -k 10 "${PW_S:-150}" .device/gconv bench --problems .device/pw_pub.jsonl \
        --filter 'family==pw' --provider gconv,cudnn --out /tmp/pw_new.csv --warmup 2 --repeats 7 \
        --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/pw_new.log"
      echo "pw new bench rc=$?"; grep -v ETA "$OUT/pw_new.log" | tail -n 1; pack /tmp/pw_new.csv "$OUT/pw_new.csv.zst"
      timeout -k 10 "${PW_S:-150}" .device/gconv bench --problems .device/pw_pub.jsonl \
        --filter '!(family==pw)' --policy "topk:${PW_TOP:-16}" --provider gconv --out /tmp/pw_top.csv \
        --warmup 2 --repeats 7 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/pw_top.log"
      echo "pw top bench rc=$?"; grep -v ETA "$OUT/pw_top.log" | tail -n 1; pack /tmp/pw_top.csv "$OUT/pw_top.csv.zst"
      python3 bench/best_by_label.py --baseline cudnn new=/tmp/pw_new.csv before=/tmp/pw_top.csv \
        cudnn=/tmp/pw_new.csv:cudnn --per-problem "$OUT/pw_per_problem.csv" > "$OUT/pw_compare.txt" 2>&1
      head -n 20 "$OUT/pw_compare.txt"
      bench_rows pw 'family==pw' "${PW_ROWS_S:-90}" ;;
    obrows)
      # Selector rows of the kernels oddbw checks, on the bf16 bwd_weight problems of the training and
      # holdout sweeps with a channel count 8 does not divide (.device/ob_train.txt, ob_hold.txt), OBR_S s each.
      bench_rows ob "${OBR_FILTER:-direction==bwd_weight && ((family==wgmma && vec<8 && split_k>1 && split_mode!=parallel) || (family==igemm && realign))}" "${OBR_S:-150}" ;;
    n192check)
      check_kernels n192 wgmma "$N192_F" 'Pools/PoolCorrectness.*/bwd_*' \
        'Pools/PoolCorrectness.*/bwd_data_bf16_2d:Pools/PoolCorrectness.*/bwd_weight_bf16_2d'
      GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_FILTER="$N192_F" GCONV_GPU_TEST_SAMPLE=${N192_FP16_SAMPLE:-8} TEST_TIMEOUT_S=90 \
        gpu_tests "n192 fp16 sample" /tmp/n192fp16 120 'Pools/PoolCorrectness.*/bwd_*fp16*'
      GCONV_WGMMA_PERSISTENT=3 GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_FILTER="$N192_F && split_mode == serial" \
        GCONV_GPU_TEST_SAMPLE=${N192_CAP_SAMPLE:-8} TEST_TIMEOUT_S=90 \
        gpu_tests "n192 serial, grid capped at 3" /tmp/n192cap 120 'Pools/PoolCorrectness.*/bwd_weight_bf16*' ;;
    n192bench)
      # Issue 16's cuBLAS target with the new kernels: the public dense bwd_data / bwd_weight problems of >= 5
      # GFLOP, the model's top N192_TOP (default 16) and every N192_F kernel, then cuDNN (exhaustive) through
      # PyTorch and cuBLAS on the equivalent GEMM, same call; compare_cudnn.py of both sweeps together.
      python3 -c "import json,sys; l=[json.loads(x) for x in open('problems/cudnn_public_h200.jsonl') if x.strip()]; \
        sys.stdout.write(''.join(json.dumps(r)+'\n' for r in l if 'about' not in r and r['direction'] != 'fwd' \
        and r['G']==1 and r.get('gflop',0)>=5))" > /tmp/nb_dense.jsonl
      echo "n192bench: $(wc -l < /tmp/nb_dense.jsonl) dense bwd problems >= 5 GFLOP"
      rm -f /tmp/nb_top.csv /tmp/nb_new.csv
      timeout -k 10 "${N192_S:-150}" .device/gconv bench --problems /tmp/nb_dense.jsonl --policy "topk:${N192_TOP:-16}" \
        --out /tmp/nb_top.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/n192_top.log"
      echo "top rc=$?: $(grep -v ETA "$OUT/n192_top.log" | grep "rows (" | tail -n 1)"
      timeout -k 10 "${N192_S:-150}" .device/gconv bench --problems /tmp/nb_dense.jsonl --filter "$N192_F" \
        --out /tmp/nb_new.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/n192_new.log"
      echo "new rc=$?: $(grep -v ETA "$OUT/n192_new.log" | grep "rows (" | tail -n 1)"
      pack /tmp/nb_top.csv "$OUT/n192_top.csv.zst"; pack /tmp/nb_new.csv "$OUT/n192_new.csv.zst"
      PYTHONUNBUFFERED=1 timeout -k 10 "${N192_TORCH_S:-150}" python3 bench/cudnn_torch.py --problems /tmp/nb_dense.jsonl \
        --out "$OUT/n192_torch.jsonl" --directions bwd_data,bwd_weight --gemm-gflop 5 --modes exh 2> "$OUT/n192_torch.log"
      for v in top all; do
        if [ $v = all ]; then { cat /tmp/nb_top.csv; tail -n +2 /tmp/nb_new.csv; } > /tmp/nb_all.csv; else cp /tmp/nb_top.csv /tmp/nb_all.csv; fi
        python3 bench/compare_cudnn.py --sweep /tmp/nb_all.csv --cudnn "$OUT/n192_torch.jsonl" --by-family \
          --per-problem "$OUT/n192_compare_$v.csv" > "$OUT/n192_compare_$v.txt"
        echo "== $v"; grep -A4 "cuBLAS on the" "$OUT/n192_compare_$v.txt"
      done ;;
    n192top)
      # As pwtop for the problems of n192rows (.device/n192_{train,hold}.csv): the shipped model's top N192T_TOP
      # (default 16), so that the new kernels' rows meet rows of the same device -> $OUT/n192top_{train,hold}.csv.zst
      top_rows n192 "${N192T_TOP:-16}" "${N192T_S:-200}" ;;
    pkcheck)
      check_kernels pk wgmma "$PK_F" 'Pools/PoolCorrectness.*/bwd_weight_bf16*' \
        'Pools/PoolCorrectness.*/bwd_weight_bf16_2d'
      GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_FILTER="$PK_F" GCONV_GPU_TEST_SAMPLE=${PK_FP16_SAMPLE:-8} TEST_TIMEOUT_S=90 \
        gpu_tests "pk fp16 sample" /tmp/pkfp16 150 'Pools/PoolCorrectness.*/bwd_weight_fp16*'
      GCONV_WGMMA_PERSISTENT=3 GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_FILTER="$PK_F && split_mode != cluster" \
        GCONV_GPU_TEST_SAMPLE=${PK_CAP_SAMPLE:-8} TEST_TIMEOUT_S=90 \
        gpu_tests "pk grid capped at 3" /tmp/pkcap 120 'Pools/PoolCorrectness.*/bwd_weight_bf16*' ;;
    pkbench)
      for set in hold train; do
        prov=gconv; [ "$set" = hold ] && prov=gconv,cudnn
        rm -f /tmp/pk_${set}_top.csv /tmp/pk_${set}_new.csv
        timeout -k 10 "${PK_S:-150}" .device/gconv bench --problems .device/pk_$set.txt --policy "topk:${PK_TOP:-8}" \
          --filter "!($PK_F)" --provider $prov --out /tmp/pk_${set}_top.csv --warmup 2 --repeats 5 --check none \
          --timeout-s 60 --jobs "$ncpu" --progress-s 60 2> "$OUT/pk_${set}_top.log"
        echo "pk $set top rc=$?: $(grep -v ETA "$OUT/pk_${set}_top.log" | grep "rows (" | tail -n 1)"
        timeout -k 10 "${PK_S:-150}" .device/gconv bench --problems .device/pk_$set.txt --filter "$PK_F" \
          --out /tmp/pk_${set}_new.csv --warmup 2 --repeats 5 --check none --timeout-s 60 --jobs "$ncpu" \
          --progress-s 60 2> "$OUT/pk_${set}_new.log"
        echo "pk $set new rc=$?: $(grep -v ETA "$OUT/pk_${set}_new.log" | grep "rows (" | tail -n 1)"
        pack /tmp/pk_${set}_top.csv "$OUT/pk_${set}_top.csv.zst"; pack /tmp/pk_${set}_new.csv "$OUT/pk_${set}_new.csv.zst"
      done
      python3 bench/class_report.py --sweep /tmp/pk_hold_top.csv > "$OUT/pk_class_before.txt" 2>&1
      tail -n +2 /tmp/pk_hold_new.csv > /tmp/pk_hold_new_body.csv
      cat /tmp/pk_hold_top.csv /tmp/pk_hold_new_body.csv > /tmp/pk_hold_both.csv
      python3 bench/class_report.py --sweep /tmp/pk_hold_both.csv > "$OUT/pk_class_after.txt" 2>&1
      grep -A4 -i "small_cpg" "$OUT/pk_class_before.txt" | head -n 8; grep -A4 -i "small_cpg" "$OUT/pk_class_after.txt" | head -n 8 ;;
    rtop)
      # The same for the rest of the bf16 training / holdout problems (.device/rt_{train,hold}.csv): one device's
      # rows of every problem's likely winners, where older rows are partly H100 rows relabelled
      top_rows rt "${RT_TOP:-16}" "${RT_S:-240}" ;;
    n192rows)
      # Selector rows of the N192_F kernels: the analytic top 6 of them per bwd problem of the bf16 training sweep
      # (.device/n192_train.csv + n192_train_pairs.csv) and of the holdout (.device/n192_hold.csv + _pairs), made
      # on the development machine (gconv select --arch sm_90a --policy analytic --top 6 --filter ... --json |
      # bench/sweep_problems.py --pairs)
      for set in train hold; do
        rm -f /tmp/n192rows_$set.csv
        timeout -k 10 "${N192R_S:-200}" .device/gconv bench --problems .device/n192_$set.csv --pairs .device/n192_${set}_pairs.csv \
          --out /tmp/n192rows_$set.csv --warmup 1 --repeats 5 --check none --timeout-s 60 --jobs "$ncpu" --progress-s 60 \
          2> "$OUT/n192rows_$set.log"
        echo "n192rows $set rc=$?: $(grep -v ETA "$OUT/n192rows_$set.log" | grep "rows (" | tail -n 1)"
        pack /tmp/n192rows_$set.csv "$OUT/n192rows_$set.csv.zst"
      done ;;
    cublas)
      # Issue 16's cuBLAS target: the public dense problems of >= CB_GFLOP (default 5) GFLOP, the
      # shipped model's top CB_TOP (default 8) kernels each with native cuDNN beside them, then
      # cuDNN through PyTorch and torch.matmul on the equivalent GEMM (cuBLAS) in the same call.
      python3 -c "import json,sys; l=[json.loads(x) for x in open('problems/cudnn_public_h200.jsonl') if x.strip()]; \
        sys.stdout.write(''.join(json.dumps(r)+'\n' for r in l if 'about' not in r and r['G']==1 and \
        r.get('gflop',0)>=float(sys.argv[1])))" "${CB_GFLOP:-5}" > /tmp/cb.jsonl
      echo "cublas: $(wc -l < /tmp/cb.jsonl) problems"; rm -f /tmp/cb.csv
      timeout -k 10 "${CB_S:-300}" .device/gconv bench --problems /tmp/cb.jsonl --policy "topk:${CB_TOP:-8}" \
        --provider gconv,cudnn --out /tmp/cb.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 \
        2> "$OUT/cublas_bench.txt"
      echo "cublas bench rc=$?"; grep -v "ETA" "$OUT/cublas_bench.txt" | tail -n 8
      pack /tmp/cb.csv "$OUT/cublas_sweep.csv.zst"
      PYTHONUNBUFFERED=1 python3 bench/cudnn_torch.py --problems /tmp/cb.jsonl --out "$OUT/cublas_torch.jsonl" \
        --gemm-gflop "${CB_GFLOP:-5}" --modes exh 2> "$OUT/cublas_torch.log"
      python3 bench/compare_cudnn.py --sweep /tmp/cb.csv --cudnn "$OUT/cublas_torch.jsonl" --by-family \
        --per-problem "$OUT/cublas_compare.csv" > "$OUT/cublas_compare.txt"; tail -n 30 "$OUT/cublas_compare.txt" ;;
    policy)
      timeout -k 10 "${POL_S:-360}" .device/gconv bench --problems "${POL_PROBLEMS:-problems/cudnn_public_h200.jsonl}" \
        ${POL_DIRECTIONS:+--directions "$POL_DIRECTIONS"} ${POL_SHARD:+--shard "$POL_SHARD"} --policy "${POL_POLICY:-heuristic}" --provider gconv,cudnn --out /tmp/pol.csv --warmup 2 --repeats 5 \
        --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/policy_summary_${POL_TAG:-pub}.txt"
      echo "policy bench rc=$?"; grep -v "ETA" "$OUT/policy_summary_${POL_TAG:-pub}.txt" | tail -n 24
      pack /tmp/pol.csv "$OUT/policy_${POL_TAG:-pub}.csv.zst" ;;
    grows)
      nvidia-smi -L | grep -q H200 || { echo "grows: not an H200, no training rows"; continue; }
      python3 bench/sweep_problems.py --expand-directions < problems/train_grouped.csv > /tmp/tg.csv
      .device/gconv select --problems /tmp/tg.csv --policy analytic --top "${GR_TOP:-32}" --json > /tmp/tg.jsonl \
        2> "$OUT/tg_select.log"
      python3 bench/sweep_problems.py --pairs < /tmp/tg.jsonl > /tmp/tg_pairs.csv
      echo "grows: $(($(wc -l < /tmp/tg_pairs.csv) - 1)) analytic pairs, $(($(wc -l < /tmp/tg.csv) - 1)) problems"
      timeout -k 10 "${GR_S:-200}" .device/gconv bench --problems /tmp/tg.csv --pairs /tmp/tg_pairs.csv --out /tmp/tg_rows.csv \
        --warmup 1 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/tg_bench.log"
      echo "analytic pairs rc=$?: $(tail -n 1 "$OUT/tg_bench.log")"
      timeout -k 10 "${GR_S:-200}" .device/gconv bench --problems /tmp/tg.csv --filter 'family==direct && window_w==0' \
        --out /tmp/tg_rows.csv --warmup 1 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 2>> "$OUT/tg_bench.log"
      echo "direct rc=$?: $(tail -n 1 "$OUT/tg_bench.log")"
      pack /tmp/tg_rows.csv "$OUT/tg_rows.csv.zst" ;;
    smallsweep)
      timeout -k 10 "${SC_S:-480}" .device/gconv bench --problems problems/small_classes.csv --directions all \
        --provider gconv,cudnn --policy "topk:${SC_TOP:-16}" --out /tmp/sc.csv --warmup 2 --repeats 5 --check none \
        --jobs "$ncpu" --progress-s 60 2> "$OUT/sc_bench.log"
      echo "sc bench rc=$?"; tail -n 3 "$OUT/sc_bench.log"
      pack /tmp/sc.csv "$OUT/small_classes_sweep.csv.zst"
      python3 bench/class_report.py --sweep /tmp/sc.csv --per-problem "$OUT/sc_per_problem.csv" > "$OUT/class_report.txt"
      head -n 80 "$OUT/class_report.txt" ;;
    pubsweep)
      [ -f .device/pub_prev.csv.zst ] && .device/zstd -dqc .device/pub_prev.csv.zst > /tmp/pub.csv
      # PUB_EVERY=k: every k-th (problem, direction) record only (a quick look).
      python3 -c "import sys; l=[x for x in open('problems/cudnn_public_h200.jsonl') if x.strip()]; \
        a=[x for x in l if '\"about\"' in x]; b=[x for x in l if '\"about\"' not in x]; \
        open('/tmp/pub.jsonl','w').write(''.join(a+b[::int(sys.argv[1])]))" "${PUB_EVERY:-1}"
      t0=$(date +%s)
      timeout -k 10 "${PUB_S:-400}" .device/gconv bench --problems /tmp/pub.jsonl \
        ${FILTER:+--filter "$FILTER"} --out /tmp/pub.csv --warmup 2 --repeats "${REPEATS:-7}" --jobs "$ncpu" --progress-s 60 \
        2> "$OUT/pub_stderr.log"
      echo "pub bench rc=$?"; tail -n 3 "$OUT/pub_stderr.log"
      if [ -n "${TOP:-}" ]; then
        # Each problem's TOP best igemm/direct kernels of the stored full sweep, re-timed in this run.
        PATH=$PWD/.device:$PATH python3 bench/top_pairs.py --sweep data/sweeps/h200_bf16_public_providers.csv.zst \
          --families igemm,direct --top "$TOP" --out /tmp/top_pairs.csv
        left=$(( ${PUB_S:-400} - ( $(date +%s) - t0 ) )); [ "$left" -lt 30 ] && left=30
        timeout -k 10 "$left" .device/gconv bench --problems /tmp/pub.jsonl --pairs /tmp/top_pairs.csv \
          --out /tmp/pub.csv --warmup 2 --repeats "${REPEATS:-7}" --jobs "$ncpu" --progress-s 60 2> "$OUT/pub_top_stderr.log"
        echo "pub top bench rc=$?"; tail -n 3 "$OUT/pub_top_stderr.log"
      fi
      pack /tmp/pub.csv "$OUT/pub.csv.zst"
      if [ -n "${CUDNN:-1}" ] && [ "${CUDNN:-1}" != 0 ]; then
        PYTHONUNBUFFERED=1 python3 bench/cudnn_torch.py --problems /tmp/pub.jsonl \
          --out "$OUT/cudnn_torch.jsonl" --gemm-gflop 5 --modes "${CUDNN_MODES:-heur,exh}" 2> "$OUT/cudnn.log"
      elif [ -f .device/cudnn_torch.jsonl ]; then cp .device/cudnn_torch.jsonl "$OUT/"; fi
      python3 bench/compare_cudnn.py --sweep /tmp/pub.csv --cudnn "$OUT/cudnn_torch.jsonl" --by-family \
        --per-problem "$OUT/compare.csv" > "$OUT/compare.txt"; tail -n 45 "$OUT/compare.txt" ;;
    dwcheck)
      # The direct family's register-window kernels (DW_FILTER narrows them): every bf16 one and
      # samples of fp16/fp32 against the reference, then the sanitizers on 2 per bf16 pool
      # (DW_SAN_PATTERN: the tests).
      check_kernels dw direct "${DW_FILTER:-window_w > 0}" 'Pools/PoolCorrectness.*' \
        "${DW_SAN_PATTERN:-Pools/PoolCorrectness.*bf16_2d}" "${DW_SAN:-memcheck racecheck synccheck}" ;;
    dwsweep)
      # Depthwise problems of the public set: every direct kernel (tile and window) and cuDNN.
      python3 -c "import json; l=[x for x in open('problems/cudnn_public_h200.jsonl') if x.strip()]; \
        open('/tmp/dw.jsonl','w').write(''.join(x for x in l if 'about' in json.loads(x) or json.loads(x)['C'] == json.loads(x)['G']))"
      timeout -k 10 "${DW_S:-300}" .device/gconv bench --problems /tmp/dw.jsonl --filter "${DW_SWEEP_FILTER:-family == direct}" \
        --out /tmp/dw.csv --warmup 3 --repeats 9 --jobs "$ncpu" --progress-s 60 2> "$OUT/dw_bench.log"
      echo "dw bench rc=$?"; tail -n 2 "$OUT/dw_bench.log"
      pack /tmp/dw.csv "$OUT/dw.csv.zst"
      PYTHONUNBUFFERED=1 python3 bench/cudnn_torch.py --problems /tmp/dw.jsonl --out "$OUT/cudnn_dw.jsonl" \
        --modes heur,exh 2> "$OUT/cudnn_dw.log"
      python3 bench/compare_cudnn.py --sweep /tmp/dw.csv --cudnn "$OUT/cudnn_dw.jsonl" --by-family \
        --per-problem "$OUT/dw_compare.csv" > "$OUT/dw_compare.txt"; tail -n 30 "$OUT/dw_compare.txt" ;;
    dwwg)
      # window_wgrad.cuh (register-window bwd_weight): every direct bwd_weight kernel (tile and
      # window) and native cuDNN on the depthwise bwd_weight problems of the public set and of
      # problems/small_classes.csv, bench/depthwise_report.py; then the window kernels' selector
      # rows on .device/dwwg_train.csv and .device/dwwg_hold.csv (the depthwise bwd_weight problems
      # of the stored training and holdout sweeps) for DWWG_S seconds each (default 150).
      python3 -c "import json; l=[x for x in open('problems/cudnn_public_h200.jsonl') if x.strip()]; \
        open('/tmp/dwwg.jsonl','w').write(''.join(x for x in l if 'about' in json.loads(x) or \
        (json.loads(x)['C'] == json.loads(x)['G'] == json.loads(x)['K'] and json.loads(x)['direction'] == 'bwd_weight')))"
      awk -F, '/^#/ {next} !h++ {for (i=1;i<=NF;i++) col[$i]=i; print; next} $col["c"] == $col["g"] && $col["k"] == $col["g"]' \
        problems/small_classes.csv > /tmp/dwwg_sc_problems.csv
      for set in pub sc; do
        if [ $set = pub ]; then src=/tmp/dwwg.jsonl; dirs=""; else src=/tmp/dwwg_sc_problems.csv; dirs="--directions bwd_weight"; fi
        rm -f /tmp/dwwg_$set.csv
        timeout -k 10 "${DWWG_BENCH_S:-240}" .device/gconv bench --problems $src $dirs --provider gconv,cudnn \
          --filter "${DWWG_SET_FILTER:-family == direct && direction == bwd_weight}" --out /tmp/dwwg_$set.csv --warmup 3 --repeats 9 \
          --jobs "$ncpu" --progress-s 60 2> "$OUT/dwwg_$set.log"
        echo "dwwg $set rc=$?"; tail -n 1 "$OUT/dwwg_$set.log"
        pack /tmp/dwwg_$set.csv "$OUT/dwwg_$set.csv.zst"
        python3 bench/depthwise_report.py /tmp/dwwg_$set.csv - | tee "$OUT/dwwg_${set}_report.txt"
      done
      for set in train hold; do
        rm -f /tmp/dwwg_rows_$set.csv
        timeout -k 10 "${DWWG_S:-150}" .device/gconv bench --problems .device/dwwg_$set.csv \
          --filter 'window_w > 0 && direction == bwd_weight' --out /tmp/dwwg_rows_$set.csv --warmup 2 --repeats 5 \
          --jobs "$ncpu" --progress-s 60 2> "$OUT/dwwg_rows_$set.log"
        echo "rows $set rc=$?"; tail -n 1 "$OUT/dwwg_rows_$set.log"
        pack /tmp/dwwg_rows_$set.csv "$OUT/dwwg_rows_$set.csv.zst"
      done ;;
    dwwgab)
      # window_wgrad A/B on the public set's depthwise bwd_weight problems: the tile kernels and
      # native cuDNN once, the window kernels once per variant of DWWG_VARIANTS ("label:ENV=V ...;
      # label2:..."), bench/depthwise_report.py per variant; every sweep in $OUT/dwwgab.tar.gz.
      python3 -c "import json; l=[x for x in open('problems/cudnn_public_h200.jsonl') if x.strip()]; \
        open('/tmp/dwwg.jsonl','w').write(''.join(x for x in l if 'about' in json.loads(x) or \
        (json.loads(x)['C'] == json.loads(x)['G'] == json.loads(x)['K'] and json.loads(x)['direction'] == 'bwd_weight')))"
      mkdir -p /tmp/dwwgab; rm -f /tmp/dwwgab/*
      if [ "${DWWG_BASE:-1}" = 1 ]; then  # DWWG_BASE=0: window kernels only (the base measured before)
        .device/gconv build --direction bwd_weight --dtype bf16 --filter 'family == direct' --jobs "$ncpu" > /dev/null 2>&1
        .device/gconv bench --problems /tmp/dwwg.jsonl --provider gconv,cudnn \
          --filter 'family == direct && direction == bwd_weight && window_w == 0' --out /tmp/dwwgab/base.csv \
          --warmup 3 --repeats 9 --jobs "$ncpu" 2> /tmp/dwwgab/base.log
        echo "base rc=$? $(tail -n 1 /tmp/dwwgab/base.log)"
      else
        .device/gconv build --direction bwd_weight --dtype bf16 --filter 'window_w > 0' --jobs "$ncpu" > /dev/null 2>&1
        .device/gconv bench --problems /tmp/dwwg.jsonl --provider cudnn --out /tmp/dwwgab/base.csv \
          --warmup 3 --repeats 9 2> /tmp/dwwgab/base.log
        echo "cudnn rc=$? $(tail -n 1 /tmp/dwwgab/base.log)"
      fi
      IFS=';' read -ra variants <<<"${DWWG_VARIANTS:-default:}"
      for v in "${variants[@]}"; do
        label=${v%%:*}; envs=${v#*:}
        env $envs .device/gconv bench --problems /tmp/dwwg.jsonl --filter "${DWWG_FILTER:-window_w > 0 && direction == bwd_weight}" \
          --out /tmp/dwwgab/$label.csv --warmup 3 --repeats 9 --jobs "$ncpu" --check "${DWWG_CHECK:-first}" 2> /tmp/dwwgab/$label.log
        echo "$label [$envs] rc=$? $(tail -n 1 /tmp/dwwgab/$label.log)"
        (cat /tmp/dwwgab/base.csv; tail -n +2 /tmp/dwwgab/$label.csv) > /tmp/dwwgab/merged_$label.csv
        python3 bench/depthwise_report.py /tmp/dwwgab/merged_$label.csv - | tail -n 2
      done
      tar czf "$OUT/dwwgab.tar.gz" -C /tmp dwwgab ;;
    dwst)
      # The row-stream window kernels (_tma, window_stream.cuh) of fwd / bwd_data: every bf16
      # one and fp16/fp32 samples against the reference, memcheck and racecheck on 2 per bf16
      # 1D/2D pool; the public set's depthwise fwd / bwd_data problems with every window kernel
      # (gather and stream) and native cuDNN, bench/depthwise_report.py (both, the gather alone,
      # the stream alone); then the stream kernels' selector rows on .device/dwst_train.csv and
      # .device/dwst_hold.csv (bf16 depthwise fwd / stride-1 bwd_data problems of the stored
      # training and holdout sweeps) for DWST_S / DWST_HOLD_S seconds (default 300 / 60).
      export GCONV_GPU_TEST_FILTER='window_w > 0 && tma'
      mkdir -p /tmp/dslogs /tmp/dwst; rm -f /tmp/dwst/*
      GCONV_GPU_TEST_FAMILY=direct LOG_DIR=/tmp/dslogs scripts/gpu-test .device \
        'Pools/PoolCorrectness.*' > "$OUT/dwst_tests.txt" 2>&1; tail -n 1 "$OUT/dwst_tests.txt"
      cat /tmp/dslogs/*.log | grep -h "^TALLY" | sort | tee "$OUT/dwst_tally.txt"
      cat /tmp/dslogs/*.log | grep -h -E "Failure|failed" | head -n 10
      for tool in memcheck racecheck; do
        mkdir -p /tmp/dssan_$tool
        GCONV_GPU_TEST_FAMILY=direct GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool LOG_DIR=/tmp/dssan_$tool scripts/gpu-test .device \
          'Pools/PoolCorrectness.*/fwd_bf16_1d:Pools/PoolCorrectness.*/fwd_bf16_2d:Pools/PoolCorrectness.*/bwd_data_bf16_1d:Pools/PoolCorrectness.*/bwd_data_bf16_2d' > "$OUT/dssan_$tool.txt" 2>&1
        echo "$tool: $(tail -n 1 "$OUT/dssan_$tool.txt") | $(cat /tmp/dssan_$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done
      unset GCONV_GPU_TEST_FILTER
      python3 -c "import json; l=[x for x in open('problems/cudnn_public_h200.jsonl') if x.strip()]; \
        open('/tmp/dws.jsonl','w').write(''.join(x for x in l if 'about' in json.loads(x) or \
        (json.loads(x)['C'] == json.loads(x)['G'] == json.loads(x)['K'] and json.loads(x)['direction'] != 'bwd_weight')))"
      .device/gconv bench --problems /tmp/dws.jsonl --provider cudnn --out /tmp/dwst/cudnn.csv --warmup 3 --repeats 9 \
        2> /tmp/dwst/cudnn.log
      .device/gconv bench --problems /tmp/dws.jsonl --filter 'window_w > 0' --out /tmp/dwst/window.csv --warmup 3 \
        --repeats 9 --jobs "$ncpu" 2> /tmp/dwst/window.log
      echo "window rc=$? $(tail -n 1 /tmp/dwst/window.log)"
      for sel in all gather stream; do
        case $sel in all) keep='.';; gather) keep='_w[0-9]s[0-9],';; stream) keep='_tma,';; esac
        (cat /tmp/dwst/cudnn.csv; tail -n +2 /tmp/dwst/window.csv | grep -E "$keep") > /tmp/dwst/merged_$sel.csv
        echo "-- $sel"; python3 bench/depthwise_report.py /tmp/dwst/merged_$sel.csv - | tail -n 3
      done
      for set in train hold; do
        lim=${DWST_S:-300}; [ $set = hold ] && lim=${DWST_HOLD_S:-60}
        rm -f /tmp/dwst_rows_$set.csv
        timeout -k 10 "$lim" .device/gconv bench --problems .device/dwst_$set.csv --filter 'window_w > 0 && tma' \
          --out /tmp/dwst_rows_$set.csv --warmup 2 --repeats 5 --jobs "$ncpu" --progress-s 60 2> "$OUT/dwst_rows_$set.log"
        echo "rows $set rc=$?"; tail -n 1 "$OUT/dwst_rows_$set.log"
        pack /tmp/dwst_rows_$set.csv "$OUT/dwst_rows_$set.csv.zst"
      done
      tar czf "$OUT/dwst.tar.gz" -C /tmp dwst ;;
    pkcheck)
      # Packed igemm kernels (several small groups as one block-diagonal GEMM; PK_TEST_FILTER narrows
      # them): correctness and sanitizers (check_kernels), then every fwd / bwd_data kernel and
      # native cuDNN on the public grouped problems with C/G <= 16 (.device/scpg_pub.jsonl), PK_S
      # seconds (0: none).
      check_kernels pk igemm "${PK_TEST_FILTER:-packed}" 'Pools/PoolCorrectness.*' \
        'Pools/PoolCorrectness.*/fwd_bf16_*:Pools/PoolCorrectness.*/bwd_data_bf16_*'
      if [ "${PK_S:-240}" -gt 0 ]; then
        timeout -k 10 "${PK_S:-240}" .device/gconv bench --problems .device/scpg_pub.jsonl --provider gconv,cudnn \
          --filter "${PK_FILTER:-direction != bwd_weight}" --out /tmp/pk.csv --warmup 2 --repeats 5 --check none \
          --jobs "$ncpu" --progress-s 60 2> "$OUT/pk_bench.log"
        echo "pk bench rc=$?"; grep -v ETA "$OUT/pk_bench.log" | tail -n 2
        pack /tmp/pk.csv "$OUT/pk.csv.zst"
      fi ;;
    pkrows)
      # Selector rows of the packed igemm kernels (PKR_FILTER narrows them) on the training problems of
      # .device/pk_train.txt (bf16 fwd / bwd_data with G > 1, C/G and K/G <= 16) and of
      # .device/pk_hold.txt (validation_holdout's), PKR_S seconds each.
      bench_rows pk "${PKR_FILTER:-packed}" "${PKR_S:-240}" ;;
    pkwcheck)
      # Packed igemm bwd_weight kernels: correctness and sanitizers, every bwd_weight kernel and native
      # cuDNN on .device/scpg_pub.jsonl, then their selector rows on .device/pkw_train.txt / pkw_hold.txt.
      check_kernels pkw igemm 'packed && direction == bwd_weight' 'Pools/PoolCorrectness.*/bwd_weight_*' \
        'Pools/PoolCorrectness.*/bwd_weight_bf16_*'
      timeout -k 10 "${PK_S:-200}" .device/gconv bench --problems .device/scpg_pub.jsonl --provider gconv,cudnn \
        --filter 'direction == bwd_weight' --out /tmp/pkw.csv --warmup 2 --repeats 5 --check none \
        --jobs "$ncpu" --progress-s 60 2> "$OUT/pkw_bench.log"
      echo "pkw bench rc=$?"; grep -v ETA "$OUT/pkw_bench.log" | tail -n 2
      pack /tmp/pkw.csv "$OUT/pkw.csv.zst"
      bench_rows pkw 'packed && direction == bwd_weight' "${PKR_S:-150}" ;;
    racheck)
      # Realigned igemm kernels (dy read in 16-byte vectors from any offset; RA_TEST_FILTER narrows
      # them): correctness and sanitizers, then every kernel and native cuDNN on the public set's
      # problems they serve (.device/ra_pub.jsonl), RA_S seconds.
      check_kernels ra igemm "${RA_TEST_FILTER:-realign}" 'Pools/PoolCorrectness.*' \
        'Pools/PoolCorrectness.*/fwd_bf16_*:Pools/PoolCorrectness.*/bwd_data_bf16_*:Pools/PoolCorrectness.*/bwd_weight_bf16_*'
      if [ "${RA_S:-240}" -gt 0 ]; then
        timeout -k 10 "${RA_S:-240}" .device/gconv bench --problems .device/ra_pub.jsonl --provider gconv,cudnn \
          --out /tmp/ra.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/ra_bench.log"
        echo "ra bench rc=$?"; grep -v ETA "$OUT/ra_bench.log" | tail -n 2
        pack /tmp/ra.csv "$OUT/ra.csv.zst"
      fi ;;
    sbdcheck)
      F='family == wgmma && direction == bwd_data && tma == true'
      check_kernels sbd wgmma "$F" 'Pools/PoolCorrectness.*/bwd_data_*' \
        'Pools/PoolCorrectness.*/bwd_data_bf16_2d:Pools/PoolCorrectness.*/bwd_data_bf16_3d'
      mkdir -p /tmp/sbdcap
      GCONV_WGMMA_PERSISTENT=3 TEST_TIMEOUT_S=120 GCONV_GPU_TEST_FAMILY=wgmma GCONV_GPU_TEST_FILTER="$F" \
        GCONV_GPU_TEST_SAMPLE=${SBD_CAP_SAMPLE:-8} LOG_DIR=/tmp/sbdcap timeout -k 5 150 scripts/gpu-test .device \
        'Pools/PoolCorrectness.*/bwd_data_bf16_*' > "$OUT/sbdcap_tests.txt" 2>&1
      echo "grid capped at 3: $(tail -n 1 "$OUT/sbdcap_tests.txt")"
      cat /tmp/sbdcap/*.log 2>/dev/null | grep -h "^TALLY" | sort
      cat /tmp/sbdcap/*.log 2>/dev/null | grep -h -E "Failure|failed|crash|mismatch" | head -n 8
      rm -f /tmp/sbd.csv /tmp/sbd_old.csv
      timeout -k 10 "${SBD_S:-200}" .device/gconv bench --problems .device/sbd_pub.jsonl \
        --filter 'family == wgmma && direction == bwd_data' --provider gconv,cudnn --out /tmp/sbd.csv --warmup 2 \
        --repeats 7 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/sbd_bench.log"
      echo "sbd bench rc=$?"; grep -v ETA "$OUT/sbd_bench.log" | tail -n 2
      timeout -k 10 "${SBD_S:-200}" .device/gconv bench --problems .device/sbd_pub.jsonl \
        --filter '!(family == wgmma && tma == true)' --policy "topk:${SBD_TOP:-8}" --provider gconv \
        --out /tmp/sbd_old.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/sbd_old.log"
      echo "sbd before rc=$?"; grep -v ETA "$OUT/sbd_old.log" | tail -n 2
      pack /tmp/sbd.csv "$OUT/sbd.csv.zst"; pack /tmp/sbd_old.csv "$OUT/sbd_old.csv.zst"
      L=/tmp/sbdab; mkdir -p $L
      ab_env GCONV_KERNEL_SOURCES sbdab "stride-1 TMA bwd_data, old/new headers" $L "${SBD_AB_S:-150}" 7 \
        .device/sbd_ab_pairs.csv "$PWD/.device/old_kernels"
      python3 bench/ab_sweeps.py --a /tmp/sbdab_0.csv --b /tmp/sbdab_on.csv --label-a old --label-b new \
        | tee "$OUT/sbdab.txt" | tail -n 12 ;;
    tcwcheck)
      F='family == tinyc && direction == bwd_weight'
      check_kernels tcw tinyc "$F" 'Pools/PoolCorrectness.*/bwd_weight_*' 'Pools/PoolCorrectness.*/bwd_weight_bf16_2d'
      rm -f /tmp/tcw.csv /tmp/tcw_old.csv
      timeout -k 10 "${TCW_S:-150}" .device/gconv bench --problems "${TCW_PUB:-.device/tcw_pub.jsonl}" --filter "$F" \
        --provider gconv,cudnn --out /tmp/tcw.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" --progress-s 60 \
        2> "$OUT/tcw_bench.log"
      echo "tcw bench rc=$?"; grep -v ETA "$OUT/tcw_bench.log" | tail -n 2
      timeout -k 10 "${TCW_S:-150}" .device/gconv bench --problems "${TCW_PUB:-.device/tcw_pub.jsonl}" --filter "!($F)" \
        --policy "topk:${TCW_TOP:-8}" --provider gconv --out /tmp/tcw_old.csv --warmup 2 --repeats 7 --check none \
        --jobs "$ncpu" --progress-s 60 2> "$OUT/tcw_old.log"
      echo "tcw before rc=$?"; grep -v ETA "$OUT/tcw_old.log" | tail -n 2
      pack /tmp/tcw.csv "$OUT/tcw.csv.zst"; pack /tmp/tcw_old.csv "$OUT/tcw_old.csv.zst" ;;
    tcwab)
      # tinyc bwd_weight grid variants (TCWAB_VARIANTS "label:ENV=V ...;..."): every tinyc bwd_weight kernel on
      # .device/tcw_pub.jsonl per variant -> $OUT/tcwab_<label>.csv.zst (bench/best_by_label.py, or per problem)
      IFS=';' read -ra vars <<<"${TCWAB_VARIANTS:-base:;b132:GCONV_TINYC_WGRAD_BLOCKS=132;b528:GCONV_TINYC_WGRAD_BLOCKS=528;m4:GCONV_TINYC_WGRAD_MIN_STEPS=4}"
      for v in "${vars[@]}"; do
        label=${v%%:*}; envs=${v#*:}; rm -f /tmp/tcwab_$label.csv
        env $envs .device/gconv bench --problems .device/tcw_pub.jsonl --filter 'family == tinyc && direction == bwd_weight' \
          --out /tmp/tcwab_$label.csv --warmup 2 --repeats 7 --check none --jobs "$ncpu" 2> "$OUT/tcwab_$label.log"
        echo "tcwab $label [$envs] rc=$?: $(tail -n 1 "$OUT/tcwab_$label.log")"
        pack /tmp/tcwab_$label.csv "$OUT/tcwab_$label.csv.zst"
      done ;;
    tcwrows)
      bench_rows tcw 'family == tinyc && direction == bwd_weight' "${TCWR_S:-150}" ;;
    wncheck)
      # wgmma fwd tiles 96 / 144 / 192 wide: correctness (every dtype), sanitizers, then on the public fwd
      # problems every such kernel with native cuDNN, and the shipped model's top WN_TOP of the rest
      F='family == wgmma && direction == fwd && (tile_n == 96 || tile_n == 144 || tile_n == 192)'
      check_kernels wn wgmma "$F" 'Pools/PoolCorrectness.*/fwd_*' 'Pools/PoolCorrectness.*/fwd_bf16_2d'
      python3 -c "import json; l=[x for x in open('problems/cudnn_public_h200.jsonl') if x.strip()]; \
        open('/tmp/wn.jsonl','w').write(''.join(x for x in l if 'about' in json.loads(x) or json.loads(x)['direction'] == 'fwd'))"
      rm -f /tmp/wn.csv /tmp/wn_old.csv
      timeout -k 10 "${WN_S:-150}" .device/gconv bench --problems /tmp/wn.jsonl --filter "$F" --provider gconv,cudnn \
        --out /tmp/wn.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/wn_bench.log"
      echo "wn bench rc=$?"; grep -v ETA "$OUT/wn_bench.log" | tail -n 2
      timeout -k 10 "${WN_S:-150}" .device/gconv bench --problems /tmp/wn.jsonl --filter "!($F)" --policy "topk:${WN_TOP:-6}" \
        --provider gconv --out /tmp/wn_old.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 \
        2> "$OUT/wn_old.log"
      echo "wn before rc=$?"; grep -v ETA "$OUT/wn_old.log" | tail -n 2
      pack /tmp/wn.csv "$OUT/wn.csv.zst"; pack /tmp/wn_old.csv "$OUT/wn_old.csv.zst" ;;
    wnrows)
      # Selector rows of the 96/144/192-wide wgmma fwd kernels: the analytic top 8 of them per fwd problem of
      # the bf16/fp16/fp32 training sweeps (.device/wn_train.csv + wn_pairs.csv) and of the bf16 holdout
      # (.device/wn_hold.csv + wn_hold_pairs.csv), both made on the development machine (gconv select --arch
      # sm_90a --policy analytic --top 8 --filter ... | bench/sweep_problems.py --pairs)
      for set in train hold; do
        pairs=.device/wn_pairs.csv; [ $set = hold ] && pairs=.device/wn_hold_pairs.csv
        rm -f /tmp/wnrows_$set.csv
        timeout -k 10 "${WNR_S:-300}" .device/gconv bench --problems .device/wn_$set.csv --pairs $pairs --out /tmp/wnrows_$set.csv \
          --warmup 1 --repeats 5 --check none --timeout-s 60 --jobs "$ncpu" --progress-s 60 2> "$OUT/wnrows_$set.log"
        echo "wnrows $set rc=$?"; grep -v ETA "$OUT/wnrows_$set.log" | tail -n 2
        pack /tmp/wnrows_$set.csv "$OUT/wnrows_$set.csv.zst"
      done ;;
    stemrows)
      # Selector rows for tinyc bwd_weight's stem entry (one group, C <= 8): every tinyc bwd_weight kernel
      # on .device/stem_train.txt / stem_hold.txt, then the shipped model's top STEM_TOP of the other
      # kernels on the same problems (most have no stored bwd_weight sweep) -> $OUT/stemtop_{train,hold}.csv.zst
      bench_rows stem 'family == tinyc && direction == bwd_weight' "${STEMR_S:-150}"
      for set in train hold; do
        rm -f /tmp/stemtop_$set.csv
        timeout -k 10 "${STEMR_S:-150}" .device/gconv bench --problems .device/stem_$set.txt \
          --filter '!(family == tinyc && direction == bwd_weight)' --policy "topk:${STEM_TOP:-12}" --provider gconv,cudnn \
          --out /tmp/stemtop_$set.csv --warmup 1 --repeats 5 --check none --timeout-s 60 --jobs "$ncpu" --progress-s 60 \
          2> "$OUT/stemtop_$set.log"
        echo "stemtop $set rc=$?"; grep -v ETA "$OUT/stemtop_$set.log" | tail -n 2
        pack /tmp/stemtop_$set.csv "$OUT/stemtop_$set.csv.zst"
      done ;;
    sbdrows)
      # Selector rows of the bwd_data TMA kernels on strided training problems (.device/sbd_train.txt,
      # the bf16 problems of the training sweeps the path takes) and the holdout's (.device/sbd_hold.txt).
      bench_rows sbd 'family == wgmma && direction == bwd_data && tma == true' "${SBDR_S:-150}" ;;
    rarows)
      # Selector rows of the realigned kernels on the training problems of .device/ra_train.txt (the
      # bf16 problems of the training sweeps they serve) and .device/ra_hold.txt
      # (the holdout's), RAR_S seconds each.
      bench_rows ra realign "${RAR_S:-150}" ;;
    scpgdiag)
      # Small C/G diagnosis: every kernel of the pool and native cuDNN on the public set's grouped
      # problems with C/G <= 16 (.device/scpg_pub.jsonl), so that the best kernel (oracle), the
      # heuristic's pick (a policy run) and cuDNN can be compared.
      timeout -k 10 "${SCPG_S:-300}" .device/gconv bench --problems .device/scpg_pub.jsonl --provider gconv,cudnn \
        --out /tmp/scpg.csv --warmup 2 --repeats 5 --check none --jobs "$ncpu" --progress-s 60 2> "$OUT/scpg.log"
      echo "scpg rc=$?"; grep -v ETA "$OUT/scpg.log" | tail -n 2
      pack /tmp/scpg.csv "$OUT/scpg.csv.zst" ;;
    oddab)
      # igemm with vec 1 (odd channel counts: one 16-bit element a copy), batched loads
      # (loaders.cuh CopyBatch): every vec 1 kernel of the bf16 pools and fp16 / fp32 samples
      # against the reference, memcheck and racecheck on 2 per bf16 pool; then the public set's
      # problems with an odd C or K (.device/odd_pub.jsonl): native cuDNN once, every vec 1 igemm
      # kernel with the library before (.device/oldlib) and after, same run; sweeps in
      # $OUT/oddab.tar.gz (compare with bench/best_by_label.py or per kernel).
      export GCONV_GPU_TEST_FILTER='family == igemm && vec == 1'
      mkdir -p /tmp/oalogs /tmp/oddab; rm -f /tmp/oddab/*
      GCONV_GPU_TEST_FAMILY=igemm LOG_DIR=/tmp/oalogs scripts/gpu-test .device 'Pools/PoolCorrectness.*' \
        > "$OUT/oddab_tests.txt" 2>&1; tail -n 1 "$OUT/oddab_tests.txt"
      cat /tmp/oalogs/*.log | grep -h "^TALLY" | sort | tee "$OUT/oddab_tally.txt"
      cat /tmp/oalogs/*.log | grep -h -E "Failure|failed" | head -n 10
      for tool in memcheck racecheck; do
        mkdir -p /tmp/oasan_$tool
        GCONV_GPU_TEST_FAMILY=igemm GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool LOG_DIR=/tmp/oasan_$tool scripts/gpu-test .device \
          'Pools/PoolCorrectness.*/fwd_bf16_2d:Pools/PoolCorrectness.*/bwd_data_bf16_3d:Pools/PoolCorrectness.*/bwd_weight_bf16_2d' \
          > "$OUT/oasan_$tool.txt" 2>&1
        echo "$tool: $(tail -n 1 "$OUT/oasan_$tool.txt") | $(cat /tmp/oasan_$tool/*.log 2>/dev/null | grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done
      unset GCONV_GPU_TEST_FILTER
      .device/gconv bench --problems .device/odd_pub.jsonl --provider cudnn --out /tmp/oddab/cudnn.csv --warmup 3 --repeats 9 \
        2> /tmp/oddab/cudnn.log
      for v in old new; do
        lib=""; [ $v = old ] && { [ -f .device/oldlib/libgconv.so ] || gunzip -k .device/oldlib/libgconv.so.gz; lib="$PWD/.device/oldlib:"; }
        echo "$v: $(LD_LIBRARY_PATH="$lib$LD_LIBRARY_PATH" ldd .device/gconv | grep libgconv)"
        LD_LIBRARY_PATH="$lib$LD_LIBRARY_PATH" GCONV_CACHE_DIR=/tmp/oddab_cache_$v .device/gconv bench \
          --problems .device/odd_pub.jsonl --filter 'family == igemm && vec == 1' --out /tmp/oddab/$v.csv --warmup 3 \
          --repeats 9 --jobs "$ncpu" 2> /tmp/oddab/$v.log
        echo "$v rc=$? $(tail -n 1 /tmp/oddab/$v.log)"
      done
      tar czf "$OUT/oddab.tar.gz" -C /tmp oddab ;;
    dwdata)
      # Depthwise rows of the held-out set: every direct kernel and cuDNN (native provider), then
      # the register-window kernels on the training set's depthwise problems (selector data),
      # for DW_DATA_S seconds (default 300).
      dw_rows() { awk -F, 'BEGIN{OFS=","} /^#/ {print; next} !h++ {for (i=1;i<=NF;i++) col[$i]=i; print; next}
        $col["c"] == $col["g"] && $col["k"] == $col["g"]' "$1"; }
      dw_rows problems/validation_holdout.csv > /tmp/dw_hold.csv; dw_rows problems/train_sweep.csv > /tmp/dw_train.csv
      echo "holdout depthwise: $(grep -vc '^#' /tmp/dw_hold.csv) lines, train: $(grep -vc '^#' /tmp/dw_train.csv) lines"
      .device/gconv bench --problems /tmp/dw_hold.csv --directions all --provider gconv,cudnn --filter 'family == direct' \
        --out /tmp/dw_hold_sweep.csv --warmup 3 --repeats 9 --jobs "$ncpu" --progress-s 60 2> "$OUT/dw_hold.log"
      echo "holdout bench rc=$?"; tail -n 1 "$OUT/dw_hold.log"
      pack /tmp/dw_hold_sweep.csv "$OUT/dw_holdout.csv.zst"
      python3 bench/depthwise_report.py /tmp/dw_hold_sweep.csv - | tee "$OUT/dw_holdout_report.txt"
      timeout -k 10 "${DW_DATA_S:-300}" .device/gconv bench --problems /tmp/dw_train.csv --directions all --filter 'window_w > 0' \
        --out /tmp/dw_train_sweep.csv --warmup 2 --repeats 5 --jobs "$ncpu" --progress-s 60 2> "$OUT/dw_train.log"
      echo "train bench rc=$?"; tail -n 1 "$OUT/dw_train.log"
      pack /tmp/dw_train_sweep.csv "$OUT/dw_train_window.csv.zst" ;;
    ncu)
      # Nsight Compute on one launch of chosen kernels (NCU_CASES: "spec|filter;..."): throughput
      # against the ceilings, memory traffic, warp stalls (NCU_EXTRA: more ncu arguments,
      # e.g. "--section SourceCounters --section SchedulerStats").
      IFS=';' read -ra cases <<<"${NCU_CASES:-fwd_bf16_n32c256k256_h56w56_y3x3_p1|family==wgmma && tile_m==256 && tile_n==128 && stages==4;fwd_bf16_n32c256k256_h56w56_y3x3_p1|family==igemm && tile_m==128 && tile_n==256 && tile_k==64 && stages==3 && warps_n==4}"
      i=0
      for c in "${cases[@]}"; do
        spec=${c%%|*}; filt=${c#*|}; i=$((i + 1))
        timeout -k 5 120 ncu --clock-control none --kernel-name "${NCU_KERNEL:-gconv_main}" --launch-skip 3 --launch-count 1 \
          --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
          --section LaunchStats --section ComputeWorkloadAnalysis ${NCU_EXTRA:-} \
          .device/gconv run "$spec" --policy exhaustive --filter "$filt" --tuning-cache off --warmup 3 --repeats 2 \
          > "$OUT/ncu_$i.txt" 2>&1
        echo "ncu $i rc=$? $spec [$filt]"
        grep -E "kernel  |Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|L1/TEX Cache Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Executed Ipc A|Issue Slots Busy|Stall|One or More|No Eligible" "$OUT/ncu_$i.txt" | head -n 30
      done ;;
    trace)
      # Phase clocks of wgmma kernels (GCONV_WGMMA_TRACE, bench/wgmma_trace.py) for TRACE_CASES
      # ("spec|filter;...", each filter naming one kernel): `gconv run` with 2 warm-up launches, the
      # last launch summarized; the raw lines in $OUT/trace_<i>.txt.
      IFS=';' read -ra cases <<<"${TRACE_CASES:?TRACE_CASES is spec|filter;...}"
      i=0
      for c in "${cases[@]}"; do
        spec=${c%%|*}; filt=${c#*|}; i=$((i + 1))
        GCONV_WGMMA_TRACE=${TRACE_BLOCKS:-160} timeout -k 5 120 .device/gconv run "$spec" --policy exhaustive \
          --filter "$filt" --tuning-cache off --warmup 2 --repeats 1 > "$OUT/trace_$i.txt" 2>&1
        echo "trace $i rc=$? $spec [$filt]"; grep -v "^WGT" "$OUT/trace_$i.txt" | tail -n 3
        python3 bench/wgmma_trace.py "$spec" < "$OUT/trace_$i.txt"
      done ;;
    wgprobe)
      timeout -k 5 "${TP_S:-120}" .device/wgmma_probe > "$OUT/wgmma_probe.txt" 2>&1
      echo "wgmma_probe rc=$?"; cat "$OUT/wgmma_probe.txt" ;;
    tmaprobe)
      timeout -k 5 "${TP_S:-120}" .device/tma_probe > "$OUT/tma_probe.txt" 2>&1
      echo "tma_probe rc=$?"; cat "$OUT/tma_probe.txt" ;;
    sass)
      dis=$(command -v cuobjdump || find / -xdev \( -name cuobjdump -o -name nvdisasm \) -type f 2>/dev/null | head -n 1)
      echo "disassembler: ${dis:-none}"
      sass_of() {  # cubin -> SASS text on stdout
        case "$dis" in *cuobjdump) "$dis" -sass "$1" ;; *nvdisasm) "$dis" -c "$1" ;; esac
      }
      [ -n "$dis" ] && sass_of .device/tma_probe 2>&1 | gzip > "$OUT/sass_tma_probe.txt.gz"
      IFS=';' read -ra cases <<<"${SASS_CASES:-}"
      i=0
      for c in "${cases[@]}"; do
        spec=${c%%|*}; filt=${c#*|}; i=$((i + 1))
        cd_=/tmp/sasscache_$i; rm -rf "$cd_"; mkdir -p "$cd_"
        GCONV_CACHE_DIR=$cd_ timeout -k 5 120 .device/gconv run "$spec" --policy exhaustive --filter "$filt" \
          --tuning-cache off --warmup 0 --repeats 1 2>&1 | tail -n 2
        for f in $(find "$cd_" -name '*.cubin'); do
          tail -c +49 "$f" > /tmp/k.cubin
          if [ -n "$dis" ]; then sass_of /tmp/k.cubin; else echo "no disassembler"; fi
        done 2>&1 | gzip > "$OUT/sass_$i.txt.gz"
        if [ -z "$dis" ]; then
          timeout -k 5 120 ncu --clock-control none --page source --print-source sass -k regex:gconv_main -c 1 \
            .device/gconv run "$spec" --policy exhaustive --filter "$filt" --tuning-cache off --warmup 0 --repeats 1 \
            2>&1 | gzip > "$OUT/sass_ncu_$i.txt.gz"
        fi
        echo "sass $i: $spec [$filt] $(zcat "$OUT/sass_$i.txt.gz" | wc -l) lines"
      done ;;
    ncusass)
      IFS=';' read -ra cases <<<"${NS_CASES:?NS_CASES is spec|filter;...}"
      i=0
      for c in "${cases[@]}"; do
        spec=${c%%|*}; filt=${c#*|}; i=$((i + 1))
        timeout -k 5 200 ncu --clock-control none --set full --import-source no --page source --print-source sass \
          --csv -k "regex:${NCU_KERNEL:-gconv_main}" -s 2 -c 1 .device/gconv run "$spec" --policy exhaustive --filter "$filt" \
          --tuning-cache off --warmup 2 --repeats 1 2> "$OUT/ncusass_$i.err" | gzip > "$OUT/ncusass_$i.csv.gz"
        echo "ncusass $i rc=$? $spec [$filt]: $(zcat "$OUT/ncusass_$i.csv.gz" | wc -l) lines"; tail -n 3 "$OUT/ncusass_$i.err"
      done ;;
    cudnnk)
      # cuDNN's kernels for CK_SPECS (space-separated gconv specs): names and mean times from
      # torch.profiler (cudnn.benchmark=True), then Nsight Compute on one call of each
      # (bench/cudnn_kernels.py --nvtx), the sections of the ncu stage.
      python3 bench/cudnn_kernels.py $CK_SPECS > "$OUT/cudnn_kernels.txt" 2>&1
      echo "cudnn_kernels rc=$?"; cat "$OUT/cudnn_kernels.txt"
      for spec in $CK_SPECS; do
        timeout -k 5 120 ncu --clock-control none --nvtx --nvtx-include "measure/" \
          --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
          --section LaunchStats --section ComputeWorkloadAnalysis ${NCU_EXTRA:-} \
          python3 bench/cudnn_kernels.py "$spec" --reps 1 --nvtx >> "$OUT/ncu_cudnn.txt" 2>&1
        echo "ncu cudnn rc=$? $spec"
      done
      grep -E "^  [a-zA-Z_].*\(|Duration|Compute \(SM\) Throughput|DRAM Throughput|L2 Cache Throughput|Registers Per|Achieved Occupancy|Block Size|Grid Size|Shared Memory Configuration Size|Executed Ipc A" "$OUT/ncu_cudnn.txt" | head -n 120 ;;
    sanitize)
      for tool in memcheck racecheck; do
        mkdir -p /tmp/san_$tool
        GCONV_GPU_TEST_SAMPLE=2 SANITIZE=$tool LOG_DIR=/tmp/san_$tool scripts/gpu-test .device '*bf16*' \
          > "$OUT/sanitize_$tool.txt" 2>&1
        echo "$tool: $(tail -n 1 "$OUT/sanitize_$tool.txt") | $(cat /tmp/san_$tool/*.log 2>/dev/null | grep -h 'ERROR SUMMARY' | sort | uniq -c | tr '\n' ' ')"
      done ;;
  esac
  echo "stage $stage: $(( $(date +%s) - start )) s"
done
# The device tool returns at most 8 files of $OUT (thirty-third session: a call's PyTorch timings
# were left behind): more than that go back as one tarball.
if [ "$(find "$OUT" -maxdepth 1 -type f | wc -l)" -gt 8 ]; then
  tar -czf /tmp/device_call_out.tar.gz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/device_call_out.tar.gz "$OUT/"
  echo "outputs: $OUT/device_call_out.tar.gz (more than 8 files)"
fi
