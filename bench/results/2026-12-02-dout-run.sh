#!/usr/bin/env bash
# Device script of the D-copy-out experiment (prepared 2026-12-02, run 2026-12-03; repository
# root, .deps/device carried):
#   bash bench/results/2026-12-02-dout-run.sh dout     # call 1 (on c2d8e0d, where the diff applies)
#   bash bench/results/2026-12-02-dout-run.sh landed   # call 2 (on the change as landed)
#   dout: applies -experiments.diff (the shifted copy launchable as a programmatic dependent,
#         BOO_SHIFT_DEPENDENT_OUT), then times -jobs.txt: four gemm.sm90_unaligned GEMMs whose D
#         is copied out in 4-6 KB columns (epilogues dispatch does not write in place), D's copy
#         as element copies (base: the 8 KB threshold landed), as a shifted copy launched on its
#         own (SHIFT_LONG_COLUMN_BYTES_OUT=2048) and as a shifted copy launched as the GEMM's
#         programmatic dependent (both macros), boo only, -V 1 first, two rounds: dout.csv
#   Hypothesis: the dependent shifted copy is the fastest of the three wherever D is over 2 MB;
#   the shifted copy on its own about 3% slower than base (2026-11-28: 1001 x 1024 fp32 D).
#   landed: the gate on 2026-12-02-c4-unaligned.txt (twelve gemm.sm90_unaligned lines of
#         tests/gpu), with aligned and with --misalign pointers, then -jobs.txt on the landed
#         tree against cuBLASLt, -V 1 first, two rounds: landed.csv
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = dout ]; then
  D=bench/results/2026-12-02-dout-experiments.diff  # git apply works outside a repository too
  git apply "$D" 2>/dev/null || patch -p1 <"$D" || { echo "the diff does not apply"; exit 1; }
fi
source bench/device_steps.sh dout
J=bench/results/2026-12-02-dout
U=bench/results/2026-12-02-c4-unaligned.txt
for phase in "$@"; do
  case "$phase" in
  landed)
    numerics unaligned "$U"
    numerics unaligned-misaligned "$U" --misalign
    timed landed "$J-jobs.txt" base boo,cublaslt 240 ;;
  dout) timed dout "$J-jobs.txt" \
    "base SHIFT_LONG_COLUMN_BYTES_OUT=2048 SHIFT_LONG_COLUMN_BYTES_OUT=2048+SHIFT_DEPENDENT_OUT=1" \
    boo 420 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
