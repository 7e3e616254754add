# Sourced by the device scripts beside dated results (bench/results/*-run.sh), run from the
# repository root on the GPU machine, .deps/device carried:
#   source bench/device_steps.sh NAME [TARBALL]
# sets the kernel cache and CUTLASS paths, boo (the binary), R (the results folder: $OUT, else
# /tmp/NAME) and L (the log folder, /tmp/NAME-logs, packed into $R/TARBALL on exit, default
# NAME-logs.tgz, so that two scripts in one device call keep both); defines `log`, `step` (a
# bounded step whose output goes to $L/STEP.log, with its rc and its gate PASS/FAIL counts
# printed), `numerics` (a list's kernels compiled, then its gate),
# `preload_public` (the public lists' kernels compiled), `public_list` (one public list against
# its vendor), `public_lists` (both, compiled first), `summary` (a bench/variants.sh CSV's
# medians by command, variant and config), `timed` (bench/variants.sh on a jobs file, two
# rounds), `ab` (`timed` on a jobs file named from the caller's prefix J), `few_gate` (the
# few-channel list's gate, direct kernel first), `vendor` (a jobs file's lines with dispatch's
# pick against a vendor), `profile` (one kernel of one command under ncu) and `source_profile`
# (the same under ncu --set full, its SASS source page summed by stall reason);
# and builds boo (incrementally where a build is there). The kernels of earlier calls are
# unpacked first where .deps/device-kcache is carried, and the cache is packed into
# $OUT/kcache.tar.xz on exit (scripts/device-kcache.sh).
source scripts/device-env.sh
export BOO_CACHE_DIR="$PWD/.deps/device-cache"
source scripts/device-kcache.sh
kcache_unpack  # the kernels of earlier calls, where .deps/device-kcache is carried
boo=build/device/tools/boo/boo
R="${OUT:-/tmp/$1}"
L="/tmp/$1-logs"
LOGS_TGZ="${2:-$1-logs.tgz}"
mkdir -p "$R" "$L"
# On exit: the logs, and the kernel cache for the next call (scripts/device-kcache-keep.sh).
on_exit() {
  tar czf "$R/$LOGS_TGZ" -C "$L" . 2>/dev/null
  [ -n "${OUT:-}" ] && kcache_pack "$R"
}
trap on_exit EXIT
log() { echo "== $(date +%H:%M:%S) $*"; }
step() {  # step NAME SECONDS COMMAND...: a bounded step, its output in $L/NAME.log
  local name=$1 limit=$2
  shift 2
  log "$name"
  timeout "$limit" "$@" >"$L/$name.log" 2>&1
  echo "   rc=$? $(grep -c 'verify boo: PASS' "$L/$name.log") PASS $(grep -c 'verify boo: FAIL' "$L/$name.log") FAIL $(grep -c 'error:' "$L/$name.log") errors"
}
numerics() {  # numerics NAME FILE [--misalign]: the list's kernels, then its gate (boo, and the
  # vendors in $NUMERICS_VENDORS, e.g. ",cudnn"), failures and errors printed
  step "$1-preload" 240 "$boo" preload -j 16 ${3:-} --commands-file "$2"
  step "$1" 200 "$boo" driver --backend "boo${NUMERICS_VENDORS:-}" -t 0 -V 1 --explain ${3:-} \
    --csv "$R/numerics-$1.csv" --commands-file "$2"
  grep -B3 "verify boo: FAIL\|error" "$L/$1.log" | head -40
}
preload_public() {  # preload_public conv|gemm|both [JOBS]: compiles the public lists' kernels
  if [ "$1" != gemm ]; then
    step preload-conv 300 "$boo" preload -j "${2:-16}" --commands-file bench/workloads/conv_public.txt &
  fi
  if [ "$1" != conv ]; then
    step preload-gemm 300 "$boo" preload -j "${2:-16}" --commands-file bench/workloads/gemm_public.log &
  fi
  wait
}
public_list() {  # public_list conv|gemm [CSV] [LIMIT]: one public list against its vendor, -V 1
  local list=bench/workloads/conv_public.txt vendor=cudnn
  if [ "$1" = gemm ]; then list=bench/workloads/gemm_public.log vendor=cublaslt; fi
  step "$1" "${3:-240}" "$boo" driver --backend "boo,$vendor" -t 1 --iter 100 -V 1 --explain \
    --csv "$R/${2:-$1-public.csv}" --commands-file "$list"
  grep -E '^>>> speedup|ceilings' "$L/$1.log" | cut -c1-120
}
public_lists() {  # public_lists [LIMIT]: both public lists compiled, then against the vendors, -V 1,
  # CSVs in $R
  preload_public both
  public_list conv conv-public.csv "${1:-240}"
  public_list gemm gemm-public.csv "${1:-240}"
}
summary() {  # summary CSV [COMMAND_CHARS CONFIG_CHARS]: medians by command, variant and config,
  # the rounds joined by /
  python3 - "$1" "${2:-90}" "${3:-60}" <<'PY'
import collections, csv, sys
width, cfg_width = int(sys.argv[2]), int(sys.argv[3])
d = collections.OrderedDict()
for r in csv.DictReader(open(sys.argv[1])):
    k = (r["variant"], r["config"].split(" ")[-1][-cfg_width:])
    d.setdefault(r["command"][:width], collections.OrderedDict()).setdefault(k, []).append(
        float(r["median_us"]))
for c, v in d.items():
    print(c)
    for (var, cfg), xs in v.items():
        print(f"    {var:24s} {cfg:{cfg_width}s} {'/'.join(f'{x:.1f}' for x in xs)}")
PY
}
few_gate() {  # few_gate: tests/gpu/conv_few_channels.txt with conv.padded_channels' direct
  # kernel first (BOO_CONV_FEW_CHANNELS=first), boo and cuDNN; then boo with --misalign
  export BOO_CONV_FEW_CHANNELS=first
  NUMERICS_VENDORS=,cudnn numerics few tests/gpu/conv_few_channels.txt
  numerics few-misaligned tests/gpu/conv_few_channels.txt --misalign
  unset BOO_CONV_FEW_CHANNELS
}
timed() {  # timed NAME JOBS VARIANTS [BACKENDS] [LIMIT]: bench/variants.sh on JOBS with
  # VARIANTS (backends: boo; LIMIT 300 s), two rounds, the CSV in $R/NAME.csv, its PASS/FAIL
  # counts and medians printed
  OUT="$R" JOBS=$2 REPS="1 2" BACKENDS=${4:-boo} CSV=$1.csv VARIANTS="$3" \
    timeout "${5:-300}" bash bench/variants.sh >"$L/$1.log" 2>&1
  echo "$1: $(grep -c 'verify boo: PASS' "$L/$1.log") PASS, $(grep -c 'verify boo: FAIL' "$L/$1.log") FAIL"
  summary "$R/$1.csv" 70 40
}
ab() {  # ab NAME VARIANTS [BACKENDS]: timed on $J-NAME-jobs.txt (J: the caller's prefix), at
  # most 400 s, then the log's failures, errors and progress lines
  timed "$1" "$J-$1-jobs.txt" "$2" "${3:-boo}" 400
  grep -E "verify boo: FAIL|error|==" "$L/$1.log" | cut -c1-150
}
profile() {  # profile NAME KERNEL_REGEX COMMAND: COMMAND's kernels compiled, then one launch of
  # the kernel matching KERNEL_REGEX under ncu (speed of light, warp states, memory workload,
  # occupancy, launch), the report in $R/NAME-ncu.txt and its summary lines printed. CUTLASS's
  # kernels are all named device_kernel (their template arguments are not matched).
  step "$1-preload" 120 "$boo" preload -j 4 "$3"
  timeout 150 ncu --clock-control none -k "regex:$2" --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats \
    "$boo" driver --backend boo -t 0 "$3" >"$R/$1-ncu.txt" 2>&1
  grep -E "Duration|Throughput|Stall|Issued|Occupancy|Registers" "$R/$1-ncu.txt" | head -40
}
source_profile() {  # source_profile NAME KERNEL_REGEX COMMAND: COMMAND's kernels compiled, then
  # one launch of the matching kernel under ncu --set full: the details in $R/prof-NAME-details.txt,
  # the SASS source page ($L/NAME-src.csv, in the logs) summed by stall reason in
  # $R/prof-NAME-src.txt (bench/ncu_source_summary.py); summary lines of both printed
  step "$1-preload" 120 "$boo" preload -j 4 "$3"
  step "$1-ncu" 150 ncu --clock-control none --set full -k "regex:$2" -c 1 -o "$L/$1" \
    "$boo" driver --backend boo -t 0 "$3"
  ncu --import "$L/$1.ncu-rep" --page details >"$R/prof-$1-details.txt" 2>&1
  grep -E "Duration|DRAM Throughput|Compute \(SM\) Th|Registers Per|Achieved Occ|Issued Warp|Warp Cycles Per Issued|Dynamic Shared" \
    "$R/prof-$1-details.txt" | head -10
  ncu --import "$L/$1.ncu-rep" --page source --print-source sass --csv >"$L/$1-src.csv" 2>&1
  python3 bench/ncu_source_summary.py "$L/$1-src.csv" >"$R/prof-$1-src.txt" 2>&1
  head -45 "$R/prof-$1-src.txt" | cut -c1-160
}
vendor() {  # vendor NAME JOBS VENDOR DRIVER_FLAGS...: the jobs file's lines (its second column)
  # with dispatch's pick against VENDOR (cublaslt or cudnn), the CSV in $R/NAME.csv; the picks
  # compiled first (16 at a time), then at most $VENDOR_LIMIT s (default 120) of timing
  local name=$1 jobs=$2 v=$3
  shift 3
  cut -f2 "$jobs" | awk '!seen[$0]++' >"/tmp/$name-lines.txt"  # each line once
  step "$name-preload" 300 "$boo" preload -j 16 --commands-file "/tmp/$name-lines.txt"
  step "$name" "${VENDOR_LIMIT:-120}" "$boo" driver --backend "boo,$v" -t 1 --iter 100 "$@" \
    --csv "$R/$name.csv" --commands-file "/tmp/$name-lines.txt"
  grep -E "^>>> (boo: min|$v: min|speedup)|heuristic: predicted" "$L/$name.log" | cut -c1-140
}
# Always (incremental: seconds on a machine that built before): a warm machine keeps the last
# call's build, and its boo embeds the kernel sources of that call's tree, not this one's.
step build 300 scripts/device-run.sh build
[ -x "$boo" ] || { tail -30 "$L/build.log"; exit 1; }
