// Memory layouts of activation and filter tensors. A convolution tensor is channels-first
// (NCHW, NCDHW; filter KCYX) or channels-last (NHWC, NDHWC; filter KYXC); the name depends on the
// number of spatial dims (1D: NCW / NWC).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "boo/core/status.h"

namespace boo::core {

enum class Layout : uint8_t { kChannelsFirst, kChannelsLast };

// "NCHW", "NHWC", "NCDHW", "NDHWC", "NCW", "NWC".
std::string layout_name(Layout layout, int spatial_dims);
// Accepts the upper-case names above for `spatial_dims`. For 1D problems the 2D names are accepted
// too, since MIOpen writes a 1D convolution as a 2D one with H = 1.
Expected<Layout> parse_layout(std::string_view text, int spatial_dims);

}  // namespace boo::core
