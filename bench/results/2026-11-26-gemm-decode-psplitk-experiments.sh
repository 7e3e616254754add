#!/usr/bin/env bash
# Decode GEMM experiment (issue 4): 4096 x 16 x 4096 (line 8 of the public GEMM list) on
# gemm.sm90's narrow tiles with parallel split-K (every SM streams A; a second kernel adds the
# slices) against the persistent narrow tile dispatch picks, and cuBLASLt in the same process.
# Usage (device machine, .deps/device carried): REPS="1 2 3" bash <this>
set -uo pipefail
cd "$(dirname "$0")/../.."
export BOO_CUTLASS_DIR="$PWD/.deps/device/cutlass"
export BOO_CACHE_DIR="$PWD/.deps/device-cache"
boo=build/device/tools/boo/boo
if [ ! -x "$boo" ]; then
  cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DBOO_BUILD_TESTS=OFF \
    -DCMAKE_PREFIX_PATH="$PWD/.deps/device/root/usr" -DBOO_CUTLASS_DIR="$BOO_CUTLASS_DIR" \
    >/tmp/build.log 2>&1 && cmake --build build/device -j 16 >>/tmp/build.log 2>&1 \
    || { tail -30 /tmp/build.log; exit 1; }
fi
R="${OUT:-/tmp/out}"; mkdir -p "$R"
cmd=$(sed -n 8p bench/workloads/gemm_public.log)
p=gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_
CONFIGS=${CONFIGS:-"- t64x16x128_c1x1_pingpong_psplitk2 t128x16x64_c1x1_pingpong_psplitk4
  t128x16x64_c1x1_coop_psplitk4 t64x16x128_c1x1_pingpong_psplitk4 t128x16x128_c1x1_pingpong_psplitk4
  t128x32x64_c1x1_pingpong_psplitk4 t128x16x64_c1x1_pingpong_psplitk8"}
cfgarg() { [ "$1" = - ] && echo "" || echo "--config $p$1_sw1.rh"; }
for c in $CONFIGS; do
  "$boo" preload -j 2 $(cfgarg "$c") "$cmd" >>/tmp/gemm-pre.log 2>&1 &
  while [ "$(jobs -rp | wc -l)" -ge 8 ]; do wait -n; done
done
wait
grep -i error /tmp/gemm-pre.log | head -5
echo "== gemm preloaded $(date +%T)"
: >"$R/gemm-decode.csv"
for rep in ${REPS:-1 2 3}; do
  for c in $CONFIGS; do
    "$boo" driver --backend boo,cublaslt -t 1 --iter 100 -V 1 $(cfgarg "$c") --csv /tmp/g.csv "$cmd" \
      </dev/null >/tmp/g.log 2>&1
    grep -E "error|FAIL" /tmp/g.log | head -2
    [ -s "$R/gemm-decode.csv" ] || head -1 /tmp/g.csv >"$R/gemm-decode.csv"
    tail -n +2 /tmp/g.csv >>"$R/gemm-decode.csv"
    grep -E "^>>> (boo|cublaslt): min" /tmp/g.log | sed "s/^/$c /" | cut -c1-150
  done
done
echo "== gemm timed $(date +%T)"
