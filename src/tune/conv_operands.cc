#include "boo/tune/conv_operands.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "boo/reference/conv_ref.h"
#include "boo/reference/gpu_reference.h"

namespace boo::tune {
namespace {

using core::DType;
using ops::ConvDirection;

core::Expected<runtime::DeviceBuffer> random_buffer(DType t, int64_t elements, uint64_t seed,
                                                    void* stream) {
  BOO_ASSIGN_OR_RETURN(auto buf, runtime::DeviceBuffer::allocate(elements * core::dtype_bytes(t)));
  BOO_RETURN_IF_ERROR(reference::gpu::fill_uniform(buf.data(), t, elements, seed, stream));
  return buf;
}

// The device tensor at `src` into a host tensor of `desc` (its span_elements() values, decoded
// from the dtype: exactly the values the GPU sees).
core::Expected<reference::HostTensor> download(const void* src, const core::TensorDesc& desc) {
  reference::HostTensor h = reference::make_host_tensor(desc);
  const int bytes = core::dtype_bytes(desc.dtype);
  const int64_t elements = static_cast<int64_t>(h.data.size());
  std::vector<uint8_t> raw(static_cast<size_t>(elements * bytes));
  BOO_RETURN_IF_ERROR(runtime::cuda_status(
      cudaMemcpy(raw.data(), src, raw.size(), cudaMemcpyDeviceToHost), "cudaMemcpy"));
  for (int64_t i = 0; i < elements; ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, raw.data() + i * bytes, static_cast<size_t>(bytes));
    h.data[static_cast<size_t>(i)] = core::decode_bits(desc.dtype, bits);
  }
  return h;
}

// The K bias values as a descriptor of a packed vector.
core::TensorDesc bias_desc(const ops::ConvProblem& p) {
  return reference::make_vector(p.dtype, p.k).desc;
}

}  // namespace

core::TensorDesc conv_output_desc(const ops::ConvProblem& p) {
  switch (p.direction) {
    case ConvDirection::kBackwardData:
      return p.x_desc();
    case ConvDirection::kBackwardWeight:
      return p.w_desc();
    case ConvDirection::kForward:
      break;
  }
  return p.y_desc();
}

std::vector<double> logical_values(const reference::HostTensor& t) {
  const std::vector<int64_t>& dims = t.desc.dims;
  const std::vector<int64_t>& strides = t.desc.strides;
  const int64_t count = t.desc.element_count();
  std::vector<double> out;
  if (count <= 0 || strides.size() != dims.size() ||
      static_cast<int64_t>(t.data.size()) < t.desc.span_elements()) {
    return out;
  }
  out.reserve(static_cast<size_t>(count));
  // An odometer over the logical index, moving the offset by one stride per step.
  std::vector<int64_t> index(dims.size(), 0);
  int64_t offset = 0;
  for (int64_t e = 0; e < count; ++e) {
    out.push_back(t.data[static_cast<size_t>(offset)]);
    for (size_t a = dims.size(); a-- > 0;) {
      if (++index[a] < dims[a]) {
        offset += strides[a];
        break;
      }
      offset -= (dims[a] - 1) * strides[a];
      index[a] = 0;
    }
  }
  return out;
}

core::Expected<ConvOperands> ConvOperands::create(const ops::ConvProblem& p, uint64_t seed,
                                                  void* stream) {
  BOO_RETURN_IF_ERROR(p.validate());
  ConvOperands o;
  o.problem_ = p;
  // Per-operand seeds as GemmOperands makes them; the output tensor gets no buffer here.
  if (p.direction != ConvDirection::kBackwardData) {
    BOO_ASSIGN_OR_RETURN(o.x_,
                         random_buffer(p.dtype, p.x_desc().span_elements(), seed * 16 + 1, stream));
  }
  if (p.direction != ConvDirection::kBackwardWeight) {
    BOO_ASSIGN_OR_RETURN(o.w_,
                         random_buffer(p.dtype, p.w_desc().span_elements(), seed * 16 + 2, stream));
  }
  if (p.direction != ConvDirection::kForward) {
    BOO_ASSIGN_OR_RETURN(o.y_,
                         random_buffer(p.dtype, p.y_desc().span_elements(), seed * 16 + 3, stream));
  }
  if (p.bias) {
    BOO_ASSIGN_OR_RETURN(o.bias_, random_buffer(p.dtype, p.k, seed * 16 + 4, stream));
  }
  return o;
}

