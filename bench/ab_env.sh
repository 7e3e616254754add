#!/usr/bin/env bash
# A/B of an environment switch on the device machine: runs `boo driver --backend $BACKENDS -t 1
# --iter 100 -V 1` over a commands file once per setting per repeat, settings interleaved, and
# writes one CSV with a first column `setting` (the NAME=value used).
# Usage: FILE=commands.txt SETTINGS="BOO_CONV_GEMM_1D=1 BOO_CONV_GEMM_1D=0" [REPS="1 2"]
#        [BACKENDS=boo,cudnn] [CSV=ab.csv] bash bench/ab_env.sh
set -uo pipefail
cd "$(dirname "$0")/.."
export BOO_CUTLASS_DIR="$PWD/.deps/device/cutlass"
export BOO_CACHE_DIR="${BOO_CACHE_DIR:-$PWD/.deps/device-cache}"
boo=build/device/tools/boo/boo
R="${OUT:-/tmp/ab}"
mkdir -p "$R"
csv="$R/${CSV:-ab.csv}"
: >"$csv"
for s in ${SETTINGS:?SETTINGS lists NAME=value settings}; do
  env "$s" "$boo" preload -j "$(nproc)" --commands-file "${FILE:?}" >/dev/null 2>&1
done
for rep in ${REPS:-1 2}; do
  for s in $SETTINGS; do
    env "$s" "$boo" driver --backend "${BACKENDS:-boo,cudnn}" -t 1 --iter 100 -V 1 \
      --csv /tmp/ab-one.csv --commands-file "$FILE" </dev/null >/tmp/ab-one.log 2>&1
    [ -s "$csv" ] || head -1 /tmp/ab-one.csv | sed 's/^/setting,/' >"$csv"
    tail -n +2 /tmp/ab-one.csv | sed "s/^/$s,/" >>"$csv"
    echo "# $rep $s: $(grep -c 'verify boo: PASS' /tmp/ab-one.log) boo PASS, $(grep -c 'FAIL' /tmp/ab-one.log) FAIL"
  done
done
