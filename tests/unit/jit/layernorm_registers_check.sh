#!/usr/bin/env bash
# Register counts of the layer norm kernels that dispatch picks for the public problems, through
# the real nvcc with the JIT's flags (CTest layernorm_registers_check, no GPU). A kernel that
# needs more registers than the limit below fits fewer blocks per SM than it was measured with
# and slows down by far more than its code change suggests: moving the backward's row bounds into
# a struct once took v4_t256_r2_i4 from 64 to 82 registers, one block per SM instead of two,
# and dx alone from 68.7 to 87.7 us on an H100 (bench/results/2026-11-23-layernorm-bwd-h100.md).
# Each limit is the count of the code a benchmark last measured: contiguous rows per block
# (2409885) took fp16 v8_t64_r8_i2 from 64 to 80 registers, and the sweep after it
# (bench/results/2026-11-25-layernorm-bwd-balance-h100.md: 38.6 us, the best fp16 config; not
# dispatch's pick) ran it with one block per SM. Configs that hold their rows in registers
# (BackwardShape::kHolds: five values per column a thread owns plus 24 within the block's share)
# must not spill: the last three checks are the tightest such configs at each share (64, 128
# and 255 registers a thread); a spilling held config ran at half speed (bf16 v4_t256_r4_i4
# held: 348 bytes of spills, 86.6 -> 150 us, bench/results/2026-11-26-layernorm-bwd-hold-h100.md).
# Every check also fails on spills.
# Usage: layernorm_registers_check.sh BOO_BINARY NVCC
set -uo pipefail
boo=$1
nvcc=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# config, kernel (a pattern of its mangled name), most registers, the occupancy that needs it
checks=(
  "layernorm.rowwise_bf16_bwd_v4_t256_r4_i4 backward_pipe_kernel 64 one 1024-thread block per SM"
  "layernorm.rowwise_bf16_bwd_v4_t256_r2_i4 backward_regs_kernel 64 two 512-thread blocks per SM"
  "layernorm.rowwise_bf16_bwd_v4_t256_r2_i4 backward_pipe_kernel 128 one 512-thread block per SM, holding its rows"
  "layernorm.rowwise_fp16_bwd_v8_t128_r8_i1 backward_pipe_kernel 64 one 1024-thread block per SM, holding its rows"
  "layernorm.rowwise_fp16_bwd_v8_t64_r8_i2 backward_pipe_kernel 128 one 512-thread block per SM, holding its rows"
  "layernorm.rowwise_bf16_fwd_v8_t256_r1_i2 forward_kernel 40 six 256-thread blocks per SM"
  "layernorm.rowwise_bf16_bwd_v1_t1024_r1_i8 backward_pipe_kernel 64 the launch bound, holding its rows"
  "layernorm.rowwise_fp16_bwd_v4_t128_r4_i5 backward_pipe_kernel 128 the launch bound, holding its rows"
  "layernorm.rowwise_fp32_bwd_v4_t8_r8_i11 backward_pipe_kernel 255 the launch bound, holding its rows"
)
status=0
for check in "${checks[@]}"; do
  read -r config kernel limit why <<<"$check"
  if ! "$boo" codegen -o "$work/src" "$config" >"$work/codegen.log" 2>&1; then
    echo "FAIL $config: boo codegen failed"; cat "$work/codegen.log"; status=1; continue
  fi
  src="$work/src/$config.cu"
  # The JIT's flags (src/jit/compiler.cc), compiled to an object only.
  if ! "$nvcc" -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr \
      -gencode=arch=compute_90a,code=sm_90a -c --resource-usage "$src" -o "$work/k.o" \
      >"$work/ptxas.log" 2>&1; then
    echo "FAIL $config: nvcc failed"; tail -20 "$work/ptxas.log"; status=1; continue
  fi
  lines=$(grep -A3 "Compiling entry function '[^']*$kernel" "$work/ptxas.log")
  used=$(grep -oE 'Used [0-9]+ registers' <<<"$lines" | head -1 | grep -oE '[0-9]+')
  spills=$(grep -oE '[0-9]+ bytes spill stores' <<<"$lines" | head -1 | grep -oE '^[0-9]+')
  if [ -z "$used" ] || [ -z "$spills" ]; then
    echo "FAIL $config: no ptxas line for $kernel"; cat "$work/ptxas.log"; status=1
  elif [ "$spills" -gt 0 ]; then
    echo "FAIL $config $kernel: $spills bytes of spill stores ($used registers)"; status=1
  elif [ "$used" -gt "$limit" ]; then
    echo "FAIL $config $kernel: $used registers, more than $limit ($why)"; status=1
  else
    echo "ok   $config $kernel: $used registers (at most $limit: $why)"
  fi
done
exit $status
