#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-profiles-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-29-profiles-run.sh PHASE...
#   prof:   ncu on three lines far from their memory floors, one launch each, dispatch's pick:
#           the public depthwise 3x3 (n64 c144 56x56, conv.depthwise's row kernel), the public
#           C = 35 1x1 (conv.pointwise) and the 4096 x 16 x 4096 decode GEMM: speed of light,
#           memory workload, warp states, scheduler, occupancy (-NAME-ncu.txt).
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh profiles profiles-logs.tgz
J=bench/results/2026-11-29-profiles
profile() {  # profile NAME KERNEL_REGEX COMMAND: one launch under ncu, $R/NAME-ncu.txt
  local name=$1 regex=$2 cmd=$3
  step "$name-preload" 200 "$boo" preload -j 8 "$cmd"
  log "$name-ncu"
  timeout 150 ncu --clock-control none -k "regex:$regex" --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Chart \
    --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
    "$boo" driver --backend boo -t 0 "$cmd" >"$R/$name-ncu.txt" 2>&1
  grep -E "Duration|Throughput|Stall|Issued|Occupancy|Registers|Grid Size|Block Size|Hit Rate" \
    "$R/$name-ncu.txt" | head -40
}
for phase in "$@"; do
  case "$phase" in
  prof)
    profile depthwise depthwise "$(grep -- '-c 144 -H 56' bench/workloads/conv_public.txt | head -1)"
    profile pointwise35 pointwise "$(grep -- '-c 35 -H 48' bench/workloads/conv_public.txt | head -1)"
    profile decode16 'device_kernel|gemm' "$(grep -- 'N: 16,' bench/workloads/gemm_public.log | head -1)"
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
