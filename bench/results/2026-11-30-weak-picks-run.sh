#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-weak-picks-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-weak-picks-run.sh PHASE...
#   gate:   tests/gpu/conv_few_channels.txt against the reference (boo and cuDNN, -V 1) with the
#           direct kernel first (BOO_CONV_FEW_CHANNELS=first), then with --misalign (boo);
#   epi:    the few-channel kernel's epilogue stores (predicated st.shared at kept row
#           addresses: base) against the stores before (FEW_EPI_ASM=0), on 2026-11-29-few-tma's
#           -small-jobs.txt and -ab-jobs.txt, boo only, two rounds: epi-small.csv, epi-ab.csv
#           (FEW_EPI_ASM existed in the measured tree only: on main both variants are the same);
#   gate2:  tests/gpu/conv_grouped_direct.txt against the reference (boo, -V 1): conv.grouped's
#           TMA kernel, whose epilogue stores now go through the shared sts32_if;
#   sweep:  -sweep-jobs.txt: the GEMMs of the public list's two lines under 0.95x cuDNN (the
#           1x1 backward weight, 128x384x147456; the 7x7 1x1 K = 2048, 2048x3136x512), each on
#           dispatch's pick and on other tiles and schedulers, boo only, two rounds: sweep.csv
#           (call 2 ran out of its 300 s after the first round's first nine lines);
#   gdcgate: (on e57cd23) tests/gpu/gemm_split_parallel.txt and conv_wgrad_1x1.txt against the reference
#           (boo, -V 1) with PSPLITK_GDC=1;
#   sweep7: -sweep7-jobs.txt: five of those configs on the 7x7 line's GEMM, two rounds;
#   fdiv:   the few-channel kernel's tile coordinates by the plan's multiply-and-shift divisors
#           (base) against grouped_tile's divisions (FEW_FAST_DIV=0, the measured tree's only
#           switch), on 2026-11-29-few-tma's -ab-jobs.txt, boo only, two rounds: fdiv.csv;
#   gdc:    (run on e57cd23, 2026-11-30-gemm-tiles-h200.md: no gain; the switch is gone since,
#           so on later trees both variants are the same) parallel split-K's GEMM with CUTLASS's grid
#           dependency control (PSPLITK_GDC=1: the reduction launches under its last tiles)
#           against without (base), on -gdc-jobs.txt (the 1x1 backward weight's GEMM on its pick,
#           the 4096 x 16 decode GEMM on psplitk2, the conv line through dispatch), boo only,
#           two rounds: gdc.csv;
#   cover:  -cover-jobs.txt: memory-bound GEMMs whose pick leaves SMs idle (16032 x 109 and 113
#           x 16384 on 126 tiles, 4096 x 16 x 4096 on 64, the 1x1 backward weight on 108 split
#           units) on their pick and on configs that keep every SM streaming (stream-K, more
#           split units), boo and cuBLASLt, two rounds: cover.csv;
#   vendor: -gemm-lines.txt against cuBLASLt and -conv-lines.txt (those two conv lines and the
#           bf16 NCHW 3x3) against cuDNN, -V 1 (call 2's conv step failed: --top is for GEMMs);
#   public: the public conv list against cuDNN (-V 1), compiled first.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh weak-picks
J=bench/results/2026-11-30-weak-picks
K=bench/results/2026-11-29-few-tma
for phase in "$@"; do
  case "$phase" in
  gate) few_gate ;;
  epi)
    timed epi-small "$K-small-jobs.txt" "base FEW_EPI_ASM=0"
    timed epi-ab "$K-ab-jobs.txt" "base FEW_EPI_ASM=0"
    ;;
  gate2) numerics grouped-direct tests/gpu/conv_grouped_direct.txt ;;
  sweep) timed sweep "$J-sweep-jobs.txt" base ;;
  fdiv) timed fdiv "$K-ab-jobs.txt" "base FEW_FAST_DIV=0" ;;
  gdc) timed gdc "$J-gdc-jobs.txt" "base PSPLITK_GDC=1" ;;
  gdcgate)
    export BOO_NVCC_FLAGS=-DBOO_PSPLITK_GDC=1
    numerics split-gdc tests/gpu/gemm_split_parallel.txt
    numerics wgrad-gdc tests/gpu/conv_wgrad_1x1.txt
    unset BOO_NVCC_FLAGS
    ;;
  sweep7) timed sweep7 "$J-sweep7-jobs.txt" base ;;
  cover) timed cover "$J-cover-jobs.txt" base boo,cublaslt 400 ;;
  public)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  vendor)
    step vendor-preload 240 "$boo" preload -j 16 --commands-file "$J-conv-lines.txt"
    step vendor-gemm 120 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 --explain \
      --csv "$R/vendor-gemm.csv" --commands-file "$J-gemm-lines.txt"
    step vendor-conv 200 "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 \
      --csv "$R/vendor-conv.csv" --commands-file "$J-conv-lines.txt"
    grep -hE "^>>> " "$L/vendor-gemm.log" "$L/vendor-conv.log" | cut -c1-140
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
