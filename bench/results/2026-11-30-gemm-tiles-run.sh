#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-gemm-tiles-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-gemm-tiles-run.sh PHASE...
#   7x7:   -7x7-jobs.txt: the public 7x7 1x1 K = 2048 line's GEMM (2048 x 3136 x 512) on
#          dispatch's pick and on tiles of other shapes and clusters (256x96: two full waves), boo
#          and cuBLASLt, two rounds: 7x7.csv;
#   wgrad: -wgrad-jobs.txt: the 1x1 backward weight's GEMM (128 x 384 x 147456) on its pick and
#          on 128x192 tiles whose cluster shares x between the two output tiles, boo and
#          cuBLASLt, two rounds: wgrad.csv;
#   prof:  both GEMMs on dispatch's pick under ncu: 7x7-ncu.txt, wgrad-ncu.txt (call 2: the kernel
#          regex missed CUTLASS's device_kernel; the backward weight's match was the reduction);
#   clusters: -clusters-jobs.txt: three GEMMs of low operand reuse (the 7x7 line's, the public
#          3072 x 4096 x 768 gelu and 1024 x 2048 x 4096 fp16) on their picks and on clusters of
#          up to 4 CTAs (c4x1, c1x4, c2x2) that multicast more of each operand tile, boo only, two
#          rounds: clusters.csv (with -clusters4-experiments.diff applied: main allows clusters of
#          1 or 2);
#   epi:   -epi-jobs.txt (plain GEMMs on dispatch's pick: the 7x7 line's, 1024 x 2048 x 4096 fp16,
#          512 x 512 x 128 batch 96, 4096 x 8192 x 4096, and the public 1x1 c256 k64 conv line)
#          with CUTLASS's epilogue without shared memory (GEMM_NOSMEM_EPI=1, with
#          -nosmem-experiments.diff applied) against the TMA epilogue (base), boo only, two rounds: epi.csv;
#   prof2: the 7x7 line's GEMM on its pick and on t128x128x64_c2x2 under ncu: 7x7-{pick,c2x2}-ncu.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh gemm-tiles
J=bench/results/2026-11-30-gemm-tiles
for phase in "$@"; do
  case "$phase" in
  7x7) timed 7x7 "$J-7x7-jobs.txt" base boo,cublaslt ;;
  wgrad) timed wgrad "$J-wgrad-jobs.txt" base boo,cublaslt ;;
  epi) timed epi "$J-epi-jobs.txt" "base GEMM_NOSMEM_EPI=1" ;;
  clusters) timed clusters "$J-clusters-jobs.txt" base boo 400 ;;
  prof2)
    for c in 1 3; do
      cfg=$(sed -n "${c}p" "$J-clusters-jobs.txt" | cut -f1)
      name=7x7-$( ((c == 1)) && echo pick || echo c2x2)
      step "$name-preload" 120 "$boo" preload -j 4 --config "$cfg" "$(sed -n 1p "$J-7x7-jobs.txt" | cut -f2)"
      timeout 150 ncu --clock-control none -k regex:device_kernel --launch-count 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
        "$boo" driver --backend boo -t 0 --config "$cfg" "$(sed -n 1p "$J-7x7-jobs.txt" | cut -f2)" \
        >"$R/$name-ncu.txt" 2>&1
      grep -E "Duration|Throughput|Hit Rate|Stall" "$R/$name-ncu.txt" | head -20
    done
    ;;
  prof)
    profile 7x7 "Gemm|gemm" "$(sed -n 1p "$J-7x7-jobs.txt" | cut -f2)"
    profile wgrad "Gemm|gemm" "$(sed -n 1p "$J-wgrad-jobs.txt" | cut -f2)"
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
