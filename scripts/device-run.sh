#!/usr/bin/env bash
# Runs on the GPU machine (no network) over a copy of the working tree, with .deps/device
# carried (scripts/device-deps.sh makes it; .deps/device-cache, when carried, holds kernels
# compiled ahead). Builds boo from a clean tree, compiles the kernels the tests need, runs the
# GPU tests and the benchmarks, and leaves logs and CSVs under $OUT.
#
# Usage: scripts/device-run.sh [build|preload|tests|bench|spacecheck|sweep|ordersweep|skinnysweep|
#                               skinnyforced|
#                               profile|convpreload|convtests|convbench|conv|convstages|workloads|
#                               lnpreload|lntests|lnbench|lnsweep|lnprofile|ln|forced|
#                               listbench|ceilings|all]...
#   (default: all = build, preload, tests, bench, spacecheck, the conv and layer norm steps;
#   each call of the device tool has 10 minutes: a fresh machine needs build and preload in one
#   call, the rest in others; `conv` = convpreload, convtests, convbench; `ln` = lnpreload,
#   lntests, lnbench)
# Logs and CSVs go to out/; at the end the device tool's $OUT (which brings back at most 8
# files) gets out/logs.tgz, summary.txt, the benchmark CSVs and kcache.tar.xz (the kernel
# cache for the next call: scripts/device-kcache.sh).
# Environment: BOO_SPACE_SAMPLE (configs of `full` to compile in spacecheck, default 24);
# BOO_CONV_LISTS (the conv numerics lists, space-separated); BOO_LISTBENCH (listbench: gemm:FILE
# and conv:FILE lists timed against the vendor); BOO_SKIP_DEPTHWISE_BENCH (convbench
# times the public list only); BOO_STAGES_FILE, BOO_STAGES (convstages: the commands, default the
# public conv list, and the stage counts, default "3 4").
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS="${OUT:-}"
OUT="$PWD/out"
rm -rf "$OUT"
mkdir -p "$OUT"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(all)
source scripts/device-env.sh
export BOO_CACHE_DIR="${BOO_CACHE_DIR:-$PWD/.deps/device-cache}"
# The kernels of earlier calls (.deps/device-kcache, carried); packed again at the end by the
# script that unpacked them (this one, unless a caller did).
source scripts/device-kcache.sh
# On any exit, a cut call's included: what it compiled is what the next call needs.
if [ -z "${BOO_KCACHE_UNPACKED:-}" ] && [ -n "$RESULTS" ] && [ "$RESULTS" != "$OUT" ]; then
  trap 'kcache_pack "$RESULTS"' EXIT
fi
kcache_unpack
boo=build/device/tools/boo/boo
jobs=$(nproc)
status=0
want() {
  for s in "${steps[@]}"; do
    [ "$s" = "$1" ] || [ "$s" = all ] && return 0
    [ "$s" = conv ] && [[ "$1" == conv* ]] && return 0
    [ "$s" = ln ] && [[ "$1" == ln* ]] && [ "$1" != lnsweep ] && return 0
  done
  return 1
}
log() { echo "== $(date +%H:%M:%S) $*"; }
# A list's name for logs and CSVs: its file name without the extension.
list_name() { basename "$1" | sed 's/\.[a-z]*$//'; }
# Compiles what dispatch will use for each list: preload_lists [PRELOAD-FLAGS...] -- FILE...
# What a list needs in the environment (an algorithm ranked only when asked, until its list has
# passed on a GPU; none at present).
list_env() {
  case "$1" in
    *conv_gemm_1d.txt) echo BOO_CONV_GEMM_1D=first ;;
    *conv_wgrad_direct.txt | *conv_wgrad_wgmma.txt | *conv_wgrad_tf32.txt | *conv_wgrad_1x1.txt | \
      *conv_wgrad_grouped.txt)
      echo BOO_CONV_WGRAD_DIRECT=first ;;
    *conv_few_channels.txt) echo BOO_CONV_FEW_CHANNELS=first ;;
    *conv_taps.txt) echo BOO_CONV_TAPS=first ;;
    # The padded lists check the CUTLASS configs behind the padding copies (the few-channel
    # kernel would come first on their C < 8 forward lines).
    *conv_padded.txt) echo BOO_CONV_FEW_CHANNELS=0 ;;
    *conv_persistent.txt)
      echo "BOO_CONV_PERSISTENT=${BOO_CONV_PERSISTENT_LIST:-first} BOO_CONV_FEW_CHANNELS=0" ;;
    *) echo BOO_UNUSED=1 ;;
  esac
}

