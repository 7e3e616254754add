#include "boo/tune/gemm_operands.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "boo/reference/gemm_ref.h"
#include "boo/reference/gpu_reference.h"

namespace boo::tune {
namespace {

using core::DType;

int64_t span(const ops::GemmProblem& p, char operand) {
  return reference::gemm_operand_elements(p, operand);
}

core::Expected<runtime::DeviceBuffer> random_buffer(DType t, int64_t elements, uint64_t seed,
                                                    void* stream) {
  BOO_ASSIGN_OR_RETURN(auto buf, runtime::DeviceBuffer::allocate(elements * core::dtype_bytes(t)));
  BOO_RETURN_IF_ERROR(reference::gpu::fill_uniform(buf.data(), t, elements, seed, stream));
  return buf;
}

// Downloads a device buffer of `t` into doubles (the exact values the GPU sees).
core::Expected<reference::HostTensor> download(const runtime::DeviceBuffer& buf, DType t,
                                               int64_t elements) {
  std::vector<uint8_t> raw(static_cast<size_t>(elements * core::dtype_bytes(t)));
  BOO_RETURN_IF_ERROR(buf.download(raw.data(), static_cast<int64_t>(raw.size())));
  reference::HostTensor h = reference::make_vector(t, elements);
  const int bytes = core::dtype_bytes(t);
  for (int64_t i = 0; i < elements; ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, raw.data() + i * bytes, static_cast<size_t>(bytes));
    h.data[static_cast<size_t>(i)] = core::decode_bits(t, bits);
  }
  return h;
}

}  // namespace

core::Expected<GemmOperands> GemmOperands::create(const ops::GemmProblem& p, uint64_t seed,
                                                  void* stream) {
  BOO_RETURN_IF_ERROR(p.validate());
  GemmOperands o;
  o.problem_ = p;
  BOO_ASSIGN_OR_RETURN(o.a_, random_buffer(p.a_type, span(p, 'A'), seed * 16 + 1, stream));
  BOO_ASSIGN_OR_RETURN(o.b_, random_buffer(p.b_type, span(p, 'B'), seed * 16 + 2, stream));
  if (p.reads_c()) {
    BOO_ASSIGN_OR_RETURN(o.c_, random_buffer(p.c_type, span(p, 'C'), seed * 16 + 3, stream));
  }
  if (p.bias) {
    BOO_ASSIGN_OR_RETURN(o.bias_, random_buffer(p.bias_type, p.m, seed * 16 + 4, stream));
  }
  if (p.alpha_vector) {
    BOO_ASSIGN_OR_RETURN(o.alpha_vector_, random_buffer(DType::kF32, p.m, seed * 16 + 5, stream));
  }
  if (p.scale_a != ops::ScaleMode::kNone || p.scale_b != ops::ScaleMode::kNone) {
    // Per-tensor scales around 1, as fp8 recipes use them; boo and the vendor read one product.
    const float sa = p.scale_a != ops::ScaleMode::kNone ? 1.25f : 1.0f;
    const float sb = p.scale_b != ops::ScaleMode::kNone ? 0.75f : 1.0f;
    o.scale_ = sa * sb;
    BOO_ASSIGN_OR_RETURN(o.alpha_scale_, runtime::DeviceBuffer::allocate(sizeof(float)));
    BOO_RETURN_IF_ERROR(o.alpha_scale_.upload(&o.scale_, sizeof(float)));
  }
  return o;
}

dispatch::GemmPointers GemmOperands::pointers(void* d) const {
  dispatch::GemmPointers ptrs;
  ptrs.a = a_.data();
  ptrs.b = b_.data();
  ptrs.c = c_.data();
  ptrs.d = d;
  ptrs.bias = bias_.data();
  ptrs.alpha_vector = static_cast<const float*>(alpha_vector_.data());
  ptrs.alpha_scale = static_cast<const float*>(alpha_scale_.data());
  return ptrs;
}

core::Expected<runtime::DeviceBuffer> GemmOperands::make_output() const {
  return runtime::DeviceBuffer::allocate(span(problem_, 'D') * core::dtype_bytes(problem_.d_type));
}