dispatch::ConvPointers ConvOperands::pointers(void* out) const {
  dispatch::ConvPointers ptrs;
  ptrs.x = problem_.direction == ConvDirection::kBackwardData ? out : x_.data();
  ptrs.w = problem_.direction == ConvDirection::kBackwardWeight ? out : w_.data();
  ptrs.y = problem_.direction == ConvDirection::kForward ? out : y_.data();
  ptrs.bias = bias_.data();
  return ptrs;
}

core::Expected<runtime::DeviceBuffer> ConvOperands::make_output() const {
  const core::TensorDesc desc = conv_output_desc(problem_);
  return runtime::DeviceBuffer::allocate(desc.span_elements() * core::dtype_bytes(desc.dtype));
}

core::Expected<std::vector<double>> download_conv_output(const ops::ConvProblem& p,
                                                         const void* out) {
  BOO_RETURN_IF_ERROR(p.validate());
  // The backends run on non-blocking streams, which a plain cudaMemcpy does not wait for.
  BOO_RETURN_IF_ERROR(runtime::cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize"));
  BOO_ASSIGN_OR_RETURN(reference::HostTensor h, download(out, conv_output_desc(p)));
  return logical_values(h);
}

double conv_tolerance(const ops::ConvProblem& p) {
  return dtype_tolerance(p.dtype, p.math == core::MathMode::kTF32);
}

core::Expected<ConvReference> ConvReference::compute(const ConvOperands& o, void* stream,
                                                     double cpu_max_flops) {
  const ops::ConvProblem& p = o.problem();
  ConvReference r;
  if (p.flops() <= cpu_max_flops) {
    r.name_ = "cpu fp64";
    BOO_RETURN_IF_ERROR(runtime::cuda_status(
        cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize"));
    // The reference writes through the output's strides: packed ones leave it in logical order.
    const core::TensorDesc out_desc = conv_output_desc(p);
    reference::HostTensor out = reference::make_host_tensor(
        {out_desc.dtype, out_desc.dims, core::packed_strides(out_desc.dims)});
    switch (p.direction) {
      case ConvDirection::kForward: {
        BOO_ASSIGN_OR_RETURN(auto x, download(o.x().data(), p.x_desc()));
        BOO_ASSIGN_OR_RETURN(auto w, download(o.w().data(), p.w_desc()));
        reference::HostTensor bias;
        if (p.bias) {
          BOO_ASSIGN_OR_RETURN(bias, download(o.bias().data(), bias_desc(p)));
        }
        BOO_RETURN_IF_ERROR(reference::conv_forward(p, x, w, p.bias ? &bias : nullptr, out));
        break;
      }
      case ConvDirection::kBackwardData: {
        BOO_ASSIGN_OR_RETURN(auto dy, download(o.y().data(), p.y_desc()));
        BOO_ASSIGN_OR_RETURN(auto w, download(o.w().data(), p.w_desc()));
        BOO_RETURN_IF_ERROR(reference::conv_backward_data(p, dy, w, out));
        break;
      }
      case ConvDirection::kBackwardWeight: {
        BOO_ASSIGN_OR_RETURN(auto x, download(o.x().data(), p.x_desc()));
        BOO_ASSIGN_OR_RETURN(auto dy, download(o.y().data(), p.y_desc()));
        BOO_RETURN_IF_ERROR(reference::conv_backward_weight(p, x, dy, out));
        break;
      }
    }
    r.host_ = std::move(out.data);
    return r;
  }
  r.name_ = "gpu fp64-acc";
  BOO_ASSIGN_OR_RETURN(r.device_,
                       runtime::DeviceBuffer::allocate(conv_output_desc(p).element_count() *
                                                       int64_t{sizeof(float)}));
  BOO_RETURN_IF_ERROR(reference::gpu::conv_reference(
      p, o.pointers(nullptr), static_cast<float*>(r.device_.data()), stream));
  return r;
}

core::Expected<reference::ErrorStats> ConvReference::compare(const ConvOperands& o, const void* out,
                                                             void* stream) const {
  const ops::ConvProblem& p = o.problem();
  if (!host_.empty()) {
    BOO_RETURN_IF_ERROR(runtime::cuda_status(
        cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize"));
    BOO_ASSIGN_OR_RETURN(std::vector<double> got, download_conv_output(p, out));
    return reference::compare(got, host_);
  }
  return reference::gpu::compare_conv_output(p, out, static_cast<const float*>(device_.data()),
                                             stream);
}

ConvNumerics judge_conv(const ops::ConvProblem& p, const reference::ErrorStats& boo,
                        const std::optional<reference::ErrorStats>& vendor,
                        const std::string& reference_name) {
  return judge_numerics(conv_tolerance(p), boo, vendor, reference_name);
}

}  // namespace boo::tune
