#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-wgrad-pipe-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-wgrad-pipe-run.sh PHASE...
#   prof:  the public 3x3 backward weight under ncu, both kernels (conv.split_wgrad's wgmma
#          kernel and its slice reduction): prof-ncu.txt;
#   sweep: -sweep-jobs.txt (six stride-1 backward-weight lines on the wgmma kernel) with the
#          stage and tile-size macros: base (2 stages, about 256 pixels a tile), 3 stages, 128
#          pixels in 4 stages, 192 pixels in 3 stages; boo only, two rounds: sweep.csv;
#   row:   the same lines with the 3 taps of a filter row as one m64n192k16 a k-step (base), as
#          three m64n64k16 (WGRAD_WGMMA_ROW=0, the kernel before), and with 3 k-steps in flight
#          (WGRAD_WGMMA_DEPTH=3); boo only, two rounds: row.csv;
#   skip:  with -skip-experiments.diff applied (on 0683f3f): the six lines with no TMA copies
#          after a block's first stages (WGRAD_WGMMA_SKIP=1: the mma and barriers alone) and with
#          no mma
#          (WGRAD_WGMMA_SKIP=2: the copies alone), boo only (their numerics fail), one round:
#          skip.csv; then the public line's stall reasons (ncu): stalls-ncu.txt;
#   ss:    the six lines with both operands from shared memory (dy's tile as an MN-major A: no
#          ldmatrix, no A registers) and up to 2 more k-steps in flight (base), 1 more
#          (WGRAD_WGMMA_DEPTH=1), 4 more (WGRAD_WGMMA_DEPTH=4), and A in registers as landed in
#          0683f3f (WGRAD_WGMMA_SS=0); boo only, two rounds: ss.csv;
#   final: the public conv list's and the gate list's kernels compiled at once, then the gate
#          (boo, -V 1: numerics-final.csv) and the public conv list against cuDNN (-V 1):
#          conv-public.csv;
#   defer: with -defer-experiments.diff applied (on 5bbb3b0): the six lines with each tile's
#          wgmma issued as one group and its stage released one tile later
#          (WGRAD_WGMMA_DEFER=1: no wait for the tile's last k-steps before the next
#          tile's) against base, two rounds: defer.csv; then the gate list with it (boo, -V 1):
#          numerics-defer.csv;
#   store4: with -store4-experiments.diff applied (on 27d268c): -store4-jobs.txt (the public line
#          and n64 c128 28x28) with each slice's fp32 dw stored as 16-byte vectors (lanes swap a
#          pair; WGRAD_WGMMA_STORE4=1) against base (8-byte), boo only, two rounds: store4.csv;
#   nostore: the same diff with the slices' stores left out (WGRAD_WGMMA_NOSTORE=1: the reduction
#          sums whatever the workspace holds; numerics fail) against base: nostore.csv;
#   gate:  tests/gpu/conv_wgrad_wgmma.txt with the direct kernels first, boo and cuDNN (-V 1):
#          numerics-wgmma.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh wgrad-pipe
J=bench/results/2026-11-30-wgrad-pipe
PUBLIC="convbfp16 -n 64 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 4 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
for phase in "$@"; do
  case "$phase" in
  prof)
    step prof-preload 120 "$boo" preload -j 4 "$PUBLIC"
    timeout 200 ncu --clock-control none -k regex:wgrad --launch-count 2 \
      --section SpeedOfLight --section WarpStateStats --section SourceCounters \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy \
      --section LaunchStats --section SchedulerStats \
      "$boo" driver --backend boo -t 0 "$PUBLIC" >"$R/prof-ncu.txt" 2>&1
    grep -E "wgrad|Duration|Throughput|Issued|Eligible|Registers" "$R/prof-ncu.txt" | head -40
    ;;
  row) timed row "$J-sweep-jobs.txt" "base WGRAD_WGMMA_ROW=0 WGRAD_WGMMA_DEPTH=3" boo 400 ;;
  skip)
    OUT="$R" JOBS="$J-sweep-jobs.txt" REPS="1" BACKENDS=boo CSV=skip.csv \
      VARIANTS="base WGRAD_WGMMA_SKIP=1 WGRAD_WGMMA_SKIP=2" timeout 300 bash bench/variants.sh \
      >"$L/skip.log" 2>&1
    summary "$R/skip.csv" 70 40
    timeout 150 ncu --clock-control none -k regex:wgrad_wgmma --launch-count 1 \
      --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
      --section WarpStateStats "$boo" driver --backend boo -t 0 "$PUBLIC" >"$R/stalls-ncu.txt" 2>&1
    grep -E "stalled|Warp Cycles" "$R/stalls-ncu.txt" | sort -k3 -n -r | head -24
    ;;
  ss) timed ss "$J-sweep-jobs.txt" "base WGRAD_WGMMA_DEPTH=1 WGRAD_WGMMA_DEPTH=4 WGRAD_WGMMA_SS=0" boo 400 ;;
  final)
    step preload-conv 300 "$boo" preload -j 10 --commands-file bench/workloads/conv_public.txt &
    BOO_CONV_WGRAD_DIRECT=first step preload-gate 300 "$boo" preload -j 6 \
      --commands-file tests/gpu/conv_wgrad_wgmma.txt &
    wait
    BOO_CONV_WGRAD_DIRECT=first step final 150 "$boo" driver --backend boo -t 0 -V 1 \
      --csv "$R/numerics-final.csv" --commands-file tests/gpu/conv_wgrad_wgmma.txt
    public_list conv
    ;;
  defer)
    timed defer "$J-sweep-jobs.txt" "base WGRAD_WGMMA_DEFER=1" boo 300
    BOO_NVCC_FLAGS=-DBOO_WGRAD_WGMMA_DEFER=1 BOO_CONV_WGRAD_DIRECT=first \
      numerics defer tests/gpu/conv_wgrad_wgmma.txt
    ;;
  store4) timed store4 "$J-store4-jobs.txt" "base WGRAD_WGMMA_STORE4=1" boo 150 ;;
  nostore) timed nostore "$J-store4-jobs.txt" "base WGRAD_WGMMA_NOSTORE=1" boo 120 ;;
  gate) BOO_CONV_WGRAD_DIRECT=first NUMERICS_VENDORS=,cudnn numerics wgmma tests/gpu/conv_wgrad_wgmma.txt ;;
  sweep) ab sweep "base WGRAD_WGMMA_STAGES=3 WGRAD_WGMMA_PIXELS=128+WGRAD_WGMMA_STAGES=4 WGRAD_WGMMA_PIXELS=192+WGRAD_WGMMA_STAGES=3" ;;
  *) echo "unknown phase $phase" ;;
  esac
done
