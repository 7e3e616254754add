#!/usr/bin/env bash
# Device script of bench/results/2026-12-03-device-bandwidth-h200.md (repository root,
# .deps/device carried):
#   bash bench/results/2026-12-03-device-bandwidth-run.sh prep      # call 1
#   bash bench/results/2026-12-03-device-bandwidth-run.sh bw c7     # call 2 (a fresh machine)
#   prep:   the GPU as boo describes it (the memory clock x bus width bandwidth); the kernels of
#           -lines.txt compiled for both bandwidths (cut off at 240 s: bw finishes them); the
#           kernels cuDNN runs on the 7x7 1x1 K = 2048 line (ncu, per kernel):
#           cudnn-7x7-kernels.txt.
#   c7:     -c7-jobs.txt: the 7x7 1x1 K = 2048 line on dispatch's pick and on 256 x 96
#           cooperative tiles (cuDNN ran nvjet_sm90_tst_256x96_64x4_2x1 there in prep: 264
#           tiles, two waves of 132), boo and cuDNN, two rounds: c7.csv.
#   bw:     -lines.txt (22 of the 49 lines of the repository's lists whose pick moves when the
#           model's bandwidth is the device's instead of 3350 GB/s; all 49 in -moved-all.tsv)
#           with dispatch's pick at BOO_MODEL_BANDWIDTH_GBS=3350 (`old`) and at the device's
#           bandwidth (`new`), -V 1
#           first, then two rounds of each, interleaved: bw-{old,new}-{1,2}.csv.
#           Expected (written before the call): the moves that widen tiles on memory-bound
#           lines (GEMMs of 640 x 384 x 320 and smaller) within noise; the conv moves to
#           split_wgrad and the fp8 skinny moves 0.9-1.1x; no line over 10% slower.
#           Call 2 ran on a tree whose model took the device's bandwidth (4814 GB/s, as `boo
#           parse` printed in call 1); main's model keeps 3350, so `new` sets
#           BOO_MODEL_BANDWIDTH_GBS=4814 explicitly.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/device_steps.sh device-bandwidth
J=bench/results/2026-12-03-device-bandwidth
lines=$J-lines.txt
preload_both() {
  step preload-old 240 env BOO_MODEL_BANDWIDTH_GBS=3350 "$boo" preload -j 8 --commands-file "$lines" &
  step preload-new 240 env BOO_MODEL_BANDWIDTH_GBS=4814 "$boo" preload -j 8 --commands-file "$lines" &
  wait
}
for phase in "$@"; do
  case "$phase" in
  prep)
    nvidia-smi --query-gpu=name,clocks.max.memory,clocks.max.sm,memory.total --format=csv
    "$boo" parse --candidates 1 "gemm -m 64 -n 64 -k 64" 2>&1 | grep "ranked for"
    preload_both
    c7="convbfp16 -n 64 -c 512 -H 7 -W 7 -k 2048 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
    timeout 120 ncu --clock-control none --print-summary per-kernel --metrics gpu__time_duration.sum \
      "$boo" driver --backend cudnn,boo -t 1 --iter 5 "$c7" >"$R/cudnn-7x7-kernels.txt" 2>&1
    grep -E "^  [a-zA-Z_].*\(|Invocations|gpu__time_duration" "$R/cudnn-7x7-kernels.txt" | head -60
    ;;
  c7) timed c7 "$J-c7-jobs.txt" base boo,cudnn 200 ;;
  bw)
    preload_both
    step verify-old 200 env BOO_MODEL_BANDWIDTH_GBS=3350 "$boo" driver --backend boo -t 0 -V 1 --commands-file "$lines"
    step verify-new 200 env BOO_MODEL_BANDWIDTH_GBS=4814 "$boo" driver --backend boo -t 0 -V 1 --explain --commands-file "$lines"
    grep -B3 "verify boo: FAIL\|error" "$L/verify-new.log" | head -20
    for rep in 1 2; do
      step "old-$rep" 150 env BOO_MODEL_BANDWIDTH_GBS=3350 "$boo" driver --backend boo -t 1 --iter 100 \
        --csv "$R/bw-old-$rep.csv" --commands-file "$lines"
      step "new-$rep" 150 env BOO_MODEL_BANDWIDTH_GBS=4814 "$boo" driver --backend boo -t 1 --iter 100 --csv "$R/bw-new-$rep.csv" \
        --commands-file "$lines"
    done
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
