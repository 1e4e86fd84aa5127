// rankmeter/topk.hpp — top-k selection from a dense score matrix.
//
// Inputs: S (n_users x n_items, row-major, float or double), k, and an optional
// exclusion CSR (ex_indptr[n_users+1], ex_cols: columns never to recommend to
// that user, e.g. the training items). Output per user: up to k columns, best
// first: higher score first, equal scores in column order (ties="input"), and
// their scores as double. A user with fewer than k eligible columns gets a
// shorter list (out_len). Any non-finite score in S is an error (the lowest
// user, then column, is reported), checked before anything is written.
//
// Per row: one pass keeping the k best (score, column) pairs in a binary heap
// whose top is the worst kept pair, so most columns cost one comparison;
// then the heap is sorted. Parallel over users; per-thread scratch is the heap
// and an exclusion stamp array of n_items.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "parallel.hpp"
#include "status.hpp"

namespace rankmeter::core {

namespace topk_detail {
struct Cand {
  double s;
  int64_t c;
};
// a is better than b: higher score, or equal score and lower column
inline bool better(const Cand& a, const Cand& b) { return a.s > b.s || (a.s == b.s && a.c < b.c); }
}  // namespace topk_detail

template <class T>
Status topk_rows(const T* S, int64_t n_users, int64_t n_items, int64_t k, const int64_t* ex_indptr,
                 const int64_t* ex_cols, int threads, int64_t* out_cols, double* out_scores, int64_t* out_len) {
  using namespace topk_detail;
  const int T_ = effective_threads(threads, n_users);
  std::vector<Status> tstatus(T_);
  // Finite check first (no partial output on error).
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T_) schedule(static)
#endif
  for (int64_t u = 0; u < n_users; ++u) {
    const T* row = S + u * n_items;
    for (int64_t c = 0; c < n_items; ++c)
      if (!std::isfinite(static_cast<double>(row[c]))) {
        tstatus[thread_id()].record(Code::bad_score, u, c);
        break;
      }
  }
  Status st;
  for (const auto& x : tstatus) st.merge(x);
  if (!st.ok()) return st;
  const int64_t kk = std::min(k, n_items);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T_)
#endif
  {
    std::vector<Cand> heap;
    heap.reserve(static_cast<size_t>(kk) + 1);
    std::vector<uint32_t> stamp(ex_indptr ? static_cast<size_t>(n_items) : 0, 0);
    uint32_t now = 0;
    // heap ordered so that the top is the WORST kept candidate
    auto worse_first = [](const Cand& a, const Cand& b) { return better(a, b); };
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t u = 0; u < n_users; ++u) {
      const T* row = S + u * n_items;
      if (ex_indptr) {
        if (++now == 0) {
          std::fill(stamp.begin(), stamp.end(), 0);
          now = 1;
        }
        for (int64_t p = ex_indptr[u]; p < ex_indptr[u + 1]; ++p) stamp[ex_cols[p]] = now;
      }
      heap.clear();
      if (kk > 0) {
        for (int64_t c = 0; c < n_items; ++c) {
          if (ex_indptr && stamp[c] == now) continue;
          const Cand x{static_cast<double>(row[c]), c};
          if (static_cast<int64_t>(heap.size()) < kk) {
            heap.push_back(x);
            std::push_heap(heap.begin(), heap.end(), worse_first);
          } else if (better(x, heap.front())) {
            std::pop_heap(heap.begin(), heap.end(), worse_first);
            heap.back() = x;
            std::push_heap(heap.begin(), heap.end(), worse_first);
          }
        }
      }
      std::sort(heap.begin(), heap.end(), better);
      int64_t* oc = out_cols + u * kk;
      double* os = out_scores + u * kk;
      for (size_t j = 0; j < heap.size(); ++j) {
        oc[j] = heap[j].c;
        os[j] = heap[j].s;
      }
      out_len[u] = static_cast<int64_t>(heap.size());
    }
  }
  return st;
}

}  // namespace rankmeter::core