preload_lists() {
  local flags=()
  while [ "$1" != -- ]; do flags+=("$1"); shift; done
  shift
  for f in "$@"; do
    env $(list_env "$f") "$boo" preload "${flags[@]}" -j "$jobs" --commands-file "$f" 2>&1 \
      | tail -n 3 | tee -a "$OUT/preload.log"
  done
}

if want build || [ ! -x "$boo" ]; then
  log "machine"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$OUT/machine.txt"
  nvcc --version | tail -2 | tee -a "$OUT/machine.txt"
  cmake --version | head -1 | tee -a "$OUT/machine.txt"
  log "build (Release, no unit tests: CI runs those)"
  cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DBOO_BUILD_TESTS=OFF \
    -DCMAKE_PREFIX_PATH="$PWD/.deps/device/root/usr" -DBOO_CUTLASS_DIR="$BOO_CUTLASS_DIR" \
    >"$OUT/build.log" 2>&1 && cmake --build build/device -j "$jobs" >>"$OUT/build.log" 2>&1 \
    || { tail -30 "$OUT/build.log"; exit 1; }
fi

gemm_lists=(tests/gpu/gemm_awkward.txt tests/gpu/gemm_skinny.txt tests/gpu/gemm_skinny_fp8.txt
  tests/gpu/gemm_swapped.txt tests/gpu/gemm_unaligned_fp8.txt
  tests/gpu/gemm_split_parallel.txt tests/gpu/gemm_tf32_transposed.txt tests/gpu/gemm_tiles96.txt
  bench/workloads/gemm_public.log)
misaligned_lists=(tests/gpu/gemm_unaligned_fp8.txt tests/gpu/gemm_awkward.txt tests/gpu/gemm_skinny_fp8.txt)
# A shorter run (one device call on a fresh machine): BOO_GEMM_LISTS / BOO_MISALIGNED_LISTS
# replace the lists; BOO_BENCH_LISTS the benchmark's extra lists (unset: the skinny list, the
# public list with a write flush, the unaligned and fp8 list; set and empty: none).
[ -n "${BOO_GEMM_LISTS:-}" ] && read -r -a gemm_lists <<<"$BOO_GEMM_LISTS"
[ -n "${BOO_MISALIGNED_LISTS:-}" ] && read -r -a misaligned_lists <<<"$BOO_MISALIGNED_LISTS"
bench_extra="${BOO_BENCH_LISTS-skinny flushwrite unaligned}"
overhead_problem="- {function: matmul, M: 256, N: 256, K: 256, lda: 256, ldb: 256, ldc: 256, ldd: 256, transA: T, transB: N, a_type: bf16_r, b_type: bf16_r}"
if want preload; then
  log "preload (compile what dispatch will use, $jobs jobs)"
  preload_lists -- "${gemm_lists[@]}"
  preload_lists --misalign -- "${misaligned_lists[@]}"
  # The problem of the dispatch-overhead micro-benchmark (bench/dispatch_overhead.cc).
  "$boo" preload "$overhead_problem" 2>&1 | tail -n 3 | tee -a "$OUT/preload.log"
fi

# The numerics verdicts in a driver log, one summary line: count_verdicts NAME LOG
count_verdicts() {
  local line repeats
  line="$1: $(grep -c 'verify boo: PASS' "$2") boo PASS, $(grep -c 'verify boo: FAIL' "$2") boo FAIL,"
  line="$line $(grep -c 'error:' "$2") errors"
  repeats=$(grep -c '^>>> repeat .*: PASS' "$2")
  [ "$repeats" -gt 0 ] && line="$line, $repeats repeats PASS (a second run wrote the same bits)"
  echo "$line" | tee -a "$OUT/summary.txt"
}
# Runs one list through the driver's numerics gate: numerics_list NAME FILE DRIVER-FLAGS...
# A name already used in this run gets a suffix, so that two lists with one file name (say
# tests/gpu/x.txt and bench/workloads/x.txt) do not overwrite each other's log and CSV.
declare -A numerics_names=()
numerics_list() {
  local name=$1 f=$2
  shift 2
  while [ -n "${numerics_names[$name]:-}" ]; do name="$name-2"; done
  numerics_names[$name]=1
  "$boo" driver "$@" -V 1 --explain --csv "$OUT/numerics-$name.csv" \
    --commands-file "$f" >"$OUT/numerics-$name.log" 2>&1 || status=1
  count_verdicts "$name" "$OUT/numerics-$name.log"
  grep -o '^>>> boo: [a-z0-9._]*' "$OUT/numerics-$name.log" | sort | uniq -c \
    | sed "s/^/  $name: /" | tee -a "$OUT/summary.txt"
  grep -B3 -A2 'FAIL\|error:' "$OUT/numerics-$name.log" | head -60
}

