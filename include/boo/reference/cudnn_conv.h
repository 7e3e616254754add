// The vendor baseline for convolutions: cuDNN at its best, as a performance engineer runs it
// (DESIGN.md §6, §7), through cuDNN's legacy convolution API. prepare() runs benchmark mode
// (cudnnFind*AlgorithmEx: every algorithm run on the real buffers with up to 1 GiB of
// workspace), re-times the front runners itself (warm, cold L2, GPU time: FindEx's own times
// include first-run compilation) and keeps the fastest. A forward bias/activation is timed
// three ways where cuDNN allows it — fused (cudnnConvolutionBiasActivationForward: bias + relu
// or identity), cuDNN's own ops after the conv (cudnnAddTensor, cudnnActivationForward), or one
// bias+activation kernel after the conv (the only way for gelu, which the legacy API lacks) —
// and the fastest way runs.
//
// Host overhead: a legacy cuDNN 9.19 call costs ~50 us of CPU time on the H100 machine (a 9 us
// conv took 58 us a launch back to back, 9 us under a CUDA graph, which run() can be captured
// in). Time it behind GPU work (an L2 flush) or in a graph, or the CPU is what is measured.
//
// This header names no cuDNN type, so boo builds without cuDNN (BOO_HAVE_CUDNN=0: create() says
// so) and the host logic in cudnn_detail is tested on machines without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "boo/core/status.h"
#include "boo/dispatch/conv_args.h"
#include "boo/ops/conv_problem.h"