core::Expected<std::vector<double>> download_gemm_output(const ops::GemmProblem& p, const void* d) {
  const int bytes = core::dtype_bytes(p.d_type);
  std::vector<uint8_t> raw(static_cast<size_t>(span(p, 'D') * bytes));
  BOO_RETURN_IF_ERROR(runtime::cuda_status(
      cudaMemcpy(raw.data(), d, raw.size(), cudaMemcpyDeviceToHost), "cudaMemcpy"));
  std::vector<double> out;
  out.reserve(static_cast<size_t>(p.m * p.n * p.batch));
  for (int64_t bt = 0; bt < p.batch; ++bt)
    for (int64_t j = 0; j < p.n; ++j)
      for (int64_t i = 0; i < p.m; ++i) {
        uint32_t bits = 0;
        std::memcpy(&bits, raw.data() + (bt * p.stride_d + j * p.ldd + i) * bytes,
                    static_cast<size_t>(bytes));
        out.push_back(core::decode_bits(p.d_type, bits));
      }
  return out;
}

double gemm_tolerance(const ops::GemmProblem& p) {
  switch (p.d_type) {
    case DType::kBF16:
      return 1e-2;
    case DType::kF16:
      return 5e-3;
    default:
      break;
  }
  if (p.a_type == DType::kF32 && p.math == core::MathMode::kF32) return 1e-5;
  return 1e-3;
}

core::Expected<GemmReference> GemmReference::compute(const GemmOperands& o, void* stream,
                                                     double cpu_max_flops) {
  const ops::GemmProblem& p = o.problem();
  GemmReference r;
  if (p.flops() <= cpu_max_flops) {
    r.name_ = "cpu fp64";
    BOO_RETURN_IF_ERROR(runtime::Stream::create().status());  // make sure CUDA works first
    BOO_RETURN_IF_ERROR(runtime::cuda_status(
        cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize"));
    BOO_ASSIGN_OR_RETURN(auto a, download(o.a(), p.a_type, span(p, 'A')));
    BOO_ASSIGN_OR_RETURN(auto b, download(o.b(), p.b_type, span(p, 'B')));
    reference::HostTensor c, bias, av;
    reference::GemmOperands in;
    in.a = &a;
    in.b = &b;
    if (p.reads_c()) {
      BOO_ASSIGN_OR_RETURN(c, download(o.c(), p.c_type, span(p, 'C')));
      in.c = &c;
    }
    if (p.bias) {
      BOO_ASSIGN_OR_RETURN(bias, download(o.bias(), p.bias_type, p.m));
      in.bias = &bias;
    }
    if (p.alpha_vector) {
      BOO_ASSIGN_OR_RETURN(av, download(o.alpha_vector(), DType::kF32, p.m));
      in.alpha_vector = &av;
    }
    in.scale_a = o.scale();
    reference::HostTensor d = reference::make_vector(p.d_type, span(p, 'D'));
    BOO_RETURN_IF_ERROR(reference::gemm(p, in, d));
    r.host_.resize(static_cast<size_t>(p.m * p.n * p.batch));
    for (int64_t bt = 0; bt < p.batch; ++bt)
      for (int64_t j = 0; j < p.n; ++j)
        for (int64_t i = 0; i < p.m; ++i)
          r.host_[static_cast<size_t>((bt * p.n + j) * p.m + i)] =
              d.data[static_cast<size_t>(bt * p.stride_d + j * p.ldd + i)];
    return r;
  }
  r.name_ = "gpu fp32-acc";
  BOO_ASSIGN_OR_RETURN(r.device_, runtime::DeviceBuffer::allocate(p.m * p.n * p.batch * 4));
  reference::gpu::GemmRefPointers in;
  in.a = o.a().data();
  in.b = o.b().data();
  in.c = o.c().data();
  in.bias = o.bias().data();
  in.alpha_vector = static_cast<const float*>(o.alpha_vector().data());
  in.scale = o.scale();
  BOO_RETURN_IF_ERROR(
      reference::gpu::gemm_reference(p, in, static_cast<float*>(r.device_.data()), stream));
  return r;
}

core::Expected<reference::ErrorStats> GemmReference::compare(const GemmOperands& o, const void* d,
                                                             void* stream) const {
  const ops::GemmProblem& p = o.problem();
  if (!host_.empty()) {
    BOO_RETURN_IF_ERROR(runtime::cuda_status(
        cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize"));
    BOO_ASSIGN_OR_RETURN(std::vector<double> got, download_gemm_output(p, d));
    return reference::compare(got, host_);
  }
  return reference::gpu::compare_gemm_output(p, d, static_cast<const float*>(device_.data()),
                                             stream);
}

GemmNumerics judge_gemm(const ops::GemmProblem& p, const reference::ErrorStats& boo,
                        const std::optional<reference::ErrorStats>& vendor,
                        const std::string& reference_name) {
  return judge_numerics(gemm_tolerance(p), boo, vendor, reference_name);
}

}  // namespace boo::tune
