#include "boo/core/parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "boo/core/env.h"

namespace boo::core {

int cpu_threads() {
  auto env = env_int("BOO_CPU_THREADS", 0);
  if (env.has_value() && *env > 0) return static_cast<int>(std::min<int64_t>(*env, 256));
  if (!env.has_value()) {
    warn_env_ignored("BOO_CPU_THREADS", get_env("BOO_CPU_THREADS").value_or(""),
                     "a positive integer");
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& body) {
  if (n <= 0) return;
  const int64_t threads = std::min<int64_t>(cpu_threads(), n);
  if (threads <= 1) {
    body(0, n);
    return;
  }
  // Many more chunks than threads so that uneven rows balance out.
  const int64_t chunks = std::min<int64_t>(n, threads * 8);
  std::atomic<int64_t> next{0};
  auto worker = [&] {
    for (int64_t c = next++; c < chunks; c = next++) {
      body(c * n / chunks, (c + 1) * n / chunks);
    }
  };
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
}

}  // namespace boo::core
