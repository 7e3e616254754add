#!/usr/bin/env bash
# The device call behind bench/results/2026-11-28-shifted-copy-h200.md (run from the repository
# root on the GPU machine, .deps/device carried): build, the A/B of the shifted copy against the
# element copies (BOO_SHIFTED_COPY=0) on views and padded GEMMs, conv.pointwise with its tiles in
# flight from the start (the variant needs 2026-11-28-pointwise-refill-experiments.diff applied),
# the numerics lists that run through the copies, and an ncu look at the 7x7 1x1 K = 2048 line's
# kernels (boo and cuDNN).
# Usage: bash bench/results/2026-11-28-shifted-copy-run.sh ab|checks|ab2|final (calls 1 and 2
# ran ab then checks on the machine the first left warm, its build and kernel cache; calls 3
# and 4 ran ab2 and AWKWARD=1 checks after the copy kernel's register fix; call 5 ran final).
set -uo pipefail
phase=${1:?ab, ab2, checks or final}
cd "$(dirname "$0")/../.."
rm -rf /tmp/shifted-copy-logs
source bench/device_steps.sh shifted-copy
views=bench/results/2026-11-28-shifted-copy-views-jobs.txt
padded=bench/results/2026-11-28-shifted-copy-padded-jobs.txt
if [ "$phase" = ab ]; then
step views 240 env JOBS=$views VARIANTS="base SHIFTED_COPY=0" REPS="1 2" BACKENDS=boo \
  DRIVER_FLAGS=--misalign CSV=views.csv bash bench/variants.sh
grep -E '^(base|SHIFTED)' "$L/views.log" | cut -c1-100
step padded 180 env JOBS=$padded VARIANTS="base SHIFTED_COPY=0" REPS="1 2" BACKENDS=boo,cublaslt \
  CSV=padded.csv bash bench/variants.sh
grep -E '^(base|SHIFTED)' "$L/padded.log" | cut -c1-100
# conv.pointwise with every stage's tile in flight from the start (BOO_POINTWISE_REFILL=1).
step pointwise 150 env JOBS=bench/results/2026-11-28-pointwise-refill-jobs.txt \
  VARIANTS="base POINTWISE_REFILL=1" REPS="1 2 3" BACKENDS=boo,cudnn CSV=pointwise.csv \
  bash bench/variants.sh
grep -E '^(base|POINTWISE)' "$L/pointwise.log" | cut -c1-100
fi
if [ "$phase" = ab2 ]; then
step views2 300 env JOBS=$views VARIANTS="base SHIFTED_COPY=0" REPS="1 2" BACKENDS=boo \
  DRIVER_FLAGS=--misalign CSV=views2.csv bash bench/variants.sh
step padded2 200 env JOBS=$padded VARIANTS="base SHIFTED_COPY=0" REPS="1 2" BACKENDS=boo,cublaslt \
  CSV=padded2.csv bash bench/variants.sh
fi
if [ "$phase" = final ]; then
# Call 5: four chunks a lane, or one where that leaves too few warps (kShiftFewItems); the 7x7
# 1x1 K = 2048 line on cuDNN's tile shape (nvjet 256x96, 2x1 clusters, seen by ncu in call 4).
line=$(grep -- '-c 512 -H 7 -W 7 -k 2048' bench/workloads/conv_public.txt)
cfg=gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t256x96x64_c2x1_coop_persistent_sw1.rh
"$boo" preload -j 2 --config $cfg "$line" >"$L/pre-7x7.log" 2>&1 &
step padded3 150 env JOBS=$padded VARIANTS="base SHIFTED_COPY=0" REPS="1 2" BACKENDS=boo,cublaslt \
  CSV=padded3.csv bash bench/variants.sh
step views3 70 env JOBS=bench/results/2026-11-28-shifted-copy-views3-jobs.txt \
  VARIANTS="base SHIFTED_COPY=0" REPS="1 2" BACKENDS=boo DRIVER_FLAGS=--misalign CSV=views3.csv \
  bash bench/variants.sh
wait
for round in 1 2; do
  step 7x7-dispatch-$round 20 "$boo" driver --backend boo,cudnn -V 1 --explain --iter 100 \
    --csv "$L/7x7-dispatch-$round.csv" "$line"
  step 7x7-forced-$round 20 "$boo" driver --backend boo -V 1 --config $cfg --iter 100 \
    --csv "$L/7x7-forced-$round.csv" "$line"
done
grep -hE '^>>> (boo|cudnn): min' "$L"/7x7-*.log | cut -c1-90
fi
if [ "$phase" = checks ] || [ "$phase" = final ]; then
# The numerics lists through the copies: compile, then the gate (-V 1) on operands one element
# past a 16-byte boundary.
numerics() {  # numerics NAME FILE [--misalign]
  step "$1-preload" 150 "$boo" preload -j 16 ${3:-} --commands-file "$2"
  step "$1" 100 "$boo" driver --backend boo -t 0 -V 1 --explain ${3:-} \
    --csv "$L/numerics-$1.csv" --commands-file "$2"
}
[ -n "${POINTWISE_PLAIN:-}" ] && numerics pointwise tests/gpu/conv_pointwise.txt
numerics pointwise-misaligned tests/gpu/conv_pointwise.txt --misalign
numerics depthwise-misaligned tests/gpu/conv_depthwise.txt --misalign
if [ "$phase" = checks ]; then
  export BOO_CONV_TAPS=first
  numerics taps-misaligned tests/gpu/conv_taps.txt --misalign
  unset BOO_CONV_TAPS
fi
numerics unaligned-misaligned tests/gpu/gemm_unaligned_fp8.txt --misalign
[ "$phase" = checks ] && numerics unaligned tests/gpu/gemm_unaligned_fp8.txt
[ -n "${AWKWARD:-}" ] && numerics awkward-misaligned tests/gpu/gemm_awkward.txt --misalign
if [ "$phase" = checks ]; then
line=$(grep -- '-c 512 -H 7 -W 7 -k 2048' bench/workloads/conv_public.txt)
step ncu-7x7 100 ncu --clock-control none --print-summary per-kernel \
  --metrics gpu__time_duration.sum "$boo" driver --backend boo,cudnn -t 0 "$line"
grep -E '^\s+[a-zA-Z_].*\(|gpu__time|gmma|dram__' "$L/ncu-7x7.log" | head -60
fi
fi
log done
