#!/usr/bin/env bash
# The device calls behind bench/results/2026-11-28-h200-lists.md (run from the repository root
# on the GPU machine, .deps/device carried).
# Usage: bash bench/results/2026-11-28-h200-lists-run.sh PHASE...
#   lists:   the public conv and GEMM lists against cuDNN and cuBLASLt (DESIGN.md section 7),
#            with the gate (-V 1);
#   direct:  gemm.sm90_unaligned's in-place D chosen per call (BOO_PAD_DIRECT_D=1, the default)
#            against in place always (=2, the rule before) and never (=0), interleaved, on
#            lines with D aligned or not;
#   picks:   the dispatch picks the GEMV loop's fixed cost changed, forced both ways, and the
#            public GEMM list on the final tree;
#   numerics: the unaligned lists through the copies, aligned and misaligned;
#   gemv:    gemm.skinny's GEMV loop: more loads in flight per lane, more steps a warp, the next
#            step's loads before this step's products, a register budget for more blocks;
#   gemvstream: the streaming loop forced on single-column lines against dispatch's pick (the
#            GEMV loop), with its own warps a row tile and with 4;
#   wide:    forced configs on the public 16032 x 113 x 16384 line against dispatch's pick;
#   ncu:     the public conv list's C = 35 and G = 32 kernels under Nsight Compute.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh h200-lists
for phase in "$@"; do
  case "$phase" in
  lists)
    step preload-conv 300 "$boo" preload -j 16 --commands-file bench/workloads/conv_public.txt &
    step preload-gemm 300 "$boo" preload -j 16 --commands-file bench/workloads/gemm_public.log &
    wait
    public_lists 240
    ;;
  direct)
    step direct 420 env JOBS=bench/results/2026-11-28-h200-lists-direct-d-runtime-jobs.txt \
      VARIANTS="base PAD_DIRECT_D=2 PAD_DIRECT_D=0" REPS="1 2" BACKENDS=boo,cublaslt OUT="$R" \
      CSV=direct.csv bash bench/variants.sh
    grep -E '^(base|PAD)|^# |verify' "$L/direct.log" | cut -c1-120
    ;;
  gemv)
    step gemv 420 env JOBS=bench/results/2026-11-28-h200-lists-gemv-jobs.txt \
      VARIANTS="base GEMV_MIN_BLOCKS=6 GEMV_STEPS=4+GEMV_PIPE=1+GEMV_MIN_BLOCKS=4 GEMV_UNROLL=8+GEMV_STEPS=2+GEMV_PIPE=1" \
      REPS="1 2" BACKENDS=boo,cublaslt OUT="$R" CSV=gemv.csv bash bench/variants.sh
    grep -E '^(base|GEMV)|^# |verify' "$L/gemv.log" | cut -c1-120
    ;;
  gemvstream)
    step gemvstream 420 env JOBS=bench/results/2026-11-28-h200-lists-gemv-stream-jobs.txt \
      VARIANTS="base" REPS="1 2" BACKENDS=boo,cublaslt OUT="$R" \
      CSV=gemvstream.csv bash bench/variants.sh
    grep -E '^(base|SKINNY)|^# |verify' "$L/gemvstream.log" | cut -c1-120
    ;;
  wide)
    step wide 300 env JOBS=bench/results/2026-11-28-h200-lists-wide-k-jobs.txt VARIANTS=base REPS="1 2" \
      BACKENDS=boo,cublaslt OUT="$R" CSV=wide.csv bash bench/variants.sh
    grep -E '^(base)|^# |verify' "$L/wide.log" | cut -c1-120
    ;;
  picks)
    # The picks the GEMV loop's new fixed cost changed, against the old ones, and the public GEMM
    # list with them.
    step picks 240 env JOBS=bench/results/2026-11-28-h200-lists-picks-jobs.txt VARIANTS=base REPS="1 2" \
      BACKENDS=boo,cublaslt OUT="$R" CSV=picks.csv bash bench/variants.sh
    grep -E '^(base)|^# |verify' "$L/picks.log" | cut -c1-120
    step preload-gemm-final 300 "$boo" preload -j 16 --commands-file bench/workloads/gemm_public.log
    step gemm-final 240 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 --explain \
      --csv "$R/gemm-public-final.csv" --commands-file bench/workloads/gemm_public.log
    grep -E '^>>> speedup' "$L/gemm-final.log" | cut -c1-120
    ;;
  numerics)
    numerics unaligned tests/gpu/gemm_unaligned_fp8.txt
    numerics unaligned-misaligned tests/gpu/gemm_unaligned_fp8.txt --misalign
    numerics awkward-misaligned tests/gpu/gemm_awkward.txt --misalign
    ;;
  ncu)
    for n in 3 11; do
      cmd=$(grep -v '^#' bench/workloads/conv_public.txt | sed -n ${n}p)
      step ncu-$n 120 ncu --set full -k regex:'conv_' -c 1 -o "$R/ncu-line$n" \
        "$boo" driver --backend boo -t 0 "$cmd"
      ncu --import "$R/ncu-line$n.ncu-rep" --page details 2>/dev/null \
        | grep -E 'Duration|Throughput|Registers|Issued|Warp Cycles|Achieved Occupancy|Theoretical Occ|Block Limit' \
        | head -30
    done
    ;;
  esac
done
log done
