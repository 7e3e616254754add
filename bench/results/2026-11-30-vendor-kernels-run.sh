#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-vendor-kernels-h200.md (repository root,
# .deps/device carried):
#   bash bench/results/2026-11-30-vendor-kernels-run.sh PHASE...
#   gemm: the public GEMM list against cuBLASLt (-V 1, compiled first), the vendor's algorithm
#         named (tile, stages, cluster): gemm-public.csv (call 1 on 04ea0da; call 5 on d442717,
#         the vendor's candidates timed with a cold L2: -cold-gemm-public-h200.csv);
#   ncu:  three public GEMMs (16032 x 109 x 16384, 3072 x 4096 x 768 +bias +gelu, 512 x 512 x
#         128 batch 96), boo's pick and cuBLASLt each alone under ncu (every kernel launched, a
#         summary per kernel name: duration, DRAM and L2 throughput, grid, registers, shared
#         memory): ncu-LINE-BACKEND.txt;
#   sweep: -sweep-jobs.txt: the two 16032 x 1xx x 16384 lines on dispatch's pick and on tiles
#         like cuBLASLt's (256x64 in 1x2 clusters: A multicast to the two N tiles; 128x128 in
#         2x1: B multicast), 1024 x 2048 x 4096 fp16 NN and 3072 x 4096 x 768 +gelu in clusters
#         like cuBLASLt's (2x1), boo and cuBLASLt, two rounds: sweep.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh vendor-kernels
J=bench/results/2026-11-30-vendor-kernels
for phase in "$@"; do
  case "$phase" in
  gemm)
    preload_public gemm
    public_list gemm gemm-public.csv
    grep -o "cuBLASLt algo [^)]*)" "$L/gemm.log" | sort | uniq -c
    ;;
  ncu)
    n=0
    while IFS= read -r line; do
      n=$((n + 1))
      for b in boo cublaslt; do
        timeout 200 ncu --clock-control none --launch-count 120 --print-summary per-kernel \
          --section SpeedOfLight --section LaunchStats --section MemoryWorkloadAnalysis \
          "$boo" driver --backend "$b" -t 1 --iter 3 "$line" >"$R/ncu-$n-$b.txt" 2>&1
        echo "== line $n $b rc=$?"
        grep -E "^  [A-Za-z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput|Grid Size|Registers Per|Dynamic Shared|Memory Throughput" \
          "$R/ncu-$n-$b.txt" | grep -v -E "random|fill|flush" | head -40
      done
    done <"$J-ncu-lines.txt"
    ;;
  sweep) timed sweep "$J-sweep-jobs.txt" base boo,cublaslt ;;
  *) echo "unknown phase $phase" ;;
  esac
done
