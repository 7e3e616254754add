# Sourced by the device scripts (scripts/device-run.sh, bench/device_steps.sh) on the GPU machine:
# the kernels that earlier device calls compiled travel back and forth as one xz tarball, so a
# fresh machine loads them instead of compiling them again (a CUTLASS kernel takes 40-70 s to
# compile there; its object packs to about 40 KB).
#   kcache_unpack     unpacks the carried .deps/device-kcache/kcache.tar.xz (or .tgz) into
#                     $BOO_CACHE_DIR (once per call: it exports BOO_KCACHE_UNPACKED)
#   kcache_pack DIR   packs the cache's kernels, newest first, into DIR/kcache.tar.xz (kcache.tgz
#                     where the machine has no xz), at most
#                     $BOO_KCACHE_MIB MiB (default 12: the repository and .deps/device leave
#                     about 16 MiB of the 64 MiB a call carries)
# On the development machine, after a call: scripts/device-kcache-keep.sh FILES_AT, then carry
# .deps/device-kcache beside .deps/device. A cache entry the machine cannot load is rebuilt
# (jit::KernelCache::get), so a stale tarball costs compile time, never a wrong kernel.
kcache_unpack() {
  [ -n "${BOO_KCACHE_UNPACKED:-}" ] && return 0
  export BOO_KCACHE_UNPACKED=1
  local KCACHE_CARRIED
  KCACHE_CARRIED=$(ls .deps/device-kcache/kcache.tar.xz .deps/device-kcache/kcache.tgz 2>/dev/null |
    head -1 || true)
  [ -n "$KCACHE_CARRIED" ] || return 0
  mkdir -p "$BOO_CACHE_DIR"
  if tar xf "$KCACHE_CARRIED" -C "$BOO_CACHE_DIR"; then
    echo "== kernel cache: $(find "$BOO_CACHE_DIR" -name '*.so' | wc -l) kernels in" \
      "$BOO_CACHE_DIR after unpacking $KCACHE_CARRIED"
  else
    echo "== kernel cache: $KCACHE_CARRIED did not unpack; kernels compile as needed"
  fi
}
kcache_pack() {  # kcache_pack DIR
  local out=$1/kcache.tar.xz list=/tmp/kcache-list.txt zip="xz -T0 -6"
  command -v xz >/dev/null || { out=$1/kcache.tgz && zip="gzip -6"; }
  local max=$((${BOO_KCACHE_MIB:-12} * 1024 * 1024))
  local raw=$((max * 6))  # kernel objects pack about 7:1
  rm -f "$out" "$out.tmp"
  [ -d "$BOO_CACHE_DIR" ] || return 0
  while [ "$raw" -ge $((256 * 1024)) ]; do
    # Each kernel's object, metadata and compile log (ptxas's spill and wait reports), newest
    # objects first, until their bytes pass the budget.
    (cd "$BOO_CACHE_DIR" && find . -name '*.so' -printf '%T@ %s %p\n' | sort -rn |
      awk -v raw="$raw" '{ s += $2; if (s > raw) exit; stem = substr($3, 1, length($3) - 3);
                           print stem ".so"; print stem ".json"; print stem ".log" }') >"$list"
    [ -s "$list" ] || break
    (cd "$BOO_CACHE_DIR" && tar cf - --ignore-failed-read -T "$list" 2>/dev/null) | $zip >"$out.tmp"
    if [ "$(stat -c %s "$out.tmp")" -le "$max" ]; then
      mv "$out.tmp" "$out"
      echo "== kernel cache: $(grep -c '\.so$' "$list") kernels packed into $out" \
        "($(($(stat -c %s "$out") / 1024)) KiB)"
      return 0
    fi
    raw=$((raw / 2))
  done
  rm -f "$out.tmp"
  echo "== kernel cache: nothing packed (no kernels, or none fit ${BOO_KCACHE_MIB:-12} MiB)"
}