if want tests; then
  log "GPU numerics tests: boo and cuBLASLt against the reference"
  for f in "${gemm_lists[@]}"; do
    numerics_list "$(list_name "$f")" "$f" --backend boo,cublaslt
  done
  log "GPU numerics tests with operands aligned only to their element size (--misalign)"
  for f in "${misaligned_lists[@]}"; do
    numerics_list "$(list_name "$f")-misaligned" "$f" --backend boo --misalign
  done
fi

if want ceilings; then
  log "ceilings: what this GPU reaches, and one cold read of each size under the protocol"
  # shellcheck disable=SC2086
  "$boo" ceilings ${BOO_READ_MB:+--read-mb $BOO_READ_MB} >"$OUT/ceilings.txt" 2>&1 || status=1
  cat "$OUT/ceilings.txt"
fi

if want bench; then
  log "benchmark: gemm_public.log, boo vs cuBLASLt, DESIGN.md section 7 protocol"
  "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 \
    --csv "$OUT/bench-gemm.csv" --commands-file bench/workloads/gemm_public.log \
    >"$OUT/bench-gemm.log" 2>&1 || status=1
  grep -E '^>>> (speedup|boo:|cublaslt:)|verify|error' "$OUT/bench-gemm.log" | head -80
  if [[ " $bench_extra " == *" skinny "* ]]; then
    log "benchmark: the skinny (decode) list, boo vs cuBLASLt"
    "$boo" driver --backend boo,cublaslt -t 1 --iter 100 \
      --csv "$OUT/bench-skinny.csv" --commands-file tests/gpu/gemm_skinny.txt \
      >"$OUT/bench-skinny.log" 2>&1 || status=1
  fi
  if [[ " $bench_extra " == *" flushwrite "* ]]; then
    log "benchmark: the public list again with a write (fill) flush of the L2, for comparison"
    "$boo" driver --backend boo,cublaslt -t 1 --iter 100 --flush write \
      --csv "$OUT/bench-gemm-flushwrite.csv" --commands-file bench/workloads/gemm_public.log \
      >"$OUT/bench-gemm-flushwrite.log" 2>&1 || status=1
  fi
  if [[ " $bench_extra " == *" unaligned "* ]]; then
    log "benchmark: the unaligned and fp8 list, boo vs cuBLASLt"
    "$boo" driver --backend boo,cublaslt -t 1 --iter 100 \
      --csv "$OUT/bench-unaligned-fp8.csv" --commands-file tests/gpu/gemm_unaligned_fp8.txt \
      >"$OUT/bench-unaligned-fp8.log" 2>&1 || status=1
  fi
  log "dispatch overhead micro-benchmark"
  build/device/boo_bench_dispatch 2>&1 | tee "$OUT/dispatch-overhead.txt" || status=1
fi

conv_lists=(bench/workloads/conv_public.txt tests/gpu/conv_awkward.txt tests/gpu/conv_depthwise.txt
  tests/gpu/conv_depthwise_backward.txt tests/gpu/conv_pointwise.txt
  tests/gpu/conv_padded.txt tests/gpu/conv_grouped.txt tests/gpu/conv_grouped_direct.txt
  tests/gpu/conv_split_wgrad.txt tests/gpu/conv_wgrad_direct.txt tests/gpu/conv_wgrad_wgmma.txt
  tests/gpu/conv_gemm_1d.txt
  tests/gpu/conv_persistent.txt tests/gpu/conv_few_channels.txt tests/gpu/conv_tf32_1x1.txt
  tests/gpu/conv_dgrad_phases.txt tests/gpu/conv_wgrad_tf32.txt tests/gpu/conv_wgrad_1x1.txt
  tests/gpu/conv_wgrad_grouped.txt)
[ -n "${BOO_CONV_LISTS:-}" ] && read -r -a conv_lists <<<"$BOO_CONV_LISTS"
conv_misaligned_lists=(tests/gpu/conv_taps.txt tests/gpu/conv_grouped_direct.txt
  tests/gpu/conv_depthwise.txt tests/gpu/conv_few_channels.txt tests/gpu/conv_pointwise.txt)
