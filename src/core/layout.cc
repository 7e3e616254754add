#include "boo/core/layout.h"

namespace boo::core {

std::string layout_name(Layout layout, int spatial_dims) {
  const std::string spatial = spatial_dims == 3 ? "DHW" : spatial_dims == 2 ? "HW" : "W";
  return layout == Layout::kChannelsFirst ? "NC" + spatial : "N" + spatial + "C";
}

Expected<Layout> parse_layout(std::string_view text, int spatial_dims) {
  for (Layout l : {Layout::kChannelsFirst, Layout::kChannelsLast}) {
    if (text == layout_name(l, spatial_dims)) return l;
    if (spatial_dims == 1 && text == layout_name(l, 2)) return l;
  }
  const std::string first = layout_name(Layout::kChannelsFirst, spatial_dims);
  const std::string last = layout_name(Layout::kChannelsLast, spatial_dims);
  return invalid_argument("unsupported layout '" + std::string(text) + "' for a " +
                          std::to_string(spatial_dims) + "D problem (expected " + first + " or " +
                          last + ")");
}

}  // namespace boo::core
