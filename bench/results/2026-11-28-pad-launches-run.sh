#!/usr/bin/env bash
# The device calls behind bench/results/2026-11-28-pad-launches-h200.md (run from the repository
# root on the GPU machine, .deps/device carried): gemm.sm90_unaligned with its element copies in
# one launch and the GEMM and D's copy as programmatic dependents, against each launch after the
# last (BOO_PAD_FUSED=0+BOO_PAD_DEPENDENT=0) and the fused copies without dependents
# (BOO_PAD_DEPENDENT=0), interleaved, with cuBLASLt; then the numerics lists through the copies.
# Usage: bash bench/results/2026-11-28-pad-launches-run.sh ab|checks1|checks2|direct|final|view (call 1 ran
# ab; call 2 checks1 after the stream-K fix; call 3 checks2 on the machine call 2 left warm;
# call 4 direct: D written in place, BOO_PAD_DIRECT_D=1; call 5 final: the landed rule; call 6
# view: a convolution on a view through it)
set -uo pipefail
phase=${1:?ab, checks1, checks2, direct, final or view}
cd "$(dirname "$0")/../.."
source bench/device_steps.sh pad-launches "logs-$phase.tgz"
if [ "$phase" = ab ]; then
  step padded 420 env JOBS=bench/results/2026-11-28-pad-launches-jobs.txt \
    VARIANTS="base PAD_DEPENDENT=0 PAD_FUSED=0+PAD_DEPENDENT=0" REPS="1 2" BACKENDS=boo,cublaslt \
    OUT="$R" CSV=padded.csv bash bench/variants.sh
  grep -E '^(base|PAD)|^# ' "$L/padded.log" | cut -c1-110
fi
if [ "$phase" = direct ]; then
  # D written in place by CUTLASS's epilogue without shared memory (BOO_PAD_DIRECT_D=1) against
  # the padded D and its copy out (the landed code), on the lines without bias or activation.
  step direct 480 env JOBS=bench/results/2026-11-28-pad-direct-d-jobs.txt \
    VARIANTS="base PAD_DIRECT_D=1" REPS="1 2" BACKENDS=boo,cublaslt OUT="$R" CSV=direct.csv \
    bash bench/variants.sh
  grep -E '^(base|PAD)|^# |verify' "$L/direct.log" | cut -c1-110
fi
if [ "$phase" = final ]; then
  # The landed rule (D in place for plain persistent classes without C) as one build: the
  # numerics lists, then the A/B against the copy of D (BOO_PAD_DIRECT_D=0).
  numerics unaligned tests/gpu/gemm_unaligned_fp8.txt
  numerics unaligned-misaligned tests/gpu/gemm_unaligned_fp8.txt --misalign
  numerics awkward-misaligned tests/gpu/gemm_awkward.txt --misalign
  step final 200 env JOBS=bench/results/2026-11-28-pad-direct-d-jobs.txt \
    VARIANTS="base PAD_DIRECT_D=0" REPS="1" BACKENDS=boo,cublaslt OUT="$R" CSV=final.csv \
    bash bench/variants.sh
  grep -E '^(base|PAD)|^# ' "$L/final.log" | cut -c1-110
fi
if [ "$phase" = view ]; then
  # The public 1x1 K = 64 convolution on a view (conv.gemm_1x1 on gemm.sm90_unaligned): D (y,
  # 25.7 MB) in place against its copy.
  step view 240 env JOBS=bench/results/2026-11-28-pad-direct-d-view-jobs.txt \
    VARIANTS="base PAD_DIRECT_D=0" REPS="1 2 3" BACKENDS=boo DRIVER_FLAGS=--misalign OUT="$R" \
    CSV=view.csv bash bench/variants.sh
  grep -E '^(base|PAD)|^# |verify' "$L/view.log" | cut -c1-110
fi
if [ "$phase" = checks1 ]; then
  # The stream-K line (no grid dependency control: each launch after the last) against cuBLASLt.
  grep -v '^#' tests/gpu/gemm_unaligned_fp8.txt | sed -n 9p >"$L/sk.txt"
  numerics unaligned tests/gpu/gemm_unaligned_fp8.txt
  numerics unaligned-misaligned tests/gpu/gemm_unaligned_fp8.txt --misalign
  for round in 1 2; do
    step sk-$round 60 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 --explain \
      --csv "$R/sk-$round.csv" --commands-file "$L/sk.txt"
    grep -E '^>>> [a-z]+: min' "$L/sk-$round.log" | cut -c1-100
  done
fi
if [ "$phase" = checks2 ]; then
  numerics awkward-misaligned tests/gpu/gemm_awkward.txt --misalign
  numerics pointwise-misaligned tests/gpu/conv_pointwise.txt --misalign
fi
log done
