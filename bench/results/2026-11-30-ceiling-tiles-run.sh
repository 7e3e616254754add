#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-ceiling-tiles-h200.md (repository root,
# .deps/device carried):
#   bash bench/results/2026-11-30-ceiling-tiles-run.sh PHASE...
#   ceilings: `boo ceilings` (the bf16 GEMM and copy ceilings back to back and behind the
#         benchmark's hold, and one cold read of each --read-mb size): ceilings.txt;
#   gemm: the public GEMM list against cuBLASLt (-V 1, compiled first): gemm-public.csv;
#   conv: the public conv list against cuDNN (-V 1, compiled first): conv-public.csv;
#   sweep: -sweep-jobs.txt: the three large public GEMMs on dispatch's pick and on tiles whose
#         grid fills the last wave better (N = 176, 192, 224; 176 x 128 swapped, like
#         cuBLASLt's 176x128 in 1x2 clusters), boo and cuBLASLt, two rounds: sweep.csv;
#   sweep2: -sweep2-jobs.txt: the same GEMMs on stream-K (256x128 and 128x256 tiles, a
#         balanced last wave) and 128x128 pingpong tiles in pairs (55 waves where 128x256 takes
#         28), boo and cuBLASLt, two rounds: sweep2.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh ceiling-tiles
J=bench/results/2026-11-30-ceiling-tiles
for phase in "$@"; do
  case "$phase" in
  ceilings)
    timeout 120 "$boo" ceilings --read-mb 4 16 33.8 64 128 525 >"$R/ceilings.txt" 2>&1
    cat "$R/ceilings.txt"
    ;;
  gemm)
    preload_public gemm
    public_list gemm gemm-public.csv
    grep -o "cuBLASLt algo [^)]*)" "$L/gemm.log" | sort | uniq -c
    ;;
  conv)
    preload_public conv
    public_list conv conv-public.csv
    ;;
  sweep) timed sweep "$J-sweep-jobs.txt" base boo,cublaslt 400 ;;
  sweep2) timed sweep2 "$J-sweep2-jobs.txt" base boo,cublaslt 300 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
