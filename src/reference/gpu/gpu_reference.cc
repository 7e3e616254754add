// The C++ API of the GPU reference helpers over the kernels in gpu_kernels.cu and
// conv_ref_kernels.cu.
#include "boo/reference/gpu_reference.h"

#include <cmath>
#include <vector>

#include "boo/runtime/cuda.h"
#include "conv_ref_kernels.h"
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

// Built from the problem's own descriptors rather than dispatch::make_conv_args, so that the
// reference reads the tensors as their descriptors say, not as the kernels' arguments do.
detail::RefConv describe_conv(const ops::ConvProblem& p, const dispatch::ConvPointers& in) {
  detail::RefConv c{};
  c.direction = static_cast<int>(p.direction);
  c.type = static_cast<int>(p.dtype);
  c.n = p.n;
  c.c = p.c;
  c.k = p.k;
  c.groups = p.groups;
  dispatch::conv_spatial3(p.input, 1, c.in);
  dispatch::conv_spatial3(p.filter, 1, c.fil);
  dispatch::conv_spatial3(p.output(), 1, c.out);
  dispatch::conv_spatial3(p.stride, 1, c.stride);
  dispatch::conv_spatial3(p.padding, 0, c.pad);
  dispatch::conv_spatial3(p.dilation, 1, c.dil);
  dispatch::conv_strides5(p.x_desc(), c.x_stride);
  dispatch::conv_strides5(p.w_desc(), c.w_stride);
  dispatch::conv_strides5(p.y_desc(), c.y_stride);
  c.x = in.x;
  c.w = in.w;
  c.y = in.y;
  c.bias = p.bias ? in.bias : nullptr;
  return c;
}

core::TensorDesc conv_output_desc(const ops::ConvProblem& p) {
  switch (p.direction) {
    case ops::ConvDirection::kBackwardData:
      return p.x_desc();
    case ops::ConvDirection::kBackwardWeight:
      return p.w_desc();
    case ops::ConvDirection::kForward:
      break;
  }
  return p.y_desc();
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

core::Status conv_bias_activation(const ops::ConvProblem& p, void* y, const void* bias,
                                  void* stream) {
  if (p.direction != ops::ConvDirection::kForward) {
    return core::invalid_argument("conv bias/activation: only the forward output has a bias");
  }
  const core::TensorDesc t = p.y_desc();
  if (t.span_elements() != t.element_count()) {
    return core::unsupported("conv bias/activation: the output tensor is not packed");
  }
  detail::RefConvEpilogue e{};
  e.count = t.element_count();
  e.channel_stride = t.strides[1];
  e.channels = p.k;
  e.type = static_cast<int>(p.dtype);
  e.activation = static_cast<int>(p.activation);
  return check(detail::conv_bias_activation(e, y, bias, stream), "conv bias/activation kernel");
}

core::Status conv_reference(const ops::ConvProblem& p, const dispatch::ConvPointers& in, float* out,
                            void* stream) {
  BOO_RETURN_IF_ERROR(p.validate());
  const bool forward = p.direction == ops::ConvDirection::kForward;
  const bool data = p.direction == ops::ConvDirection::kBackwardData;
  // The inputs of each direction: x and w forward, dy and w backward data, x and dy backward
  // weight.
  if ((!data && in.x == nullptr) ||
      (p.direction != ops::ConvDirection::kBackwardWeight && in.w == nullptr) ||
      (!forward && in.y == nullptr) || (p.bias && in.bias == nullptr) || out == nullptr) {
    return core::internal_error("GPU reference convolution: an input or output pointer is null");
  }
  BOO_RETURN_IF_ERROR(check(detail::conv_reference(describe_conv(p, in), out, stream),
                            "GPU reference convolution"));
  if (forward && p.activation != ops::Activation::kNone) {
    // The activation runs as a second pass over the packed fp32 output, seen as one fp32
    // column: the `activate` of gpu_kernels.cu is the only device definition of the reference
    // activations.
    detail::RefGemm g{};
    g.m = conv_output_desc(p).element_count();
    g.n = 1;
    g.batch = 1;
    g.ldd = g.m;
    g.d_type = static_cast<int>(core::DType::kF32);
    g.bias_type = static_cast<int>(core::DType::kF32);
    g.activation = static_cast<int>(p.activation);
    BOO_RETURN_IF_ERROR(check(detail::bias_activation(g, out, nullptr, stream),
                              "GPU reference convolution activation"));
  }
  return core::Status::ok();
}

core::Expected<ErrorStats> compare_conv_output(const ops::ConvProblem& p, const void* out,
                                               const float* ref, void* stream) {
  BOO_RETURN_IF_ERROR(p.validate());
  detail::ErrOut err{};
  BOO_RETURN_IF_ERROR(
      check(detail::compare_conv_output(describe_conv(p, {}), out, ref, &err, stream),
            "GPU convolution output comparison"));
  ErrorStats e;
  e.count = conv_output_desc(p).element_count();
  e.nonfinite = static_cast<int64_t>(err.nonfinite);
  e.max_abs = err.max_abs;
  e.rel_fro = err.ref2 > 0 ? std::sqrt(err.diff2 / err.ref2) : std::sqrt(err.diff2);
  if (e.nonfinite > 0) e.rel_fro = INFINITY;
  return e;
}

core::Status read_sweep(const void* buf, int64_t bytes, void* sink, void* stream) {
  return check(detail::read_sweep(buf, bytes, sink, stream), "read sweep kernel");
}

core::Status launch_hold(double us, void* stream) {
  return check(detail::launch_hold(us, stream), "hold kernel");
}

core::Status ramp_clocks(const void* buf, int64_t bytes, void* sink, void* stream) {
  for (int i = 0; i < kClockRampSweeps && bytes > 0; ++i) {
    BOO_RETURN_IF_ERROR(read_sweep(buf, bytes, sink, stream));
  }
  return core::Status::ok();
}

core::Status before_cold_sample(double hold_us, const void* buf, int64_t bytes, void* sink,
                                void* stream) {
  BOO_RETURN_IF_ERROR(launch_hold(hold_us, stream));
  return bytes > 0 ? read_sweep(buf, bytes, sink, stream) : core::Status::ok();
}

core::Status launch_empty(void* stream) {
  return check(detail::launch_empty(stream), "empty kernel");
}

}  // namespace boo::reference::gpu
