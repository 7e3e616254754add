// Host tensors for references and checks: values held as double, addressed through a
// TensorDesc's strides. Inputs are generated already rounded to their dtype, so the fp64
// reference sees exactly the values a GPU kernel sees.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "boo/core/tensor.h"

namespace boo::reference {

struct HostTensor {
  core::TensorDesc desc;
  std::vector<double> data;  // desc.span_elements() values

  double& at(std::span<const int64_t> index) { return data[desc.offset(index)]; }
  double at(std::span<const int64_t> index) const { return data[desc.offset(index)]; }
};

// A zero-filled tensor for `desc`.
HostTensor make_host_tensor(const core::TensorDesc& desc);
// A packed 1-D tensor of `n` elements.
HostTensor make_vector(core::DType dtype, int64_t n);
// Uniform values in [lo, hi), rounded to the dtype; deterministic for a seed.
void fill_uniform(HostTensor& t, uint64_t seed, double lo = -1.0, double hi = 1.0);
// Rounds every value to the tensor's dtype (what storing a result in that dtype does).
void round_to_dtype(HostTensor& t);

// A small, fast, seedable generator (splitmix64) so references need no global RNG state.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  double uniform(double lo, double hi);  // [lo, hi)

 private:
  uint64_t state_;
};

}  // namespace boo::reference
