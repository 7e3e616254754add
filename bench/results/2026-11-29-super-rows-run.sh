#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-super-rows-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-29-super-rows-run.sh PHASE...
#   probe: the public C = 35 1x1 line (dispatch's pick) against cuDNN, and the dense problem its
#          super-rows of 8 pixels make (C = K = 280 over 24576 super-rows) on dispatch's pick and
#          six conv.sm90_implicit tiles, boo only, two rounds.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh super-rows
J=bench/results/2026-11-29-super-rows
for phase in "$@"; do
  case "$phase" in
  probe)
    ab probe base
    head -1 $J-probe-jobs.txt >/tmp/probe-c35.txt
    vendor probe-cudnn /tmp/probe-c35.txt cudnn --explain
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
