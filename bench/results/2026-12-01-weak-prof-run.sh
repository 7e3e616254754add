#!/usr/bin/env bash
# Device script of bench/results/2026-12-01-weak-prof-h200.md (repository root, .deps/device
# carried): bash bench/results/2026-12-01-weak-prof-run.sh PHASE...
#   prof: ncu --set full (one launch) of the public C = 3 stem's conv.padded_channels kernel and of
#         conv.grouped's TMA kernel on ResNeXt's stride-2 G = 32 layers (c512 28x28, c1024 14x14):
#         the details (prof-NAME-details.txt) and the SASS source page summed by stall reason
#         (prof-NAME-src.txt, bench/ncu_source_summary.py).
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh weak-prof
J=bench/results/2026-12-01-weak-prof
stem=$(grep -v '^#' bench/workloads/conv_public.txt | grep -- '-c 3 ' | head -1)
g512="convbfp16 -n 64 -c 512 -H 28 -W 28 -k 512 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -m conv -g 32 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
g1024="convbfp16 -n 64 -c 1024 -H 14 -W 14 -k 1024 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -m conv -g 32 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
full_prof() {  # full_prof NAME KERNEL_REGEX COMMAND
  step "$1-preload" 120 "$boo" preload -j 4 "$3"
  step "$1-ncu" 150 ncu --clock-control none --set full -k "regex:$2" -c 1 -o "$L/$1" \
    "$boo" driver --backend boo -t 0 "$3"
  ncu --import "$L/$1.ncu-rep" --page details >"$R/prof-$1-details.txt" 2>&1
  grep -E "Duration|DRAM Throughput|Compute \(SM\) Th|Registers Per|Achieved Occ|Issued Warp|Warp Cycles Per Issued|Dynamic Shared" \
    "$R/prof-$1-details.txt" | head -10
  ncu --import "$L/$1.ncu-rep" --page source --print-source sass --csv >"$L/$1-src.csv" 2>&1
  gzip -c "$L/$1-src.csv" >"$R/prof-$1-src.csv.gz"
  python3 bench/ncu_source_summary.py "$L/$1-src.csv" >"$R/prof-$1-src.txt" 2>&1
  head -45 "$R/prof-$1-src.txt"
}
for phase in "$@"; do
  case "$phase" in
  prof)
    full_prof stem conv_few_channels "$stem"
    full_prof g512 conv_grouped_tma "$g512"
    full_prof g1024 conv_grouped_tma "$g1024"
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