namespace boo::reference {

// How a ConvProblem reads in cuDNN's legacy API. Enum values equal cuDNN's own, which
// cudnn_conv.cc checks with static_asserts.
namespace cudnn_detail {

// A tensor as cudnnSetTensorNdDescriptor takes it: dims [N, C, spatial...] and element strides.
// cuDNN's legacy API takes 32-bit ints.
struct NdTensor {
  std::vector<int> dims;
  std::vector<int> strides;
  bool operator==(const NdTensor&) const = default;
};

// cudnnTensorFormat_t: NCHW is channels-first (filters K, C/G, spatial), NHWC channels-last
// (filters K, spatial, C/G), also for 3D (NCDHW / NDHWC).
enum class TensorFormat : uint8_t { kNchw = 0, kNhwc = 1 };

struct ConvDescription {
  // 4 or 5: cuDNN needs at least 4-D tensors, so a 1D problem is a 2D one with H = 1 (filter
  // height 1, padding 0, stride 1, dilation 1 along H).
  int nb_dims = 4;
  NdTensor x;               // input [N, C, spatial...]
  NdTensor y;               // output [N, K, out...]
  std::vector<int> filter;  // [K, C / G, spatial...]
  TensorFormat filter_format = TensorFormat::kNchw;
  std::vector<int> padding;  // nb_dims - 2 entries each
  std::vector<int> stride;
  std::vector<int> dilation;
  int groups = 1;
  NdTensor bias;  // [1, K, 1, ...]: per-output-channel bias, broadcast over N and space
};

// The cuDNN shape of a valid problem; kUnsupported when a size or stride exceeds 32 bits.
core::Expected<ConvDescription> describe_conv(const ops::ConvProblem& p);
// One tensor [N, C, spatial...] with its element strides, lifted to 4-D when 1D: H = 1 is
// inserted before W with stride W * stride_W, the value a packed tensor would have.
core::Expected<NdTensor> nd_tensor(const core::TensorDesc& t);

// cudnnMathType_t.
enum class MathType : uint8_t {
  kDefault = 0,
  kTensorOp = 1,
  kTensorOpAllowConversion = 2,
  kFma = 3
};
std::string_view math_type_name(MathType m);  // "default", "tensor-op", "tensor-op-convert", "fma"
// The math type prepare() sets: FMA for exact fp32 (no tf32), tensor ops otherwise (tf32 for
// fp32 with p.math == kTF32; fp16/bf16 run on tensor cores anyway). Never ALLOW_CONVERSION: for
// fp32 data it would round operands to fp16.
MathType math_type(const ops::ConvProblem& p);
// Whether a benchmark result that ran with math type `m` computed what `p` asks: exact fp32
// accepts no tensor-op result (they round to tf32); nothing accepts down-conversion to fp16.
bool math_type_allowed(const ops::ConvProblem& p, MathType m);

// cudnnActivationMode_t.
enum class ActivationMode : uint8_t {
  kSigmoid = 0,
  kRelu = 1,
  kTanh = 2,
  kClippedRelu = 3,
  kElu = 4,
  kIdentity = 5,
  kSwish = 6,
};
struct ActivationSpec {
  ActivationMode mode = ActivationMode::kIdentity;
  double coef = 0.0;        // the ceiling of CLIPPED_RELU (6 for relu6)
  double swish_beta = 1.0;  // x * sigmoid(beta x): silu is beta = 1
  bool operator==(const ActivationSpec&) const = default;
};
// cuDNN's legacy activation for `a`; nullopt for gelu and gelu_tanh, which it does not have.
// kNone maps to IDENTITY.
std::optional<ActivationSpec> activation_spec(ops::Activation a);

// How the forward bias/activation runs after (or with) the convolution.
enum class Epilogue : uint8_t {
  kNone,      // no bias, no activation: the convolution alone
  kFused,     // cudnnConvolutionBiasActivationForward (bias + relu or identity)
  kCudnnOps,  // conv, then cudnnAddTensor (bias) and cudnnActivationForward
  kKernel,    // conv, then one bias+activation kernel (reference::gpu::conv_bias_activation)
};
std::string_view epilogue_name(Epilogue e);  // "none", "fused", "cudnn-ops", "kernel"
// The ways prepare() times for `p`, in this order. Fused needs a bias and relu or no
// activation; cuDNN's ops need an activation that cuDNN has (not gelu, gelu_tanh).
std::vector<Epilogue> epilogue_candidates(const ops::ConvProblem& p);

// cuDNN's name of an algorithm of a direction, e.g. "IMPLICIT_PRECOMP_GEMM" (forward 1),
// "ALGO_1" (backward data 1), "WINOGRAD_NONFUSED"; "ALGO_<n>?" for a value cuDNN 9.19 lacks.
std::string algo_name(ops::ConvDirection d, int algo);
// cudnnGetVersion() as "9.19.0" (cuDNN 9 encodes major*10000 + minor*100 + patch; 8 used 1000).
std::string version_string(size_t version);
// "0B", "512B", "1.2KB", "1.2MB", "3.0GB" (powers of 1024).
std::string format_bytes(int64_t bytes);
// The workspace offered to the benchmark search: `cap` (1 GiB), or what is free less a 256 MiB
// margin for cuDNN's own allocations; never negative. Not the largest need that
// cudnnGet*WorkspaceSize reports: on cuDNN 9.19 (H100) that query answers 0 for channels-last
// bf16/fp16 problems whose tensor-op engines need a few hundred bytes, and with no workspace
// FindEx fails them (INTERNAL_ERROR_UNEXPECTED_VALUE), leaving a non-tensor-op kernel 13x slower.
int64_t search_workspace_bytes(int64_t free_bytes, int64_t cap = int64_t{1} << 30);

}  // namespace cudnn_detail

class CudnnConv {
 public:
  // cudnnCreate on the current device; kUnavailable with the reason when there is no GPU or
  // driver, kUnsupported when boo was built without cuDNN.
  static core::Expected<std::unique_ptr<CudnnConv>> create();
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // Chooses cuDNN's fastest way for `p` on these tensors (real device buffers filled with data;
  // the direction's output is overwritten while searching). `stream` is a cudaStream_t.
  // Synchronizes the stream; allocates the chosen workspace.
  core::Status prepare(const ops::ConvProblem& p, const dispatch::ConvPointers& ptrs, void* stream);
  // One launch of the prepared plan on `stream`: asynchronous, no allocation, no sync. The
  // output is fully overwritten (alpha 1, beta 0).
  core::Status run(const dispatch::ConvPointers& ptrs, void* stream);
  // e.g. "cudnn 9.19.0 fwd algo=IMPLICIT_PRECOMP_GEMM tensor-op ws=131B (benchmark mode: 3
  // ran, 1 re-timed) + bias + relu (fused: ConvolutionBiasActivationForward; timed fused 98.1us,
  // cudnn-ops 162.8us, kernel 135.3us)"; empty before prepare().
  std::string description() const { return description_; }
  // Every benchmark-mode result of the last prepare(): "search workspace 1.0GB: IMPLICIT_GEMM/
  // tensor-op 41.2us ws=0B; FFT/tensor-op CUDNN_STATUS_NOT_SUPPORTED; ..." (for --explain).
  std::string search_report() const { return search_report_; }
  // Whether the chosen plan multiplies without tensor cores (FMA or default math): for an fp32
  // problem that allows tf32, its error is then no yardstick for a tf32 kernel's.
  bool without_tensor_ops() const { return without_tensor_ops_; }

 private:
  CudnnConv() = default;
  struct State;
  std::unique_ptr<State> state_;
  std::string description_;
  std::string search_report_;
  bool without_tensor_ops_ = false;
};

}  // namespace boo::reference
