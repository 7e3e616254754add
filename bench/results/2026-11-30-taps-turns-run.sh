#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-taps-turns-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-taps-turns-run.sh PHASE...
#   ab:     -ab-jobs.txt (bench/workloads/conv_taps_ab.txt's twelve lines on conv.sm90_taps) with
#           the warpgroups' mma issued in turns (base) and left to themselves (TAPS_ORDERED=0),
#           boo only, two rounds: ab.csv;
#   gate:   tests/gpu/conv_taps.txt with conv.sm90_taps first, boo and cuDNN (-V 1):
#           numerics-taps.csv;
#   vendor: the jobs file's lines with dispatch's pick against cuDNN: vendor.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh taps-turns
J=bench/results/2026-11-30-taps-turns
for phase in "$@"; do
  case "$phase" in
  ab) ab ab "base TAPS_ORDERED=0" ;;
  gate) BOO_CONV_TAPS=first NUMERICS_VENDORS=,cudnn numerics taps tests/gpu/conv_taps.txt ;;
  vendor) vendor vendor "$J-ab-jobs.txt" cudnn ;;
  *) echo "unknown phase $phase" ;;
  esac
done
