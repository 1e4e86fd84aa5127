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
// (measured with bench/bench_ranking.py on 2 cores).
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

}  // namespace rankmeter::core
