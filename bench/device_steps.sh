# Sourced by the device scripts beside dated results (bench/results/*-run.sh), run from the
# repository root on the GPU machine: `log`, `step` (a bounded step whose output goes to
# $L/NAME.log, with its rc and its gate PASS/FAIL counts printed), and boo's build where it is
# not there yet. The caller sets boo (the binary) and L (the log folder).
log() { echo "== $(date +%H:%M:%S) $*"; }
step() {  # step NAME SECONDS COMMAND...: a bounded step, its output in $L/NAME.log
  local name=$1 limit=$2
  shift 2
  log "$name"
  timeout "$limit" "$@" >"$L/$name.log" 2>&1
  echo "   rc=$? $(grep -c 'verify boo: PASS' "$L/$name.log") PASS $(grep -c 'verify boo: FAIL' "$L/$name.log") FAIL $(grep -c 'error:' "$L/$name.log") errors"
}
[ -x "$boo" ] || step build 300 scripts/device-run.sh build
[ -x "$boo" ] || { tail -30 "$L/build.log"; exit 1; }
