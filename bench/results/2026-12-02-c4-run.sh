#!/usr/bin/env bash
# Device script of bench/results/2026-12-02-c4-h200.md (repository root, .deps/device carried):
#   bash bench/results/2026-12-02-c4-run.sh c4 c4vendor     # call 1
#   bash bench/results/2026-12-02-c4-run.sh t160 pad        # call 2
#   bash bench/results/2026-12-02-c4-run.sh unaligned final shift # call 3
#   bash bench/results/2026-12-02-c4-run.sh cpasync         # call 4
#   bash bench/results/2026-12-02-c4-run.sh shift2          # call 5
#   bash bench/results/2026-12-02-c4-run.sh small unaligned # call 6 (unaligned as unaligned2)
#   c4:       -c4-jobs.txt: GEMMs where boo trails cuBLASLt (the public 16032 x 113 x 16384 and
#             four lines of tests/gpu/gemm_awkward.txt) on dispatch's pick and on forced tiles:
#             clusters of four CTAs (4x1), tiles whose waves fill the GPU, split-K; boo only,
#             -V 1 first, two rounds: c4.csv
#   c4vendor: the same lines on dispatch's pick against cuBLASLt: c4vendor.csv
#   t160:     -t160-jobs.txt: seven held-out GEMMs (random shapes) whose pick moves to a 160-wide
#             tile once the default rule set has them, on the old pick and the new; boo only,
#             -V 1 first, two rounds: t160.csv
#   pad:      -pad-jobs.txt: gemm.sm90_unaligned lines whose padded copies round rows that are
#             not whole 16-byte vectors, to 16 bytes (PAD_ROW_BYTES=16; call 2 ran it as `base`,
#             the default then) or to 128 (the default since), boo and cuBLASLt: pad.csv
#   unaligned: -unaligned.txt (twelve gemm.sm90_unaligned lines of tests/gpu) through the gate
#             with the padded copies' rows on 128-byte lines (the landed default)
#   final:    -final-jobs.txt: the nine lines whose pick moved to a 160-wide tile, on dispatch's
#             pick against cuBLASLt: final.csv
#   shift:    -shift-jobs.txt: two gemm.sm90_unaligned lines whose A columns are 8 and 24 KB
#             (element copies; the shifted copy takes columns of 64 KB and more) with the
#             shifted copy from 4 KB (SHIFT_LONG_COLUMN_BYTES=4096) and as landed (base): shift.csv
#   cpasync:  -cpasync-jobs.txt: three gemm.sm90_unaligned lines with K not a multiple of 8 on
#             persistent tiles in clusters of one (dispatch's pick, or forced), their mainloop TMA
#             behind padded copies (base) or CUTLASS's cp.async reading A and B in place at 4 or
#             8 bytes (GEMM_CPASYNC_BYTES; 8 applies where K is a multiple of 4): cpasync.csv; needs
#             -cpasync-experiments.diff applied (removed after this run)
#   shift2:   -shift2-jobs.txt: 8192 x 100 GEMMs (+bias +gelu) whose A columns are 2, 4 and 6 KB
#             (K 1030, 2050, 3074: element copies as landed), with the shifted copy from 1 KB
#             and 2 KB (SHIFT_LONG_COLUMN_BYTES) and at 8 KB (base, the default then), boo and cuBLASLt: shift2.csv
#   small:    -small-jobs.txt: smaller gemm.sm90_unaligned lines whose copied columns are 2-8 KB
#             (three fp32 lines of -unaligned.txt, three bf16 ones of about 1 MB a matrix), the
#             shifted copy from 2 KB (base, landed) and from 8 KB (the default before), boo and
#             cuBLASLt: small.csv
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh c4
J=bench/results/2026-12-02-c4
for phase in "$@"; do
  case "$phase" in
  c4) timed c4 "$J-c4-jobs.txt" base boo 420 ;;
  c4vendor) vendor c4vendor "$J-c4-jobs.txt" cublaslt ;;
  t160) timed t160 "$J-t160-jobs.txt" base boo 330 ;;
  pad) timed pad "$J-pad-jobs.txt" "PAD_ROW_BYTES=16 PAD_ROW_BYTES=128" boo,cublaslt 240 ;;
  unaligned) numerics unaligned "$J-unaligned.txt" ;;
  final) vendor final "$J-final-jobs.txt" cublaslt ;;
  shift) timed shift "$J-shift-jobs.txt" "base SHIFT_LONG_COLUMN_BYTES=4096" boo 200 ;;
  cpasync) timed cpasync "$J-cpasync-jobs.txt" \
    "base GEMM_CPASYNC_BYTES=4 GEMM_CPASYNC_BYTES=8" boo,cublaslt 400 ;;
  shift2) timed shift2 "$J-shift2-jobs.txt" \
    "base SHIFT_LONG_COLUMN_BYTES=1024 SHIFT_LONG_COLUMN_BYTES=2048" boo,cublaslt 300 ;;
  small) timed small "$J-small-jobs.txt" "base SHIFT_LONG_COLUMN_BYTES=8192" boo,cublaslt 300 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
