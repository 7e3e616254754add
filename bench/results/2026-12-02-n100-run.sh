#!/usr/bin/env bash
# Device script of bench/results/2026-12-02-n100-h200.md (repository root, .deps/device carried):
#   bash bench/results/2026-12-02-n100-run.sh gemm gvendor moved moved2 tf32 cvendor gemm-public final
#   gemm:    -gemm-jobs.txt: 8192 x 97..100 GEMMs (tests/gpu/gemm_awkward.txt's bias + gelu and
#            N = 97 lines, and the bias + gelu line with K = 4096) on forced tiles, boo only,
#            -V 1 first, two rounds: gemm.csv
#   gvendor: the same lines on dispatch's pick against cuBLASLt: gvendor.csv
#   tf32:    -tf32-jobs.txt: 3x3 convolutions with K = 64 (C = 64 backward data) on 256x64
#            cooperative tiles and 128x64 pingpong ones (dispatch's model ties them): tf32.csv
#   cvendor: the same lines on dispatch's pick against cuDNN: cvendor.csv
#   moved:   -moved-jobs.txt: the aligned GEMMs of the repository's lists whose pick the
#            model of rows off 128-byte lines moves, the old pick and the new one, boo only: moved.csv
#   moved2:  -moved2-jobs.txt: the lines whose pick moved with kOffLineRowCost at 2.5 to a
#            config not timed in `moved`, the old pick and the new one, boo only: moved2.csv
#   final:   -final-jobs.txt: the nine lines whose pick the landed model moves, on dispatch's
#            pick against cuBLASLt (GEMM lines) or cuDNN (the convolution): final-*.csv
#   gemm-public: the public GEMM list against cuBLASLt: gemm-public.csv
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh n100
J=bench/results/2026-12-02-n100
for phase in "$@"; do
  case "$phase" in
  gemm) timed gemm "$J-gemm-jobs.txt" base boo 420 ;;
  gvendor) vendor gvendor "$J-gemm-jobs.txt" cublaslt ;;
  tf32) timed tf32 "$J-tf32-jobs.txt" base boo 300 ;;
  cvendor) vendor cvendor "$J-tf32-jobs.txt" cudnn ;;
  moved) timed moved "$J-moved-jobs.txt" base boo 400 ;;
  moved2) timed moved2 "$J-moved2-jobs.txt" base boo 300 ;;
  final)
    grep -v convbfp16 "$J-final-jobs.txt" >/tmp/final-gemm-jobs.txt
    grep convbfp16 "$J-final-jobs.txt" >/tmp/final-conv-jobs.txt
    vendor final-gemm /tmp/final-gemm-jobs.txt cublaslt
    vendor final-conv /tmp/final-conv-jobs.txt cudnn ;;
  gemm-public) preload_public gemm; public_list gemm ;;
  *) echo "unknown phase $phase" ;;
  esac
done
