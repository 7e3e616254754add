#!/usr/bin/env bash
# Device script of bench/results/2026-12-02-tile-sweep-h200.md (repository root, .deps/device
# carried): bash bench/results/2026-12-02-tile-sweep-run.sh PHASE...
#   conv: -conv-jobs.txt: the public fp32 (tf32) 3x3 line channels-last on forced
#         conv.sm90_implicit tiles against dispatch's pick, and its public channels-first form
#         (the pick), boo and cuDNN, two rounds: conv.csv;
#   gemm: -gemm-jobs.txt: the public 16032 x 109 and x 113 GEMMs on forced gemm.sm90 tiles (A
#         shared by 1x2 clusters, 128-deep k-blocks, a 112-wide tile) against dispatch's pick,
#         boo and cuBLASLt, two rounds: gemm.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh tile-sweep
J=bench/results/2026-12-02-tile-sweep
for phase in "$@"; do
  case "$phase" in
  conv) timed conv "$J-conv-jobs.txt" base boo,cudnn 240 ;;
  gemm) timed gemm "$J-gemm-jobs.txt" base boo,cublaslt 200 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
