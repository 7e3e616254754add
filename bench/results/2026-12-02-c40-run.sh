#!/usr/bin/env bash
# Device script of bench/results/2026-12-02-c40-h200.md (repository root, .deps/device carried):
#   bash bench/results/2026-12-02-c40-run.sh tiles     # call 1
#   bash bench/results/2026-12-02-c40-run.sh c64       # call 2
#   bash bench/results/2026-12-02-c40-run.sh class     # prepared, not run
#   tiles: -jobs.txt: the held-out n64 c40 28x28 k240 1x1 (conv.gemm_1x1: GEMM m240 n50176 k40)
#          on dispatch's pick (128x128 pingpong, 1x2) and on 256-row cooperative tiles that
#          cover a pixel's 240 channels in one tile (256x128 in clusters of 1 and 1x2, 256x64),
#          boo and cuDNN, two rounds: tiles.csv
#   class: -class-jobs.txt: four more one-k-block 1x1 layers (C 24-64 -> K 144-256; two picked by
#          conv.gemm_1x1, two by conv.sm90_taps) on dispatch's pick and on 256x128 cooperative
#          GEMM tiles in clusters of 1 and 1x2, boo and cuDNN, two rounds: class.csv
#   c64:   -c64-jobs.txt: the class's first line (n64 c64 56x56 -> k256) on the pick and on
#          256x128 cooperative tiles in 1x2 clusters, boo only (the last minutes of device time)
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh c40
J=bench/results/2026-12-02-c40
for phase in "$@"; do
  case "$phase" in
  tiles) timed tiles "$J-jobs.txt" base boo,cudnn 240 ;;
  class) timed class "$J-class-jobs.txt" base boo,cudnn 400 ;;
  c64) timed c64 "$J-c64-jobs.txt" base boo 150 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