if want convpreload; then
  log "preload: convolution kernels ($jobs jobs)"
  preload_lists -- "${conv_lists[@]}"
fi

if want convtests; then
  log "GPU numerics tests: convolutions, boo and cuDNN against the reference"
  for f in "${conv_lists[@]}"; do
    # The list's switches for this list only; what the caller set stays set for the rest.
    read -r -a settings <<<"$(list_env "$f")"
    saved_env=()
    for setting in "${settings[@]}"; do
      name=${setting%%=*}
      saved_env+=("$(declare -p "$name" 2>/dev/null || echo "unset $name")")
      export "$setting"
    done
    numerics_list "$(list_name "$f")" "$f" --backend boo,cudnn
    # The lists of our own kernels again on operands one element past a 16-byte boundary (views
    # into larger tensors): the channels-last copies and the workspace they need at run time.
    if [[ " ${conv_misaligned_lists[*]} " == *" $f "* ]]; then
      numerics_list "$(list_name "$f")-misaligned" "$f" --backend boo --misalign -t 0
    fi
    for saved in "${saved_env[@]}"; do eval "$saved"; done
  done
fi

if want convbench; then
  log "benchmark: conv_public.txt, boo vs cuDNN, DESIGN.md section 7 protocol"
  "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 --explain \
    --csv "$OUT/bench-conv.csv" --commands-file bench/workloads/conv_public.txt \
    >"$OUT/bench-conv.log" 2>&1 || status=1
  grep -E '^>>> (speedup|boo:|cudnn:|verify)|error' "$OUT/bench-conv.log" | cut -c1-150 | head -120
  if [ -z "${BOO_SKIP_DEPTHWISE_BENCH:-}" ]; then
  log "benchmark: conv_depthwise.txt (conv.depthwise's classes), boo vs cuDNN"
  "$boo" driver --backend boo,cudnn -t 1 --iter 100 -V 1 --explain \
    --csv "$OUT/bench-conv-depthwise.csv" --commands-file bench/workloads/conv_depthwise.txt \
    >"$OUT/bench-conv-depthwise.log" 2>&1 || status=1
  grep -E '^>>> (speedup|boo: min|cudnn: min)|error' "$OUT/bench-conv-depthwise.log" | cut -c1-150
  fi
fi

# Compiles (in parallel) and times (one at a time, boo only, with the numerics gate) each
# "<config><TAB><command>" line of JOBS; RESULT gets "<median us><TAB><verdict><TAB><config><TAB>
# <command>" (the verdict of the numerics gate: PASS, FAIL or error).
time_forced() {
  local jobs_file=$1 result=$2 v cmd line med verdict
  log "compiling $(wc -l <"$jobs_file") configs ($jobs at a time)"
  while IFS=$'\t' read -r v cmd; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    "$boo" preload -j 1 --config "$v" "$cmd" >>"$OUT/forced-preload.log" 2>&1 &
  done <"$jobs_file"
  wait
  grep -i 'error\|failed [1-9]' "$OUT/forced-preload.log" | head -10
  log "timing (DESIGN.md section 7 protocol, boo only)"
  while IFS=$'\t' read -r v cmd; do
    line=$("$boo" driver --backend boo -t 1 --iter 100 -V 1 --config "$v" "$cmd" 2>&1 </dev/null \
      | grep -E '^>>> (boo: )?min=|verify boo|error' | tr '\n' ' ')
    med=$(echo "$line" | sed -n 's/.*median=\([0-9.]*\)us.*/\1/p')
    verdict=$(echo "$line" | grep -o 'verify boo: [A-Z]*' | head -1 | sed 's/verify boo: //')
    case "$line" in *error:*) verdict=error ;; esac
    printf '%s\t%s\t%s\t%s\n' "${med:-none}" "${verdict:-none}" "$v" "$cmd" | tee -a "$result" \
      | cut -c1-160
    case "$line" in *FAIL* | *error*) echo "  $line" | cut -c1-300 ;; esac
  done <"$jobs_file"
}

