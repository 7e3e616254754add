#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-fp8-overlap-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-fp8-overlap-run.sh PHASE...
#   ab:     -ab-jobs.txt (eight fp8 GEMMs on dispatch's pick, and forced fp8 tiles: 128x192 and
#           128x128 cooperative, stream-K, split-K, 64x128 and 128x64 pingpong, one to five
#           k-tiles) with gemm.sm90's overlapped fp8 promotion (base) and CUTLASS's mainloop
#           (FP8_OVERLAPPED_PROMOTION=0), boo only, two rounds, -V 1 on each first: ab.csv;
#   ab2:    the same on -ab2-jobs.txt (the eight, the 128x192 control and 128x64 pingpong on
#           1024 x 1024 x 8192; call 1's ab ran out of its 400 s while timing): ab2.csv;
#   tiles:  -tiles-jobs.txt: three fp8 lines (short K 16384 x 8192 x 1024, 4096^3, 8192 x 4096 x
#           8192) on dispatch's pick and on other fp8 tiles (128x128 in 1x2 clusters, 128x64 and
#           64x128 pingpong, which overlap their promotion; 128x192, which keeps CUTLASS's), boo
#           only, two rounds: tiles.csv;
#   streamk: -streamk-jobs.txt: the five lines of the GEMM lists whose pick moved to stream-K with
#           the model of CUTLASS's stream-K decomposition (data-parallel waves, then shares), old
#           pick then new, boo only, two rounds: streamk.csv;
#   vendor: the jobs file's dispatch lines (the eight) against cuBLASLt: vendor.csv;
#   gate:   every fp8 line of tests/gpu/gemm_unaligned_fp8.txt, gemm_skinny_fp8.txt,
#           gemm_split_parallel.txt and gemm_awkward.txt against the reference and cuBLASLt
#           (-V 1): numerics-fp8.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh fp8-overlap
J=bench/results/2026-11-30-fp8-overlap
for phase in "$@"; do
  case "$phase" in
  ab | ab2) ab "$phase" "base FP8_OVERLAPPED_PROMOTION=0" ;;
  tiles | streamk) ab "$phase" base ;;
  vendor) vendor vendor <(grep -P '^-\t' "$J-ab-jobs.txt") cublaslt ;;
  gate)
    cat tests/gpu/gemm_unaligned_fp8.txt tests/gpu/gemm_skinny_fp8.txt \
      tests/gpu/gemm_split_parallel.txt tests/gpu/gemm_awkward.txt |
      grep -E "a_type: b?f8_r" >/tmp/fp8-lines.txt
    NUMERICS_VENDORS=,cublaslt numerics fp8 /tmp/fp8-lines.txt
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
