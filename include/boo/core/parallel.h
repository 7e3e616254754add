// A blocking parallel loop over an index range for host work (CPU references, data generation).
// Threads: BOO_CPU_THREADS, else the hardware concurrency.
#pragma once

#include <cstdint>
#include <functional>

namespace boo::core {

int cpu_threads();
// Calls body(begin, end) on disjoint chunks covering [0, n); returns when all are done.
void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& body);

}  // namespace boo::core
