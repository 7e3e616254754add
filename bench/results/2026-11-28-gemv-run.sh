#!/usr/bin/env bash
# Device script of bench/results/2026-11-28-gemv-h200.md (repository root, .deps/device carried):
#   bash bench/results/2026-11-28-gemv-run.sh PHASE...
#   gate:   tests/gpu/conv_persistent.txt's gate (persistent kernels first), and its two SD-UNet
#           c320 lines with dispatch's pick (128x160 cooperative tiles on one N = 160 MMA);
#   waves:  the read ceiling at the single-column decode sizes, then single-column GEMMs of about
#           117 MB whose row tiles fill 1, 2, 3 or 4 waves of the streaming loop's blocks exactly,
#           beside 14336 x 1 x 4096 (3.4 waves), against cuBLASLt, two rounds;
#   stream: gemm.skinny's streaming loop on single-column lines, boo only, two rounds: L2
#           prefetches of the next 1 or 2 steps (SKINNY_STREAM_AHEAD), 256-byte L2 fills
#           (SKINNY_STREAM_L2=256), two accumulator chains (SKINNY_STREAM_CHAINS=2), and 4 or 2
#           warps a row tile (forced _stream4, _stream2 configs);
#   bulk:   tests/gpu/gemm_skinny.txt's gate with the bulk-copy loop, then the loop against the
#           streaming loop (SKINNY_BULK=0) on single-column lines, boo only, two rounds, then
#           those lines with dispatch's pick against cuBLASLt, then the public GEMM list (its
#           kernels compiled in the background from the start);
#   early:  the bulk-copy loop's first copies issued before S is in shared memory against after
#           (SKINNY_BULK_EARLY=0) and the streaming loop (SKINNY_BULK=0), boo only, two rounds
#           (the public conv list's kernels compiled in the background), then those lines with
#           dispatch's pick against cuBLASLt, then the public conv list against cuDNN;
#   final:  the final tree: tests/gpu/gemm_skinny.txt's gate, the early-copy lines with dispatch's
#           pick against cuBLASLt, the public GEMM list;
#   conv:   the public conv list against cuDNN;
#   lists:  both public lists against cuDNN and cuBLASLt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh gemv
J=bench/results/2026-11-28-gemv
for phase in "$@"; do
  case "$phase" in
  gate)
    numerics persistent tests/gpu/conv_persistent.txt
    tail -2 tests/gpu/conv_persistent.txt >/tmp/c320.txt
    step c320 120 "$boo" driver --backend boo -t 0 -V 1 --explain --csv "$R/numerics-c320.csv" \
      --commands-file /tmp/c320.txt
    grep -E "verify|config|algorithm" "$L/c320.log" | cut -c1-150 | head -12
    ;;
  waves)
    step preload-waves 200 "$boo" preload -j 8 --commands-file $J-waves-lines.log
    step ceilings 120 "$boo" ceilings --read-mb 33.6 116.8 117.5 1051
    cat "$L/ceilings.log"
    for rep in 1 2; do
      step waves$rep 120 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 \
        --csv "$R/waves$rep.csv" --commands-file $J-waves-lines.log
      grep -E "^>>> (boo: min|cublaslt: min|speedup)|FAIL" "$L/waves$rep.log" | cut -c1-120
    done
    ;;
  stream)
    ab stream "base SKINNY_STREAM_AHEAD=1 SKINNY_STREAM_AHEAD=2 SKINNY_STREAM_L2=256 SKINNY_STREAM_CHAINS=2"
    ;;
  bulk)
    preload_public gemm 4 &
    pre=$!
    numerics skinny tests/gpu/gemm_skinny.txt
    ab bulk "base SKINNY_BULK=0"
    vendor bulk-vendor $J-bulk-jobs.txt cublaslt --explain
    wait "$pre"
    public_list gemm gemm-public.csv 200
    ;;
  early)
    preload_public conv 12 &
    pre=$!
    ab early "base SKINNY_BULK_EARLY=0 SKINNY_BULK=0"
    vendor early-vendor $J-early-jobs.txt cublaslt
    wait "$pre"
    public_list conv conv-public.csv
    ;;
  final)
    preload_public gemm 4 &
    pre=$!
    numerics final-skinny tests/gpu/gemm_skinny.txt
    vendor final-vendor $J-early-jobs.txt cublaslt -V 1
    wait "$pre"
    public_list gemm final-gemm-public.csv 200
    ;;
  conv)
    preload_public conv
    public_list conv conv-public.csv
    ;;
  lists)
    public_lists 200
    ;;
  esac
done
log done
