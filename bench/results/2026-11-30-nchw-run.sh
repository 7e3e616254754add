#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-nchw-h200.md (repository root, .deps/device carried):
#   bash bench/results/2026-11-30-nchw-run.sh PHASE...
#   split: the public list's two channels-first lines (bf16 n64 c256 14x14 k256 3x3, fp32 n32
#          c64 56x56 k64 3x3) and the same problems channels-last (-lines.txt), boo and cuDNN,
#          -V 1: split.csv; then each channels-first line's launches under ncu (speed of light,
#          one line a kernel: the layout copies and the convolution), split-{bf16,fp32}-ncu.txt.
#   tiles: -tiles-jobs.txt: the bf16 line's problem (channels-last, and channels-first through the
#          copies) on conv.sm90_implicit tiles of 64 columns or rows (392 tiles: 2.97 waves,
#          against 128x128's 196 in 1.48), boo only, two rounds: tiles.csv.
#   after: the bf16 line channels-first and channels-last through dispatch (the load rate of 16
#          TB/s: 128x64 pingpong tiles), boo and cuDNN, -V 1, twice: after{1,2}.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh nchw
J=bench/results/2026-11-30-nchw
for phase in "$@"; do
  case "$phase" in
  split)
    step split-preload 240 "$boo" preload -j 16 --commands-file "$J-lines.txt"
    step split 200 "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 --explain \
      --csv "$R/split.csv" --commands-file "$J-lines.txt"
    grep -E "^>>> (boo: min|cudnn: min|speedup)" "$L/split.log" | cut -c1-120
    for i in 1 3; do
      name=split-$( ((i == 1)) && echo bf16 || echo fp32)
      timeout 150 ncu --clock-control none --section SpeedOfLight --launch-count 40 \
        "$boo" driver --backend boo -t 0 "$(sed -n "${i}p" "$J-lines.txt")" >"$R/$name-ncu.txt" 2>&1
      grep -E "^  [a-zA-Z_].*\(|Duration" "$R/$name-ncu.txt" | cut -c1-110
    done
    ;;
  after)
    sed -n 1,2p "$J-lines.txt" >/tmp/nchw-bf16.txt
    step after-preload 200 "$boo" preload -j 16 --commands-file /tmp/nchw-bf16.txt
    for round in 1 2; do
      step "after$round" 120 "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 --explain \
        --csv "$R/after$round.csv" --commands-file /tmp/nchw-bf16.txt
      grep -E "^>>> (boo: min|cudnn: min|speedup)|chose conv" "$L/after$round.log" | cut -c1-140
    done
    ;;
  tiles) timed tiles "$J-tiles-jobs.txt" base ;;
  *) echo "unknown phase $phase" ;;
  esac
done
