#!/usr/bin/env bash
# Device script of bench/results/2026-12-01-weak-prof-h200.md (repository root, .deps/device
# carried): bash bench/results/2026-12-01-weak-prof-run.sh PHASE...
#   prof: ncu --set full (one launch) of the public C = 3 stem's conv.padded_channels kernel and of
#         conv.grouped's TMA kernel on ResNeXt's stride-2 G = 32 layers (c512 28x28, c1024 14x14):
#         the details (prof-NAME-details.txt) and the SASS source page summed by stall reason
#         (prof-NAME-src.txt; device_steps.sh's source_profile).
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh weak-prof
stem=$(grep -v '^#' bench/workloads/conv_public.txt | grep -- '-c 3 ' | head -1)
g512="convbfp16 -n 64 -c 512 -H 28 -W 28 -k 512 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -m conv -g 32 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
g1024="convbfp16 -n 64 -c 1024 -H 14 -W 14 -k 1024 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -m conv -g 32 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
for phase in "$@"; do
  case "$phase" in
  prof)
    source_profile stem conv_few_channels "$stem"
    source_profile g512 conv_grouped_tma "$g512"
    source_profile g1024 conv_grouped_tma "$g1024"
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
