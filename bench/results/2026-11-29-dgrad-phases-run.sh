#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-dgrad-phases-h200.md (repository root, .deps/device
# carried):
#   bash bench/results/2026-11-29-dgrad-phases-run.sh PHASE...
#   gates:  tests/gpu/conv_dgrad_phases.txt (boo and cuDNN against the reference, -V 1) and the
#           backward-data lines of tests/gpu/conv_awkward.txt;
#   vendor: the jobs' lines (strided 16-bit and fp32 backward data) with dispatch's pick against
#           cuDNN;
#   before: two of them on conv.direct (what dispatch ran before the stride phases), boo only;
#   padded: (call 6) the list's lines with channels that are not 16-byte vectors (C = 35, C = 3,
#           behind conv.padded_channels' copies) and two of its other lines, compiled, then their
#           gate against cuDNN;
#   conv:   the public conv list against cuDNN;
#   final:  (call 3, after phases with negative upper padding compute past their end) the phases'
#           list and the public conv list compiled together, then the phases' gate and the public
#           conv list against cuDNN.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh dgrad-phases
J=bench/results/2026-11-29-dgrad-phases
for phase in "$@"; do
  case "$phase" in
  preload)  # every kernel below, 16 compiles at a time
    grep -E -- '-F 2' tests/gpu/conv_awkward.txt >/tmp/awk-dgrad.txt
    cut -f2 $J-jobs.txt >/tmp/dgrad-jobs.txt
    cat tests/gpu/conv_dgrad_phases.txt /tmp/awk-dgrad.txt /tmp/dgrad-jobs.txt >/tmp/dgrad-all.txt
    step preload 400 "$boo" preload -j 16 --commands-file /tmp/dgrad-all.txt
    ;;
  gates)
    step phases-gate 200 "$boo" driver --backend boo,cudnn -t 0 -V 1 --explain \
      --csv "$R/numerics-phases.csv" --commands-file tests/gpu/conv_dgrad_phases.txt
    grep -E "verify|chose|error" "$L/phases-gate.log" | cut -c1-150
    step awkward-dgrad 200 "$boo" driver --backend boo,cudnn -t 0 -V 1 --explain \
      --csv "$R/numerics-awkward-dgrad.csv" --commands-file /tmp/awk-dgrad.txt
    ;;
  vendor)
    vendor vendor $J-jobs.txt cudnn --explain
    ;;
  before)
    OUT="$R" JOBS=$J-before-jobs.txt REPS="1" BACKENDS=boo CSV=before.csv VARIANTS=base \
      timeout 200 bash bench/variants.sh >"$L/before.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/before.log" | cut -c1-150
    summary "$R/before.csv" 70 50
    ;;
  padded)
    { sed -n '11p;27p' tests/gpu/conv_dgrad_phases.txt
      tail -3 tests/gpu/conv_dgrad_phases.txt; } >/tmp/padded-dgrad.txt
    step preload-padded 200 "$boo" preload -j 16 --commands-file /tmp/padded-dgrad.txt
    step padded-gate 90 "$boo" driver --backend boo,cudnn -t 0 -V 1 --explain \
      --csv "$R/numerics-padded.csv" --commands-file /tmp/padded-dgrad.txt
    grep -E "verify|chose|error" "$L/padded-gate.log" | cut -c1-150
    ;;
  conv) preload_public conv; public_list conv conv-public.csv ;;
  final)
    cat tests/gpu/conv_dgrad_phases.txt bench/workloads/conv_public.txt >/tmp/final-all.txt
    step preload-final 330 "$boo" preload -j 16 --commands-file /tmp/final-all.txt
    step phases-gate-final 120 "$boo" driver --backend boo,cudnn -t 0 -V 1 --explain \
      --csv "$R/numerics-phases-final.csv" --commands-file tests/gpu/conv_dgrad_phases.txt
    grep -E "verify boo|chose" "$L/phases-gate-final.log" | tail -4 | cut -c1-150
    public_list conv conv-public.csv 150
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
