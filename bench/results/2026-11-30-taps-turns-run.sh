#!/usr/bin/env bash
# Device script of bench/results/2026-11-30-taps-turns-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-30-taps-turns-run.sh PHASE...
#   ab:     -ab-jobs.txt (bench/workloads/conv_taps_ab.txt's twelve lines on conv.sm90_taps) with
#           the warpgroups' mma issued in turns (base) and left to themselves (TAPS_ORDERED=0),
#           boo only, two rounds: ab.csv;
#   widths: -widths-jobs.txt (the twelve and six lines whose tiles take other widths) on
#           conv.sm90_taps with tiles as wide as they need (base, kernels/conv_taps_plan.cuh) and
#           256 positions each as before (TAPS_N=256), boo only, two rounds: widths.csv;
#   filter: with -filter-experiments.diff applied first (`git apply`, on a tree whose boo is
#           built after it): -filter-jobs.txt (seven of them, backward data's two among them)
#           with the filter staged by TMA boxes the producer issues first (base) and by the
#           warpgroups' cp.async copies (TAPS_FILTER_TMA=0), boo only, two rounds: filter.csv;
#   gate:   tests/gpu/conv_taps.txt with conv.sm90_taps first, boo and cuDNN (-V 1):
#           numerics-taps.csv;
#   vendor: -widths-jobs.txt's lines with dispatch's pick against cuDNN: vendor.csv;
#   implicit: the same with BOO_CONV_TAPS=0 (the implicit GEMM's pick): implicit.csv;
#   public: the public conv list against cuDNN (-V 1): conv-public.csv;
#   final:  public, vendor and implicit, every kernel compiled first at once;
#   gemm:   the public GEMM list against cuBLASLt (-V 1): gemm-public.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh taps-turns
J=bench/results/2026-11-30-taps-turns
for phase in "$@"; do
  case "$phase" in
  ab) ab ab "base TAPS_ORDERED=0" ;;
  gate) BOO_CONV_TAPS=first NUMERICS_VENDORS=,cudnn numerics taps tests/gpu/conv_taps.txt ;;
  widths) ab widths "base TAPS_N=256" ;;
  filter) ab filter "base TAPS_FILTER_TMA=0" ;;
  vendor) VENDOR_LIMIT=200 vendor vendor "$J-widths-jobs.txt" cudnn ;;
  implicit) BOO_CONV_TAPS=0 VENDOR_LIMIT=200 vendor implicit "$J-widths-jobs.txt" cudnn ;;
  public)
    preload_public conv
    public_list conv
    ;;
  gemm)
    preload_public gemm
    public_list gemm
    ;;
  final) # every kernel of public, vendor and implicit compiled at once, then the three
    cut -f2 "$J-widths-jobs.txt" >/tmp/widths-lines.txt
    step preload-conv 300 "$boo" preload -j 6 --commands-file bench/workloads/conv_public.txt &
    step preload-widths 300 "$boo" preload -j 6 --commands-file /tmp/widths-lines.txt &
    BOO_CONV_TAPS=0 step preload-implicit 300 "$boo" preload -j 6 \
      --commands-file /tmp/widths-lines.txt &
    wait
    public_list conv
    VENDOR_LIMIT=150 vendor vendor "$J-widths-jobs.txt" cudnn
    BOO_CONV_TAPS=0 VENDOR_LIMIT=150 vendor implicit "$J-widths-jobs.txt" cudnn
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
