#!/usr/bin/env bash
# Installs boo's build and test dependencies by name and version from package registries:
#   Debian/Ubuntu packages (compilers, CMake, Ninja, GoogleTest, CLI11, nlohmann-json, clang
#   with its libFuzzer runtime) and the CUTLASS 4.2 headers from the PyPI wheel
#   nvidia-cutlass==4.2.0.0, installed --no-deps into .deps/cutlass (ignored by git).
# Idempotent: a second run installs nothing. Needs root or sudo for the Debian packages.
# The CUDA toolkit (nvcc, cudart) is assumed installed, as the README says.
set -euo pipefail
cd "$(dirname "$0")/.."

readonly kCutlassVersion="4.2.0.0"
readonly kDebPackages=(
  build-essential cmake ninja-build git python3-pip
  libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev
  clang libclang-rt-dev
)

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${kDebPackages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# CUTLASS headers (header-only; used by the JIT on the GPU machine and by compile-only checks).
stamp=".deps/cutlass/.installed-${kCutlassVersion}"
if [ ! -f "$stamp" ]; then
  echo "setup: installing CUTLASS headers from PyPI nvidia-cutlass==${kCutlassVersion} into .deps/cutlass"
  rm -rf .deps/cutlass
  python3 -m pip install -q --no-deps --disable-pip-version-check --target .deps/cutlass \
    "nvidia-cutlass==${kCutlassVersion}" 2>&1 | grep -v "^\s*$" | grep -vi "warning: running pip as" || true
  test -f .deps/cutlass/cutlass_library/source/include/cutlass/cutlass.h \
    || { echo "setup: CUTLASS headers missing after install" >&2; exit 1; }
  touch "$stamp"
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: warning: the CUDA toolkit (nvcc) was not found; install it (see README)." >&2
fi
echo "setup: dependencies are in place"
