// The fp64 CPU reference as a `boo driver` backend, and output descriptions shared by all.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

#include "boo/core/strings.h"
#include "boo/reference/compare.h"
#include "boo/reference/problem_data.h"
#include "boo/tune/stats.h"
#include "command_source.h"
#include "driver.h"

namespace boo::cli {

RunPlan plan_for(const DriverOptions& o, const parse::RunOptions& cmd) {
  RunPlan p;
  p.time = o.time >= 0 ? o.time != 0 : cmd.time.value_or(false);
  p.iter = o.iter > 0 ? o.iter : cmd.iter.value_or(10);
  p.verify = o.verify >= 0 ? o.verify != 0 : cmd.verify.value_or(false);
  return p;
}

std::string describe_output(const ops::Problem& p, const std::string& name,
                            const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                            core::DType dtype, const std::vector<double>& values) {
  std::string shape;
  if (const auto* g = std::get_if<ops::GemmProblem>(&p)) {
    shape = "M=" + std::to_string(g->m) + " N=" + std::to_string(g->n) +
            " batch=" + std::to_string(g->batch) + " column-major";
  } else {
    // Dims in memory order, as BOO's driver prints a tensor's size.
    std::vector<size_t> order(dims.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return strides[a] > strides[b]; });
    std::vector<int64_t> ordered;
    for (size_t i : order) ordered.push_back(dims[i]);
    shape = core::format_shape(ordered);
    if (const auto* c = std::get_if<ops::ConvProblem>(&p)) {
      const core::Layout l = name == "dw"   ? c->fil_layout
                             : name == "dx" ? c->in_layout
                                            : c->out_layout;
      shape += " " + core::layout_name(l, c->spatial_dims);
    }
  }
  return name + ": " + shape + " " + std::string(core::dtype_name(dtype)) +
         (values.empty() ? std::string()
                         : " " + reference::format_summary(reference::summarize(values)));
}

tune::ResultRow csv_row(const ops::Problem& p, const std::string& backend,
                        const ops::Ceilings& ceilings) {
  tune::ResultRow row;
  row.command = ops::to_command(p);
  row.key = ops::key(p);
  row.backend = backend;
  row.floor_us = ops::floor_us(p, ceilings);
  row.flops = ops::flops(p);
  row.bytes = static_cast<double>(ops::min_bytes(p));
  row.date = tune::today_iso();
  return row;
}

void run_cpu_reference(const DriverOptions& opt, bool explicit_backend, const std::string& source,
                       const ops::Problem& p, const RunPlan& plan, tune::ResultCsvWriter* csv,
                       Outcome& outcome) {
  const double gflop = ops::flops(p) / 1e9;
  const double gib = static_cast<double>(reference::reference_bytes(p)) / (1ull << 30);
  if (gflop > opt.cpu_max_gflop || gib > opt.cpu_max_gib) {
    char buf[320];
    std::snprintf(buf, sizeof(buf),
                  "too large for the CPU reference: %.2f GFLOP and %.2f GiB of fp64 operands "
                  "(limits %.2f GFLOP, %.2f GiB; raise them with --cpu-max-gflop, --cpu-max-gib)",
                  gflop, gib, opt.cpu_max_gflop, opt.cpu_max_gib);
    std::printf(">>> skipped: %s\n", buf);
    if (explicit_backend) {
      print_error(source, core::resource_limit(buf));
      ++outcome.failed;
    } else {
      ++outcome.skipped;
    }
    return;
  }
  auto data = reference::make_inputs(p, opt.seed);
  if (!data) {
    print_error(source, data.status());
    ++outcome.failed;
    return;
  }
  std::vector<double> samples;
  const int64_t max_iter = plan.time ? plan.iter : 1;
  for (int64_t i = 0; i < max_iter; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const core::Status s = reference::run_reference(p, *data);
    const auto t1 = std::chrono::steady_clock::now();
    if (!s.is_ok()) {
      print_error(source, s);
      ++outcome.failed;
      return;
    }
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    const double spent_s = std::accumulate(samples.begin(), samples.end(), 0.0) / 1e6;
    if (spent_s > opt.cpu_time_budget_s && i + 1 < max_iter) {
      std::printf(">>> note: timed %zu of %lld iterations (the CPU reference stops after %.1f s)\n",
                  samples.size(), static_cast<long long>(max_iter), opt.cpu_time_budget_s);
      break;
    }
  }
  for (const reference::NamedTensor& out : data->outputs) {
    std::printf(">>> %s\n",
                describe_output(p, out.name, out.tensor.desc.dims, out.tensor.desc.strides,
                                out.tensor.desc.dtype, out.tensor.data)
                    .c_str());
  }
  const tune::TimingStats st = tune::timing_stats(samples);
  if (plan.time) std::printf(">>> %s\n", tune::format_timing(st).c_str());
  if (plan.verify) {
    std::printf(">>> verify: the reference backend is the reference itself; nothing to compare\n");
  }
  if (csv != nullptr) {
    tune::ResultRow row = csv_row(p, "reference", ops::Ceilings::h100_sxm_datasheet());
    row.algorithm = "reference.cpu";
    row.config = "fp64";
    row.median_us = st.median_us;
    row.min_us = st.min_us;
    row.max_us = st.max_us;
    row.device = "cpu";
    const core::Status s = csv->write(row);
    if (!s.is_ok()) {
      print_error(opt.csv, s);
      ++outcome.failed;
      return;
    }
  }
  ++outcome.ran;
}

}  // namespace boo::cli
