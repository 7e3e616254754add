#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-split-sum-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-split-sum-run.sh PHASE...
#   gate:   tests/gpu/gemm_split_parallel.txt and conv_wgrad_1x1.txt against the reference:
#           numerics-split-sum.csv, numerics-wgrad-sum.csv (call 3 ran it on 065145d with
#           BOO_NVCC_FLAGS=-DBOO_PSPLITK_SUM=1, the switch that chose gemm_split_sum_kernel then;
#           it is the only reduction since);
#   ab:     (call 3, on 065145d: the switch is gone since) -ab-jobs.txt (the 1x1 backward
#           weight's GEMM 128 x 384 x 147456 on its pick, psplitk18; 4096 x 16 x 4096 on
#           psplitk2; the public conv line n128 c128 24x48 k384 1x1 backward weight, dispatch's
#           pick) with the reduction of one thread per 4 rows (PSPLITK_SUM=1)
#           against the block reduction (base), boo only, two rounds: ab.csv;
#   public: both public lists against the vendors (-V 1), compiled first: conv-public.csv,
#           gemm-public.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh split-sum
J=bench/results/2026-11-30-split-sum
for phase in "$@"; do
  case "$phase" in
  gate)
    numerics split-sum tests/gpu/gemm_split_parallel.txt
    numerics wgrad-sum tests/gpu/conv_wgrad_1x1.txt
    ;;
  ab) ab ab "base PSPLITK_SUM=1" ;;
  public) public_lists ;;
  *) echo "unknown phase $phase" ;;
  esac
done
