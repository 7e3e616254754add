# Sourced by the device scripts from the repository root: the carried CUTLASS headers. The GPU
# machine has no network: without them every step would fail late, so stop at once.
if [ ! -f .deps/device/cutlass/include/cutlass/cutlass.h ]; then
  echo "error: .deps/device/cutlass is missing: run scripts/device-deps.sh on the development" \
    "machine and name .deps/device in the device call's carry" >&2
  exit 2
fi
export BOO_CUTLASS_DIR="$PWD/.deps/device/cutlass"
