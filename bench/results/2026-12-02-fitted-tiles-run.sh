#!/usr/bin/env bash
# Device script of bench/results/2026-12-02-fitted-tiles-h200.md (repository root, .deps/device
# carried): bash bench/results/2026-12-02-fitted-tiles-run.sh ab
#   ab: -jobs.txt: GEMMs of N 97 to 112 (the public 16032 x 109 x 16384 and tests/gpu/
#       gemm_awkward.txt's bias + gelu and N = 97 lines) on dispatch's pick (128-wide tiles narrowed to 112)
#       against the same tile 128 wide, boo and cuBLASLt, -V 1 first, two rounds: ab.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh fitted-tiles
J=bench/results/2026-12-02-fitted-tiles
for phase in "$@"; do
  case "$phase" in
  ab) timed ab "$J-jobs.txt" base boo,cublaslt 200 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
