#include "boo/tune/numerics.h"

#include <cstdio>

namespace boo::tune {

double dtype_tolerance(core::DType dtype, bool tf32) {
  switch (dtype) {
    case core::DType::kBF16:
      return 1e-2;
    case core::DType::kF16:
      return 5e-3;
    case core::DType::kF32:
      return tf32 ? 1e-3 : 1e-5;
    default:
      break;
  }
  return 1e-2;  // fp8 outputs are not validated; the loosest tolerance if one gets here
}

Numerics judge_numerics(double tolerance, const reference::ErrorStats& boo,
                        const std::optional<reference::ErrorStats>& vendor,
                        const std::string& reference_name) {
  Numerics n;
  n.boo = boo;
  n.vendor = vendor;
  n.tolerance = tolerance;
  n.reference = reference_name;
  char buf[256];
  if (boo.nonfinite > 0) {
    std::snprintf(buf, sizeof(buf), "%lld NaN/Inf or unwritten outputs",
                  static_cast<long long>(boo.nonfinite));
  } else if (!(boo.rel_fro <= n.tolerance)) {  // a NaN error fails too
    std::snprintf(buf, sizeof(buf), "error %.3g above the tolerance %.1g", boo.rel_fro,
                  n.tolerance);
  } else if (vendor && vendor->nonfinite == 0 && boo.rel_fro > 2.0 * vendor->rel_fro &&
             boo.rel_fro > 1e-6) {
    std::snprintf(buf, sizeof(buf), "error %.3g above twice the vendor's %.3g", boo.rel_fro,
                  vendor->rel_fro);
  } else {
    n.passed = true;
    std::snprintf(buf, sizeof(buf), "error %.3g within %.1g%s", boo.rel_fro, n.tolerance,
                  vendor ? " and twice the vendor's" : "");
  }
  n.verdict = buf;
  return n;
}

}  // namespace boo::tune
