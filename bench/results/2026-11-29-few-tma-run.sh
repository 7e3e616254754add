#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-few-tma-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-29-few-tma-run.sh PHASE...
#   gate:   tests/gpu/conv_few_channels.txt against the reference (boo and cuDNN, -V 1) with the
#           direct kernel first (BOO_CONV_FEW_CHANNELS=first), its kernels compiled first; then
#           the same list with operands one element past a 16-byte boundary (--misalign, boo);
#   ab:     (call 2's tree, where FEW_STAGE_BATCH set the element staging's loads in flight; the
#           kept tree has no such macro)
#           -ab-jobs.txt (the direct kernel forced on eight lines, the public stem first): TMA
#           staging and stores (base) against neither with 16 element loads in flight (the
#           kernel before, FEW_TMA_X=0+FEW_TMA_Y=0+FEW_STAGE_BATCH=16) and each alone,
#           boo only, two rounds;
#   vendor: -ab-jobs.txt's lines with dispatch's pick against cuDNN;
#   before: -ab-jobs.txt on the kernel before this change, boo only, two rounds: before.diff in
#           the repository root (`git diff f5985ed -- kernels/conv_few_channels.cuh
#           kernels/tma.cuh > before.diff`) reversed and boo rebuilt; then restored and rebuilt;
#   moved:  -moved-jobs.txt: the two lines whose pick this change moves, on the new pick and the
#           old one, boo only, two rounds;
#   vendor2: -vendor2-jobs.txt's lines (the vendor phase's last five, which it ran out of time
#           for, and the 1D line) with dispatch's pick against cuDNN;
#   small:  -small-jobs.txt (14 lines on the direct kernel that stage element by element, 11 of
#           them with no TMA path at all) on the kernel before this change (as in `before`) and
#           after it, boo only, two rounds each: -small-before-h200.csv, -small-after-h200.csv;
#   final:  (the kept tree: the element-staged form its own kernel, no TMA stores beside it)
#           -ab-jobs.txt on it (base), with the output box off (FEW_TMA_Y=0) and with TMA off
#           (FEW_TMA_X=0: element staging, vector stores), boo only, two rounds: -final-h200.csv;
#   epi:    (not run: no device time was left) after `git apply
#           bench/results/2026-11-29-few-tma-epilogue-experiments.diff` (the epilogue's stores
#           predicated at kept row addresses), -small-jobs.txt, then -ab-jobs.txt, boo only, two
#           rounds: epi-small.csv, epi-ab.csv (compare with -small-before-h200.csv, -final-);
#   public: the public conv list against cuDNN (-V 1), compiled first;
#   prof:   the public stem on the direct kernel under ncu: -stem-ncu.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh few-tma
J=bench/results/2026-11-29-few-tma
for phase in "$@"; do
  case "$phase" in
  gate) few_gate ;;
  ab) ab ab "base FEW_TMA_X=0+FEW_TMA_Y=0+FEW_STAGE_BATCH=16 FEW_TMA_Y=0 FEW_TMA_X=0" boo ;;
  vendor) vendor vendor "$J-ab-jobs.txt" cudnn -V 1 ;;
  moved) ab moved base boo ;;
  final) timed final "$J-ab-jobs.txt" "base FEW_TMA_Y=0 FEW_TMA_X=0" ;;
  epi)
    timed epi-small "$J-small-jobs.txt" base
    timed epi-ab "$J-ab-jobs.txt" base
    ;;
  small)
    patch -R -p1 <before.diff >/dev/null && step build-before 300 scripts/device-run.sh build
    timed small-before "$J-small-jobs.txt" base
    patch -p1 <before.diff >/dev/null && step build-after 300 scripts/device-run.sh build
    timed small-after "$J-small-jobs.txt" base
    ;;
  vendor2)
    cut -f2 "$J-vendor2-jobs.txt" >/tmp/vendor2-lines.txt
    step vendor2-preload 240 "$boo" preload -j 16 --commands-file /tmp/vendor2-lines.txt
    step vendor2 300 "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 \
      --csv "$R/vendor2.csv" --commands-file /tmp/vendor2-lines.txt
    grep -E "^>>> (boo: min|cudnn: min|speedup)" "$L/vendor2.log" | cut -c1-140
    ;;
  before)
    patch -R -p1 <before.diff >/dev/null && step build-before 300 scripts/device-run.sh build
    timed before "$J-ab-jobs.txt" base
    patch -p1 <before.diff >/dev/null && step build-after 300 scripts/device-run.sh build
    ;;
  public)
    preload_public conv
    public_list conv conv-public.csv 240
    ;;
  prof) profile stem few_channels "$(grep -- '-c 3 -H 224' bench/workloads/conv_public.txt | head -1)" ;;
  *) echo "unknown phase $phase" ;;
  esac
done
