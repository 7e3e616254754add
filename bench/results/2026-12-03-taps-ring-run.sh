#!/usr/bin/env bash
# Device script of bench/results/2026-12-03-taps-ring-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-12-03-taps-ring-run.sh gate ab prof   # call 1: the ring everywhere
#   bash bench/results/2026-12-03-taps-ring-run.sh gate final      # call 2: the landed rule
#   bash bench/results/2026-12-03-taps-ring-run.sh picks           # call 3 (main e4a860e)
#   gate: tests/gpu/conv_taps.txt with conv.sm90_taps first (BOO_CONV_TAPS=first), boo and cuDNN
#         (its 1x1 lines with K = 120, 128, 136, 144, 200, 240 and the backward data 1x1 with
#         C = 256 take every chunk in each block, now through the ring): numerics-taps.csv
#   ab:   -jobs.txt: conv.sm90_taps forced on eleven 1x1 layers whose K takes 2 to 4 chunks (the
#         eight of 2026-12-03-taps-chunks and three held out of it: n128 c16 56x56 -> k96,
#         n32 c56 14x14 -> k192, n64 c32 28x28 -> k128 +bias +relu), dispatch's pick on
#         c40 -> k240, and the 3x3 control (one chunk a block: not changed); the ring of two
#         output buffers a warpgroup (base) against one (TAPS_OUT_RING=0), boo and cuDNN, -V 1
#         first, two rounds: ab.csv
#   final: -final-jobs.txt: the landed rule (the ring only where it keeps the stages one buffer
#         leaves: c40 -> k240 forced and dispatch's pick, c56 14x14 -> k192, c32 -> k128
#         +bias +relu) and two lines it leaves on one buffer (k144, c16 -> k96), against one
#         buffer everywhere (TAPS_OUT_RING=0), boo and cuDNN, two rounds: final.csv
#   picks: -picks-jobs.txt: ten 1x1 layers with C of 16-56 and K of 2-4 chunks held out of the
#         calls before (sizes 14x14 to 56x56, fp16, bias + relu), each forced onto
#         conv.sm90_taps and on dispatch's pick (the GEMM on eight), boo and cuDNN, two rounds:
#         picks.csv. Question: where is the GEMM model's pick wrong on this class (c40 -> k240:
#         GEMM predicted 14.8 us, measured 17.9; taps 14.2)?
#   prof: ncu --set full of conv.sm90_taps on c40 -> k240 with the ring (2026-12-03-taps-chunks
#         `prof` has it with one buffer): prof-c40-details.txt, prof-c40-src.txt
#   Hypothesis: under ncu the leaders of c40 -> k240 waited about half the kernel for their
#   stores to read the output buffer; with two buffers a warpgroup those waits leave the chain
#   (the store of a chunk reads while the next chunk's mma and epilogue run), so 3- and 4-chunk
#   layers gain 10-25% (c40 -> k240 15.2 -> about 12 us, k144 29.0 -> about 25), 2-chunk layers
#   less, the 3x3 control nothing.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/device_steps.sh taps-ring
J=bench/results/2026-12-03-taps-ring
for phase in "$@"; do
  case "$phase" in
  gate) BOO_CONV_TAPS=first NUMERICS_VENDORS=,cudnn numerics taps tests/gpu/conv_taps.txt ;;
  ab) timed ab "$J-jobs.txt" "base TAPS_OUT_RING=0" boo,cudnn 360 ;;
  picks) timed picks "$J-picks-jobs.txt" base boo,cudnn 330 ;;
  final) timed final "$J-final-jobs.txt" "base TAPS_OUT_RING=0" boo,cudnn 300 ;;
  prof)
    c40="convbfp16 -n 64 -c 40 -H 28 -W 28 -k 240 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
    BOO_CONV_TAPS=first source_profile c40 conv_taps_wgmma "$c40" ;;
  *) echo "unknown phase $phase" ;;
  esac
done
