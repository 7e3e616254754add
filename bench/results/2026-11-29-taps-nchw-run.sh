#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-taps-nchw-h200.md (repository root, .deps/device
# carried), on a tree with the kernel applied (it is not on main):
#   git apply bench/results/2026-11-29-taps-nchw-experiments.diff
#   bash bench/results/2026-11-29-taps-nchw-run.sh PHASE...
#   gate:   tests/gpu/conv_taps_nchw.txt (BOO_CONV_TAPS=first), and the lists whose fp32
#           channels-first picks move to the kernel (conv_awkward.txt, conv_tf32_1x1.txt,
#           conv_persistent.txt) against the reference (boo, -V 1), their kernels compiled first;
#   vendor: -jobs.txt's lines on dispatch's pick against cuDNN (-V 1);
#   quick:  the first gate list, then vendor;
#   before: -jobs.txt's lines with BOO_CONV_TAPS=0 (the channels-last copies around
#           conv.sm90_implicit, what dispatch ran before), boo only;
#   prof:   the public fp32 line and -jobs.txt's 1x1 line under ncu (every kernel of a run);
#   public: the public conv list against cuDNN (-V 1), compiled first.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh taps-nchw taps-nchw-logs.tgz
J=bench/results/2026-11-29-taps-nchw
for phase in "$@"; do
  case "$phase" in
  gate)
    BOO_CONV_TAPS=first numerics taps-nchw tests/gpu/conv_taps_nchw.txt
    numerics awkward tests/gpu/conv_awkward.txt
    numerics tf32-1x1 tests/gpu/conv_tf32_1x1.txt
    numerics persistent tests/gpu/conv_persistent.txt
    ;;
  quick)  # the kernel's own list and the vendor lines only
    BOO_CONV_TAPS=first numerics taps-nchw tests/gpu/conv_taps_nchw.txt
    vendor cudnn "$J-jobs.txt" cudnn -V 1 --explain
    ;;
  vendor)
    vendor cudnn "$J-jobs.txt" cudnn -V 1 --explain
    ;;
  before)
    cut -f2 "$J-jobs.txt" >/tmp/taps-nchw-lines.txt
    BOO_CONV_TAPS=0 step before-preload 240 "$boo" preload -j 16 --commands-file /tmp/taps-nchw-lines.txt
    BOO_CONV_TAPS=0 step before 150 "$boo" driver --backend boo -t 1 --iter 100 -V 1 \
      --csv "$R/before.csv" --commands-file /tmp/taps-nchw-lines.txt
    grep -E "^>>> boo: min|config" "$L/before.log" | cut -c1-140
    ;;
  prof)  # the public fp32 line and a small 1x1 one (every kernel of one run each)
    i=0
    for line in "$(grep '^conv ' bench/workloads/conv_public.txt | head -1)" \
      "$(sed -n 8p "$J-jobs.txt" | cut -f2)"; do
      i=$((i + 1))
      "$boo" preload --commands-file <(echo "$line") >/dev/null 2>&1
      timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
        --section LaunchStats --section WarpStateStats --section SchedulerStats \
        --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.sum \
        "$boo" driver --backend boo -t 0 "$line" >"$R/ncu-$i.txt" 2>&1
      grep -E "conv_taps|Duration|Throughput|hmma|Issued|Stall|Registers|Grid Size|Achieved Occ" "$R/ncu-$i.txt" | head -30
    done
    ;;
  public)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
