#!/usr/bin/env bash
# Device script of bench/results/2026-12-02-wgrad-reduce-h200.md (repository root, .deps/device
# carried): bash bench/results/2026-12-02-wgrad-reduce-run.sh PHASE...
#   ab:     -jobs.txt (backward-weight lines on conv.split_wgrad's wgmma, direct, tf32, 1x1 and
#           grouped kernels, dispatch's picks) with the slice reduction's loads in flight at every
#           slice count (WGRAD_REDUCE_DEEP_SLICES=0: 8 of a thread's slices, as first written),
#           as before (WGRAD_REDUCE_DEPTH=0: the loop unrolled by 4) and 16 in flight over 8 slice
#           groups, boo only, two rounds: ab.csv;
#   confirm: (the landed rule: 8 in flight over more than 64 slices, the loop as before below)
#           -jobs.txt landed (base) against the loop as before everywhere (WGRAD_REDUCE_DEPTH=0),
#           boo only, two rounds: confirm.csv;
#   gate:   the backward-weight GPU lists of those kernels (boo, -V 1): numerics-*.csv;
#   modes:  the public 1x1 backward weight and the 16032 x 109 GEMM in 5 processes each, boo
#           and the vendor, with the GPU's clocks before each: modes-*.csv, modes.txt;
#   lists:  both public lists against the vendors (-V 1): conv-public.csv, gemm-public.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh wgrad-reduce
J=bench/results/2026-12-02-wgrad-reduce
for phase in "$@"; do
  case "$phase" in
  ab) timed ab "$J-jobs.txt" \
    "WGRAD_REDUCE_DEEP_SLICES=0 WGRAD_REDUCE_DEPTH=0 WGRAD_REDUCE_GROUPS=8+WGRAD_REDUCE_DEPTH=16+WGRAD_REDUCE_DEEP_SLICES=0" \
    boo 420 ;;
  confirm) timed confirm "$J-jobs.txt" "base WGRAD_REDUCE_DEPTH=0" boo 300 ;;
  gate)
    for list in conv_wgrad_wgmma conv_wgrad_direct conv_wgrad_1x1 conv_wgrad_grouped; do
      numerics "${list#conv_}" "tests/gpu/$list.txt"
    done
    ;;
  modes)
    wrw="$(grep -- '-F 4' bench/workloads/conv_public.txt | grep -- '-y 1 -x 1' | head -1 |
      sed 's/ -t 1 --iter 100//')"
    gemm="$(grep 'N: 109' bench/workloads/gemm_public.log | head -1)"
    printf '%s\n%s\n' "$wrw" "$gemm" >/tmp/modes-lines.txt
    step modes-preload 200 "$boo" preload -j 4 --commands-file /tmp/modes-lines.txt
    for i in 1 2 3 4 5; do
      nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >>"$R/modes.txt"
      step "modes-wrw-$i" 60 "$boo" driver --backend boo,cudnn -t 1 --iter 100 --csv "$R/modes-wrw-$i.csv" $wrw
      step "modes-gemm-$i" 60 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 --csv "$R/modes-gemm-$i.csv" $gemm
      grep -hE '^>>> (boo|cudnn|cublaslt): min' "$L/modes-wrw-$i.log" "$L/modes-gemm-$i.log" | cut -c1-100 | tee -a "$R/modes.txt"
    done
    ;;
  lists) public_lists 240 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
