#!/usr/bin/env bash
# On the development machine, after a device call: keeps the kernel tarball the call brought back
# (FILES_AT/kcache.tar.xz, made by scripts/device-kcache.sh) in .deps/device-kcache, where the
# next call carries it (carry [".deps/device", ".deps/device-kcache"]).
# Usage: scripts/device-kcache-keep.sh FILES_AT
set -euo pipefail
cd "$(dirname "$0")/.."
files="${1:?usage: scripts/device-kcache-keep.sh FILES_AT (the files folder of the device call)}"
src=$(ls "$files/kcache.tar.xz" "$files/kcache.tgz" 2>/dev/null | head -1 || true)
if [ -z "$src" ]; then
  echo "error: no kcache.tar.xz or kcache.tgz in $files: the call packed no kernels (or was cut" \
    "before it did)" >&2
  exit 1
fi
if ! names=$(tar tf "$src" 2>/dev/null); then
  echo "error: $src is not a whole tarball (the call was cut while packing it); kept the old one" >&2
  exit 1
fi
kernels=$(grep -c '\.so$' <<<"$names" || true)
mkdir -p .deps/device-kcache
rm -f .deps/device-kcache/kcache.tar.xz .deps/device-kcache/kcache.tgz
cp "$src" .deps/device-kcache/
echo "kept $kernels kernels ($(du -h "$src" | cut -f1)) in .deps/device-kcache"
