#!/usr/bin/env bash
# Layer norm backward experiments (issue 7): where do the -F 14 microseconds go?
set -uo pipefail
cd "$(dirname "$0")/.."
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
printf '%s\n' "layernormbfp16 -X 8192x4096 -o 1 -e 1e-05 -m 1 -F 14" \
  "layernormfp16 -X 16x1024x1024 -o 2 -e 1e-05 -m 1 -F 14" > /tmp/ln14.txt
printf '%s\n' "layernormbfp16 -X 8192x4096 -o 1 -e 1e-05 -m 1 -F 2" \
  "layernormfp16 -X 16x1024x1024 -o 2 -e 1e-05 -m 1 -F 2" > /tmp/ln2.txt
VARIANTS=${VARIANTS:-"base NO_PDL SKIP_REDUCE WAVES=2 WAVES=4 WAVES=8"}
flags() { [ "$1" = base ] && echo "" || echo "-DBOO_LAYERNORM_$1" | sed "s/+/ -DBOO_LAYERNORM_/g"; }
for v in $VARIANTS; do
  BOO_NVCC_FLAGS="$(flags $v)" "$boo" preload -j 4 --commands-file /tmp/ln14.txt >/tmp/pre-$v.log 2>&1 &
done
"$boo" preload -j 4 --commands-file /tmp/ln2.txt >/tmp/pre-f2.log 2>&1 &
wait
tail -qn1 /tmp/pre-*.log
echo "== preloaded $(date +%T)"
# verify once each (SKIP_REDUCE leaves dweight unwritten: expected to fail)
for v in $VARIANTS; do
  echo "## verify $v"
  BOO_NVCC_FLAGS="$(flags $v)" "$boo" driver --backend boo -t 1 --iter 5 -V 1 --explain --commands-file /tmp/ln14.txt 2>&1 | grep -E "verify|error|skipped|chose" | cut -c1-200
done
for rep in ${REPS:-1 2 3}; do
  for v in $VARIANTS; do
    BOO_NVCC_FLAGS="$(flags $v)" "$boo" driver --backend boo -t 1 --iter 100 --csv "/tmp/ln-$v-$rep.csv" \
      --commands-file /tmp/ln14.txt >/tmp/run-$v-$rep.log 2>&1
    grep "times:" /tmp/run-$v-$rep.log | tail -n 4
    tail -n +2 "/tmp/ln-$v-$rep.csv" | awk -F, -v v=$v '{printf "%-12s %-60s median %s min %s floor %s cfg %s\n", v, $1, $6, $7, $9, $5}'
  done
  "$boo" driver --backend boo -t 1 --iter 100 --csv "/tmp/ln-f2-$rep.csv" --commands-file /tmp/ln2.txt >/dev/null 2>&1
  tail -n +2 "/tmp/ln-f2-$rep.csv" | awk -F, '{printf "%-12s %-60s median %s min %s floor %s cfg %s\n", "F2", $1, $6, $7, $9, $5}'
done
echo "== timed $(date +%T)"
if [ "${NCU:-1}" = 1 ]; then
  for v in ${NCU_VARIANTS:-base WAVES=4}; do
    while read -r cmd; do
      echo "### ncu $v $cmd"
      BOO_NVCC_FLAGS="$(flags $v)" timeout 120 ncu --clock-control none -k 'regex:backward_|reduce_columns' \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
        "$boo" driver --backend boo -t 0 "$cmd" 2>&1 | grep -E "backward_|reduce_col|duration|dram__|warps_active" | cut -c1-140
    done < /tmp/ln14.txt
  done
fi
echo "== done $(date +%T)"
