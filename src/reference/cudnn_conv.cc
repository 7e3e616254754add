#include "boo/reference/cudnn_conv.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <utility>

#ifndef BOO_HAVE_CUDNN
#define BOO_HAVE_CUDNN 0
#endif

#if BOO_HAVE_CUDNN
// The legacy convolution API (cudnnFind*AlgorithmEx, cudnnConvolution*) is deprecated in cuDNN 9
// but kept through 9.x; its deprecation attributes are live only under CUDNN_WARN_DEPRECATED.
// Should a build define that, -Werror (CI) must not fail: silenced here, for this file only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "boo/reference/gpu_reference.h"
#include "boo/runtime/cuda.h"
#include "boo/runtime/device.h"
#endif

namespace boo::reference {
namespace {

// "12.3" (rounded to tenths): no snprintf, whose buffer GCC cannot prove large enough for any
// double (-Wformat-truncation under -Werror).
std::string one_decimal(double v) {
  const long long tenths = std::llround(std::clamp(v, 0.0, 1e15) * 10.0);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}

}  // namespace

namespace cudnn_detail {

core::Expected<NdTensor> nd_tensor(const core::TensorDesc& t) {
  if (t.dims.size() < 3 || t.dims.size() > 5 || t.strides.size() != t.dims.size()) {
    return core::internal_error(
        "cuDNN tensor: expected [N, C, spatial...] with 1 to 3 spatial dims");
  }
  std::vector<int64_t> dims = t.dims;
  std::vector<int64_t> strides = t.strides;
  if (dims.size() == 3) {
    // 1D: [N, C, W] -> [N, C, 1, W]. A packed NCW tensor gets H stride W, a packed NWC one W*C:
    // the strides a packed NCHW / NHWC tensor with H = 1 has, so cuDNN sees a layout it knows.
    dims.insert(dims.begin() + 2, 1);
    strides.insert(strides.begin() + 2, t.dims[2] * t.strides[2]);
  }
  NdTensor out;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] > INT_MAX || strides[i] > INT_MAX) {
      return core::unsupported(
          "cuDNN's legacy API takes 32-bit sizes and strides; this tensor has " +
          std::to_string(std::max(dims[i], strides[i])));
    }
    out.dims.push_back(static_cast<int>(dims[i]));
    out.strides.push_back(static_cast<int>(strides[i]));
  }
  return out;
}

core::Expected<ConvDescription> describe_conv(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  ConvDescription d;
  const bool one_d = p.spatial_dims == 1;
  d.nb_dims = one_d ? 4 : p.spatial_dims + 2;
  BOO_ASSIGN_OR_RETURN(d.x, nd_tensor(p.x_desc()));
  BOO_ASSIGN_OR_RETURN(d.y, nd_tensor(p.y_desc()));
  auto to_int = [](int64_t v, const char* what) -> core::Expected<int> {
    if (v > INT_MAX) {
      return core::unsupported(std::string("cuDNN's legacy API takes 32-bit ") + what + ", got " +
                               std::to_string(v));
    }
    return static_cast<int>(v);
  };
  // A 1D problem's lifted H: filter 1, padding 0, stride 1, dilation 1.
  auto lift = [&](const std::vector<int64_t>& v, int64_t h, const char* what,
                  std::vector<int>* out) -> core::Status {
    if (one_d) out->push_back(static_cast<int>(h));
    for (int64_t e : v) {
      BOO_ASSIGN_OR_RETURN(int i, to_int(e, what));
      out->push_back(i);
    }
    return core::Status::ok();
  };
  BOO_ASSIGN_OR_RETURN(int k, to_int(p.k, "channel counts"));
  BOO_ASSIGN_OR_RETURN(int cg, to_int(p.c / p.groups, "channel counts"));
  d.filter = {k, cg};
  BOO_RETURN_IF_ERROR(lift(p.filter, 1, "filter sizes", &d.filter));
  d.filter_format =
      p.fil_layout == core::Layout::kChannelsLast ? TensorFormat::kNhwc : TensorFormat::kNchw;
  BOO_RETURN_IF_ERROR(lift(p.padding, 0, "padding", &d.padding));
  BOO_RETURN_IF_ERROR(lift(p.stride, 1, "strides", &d.stride));
  BOO_RETURN_IF_ERROR(lift(p.dilation, 1, "dilations", &d.dilation));
  BOO_ASSIGN_OR_RETURN(d.groups, to_int(p.groups, "group counts"));
  d.bias.dims.assign(static_cast<size_t>(d.nb_dims), 1);
  d.bias.dims[1] = k;
  d.bias.strides.assign(static_cast<size_t>(d.nb_dims), 1);
  d.bias.strides[0] = k;
  return d;
}

