#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-few-wgmma-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-29-few-wgmma-run.sh PHASE...
#   gate:   tests/gpu/conv_few_channels.txt against the reference (boo and cuDNN, -V 1) with the
#           direct kernel first (BOO_CONV_FEW_CHANNELS=first), its kernels compiled first;
#   ab:     -ab-jobs.txt (conv.padded_channels' direct kernel forced on eight lines, the public stem
#           first) on warpgroup MMA (base) against mma.sync (FEW_WGMMA=0), with cuDNN, two rounds;
#   public: the public conv list against cuDNN (-V 1), compiled first.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh few-wgmma
J=bench/results/2026-11-29-few-wgmma
for phase in "$@"; do
  case "$phase" in
  gate)
    step few-preload 240 env BOO_CONV_FEW_CHANNELS=first "$boo" preload -j 16 \
      --commands-file tests/gpu/conv_few_channels.txt
    step few-gate 200 env BOO_CONV_FEW_CHANNELS=first "$boo" driver --backend boo,cudnn -t 0 -V 1 --explain \
      --csv "$R/numerics-few.csv" --commands-file tests/gpu/conv_few_channels.txt
    ;;
  ab) ab ab "base FEW_WGMMA=0" boo,cudnn ;;
  public)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
