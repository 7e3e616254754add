#!/usr/bin/env bash
# Device script of bench/results/2026-12-01-depthwise-shared-h200.md (repository root,
# .deps/device carried):
#   bash bench/results/2026-12-01-depthwise-shared-run.sh PHASE...
#   gate:   tests/gpu/conv_depthwise.txt and conv_depthwise_backward.txt (boo, -V 1):
#           numerics-{depthwise,backward}.csv;
#   ab:     -jobs.txt (the 2026-11-29 rolling kernel's seven layers, a 14x14 c384 and a 7x7 c576
#           backward data) with images sharing blocks (base) against blocks of one image
#           (DEPTHWISE_ROLLING_SHARED=0, the kernel before), boo only, two rounds: ab.csv;
#   vendor: the same lines, dispatch's pick against cuDNN (-V 1): vendor.csv;
#   public: the public conv list's kernels compiled, then the list against cuDNN: conv-public.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh depthwise-shared
J=bench/results/2026-12-01-depthwise-shared
for phase in "$@"; do
  case "$phase" in
  gate)
    numerics depthwise tests/gpu/conv_depthwise.txt
    numerics backward tests/gpu/conv_depthwise_backward.txt
    ;;
  ab) timed ab "$J-jobs.txt" "base DEPTHWISE_ROLLING_SHARED=0" boo 300 ;;
  vendor) vendor vendor "$J-jobs.txt" cudnn -V 1 ;;
  public)
    preload_public conv
    public_list conv
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
