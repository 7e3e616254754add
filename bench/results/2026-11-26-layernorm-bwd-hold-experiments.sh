#!/usr/bin/env bash
# Layer norm backward experiment (issue 7): backward_pipe_kernel with fewer instructions per
# element. BOO_LAYERNORM_HOLD=1 loads the thread's weights once into registers (fp32) instead of
# twice per row from global memory; =2 also keeps the row's xhat and dy in registers between the
# two passes instead of reading and widening them from shared memory again (patch:
# 2026-11-26-layernorm-bwd-hold-experiments.diff).
# Usage (device machine, .deps/device carried; the patch applied first with `git apply`):
#   VARIANTS="base HOLD=1 HOLD=2" REPS="1 2 3" bash <this>
set -uo pipefail
cd "$(dirname "$0")/../.."
export BOO_CUTLASS_DIR="$PWD/.deps/device/cutlass"
export BOO_CACHE_DIR="$PWD/.deps/device-cache"
boo=build/device/tools/boo/boo
R="${OUT:-/tmp/out}"; mkdir -p "$R"
if [ ! -x "$boo" ]; then
  cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DBOO_BUILD_TESTS=OFF \
    -DCMAKE_PREFIX_PATH="$PWD/.deps/device/root/usr" -DBOO_CUTLASS_DIR="$BOO_CUTLASS_DIR" \
    >/tmp/build.log 2>&1 && cmake --build build/device -j 16 >>/tmp/build.log 2>&1 \
    || { tail -30 /tmp/build.log; exit 1; }
fi
echo "== built $(date +%T)"
bf="layernormbfp16 -X 8192x4096 -o 1 -e 1e-05 -m 1 -F 14"
hf="layernormfp16 -X 16x1024x1024 -o 2 -e 1e-05 -m 1 -F 14"
# "<config or -><TAB><command>": the heuristic's pick (-) and forced configs.
jobs=/tmp/ln-jobs.txt
{
  printf '%s\t%s\n' - "$bf" - "$hf"
  for c in ${BF_CONFIGS:-}; do printf '%s\t%s\n' "$c" "$bf"; done
  for c in ${HF_CONFIGS:-}; do printf '%s\t%s\n' "$c" "$hf"; done
} >"$jobs"
VARIANTS=${VARIANTS:-"base HOLD=1 HOLD=2"}

flags() { [ "$1" = base ] && echo "" || echo "-DBOO_LAYERNORM_$1"; }
cfgarg() { [ "$1" = - ] && echo "" || echo "--config $1"; }
for v in $VARIANTS; do
  while IFS=$'\t' read -r c cmd; do
    BOO_NVCC_FLAGS="$(flags "$v")" "$boo" preload -j 2 $(cfgarg "$c") "$cmd" >>"/tmp/pre-$v.log" 2>&1 &
  done <"$jobs"
  while [ "$(jobs -rp | wc -l)" -ge 8 ]; do wait -n; done
done
wait
grep -hi "error" /tmp/pre-*.log | head -5
echo "== preloaded $(date +%T)"
for v in $VARIANTS; do
  while IFS=$'\t' read -r c cmd; do
    echo "## verify $v $c ${cmd:0:40}"
    BOO_NVCC_FLAGS="$(flags "$v")" "$boo" driver --backend boo -t 1 --iter 5 -V 1 $(cfgarg "$c") "$cmd" \
      </dev/null 2>&1 | grep -E "verify|error|skipped" | cut -c1-160
  done <"$jobs"
done
echo "variant,config_arg,command,median_us,min_us,floor_us,config" >"$R/ln-hold.csv"
for rep in ${REPS:-1 2 3}; do
  for v in $VARIANTS; do
    while IFS=$'\t' read -r c cmd; do
      BOO_NVCC_FLAGS="$(flags "$v")" "$boo" driver --backend boo -t 1 --iter 100 $(cfgarg "$c") \
        --csv /tmp/one.csv "$cmd" </dev/null >/tmp/one.log 2>&1
      tail -n +2 /tmp/one.csv | awk -F, -v v="$v" -v c="$c" '{printf "%s,%s,%s,%s,%s,%s,%s\n", v, c, $1, $6, $7, $9, $5}' \
        | tee -a "$R/ln-hold.csv" | awk -F, '{printf "%-5s %-28s %-44s median %s floor %s\n", $1, substr($2,1,28), substr($3,1,44), $4, $6}'
    done <"$jobs"
  done
  for cmd in "${bf/-F 14/-F 2}" "${hf/-F 14/-F 2}"; do
    "$boo" driver --backend boo -t 1 --iter 100 --csv /tmp/one.csv "$cmd" </dev/null >/dev/null 2>&1
    tail -n +2 /tmp/one.csv | awk -F, '{printf "F2,-,%s,%s,%s,%s,%s\n", $1, $6, $7, $9, $5}' | tee -a "$R/ln-hold.csv"
  done
done
echo "== timed $(date +%T)"
