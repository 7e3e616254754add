#!/usr/bin/env bash
# Device script of bench/results/2026-12-03-fitted-n-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-12-03-fitted-n-run.sh fit        # call 1
#   bash bench/results/2026-12-03-fitted-n-run.sh public     # call 2 (warm machine)
#   bash bench/results/2026-12-03-fitted-n-run.sh few        # call 3 (B K-major only, as landed)
#   bash bench/results/2026-12-03-fitted-n-run.sh moved      # call 4 (the loaded-bytes term)
#   fit:    -jobs.txt: 11 GEMMs with N of 65-96 (two deep-K ones of 2026-12-03-stages, nine held
#           out of every list but one line of tests/gpu/gemm_split_parallel.txt) on dispatch's
#           pick with 128-wide tiles narrowed to N rounded up to 16 (gemm_sm90_algorithm.cc,
#           fitted_tile_n), on the pick before it where that moved, and on a tile as wide as N
#           where the pick is still a narrow tile splitting N; boo and cuBLASLt, -V 1 first, two
#           rounds: fit.csv.
#           Expected: 12288 x 96 x 12288 92.2 -> ~81.5 us (the t128x96 pingpong forced on
#           2026-12-03); 20480 x 80 x 8192 128.4 -> ~97.5 (t64x80); the held-out moves no slower
#           than their old picks (a tile spanning N reads A once; a narrower one stages fewer
#           padding columns).
#   public: both public lists against their vendors, -V 1 (conv-public.csv, gemm-public.csv);
#           no public pick moves (boo parse), so this is the standing on this tree.
#   few:    -few-jobs.txt: seven GEMMs with a tile grid far smaller than a wave (16-48 tiles
#           of 128 rows) and deep K, N 65-128, none in any list: dispatch's pick (a persistent
#           tile 16 or 32 wide splitting N, predicted first) against the model's best parallel
#           split-K, and serial split-K in 4 and stream-K on a 128-row tile spanning N; boo
#           and cuBLASLt, two rounds: few.csv. Call 1 found cuBLASLt 1.8x faster on 2048 x 65 x
#           16384 (split-K 4: 24.9 us; boo's t128x16: 44.6) and 1.3x on 3000 x 90 x 5000.
#           Hypothesis: tiles spanning N, split along K so that they fill the SMs, beat the narrow
#           tiles (which read A once per tile across N); expected 2048 x 65 at 25-30 us on
#           parallel split-K.
#   moved:  -moved-jobs.txt: seven lines of tests/gpu GEMM lists whose pick the narrow tiles'
#           loaded-bytes term (gemm_sm90_algorithm.cc, fitted on call 3's seven GEMMs) moves, on
#           the new pick and the old one, boo only, -V 1 first, two rounds: moved.csv (the
#           term's held-out check). Expected: the new picks no slower; the small ones (640 x 384
#           x 320, 777 x 256 x 512) within noise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/device_steps.sh fitted-n
J=bench/results/2026-12-03-fitted-n
for phase in "$@"; do
  case "$phase" in
  fit) timed fit "$J-jobs.txt" base boo,cublaslt 420 ;;
  public) public_lists 240 ;;
  moved) timed moved "$J-moved-jobs.txt" base boo 300 ;;
  few) timed few "$J-few-jobs.txt" base boo,cublaslt 480 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
