#!/usr/bin/env bash
# Device script of bench/results/2026-11-28-copies-tf32-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-28-copies-tf32-run.sh PHASE...
#   short:  gemm.sm90_unaligned's element copies with several short columns an item (base) against
#           one column an item (PAD_GROUP_COLUMNS=0), boo only, two rounds: batched NN GEMMs with
#           49- and 196-element columns (NCHW 1x1 layers on 7x7 and 14x14 images), a batched TN
#           GEMM with 72-element columns, and the NCHW 1x1 layers forced onto conv.gemm_1x1; then
#           the jobs' lines with dispatch's pick against the vendors;
#   f32:    fp32 (tf32) GEMMs in every transpose and fp32 1x1 convolutions in every direction,
#           dispatch's pick against cuBLASLt and cuDNN (call 1: gemm.fallback and conv.direct;
#           call 2: gemm.sm90_unaligned behind transposed copies); then (f32-forced) the fp32
#           NCHW 1x1 forward lines on conv.sm90_implicit behind the channels-last copies;
#   gates:  tests/gpu/gemm_unaligned_fp8.txt, the NCHW lines of tests/gpu/conv_awkward.txt and
#           tests/gpu/gemm_awkward.txt;
#   tf32-gates: tests/gpu/gemm_tf32_transposed.txt and tests/gpu/conv_tf32_1x1.txt;
#   recheck: (call 4) four lines of gemm_tf32_transposed.txt on the final tree;
#   final:  (call 3) the two lines of gemm_tf32_transposed.txt with C (their 128x16 tiles failed to
#           compile in call 2; fp32 C now takes N >= 32), then `gates` without gemm_awkward.txt and
#           `f32`, all kernels compiled first;
#   conv, gemm, lists: the public lists against cuDNN and cuBLASLt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh copies-tf32
J=bench/results/2026-11-28-copies-tf32
for phase in "$@"; do
  case "$phase" in
  short)
    ab short "base PAD_GROUP_COLUMNS=0"
    grep -P '\tconv' $J-short-jobs.txt >/tmp/conv-short.txt
    grep -P '\t- ' $J-short-jobs.txt >/tmp/gemm-short.txt
    vendor short-cudnn /tmp/conv-short.txt cudnn --explain
    vendor short-cublaslt /tmp/gemm-short.txt cublaslt --explain
    ;;
  f32)
    vendor f32-gemm $J-f32-gemm-jobs.txt cublaslt --explain
    vendor f32-conv $J-f32-conv-jobs.txt cudnn --explain
    ;;
  f32-forced)
    OUT="$R" JOBS=$J-f32-forced-jobs.txt REPS="1" BACKENDS=boo CSV=f32-forced.csv VARIANTS=base \
      timeout 300 bash bench/variants.sh >"$L/f32-forced.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/f32-forced.log" | cut -c1-150
    summary "$R/f32-forced.csv" 70 50
    ;;
  gates)
    numerics unaligned tests/gpu/gemm_unaligned_fp8.txt
    grep -E '^conv' tests/gpu/conv_awkward.txt | grep -v 'in_layout N[DHW]*C' >/tmp/awk-nchw.txt
    numerics awkward-nchw /tmp/awk-nchw.txt
    numerics gemm-awkward tests/gpu/gemm_awkward.txt
    ;;
  tf32-gates)
    numerics gemm-tf32 tests/gpu/gemm_tf32_transposed.txt
    numerics conv-tf32 tests/gpu/conv_tf32_1x1.txt
    ;;
  final)  # call 3: one preload of everything below, then the gates and the fp32 timings
    sed -n '16p;19p' tests/gpu/gemm_tf32_transposed.txt >/tmp/tf32-c.txt
    grep -E '^conv' tests/gpu/conv_awkward.txt | grep -v 'in_layout N[DHW]*C' >/tmp/awk-nchw.txt
    cut -f2 $J-f32-gemm-jobs.txt >/tmp/f32-gemm.txt
    cut -f2 $J-f32-conv-jobs.txt >/tmp/f32-conv.txt
    for f in /tmp/tf32-c.txt tests/gpu/gemm_unaligned_fp8.txt /tmp/awk-nchw.txt /tmp/f32-gemm.txt \
      /tmp/f32-conv.txt; do
      "$boo" preload -j 6 --commands-file "$f" >>"$L/final-preload.log" 2>&1 &
    done
    wait
    grep -c FAILED "$L/final-preload.log"
    numerics tf32-c /tmp/tf32-c.txt
    numerics unaligned tests/gpu/gemm_unaligned_fp8.txt
    numerics awkward-nchw /tmp/awk-nchw.txt
    vendor f32-gemm $J-f32-gemm-jobs.txt cublaslt --explain
    vendor f32-conv $J-f32-conv-jobs.txt cudnn --explain
    ;;
  recheck)  # call 4: the final tree (plan_copy merged, review fixes) on four tf32 lines
    sed -n '8p;9p;14p;16p' tests/gpu/gemm_tf32_transposed.txt >/tmp/recheck.txt
    numerics recheck /tmp/recheck.txt
    ;;
  conv) preload_public conv && public_list conv conv-public.csv ;;
  gemm) preload_public gemm && public_list gemm gemm-public.csv 200 ;;
  lists) public_lists ;;
  *) echo "unknown phase $phase" ;;
  esac
done
