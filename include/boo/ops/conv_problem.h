// ConvProblem: one convolution, complete enough to choose and run a kernel.
//
// Spatial vectors (input, filter, stride, padding, dilation) hold `spatial_dims` entries,
// outermost first: W (1D); H, W (2D); D, H, W (3D). The filter has K x (C / G) x spatial
// elements. A transposed convolution (MIOpen `-m trans`) is stored as the convolution it mirrors
// (input and output swapped, C and K swapped) with `transposed = true`: its forward pass is that
// convolution's backward-data pass, so `direction` names what is computed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "boo/core/dtype.h"
#include "boo/core/layout.h"
#include "boo/core/status.h"
#include "boo/core/tensor.h"
#include "boo/ops/activation.h"

namespace boo::ops {

enum class ConvDirection : uint8_t { kForward, kBackwardData, kBackwardWeight };
// "fwd", "bwd", "wrw" (BOO's names).
std::string_view conv_direction_name(ConvDirection d);

struct ConvProblem {
  int spatial_dims = 2;  // 1, 2 or 3
  int64_t n = 1;
  int64_t c = 1;  // input channels (all groups)
  int64_t k = 1;  // output channels (all groups)
  int64_t groups = 1;
  std::vector<int64_t> input = {1, 1};
  std::vector<int64_t> filter = {1, 1};
  std::vector<int64_t> stride = {1, 1};
  std::vector<int64_t> padding = {0, 0};
  std::vector<int64_t> dilation = {1, 1};
  ConvDirection direction = ConvDirection::kForward;
  bool transposed = false;
  core::DType dtype = core::DType::kF32;       // x, w, y and bias
  core::MathMode math = core::MathMode::kF32;  // kTF32 only for fp32 data
  core::Layout in_layout = core::Layout::kChannelsFirst;
  core::Layout fil_layout = core::Layout::kChannelsFirst;
  core::Layout out_layout = core::Layout::kChannelsFirst;
  bool bias = false;                          // per-output-channel bias, forward only
  Activation activation = Activation::kNone;  // forward only

  bool operator==(const ConvProblem&) const = default;

  // Every rule of DESIGN.md §2; messages name the MIOpen flag and the value.
  core::Status validate() const;
  // The part of validate() that needs no output size: counts >= 1, padding >= 0, C and K
  // divisible by G. Parsers of transposed convolutions run it on the command as written.
  core::Status validate_fields() const;
  // Output spatial size: (in + 2p - d(f-1) - 1) / s + 1 per dim (may be <= 0 before validate()).
  std::vector<int64_t> output() const;

  // Tensors of the convolution (x: input, w: filter, y: output), whatever the direction.
  core::TensorDesc x_desc() const;
  core::TensorDesc w_desc() const;
  core::TensorDesc y_desc() const;

  // 2 * N * K * prod(out) * (C / G) * prod(filter): the same for all three directions.
  double flops() const;
  // Bytes each operand must cross HBM at least once (reads + writes, bias included); x, where
  // it is read (forward, backward weight), only at the positions some tap reaches.
  int64_t min_bytes() const;

  // e.g. conv2d_bf16_f32acc_fwd_n128c128h24w48_k384y1x1_s1x1p0x0d1x1_g1_nhwc.nhwc.nhwc_bias.relu
  std::string key() const;
  // A MIOpenDriver command that parses back to an equal problem.
  std::string to_command() const;
};

}  // namespace boo::ops
