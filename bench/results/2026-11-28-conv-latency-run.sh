#!/usr/bin/env bash
# Device script of bench/results/2026-11-28-conv-latency-h200.md (repository root, .deps/device
# carried; .deps/ncu carried for `src`): bash bench/results/2026-11-28-conv-latency-run.sh PHASE...
#   src:    the SASS source pages (per-instruction warp-stall samples) of last call's ncu reports
#           of conv.pointwise (C = 35) and conv.grouped (G = 32), .deps/ncu/ncu-line{3,11}.ncu-rep;
#   ab1:    conv.grouped's pipelined step loop and conv.pointwise's in-place outputs against the
#           landed kernels (bench/variants.sh, boo only, two rounds);
#   ncupipe: ncu of the G = 32 line with the pipelined loop (details and source page);
#   old:    (background) a second boo, /tmp/oldtree, with the kernels of 8018e13 (.deps/old
#           carried: kernels/conv_pointwise.cuh and conv_grouped_tma.cuh as they were);
#   conv:   numerics of tests/gpu/conv_pointwise.txt and conv_grouped_direct.txt on this tree
#           (cgrouped: the second only);
#   abconv: the old kernels against this tree's, and this tree's with a macro, interleaved (boo
#           only, three rounds; the first round of every variant but `old` with -V 1);
#   abgrouped, ab3: call 3's A/Bs (the landed conv.grouped against 8018e13's; the streaming
#           loop's 8 chunks a step against 4);
#   final:  the landed tree: tests/gpu/gemm_skinny.txt's gate, the streaming loop's deep steps
#           against none (SKINNY_STREAM_DEEP=0), and the public conv and GEMM lists with cuDNN
#           and cuBLASLt;
#   last:   call 5: the gate and the A/B again after the deep steps were limited to one or two
#           columns; ncu (details, source pages) of the landed conv.grouped (G = 32) and the
#           streaming loop (14336 x 1 x 4096);
#   gate:   call 6: tests/gpu/gemm_skinny.txt's gate on the final tree;
#   ab2:    gemm.skinny's streaming loop with the next step's loads in flight, 8 chunks a step, or
#           three blocks an SM, against the landed loop on decode lines (boo only, two rounds).
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device_steps.sh conv-latency
J=bench/results/2026-11-28-conv-latency
src_page() {  # src_page REPORT OUT: the SASS lines with their samples, as CSV
  ncu --import "$1" --page source --print-source sass --csv >"$2" 2>"$2.err" || head -5 "$2.err"
  wc -l "$2"
}
# abrun CSV JOBS VARIANT...: VARIANT is old, new or new+MACRO=V+... (-DBOO_ macros on this tree).
abrun() {
  local csv="$R/$1" jobs=$2 v bin flags c cmd rep
  shift 2
  : >"$csv"
  wait_old
  cut -f2 "$jobs" >/tmp/abrun-commands.txt
  for v in "$@"; do  # one preload a variant (several on one kernel raced in call 2)
    bin=$boo; [ "$v" = old ] && bin=/tmp/oldtree/build/tools/boo/boo
    flags=$(echo "${v#new}" | sed 's/^+/-DBOO_/;s/+/ -DBOO_/g')
    BOO_NVCC_FLAGS="$flags" "$bin" preload -j 8 --commands-file /tmp/abrun-commands.txt \
      >"$L/abrun-preload-$v.log" 2>&1 &
  done
  wait
  for v in "$@"; do
    tail -1 "$L/abrun-preload-$v.log"
    grep -o "log: [^)]*" "$L/abrun-preload-$v.log" | head -1 | cut -c6- | xargs -r tail -20
  done
  for rep in 1 2 3; do
    for v in "$@"; do
      bin=$boo; [ "$v" = old ] && bin=/tmp/oldtree/build/tools/boo/boo
      flags=$(echo "${v#new}" | sed 's/^+/-DBOO_/;s/+/ -DBOO_/g')
      local check=""; [ "$rep" = 1 ] && [ "$v" != old ] && check="-V 1"
      while IFS=$'\t' read -r c cmd; do
        BOO_NVCC_FLAGS="$flags" timeout 60 "$bin" driver --backend boo -t 1 --iter 100 $check \
          --csv /tmp/abrun-one.csv "$cmd" </dev/null >/tmp/abrun-one.log 2>&1
        grep -E "verify boo: FAIL|error" /tmp/abrun-one.log | head -2
        [ -s "$csv" ] || head -1 /tmp/abrun-one.csv | sed 's/^/variant,/' >"$csv"
        tail -n +2 /tmp/abrun-one.csv | sed "s/^/$v,/" >>"$csv"
      done <"$jobs"
    done
  done
  python3 - "$csv" <<'PY'
import csv, sys, collections
d = collections.OrderedDict()
for r in csv.DictReader(open(sys.argv[1])):
    d.setdefault(r["command"][:70], collections.OrderedDict()).setdefault(r["variant"], []).append(
        float(r["median_us"]))
for k, v in d.items():
    print(k)
    print("    " + "  ".join(f"{n}: {'/'.join(f'{x:.1f}' for x in xs)}" for n, xs in v.items()))
PY
}
wait_old() { [ -n "${old_pid:-}" ] && wait "$old_pid"; old_pid=; }
for phase in "$@"; do
  case "$phase" in
  src)
    ncu --version | tail -1
    for n in 3 11; do src_page .deps/ncu/ncu-line$n.ncu-rep "$R/src-line$n.csv"; done
    ;;
  ab1)
    OUT="$R" JOBS=$J-grouped-jobs.txt VARIANTS="base GROUPED_TMA_PIPE=1" REPS="1 2" \
      BACKENDS=boo CSV=grouped-ab.csv timeout 280 bash bench/variants.sh >"$L/ab-grouped.log" 2>&1
    grep -E "verify|error|^(base|GROUPED)|==" "$L/ab-grouped.log" | cut -c1-150
    OUT="$R" JOBS=$J-pointwise-jobs.txt \
      VARIANTS="base POINTWISE_INPLACE=1+POINTWISE_STAGES=3 POINTWISE_INPLACE=1" REPS="1 2" \
      BACKENDS=boo CSV=pointwise-ab.csv timeout 240 bash bench/variants.sh >"$L/ab-pointwise.log" 2>&1
    grep -E "verify|error|^(base|POINT)|==" "$L/ab-pointwise.log" | cut -c1-150
    ;;
  old)
    (rm -rf /tmp/oldtree && mkdir -p /tmp/oldtree &&
      tar cf - --exclude=./build --exclude=./.deps . | tar xf - -C /tmp/oldtree &&
      cp .deps/old/kernels/*.cuh /tmp/oldtree/kernels/ &&
      cmake -S /tmp/oldtree -B /tmp/oldtree/build -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DBOO_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$PWD/.deps/device/root/usr" \
        -DBOO_CUTLASS_DIR="$BOO_CUTLASS_DIR" && cmake --build /tmp/oldtree/build -j 8) \
      >"$L/old-build.log" 2>&1 &
    old_pid=$!
    ;;
  conv)
    numerics pointwise tests/gpu/conv_pointwise.txt
    numerics grouped tests/gpu/conv_grouped_direct.txt
    ;;
  cgrouped)
    numerics grouped tests/gpu/conv_grouped_direct.txt
    ;;
  abconv)  # call 2 (with the experiments diff applied)
    abrun grouped-ab2.csv $J-grouped-jobs.txt old new new+GROUPED_TMA_PIPE=1
    abrun pointwise-ab2.csv $J-pointwise-jobs.txt old new new+POINTWISE_PIPELINES=1
    ;;
  abgrouped)  # call 3: the landed conv.grouped against 8018e13's
    abrun grouped-ab3.csv $J-grouped-jobs.txt old new
    ;;
  ab3)  # call 3: 8 chunks a step against 4, three rounds
    OUT="$R" JOBS=$J-stream-jobs.txt VARIANTS="base SKINNY_STREAM_UNROLL=8" REPS="1 2 3" \
      BACKENDS=boo CSV=stream-ab3.csv timeout 240 bash bench/variants.sh >"$L/ab3-stream.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/ab3-stream.log" | cut -c1-150
    ;;
  final)  # call 4, the landed tree: the skinny gate, the public lists, the deep steps' A/B
    step preload-conv 300 "$boo" preload -j 16 --commands-file bench/workloads/conv_public.txt &
    step preload-gemm 300 "$boo" preload -j 16 --commands-file bench/workloads/gemm_public.log &
    wait
    numerics skinny tests/gpu/gemm_skinny.txt
    public_lists 200
    OUT="$R" JOBS=$J-stream-jobs.txt VARIANTS="base SKINNY_STREAM_DEEP=0" REPS="1 2" \
      BACKENDS=boo CSV=stream-ab4.csv timeout 150 bash bench/variants.sh >"$L/ab4-stream.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/ab4-stream.log" | cut -c1-150
    ;;
  last)  # call 5: the deep steps for one or two columns only: gate, A/B; ncu source pages
    numerics skinny5 tests/gpu/gemm_skinny.txt
    OUT="$R" JOBS=$J-stream-jobs.txt VARIANTS="base SKINNY_STREAM_DEEP=0" REPS="1 2" \
      BACKENDS=boo CSV=stream-ab5.csv timeout 150 bash bench/variants.sh >"$L/ab5-stream.log" 2>&1
    grep -E "verify boo: FAIL|error|==" "$L/ab5-stream.log" | cut -c1-150
    cmd=$(grep -v '^#' bench/workloads/conv_public.txt | sed -n 11p)
    step ncu-grouped 120 ncu --set full -k regex:'conv_' -c 1 -o "$R/ncu-grouped" \
      "$boo" driver --backend boo -t 0 "$cmd"
    cmd=$(grep -v '^#' bench/workloads/gemm_public.log | grep 'N: 1,' | head -1)
    step ncu-stream 120 ncu --set full -k regex:'skinny' -c 1 -o "$R/ncu-stream" \
      "$boo" driver --backend boo -t 0 "$cmd"
    for n in grouped stream; do
      ncu --import "$R/ncu-$n.ncu-rep" --page details 2>/dev/null |
        grep -E 'Duration|DRAM Throughput|Registers|Issued Warp|Achieved Occupancy' | head -8
      src_page "$R/ncu-$n.ncu-rep" "$R/src-$n.csv"
    done
    ;;
  gate)  # call 6: the final tree (deep steps for one column only): tests/gpu/gemm_skinny.txt
    numerics skinny6 tests/gpu/gemm_skinny.txt
    ;;
  ab2)
    OUT="$R" JOBS=bench/results/2026-11-28-h200-lists-gemv-jobs.txt \
      VARIANTS="base SKINNY_STREAM_PREFETCH=1 SKINNY_STREAM_UNROLL=8 SKINNY_STREAM_BLOCKS_PER_SM=3" \
      REPS="1 2" BACKENDS=boo CSV=stream-ab.csv timeout 300 bash bench/variants.sh \
      >"$L/ab-stream.log" 2>&1
    grep -E "verify|error|^(base|SKINNY)|==" "$L/ab-stream.log" | cut -c1-150
    ;;
  ncupipe)
    cmd=$(grep -v '^#' bench/workloads/conv_public.txt | sed -n 11p)
    BOO_NVCC_FLAGS=-DBOO_GROUPED_TMA_PIPE=1 step ncu-pipe 150 ncu --set full -k regex:'conv_' -c 1 \
      -o "$R/ncu-pipe" "$boo" driver --backend boo -t 0 "$cmd"
    ncu --import "$R/ncu-pipe.ncu-rep" --page details 2>/dev/null |
      grep -E 'Duration|Throughput|Registers|Issued|Warp Cycles|Achieved Occupancy' | head -20
    src_page "$R/ncu-pipe.ncu-rep" "$R/src-pipe.csv"
    ;;
  esac
done
log done
