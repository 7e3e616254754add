# Sourced by the device scripts beside dated results (bench/results/*-run.sh), run from the
# repository root on the GPU machine, .deps/device carried:
#   source bench/device_steps.sh NAME [TARBALL]
# sets the kernel cache and CUTLASS paths, boo (the binary), R (the results folder: $OUT, else
# /tmp/NAME) and L (the log folder, /tmp/NAME-logs, packed into $R/TARBALL, default logs.tgz, on
# exit); defines `log`, `step` (a bounded step whose output goes to $L/STEP.log, with its rc and
# its gate PASS/FAIL counts printed), `numerics` (a list's kernels compiled, then its gate) and
# `public_lists` (both public lists against cuDNN and cuBLASLt);
# and builds boo where it is not there yet.
export BOO_CUTLASS_DIR="$PWD/.deps/device/cutlass"
export BOO_CACHE_DIR="$PWD/.deps/device-cache"
boo=build/device/tools/boo/boo
R="${OUT:-/tmp/$1}"
L="/tmp/$1-logs"
mkdir -p "$R" "$L"
# shellcheck disable=SC2064  # the tarball's name is fixed now
trap "tar czf \"$R/${2:-logs.tgz}\" -C \"$L\" . 2>/dev/null" EXIT
log() { echo "== $(date +%H:%M:%S) $*"; }
step() {  # step NAME SECONDS COMMAND...: a bounded step, its output in $L/NAME.log
  local name=$1 limit=$2
  shift 2
  log "$name"
  timeout "$limit" "$@" >"$L/$name.log" 2>&1
  echo "   rc=$? $(grep -c 'verify boo: PASS' "$L/$name.log") PASS $(grep -c 'verify boo: FAIL' "$L/$name.log") FAIL $(grep -c 'error:' "$L/$name.log") errors"
}
numerics() {  # numerics NAME FILE [--misalign]: the list's kernels, then its gate (boo only)
  step "$1-preload" 240 "$boo" preload -j 16 ${3:-} --commands-file "$2"
  step "$1" 150 "$boo" driver --backend boo -t 0 -V 1 --explain ${3:-} \
    --csv "$R/numerics-$1.csv" --commands-file "$2"
}
public_lists() {  # public_lists [LIMIT]: both public lists against the vendors, -V 1, CSVs in $R
  local limit=${1:-240}
  step conv "$limit" "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 --explain \
    --csv "$R/conv-public.csv" --commands-file bench/workloads/conv_public.txt
  grep -E '^>>> speedup|ceilings' "$L/conv.log" | cut -c1-120
  step gemm "$limit" "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 --explain \
    --csv "$R/gemm-public.csv" --commands-file bench/workloads/gemm_public.log
  grep -E '^>>> speedup|ceilings' "$L/gemm.log" | cut -c1-120
}
[ -x "$boo" ] || step build 300 scripts/device-run.sh build
[ -x "$boo" ] || { tail -30 "$L/build.log"; exit 1; }
