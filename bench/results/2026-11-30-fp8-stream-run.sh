#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-fp8-stream-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-fp8-stream-run.sh [gates] [forced] [timing] [parts] [rule] [final] [smoke] [bandwidth]
# gates: tests/gpu/gemm_skinny_fp8.txt through dispatch (boo and cuBLASLt against the
# reference), again with --misalign (the element gathers), and tests/gpu/gemm_skinny.txt (the
# 16-bit streaming loop, whose chunk is now a template constant).
# forced: gemm.skinny's streaming loop forced on every line of the fp8 list, timed beside
# cuBLASLt (scripts/device-run.sh skinnyforced).
# timing: -jobs.txt (the fp8 decode lines on the streaming loop and on the gemm.sm90 tile that
# dispatch picked before), two rounds, and the fp8 list's TN lines on dispatch's pick against
# cuBLASLt (vendor.csv).
# parts: -parts-jobs.txt, the streaming loop's warps a row tile (1, 2, 4, 8) forced on lines of
# 16 to 32 columns (fp8 and bf16, the public 4096 x 16 x 4096 among them), beside dispatch's pick.
# rule: the streaming loop's warps a row tile chosen by the blocks they make (landed after
# parts): the fp8 list's gate and -lines.txt's (the 16-bit lines dispatch streams), then
# -parts2-jobs.txt, each line on the new count (streamauto) and on 8 warps (the old one), two
# rounds.
# final: the landed tree (the fewer warps a row tile for more than 8 columns only): -jobs.txt's
# lines on dispatch's pick against cuBLASLt, -V 1 (final.csv).
# smoke: the refactored tree, one line per plan branch, -V 1 and timed (smoke.csv).
# bandwidth: -bw-jobs.txt, the GEMM picks that BOO_MODEL_BANDWIDTH_GBS=4800 moves, each line on
# both picks, two rounds; the public 1D conv line under both settings.
set -uo pipefail
cd "$(dirname "$0")/../.."
J=bench/results/2026-11-30-fp8-stream
source bench/device_steps.sh fp8-stream
steps=("$@")
has() { [ ${#steps[@]} -eq 0 ] || [[ " ${steps[*]} " == *" $1 "* ]]; }
if has gates; then
  NUMERICS_VENDORS=,cublaslt numerics fp8 tests/gpu/gemm_skinny_fp8.txt
  grep -E "^>>> boo: [a-z]" "$L/fp8.log" | sort | uniq -c
  numerics fp8-misaligned tests/gpu/gemm_skinny_fp8.txt --misalign
  NUMERICS_VENDORS=,cublaslt numerics skinny tests/gpu/gemm_skinny.txt
fi
if has forced; then
  BOO_SKINNY_LIST=tests/gpu/gemm_skinny_fp8.txt BOO_SKINNY_FORCE=streamauto \
    timeout 300 scripts/device-run.sh skinnyforced >"$L/forced.log" 2>&1
  tail -3 "$L/forced.log"
  cp out/bench-skinny-forced.csv "$R/forced.csv"
  cp out/skinnyforced.log "$L/skinnyforced.log"
  grep -E "verify boo: FAIL|error" out/skinnyforced.log | head
fi
if has timing; then
  timed timing "$J-jobs.txt" base boo 400
  vendor vendor "$J-jobs.txt" cublaslt
fi
if has parts; then
  timed parts "$J-parts-jobs.txt" base boo 400
fi
if has rule; then
  NUMERICS_VENDORS=,cublaslt numerics rule-fp8 tests/gpu/gemm_skinny_fp8.txt
  NUMERICS_VENDORS=,cublaslt numerics rule-lines "$J-lines.txt"
  timed parts2 "$J-parts2-jobs.txt" base boo 300
fi
if has final; then
  cut -f2 "$J-jobs.txt" | sort -u >/tmp/fp8-final.txt
  step final-preload 120 "$boo" preload -j 16 --commands-file /tmp/fp8-final.txt
  vendor final "$J-jobs.txt" cublaslt -V 1
fi
if has smoke; then
  # The refactored tree (e9f951d, c41e20c: kernels/gemm_skinny_plan.cuh): four lines,
  # one per plan branch, -V 1 and timed.
  grep -E "M: (14336, N: 16|4096, N: 8), K: 4096" tests/gpu/gemm_skinny_fp8.txt | head -2 >/tmp/smoke.txt
  grep -E "M: 28672, N: 8, K: 8192" "$J-lines.txt" | head -1 >>/tmp/smoke.txt
  grep -E "M: 14336, N: 1, K: 4096" bench/workloads/gemm_public.log | head -1 >>/tmp/smoke.txt
  step smoke-preload 60 "$boo" preload -j 16 --commands-file /tmp/smoke.txt
  step smoke 60 "$boo" driver --backend boo -t 1 --iter 100 -V 1 --explain \
    --csv "$R/smoke.csv" --commands-file /tmp/smoke.txt
  grep -E "chose|^>>> boo: min" "$L/smoke.log" | cut -c1-160
fi
if has bandwidth; then
  ab bw base boo
  line=$(grep -m1 "W 4096 -k 512" bench/workloads/conv_public.txt)
  for r in 1 2; do
    for bw in 3350 4800; do
      BOO_MODEL_BANDWIDTH_GBS=$bw step "conv1d-$bw-$r" 120 "$boo" driver --backend boo -t 1 \
        --iter 100 --explain --csv "$R/conv1d-$bw-$r.csv" $line
      grep -E "^>>> boo: (min|[a-z])" "$L/conv1d-$bw-$r.log" | cut -c1-140
    done
  done
fi
