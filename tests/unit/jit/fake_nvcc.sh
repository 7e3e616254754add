#!/usr/bin/env bash
# A stand-in for nvcc in unit tests (no GPU, no CUDA compile): takes nvcc's command line
# (`... -o OUT SOURCE`), records the call, and builds with the host compiler a stand-in shared
# object whose C entry points answer with the kernel name found in SOURCE.
#   BOO_FAKE_NVCC_LOG    file to which each call appends one line (counts compiles)
#   BOO_FAKE_NVCC_SLEEP  seconds to sleep first (to make races wide)
#   BOO_FAKE_NVCC_FAIL   fail when SOURCE contains this text (also: the text FAIL_COMPILE)
#   BOO_FAKE_NVCC_SPILL  print ptxas's spill warning (as -warn-spills does) when SOURCE contains
#                        this text (also: the text SPILL_REGISTERS)
#   BOO_FAKE_NVCC_MMA_WAIT print ptxas's note of a warpgroup.wait it injected when SOURCE contains
#                        this text (also: the text MMA_WAIT)
set -u
out=""
src=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    --version) echo "Cuda compilation tools, release 99.9, V99.9.1 (fake)"; exit 0 ;;
    *) src="$1"; shift ;;
  esac
done
[ -n "${BOO_FAKE_NVCC_LOG:-}" ] && echo "$$ $src" >>"$BOO_FAKE_NVCC_LOG"
[ -n "${BOO_FAKE_NVCC_SLEEP:-}" ] && sleep "$BOO_FAKE_NVCC_SLEEP"
if grep -q "FAIL_COMPILE" "$src" || { [ -n "${BOO_FAKE_NVCC_FAIL:-}" ] && grep -qF -- "$BOO_FAKE_NVCC_FAIL" "$src"; }; then
  echo "$src(1): error: planted compile failure"
  exit 1
fi
if grep -q "SPILL_REGISTERS" "$src" || { [ -n "${BOO_FAKE_NVCC_SPILL:-}" ] && grep -qF -- "$BOO_FAKE_NVCC_SPILL" "$src"; }; then
  echo "ptxas warning : Registers are spilled to local memory in function '_Z6kernelv', 824 bytes spill stores, 600 bytes spill loads"
fi
if grep -q "MMA_WAIT" "$src" || { [ -n "${BOO_FAKE_NVCC_MMA_WAIT:-}" ] && grep -qF -- "$BOO_FAKE_NVCC_MMA_WAIT" "$src"; }; then
  echo "ptxas info    : (C7517) warpgroup.wait is injected in around line 1652 by compiler to allow use of registers defined by GMMA in function '_Z6kernelv'"
fi
name=$(sed -n 's/.*ENTRY_POINTS([^,]*, *"\([^"]*\)").*/\1/p' "$src" | head -n 1)
[ -z "$name" ] && name=$(sed -n 's|^// name: ||p' "$src" | head -n 1)
# The ABI version and kind the real object would report: abi.h is inlined into every source.
# (Test sources without it get the version of the repository's abi.h.)
abi_of() { sed -n 's/^#define BOO_ABI_VERSION \([0-9]*\).*/\1/p' "$1" | head -n 1; }
abi=$(abi_of "$src")
[ -z "$abi" ] && abi=$(abi_of "$(dirname "$0")/../../../include/boo/codegen/abi.h")
kind=1
grep -q "^BOO_CONV_ENTRY_POINTS(" "$src" && kind=2
grep -q "^BOO_LAYERNORM_ENTRY_POINTS(" "$src" && kind=3
fake_src=$(mktemp --suffix=.cc)
cat >"$fake_src" <<FAKE
#include <stdint.h>
struct Info { int32_t abi; int32_t kind; const char* name; };
extern "C" int32_t boo_info(Info* i) { i->abi = ${abi:-0}; i->kind = $kind; i->name = "$name"; return 0; }
extern "C" int32_t boo_supports(const void*, char*, int32_t) { return 0; }
extern "C" int64_t boo_workspace(const void*) { return 0; }
extern "C" int32_t boo_run(const void*, void*, int64_t, void*, char*, int32_t) { return 0; }
FAKE
c++ -shared -fPIC -o "$out" "$fake_src"
rc=$?
rm -f "$fake_src"
exit $rc
