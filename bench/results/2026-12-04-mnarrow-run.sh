#!/usr/bin/env bash
# Device script of bench/results/2026-12-04-mnarrow-h200.md (repository root, .deps/device and
# .deps/device-kcache carried):
#   bash bench/results/2026-12-04-mnarrow-run.sh sweep     # call 1
#   bash bench/results/2026-12-04-mnarrow-run.sh check heldout   # call 2
#   bash bench/results/2026-12-04-mnarrow-run.sh heldout2 mirror # call 3
#   bash bench/results/2026-12-04-mnarrow-run.sh c4              # call 4
#   bash bench/results/2026-12-04-mnarrow-run.sh swap            # call 5
#   sweep:  -sweep-jobs.txt: GEMMs with few rows (M of 72-104) and A stored M-major (hipBLASLt
#           transA N; its 144-208-byte columns start off 128-byte lines), wide N and long K: the
#           held-out lines of 2026-12-04-nmajor at 0.67-0.82x cuBLASLt. Each on dispatch's pick
#           and on forced 128x128 and 128x256 tiles (one M tile: B read once), with and without
#           1x2 clusters (A multicast), split so as to fill the GPU; then their K-major twins
#           (transA T, lda = K) on their picks; boo and cuBLASLt, -V 1 first, two rounds.
#           Expected (written before the call): every CTA re-reads all of A's rows over its
#           K range from L2, and A's off-line columns make those reads dear (2026-12-02-n100):
#           A's L2 reads are 1.1x B's bytes on the pick of 72 x 4096 x 12288 (64 N tiles). Tiles
#           of 256 columns re-read A a quarter as often: 72 x 4096 x 12288 50.7 -> ~40 us on
#           t128x256 psplitk8, 88 x 11008 x 6144 53.5 -> ~42, 104 x 8192 x 8192 50.3 -> ~42;
#           1x2 clusters a further 3-8%; the K-major twins ~10% faster than their nn picks (if
#           so, a K-major copy of A is worth a look).
#           Measured: as expected for the clusters and wide tiles (1x2 clusters 1.11-1.47x the
#           picks, 34.4 us on 72 x 4096 x 12288 against cuBLASLt's 34.0), but the K-major twins
#           were no faster than the nn forms: 74.8, 50.2, 49.2 us on their picks (cuBLASLt 30.1,
#           37.4, 37.9): the cost is A's re-reads by many tiles, not its layout.
#   check:  -check-jobs.txt: the six lines of the sweep on dispatch's picks with the shared-operand
#           term (src/dispatch/gemm_sm90_algorithm.cc: A's L2 reads beyond its first cost 0.67 of
#           a DRAM byte where M is 33-256, N >= 16 M and K >= 4096); boo and cuBLASLt, -V 1 first,
#           two rounds. Expected (written before the call): 72 x 4096 x 12288 nn 50.7 -> 35.3 us
#           (t128x256 c1x2 psplitk8, as forced in call 1), 88 x 11008 x 6144 nn 53.4 -> ~45
#           (t128x160 c1x2 cooperative, 70 tiles: never timed; 43-48), 104 x 8192 x 8192 nn
#           50.2 -> 45.7; the K-major twins as their nn forms: 74.8 -> ~35, 50.2 -> ~45,
#           49.2 -> ~45.
#   heldout: -heldout-jobs.txt: eight random GEMMs of the class (seed 20261205: M 40-256, N
#           2048-16384 and at least 16 M, K 4096-16384, A M- or K-major, bf16 or fp16, a fifth
#           with bias and gelu; all 40 drawn have their picks moved) on the old pick (forced) and
#           the new one; boo and cuBLASLt, -V 1 first, two rounds. Expected (written before the
#           call): 1.1-1.4x faster where the old pick had 64-wide or 64-row tiles without
#           split-K, within 5% elsewhere; the 256-row tiles over M of 136-248 are the risk.
#           Measured: the six lines 1.10-2.13x as expected (34.8, 46.3, 45.1; K-major 35.1, 45.4,
#           44.8 us); held out, M of 40-104 1.74x, level, 0.966x; M of 136-248 on 256-row tiles
#           0.84x, 0.95x, 1.26x and level twice: the term was narrowed to M of 33-128 (one
#           128-row tile spans M).
#   heldout2: -heldout2-jobs.txt: the other eight of the 40 drawn in call 2 whose picks the
#           narrowed term moves (M of 40-128), old pick (forced) and new; boo and cuBLASLt, -V 1
#           first, two rounds. Expected (written before the call): 1.1-1.5x faster where the old
#           pick had 64-wide tiles or 64-row tiles in pairs (64 to 208 readers of A), within 5%
#           on 40 x 2560 x 7680 (80 readers before, 20 now, but few tiles).
#   mirror: -mirror-jobs.txt: the mirror class, N of 72 and 104 with B K-major (a linear layer's
#           tokens as N, as PyTorch logs it), which the term leaves out: the pick, and forced
#           256x128 and 128x128 tiles in 2x1 clusters (B multicast) split to fill the GPU; boo
#           and cuBLASLt. Expected (written before the call): if B's re-reads cost as A's do,
#           4096 x 72 x 12288 ~75 us on its t128x32 pick (as the K-major twin of call 1) and ~35
#           forced; if not, the forced tiles within 5% of the pick.
#           Measured (call 3): heldout2 1.06-2.63x on seven, 0.84x on the one with M = 128 (the
#           term then left M = 128 out); mirror: 35.3 us on the pick, the forced tiles 2-9%
#           slower (no such cost with B shared).
#   c4:     -c4-jobs.txt, with -c4-experiments.diff applied (clusters of four allowed; the
#           default rule set unchanged): five lines of the class on the landed picks and on
#           1x4 clusters (A multicast over four columns of tiles, as cuBLASLt's 1x4 on three of
#           them); boo and cuBLASLt, -V 1 first, two rounds. Expected (written before the call):
#           half the A reads again; 88 x 11008 x 6144 46.3 -> ~42 us, 104 x 8192 x 8192 45.1 ->
#           ~42, 72 x 4096 x 12288 level (34.8, already at cuBLASLt); a cluster of four holds 120
#           of the 132 SMs (bench/probes/cluster_occupancy.cu), which may eat the gain.
#           Measured: 1.13-1.17x on 88 x 11008 x 6144 (88 CTAs), 1.28-1.42x slower on the split
#           lines (128 CTAs: a second wave of clusters). Not landed.
#   swap:   -swap-jobs.txt: four GEMMs with few rows and A K-major (tn; 88, 104, 80 and 136 rows)
#           on dispatch's pick and with swapped operands (swap_ab: the mirror problem, B' = A
#           K-major and narrow, on the tiles dispatch picks for the mirror, alone and in 2x1
#           clusters); boo and cuBLASLt, -V 1 first, two rounds. For the next session: the
#           space swaps only 16- and 32-wide tiles today. Expected (written before the call): the
#           mirror's times, as the mirror call measured 8192 x 104 x 8192 at 40.9 us: 104 x 8192 x
#           8192 44.7 -> ~41, 88 x 11008 x 6144 45.4 -> ~41, 80 x 5376 x 11264 41.5 -> ~38, 136 x
#           9216 x 13312 (pick t64x256, not timed) ~85.
#           Measured: 39.2, 40.4, 37.6 us (1.12-1.20x the landed picks, 0.95-1.01x cuBLASLt);
#           136 rows 88.5 against 83.8 on the pick. 2x1 clusters 1-3% slower. Not landed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/device_steps.sh mnarrow
J=bench/results/2026-12-04-mnarrow
for phase in "$@"; do
  case "$phase" in
  sweep) timed sweep "$J-sweep-jobs.txt" base boo,cublaslt 470 ;;
  check) timed check "$J-check-jobs.txt" base boo,cublaslt 170 ;;
  heldout) timed heldout "$J-heldout-jobs.txt" base boo,cublaslt 380 ;;
  heldout2) timed heldout2 "$J-heldout2-jobs.txt" base boo,cublaslt 330 ;;
  mirror) timed mirror "$J-mirror-jobs.txt" base boo,cublaslt 180 ;;
  c4)
    patch -p1 <"$J-c4-experiments.diff" && timed c4 "$J-c4-jobs.txt" base boo,cublaslt 400
    patch -R -p1 <"$J-c4-experiments.diff"
    ;;
  swap) timed swap "$J-swap-jobs.txt" base boo,cublaslt 230 ;;
  *) echo "unknown phase $phase" ;;
  esac
done
