#!/usr/bin/env bash
# Prepares .deps/device/ (ignored by git) for the GPU machine, which has no network: the
# header-only dependencies as Debian packages unpacked (CLI11, nlohmann-json) and the CUTLASS
# headers of the nvidia-cutlass wheel. scripts/device-run.sh uses them; name .deps/device in
# the device tool's `carry`. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null
out=.deps/device
mkdir -p "$out/debs" "$out/root"
if [ ! -f "$out/root/.done" ]; then
  (cd "$out/debs" && apt-get download -q libcli11-dev nlohmann-json3-dev >/dev/null)
  for deb in "$out"/debs/*.deb; do dpkg -x "$deb" "$out/root"; done
  rm -rf "$out/debs"
  touch "$out/root/.done"
fi
if [ ! -f "$out/cutlass/include/cutlass/cutlass.h" ]; then
  mkdir -p "$out/cutlass/tools/util"
  cp -r .deps/cutlass/cutlass_library/source/include "$out/cutlass/"
  cp -r .deps/cutlass/cutlass_library/source/tools/util/include "$out/cutlass/tools/util/"
fi
du -sh "$out" | sed 's/^/device-deps: /'
