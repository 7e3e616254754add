#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-few-wgmma-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-29-few-wgmma-run.sh PHASE...
#   gate:   tests/gpu/conv_few_channels.txt against the reference (boo and cuDNN, -V 1) with the
#           direct kernel first (BOO_CONV_FEW_CHANNELS=first), its kernels compiled first;
#   ab:     -ab-jobs.txt (conv.padded_channels' direct kernel forced on eight lines, the public stem
#           first) on warpgroup MMA (base) against mma.sync (FEW_WGMMA=0), with cuDNN, two rounds;
#   public: the public conv list against cuDNN (-V 1), compiled first;
#   words:  (after `git apply bench/results/2026-11-29-few-wgmma-words-experiments.diff`; run
#           2026-11-29, rejected) the word-staging experiment (-DBOO_FEW_STAGE_WORDS=1):
#           tests/gpu/conv_few_channels.txt's gate with it, as laid out and with operands one
#           element past a 16-byte boundary (--misalign: x at an odd 2-byte slot), then -words-jobs.txt
#           on element staging (base) against it, with cuDNN, two rounds;
#   prof:   the public stem on the direct kernel under ncu (speed of light, warp states, memory
#           workload, occupancy; one launch): -stem-ncu.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh few-wgmma
J=bench/results/2026-11-29-few-wgmma
for phase in "$@"; do
  case "$phase" in
  gate)
    BOO_CONV_FEW_CHANNELS=first NUMERICS_VENDORS=,cudnn numerics few tests/gpu/conv_few_channels.txt
    ;;
  ab) ab ab "base FEW_WGMMA=0" boo,cudnn ;;
  words)
    for m in "" --misalign; do
      step "words-preload$m" 240 env BOO_CONV_FEW_CHANNELS=first \
        BOO_NVCC_FLAGS=-DBOO_FEW_STAGE_WORDS=1 "$boo" preload -j 16 $m \
        --commands-file tests/gpu/conv_few_channels.txt
      step "words-gate$m" 200 env BOO_CONV_FEW_CHANNELS=first \
        BOO_NVCC_FLAGS=-DBOO_FEW_STAGE_WORDS=1 "$boo" driver --backend boo -t 0 -V 1 $m \
        --csv "$R/numerics-words$m.csv" --commands-file tests/gpu/conv_few_channels.txt
    done
    ab words "base FEW_STAGE_WORDS=1" boo,cudnn
    ;;
  public)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  prof) profile stem few_channels "$(grep -- '-c 3 -H 224' bench/workloads/conv_public.txt | head -1)" ;;
  *) echo "unknown phase $phase" ;;
  esac
done
