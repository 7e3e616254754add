#include "parallel_compile.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

namespace boo::cli {
namespace {

std::string clock_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02d:%02d", static_cast<int>(seconds) / 60,
                static_cast<int>(seconds) % 60);
  return buf;
}

}  // namespace

int default_compile_jobs() {
  const double bytes =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  const int by_memory = bytes > 0 ? static_cast<int>(bytes / (4.0 * (1 << 30))) : 1;
  const int by_cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, std::min(by_cores, by_memory));
}

std::vector<CompileResult> compile_parallel(jit::KernelCache& cache,
                                            const std::vector<codegen::KernelSource>& sources,
                                            int jobs) {
  std::vector<CompileResult> results(sources.size());
  std::atomic<size_t> next{0};
  std::mutex mu;
  size_t finished = 0;
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (size_t i = next++; i < sources.size(); i = next++) {
      const auto t0 = std::chrono::steady_clock::now();
      CompileResult r;
      r.name = sources[i].name;
      r.outcome = cache.ensure_compiled(sources[i]);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::lock_guard<std::mutex> lock(mu);
      ++finished;
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double left =
          elapsed / static_cast<double>(finished) * static_cast<double>(sources.size() - finished);
      std::string what;
      if (!r.outcome) {
        what = "FAILED " + r.name + ": " + r.outcome.status().message();
      } else if (*r.outcome == jit::CacheOutcome::kCompiled) {
        char buf[32];
        std::snprintf(buf, sizeof(buf), " (%.1f s)", r.seconds);
        what = "compiled " + r.name + buf;
      } else {
        what = "cached   " + r.name;
      }
      std::fprintf(stderr, "[%zu/%zu %s elapsed, ~%s left] %s\n", finished, sources.size(),
                   clock_text(elapsed).c_str(), clock_text(left).c_str(), what.c_str());
      results[i] = std::move(r);
    }
  };
  std::vector<std::thread> pool;
  const int threads = std::min<int>(std::max(jobs, 1), static_cast<int>(sources.size()));
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return results;
}

}  // namespace boo::cli
