#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-wgrad-tf32-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-29-wgrad-tf32-run.sh PHASE...
#   preload: every kernel below, 16 compiles at a time;
#   gates:   tests/gpu/conv_wgrad_tf32.txt (boo and cuDNN against the reference, -V 1,
#            BOO_CONV_WGRAD_DIRECT=first) and the 16-bit lists of the same kernel
#            (conv_wgrad_direct.txt, conv_wgrad_wgmma.txt; boo only);
#   vendor:  the jobs' fp32 backward-weight lines with dispatch's pick against cuDNN;
#   ab:      what dispatch ran before (conv.direct) on two of them, and the direct kernel forced
#            on the 1x1 line (dispatch runs its GEMM), boo only, two rounds;
#   round:   (call 2) the tf32 lines rounded in shared memory
#            (base, landed after the call) against truncated by the mma (WGRAD_TF32_ROUND=0,
#            what the call measured), boo only, two rounds;
#   onebyone: (not run yet; for the next session) the four fp32 1x1 backward-weight lines a rule
#            "direct kernel before the GEMM behind copies" would move (-onebyone-lines.txt):
#            dispatch's pick (the GEMM) with cuDNN against the direct kernel first, -V 1, two
#            rounds;
#   shares:  (call 2) the direct kernel forced on layers whose taps leave warp groups idle
#            (1x1, 1D x3, C = 32 and C = 16 3x3) and one that has none idle (stride 2, C = 64: a
#            control), idle groups taking pixel shares (WGRAD_SHARES=1) against base, boo only.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh wgrad-tf32
J=bench/results/2026-11-29-wgrad-tf32
for phase in "$@"; do
  case "$phase" in
  preload)
    cut -f2 $J-jobs.txt >/tmp/tf32-jobs.txt
    cat tests/gpu/conv_wgrad_tf32.txt tests/gpu/conv_wgrad_direct.txt \
      tests/gpu/conv_wgrad_wgmma.txt >/tmp/tf32-first.txt
    step preload-first 300 env BOO_CONV_WGRAD_DIRECT=first "$boo" preload -j 16 --commands-file \
      /tmp/tf32-first.txt
    step preload-jobs 200 "$boo" preload -j 16 --commands-file /tmp/tf32-jobs.txt
    ;;
  gates)
    step tf32-gate 200 env BOO_CONV_WGRAD_DIRECT=first "$boo" driver --backend boo,cudnn -t 0 \
      -V 1 --explain --csv "$R/numerics-tf32.csv" --commands-file tests/gpu/conv_wgrad_tf32.txt
    grep -E "verify|chose|error" "$L/tf32-gate.log" | cut -c1-150
    for list in conv_wgrad_direct conv_wgrad_wgmma; do
      step "$list" 150 env BOO_CONV_WGRAD_DIRECT=first "$boo" driver --backend boo -t 0 -V 1 \
        --csv "$R/numerics-$list.csv" --commands-file "tests/gpu/$list.txt"
    done
    ;;
  vendor) vendor vendor $J-jobs.txt cudnn --explain ;;
  ab) ab ab base ;;
  round) ab round "base WGRAD_TF32_ROUND=0" ;;
  shares) ab shares "base WGRAD_SHARES=1" ;;
  onebyone)
    lines=$J-onebyone-lines.txt
    step preload-1x1 120 "$boo" preload -j 16 --commands-file $lines
    step preload-1x1-first 120 env BOO_CONV_WGRAD_DIRECT=first "$boo" preload -j 16 \
      --commands-file $lines
    for rep in 1 2; do
      step "onebyone-pick$rep" 120 "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 \
        --explain --csv "$R/onebyone-pick$rep.csv" --commands-file $lines
      step "onebyone-direct$rep" 120 env BOO_CONV_WGRAD_DIRECT=first "$boo" driver --backend boo \
        -t 1 --iter 100 -V 1 --explain --csv "$R/onebyone-direct$rep.csv" --commands-file $lines
      grep -E "^>>> (boo|cudnn): min" "$L/onebyone-pick$rep.log" "$L/onebyone-direct$rep.log" |
        cut -c1-140
    done
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
