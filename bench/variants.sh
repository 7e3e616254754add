#!/usr/bin/env bash
# A/B of compile-time kernel variants and forced configs on the device machine (.deps/device
# carried; boo built, or brought up to date, by scripts/device-run.sh build). Each variant is
# `base` (no flags) or macros joined by `+`, each passed as -DBOO_<macro> in BOO_NVCC_FLAGS (part
# of the kernel cache key): `LAYERNORM_INFLIGHT_KB=64+LAYERNORM_PIPE_LIMIT_KB=220`.
# A kernel's experiment patch (bench/results/*-experiments.diff) is not applied here: `git apply`
# it first, where a variant needs its macros.
#
# Usage: JOBS=FILE VARIANTS="base X=1 ..." REPS="1 2 3" [BACKENDS=boo,cublaslt] [REF=FILE]
#        [CSV=name.csv] [DRIVER_FLAGS="--misalign"] bash bench/variants.sh
#   JOBS: lines "<config or -><TAB><command>" (- = dispatch's pick); every variant, job and
#   repeat runs `boo driver --backend $BACKENDS -t 1 --iter 100`, variants interleaved, after one
#   `-V 1` run of each. REF: commands timed once per repeat without flags (a reference).
#   DRIVER_FLAGS: more driver options for every run (--misalign: operands one element past a
#   16-byte boundary). Output: $OUT/$CSV (default variants.csv): the driver's CSV with a first
#   column `variant`.
set -uo pipefail
cd "$(dirname "$0")/.."
export BOO_CUTLASS_DIR="$PWD/.deps/device/cutlass"
export BOO_CACHE_DIR="${BOO_CACHE_DIR:-$PWD/.deps/device-cache}"
boo=build/device/tools/boo/boo
R="${OUT:-/tmp/variants}"
mkdir -p "$R"
# Always built (incremental where a build is there): a warm machine's boo embeds the kernel
# sources of the last call's tree.
OUT= scripts/device-run.sh build >/tmp/variants-build.log 2>&1 \
  || { tail -30 /tmp/variants-build.log; exit 1; }
echo "== built $(date +%T)"
jobs_file=${JOBS:?JOBS names a file of <config or -><TAB><command> lines}
variants=${VARIANTS:-base}
backends=${BACKENDS:-boo}
csv="$R/${CSV:-variants.csv}"
flags() { [ "$1" = base ] || echo "-DBOO_$1" | sed 's/+/ -DBOO_/g'; }
cfgarg() { [ "$1" = - ] || echo "--config $1"; }
# boo preload takes --misalign too (it compiles what misaligned operands re-plan to).
misalign_preload() { [[ " ${DRIVER_FLAGS:-} " == *" --misalign "* ]] && echo --misalign; }
: >/tmp/variants-preload.log  # (a warm machine keeps /tmp: no errors of an earlier call)
# Compile every variant's kernels (8 processes at a time).
for v in $variants; do
  while IFS=$'\t' read -r c cmd; do
    BOO_NVCC_FLAGS="$(flags "$v")" "$boo" preload -j 2 $(misalign_preload) $(cfgarg "$c") "$cmd" \
      >>/tmp/variants-preload.log 2>&1 &
    while [ "$(jobs -rp | wc -l)" -ge 8 ]; do wait -n; done
  done <"$jobs_file"
done
wait
grep -i error /tmp/variants-preload.log | head -5
echo "== preloaded $(date +%T)"
for v in $variants; do
  while IFS=$'\t' read -r c cmd; do
    echo "## verify $v $c ${cmd:0:60}"
    BOO_NVCC_FLAGS="$(flags "$v")" "$boo" driver --backend "$backends" -t 1 --iter 5 -V 1 \
      ${DRIVER_FLAGS:-} $(cfgarg "$c") "$cmd" </dev/null 2>&1 | grep -E "verify|error|skipped" | cut -c1-160
  done <"$jobs_file"
done
: >"$csv"
# One timed run (the driver's arguments, the command last; options go before it): append its
# CSV rows under `variant`, print its medians.
timed() {
  local v=$1
  shift
  "${@:1:$#-1}" --csv /tmp/variants-one.csv "${@: -1}" </dev/null >/tmp/variants-one.log 2>&1
  [ -s "$csv" ] || head -1 /tmp/variants-one.csv | sed 's/^/variant,/' >"$csv"
  tail -n +2 /tmp/variants-one.csv | sed "s/^/$v,/" >>"$csv"
  grep -E "^>>> ([a-z]+: )?min" /tmp/variants-one.log | sed "s/^/$v /" | cut -c1-110
}
for rep in ${REPS:-1 2 3}; do
  for v in $variants; do
    while IFS=$'\t' read -r c cmd; do
      echo "# $c ${cmd:0:60}"
      BOO_NVCC_FLAGS="$(flags "$v")" timed "$v" "$boo" driver --backend "$backends" -t 1 \
        --iter 100 ${DRIVER_FLAGS:-} $(cfgarg "$c") "$cmd"
    done <"$jobs_file"
  done
  if [ -n "${REF:-}" ]; then
    while IFS= read -r cmd; do
      timed ref "$boo" driver --backend "$backends" -t 1 --iter 100 "$cmd"
    done <"$REF"
  fi
done
echo "== timed $(date +%T)"
