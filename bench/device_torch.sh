#!/usr/bin/env bash
# The PyTorch package on the GPU machine: GPU tests, then the benchmarks.
# From the repository root, after `source .device/env.sh` (libgconv.so in
# .device/lib), with $OUT set by the device (default /tmp/out):
#   bash bench/device_torch.sh [STAGE...]      (default: tests overhead train)
# Stages:
#   tests     tests/python/gpu/test_torch_gpu.py (outputs and gradients vs
#             torch, opcheck, torch.compile, CUDA graphs, two streams); ~1-3 min,
#             most of it NVRTC compiles on a cold JIT cache
#   overhead  bench/torch_overhead.py -> $OUT/torch_overhead.csv, then
#             bench/torch_overhead_host.py -> $OUT/torch_overhead_host.csv; ~1 min
#   train     bench/torch_train_step.py -> $OUT/train_step.csv, train_step_losses.csv;
#             NETS (comma list, default all six) x MODES (default all four):
#             pairs not started in time are written as skipped_budget rows:
#             run again with the rest in NETS
# The whole call stays within BUDGET_S seconds (default 570, under the
# device's 10-minute limit): each stage is cut at what is left, and train
# starts no (network, mode) pair in its last TRAIN_TAIL_S seconds (default
# 150: one pair, torch.compile included, fits). Each stage's log is
# $OUT/<stage>.log. The JIT cache ($GCONV_CACHE_DIR, default .jitcache,
# shared with bench/device_call.sh) survives between calls while the machine
# stays warm, so a second call compiles nothing. A full run, in 4 calls:
#   bash bench/device_torch.sh tests overhead
#   NETS=resnet50,mobilenet_v2 bash bench/device_torch.sh train
#   NETS=resnext50_32x4d,regnet_y_400mf bash bench/device_torch.sh train
#   NETS=convnext_tiny,r3d_18 bash bench/device_torch.sh train
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -f .device/env.sh ]] && source .device/env.sh
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export GCONV_LIBRARY=${GCONV_LIBRARY:-$PWD/.device/lib/libgconv.so}
# The device library is not installed beside its configs and models: name them.
export GCONV_CONFIG_DIR=${GCONV_CONFIG_DIR:-$PWD/configs}
export GCONV_CACHE_DIR=${GCONV_CACHE_DIR:-$PWD/.jitcache}
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
[[ -f $GCONV_LIBRARY ]] || { echo "device_torch: no library at $GCONV_LIBRARY" >&2; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$py" -c "import torch, gconv; print('torch', torch.__version__, 'gconv', gconv.version(), gconv.library_path())"
status=0
deadline=$(( $(date +%s) + ${BUDGET_S:-570} ))
left() { echo $(( deadline - $(date +%s) )); }
stages=("$@")
(( ${#stages[@]} )) || stages=(tests overhead train)
for stage in "${stages[@]}"; do
  start=$(date +%s)
  if (( $(left) < 20 )); then echo "== $stage: skipped, the budget is spent"; status=1; continue; fi
  case $stage in
    tests)
      timeout -k 5 "$(left)" "$py" tests/python/gpu/test_torch_gpu.py > "$OUT/tests.log" 2>&1 || status=1
      grep -E "^(PASS|FAIL)|passed, " "$OUT/tests.log" ;;
    overhead)
      timeout -k 5 "$(left)" "$py" bench/torch_overhead.py --out "$OUT/torch_overhead.csv" \
        > "$OUT/overhead.log" 2>&1 || status=1
      column -s, -t < "$OUT/torch_overhead.csv" 2>/dev/null || tail -n 20 "$OUT/overhead.log"
      # The Python layers alone on this machine's CPU (library call stubbed; needs cc).
      timeout -k 5 "$(left)" "$py" bench/torch_overhead_host.py > "$OUT/torch_overhead_host.csv" \
        2>> "$OUT/overhead.log" && tr '\n' ' ' < "$OUT/torch_overhead_host.csv" && echo ;;
    train)
      budget=$(( $(left) - ${TRAIN_TAIL_S:-150} ))
      (( budget > 0 )) || budget=1
      timeout -k 5 "$(left)" "$py" bench/torch_train_step.py --out "$OUT" --budget-s "$budget" \
        --networks "${NETS:-resnet50,resnext50_32x4d,mobilenet_v2,convnext_tiny,regnet_y_400mf,r3d_18}" \
        --modes "${MODES:-stock_eager,gconv_eager,stock_compile,gconv_compile}" > "$OUT/train.log" 2>&1 || status=1
      column -s, -t < "$OUT/train_step.csv" 2>/dev/null | cut -c1-250 || tail -n 20 "$OUT/train.log" ;;
    *) echo "device_torch: unknown stage $stage (tests, overhead, train)" >&2; status=1 ;;
  esac
  echo "== $stage: $(( $(date +%s) - start )) s"
done
exit $status
