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
#           dispatch's pick against cuBLASLt and cuDNN;
#   gates:  tests/gpu/gemm_unaligned_fp8.txt, the NCHW lines of tests/gpu/conv_awkward.txt and
#           the tf32 lists;
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
  gates)
    numerics unaligned tests/gpu/gemm_unaligned_fp8.txt
    grep -E '^conv' tests/gpu/conv_awkward.txt | grep -v 'in_layout N[DHW]*C' >/tmp/awk-nchw.txt
    numerics awkward-nchw /tmp/awk-nchw.txt
    for f in tests/gpu/*tf32*.txt; do [ -f "$f" ] && numerics "$(basename "$f" .txt)" "$f"; done
    ;;
  conv) preload_public conv && public_list conv conv-public.csv ;;
  gemm) preload_public gemm && public_list gemm gemm-public.csv 200 ;;
  lists) public_lists ;;
  *) echo "unknown phase $phase" ;;
  esac
done
