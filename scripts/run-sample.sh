#!/usr/bin/env bash
# Sets up boo and runs its main job: `boo driver` on the sample commands shipped in the repository
# (samples/quickstart.txt, then the public conv, GEMM and layer norm lists in bench/workloads/).
# On a machine without a GPU, boo says so and runs the fp64 CPU reference on the problems that
# are small enough for it; the others are listed as skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "${BOO_JOBS:-$(nproc)}" --target boo
boo=build/release/tools/boo/boo

for f in samples/quickstart.txt bench/workloads/conv_public.txt bench/workloads/gemm_public.log \
         bench/workloads/layernorm_public.txt; do
  echo
  echo "== boo driver --commands-file $f"
  "$boo" driver --commands-file "$f"
done