if [[ " ${steps[*]} " == *" convstages "* ]]; then
  # Each command's conv.sm90_implicit config as dispatch picks it, beside fixed stage counts
  # (fewer stages: two CTAs per SM, one's epilogue under the other's mainloop) and, for
  # 128x128 tiles (one CTA per SM by registers), the two half tiles with 4 stages.
  stages_file="${BOO_STAGES_FILE:-bench/workloads/conv_public.txt}"
  log "conv stage sweep: the chosen config of each command of $stages_file under stage counts"
  : >"$OUT/stages-jobs.txt"
  while IFS= read -r cmd; do
    case "$cmd" in "" | \#*) continue ;; esac
    cfgs=$("$boo" parse --candidates 1 "$cmd" 2>/dev/null | awk '$1 == "#1" {print $2}')
    [ "$(echo "$cfgs" | wc -l)" -eq 1 ] || continue
    case "$cfgs" in conv.sm90_implicit_*) ;; *) continue ;; esac
    variants=("$cfgs")
    for st in ${BOO_STAGES:-3 4}; do variants+=("$(echo "$cfgs" | sed "s/\(_c[0-9]x[0-9]\)/\1_st$st/")"); done
    if [[ "$cfgs" == *_t128x128x* ]]; then
      for t in 128x64 64x128; do
        variants+=("$(echo "$cfgs" | sed "s/_t128x128x\([0-9]*\)_\(c[0-9]x[0-9]\)/_t${t}x\1_\2_st4/")")
      done
    fi
    for v in "${variants[@]}"; do printf '%s\t%s\n' "$v" "$cmd" >>"$OUT/stages-jobs.txt"; done
  done <"$stages_file"
  time_forced "$OUT/stages-jobs.txt" "$OUT/stages.txt"
fi

if [[ " ${steps[*]} " == *" forced "* ]]; then
  # BOO_FORCED_FILE: lines of "<config><TAB><command>" (a config forced on a problem).
  log "forced configs of ${BOO_FORCED_FILE:-?}"
  grep -v '^#' "${BOO_FORCED_FILE:?BOO_FORCED_FILE names a file of config<TAB>command lines}" \
    >"$OUT/forced-jobs.txt"
  time_forced "$OUT/forced-jobs.txt" "$OUT/forced.txt"
fi

if [[ " ${steps[*]} " == *" listbench "* ]]; then
  # BOO_LISTBENCH: "gemm:FILE" or "conv:FILE" entries (space-separated), each list timed by
  # dispatch's choices against the vendor (cuBLASLt, cuDNN), DESIGN.md section 7, into
  # bench-<name>.csv (in logs.tgz).
  for entry in ${BOO_LISTBENCH:?BOO_LISTBENCH names gemm:FILE or conv:FILE lists}; do
    kind=${entry%%:*}
    f=${entry#*:}
    name=$(list_name "$f")
    vendor=cublaslt
    [ "$kind" = conv ] && vendor=cudnn
    log "benchmark: $f, boo vs $vendor"
    env $(list_env "$f") "$boo" driver --backend "boo,$vendor" -t 1 --iter 100 -V 1 --explain \
      --csv "$OUT/bench-$name.csv" --commands-file "$f" >"$OUT/bench-$name.log" 2>&1 || status=1
    count_verdicts "bench-$name" "$OUT/bench-$name.log"
    grep -E "^>>> (speedup|boo:|$vendor:)|error" "$OUT/bench-$name.log" | cut -c1-150 | head -80
  done
fi

if [[ " ${steps[*]} " == *" workloads "* ]]; then
  log "workloads: boo preload and boo numerics on the three public workload files"
  for f in bench/workloads/gemm_public.log bench/workloads/conv_public.txt \
    bench/workloads/layernorm_public.txt; do
    name=$(list_name "$f")
    "$boo" preload -j "$jobs" --commands-file "$f" >"$OUT/workload-preload-$name.log" 2>&1 || status=1
    tail -n 1 "$OUT/workload-preload-$name.log" | tee -a "$OUT/summary.txt"
    "$boo" numerics --csv "$OUT/workload-numerics-$name.csv" --log "$OUT/workload-numerics-$name.log" \
      --commands-file "$f" >"$OUT/workload-numerics-$name.txt" 2>&1 || status=1
    tail -n 1 "$OUT/workload-numerics-$name.txt" | tee -a "$OUT/summary.txt"
  done
fi

if [[ " ${steps[*]} " == *" profile "* ]]; then
  log "profile: kernel durations and DRAM bytes (ncu) of a few problems, boo's kernels only"
  for cmd in \
    "- {function: matmul, M: 4096, N: 16, K: 4096, lda: 4096, ldb: 4096, ldc: 4096, ldd: 4096, transA: T, transB: N, a_type: bf16_r, b_type: bf16_r}" \
    "- {function: matmul, M: 1000, N: 32, K: 1024, lda: 1024, ldb: 1024, ldc: 1000, ldd: 1000, transA: T, transB: N, a_type: bf16_r, b_type: bf16_r}" \
    "- {function: matmul, M: 50257, N: 512, K: 4096, lda: 4096, ldb: 4096, ldc: 50257, ldd: 50257, transA: T, transB: N, a_type: bf16_r, b_type: bf16_r}"; do
    for cfg in "" "--config gemm.skinny_bf16.bf16.void.bf16_f32acc_tn_nobias.none_narrow-n_splitauto"; do
      case "$cmd$cfg" in *50257*skinny*) continue ;; esac
      echo "### $cmd $cfg" >>"$OUT/profile.txt"
      timeout 120 ncu --clock-control none -k 'regex:skinny|device_kernel|shifted_copy|pad_copy' \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
        "$boo" driver --backend boo -t 0 $cfg "$cmd" >>"$OUT/profile.txt" 2>&1 || status=1
    done
  done
  grep -E '^###|gemm|pad_copy|device_kernel|duration|dram__' "$OUT/profile.txt" | head -80
