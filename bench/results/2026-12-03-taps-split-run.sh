#!/usr/bin/env bash
# Device script of bench/results/2026-12-03-taps-split-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-12-03-taps-split-run.sh gate ab     # call 1, on d0786dd
# (the split was in the tree then; reverted after call 1: -experiments.diff restores it, applied
# with git apply to the tree it was reverted from)
#   gate: tests/gpu/conv_taps.txt with conv.sm90_taps first (BOO_CONV_TAPS=first), boo and cuDNN
#         (its K = 120, 136, 144, 200, 240 forward lines and C = 96, 136 backward data lines have
#         a last chunk narrower than 64 channels): numerics-taps.csv
#   ab:   -jobs.txt: conv.sm90_taps forced on four lines whose last chunk of K is narrower (the
#         held-out 1x1 expansions c24 -> k144, c16 -> k96 and c40 -> k240; a 3x3 C = 48 -> K = 96,
#         mma-bound: a control the split leaves even), a k192 control (three full chunks) and a
#         backward data line with C = 96; blocks split by the chunks' weights (base) and evenly
#         (TAPS_SPLIT=0), boo and cuDNN, -V 1 first, two rounds: ab.csv
#   Hypothesis: c24 -> k144 37.5 us -> about 31 (the full chunks' blocks 44 -> 54 each, 18 -> 15
#   tiles), c16 -> k96 about 15% faster, c40 -> k240 a few percent (last chunk 48 of 64); the
#   3x3 and k192 controls unchanged.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh taps-split
J=bench/results/2026-12-03-taps-split
for phase in "$@"; do
  case "$phase" in
  gate) BOO_CONV_TAPS=first NUMERICS_VENDORS=,cudnn numerics taps tests/gpu/conv_taps.txt ;;
  ab) timed ab "$J-jobs.txt" "base TAPS_SPLIT=0" boo,cudnn 330 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
