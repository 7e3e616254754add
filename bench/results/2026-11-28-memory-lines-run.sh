#!/usr/bin/env bash
# Device script of bench/results/2026-11-28-memory-lines-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-28-memory-lines-run.sh PHASE...
#   batch:    tests/gpu/gemm_skinny.txt's gate, then batched single-column GEMMs with the
#             bulk-copy loop's wave shared by the batch (base) against a wave an entry
#             (SKINNY_BULK_BATCH_WAVE=0) and the streaming loop (SKINNY_BULK=0), boo only, two
#             rounds, then dispatch's pick against cuBLASLt;
#   batched:  the public 512 x 512 x 128 batch-96 GEMM on eight tilings, boo only, two rounds;
#   dwprobe:  ncu (full set) of the public depthwise layer's row kernel, and the row kernel at 2
#             and 4 blocks an SM against 3 (DEPTHWISE_ROWS_BLOCKS), boo only, two rounds;
#   dwgate:   tests/gpu/conv_depthwise.txt's and conv_depthwise_backward.txt's gates;
#   rolling:  (after `git apply bench/results/2026-11-28-memory-lines-rolling-experiments.diff`)
#             tests/gpu/conv_depthwise.txt's and conv_depthwise_backward.txt's gates, ncu of the
#             public depthwise layer on the rolling kernel, then the rolling kernel against the
#             row kernel (DEPTHWISE_ROLLING=0) and with runs of 16 rows (DEPTHWISE_ROLLING_ROWS=16)
#             on 3x3 layers (stride 2 as a control: the row kernel either way), boo only;
#   words:    the row kernel's span as 32-bit words (base) against 16-bit elements
#             (DEPTHWISE_ROWS_WORDS=0): the depthwise gates, then bench/workloads/conv_depthwise.txt's
#             NHWC lines, boo only, two rounds, then the public conv list against cuDNN;
#   clusters: 16032 x 109 x 16384 and 4096 x 16 x 4096 on dispatch's pick against 2x1 clusters,
#             boo only, two rounds;
#   conv, gemm, lists: the public lists against cuDNN and cuBLASLt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh memory-lines
J=bench/results/2026-11-28-memory-lines
dw_gates() {  # the depthwise lists' kernels compiled, then their gates (boo only)
  step dw-preload 240 "$boo" preload -j 8 --commands-file tests/gpu/conv_depthwise.txt &
  step dwb-preload 240 "$boo" preload -j 8 --commands-file tests/gpu/conv_depthwise_backward.txt &
  wait
  step dw 150 "$boo" driver --backend boo -t 0 -V 1 --explain --csv "$R/numerics-dw.csv" \
    --commands-file tests/gpu/conv_depthwise.txt
  step dwb 150 "$boo" driver --backend boo -t 0 -V 1 --explain --csv "$R/numerics-dwb.csv" \
    --commands-file tests/gpu/conv_depthwise_backward.txt
  grep -B3 "verify boo: FAIL" "$L/dw.log" "$L/dwb.log" | cut -c1-160 | head -20
}
for phase in "$@"; do
  case "$phase" in
  batch)
    numerics skinny tests/gpu/gemm_skinny.txt
    ab batch "base SKINNY_BULK_BATCH_WAVE=0 SKINNY_BULK=0"
    vendor batch-vendor $J-batch-jobs.txt cublaslt --explain
    ;;
  batched)
    ab batched base
    ;;
  dwprobe)
    cmd=$(head -1 $J-depthwise-jobs.txt | cut -f2)
    "$boo" preload "$cmd" >"$L/ncu-preload.log" 2>&1
    step ncu-dw 120 ncu --set full -k regex:'depthwise' -c 1 -o "$R/ncu-dw" \
      "$boo" driver --backend boo -t 0 "$cmd"
    ncu --import "$R/ncu-dw.ncu-rep" --page details 2>/dev/null >"$R/ncu-dw-details.txt"
    grep -E "Duration|Registers Per|Block Size|Grid Size|Issued Warp|Compute \(SM\) Thr|Memory Thr|DRAM Thr|L1/TEX Hit|L2 Hit|Achieved Occ|Warp Cycles Per Issued|Executed Ipc A|L1/TEX Cache Thr|L2 Cache Thr" \
      "$R/ncu-dw-details.txt" | head -30
    ab depthwise "base DEPTHWISE_ROWS_BLOCKS=2 DEPTHWISE_ROWS_BLOCKS=4"
    ;;
  rolling | dwgate)
    dw_gates
    [ "$phase" = dwgate ] && continue
    cmd=$(head -1 $J-depthwise-jobs.txt | cut -f2)
    step ncu-roll 120 ncu --set full -k regex:'rolling' -c 1 -o "$R/ncu-roll" \
      "$boo" driver --backend boo -t 0 "$cmd"
    ncu --import "$R/ncu-roll.ncu-rep" --page details 2>/dev/null >"$R/ncu-roll-details.txt"
    rm -f "$R/ncu-roll.ncu-rep"
    grep -E "Duration|Registers Per|DRAM Thr|Issue Slots|L1/TEX Hit|L2 Hit|Achieved Occ|Executed Ipc A|highest-utilized" \
      "$R/ncu-roll-details.txt" | cut -c1-120 | head -20
    ab rolling "base DEPTHWISE_ROLLING=0 DEPTHWISE_ROLLING_ROWS=16"
    ;;
  words)
    dw_gates
    preload_public conv 6 &
    pre=$!
    ab depthwise "base DEPTHWISE_ROWS_WORDS=0"
    wait "$pre"
    public_list conv conv-public.csv
    ;;
  clusters) ab clusters base ;;
  conv) preload_public conv && public_list conv conv-public.csv ;;
  gemm) preload_public gemm && public_list gemm gemm-public.csv 200 ;;
  lists) public_lists 200 ;;
  esac
done
log done
