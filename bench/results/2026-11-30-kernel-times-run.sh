#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-kernel-times-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-kernel-times-run.sh PHASE...
#   kernels: each line of -lines.txt run by boo and by cuDNN (-t 1 --iter 3) under ncu, one
#            metric (gpu__time_duration), at most 80 launches; consecutive launches of one kernel
#            printed as one row: count, median us, name (the vendor's kernel names give its
#            tiles); the raw CSVs in ncu-N-BACKEND.csv inside logs.tgz;
#   sweep:   -sweep-jobs.txt: the two 1x1 lines under 0.95x cuDNN in the held-out list (c40 ->
#            k240, c144 -> k24) on dispatch's pick, on other gemm.sm90 tiles of their GEMM and on
#            conv.sm90_implicit tiles, boo only, two rounds: sweep.csv;
#   vendor:  the sweep's conv lines against cuDNN: vendor.csv;
#   prof:    boo's kernel of lines 1, 3, 4 and 5 of -lines.txt (grouped backward weight on 7x7
#            and 28x28 planes, the grouped stride-2 forward, c40 -> k240) under ncu (bench/
#            device_steps.sh's `profile` sections and SourceCounters): prof-N-ncu.txt;
#   gates:   numerics on the tree: tests/gpu/conv_wgrad_grouped.txt (direct kernel first, boo and
#            cuDNN), conv_wgrad_direct.txt (direct kernel first), conv_grouped.txt,
#            conv_grouped_direct.txt, and conv_grouped_direct.txt with GROUPED_TMA_HALF2=1;
#   ab:      -wgrad-jobs.txt (grouped backward weight) with the grouped epilogue's shifts (base)
#            and its divisions (WGRAD_GROUP_EPI_OLD=1, the measured tree's switch), and
#            -tma-jobs.txt (grouped forward, stride 2 and 1) with the TMA kernel's plans (base)
#            and 64-pixel tiles of two stages, two blocks an SM, first where the 128-pixel ones do
#            not fit two (GROUPED_TMA_HALF2=1), boo only, two rounds: ab-wgrad.csv, ab-tma.csv;
#            then both jobs files against cuDNN: vendor-wgrad.csv, vendor-tma.csv;
#   final:   (the landed tree: the shifts, and the two-block 64-pixel plan by default) both jobs
#            files against cuDNN (final-wgrad.csv, final-tma.csv), then the gates of
#            conv_wgrad_grouped.txt (direct kernel first, boo and cuDNN) and conv_grouped_direct.txt;
#   rescue:  (the tree where the grouped runner takes the TMA plan without the cp.async one)
#            tests/gpu/conv_grouped.txt and conv_grouped_direct.txt against the reference, then
#            -rescue-jobs.txt (two stride-2 layers of 32-channel groups whose cp.async tiles do not
#            fit: on dispatch's pick, now the TMA kernel, and on the dense expansion they fell back
#            to) boo only, two rounds, and their picks against cuDNN: rescue.csv,
#            rescue-vendor.csv;
#   models:  (the landed tree) the held-out conv list (bench/workloads/conv_models.txt), compiled
#            first, against cuDNN with -V 1: conv-models.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh kernel-times
J=bench/results/2026-11-30-kernel-times
kernel_rows() {  # kernel_rows CSV: ncu's CSV as rows of (count, median us, name)
  python3 - "$1" <<'PY'
import csv, statistics, sys
rows, col = [], None
for r in csv.reader(open(sys.argv[1])):
    if r and r[0] == "ID":
        col = {h: i for i, h in enumerate(r)}
        continue
    if col is None or len(r) < len(col) or r[col["Metric Name"]] != "gpu__time_duration.sum":
        continue
    unit, v = r[col["Metric Unit"]], float(r[col["Metric Value"]].replace(",", ""))
    us = {"ns": v / 1000, "nsecond": v / 1000, "ms": v * 1000, "msecond": v * 1000}.get(unit, v)
    rows.append((r[col["Kernel Name"]], us))
groups = []
for name, us in rows:
    if any(s in name for s in ("fill", "random", "flush", "hold_kernel", "read_sweep")):
        continue
    if groups and groups[-1][0] == name:
        groups[-1][1].append(us)
    else:
        groups.append((name, [us]))
for name, xs in groups:
    print(f"    {len(xs):3d} x {statistics.median(xs):9.2f} us  {name[:150]}")
PY
}
for phase in "$@"; do
  case "$phase" in
  kernels)
    step kernels-preload 240 "$boo" preload -j 16 --commands-file "$J-lines.txt"
    n=0
    while IFS= read -r line; do
      n=$((n + 1))
      for b in boo cudnn; do
        timeout 120 ncu --clock-control none --launch-count 80 --metrics gpu__time_duration.sum \
          --csv --log-file "$L/ncu-$n-$b.csv" \
          "$boo" driver --backend "$b" -t 1 --iter 3 -V 0 "$line" >"$L/ncu-$n-$b.log" 2>&1
        echo "== line $n $b rc=$? ${line:0:110}"
        kernel_rows "$L/ncu-$n-$b.csv"
      done
    done <"$J-lines.txt"
    ;;
  sweep) timed sweep "$J-sweep-jobs.txt" base boo 300 ;;
  vendor)
    grep -v "^gemm" "$J-sweep-jobs.txt" | grep "^-" >"/tmp/kt-vendor-jobs.txt"
    vendor vendor /tmp/kt-vendor-jobs.txt cudnn
    ;;
  prof)
    for spec in "1 conv_wgrad_mma" "3 conv_wgrad_mma" "4 conv_grouped_tma" "5 device_kernel"; do
      n=${spec%% *}
      line=$(sed -n "${n}p" "$J-lines.txt")
      timeout 150 ncu --clock-control none -k "regex:${spec#* }" --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
        --section Occupancy --section LaunchStats --section SourceCounters \
        --section ComputeWorkloadAnalysis \
        "$boo" driver --backend boo -t 0 "$line" >"$R/prof-$n-ncu.txt" 2>&1
      echo "== prof $n rc=$? ${line:0:100}"
      grep -E "Duration|Throughput|Stall|Issued|Occupancy|Registers|Grid Size|Block Size|Shared Memory Config|Executed Ipc" \
        "$R/prof-$n-ncu.txt" | head -30
    done
    ;;
  gates)
    BOO_CONV_WGRAD_DIRECT=first NUMERICS_VENDORS=,cudnn numerics wgrad-grouped \
      tests/gpu/conv_wgrad_grouped.txt
    BOO_CONV_WGRAD_DIRECT=first numerics wgrad-direct tests/gpu/conv_wgrad_direct.txt
    numerics grouped tests/gpu/conv_grouped.txt
    numerics grouped-direct tests/gpu/conv_grouped_direct.txt
    BOO_NVCC_FLAGS=-DBOO_GROUPED_TMA_HALF2=1 numerics grouped-direct-half2 \
      tests/gpu/conv_grouped_direct.txt
    ;;
  ab)
    timed ab-wgrad "$J-wgrad-jobs.txt" "base WGRAD_GROUP_EPI_OLD=1" boo 200
    timed ab-tma "$J-tma-jobs.txt" "base GROUPED_TMA_HALF2=1" boo 200
    vendor vendor-wgrad "$J-wgrad-jobs.txt" cudnn
    vendor vendor-tma "$J-tma-jobs.txt" cudnn
    ;;
  final)
    vendor final-wgrad "$J-wgrad-jobs.txt" cudnn
    vendor final-tma "$J-tma-jobs.txt" cudnn
    BOO_CONV_WGRAD_DIRECT=first NUMERICS_VENDORS=,cudnn numerics final-wgrad-grouped \
      tests/gpu/conv_wgrad_grouped.txt
    numerics final-grouped-direct tests/gpu/conv_grouped_direct.txt
    ;;
  rescue)
    numerics rescue-grouped tests/gpu/conv_grouped.txt
    numerics rescue-grouped-direct tests/gpu/conv_grouped_direct.txt
    timed rescue "$J-rescue-jobs.txt" base boo 120
    grep "^-" "$J-rescue-jobs.txt" >/tmp/kt-rescue-jobs.txt
    vendor rescue-vendor /tmp/kt-rescue-jobs.txt cudnn
    ;;
  models)
    step preload-conv-models 200 "$boo" preload -j 16 --commands-file bench/workloads/conv_models.txt
    step conv-models 200 "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 --explain \
      --csv "$R/conv-models.csv" --commands-file bench/workloads/conv_models.txt
    grep -E '^>>> speedup|error' "$L/conv-models.log" | cut -c1-120
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
