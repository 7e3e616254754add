#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-forced-lines-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-29-forced-lines-run.sh PHASE...
#   forced: -forced-jobs.txt, two rounds, cuDNN beside each, each job -V 1 first: the public 7x7
#           1x1 K = 2048 line on dispatch's pick and five tilings of 96 output columns (cuDNN's
#           kernel is a 256x96 2x1-cluster cooperative one: 8 x 33 = 264 tiles, two waves on 132
#           SMs); the four fp32 1x1 backward-weight lines on the pick (the GEMM behind transposed
#           copies) and conv.split_wgrad's direct tf32 kernel; the 1D n7 c33 w1001 k7 line on the
#           pick (conv.pointwise) and gemm.skinny through conv.gemm_1x1;
#   public: both public lists against their vendors (-V 1), compiled first;
#   t96:    (128x96 tiles in the default rule set) the five lines whose pick moves to them, on the
#           new pick and the old one forced (-t96conv-jobs.txt with cuDNN, -t96gemm-jobs.txt with
#           cuBLASLt), two rounds, -V 1 first;
#   gates:  tests/gpu/gemm_tf32_transposed.txt, conv_tf32_1x1.txt and conv_wgrad_tf32.txt
#           against the reference (boo, -V 1), each list's kernels compiled first;
#   conv:   the public conv list against cuDNN (-V 1), compiled first;
#   k2048:  (call 5, the landed tree) the 7x7 1x1 K = 2048 line on its new pick (128x96 c2x1
#           pingpong) and its neighbours (K 128 a k-block, strips of 8 by either raster, 2x2 and
#           1x2 clusters, cooperative), -k2048-jobs.txt, with cuDNN, two rounds, -V 1 first;
#   tiles96: (not run yet: for the next session) tests/gpu/gemm_tiles96.txt's gate (boo and
#           cuBLASLt, -V 1), then each of its lines on dispatch's pick (128x96) against the
#           best-ranked config of another width (-tiles96-jobs.txt), with cuBLASLt, two rounds;
#   wgrad1x1: (not run yet: for the next session) conv.split_wgrad's fp32 1x1 kernel
#           (-DBOO_WGRAD_1X1=1): tests/gpu/conv_wgrad_1x1.txt's gate with it (boo and cuDNN,
#           -V 1), then -wgrad1x1-jobs.txt (that list and three more 1x1 lines, the direct
#           kernel forced) on the direct kernel's 3x3 plan (base) against the 1x1 kernel, with
#           cuDNN, two rounds;
#   pwblock: four conv.pointwise lines in place whose warp kernel an SM would hold one block fewer
#           of than the block kernel (24daac7 runs the block kernel there), -pwblock-jobs.txt:
#           the block kernel (base) against the warp kernel of two slices a warp (the lanes'
#           stores, POINTWISE_BULK_STORE=0), with cuDNN, two rounds.
#   w1x1pick: (this session's call 2: the 1x1 kernel on by default, small blocks several an SM)
#           tests/gpu/conv_wgrad_1x1.txt's and conv_wgrad_tf32.txt's gates (boo and cuDNN, -V 1),
#           then -w1x1pick-jobs.txt: the wgrad1x1 lines on dispatch's pick and on the direct
#           kernel forced, the slices an SM as planned (base) and at most one
#           (WGRAD_1X1_SLICES_PER_SM=1), with cuDNN, two rounds.
#   k2048b: (this session's call 5) the 7x7 1x1 K = 2048 line on dispatch's pick (128x96 c2x1
#           pingpong) against stream-K (128x128 1x1 and 2x1, 256x128 2x1, 128x96 2x1: the 4 tiles
#           past three waves spread over every SM) and whole-wave tilings (256x64 1x1 and 2x1:
#           392 tiles, 2.97 waves; 128x64 2x1 pingpong: 784, 5.94), -k2048b-jobs.txt, with
#           cuDNN, two rounds.
#   t96b:   (this session's call 9, the device time left) the first four lines of
#           -tiles96-jobs.txt only (-t96b-jobs.txt): dispatch's pick (128x96) against the
#           best-ranked config of another width, with cuBLASLt, two rounds.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh forced-lines
J=bench/results/2026-11-29-forced-lines
for phase in "$@"; do
  case "$phase" in
  forced) ab forced base boo,cudnn ;;
  public) public_lists 300 ;;
  t96)
    ab t96conv base boo,cudnn
    ab t96gemm base boo,cublaslt
    ;;
  gates)
    for l in gemm_tf32_transposed conv_tf32_1x1 conv_wgrad_tf32; do
      numerics "$l" "tests/gpu/$l.txt"
    done
    ;;
  k2048) ab k2048 base boo,cudnn ;;
  k2048b) ab k2048b base boo,cudnn ;;
  t96b) ab t96b base boo,cublaslt ;;
  wgrad1x1)
    step w1x1-preload 240 env BOO_NVCC_FLAGS=-DBOO_WGRAD_1X1=1 BOO_CONV_WGRAD_DIRECT=first \
      "$boo" preload -j 16 --commands-file tests/gpu/conv_wgrad_1x1.txt
    step w1x1-gate 150 env BOO_NVCC_FLAGS=-DBOO_WGRAD_1X1=1 BOO_CONV_WGRAD_DIRECT=first \
      "$boo" driver --backend boo,cudnn -t 0 -V 1 --explain --csv "$R/numerics-wgrad1x1.csv" \
      --commands-file tests/gpu/conv_wgrad_1x1.txt
    ab wgrad1x1 "base WGRAD_1X1=1" boo,cudnn
    ;;
  pwblock) ab pwblock "base POINTWISE_BULK_STORE=0" boo,cudnn ;;
  w1x1pick)
    for l in conv_wgrad_1x1 conv_wgrad_tf32; do
      step "$l-preload" 240 "$boo" preload -j 16 --commands-file "tests/gpu/$l.txt"
      step "$l" 150 "$boo" driver --backend boo,cudnn -t 0 -V 1 --explain \
        --csv "$R/numerics-$l.csv" --commands-file "tests/gpu/$l.txt"
    done
    ab w1x1pick "base WGRAD_1X1_SLICES_PER_SM=1" boo,cudnn
    ;;
  tiles96)
    step tiles96-preload 240 "$boo" preload -j 16 --commands-file tests/gpu/gemm_tiles96.txt
    step tiles96-gate 200 "$boo" driver --backend boo,cublaslt -t 0 -V 1 --explain \
      --csv "$R/numerics-tiles96.csv" --commands-file tests/gpu/gemm_tiles96.txt
    ab tiles96 base boo,cublaslt
    ;;
  conv)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
