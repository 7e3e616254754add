#!/usr/bin/env bash
# Device script of bench/results/2026-11-29-pointwise-lean-h200.md (repository root; .deps/device
# and .deps/old-kernels carried: `mkdir -p .deps/old-kernels && git show
# 132d43a:kernels/conv_pointwise.cuh >.deps/old-kernels/conv_pointwise.cuh`):
#   bash bench/results/2026-11-29-pointwise-lean-run.sh PHASE...
#   gates:  tests/gpu/conv_pointwise.txt against the reference (boo and cuDNN, -V 1);
#   ab:     (call 1: its second variant did not run) the jobs' lines on conv.pointwise, forced;
#   ncu:    the public C = 35 line (the first job) under Nsight Compute;
#   old:    boo built a second time with the kernel before (132d43a; kernel sources are
#           embedded in the binary), in /tmp/old;
#   abold:  the jobs' lines, forced, on both binaries (interleaved, two rounds; cuDNN in the
#           first), -V 1 each first;
#   skinny: the public 4096 x 16 x 4096 line on dispatch's pick and the streaming loop forced
#           (auto, 4 and 8 warps a tile), and 14336 x 1 x 4096, against cuBLASLt;
#   warp:   (call 3, when BOO_POINTWISE_WARP defaulted to 0 and took every line) the jobs' lines
#           (the ab jobs), forced: the block kernel (base) against every warp its own pipeline
#           (POINTWISE_WARP=1; 3 or 4 blocks an SM), boo only, two rounds, -V 1 first;
#   ahead:  (call 4, on the tree of then: `git apply` -experiments.diff, and its base was
#           POINTWISE_WARP_AHEAD=2) the warp kernel with two units before the set-up against one
#           (POINTWISE_WARP_AHEAD=1, call 3's POINTWISE_WARP=1, landed) on five in-place lines,
#           and the C = 3, K = 16 line (not in place: the block kernel either way);
#   bulk:   (call 6) the warp kernel's outputs by one bulk copy a unit (POINTWISE_BULK_STORE=1)
#           against lanes' 16-byte stores, on the ahead jobs' lines (-bulk-jobs.txt), two rounds;
#   last:   (not run: the session's device time was spent; for the next session) the bulk
#           jobs on the lanes' stores (base), bulk stores waited for in full (1, call 6's) and for
#           their shared-memory reads only (2), bulk loads (BULK_LOAD=1) alone and with BULK_STORE=2,
#           with cuDNN, two rounds;
#   lastgates: the whole tests/gpu/conv_pointwise.txt gate (-V 1) on each bulk form, its kernels
#           compiled first;
#   public: both public lists against their vendors (-V 1), compiled first;
#   final:  (call 5, the landed tree: warp kernel with one unit before the set-up) the public
#           C = 35 line three times against cuDNN, after `gates`.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh pointwise-lean
J=bench/results/2026-11-29-pointwise-lean
old=/tmp/old/build/device/tools/boo/boo
# One timed run of binary $1 (label $2) on config $3 and command $4, backends $5: its CSV rows
# under `variant` in $R/$6.
one() {
  local cfg=()
  [ "$3" = - ] || cfg=(--config "$3")
  "$1" driver --backend "$5" -t 1 --iter 100 "${cfg[@]}" --csv /tmp/one.csv "$4" </dev/null \
    >/tmp/one.log 2>&1
  [ -s "$R/$6" ] || head -1 /tmp/one.csv | sed 's/^/variant,/' >"$R/$6"
  tail -n +2 /tmp/one.csv | sed "s/^/$2,/" >>"$R/$6"
  grep -E "^>>> ([a-z]+: )?min" /tmp/one.log | sed "s/^/$2 /" | cut -c1-100
}
for phase in "$@"; do
  case "$phase" in
  gates)
    step preload 200 "$boo" preload -j 16 --commands-file tests/gpu/conv_pointwise.txt
    step pointwise-gate 200 "$boo" driver --backend boo,cudnn -t 0 -V 1 --explain \
      --csv "$R/numerics.csv" --commands-file tests/gpu/conv_pointwise.txt
    ;;
  ab) ab ab "base" boo,cudnn ;;
  ncu)
    cmd=$(cut -f2 $J-ab-jobs.txt | head -1)
    step ncu 120 ncu --set full -k regex:'conv_pointwise' -c 1 -o "$L/ncu" \
      "$boo" driver --backend boo -t 0 "$cmd"
    ncu --import "$L/ncu.ncu-rep" --page details 2>/dev/null |
      grep -E 'Duration|DRAM Throughput|Registers|Issued Warp|Executed Ipc A|Achieved Occupancy|Executed Instructions  ' |
      head -10
    ;;
  old)
    rm -rf /tmp/old && mkdir -p /tmp/old &&
      tar --exclude=./build --exclude=./.deps/device-cache -cf - . | tar -xf - -C /tmp/old &&
      cp .deps/old-kernels/conv_pointwise.cuh /tmp/old/kernels/ &&
      mkdir -p /tmp/old-out &&
      (cd /tmp/old && OUT=/tmp/old-out step old-build 300 scripts/device-run.sh build)
    [ -x "$old" ] || tail -20 /tmp/old-out/build.log
    ;;
  abold)
    cut -f2 $J-ab-jobs.txt >/tmp/abold-lines.txt
    step abold-preload-lean 200 "$boo" preload -j 16 --commands-file /tmp/abold-lines.txt
    step abold-preload-before 200 "$old" preload -j 16 --commands-file /tmp/abold-lines.txt
    while IFS=$'\t' read -r c cmd; do
      for b in "$boo" "$old"; do
        "$b" driver --backend boo -t 1 --iter 5 -V 1 --config "$c" "$cmd" </dev/null 2>&1 |
          grep -E "verify boo|error" | cut -c1-100
      done
    done <$J-ab-jobs.txt
    for rep in 1 2; do
      while IFS=$'\t' read -r c cmd; do
        echo "# ${cmd:0:70}"
        backends=boo
        [ $rep = 1 ] && backends=boo,cudnn
        one "$boo" lean "$c" "$cmd" "$backends" abold.csv
        one "$old" before "$c" "$cmd" boo abold.csv
      done <$J-ab-jobs.txt
    done
    ;;
  skinny)
    while IFS=$'\t' read -r c cmd; do
      "$boo" preload --config "$c" "$cmd" >/dev/null 2>&1 || [ "$c" = - ] || "$boo" preload "$cmd"
    done <$J-skinny-jobs.txt
    for rep in 1 2; do
      while IFS=$'\t' read -r c cmd; do
        echo "# $c"
        one "$boo" "rep$rep" "$c" "$cmd" boo,cublaslt skinny.csv
      done <$J-skinny-jobs.txt
    done
    ;;
  warp) ab warp "base POINTWISE_WARP=1 POINTWISE_WARP=1+POINTWISE_WARP_BLOCKS=4" ;;
  ahead) ab ahead "base POINTWISE_WARP_AHEAD=1" ;;
  bulk) ab bulk "base POINTWISE_BULK_STORE=1" ;;
  last)
    step preload-last 60 "$boo" preload -j 16 --commands-file tests/gpu/conv_pointwise.txt
    ab bulk "base POINTWISE_BULK_STORE=1 POINTWISE_BULK_STORE=2 POINTWISE_BULK_LOAD=1 POINTWISE_BULK_LOAD=1+POINTWISE_BULK_STORE=2" boo,cudnn
    ;;
  lastgates)
    # Every bulk form's kernels for the whole list compiled first (in parallel), then its gate.
    forms="POINTWISE_BULK_STORE=1 POINTWISE_BULK_STORE=2 POINTWISE_BULK_LOAD=1 POINTWISE_BULK_LOAD=1+POINTWISE_BULK_STORE=2"
    for v in $forms; do
      step "preload-${v//[=+]/_}" 300 env BOO_NVCC_FLAGS="-DBOO_${v//+/ -DBOO_}" "$boo" preload \
        -j 4 --commands-file tests/gpu/conv_pointwise.txt &
    done
    wait
    for v in $forms; do
      name=${v//[=+]/_}
      step "gate-$name" 120 env BOO_NVCC_FLAGS="-DBOO_${v//+/ -DBOO_}" "$boo" driver \
        --backend boo -t 0 -V 1 --csv "$R/numerics-$name.csv" \
        --commands-file tests/gpu/conv_pointwise.txt
    done
    ;;
  public) public_lists 300 ;;
  final)
    cmd=$(cut -f2 $J-ab-jobs.txt | head -1)
    for rep in 1 2 3; do one "$boo" "rep$rep" - "$cmd" boo,cudnn final.csv; done
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
