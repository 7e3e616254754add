#!/usr/bin/env bash
# Device script of bench/results/2026-11-28-loads-ahead-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-28-loads-ahead-run.sh PHASE...
#   pointwise: tests/gpu/conv_pointwise.txt's gate, then conv.pointwise with each step's shared
#              loads ahead of its mma (base) against the loads after a shared flag and a branch
#              (POINTWISE_HOIST=0) and two steps unrolled (POINTWISE_UNROLL=2), boo and cuDNN,
#              two rounds;
#   copies:    the layout copies of channels-first problems as programmatic dependents (base)
#              against ordinary launches (CONV_COPY_DEPENDENT=0): the gate of every channels-first
#              line of tests/gpu/conv_*.txt and of tests/gpu/conv_padded.txt with misaligned
#              views, then the A/B on NCHW lines (boo only, two rounds) and those lines against
#              cuDNN;
#   gates:     the two gates of `copies` only;
#   onebyone:  channels-first 1x1 layers on dispatch's pick (conv.gemm_1x1, a GEMM whose 14x14 and
#              7x7 images need gemm.sm90_unaligned) against the channels-last copies around
#              conv.sm90_implicit, with D written in place (base) or copied (PAD_DIRECT_D=0), boo
#              only, one round; then dispatch's pick against cuDNN;
#   onebyone-picks: what calls 4 and 5 ran by hand: the onebyone lines on dispatch's pick against
#              cuDNN (50 samples), on conv.sm90_implicit t128x128x64 pingpong (boo only), and that
#              config's gate (at 7d92763 dispatch's pick was conv.gemm_1x1 on all five lines; it is
#              the implicit config on the four unaligned ones since);
#   nchw:      ncu kernel durations of the public list's two NCHW lines (the layout copies and the
#              convolution);
#   conv, gemm, lists: the public lists against cuDNN and cuBLASLt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh loads-ahead
J=bench/results/2026-11-28-loads-ahead
for phase in "$@"; do
  case "$phase" in
  pointwise)
    numerics pw tests/gpu/conv_pointwise.txt
    ab pointwise "base POINTWISE_HOIST=0 POINTWISE_UNROLL=2" boo,cudnn
    ;;
  copies | gates)
    for f in tests/gpu/conv_*.txt; do
      grep '^conv' "$f" | grep -v 'in_layout N[DHW]*C'
    done >/tmp/nchw-gate.txt
    wc -l </tmp/nchw-gate.txt
    numerics nchw /tmp/nchw-gate.txt
    numerics padded-misaligned tests/gpu/conv_padded.txt --misalign
    [ "$phase" = gates ] && continue
    ab nchw "base CONV_COPY_DEPENDENT=0"
    vendor nchw-vendor $J-nchw-jobs.txt cudnn --explain
    ;;
  onebyone)
    OUT="$R" JOBS=$J-onebyone-jobs.txt REPS=1 BACKENDS=boo CSV=onebyone.csv \
      VARIANTS="base PAD_DIRECT_D=0" timeout 300 bash bench/variants.sh >"$L/onebyone.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/onebyone.log" | cut -c1-150
    summary "$R/onebyone.csv" 70 40
    vendor onebyone-vendor $J-onebyone-jobs.txt cudnn --explain
    ;;
  onebyone-picks)  # calls 4 and 5 (on call 3's machine, its kernels compiled)
    grep '^-' $J-onebyone-jobs.txt | cut -f2 >/tmp/l.txt
    impl=$(grep -v '^-' $J-onebyone-jobs.txt | head -1 | cut -f1)
    "$boo" driver --backend boo,cudnn -t 1 --iter 50 --explain --csv "$R/onebyone-vendor.csv" \
      --commands-file /tmp/l.txt 2>&1 | grep -E "^>>> (boo|cudnn): min|speedup|chose"
    "$boo" driver --backend boo -t 1 --iter 50 --config "$impl" --csv "$R/onebyone-impl.csv" \
      --commands-file /tmp/l.txt 2>&1 | grep -E "^>>> boo: min"
    "$boo" driver --backend boo -t 0 -V 1 --config "$impl" \
      --csv "$R/onebyone-impl-numerics.csv" --commands-file /tmp/l.txt 2>&1 | grep -E "verify|ran"
    ;;
  nchw)
    grep -E '^(conv |convbfp16 -n 64 -c 256 -H 14)' bench/workloads/conv_public.txt >/tmp/nchw.txt
    while read -r cmd; do
      "$boo" preload "$cmd" >>"$L/nchw-preload.log" 2>&1
      step nchw-ncu 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
        "$boo" driver --backend boo -t 0 --explain "$cmd"
      cat "$L/nchw-ncu.log" >>"$R/nchw-ncu.txt"
      grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|dram__bytes" "$L/nchw-ncu.log" | cut -c1-150
    done </tmp/nchw.txt
    ;;
  conv) preload_public conv && public_list conv conv-public.csv ;;
  gemm) preload_public gemm && public_list gemm gemm-public.csv 200 ;;
  lists) public_lists ;;
  *) echo "unknown phase $phase" ;;
  esac
done
