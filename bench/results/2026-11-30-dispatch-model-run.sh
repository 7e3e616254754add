#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-dispatch-model-h200.md (repository root,
# .deps/device carried):
#   bash bench/results/2026-11-30-dispatch-model-run.sh PHASE...
#   ab: -jobs.txt: the lines whose pick the model's changes move (the held-out batched short-K
#       GEMM and four test-list lines), dispatch's new pick ("-") against the old one (forced),
#       and clusters along M or N for 128x256 tiles over NT and TN operands; boo and cuBLASLt,
#       two rounds: ab.csv (its convolution lines failed there: cuBLASLt runs no convolution).
#   gemm: the held-out GEMM list on the new picks against cuBLASLt, -V 1: gemm-models.csv;
#       then -conv-jobs.txt (the two convolution lines of the first phase, and split-K for the
#       wgrad) against cuDNN, two rounds: conv-ab.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh dispatch-model
for phase in "$@"; do
  case "$phase" in
  ab) timed ab bench/results/2026-11-30-dispatch-model-jobs.txt base boo,cublaslt 420 ;;
  gemm)
    while IFS=$'\t' read -r c cmd; do
      cfg=()
      [ "$c" = - ] || cfg=(--config "$c")
      "$boo" preload -j 2 "${cfg[@]}" "$cmd" >>"$L/preload-conv-ab.log" 2>&1 &
    done <bench/results/2026-11-30-dispatch-model-conv-jobs.txt
    step preload-gemm-models 240 "$boo" preload -j 16 --commands-file bench/workloads/gemm_models.log
    step gemm-models 200 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 --explain \
      --csv "$R/gemm-models.csv" --commands-file bench/workloads/gemm_models.log
    grep -E '^>>> speedup|error' "$L/gemm-models.log" | cut -c1-120
    wait
    timed conv-ab bench/results/2026-11-30-dispatch-model-conv-jobs.txt base boo,cudnn 150
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
