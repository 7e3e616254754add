#!/usr/bin/env bash
# Device script of bench/results/2026-11-28-gemv-h200.md (repository root, .deps/device carried):
#   bash bench/results/2026-11-28-gemv-run.sh PHASE...
#   gate:   tests/gpu/conv_persistent.txt's gate (persistent kernels first), and its two SD-UNet
#           c320 lines with dispatch's pick (128x160 cooperative tiles on one N = 160 MMA);
#   waves:  the read ceiling at the single-column decode sizes, then single-column GEMMs of about
#           117 MB whose row tiles fill 1, 2, 3 or 4 waves of the streaming loop's blocks exactly,
#           beside 14336 x 1 x 4096 (3.4 waves), against cuBLASLt, two rounds;
#   stream: gemm.skinny's streaming loop on single-column lines, boo only, two rounds: L2
#           prefetches of the next 1 or 2 steps (SKINNY_STREAM_AHEAD), 256-byte L2 fills
#           (SKINNY_STREAM_L2=256), two accumulator chains (SKINNY_STREAM_CHAINS=2), and 4 or 2
#           warps a row tile (forced _stream4, _stream2 configs);
#   bulk:   tests/gpu/gemm_skinny.txt's gate with the bulk-copy loop, then the loop against the
#           streaming loop (SKINNY_BULK=0) on single-column lines, boo only, two rounds, then
#           those lines with dispatch's pick against cuBLASLt, then the public GEMM list (its
#           kernels compiled in the background from the start);
#   early:  the bulk-copy loop's first copies issued before S is in shared memory against after
#           (SKINNY_BULK_EARLY=0) and the streaming loop (SKINNY_BULK=0), boo only, two rounds
#           (the public conv list's kernels compiled in the background), then those lines with
#           dispatch's pick against cuBLASLt, then the public conv list against cuDNN;
#   final:  the final tree: tests/gpu/gemm_skinny.txt's gate, the early-copy lines with dispatch's
#           pick against cuBLASLt, the public GEMM list;
#   conv:   the public conv list against cuDNN;
#   lists:  both public lists against cuDNN and cuBLASLt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh gemv
J=bench/results/2026-11-28-gemv
summary() {  # summary CSV: each command's medians by variant and config, rounds joined by /
  python3 - "$1" <<'PY'
import collections, csv, sys
d = collections.OrderedDict()
for r in csv.DictReader(open(sys.argv[1])):
    k = (r["variant"], r["config"].split(" ")[-1][-40:])
    d.setdefault(r["command"][:60], collections.OrderedDict()).setdefault(k, []).append(
        float(r["median_us"]))
for c, v in d.items():
    print(c)
    for (var, cfg), xs in v.items():
        print(f"    {var:24s} {cfg:40s} {'/'.join(f'{x:.1f}' for x in xs)}")
PY
}
for phase in "$@"; do
  case "$phase" in
  gate)
    numerics persistent tests/gpu/conv_persistent.txt
    tail -2 tests/gpu/conv_persistent.txt >/tmp/c320.txt
    step c320 120 "$boo" driver --backend boo -t 0 -V 1 --explain --csv "$R/numerics-c320.csv" \
      --commands-file /tmp/c320.txt
    grep -E "verify|config|algorithm" "$L/c320.log" | cut -c1-150 | head -12
    ;;
  waves)
    step preload-waves 200 "$boo" preload -j 8 --commands-file $J-waves-lines.log
    step ceilings 120 "$boo" ceilings --read-mb 33.6 116.8 117.5 1051
    cat "$L/ceilings.log"
    for rep in 1 2; do
      step waves$rep 120 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 \
        --csv "$R/waves$rep.csv" --commands-file $J-waves-lines.log
      grep -E "^>>> (boo: min|cublaslt: min|speedup)|FAIL" "$L/waves$rep.log" | cut -c1-120
    done
    ;;
  stream)
    OUT="$R" JOBS=$J-stream-jobs.txt REPS="1 2" BACKENDS=boo CSV=stream.csv \
      VARIANTS="base SKINNY_STREAM_AHEAD=1 SKINNY_STREAM_AHEAD=2 SKINNY_STREAM_L2=256 SKINNY_STREAM_CHAINS=2" \
      timeout 400 bash bench/variants.sh >"$L/stream.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/stream.log" | cut -c1-150
    summary "$R/stream.csv"
    ;;
  bulk)
    step preload-gemm 300 "$boo" preload -j 4 --commands-file bench/workloads/gemm_public.log &
    pre=$!
    numerics skinny tests/gpu/gemm_skinny.txt
    OUT="$R" JOBS=$J-bulk-jobs.txt REPS="1 2" BACKENDS=boo CSV=bulk.csv \
      VARIANTS="base SKINNY_BULK=0" timeout 240 bash bench/variants.sh >"$L/bulk.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/bulk.log" | cut -c1-150
    summary "$R/bulk.csv"
    cut -f2 $J-bulk-jobs.txt >/tmp/bulk-lines.txt
    step bulk-vendor 90 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 --explain \
      --csv "$R/bulk-vendor.csv" --commands-file /tmp/bulk-lines.txt
    grep -E "^>>> (boo: min|cublaslt: min|speedup)|heuristic: predicted" "$L/bulk-vendor.log" | cut -c1-140
    wait "$pre"
    step gemm 200 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 --explain \
      --csv "$R/gemm-public.csv" --commands-file bench/workloads/gemm_public.log
    grep -E '^>>> speedup|ceilings' "$L/gemm.log" | cut -c1-120
    ;;
  early)
    step preload-conv 300 "$boo" preload -j 12 --commands-file bench/workloads/conv_public.txt &
    pre=$!
    OUT="$R" JOBS=$J-early-jobs.txt REPS="1 2" BACKENDS=boo CSV=early.csv \
      VARIANTS="base SKINNY_BULK_EARLY=0 SKINNY_BULK=0" timeout 200 bash bench/variants.sh \
      >"$L/early.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/early.log" | cut -c1-150
    grep -c "verify boo: PASS" "$L/early.log"
    summary "$R/early.csv"
    cut -f2 $J-early-jobs.txt >/tmp/early-lines.txt
    step early-vendor 90 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 \
      --csv "$R/early-vendor.csv" --commands-file /tmp/early-lines.txt
    grep -E "^>>> (boo: min|cublaslt: min|speedup)" "$L/early-vendor.log" | cut -c1-140
    wait "$pre"
    step conv 240 "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 --explain \
      --csv "$R/conv-public.csv" --commands-file bench/workloads/conv_public.txt
    grep -E '^>>> speedup|ceilings' "$L/conv.log" | cut -c1-120
    ;;
  final)
    step preload-gemm 300 "$boo" preload -j 4 --commands-file bench/workloads/gemm_public.log &
    pre=$!
    numerics final-skinny tests/gpu/gemm_skinny.txt
    cut -f2 $J-early-jobs.txt >/tmp/early-lines.txt
    step final-vendor 90 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 \
      --csv "$R/final-vendor.csv" --commands-file /tmp/early-lines.txt
    grep -E "^>>> (boo: min|cublaslt: min|speedup)" "$L/final-vendor.log" | cut -c1-140
    wait "$pre"
    step gemm 200 "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 --explain \
      --csv "$R/final-gemm-public.csv" --commands-file bench/workloads/gemm_public.log
    grep -E '^>>> speedup|ceilings' "$L/gemm.log" | cut -c1-120
    ;;
  conv)
    step preload-conv 300 "$boo" preload -j 16 --commands-file bench/workloads/conv_public.txt
    step conv 240 "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 --explain \
      --csv "$R/conv-public.csv" --commands-file bench/workloads/conv_public.txt
    grep -E '^>>> speedup|ceilings' "$L/conv.log" | cut -c1-120
    ;;
  lists)
    step preload-conv 300 "$boo" preload -j 16 --commands-file bench/workloads/conv_public.txt &
    step preload-gemm 300 "$boo" preload -j 16 --commands-file bench/workloads/gemm_public.log &
    wait
    public_lists 200
    ;;
  esac
done
log done
