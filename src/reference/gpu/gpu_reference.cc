// The C++ API of the GPU reference helpers over the kernels in gpu_kernels.cu.
#include "boo/reference/gpu_reference.h"

#include <cmath>

#include "boo/runtime/cuda.h"
#include "gpu_kernels.h"

namespace boo::reference::gpu {
namespace {

core::Status check(int rc, const char* what) {
  if (rc == -1) {
    return core::unsupported(std::string(what) + ": unsupported type combination or size");
  }
  return runtime::cuda_status(rc, what);
}

detail::RefGemm describe(const ops::GemmProblem& p) {
  detail::RefGemm g{};
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.batch = p.batch;
  g.lda = p.lda;
  g.ldb = p.ldb;
  g.ldc = p.ldc;
  g.ldd = p.ldd;
  g.stride_a = p.stride_a;
  g.stride_b = p.stride_b;
  g.stride_c = p.stride_c;
  g.stride_d = p.stride_d;
  g.alpha = p.alpha;
  g.beta = p.beta;
  g.trans_a = p.trans_a == ops::Transpose::kT;
  g.trans_b = p.trans_b == ops::Transpose::kT;
  g.a_type = static_cast<int>(p.a_type);
  g.b_type = static_cast<int>(p.b_type);
  g.c_type = static_cast<int>(p.c_type);
  g.d_type = static_cast<int>(p.d_type);
  g.bias_type = static_cast<int>(p.bias ? p.bias_type : core::DType::kF32);
  g.activation = static_cast<int>(p.activation);
  g.scale = 1.0f;
  return g;
}

}  // namespace

core::Status fill_uniform(void* ptr, core::DType dtype, int64_t count, uint64_t seed, void* stream,
                          double lo, double hi) {
  return check(detail::fill_uniform(ptr, static_cast<int>(dtype), count, seed,
                                    static_cast<float>(lo), static_cast<float>(hi), stream),
               "fill_uniform kernel");
}

core::Status gemm_reference(const ops::GemmProblem& p, const GemmRefPointers& in, float* out,
                            void* stream) {
  detail::RefGemm g = describe(p);
  g.a = in.a;
  g.b = in.b;
  g.c = in.c;
  g.bias = in.bias;
  g.alpha_vector = in.alpha_vector;
  g.scale = in.scale;
  return check(detail::gemm_reference(g, out, stream), "GPU reference GEMM");
}

core::Expected<ErrorStats> compare_gemm_output(const ops::GemmProblem& p, const void* d,
                                               const float* ref, void* stream) {
  detail::ErrOut out{};
  BOO_RETURN_IF_ERROR(
      check(detail::compare_output(describe(p), d, ref, &out, stream), "GPU output comparison"));
  ErrorStats e;
  e.count = p.m * p.n * p.batch;
  e.nonfinite = static_cast<int64_t>(out.nonfinite);
  e.max_abs = out.max_abs;
  e.rel_fro = out.ref2 > 0 ? std::sqrt(out.diff2 / out.ref2) : std::sqrt(out.diff2);
  if (e.nonfinite > 0) e.rel_fro = INFINITY;
  return e;
}

core::Status bias_activation(const ops::GemmProblem& p, void* d, const void* bias,
                             ops::Activation act, void* stream) {
  detail::RefGemm g = describe(p);
  g.activation = static_cast<int>(act);
  return check(detail::bias_activation(g, d, bias, stream), "bias/activation kernel");
}

core::Status read_sweep(const void* buf, int64_t bytes, void* sink, void* stream) {
  return check(detail::read_sweep(buf, bytes, sink, stream), "read sweep kernel");
}

core::Status launch_empty(void* stream) {
  return check(detail::launch_empty(stream), "empty kernel");
}

}  // namespace boo::reference::gpu
