#!/usr/bin/env bash
# Sets up and runs all of boo's tests that need no GPU: installs dependencies, builds the `ci`
# preset (sanitizers, warnings as errors), runs the unit tests, checks formatting, and fuzzes the
# parsers for a short while. GPU tests run on a GPU machine: scripts/device-run.sh.
# Environment: BOO_FUZZ_SECONDS (default 30; 0 skips the fuzz run), BOO_JOBS (build jobs).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
jobs="${BOO_JOBS:-$(nproc)}"

echo "== build (ci preset: RelWithDebInfo + ASan + UBSan, -Werror)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"

echo "== unit tests"
ctest --preset ci -j "$jobs"

echo "== formatting (clang-format, .clang-format)"
mapfile -t sources < <(git ls-files '*.h' '*.cc' '*.cu' '*.cuh' | grep -v '^build/')
if [ ${#sources[@]} -gt 0 ]; then
  clang-format --dry-run -Werror "${sources[@]}"
fi

fuzz_seconds="${BOO_FUZZ_SECONDS:-30}"
if [ "$fuzz_seconds" -gt 0 ]; then
  echo "== fuzz (libFuzzer, ${fuzz_seconds}s)"
  ./scripts/fuzz.sh "$fuzz_seconds"
fi
echo "== all tests passed"
