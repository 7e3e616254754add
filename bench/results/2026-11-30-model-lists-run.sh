#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-model-lists-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-model-lists-run.sh PHASE...
#   gemm: the public GEMM list and boo's held-out list of model GEMMs
#         (bench/workloads/gemm_models.log), compiled first, each against cuBLASLt with -V 1:
#         gemm-public.csv, gemm-models.csv;
#   conv: the same for convolutions against cuDNN (bench/workloads/conv_models.txt):
#         conv-public.csv, conv-models.csv;
#   sweep: -sweep-jobs.txt: the held-out GEMMs slower than 0.9x cuBLASLt on dispatch's pick
#         and on other configs (fp8 on tiles that do not spill, batched short K without
#         stream-K, other clusters and launch orders, parallel split-K on deep K), boo and
#         cuBLASLt, two rounds: sweep.csv;
#   fp8gate: tests/gpu/gemm_unaligned_fp8.txt and gemm_split_parallel.txt compiled, then gated
#         against the reference and cuBLASLt (their fp8 lines on the new fp8 tiles).
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh model-lists
models() {  # models conv|gemm LIMIT: the held-out list against its vendor, -V 1
  local list=bench/workloads/conv_models.txt vendor=cudnn
  if [ "$1" = gemm ]; then list=bench/workloads/gemm_models.log vendor=cublaslt; fi
  step "$1-models" "$2" "$boo" driver --backend "boo,$vendor" -t 1 --iter 100 -V 1 --explain \
    --csv "$R/$1-models.csv" --commands-file "$list"
  grep -E '^>>> speedup|error' "$L/$1-models.log" | cut -c1-120
}
for phase in "$@"; do
  case "$phase" in
  gemm | conv)
    list=bench/workloads/conv_models.txt
    [ "$phase" = gemm ] && list=bench/workloads/gemm_models.log
    step "preload-$phase-models" 300 "$boo" preload -j 16 --commands-file "$list" &
    preload_public "$phase"
    wait
    public_list "$phase" "$phase-public.csv" 150
    models "$phase" 240
    ;;
  sweep) timed sweep bench/results/2026-11-30-model-lists-sweep-jobs.txt base boo,cublaslt 330 ;;
  fp8gate)  # the two lists compiled together, then each gated
    cat tests/gpu/gemm_unaligned_fp8.txt tests/gpu/gemm_split_parallel.txt >/tmp/fp8gate.txt
    step fp8gate-preload 240 "$boo" preload -j 16 --commands-file /tmp/fp8gate.txt
    for list in gemm_unaligned_fp8 gemm_split_parallel; do
      step "$list" 150 "$boo" driver --backend boo,cublaslt -t 0 -V 1 --explain \
        --csv "$R/numerics-$list.csv" --commands-file "tests/gpu/$list.txt"
      grep -B3 "verify boo: FAIL\|error" "$L/$list.log" | head -20
    done
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
