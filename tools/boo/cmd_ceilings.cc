// `boo ceilings`: what this GPU reaches, measured the way `boo driver -t 1` measures (DESIGN.md
// §7). First the three ceilings every floor of a benchmark run comes from (peak bf16 GEMM rate,
// copy bandwidth, empty kernel); then, for each size of --read-mb, the time one read of that
// many fresh bytes takes under the protocol (cold L2, the hold before each sample, median), beside
// the floor that size gets. The ratio bounds the share of the floor any memory-bound kernel of
// that size can show: the floor counts no launch and no ramp, a timed kernel pays both.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "boo/runtime/cuda.h"
#include "boo/runtime/device.h"
#include "boo/tune/bench.h"
#include "boo/tune/stats.h"
#include "subcommands.h"

namespace boo::cli {
namespace {

struct CeilingsOptions {
  std::vector<double> read_mb = {4, 16, 33.8, 64, 128, 512};
  int iter = 100;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "boo ceilings: error: %s\n", message.c_str());
  return 1;
}

int run_ceilings(const CeilingsOptions& opt) {
  auto devices = runtime::list_devices();
  if (!devices) {
    return fail(devices.status().message() +
                ". `boo ceilings` measures the GPU; `boo parse` prints the datasheet floors");
  }
  const runtime::DeviceInfo& dev = devices->front();
  for (double mb : opt.read_mb) {
    if (mb * 1e6 * 2 > static_cast<double>(dev.memory_bytes)) {
      char buf[160];
      std::snprintf(buf, sizeof(buf), "--read-mb %g: more than half of this GPU's memory (%.0f MB)",
                    mb, dev.memory_bytes / 1e6);
      return fail(buf);
    }
  }
  std::printf("GPU %d: %s\n", dev.index, runtime::describe(dev).c_str());
  auto stream = runtime::Stream::create();
  if (!stream) return fail(stream.status().message());
  std::string report;
  auto ceilings = tune::measure_ceilings(stream->get(), &report);
  if (!ceilings) return fail(ceilings.status().message());
  std::printf("%s\n", report.c_str());
  auto flusher = tune::L2Flusher::create(dev.l2_bytes > 0 ? dev.l2_bytes : 50 << 20);
  if (!flusher) return fail(flusher.status().message());
  tune::TimingOptions timing;
  timing.samples = opt.iter;
  std::printf(
      "one read of fresh bytes from a cold L2 (%d samples, %.0f us hold before each; floor = "
      "max(bytes / copy bandwidth, empty kernel), as the driver's):\n",
      opt.iter, timing.hold_us);
  std::printf("%10s %10s %10s %10s %11s %12s\n", "MB", "floor us", "median us", "min us",
              "floor/time", "GB/s median");
  for (double mb : opt.read_mb) {
    const int64_t bytes = std::max<int64_t>(16, static_cast<int64_t>(mb * 1e6) / 16 * 16);
    auto samples = tune::time_cold_read(bytes, *flusher, stream->get(), timing);
    if (!samples)
      return fail("--read-mb " + std::to_string(mb) + ": " + samples.status().message());
    const tune::TimingStats s = tune::timing_stats(*samples);
    const double floor = std::max(bytes / (ceilings->bandwidth_gbs * 1e3), ceilings->launch_us);
    std::printf("%10.1f %10.2f %10.2f %10.2f %10.0f%% %12.0f\n", bytes / 1e6, floor, s.median_us,
                s.min_us, 100.0 * floor / s.median_us, bytes / (s.median_us * 1e3));
  }
  return 0;
}

}  // namespace

Run add_ceilings_command(CLI::App& app) {
  auto opt = std::make_shared<CeilingsOptions>();
  CLI::App* sub = app.add_subcommand(
      "ceilings",
      "Measure what this GPU reaches, as `boo driver -t 1` does: the peak bf16 GEMM rate, the\n"
      "copy bandwidth and the empty kernel that every floor comes from, then the time one read\n"
      "of each --read-mb size takes from a cold L2 under the benchmark protocol, beside the floor\n"
      "that size gets: the share of the floor a memory-bound kernel of that size can reach.");
  sub->add_option("--read-mb", opt->read_mb,
                  "Sizes to read, in MB of 10^6 bytes (default 4 16 33.8 64 128 512)")
      ->check(CLI::Range(0.001, 1e6))
      ->expected(1, 64);
  sub->add_option("--iter", opt->iter, "Samples per size (default 100)")
      ->check(CLI::Range(1, 100000));
  return [opt] { return run_ceilings(*opt); };
}

}  // namespace boo::cli
