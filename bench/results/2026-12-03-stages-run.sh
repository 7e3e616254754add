#!/usr/bin/env bash
# Device script of bench/results/2026-12-03-stages-h200.md (repository root, .deps/device
# carried):
#   git apply bench/results/2026-12-03-stages-experiments.diff        # call 1's switch GEMM_NOSMEM_D
#   bash bench/results/2026-12-03-stages-run.sh gemm prof picks gate   # call 1 (cut at 600 s in gate)
#   git checkout src/codegen/gemm_codegen.cc
#   bash bench/results/2026-12-03-stages-run.sh tall check             # call 2 (check cut at 180 s)
#   bash bench/results/2026-12-03-stages-run.sh check                  # call 3 (warm machine)
#   bash bench/results/2026-12-03-stages-run.sh final                  # call 4 (the landed model)
#   gemm:  -gemm-jobs.txt: the public 16032 x 113 and x 109 x 16384 GEMMs and three controls on
#          dispatch's pick (plus 16032 x 113 on t128x128x32 pingpong, 13 stages, and t128x128x64
#          cooperative), each with CUTLASS's TMA epilogue (base) and with the epilogue without
#          shared memory (GEMM_NOSMEM_D: 7 mainloop stages on t128x128x64 instead of 6), boo and
#          cuBLASLt, -V 1 first, two rounds: gemm.csv.
#          Hypothesis: the 16032 lines stream A from DRAM at what a CTA's stages keep in flight
#          (one tile a CTA, 126 CTAs); the 112-wide tile's 3.2% on N = 109 (2026-12-02) came with
#          a seventh stage. Expected: 16032 x 113 on the pick 2-4% faster with GEMM_NOSMEM_D (about
#          136 -> 132 us); 16032 x 109 (t128x112, 7 stages either way) the same; the 4096 x 8192
#          control (8 tiles an SM) slower, its epilogue no longer overlapped.
#   prof:  ncu --set full of the GEMM dispatch runs for n64 c24 28x28 -> k144 1x1 (one partial
#          k-block, 1176 tiles; 18.1 us measured, 10.2 predicted): prof-k144-details.txt,
#          prof-k144-src.txt
#   picks: -picks-jobs.txt: ten more small-C 1x1 layers (C 16-56, K 48-240), conv.sm90_taps forced
#          against dispatch's pick, boo only, two rounds: picks.csv (data to fit the GEMM
#          model's error on one-k-block GEMMs; 2026-12-03-taps-ring call 3 has ten others)
#   gate:  tests/gpu/gemm_awkward.txt with GEMM_NOSMEM_D (the kernels it applies to write D from
#          the accumulators): numerics-awkward-nosmem.csv
#   tall:  -tall-jobs.txt: three deep-K GEMMs with N of 64-96 (12288 x 96 x 12288 took 142.6 us on
#          dispatch's t128x32 coop pick in call 1, cuBLASLt 77.5) on the pick, a tile as wide as N
#          (t128xN pingpong persistent, t128xN cooperative stream-K) and t64xN pingpong, boo and
#          cuBLASLt, two rounds: tall.csv. Question: does a tile spanning N (A read once from the
#          L2) beat the narrow tiles the model ties with it (memory-bound at the same HBM time)?
#   check: -check-jobs.txt: ten 1x1 layers held out of calls 1 and 2's fits, on dispatch's pick
#          with the GEMM's prediction times 1.35 on one partial k-block (conv_dispatcher.cc) and
#          on the other of conv.sm90_taps and the GEMM, boo only, two rounds: check.csv
#   final: -final-jobs.txt: four deep-K GEMMs with N of 48-96 on dispatch's pick with the sweeps
#          term (gemm_sm90_algorithm.cc), boo and cuBLASLt, two rounds: final.csv
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/device_steps.sh stages
J=bench/results/2026-12-03-stages
for phase in "$@"; do
  case "$phase" in
  gemm) timed gemm "$J-gemm-jobs.txt" "base GEMM_NOSMEM_D" boo,cublaslt 260 ;;
  tall) timed tall "$J-tall-jobs.txt" base boo,cublaslt 240 ;;
  final) timed final "$J-final-jobs.txt" base boo,cublaslt 150 ;;
  check) timed check "$J-check-jobs.txt" base boo 180 ;;
  picks) timed picks "$J-picks-jobs.txt" base boo 200 ;;
  prof)
    k144="convbfp16 -n 64 -c 24 -H 28 -W 28 -k 144 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"
    source_profile k144 device_kernel "$k144" ;;
  gate) BOO_NVCC_FLAGS=-DBOO_GEMM_NOSMEM_D numerics awkward-nosmem tests/gpu/gemm_awkward.txt ;;
  *) echo "unknown phase $phase" ;;
  esac
done
