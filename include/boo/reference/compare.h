// Error metrics of the numerics protocol (DESIGN.md §8) and output summaries.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace boo::reference {

struct ErrorStats {
  double rel_fro = 0.0;   // ||got - ref||_F / ||ref||_F (absolute when ||ref|| = 0)
  double max_abs = 0.0;   // max |got - ref|
  int64_t nonfinite = 0;  // NaN or Inf entries in `got`
  int64_t count = 0;
};

ErrorStats compare(std::span<const double> got, std::span<const double> ref);

struct Summary {
  int64_t count = 0;
  double sum = 0.0;
  double abs_max = 0.0;
  double rms = 0.0;
  int64_t nonfinite = 0;
};

Summary summarize(std::span<const double> values);
// "sum=12.5 absmax=3.25 rms=0.41" (plus "nonfinite=N" when any).
std::string format_summary(const Summary& s);

}  // namespace boo::reference
