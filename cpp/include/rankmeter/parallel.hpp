// rankmeter/parallel.hpp — thread-count helpers shared by every kernel.
#pragma once
#include <cstdint>
#ifdef RANKMETER_HAVE_OPENMP
#include <omp.h>
#endif

namespace rankmeter::core {

inline bool has_openmp() {
#ifdef RANKMETER_HAVE_OPENMP
  return true;
#else
  return false;
#endif
}

inline int max_threads() {
#ifdef RANKMETER_HAVE_OPENMP
  return omp_get_num_procs();
#else
  return 1;
#endif
}

// Below this many users per thread, starting threads costs more than it saves
// (measured with the W1 benches of bench/test_ranking.py on 2 cores; docs/performance.md).
constexpr int64_t kUsersPerThread = 2048;

inline int effective_threads(int requested, int64_t work_items) {
  int t = requested > 0 ? requested : max_threads();
#ifndef RANKMETER_HAVE_OPENMP
  t = 1;
#endif
  const int64_t by_size = work_items / kUsersPerThread + 1;
  if (by_size < t) t = static_cast<int>(by_size);
  return t < 1 ? 1 : t;
}

inline int thread_id() {
#ifdef RANKMETER_HAVE_OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

// Ask for every 64-byte line of [p, p + n): lists read only up to a cutoff are
// visited with a stride the hardware prefetcher does not follow.
template <class T>
inline void prefetch_span(const T* p, int64_t n) {
  const char* b = reinterpret_cast<const char*>(p);
  const char* e = reinterpret_cast<const char*>(p + n);
  for (const char* q = b; q < e; q += 64) __builtin_prefetch(q);
  if (n > 0) __builtin_prefetch(e - 1);
}

}  // namespace rankmeter::core
