// The operands of one problem as host tensors: random inputs (uniform in [-1, 1], rounded to
// their dtype, fresh per seed) and the outputs the CPU reference computes from them. The driver's
// reference backend and every numerics check start here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "boo/core/status.h"
#include "boo/ops/problem.h"
#include "boo/reference/host_tensor.h"

namespace boo::reference {

struct NamedTensor {
  std::string name;  // "x", "w", "bias", "dy", "A", "B", "C", "mean", ...
  HostTensor tensor;
};

struct ProblemData {
  std::vector<NamedTensor> inputs;
  std::vector<NamedTensor> outputs;  // packed: GEMM's D as [batch, N, M] (M fastest)
  double scale_a = 1.0;              // GEMM per-tensor scales (fp8), 1 when absent
  double scale_b = 1.0;

  const HostTensor* input(std::string_view name) const;
  const HostTensor* output(std::string_view name) const;
};

// Host memory make_inputs + run_reference need, in bytes (8 bytes per element, all operands).
int64_t reference_bytes(const ops::Problem& p);
// Random inputs for `p`; outputs are allocated (zero) but not computed.
core::Expected<ProblemData> make_inputs(const ops::Problem& p, uint64_t seed);
// Computes `data.outputs` from `data.inputs` with the fp64 CPU reference.
core::Status run_reference(const ops::Problem& p, ProblemData& data);

}  // namespace boo::reference