std::string_view math_type_name(MathType m) {
  switch (m) {
    case MathType::kDefault:
      return "default";
    case MathType::kTensorOp:
      return "tensor-op";
    case MathType::kTensorOpAllowConversion:
      return "tensor-op-convert";
    case MathType::kFma:
      return "fma";
  }
  return "?";
}

MathType math_type(const ops::ConvProblem& p) {
  return p.dtype == core::DType::kF32 && p.math == core::MathMode::kF32 ? MathType::kFma
                                                                        : MathType::kTensorOp;
}

bool math_type_allowed(const ops::ConvProblem& p, MathType m) {
  if (m == MathType::kTensorOpAllowConversion) return false;
  if (p.dtype == core::DType::kF32 && p.math == core::MathMode::kF32) return m == MathType::kFma;
  return true;
}

std::optional<ActivationSpec> activation_spec(ops::Activation a) {
  switch (a) {
    case ops::Activation::kNone:
      return ActivationSpec{ActivationMode::kIdentity};
    case ops::Activation::kRelu:
      return ActivationSpec{ActivationMode::kRelu};
    case ops::Activation::kSilu:
      return ActivationSpec{ActivationMode::kSwish, 0.0, 1.0};
    case ops::Activation::kSigmoid:
      return ActivationSpec{ActivationMode::kSigmoid};
    case ops::Activation::kTanh:
      return ActivationSpec{ActivationMode::kTanh};
    case ops::Activation::kRelu6:
      return ActivationSpec{ActivationMode::kClippedRelu, 6.0};
    case ops::Activation::kGelu:
    case ops::Activation::kGeluTanh:
      break;
  }
  return std::nullopt;
}

std::string_view epilogue_name(Epilogue e) {
  switch (e) {
    case Epilogue::kNone:
      return "none";
    case Epilogue::kFused:
      return "fused";
    case Epilogue::kCudnnOps:
      return "cudnn-ops";
    case Epilogue::kKernel:
      return "kernel";
  }
  return "?";
}

std::vector<Epilogue> epilogue_candidates(const ops::ConvProblem& p) {
  const bool act = p.activation != ops::Activation::kNone;
  if (p.direction != ops::ConvDirection::kForward || (!p.bias && !act)) return {Epilogue::kNone};
  std::vector<Epilogue> out;
  // cudnnConvolutionBiasActivationForward always adds a bias and knows RELU and IDENTITY only.
  if (p.bias && (!act || p.activation == ops::Activation::kRelu)) out.push_back(Epilogue::kFused);
  if (activation_spec(p.activation)) out.push_back(Epilogue::kCudnnOps);
  out.push_back(Epilogue::kKernel);
  return out;
}

