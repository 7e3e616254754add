#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-depthwise-rolling-h200.md (repository root,
# .deps/device carried):
#   bash bench/results/2026-11-29-depthwise-rolling-run.sh PHASE...
#   gate:   tests/gpu/conv_depthwise.txt and conv_depthwise_backward.txt against the reference
#           (boo, -V 1), their kernels compiled first;
#   ab:     -ab-jobs.txt (3x3 stride-1 depthwise layers) on the rolling kernel (base) against the
#           row kernel (DEPTHWISE_ROLLING=0), segments for 2 and 8 waves and 4 outputs a thread,
#           boo only, two rounds; then cuDNN on the same lines (dispatch's pick beside it);
#   prof:   the public 3x3 layer under ncu (one launch of the depthwise kernel): -ncu.txt;
#   rows:   (call 3) -ab-jobs.txt on plan_of's segments (base) against segments of 7 and 12 rows
#           and the row kernel, boo only, two rounds (-rows.csv);
#   public: the public conv list against cuDNN (-V 1), compiled first;
#   vendor: (call 4, the final tree) -ab-jobs.txt's lines on dispatch's pick against cuDNN (-V 1);
#   images: (call 5, after `git apply bench/results/2026-11-29-depthwise-rolling-images-
#           experiments.diff`) -ab-jobs.txt with images sharing blocks (base) against the row
#           kernel, boo only, two rounds (-images.csv).
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh depthwise-rolling rolling-logs.tgz
J=bench/results/2026-11-29-depthwise-rolling
for phase in "$@"; do
  case "$phase" in
  gate)
    numerics depthwise tests/gpu/conv_depthwise.txt
    numerics depthwise-backward tests/gpu/conv_depthwise_backward.txt
    ;;
  ab)
    ab ab "base DEPTHWISE_ROLLING=0 DEPTHWISE_ROLLING_WAVES=2 DEPTHWISE_ROLLING_WAVES=8 DEPTHWISE_ROLLING_OUTPUTS=4" boo
    vendor cudnn "$J-ab-jobs.txt" cudnn -V 1
    ;;
  prof)
    line=$(grep -- '-c 144 -H 56' bench/workloads/conv_public.txt | head -1)
    timeout 150 ncu --clock-control none -k regex:depthwise --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats \
      "$boo" driver --backend boo -t 0 "$line" >"$R/ncu.txt" 2>&1
    grep -E "Duration|Throughput|Issued|Executed Ipc|Occupancy|Registers|Grid Size" "$R/ncu.txt" | head -30
    ;;
  rows)  # (the ab phase's jobs)
    cp "$J-ab-jobs.txt" /tmp/depthwise-rolling-rows-jobs.txt
    J=/tmp/depthwise-rolling ab rows "base DEPTHWISE_ROLLING_ROWS=7 DEPTHWISE_ROLLING_ROWS=12 DEPTHWISE_ROLLING=0" boo
    ;;
  images)  # (the ab phase's jobs)
    cp "$J-ab-jobs.txt" /tmp/depthwise-rolling-images-jobs.txt
    J=/tmp/depthwise-rolling ab images "base DEPTHWISE_ROLLING=0" boo
    ;;
  vendor)
    vendor cudnn-final "$J-ab-jobs.txt" cudnn -V 1
    ;;
  public)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