fi

if [[ " ${steps[*]} " == *" lnprofile "* ]]; then
  # BOO_LNPROFILE_CONFIGS: configs to force (space-separated; default: the heuristic's).
  log "layer norm profile (ncu): speed of light, occupancy and warp stalls of the kernels"
  for cmd in "layernormbfp16 -X 8192x4096 -o 1 -e 1e-5 -m 1 -F 1" \
    "layernormbfp16 -X 8192x4096 -o 1 -e 1e-5 -m 1 -F 2" \
    "layernormbfp16 -X 8192x4096 -o 1 -e 1e-5 -m 1 -F 14" \
    "layernormfp16 -X 16x1024x1024 -o 2 -e 1e-5 -m 1 -F 14"; do
    for cfg in "" ${BOO_LNPROFILE_CONFIGS:-}; do
      case "$cfg" in "") ;; *) [[ "$cmd" == layernormbfp16* && "$cfg" == *bf16_bwd* ]] \
        || [[ "$cmd" == layernormfp16* && "$cfg" == *fp16_bwd* ]] || continue
        [[ "$cmd" == *"-F 1" ]] && continue ;; esac
      echo "### $cmd ${cfg:+--config $cfg}" >>"$OUT/lnprofile.txt"
      timeout 120 ncu --clock-control none -k 'regex:forward_kernel|backward_|reduce_columns' --section SpeedOfLight \
        --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
        "$boo" driver --backend boo -t 0 ${cfg:+--config $cfg} "$cmd" >>"$OUT/lnprofile.txt" \
        2>&1 || status=1
    done
  done
  grep -E '^###|layernorm::|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Stall|Warp Cycles Per Issued|Max Bandwidth' \
    "$OUT/lnprofile.txt" | cut -c1-150 | head -150
fi

if [[ " ${steps[*]} " == *" sweep "* ]]; then
  # BOO_SWEEP_FILE (default the public GEMM list) and BOO_SWEEP_RULES (default, or full: e.g.
  # every split-K count of the K-heavy GEMMs, to calibrate the split-K cost model).
  top="${BOO_SWEEP_TOP:-12}"
  sweep_file="${BOO_SWEEP_FILE:-bench/workloads/gemm_public.log}"
  sweep_rules="${BOO_SWEEP_RULES:-default}"
  log "sweep: the heuristic's first $top candidates ($sweep_rules rules) of each GEMM of" \
    "$sweep_file, timed against cuBLASLt"
  "$boo" preload --top "$top" --rule-set "$sweep_rules" -j "$jobs" --commands-file "$sweep_file" \
    2>&1 | tail -n 3 | tee "$OUT/sweep-preload.log"
  "$boo" driver --backend boo,cublaslt --top "$top" --rule-set "$sweep_rules" -t 1 --iter 50 \
    --csv "$OUT/sweep-gemm.csv" --commands-file "$sweep_file" >"$OUT/sweep-gemm.log" 2>&1 \
    || status=1
  grep -E '^- \{|speedup' "$OUT/sweep-gemm.log" | cut -c1-90 | head -150
fi

if [[ " ${steps[*]} " == *" ordersweep "* ]]; then
  log "order sweep: the chosen config of each public GEMM under every swizzle and raster order"
  "$boo" driver --backend boo,cublaslt --vary-order -t 1 --iter 50 --csv "$OUT/order-gemm.csv" \
    --commands-file bench/workloads/gemm_public.log >"$OUT/order-gemm.log" 2>&1 || status=1
  grep -E '^- \{|speedup' "$OUT/order-gemm.log" | cut -c1-60 | head -150
fi

