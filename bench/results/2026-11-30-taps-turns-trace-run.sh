#!/usr/bin/env bash
# Device script of section 5 of bench/results/2026-11-30-taps-turns-h200.md (repository root,
# .deps/device carried): conv.sm90_taps with -trace-experiments.diff applied (globaltimer stamps of
# each warpgroup leader, printed by three blocks, and every block's first and last stamp), on
# the public 3x3 line and its n32 twin, once untimed and once timed (-t 1 --iter 3):
#   bash bench/results/2026-11-30-taps-turns-trace-run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
git apply bench/results/2026-11-30-taps-turns-trace-experiments.diff || exit 1
source bench/device_steps.sh taps-trace
for cmd in "convbfp16 -n 64 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC" "convbfp16 -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC"; do
  n=$(echo "$cmd" | cut -d' ' -f3)
  BOO_CONV_TAPS=first timeout 120 "$boo" driver --backend boo -t 0 $cmd >"$R/trace-$n.txt" 2>&1
  BOO_CONV_TAPS=first timeout 120 "$boo" driver --backend boo -t 1 --iter 3 $cmd \
    >"$R/trace-timed-$n.txt" 2>&1
done
grep -c TRACESPAN "$R"/*.txt
