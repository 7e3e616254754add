#!/usr/bin/env bash
# Builds the parser fuzzer with clang (libFuzzer + ASan + UBSan) and runs it for a while on a
# corpus seeded from the shipped workload files. Usage: scripts/fuzz.sh [SECONDS] (default 60).
# Fails on any crash, hang (> 10 s per input), sanitizer report or broken round trip.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target boo_parse_fuzzer
corpus=build/fuzz/corpus
mkdir -p "$corpus"
# Seed: one file per workload line (and a few shapes of bad input).
i=0
for f in bench/workloads/*; do
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    printf '%s' "$line" >"$corpus/seed_$i"
    i=$((i + 1))
  done <"$f"
done
printf 'conv -n -c 3' >"$corpus/seed_bad_0"
printf -- '- {function: matmul, M: 1' >"$corpus/seed_bad_1"
printf 'count\tcommand\n1\tlayernorm -X 2x3\n' >"$corpus/seed_tsv_0"
echo "fuzz: running boo_parse_fuzzer for ${seconds}s on $(ls "$corpus" | wc -l) corpus files"
build/fuzz/tests/fuzz/boo_parse_fuzzer -max_total_time="$seconds" -timeout=10 -max_len=2048 \
  -print_final_stats=1 -artifact_prefix=build/fuzz/ "$corpus" 2>&1 | tail -n 25
