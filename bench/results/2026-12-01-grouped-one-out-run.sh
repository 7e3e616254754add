#!/usr/bin/env bash
# Device script of bench/results/2026-12-01-grouped-one-out-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-12-01-grouped-one-out-run.sh gate ab
#   gate: tests/gpu/conv_grouped_direct.txt (boo, -V 1): numerics-grouped-direct.csv;
#   ab:   -jobs.txt (ResNeXt's stride-2 G = 32 layers: c1024 14x14, whose plan now takes one output
#         tile and two blocks an SM, and c512 28x28, unchanged) with the plan (base) against
#         GROUPED_TMA_ONE_OUT=0 (three stages, one block, as before), boo only, two rounds: ab.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh grouped-one-out
J=bench/results/2026-12-01-grouped-one-out
for phase in "$@"; do
  case "$phase" in
  gate) numerics grouped-direct tests/gpu/conv_grouped_direct.txt ;;
  ab) timed ab "$J-jobs.txt" "base GROUPED_TMA_ONE_OUT=0" boo 150 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