if [[ " ${steps[*]} " == *" skinnysweep "* ]]; then
  log "skinny sweep: gemm.skinny under fixed K splits on decode shapes (M N K transA transB)"
  for shape in "4096 16 4096 T N" "14336 1 4096 T N" "1000 8 1024 T N" "256 8 65536 T N" \
               "4096 16 4096 N N"; do
    read -r m n k ta tb <<<"$shape"
    lda=$([ "$ta" = T ] && echo "$k" || echo "$m"); ldb=$([ "$tb" = N ] && echo "$k" || echo "$n")
    cmd="- {function: matmul, M: $m, N: $n, K: $k, lda: $lda, ldb: $ldb, ldc: $m, ldd: $m, transA: $ta, transB: $tb, a_type: bf16_r, b_type: bf16_r}"
    cls=$(echo "$ta$tb" | tr 'TN' 'tn')
    for split in auto 1 2 4 8 16 32 64; do
      "$boo" driver --backend boo -t 1 --iter 50 \
        --config "gemm.skinny_bf16.bf16.void.bf16_f32acc_${cls}_nobias.none_narrow-n_split$split" \
        "$cmd" >"$OUT/skinnysweep-run.log" 2>&1 || status=1
      cat "$OUT/skinnysweep-run.log" >>"$OUT/skinnysweep.log"
      echo "$shape split$split: $(grep -E '^>>> boo: min' "$OUT/skinnysweep-run.log" | sed 's/.*median=\([0-9.]*us\).*(floor \([0-9.]*us\).*/median \1 floor \2/')" \
        | tee -a "$OUT/skinnysweep.txt"
    done
  done
fi

