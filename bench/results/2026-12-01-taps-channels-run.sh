#!/usr/bin/env bash
# Device script of bench/results/2026-12-01-taps-channels-h200.md (repository root,
# .deps/device carried): bash bench/results/2026-12-01-taps-channels-run.sh PHASE...
#   gate:   tests/gpu/conv_taps.txt with conv.sm90_taps first (BOO_CONV_TAPS=first), boo and
#           cuDNN: numerics-taps.csv;
#   ab:     -ab-jobs.txt (1x1 layers with C of 16 to 64, 3x3 with C 32 and 48, the 1x1 backward
#           data n64 c256 56x56 k64; the public 3x3) on dispatch's pick and on conv.sm90_taps
#           forced, boo only, two rounds: ab.csv;
#   steps:  -steps-jobs.txt (conv.sm90_taps forced, C 16 to 48) with a tap's k16 steps past C
#           skipped (base) against all four (TAPS_SKIP_STEPS=0), two rounds: steps.csv;
#   few:    -few-jobs.txt (C = 4 UNet inputs, the C = 3 stems) with conv.padded_channels' direct
#           kernel's tiles as planned (base: 256 pixels down to two blocks an SM) against down to
#           one block an SM (FEW_FILL=1), two rounds: few.csv;
#   stages: (call 2) -stages-jobs.txt (conv.sm90_taps forced: the 1x1 lines, 3x3 C 32, the 1x1
#           backward data) with the ring at most 3 stages (base) against 6 and 8
#           (TAPS_MAX_STAGES=6, =8), two rounds: stages.csv;
#   vendor: -vendor-jobs.txt (-ab-jobs.txt once each) on dispatch's pick against cuDNN (-V 1): vendor.csv; and with
#           conv.sm90_taps left out (BOO_CONV_TAPS=0), the picks of before: vendor-notaps.csv;
#   final:  (call 3, the landed tree) the gate again, and tests/gpu/conv_awkward.txt and
#           conv_gemm_1d.txt (two and one of their lines now dispatched to conv.sm90_taps) on
#           dispatch's picks, boo and cuDNN: numerics-taps.csv, numerics-awkward.csv,
#           numerics-gemm1d.csv;
#   misaligned: (call 4, the landed tree) the gate with operands one element past a 16-byte
#           boundary (--misalign), boo only: numerics-taps-misaligned.csv;
#   prof:   (call 5) ncu --set full of conv.sm90_taps on the held-out c40 -> k240 1x1
#           (BOO_CONV_TAPS=first; device_steps.sh's source_profile): prof-c40-*;
#   list:   the public conv list against cuDNN (-V 1): conv-public.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh taps-channels
J=bench/results/2026-12-01-taps-channels
for phase in "$@"; do
  case "$phase" in
  gate) BOO_CONV_TAPS=first NUMERICS_VENDORS=,cudnn numerics taps tests/gpu/conv_taps.txt ;;
  ab) ab ab base ;;
  steps) ab steps "base TAPS_SKIP_STEPS=0" ;;
  few) ab few "base FEW_FILL=1" ;;
  stages) ab stages "base TAPS_MAX_STAGES=6 TAPS_MAX_STAGES=8" ;;
  vendor)
    VENDOR_LIMIT=150 vendor vendor "$J-vendor-jobs.txt" cudnn -V 1
    BOO_CONV_TAPS=0 VENDOR_LIMIT=150 vendor vendor-notaps "$J-vendor-jobs.txt" cudnn -V 1
    ;;
  final)
    BOO_CONV_TAPS=first NUMERICS_VENDORS=,cudnn numerics taps tests/gpu/conv_taps.txt
    NUMERICS_VENDORS=,cudnn numerics awkward tests/gpu/conv_awkward.txt
    NUMERICS_VENDORS=,cudnn numerics gemm1d tests/gpu/conv_gemm_1d.txt
    ;;
  misaligned) BOO_CONV_TAPS=first numerics taps-misaligned tests/gpu/conv_taps.txt --misalign ;;
  prof)
    BOO_CONV_TAPS=first source_profile c40 conv_taps_wgmma \
      "$(grep -m1 -- '-c 40 ' "$J-vendor-jobs.txt" | cut -f2)"
    ;;
  list)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
