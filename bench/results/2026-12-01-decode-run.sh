#!/usr/bin/env bash
# Device script of bench/results/2026-12-01-decode-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-12-01-decode-run.sh PHASE...
#   floor:  `boo ceilings` (one read of 4-525 MB of fresh bytes, timed as the protocol times:
#           hold, cold L2, events, medians of 100, beside each size's floor): floor.txt;
#   decode: -decode-jobs.txt (the public 4096 x 16 x 4096 bf16 GEMM: dispatch's pick,
#           gemm.skinny's cp.async split loop with K split auto, 2, 4 and 8 ways, its streaming
#           loop with 8 warps a row tile, and gemm.sm90 t64x16x128 with two parallel K slices)
#           against cuBLASLt, two rounds: decode.csv;
#   narrow: -narrow-jobs.txt (the same GEMM with N = 1, 8 and 32: 33.6 MB of A streamed each) with
#           dispatch's pick against cuBLASLt, two rounds: narrow.csv;
#   gate:   tests/gpu/conv_wgrad_wgmma.txt on main's kernel (direct kernels first, -V 1):
#           numerics-wgmma.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh decode
J=bench/results/2026-12-01-decode
for phase in "$@"; do
  case "$phase" in
  floor)
    timeout 200 "$boo" ceilings --read-mb 4 8 17 34 67 117 256 525 | tee "$R/floor.txt"
    ;;
  decode) timed decode "$J-jobs.txt" base boo,cublaslt 300 ;;
  narrow) timed narrow "$J-narrow-jobs.txt" base boo,cublaslt 200 ;;
  gate) BOO_CONV_WGRAD_DIRECT=first numerics wgmma tests/gpu/conv_wgrad_wgmma.txt ;;
  *) echo "unknown phase $phase" ;;
  esac
done