if [[ " ${steps[*]} " == *" skinnyforced "* ]]; then
  # gemm.skinny on every line of the decode list (BOO_SKINNY_LIST), whatever dispatch would pick,
  # beside cuBLASLt: the line's gemm.skinny config ending in BOO_SKINNY_FORCE (default
  # splitauto; streamauto, stream4, ...: the streaming loop; fp32 inputs have none and are
  # skipped).
  list="${BOO_SKINNY_LIST:-tests/gpu/gemm_skinny.txt}"
  force="${BOO_SKINNY_FORCE:-splitauto}"
  log "gemm.skinny _$force forced on every line of $list, against cuBLASLt"
  : >"$OUT/skinnyforced.log"
  # The line's gemm.skinny config with the forced loop and count (the default rule set ranks
  # the streaming loop only where it pays, so its name is derived from the split one's).
  forced_config() {
    "$boo" parse --candidates 2000 "$1" 2>&1 </dev/null | grep -oE 'gemm\.skinny_[^ ]*_splitauto' \
      | head -1 | sed "s/_splitauto\$/_$force/" | grep -v '^gemm\.skinny_fp32\..*_stream'
  }
  # Each line's config once, then its kernels compiled eight at a time, then the runs.
  cmds=()
  cfgs=()
  while IFS= read -r cmd; do
    case "$cmd" in "#"* | "") continue ;; esac
    cfg=$(forced_config "$cmd")
    [ -n "$cfg" ] || continue
    cmds+=("$cmd")
    cfgs+=("$cfg")
  done <"$list"
  for i in "${!cmds[@]}"; do
    "$boo" preload -j 2 --config "${cfgs[$i]}" "${cmds[$i]}" </dev/null >>"$OUT/preload.log" 2>&1 &
    while [ "$(jobs -rp | wc -l)" -ge 8 ]; do wait -n; done
  done
  wait
  n=${#cmds[@]}
  for i in "${!cmds[@]}"; do
    "$boo" driver --backend boo,cublaslt --config "${cfgs[$i]}" -V 1 -t 1 --iter 100 \
      --csv "$OUT/skinnyforced-$((i + 1)).csv" "${cmds[$i]}" </dev/null \
      >>"$OUT/skinnyforced.log" 2>&1 || status=1
  done
  head -1 "$OUT/skinnyforced-1.csv" >"$OUT/bench-skinny-forced.csv"
  for i in $(seq 1 "$n"); do tail -n +2 "$OUT/skinnyforced-$i.csv" >>"$OUT/bench-skinny-forced.csv"; done
  rm -f "$OUT"/skinnyforced-*.csv
  count_verdicts "skinnyforced ($n lines)" "$OUT/skinnyforced.log"
fi

ln_lists=(bench/workloads/layernorm_public.txt tests/gpu/layernorm_awkward.txt)
if want lnpreload; then
  log "preload: layer norm kernels ($jobs jobs)"
  preload_lists -- "${ln_lists[@]}"
fi

if want lntests; then
  log "GPU numerics tests: layer norms against the fp64 reference (and finite differences)"
  for f in "${ln_lists[@]}"; do
    numerics_list "$(list_name "$f")" "$f" --backend boo
  done
fi

if want lnbench; then
  log "benchmark: layernorm_public.txt, boo, then PyTorch (bench/layernorm_torch.py)"
  "$boo" driver --backend boo -t 1 --iter 100 -V 1 --explain \
    --csv "$OUT/bench-layernorm.csv" --commands-file bench/workloads/layernorm_public.txt \
    >"$OUT/bench-layernorm.log" 2>&1 || status=1
  grep -E '^layernorm|^>>> (boo|verify)|error' "$OUT/bench-layernorm.log" | cut -c1-160 | head -60
  python3 bench/layernorm_torch.py --commands-file bench/workloads/layernorm_public.txt \
    --csv "$OUT/torch-layernorm.csv" 2>&1 | tail -n 30 | tee "$OUT/torch-layernorm.log" || status=1
fi

if [[ " ${steps[*]} " == *" lnsweep "* ]]; then
  # Forward problems: the default rule set's first BOO_SWEEP_TOP (40) configs; backward ones:
  # every config of the full rule set that fits (the backward has fewer good configs).
  top="${BOO_SWEEP_TOP:-40}"
  grep -E '^layernorm.* -F 1( |$)' bench/workloads/layernorm_public.txt >"$OUT/ln-fwd.txt"
  grep -E '^layernorm' bench/workloads/layernorm_public.txt | grep -vE ' -F 1( |$)' \
    >"$OUT/ln-bwd.txt"
  log "layer norm sweep: forward top $top (default rules), backward all (full rules)"
  [ "$top" = 0 ] && : >"$OUT/ln-fwd.txt"  # BOO_SWEEP_TOP=0: the backward only
  "$boo" preload --top "$top" -j "$jobs" --commands-file "$OUT/ln-fwd.txt" 2>&1 | tail -n 1
  "$boo" preload --top 400 --rule-set full -j "$jobs" --commands-file "$OUT/ln-bwd.txt" 2>&1 \
    | tail -n 1
  if [ -s "$OUT/ln-fwd.txt" ]; then
    "$boo" driver --backend boo --top "$top" -t 1 --iter 50 --csv "$OUT/lnsweep.csv" \
      --commands-file "$OUT/ln-fwd.txt" >"$OUT/lnsweep.log" 2>&1 || status=1
  fi
  "$boo" driver --backend boo --top 400 --rule-set full -t 1 --iter 50 \
    --csv "$OUT/lnsweep-bwd.csv" --commands-file "$OUT/ln-bwd.txt" >>"$OUT/lnsweep.log" 2>&1 \
    || status=1
  if [ -f "$OUT/lnsweep.csv" ]; then
    tail -n +2 "$OUT/lnsweep-bwd.csv" >>"$OUT/lnsweep.csv"
  else
    cp "$OUT/lnsweep-bwd.csv" "$OUT/lnsweep.csv"
  fi
  grep -cE '^>>> boo#[0-9]+: min' "$OUT/lnsweep.log"
fi

if want spacecheck; then
  log "config-space check: compile a random sample of the full rule set"
  "$boo" space-check --sample "${BOO_SPACE_SAMPLE:-24}" -j "$jobs" 2>&1 | tail -40 \
    | tee "$OUT/spacecheck.log" || status=1
fi
log "done (status $status)"
if [ -n "$RESULTS" ] && [ "$RESULTS" != "$OUT" ]; then
  tar czf "$RESULTS/logs.tgz" -C "$OUT" .
  for f in summary.txt bench-gemm.csv bench-gemm-flushwrite.csv bench-skinny.csv \
    bench-unaligned-fp8.csv bench-conv.csv bench-conv-depthwise.csv bench-layernorm.csv \
    torch-layernorm.csv lnsweep.csv ceilings.txt \
    bench-skinny-forced.csv \
    lnprofile.txt profile.txt workload-numerics-gemm_public.csv \
    workload-numerics-conv_public.csv workload-numerics-layernorm_public.csv \
    workload-numerics-gemm_public.txt workload-numerics-conv_public.txt \
    workload-numerics-layernorm_public.txt; do
    [ -f "$OUT/$f" ] && cp "$OUT/$f" "$RESULTS/"
  done
fi
exit $status
