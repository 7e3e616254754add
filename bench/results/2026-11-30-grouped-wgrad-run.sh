#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-grouped-wgrad-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-grouped-wgrad-run.sh
# Grouped backward weight on conv.split_wgrad's direct kernel: the gates of
# tests/gpu/conv_wgrad_grouped.txt (against the reference and cuDNN) and, for the kernel's dense
# path and the dense expansion, conv_wgrad_direct.txt and conv_grouped.txt; then -jobs.txt
# (ResNeXt's G = 32 layers of 8 to 64 channels a group) on dispatch's pick against cuDNN:
# vendor.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh grouped-wgrad
cat tests/gpu/conv_wgrad_grouped.txt tests/gpu/conv_wgrad_direct.txt tests/gpu/conv_grouped.txt \
  >/tmp/grouped-wgrad-all.txt
cut -f2 bench/results/2026-11-30-grouped-wgrad-jobs.txt >>/tmp/grouped-wgrad-all.txt
step preload 300 env BOO_CONV_WGRAD_DIRECT=first "$boo" preload -j 16 \
  --commands-file /tmp/grouped-wgrad-all.txt
step preload-default 200 "$boo" preload -j 16 --commands-file /tmp/grouped-wgrad-all.txt
BOO_CONV_WGRAD_DIRECT=first NUMERICS_VENDORS=,cudnn numerics wgrad-grouped \
  tests/gpu/conv_wgrad_grouped.txt
grep -E "^>>> (boo|verify boo)|algorithm|config" "$L/wgrad-grouped.log" | cut -c1-140 | head -40
BOO_CONV_WGRAD_DIRECT=first numerics wgrad-direct tests/gpu/conv_wgrad_direct.txt
numerics grouped tests/gpu/conv_grouped.txt
vendor vendor bench/results/2026-11-30-grouped-wgrad-jobs.txt cudnn
