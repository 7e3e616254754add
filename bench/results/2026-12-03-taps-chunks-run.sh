#!/usr/bin/env bash
# Device script of bench/results/2026-12-03-taps-chunks-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-12-03-taps-chunks-run.sh gate ab     # call 1
#   bash bench/results/2026-12-03-taps-chunks-run.sh prof        # prepared, not run
#   bash bench/results/2026-12-03-taps-chunks-run.sh public      # prepared, not run
#   gate: tests/gpu/conv_taps.txt with conv.sm90_taps first (BOO_CONV_TAPS=first), boo and cuDNN
#         (its 1x1 lines with K = 120, 128, 136, 144, 200, 240 and the backward data 1x1 with
#         C = 256 take every chunk in each block): numerics-taps.csv
#   ab:   -jobs.txt: conv.sm90_taps forced on eight 1x1 layers whose K takes 2 to 4 chunks (the
#         held-out expansions k144, k96, k240, k192, fp16 c48 -> k256; c64 -> k256 and k128, and
#         the backward data c256 <- k64), dispatch's pick on c64 -> k128, and a 3x3 control (one
#         chunk a block either way); every chunk in each block (base) against a chunk a block
#         (TAPS_ALL_CHUNKS=0), boo and cuDNN, -V 1 first, two rounds: ab.csv
#   prof: ncu --set full of conv.sm90_taps (every chunk in each block) on the two held-out 1x1
#         layers still behind cuDNN on it, c40 -> k240 28x28 and c32 -> k192 56x56, and of
#         cuDNN's kernel on the first: prof-*-details.txt, prof-*-src.txt (where their time goes)
#   public: both public lists against their vendors on this tree (conv-public.csv,
#         gemm-public.csv): the first run of the lists since 2026-12-02's shifted copies and
#         this change (neither is expected to move a public line: no public GEMM is on
#         gemm.sm90_unaligned and the public conv.sm90_taps lines have one chunk)
#   Hypothesis: each input tile read once and each pixel's channels stored together take the
#   held-out expansions to cuDNN's level or past it (k144 37.5 -> about 30 us, k96 67 -> about
#   58); C = 64 lines gain less (their input is a smaller share); the 3x3 control unchanged.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh taps-chunks
J=bench/results/2026-12-03-taps-chunks
for phase in "$@"; do
  case "$phase" in
  gate) BOO_CONV_TAPS=first NUMERICS_VENDORS=,cudnn numerics taps tests/gpu/conv_taps.txt ;;
  ab) timed ab "$J-jobs.txt" "base TAPS_ALL_CHUNKS=0" boo,cudnn 330 ;;
  prof)
    c40="convbfp16 -n 64 -c 40 -H 28 -W 28 -k 240 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
    c32="convbfp16 -n 32 -c 32 -H 56 -W 56 -k 192 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
    BOO_CONV_TAPS=first source_profile c40 conv_taps_wgmma "$c40"
    BOO_CONV_TAPS=first source_profile c32 conv_taps_wgmma "$c32"
    step c40-cudnn-ncu 150 ncu --clock-control none --set full -k "regex:nvjet|xmma|cutlass" -c 1 \
      -o "$L/c40-cudnn" "$boo" driver --backend cudnn -t 0 "$c40"
    ncu --import "$L/c40-cudnn.ncu-rep" --page details >"$R/prof-c40-cudnn-details.txt" 2>&1
    grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occ|Grid Size|Block Size" \
      "$R/prof-c40-cudnn-details.txt" | head -10 ;;
  public) public_lists 240 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
