#!/usr/bin/env bash
# Device script of bench/results/2026-12-04-nmajor-h200.md (repository root, .deps/device and
# .deps/device-kcache carried):
#   bash bench/results/2026-12-04-nmajor-run.sh sweep     # call 1 (2026-12-03, on 2611895)
#   bash bench/results/2026-12-04-nmajor-run.sh check     # call 2 (2026-12-04, the model change)
#   sweep:  -sweep-jobs.txt: GEMMs with B stored N-major (hipBLASLt transB T) and N of 72-96,
#           whose picks are 128-wide tiles (the fitted widths are K-major only: CUTLASS stages an
#           MN-major tile 80 or 112 wide in the 32-byte swizzle), on the pick and on forced
#           96-wide tiles (64-byte swizzle), stream-K over 128- and 96-wide tiles, and a 2x1
#           cluster (B multicast); the same GEMMs with B K-major on their picks (what a K-major
#           copy of B could reach); boo and cuBLASLt, -V 1 first, two rounds: sweep.csv.
#           Expected (written before the call): 14336 x 72 x 14336 (112 tiles of 128 rows on 132
#           SMs) 124.6 -> ~106 us on stream-K (all SMs streaming A), ~110 on t128x96 (a quarter
#           less wasted MMA); its K-major twin ~100 us (the bound); 8192 x 80 x 2048 fp16 16.1
#           -> ~14 on t64x96 (128 tiles, one read of A).
#   check:  -moved-jobs.txt: dispatch's model with the off-line rows' L2 reads added to its DRAM
#           term (src/dispatch/gemm_sm90_algorithm.cc): every list pick it moves (7 distinct
#           lines), on the old and the new config; the four N-major lines of the sweep on their
#           old pick (forced) and dispatch's new one (-); boo only, -V 1 first, two rounds:
#           moved.csv; then the new picks of the N-major lines against cuBLASLt: vendor.csv.
#           Expected (written before the call): the N-major lines 1.10-1.15x faster on 2x1
#           clusters (14336 x 72 x 14336 124.3 -> ~109 us, as forced in call 1; 10240 x 96 x
#           8192 54.4 -> ~48; 16384 x 88 x 4096 48.3 -> ~43; fp16 8192 x 80 x 2048 16.1 ->
#           ~14.5); the seven held-out moves within 5% either way (small multicast gains), the
#           one risk 8192 x 100 x 4104 +bias +gelu on parallel split-K (38.7 us before; it may
#           be slower: then the term stays out of split-K choices).
#           Measured: three of the N-major lines as expected, fp16 8192 x 80 x 2048 4% slower,
#           three K-major moves 5-16% slower: the term was narrowed to MN-major operands and
#           K of 4096 or more (no list pick moves then).
#   heldout: -heldout-jobs.txt: ten random GEMMs of the class (seed 20261204: B N-major with N
#           of 56-232, or A M-major with M of 72-232; K of 4096-12288; bf16 and fp16) whose
#           picks the narrowed term moves, on the old and the new pick; boo and cuBLASLt, -V 1
#           first, two rounds: heldout.csv. Expected (written before the call): the six B
#           N-major lines 1.03-1.15x faster on 2x1 clusters, as in call 2; the four A M-major
#           ones (A multicast in 1x2 clusters, or split-K, never measured) within 5%.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/device_steps.sh nmajor
J=bench/results/2026-12-04-nmajor
for phase in "$@"; do
  case "$phase" in
  sweep) timed sweep "$J-sweep-jobs.txt" base boo,cublaslt 540 ;;
  check)
    timed moved "$J-moved-jobs.txt" base boo 500
    grep '^-' "$J-moved-jobs.txt" >/tmp/nmajor-picks.txt
    vendor vendor /tmp/nmajor-picks.txt cublaslt
    ;;
  heldout) timed heldout "$J-heldout-jobs.txt" base boo,cublaslt 560 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
