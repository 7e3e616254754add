#include "boo/reference/host_tensor.h"

namespace boo::reference {

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double Rng::uniform(double lo, double hi) {
  // 53 random bits -> [0, 1).
  const double u = static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
  return lo + (hi - lo) * u;
}

HostTensor make_host_tensor(const core::TensorDesc& desc) {
  HostTensor t;
  t.desc = desc;
  t.data.assign(static_cast<size_t>(desc.span_elements()), 0.0);
  return t;
}

HostTensor make_vector(core::DType dtype, int64_t n) {
  core::TensorDesc d;
  d.dtype = dtype;
  d.dims = {n};
  d.strides = {1};
  return make_host_tensor(d);
}

void fill_uniform(HostTensor& t, uint64_t seed, double lo, double hi) {
  Rng rng(seed);
  for (double& v : t.data) v = core::round_to(t.desc.dtype, rng.uniform(lo, hi));
}

void round_to_dtype(HostTensor& t) {
  for (double& v : t.data) v = core::round_to(t.desc.dtype, v);
}

}  // namespace boo::reference