std::string algo_name(ops::ConvDirection d, int algo) {
  static constexpr const char* kForward[] = {
      "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
      "WINOGRAD",      "WINOGRAD_NONFUSED"};
  static constexpr const char* kBackwardData[] = {"ALGO_0",     "ALGO_1",   "FFT",
                                                  "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  static constexpr const char* kBackwardFilter[] = {
      "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
  auto pick = [&](const auto& names) -> std::string {
    const int count = static_cast<int>(std::size(names));
    if (algo >= 0 && algo < count) return names[algo];
    return "ALGO_" + std::to_string(algo) + "?";
  };
  switch (d) {
    case ops::ConvDirection::kForward:
      return pick(kForward);
    case ops::ConvDirection::kBackwardData:
      return pick(kBackwardData);
    case ops::ConvDirection::kBackwardWeight:
      return pick(kBackwardFilter);
  }
  return "?";
}

std::string version_string(size_t version) {
  // cuDNN 9: 91900 is 9.19.0; cuDNN 8: 8907 is 8.9.7.
  const size_t major_unit = version >= 90000 ? 10000 : 1000;
  return std::to_string(version / major_unit) + "." + std::to_string(version % major_unit / 100) +
         "." + std::to_string(version % 100);
}

std::string format_bytes(int64_t bytes) {
  if (bytes < 1024) return std::to_string(std::max<int64_t>(bytes, 0)) + "B";
  static constexpr const char* kUnits[] = {"KB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes) / 1024.0;
  size_t u = 0;
  while (v >= 1024.0 && u + 1 < std::size(kUnits)) {
    v /= 1024.0;
    ++u;
  }
  return one_decimal(v) + kUnits[u];
}

int64_t search_workspace_bytes(int64_t free_bytes, int64_t cap) {
  // 256 MiB stays free for cuDNN's own allocations (its kernels' constant data, FFT plans).
  constexpr int64_t kMargin = int64_t{256} << 20;
  return std::max<int64_t>(std::min(cap, free_bytes - kMargin), 0);
}

}  // namespace cudnn_detail

#if !BOO_HAVE_CUDNN

struct CudnnConv::State {};

core::Expected<std::unique_ptr<CudnnConv>> CudnnConv::create() {
  return core::unsupported(
      "this build of boo has no cuDNN: CMake found no cudnn.h and libcudnn (install the "
      "nvidia-cudnn-cu13 wheel or set CUDNN_ROOT, then reconfigure)");
}

CudnnConv::~CudnnConv() = default;

core::Status CudnnConv::prepare(const ops::ConvProblem&, const dispatch::ConvPointers&, void*) {
  return core::unsupported("this build of boo has no cuDNN");
}

core::Status CudnnConv::run(const dispatch::ConvPointers&, void*) {
  return core::unsupported("this build of boo has no cuDNN");
}

#else  // BOO_HAVE_CUDNN

namespace {

using cudnn_detail::Epilogue;

// The host enums of cudnn_conv.h mirror cuDNN's values.
static_assert(static_cast<int>(cudnn_detail::MathType::kFma) == CUDNN_FMA_MATH);
static_assert(static_cast<int>(cudnn_detail::MathType::kTensorOpAllowConversion) ==
              CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
static_assert(static_cast<int>(cudnn_detail::MathType::kTensorOp) == CUDNN_TENSOR_OP_MATH);
static_assert(static_cast<int>(cudnn_detail::ActivationMode::kSwish) == CUDNN_ACTIVATION_SWISH);
static_assert(static_cast<int>(cudnn_detail::ActivationMode::kIdentity) ==
              CUDNN_ACTIVATION_IDENTITY);
static_assert(static_cast<int>(cudnn_detail::ActivationMode::kClippedRelu) ==
              CUDNN_ACTIVATION_CLIPPED_RELU);
static_assert(static_cast<int>(cudnn_detail::TensorFormat::kNhwc) == CUDNN_TENSOR_NHWC);
static_assert(CUDNN_CONVOLUTION_FWD_ALGO_COUNT == 8 && CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT == 6 &&
                  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT == 7,
              "cudnn_detail::algo_name lists cuDNN 9's algorithms");

// 10 warm-ups (DESIGN.md §7), then the median of 20 samples: enough to separate epilogues that
// differ by a pass over the output (>= 5% for all but tiny outputs).
constexpr int kWarmups = 10;
constexpr int kSamples = 20;
constexpr double kHoldUs = 1000.0;
// FindEx's times include an engine's first run (its runtime compilation: 344 us against 105 us
// re-timed, 3.3x, for one bf16 problem), so its ranking is only a filter: algorithms more than
// 5x slower than its fastest are not re-timed (they took up to 58 ms a launch: 1000x).
constexpr double kRetimeWithin = 5.0;
// cuDNN's benchmark mode may ask for large workspaces (FFT: 231 MB on a 16x64x40x40 fp16
// problem); 1 GiB covers every algorithm worth its memory on the problems boo runs.
constexpr int64_t kSearchWorkspaceCap = int64_t{1} << 30;
// (The cold L2 and the clock ramp of every sample: gpu_reference.h, kColdSweepBytes.)

core::Status dnn(cudnnStatus_t s, std::string_view what) {
  if (s == CUDNN_STATUS_SUCCESS) return core::Status::ok();
  std::string msg = "cuDNN " + std::string(what) + " failed: " + cudnnGetErrorString(s);
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof(detail));
  if (detail[0] != '\0') msg += std::string(" (") + detail + ")";
  if (CUDNN_STATUS_CATEGORY(s) == CUDNN_STATUS_NOT_SUPPORTED ||
      CUDNN_STATUS_CATEGORY(s) == CUDNN_STATUS_BAD_PARAM) {
    return core::unsupported(msg);
  }
  return core::unavailable(msg);
}

cudnnDataType_t data_type(core::DType t) {
  switch (t) {
    case core::DType::kF16:
      return CUDNN_DATA_HALF;
    case core::DType::kBF16:
      return CUDNN_DATA_BFLOAT16;
    default:
      return CUDNN_DATA_FLOAT;
  }
}

// One benchmark result of any direction.
struct AlgoResult {
  int algo = 0;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  float time_ms = 0;
  size_t memory = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

template <class Perf>
AlgoResult to_result(const Perf& r) {
  return {static_cast<int>(r.algo), r.status, r.time, r.memory, r.mathType};
}

// A way to run the problem: a conv algorithm with its math type and workspace, and an epilogue.
struct Plan {
  AlgoResult conv;
  Epilogue epilogue = Epilogue::kNone;
  double us = 0;  // measured by prepare()
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

std::string us_text(double us) { return one_decimal(us) + "us"; }

}  // namespace

struct CudnnConv::State {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr;
  cudnnTensorDescriptor_t y = nullptr;
  cudnnTensorDescriptor_t bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t act = nullptr;        // the cudnn-ops epilogue's activation
  cudnnActivationDescriptor_t fused_act = nullptr;  // RELU or IDENTITY of the fused call
  size_t version = 0;
  ops::ConvProblem problem;
  Plan plan;
  runtime::DeviceBuffer workspace;  // at least plan.conv.memory bytes
  runtime::DeviceBuffer sink;       // 16 bytes the L2 sweep may write
  bool prepared = false;

  ~State() {
    if (act) cudnnDestroyActivationDescriptor(act);
    if (fused_act) cudnnDestroyActivationDescriptor(fused_act);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    for (cudnnTensorDescriptor_t t : {x, y, bias}) {
      if (t) cudnnDestroyTensorDescriptor(t);
    }
    if (handle) cudnnDestroy(handle);
  }

  // One launch of `p` (no sync, no allocation); the math type must already be set on `conv`.
  core::Status launch(const Plan& p, const dispatch::ConvPointers& ptrs, void* stream) {
    const float one = 1.0f;
    const float zero = 0.0f;
    BOO_RETURN_IF_ERROR(
        dnn(cudnnSetStream(handle, static_cast<cudaStream_t>(stream)), "SetStream"));
    void* ws = workspace.data();
    const size_t ws_bytes = p.conv.memory;
    switch (problem.direction) {
      case ops::ConvDirection::kBackwardData:
        return dnn(
            cudnnConvolutionBackwardData(handle, &one, w, ptrs.w, y, ptrs.y, conv,
                                         static_cast<cudnnConvolutionBwdDataAlgo_t>(p.conv.algo),
                                         ws, ws_bytes, &zero, x, ptrs.x),
            "ConvolutionBackwardData");
      case ops::ConvDirection::kBackwardWeight:
        return dnn(cudnnConvolutionBackwardFilter(
                       handle, &one, x, ptrs.x, y, ptrs.y, conv,
                       static_cast<cudnnConvolutionBwdFilterAlgo_t>(p.conv.algo), ws, ws_bytes,
                       &zero, w, ptrs.w),
                   "ConvolutionBackwardFilter");
      case ops::ConvDirection::kForward:
        break;
    }
    const auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(p.conv.algo);
    if (p.epilogue == Epilogue::kFused) {
      // z aliases y with alpha2 = 0: the call's residual input is unused (and, measured on
      // cuDNN 9.19, not read: a NaN-poisoned y does not leak into the result).
      return dnn(cudnnConvolutionBiasActivationForward(handle, &one, x, ptrs.x, w, ptrs.w, conv,
                                                       algo, ws, ws_bytes, &zero, y, ptrs.y, bias,
                                                       ptrs.bias, fused_act, y, ptrs.y),
                 "ConvolutionBiasActivationForward");
    }
    BOO_RETURN_IF_ERROR(dnn(cudnnConvolutionForward(handle, &one, x, ptrs.x, w, ptrs.w, conv, algo,
                                                    ws, ws_bytes, &zero, y, ptrs.y),
                            "ConvolutionForward"));
    if (p.epilogue == Epilogue::kCudnnOps) {
      if (problem.bias) {
        BOO_RETURN_IF_ERROR(
            dnn(cudnnAddTensor(handle, &one, bias, ptrs.bias, &one, y, ptrs.y), "AddTensor"));
      }
      if (problem.activation != ops::Activation::kNone) {
        // In place (x and y the same buffer), which cudnnActivationForward allows.
        BOO_RETURN_IF_ERROR(
            dnn(cudnnActivationForward(handle, act, &one, y, ptrs.y, &zero, y, ptrs.y),
                "ActivationForward"));
      }
    } else if (p.epilogue == Epilogue::kKernel) {
      BOO_RETURN_IF_ERROR(
          gpu::conv_bias_activation(problem, ptrs.y, problem.bias ? ptrs.bias : nullptr, stream));
    }
    return core::Status::ok();
  }

  // Median GPU microseconds of `p` on the real buffers, cold L2; an error when cuDNN refuses it.
  core::Expected<double> time(const Plan& p, const dispatch::ConvPointers& ptrs, void* stream,
                              runtime::EventTimer& timer) {
    BOO_RETURN_IF_ERROR(
        dnn(cudnnSetConvolutionMathType(conv, p.conv.math), "SetConvolutionMathType"));
    // The sweep reads the search workspace, which the plan's launch overwrites afterwards on
    // the same stream: no hazard. A workspace smaller than the sweep (little free memory) only
    // costs the cold L2.
    const int64_t sweep = std::min(gpu::kColdSweepBytes, workspace.bytes() / 16 * 16);
    std::vector<double> samples;
    for (int r = 0; r < kWarmups + kSamples; ++r) {
      // The legacy API spends 50 us to over 150 us of CPU per call: held behind a busy stream,
      // the events time the GPU's work only (as tune::time_interleaved does for every
      // backend); without it the ranking followed host noise.
      BOO_RETURN_IF_ERROR(
          gpu::before_cold_sample(kHoldUs, workspace.data(), sweep, sink.data(), stream));
      BOO_RETURN_IF_ERROR(timer.start(stream));
      core::Status s = launch(p, ptrs, stream);
      if (!s.is_ok()) {
        // A refused launch may leave a CUDA error behind that the next launch would report.
        (void)cudaGetLastError();
        return s;
      }
      BOO_RETURN_IF_ERROR(timer.stop(stream));
      BOO_ASSIGN_OR_RETURN(double us, timer.elapsed_us());
      if (r >= kWarmups) samples.push_back(us);
    }
    return median(std::move(samples));
  }

  // cuDNN's workspace need of a forward algorithm with its math type (the fused call shares the
  // forward's); 0 when cuDNN does not say.
  size_t forward_workspace(const AlgoResult& r) {
    size_t bytes = 0;
    if (cudnnSetConvolutionMathType(conv, r.math) != CUDNN_STATUS_SUCCESS ||
        cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y,
                                                static_cast<cudnnConvolutionFwdAlgo_t>(r.algo),
                                                &bytes) != CUDNN_STATUS_SUCCESS) {
      return 0;
    }
    return bytes;
  }

  // cuDNN's benchmark mode: every algorithm timed on the real buffers with `workspace`.
  core::Expected<std::vector<AlgoResult>> find(const dispatch::ConvPointers& ptrs) {
    std::vector<AlgoResult> out;
    int count = 0;
    int returned = 0;
    void* ws = workspace.data();
    const size_t ws_bytes = static_cast<size_t>(workspace.bytes());
    switch (problem.direction) {
      case ops::ConvDirection::kForward: {
        BOO_RETURN_IF_ERROR(dnn(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &count),
                                "GetConvolutionForwardAlgorithmMaxCount"));
        std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(count));
        BOO_RETURN_IF_ERROR(dnn(
            cudnnFindConvolutionForwardAlgorithmEx(handle, x, ptrs.x, w, ptrs.w, conv, y, ptrs.y,
                                                   count, &returned, perf.data(), ws, ws_bytes),
            "FindConvolutionForwardAlgorithmEx"));
        for (int i = 0; i < returned; ++i) out.push_back(to_result(perf[i]));
        break;
      }
      case ops::ConvDirection::kBackwardData: {
        BOO_RETURN_IF_ERROR(dnn(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &count),
                                "GetConvolutionBackwardDataAlgorithmMaxCount"));
        std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(count));
        BOO_RETURN_IF_ERROR(dnn(cudnnFindConvolutionBackwardDataAlgorithmEx(
                                    handle, w, ptrs.w, y, ptrs.y, conv, x, ptrs.x, count, &returned,
                                    perf.data(), ws, ws_bytes),
                                "FindConvolutionBackwardDataAlgorithmEx"));
        for (int i = 0; i < returned; ++i) out.push_back(to_result(perf[i]));
        break;
      }
      case ops::ConvDirection::kBackwardWeight: {
        BOO_RETURN_IF_ERROR(dnn(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, &count),
                                "GetConvolutionBackwardFilterAlgorithmMaxCount"));
        std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(static_cast<size_t>(count));
        BOO_RETURN_IF_ERROR(dnn(cudnnFindConvolutionBackwardFilterAlgorithmEx(
                                    handle, x, ptrs.x, y, ptrs.y, conv, w, ptrs.w, count, &returned,
                                    perf.data(), ws, ws_bytes),
                                "FindConvolutionBackwardFilterAlgorithmEx"));
        for (int i = 0; i < returned; ++i) out.push_back(to_result(perf[i]));
        break;
      }
    }
    return out;
  }

  core::Status set_descriptors(const cudnn_detail::ConvDescription& d) {
    const cudnnDataType_t t = data_type(problem.dtype);
    // Dims and strides (not a format): any layout of x and y, each on its own.
    BOO_RETURN_IF_ERROR(
        dnn(cudnnSetTensorNdDescriptor(x, t, d.nb_dims, d.x.dims.data(), d.x.strides.data()),
            "SetTensorNdDescriptor (x)"));
    BOO_RETURN_IF_ERROR(
        dnn(cudnnSetTensorNdDescriptor(y, t, d.nb_dims, d.y.dims.data(), d.y.strides.data()),
            "SetTensorNdDescriptor (y)"));
    BOO_RETURN_IF_ERROR(dnn(
        cudnnSetTensorNdDescriptor(bias, t, d.nb_dims, d.bias.dims.data(), d.bias.strides.data()),
        "SetTensorNdDescriptor (bias)"));
    BOO_RETURN_IF_ERROR(
        dnn(cudnnSetFilterNdDescriptor(w, t, static_cast<cudnnTensorFormat_t>(d.filter_format),
                                       d.nb_dims, d.filter.data()),
            "SetFilterNdDescriptor"));
    // Cross-correlation (what every framework calls convolution), fp32 accumulation for all
    // data types.
    BOO_RETURN_IF_ERROR(dnn(cudnnSetConvolutionNdDescriptor(
                                conv, d.nb_dims - 2, d.padding.data(), d.stride.data(),
                                d.dilation.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                            "SetConvolutionNdDescriptor"));
    BOO_RETURN_IF_ERROR(
        dnn(cudnnSetConvolutionGroupCount(conv, d.groups), "SetConvolutionGroupCount"));
    BOO_RETURN_IF_ERROR(
        dnn(cudnnSetConvolutionMathType(
                conv, static_cast<cudnnMathType_t>(cudnn_detail::math_type(problem))),
            "SetConvolutionMathType"));
    if (const auto spec = cudnn_detail::activation_spec(problem.activation)) {
      BOO_RETURN_IF_ERROR(
          dnn(cudnnSetActivationDescriptor(act, static_cast<cudnnActivationMode_t>(spec->mode),
                                           CUDNN_PROPAGATE_NAN, spec->coef),
              "SetActivationDescriptor"));
      if (spec->mode == cudnn_detail::ActivationMode::kSwish) {
        BOO_RETURN_IF_ERROR(dnn(cudnnSetActivationDescriptorSwishBeta(act, spec->swish_beta),
                                "SetActivationDescriptorSwishBeta"));
      }
    }
    const cudnnActivationMode_t fused = problem.activation == ops::Activation::kRelu
                                            ? CUDNN_ACTIVATION_RELU
                                            : CUDNN_ACTIVATION_IDENTITY;
    return dnn(cudnnSetActivationDescriptor(fused_act, fused, CUDNN_PROPAGATE_NAN, 0.0),
               "SetActivationDescriptor (fused)");
  }

  core::Status ramp_clocks(void* stream) {
    const int64_t sweep = std::min(gpu::kColdSweepBytes, workspace.bytes() / 16 * 16);
    return gpu::ramp_clocks(workspace.data(), sweep, sink.data(), stream);
  }

  // The search workspace: kSearchWorkspaceCap or what is free; halved while an allocation fails
  // (fragmentation), as PyTorch does.
  core::Status allocate_search_workspace() {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    BOO_RETURN_IF_ERROR(
        runtime::cuda_status(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
    int64_t bytes =
        cudnn_detail::search_workspace_bytes(static_cast<int64_t>(free_bytes), kSearchWorkspaceCap);
    workspace = runtime::DeviceBuffer();
    for (;;) {
      auto buf = runtime::DeviceBuffer::allocate(bytes);
      if (buf.has_value()) {
        workspace = std::move(buf).value();
        return core::Status::ok();
      }
      (void)cudaGetLastError();
      if (bytes == 0) return buf.status();
      bytes /= 2;
    }
  }
};

core::Expected<std::unique_ptr<CudnnConv>> CudnnConv::create() {
  // Ask the CUDA runtime first: its message says whether the GPU or the driver is missing,
  // where cudnnCreate would only say NOT_INITIALIZED.
  auto devices = runtime::list_devices();
  if (!devices.has_value()) return devices.status().with_context("cuDNN baseline: ");
  std::unique_ptr<CudnnConv> c(new CudnnConv());
  c->state_ = std::make_unique<State>();
  State& s = *c->state_;
  BOO_RETURN_IF_ERROR(dnn(cudnnCreate(&s.handle), "cudnnCreate"));
  s.version = cudnnGetVersion();
  BOO_RETURN_IF_ERROR(dnn(cudnnCreateTensorDescriptor(&s.x), "CreateTensorDescriptor"));
  BOO_RETURN_IF_ERROR(dnn(cudnnCreateTensorDescriptor(&s.y), "CreateTensorDescriptor"));
  BOO_RETURN_IF_ERROR(dnn(cudnnCreateTensorDescriptor(&s.bias), "CreateTensorDescriptor"));
  BOO_RETURN_IF_ERROR(dnn(cudnnCreateFilterDescriptor(&s.w), "CreateFilterDescriptor"));
  BOO_RETURN_IF_ERROR(
      dnn(cudnnCreateConvolutionDescriptor(&s.conv), "CreateConvolutionDescriptor"));
  BOO_RETURN_IF_ERROR(dnn(cudnnCreateActivationDescriptor(&s.act), "CreateActivationDescriptor"));
  BOO_RETURN_IF_ERROR(
      dnn(cudnnCreateActivationDescriptor(&s.fused_act), "CreateActivationDescriptor"));
  BOO_ASSIGN_OR_RETURN(s.sink, runtime::DeviceBuffer::allocate(16));
  return c;
}

CudnnConv::~CudnnConv() = default;

core::Status CudnnConv::prepare(const ops::ConvProblem& p, const dispatch::ConvPointers& ptrs,
                                void* stream) {
  State& s = *state_;
  s.prepared = false;
  description_.clear();
  search_report_.clear();
  s.problem = p;
  BOO_ASSIGN_OR_RETURN(const cudnn_detail::ConvDescription d, cudnn_detail::describe_conv(p));
  if (p.bias && ptrs.bias == nullptr) {
    return core::invalid_argument("cuDNN baseline: the problem has a bias but no bias pointer");
  }
  BOO_RETURN_IF_ERROR(s.set_descriptors(d));
  BOO_RETURN_IF_ERROR(
      dnn(cudnnSetStream(s.handle, static_cast<cudaStream_t>(stream)), "SetStream"));
  BOO_RETURN_IF_ERROR(s.allocate_search_workspace());

  // 1. cuDNN's benchmark mode. Its own times are not final: the first run of an engine may
  //    include its runtime compilation (344 us vs 105 us measured for one bf16 problem).
  BOO_ASSIGN_OR_RETURN(std::vector<AlgoResult> found, s.find(ptrs));
  std::vector<AlgoResult> usable;
  search_report_ = "search workspace " + cudnn_detail::format_bytes(s.workspace.bytes()) + ":";
  for (const AlgoResult& r : found) {
    const auto math = static_cast<cudnn_detail::MathType>(r.math);
    const bool math_ok = cudnn_detail::math_type_allowed(p, math);
    const bool fits = r.memory <= static_cast<size_t>(s.workspace.bytes());
    const bool ok = r.status == CUDNN_STATUS_SUCCESS;
    if (ok && math_ok && fits) usable.push_back(r);
    search_report_ += " " + cudnn_detail::algo_name(p.direction, r.algo) + "/" +
                      std::string(cudnn_detail::math_type_name(math)) + " ";
    if (ok) {
      search_report_ += us_text(static_cast<double>(r.time_ms) * 1e3) +
                        " ws=" + cudnn_detail::format_bytes(static_cast<int64_t>(r.memory)) +
                        (math_ok ? "" : " (math not allowed)") +
                        (fits ? "" : " (workspace too large)");
    } else {
      search_report_ += cudnnGetErrorString(r.status);
    }
    search_report_ += ";";
  }
  if (usable.empty()) {
    return core::unsupported("cuDNN has no algorithm for " + p.key() + " (benchmark mode, " +
                             search_report_ + ")");
  }

  // 2. Re-time the usable algorithms ourselves (warm, cold L2, GPU time), fastest first.
  BOO_ASSIGN_OR_RETURN(auto timer, runtime::EventTimer::create());
  BOO_RETURN_IF_ERROR(s.ramp_clocks(stream));
  float fastest_ms = usable.front().time_ms;
  for (const AlgoResult& r : usable) fastest_ms = std::min(fastest_ms, r.time_ms);
  std::vector<Plan> convs;
  for (const AlgoResult& r : usable) {
    if (r.time_ms > kRetimeWithin * fastest_ms) continue;
    auto us = s.time({r, Epilogue::kNone}, ptrs, stream, *timer);
    if (us.has_value()) convs.push_back({r, Epilogue::kNone, *us});
  }
  if (convs.empty()) {
    return core::unavailable("cuDNN baseline: no algorithm that benchmark mode found for " +
                             p.key() + " launched again (" + search_report_ + ")");
  }
  std::stable_sort(convs.begin(), convs.end(),
                   [](const Plan& a, const Plan& b) { return a.us < b.us; });
  search_report_ += " re-timed:";
  for (const Plan& c : convs) {
    search_report_ += " " + cudnn_detail::algo_name(p.direction, c.conv.algo) + " " + us_text(c.us);
  }

  // 3. The epilogue: time every way that computes the problem; keep the fastest.
  Plan best = convs.front();
  std::string timings;
  const std::vector<Epilogue> ways = cudnn_detail::epilogue_candidates(p);
  if (ways.front() != Epilogue::kNone) {
    best.us = 1e30;
    for (Epilogue e : ways) {
      std::vector<Plan> plans;
      if (e == Epilogue::kFused && p.activation == ops::Activation::kNone) {
        // IDENTITY works with IMPLICIT_PRECOMP_GEMM only (cuDNN's documented restriction).
        for (const Plan& c : convs) {
          if (c.conv.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) {
            plans.push_back({c.conv, e});
          }
        }
      } else if (e == Epilogue::kFused) {
        // The fused call runs other kernels than the plain conv: its fastest algorithm need not
        // be the conv's. The 3 fastest conv algorithms cover it without timing the slow tail.
        for (size_t i = 0; i < convs.size() && i < 3; ++i) plans.push_back({convs[i].conv, e});
      } else {
        plans.push_back({convs.front().conv, e});
      }
      double way_us = 1e30;
      for (Plan& plan : plans) {
        if (e == Epilogue::kFused) {
          plan.conv.memory = std::max(plan.conv.memory, s.forward_workspace(plan.conv));
          if (plan.conv.memory > static_cast<size_t>(s.workspace.bytes())) continue;
        }
        auto us = s.time(plan, ptrs, stream, *timer);
        if (!us.has_value()) continue;
        plan.us = *us;
        way_us = std::min(way_us, *us);
        if (*us < best.us) best = plan;
      }
      timings += (timings.empty() ? "" : ", ") + std::string(cudnn_detail::epilogue_name(e)) + " " +
                 (way_us < 1e30 ? us_text(way_us) : std::string("n/a"));
    }
    if (best.us >= 1e30) {
      return core::unavailable("cuDNN baseline: no way to run " + p.key() + " launched (" +
                               timings + ")");
    }
  }

  // Keep only the chosen plan's workspace: the search's may be 1 GiB that the benchmark needs.
  const int64_t need = static_cast<int64_t>(best.conv.memory);
  if (need < s.workspace.bytes()) {
    BOO_RETURN_IF_ERROR(runtime::cuda_status(
        cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize"));
    s.workspace = runtime::DeviceBuffer();
    BOO_ASSIGN_OR_RETURN(s.workspace, runtime::DeviceBuffer::allocate(need));
  }
  BOO_RETURN_IF_ERROR(
      dnn(cudnnSetConvolutionMathType(s.conv, best.conv.math), "SetConvolutionMathType"));
  s.plan = best;
  s.prepared = true;
  without_tensor_ops_ = best.conv.math == CUDNN_DEFAULT_MATH || best.conv.math == CUDNN_FMA_MATH;

  description_ = "cudnn " + cudnn_detail::version_string(s.version) + " " +
                 std::string(ops::conv_direction_name(p.direction)) +
                 " algo=" + cudnn_detail::algo_name(p.direction, best.conv.algo) + " " +
                 std::string(cudnn_detail::math_type_name(
                     static_cast<cudnn_detail::MathType>(best.conv.math))) +
                 " ws=" + cudnn_detail::format_bytes(need) +
                 " (benchmark mode: " + std::to_string(usable.size()) + " ran, " +
                 std::to_string(convs.size()) + " re-timed)";
  if (best.epilogue != Epilogue::kNone) {
    std::string what;
    if (p.bias) what += " + bias";
    if (p.activation != ops::Activation::kNone) {
      what += " + " + std::string(ops::activation_name(p.activation));
    }
    const char* how = best.epilogue == Epilogue::kFused ? "fused: ConvolutionBiasActivationForward"
                      : best.epilogue == Epilogue::kCudnnOps
                          ? "separate: AddTensor/ActivationForward"
                          : "separate: boo bias/activation kernel";
    description_ += what + " (" + how + "; timed " + timings + ")";
  }
  return core::Status::ok();
}

core::Status CudnnConv::run(const dispatch::ConvPointers& ptrs, void* stream) {
  State& s = *state_;
  if (!s.prepared) return core::internal_error("CudnnConv::run before prepare");
  return s.launch(s.plan, ptrs, stream);
}

#pragma GCC diagnostic pop
#endif  // BOO_HAVE_CUDNN

}  // namespace boo::reference
