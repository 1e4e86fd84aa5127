// rankmeter/torch_order.hpp — torchmetrics' order of equal scores (ties="torch", "torch_topk";
// docs/metrics.md 6.3). Bound by cpp/src/bind_inputs.cpp.
//
// torchmetrics ranks a query's documents with torch.argsort(preds, descending=True) or
// preds.topk(k). On CPU, torch runs the C++ standard library's unstable algorithms on
// (value, index) pairs compared by value only: std::sort for argsort; std::nth_element to
// place the k-th then std::sort of the first k - 1 for topk, or std::partial_sort when
// 64 k <= n. Before that, its retrieval metrics group the rows by query with
// torch.sort(indexes), itself std::sort of (index, row) pairs below 32768 rows. The order of
// equal values is what those algorithms leave, so it is reproduced here step by step, as
// GNU libstdc++ (the library of torch's Linux builds) implements them: introsort (median of
// three moved to the front, unguarded partition, heap sort past 2 log2(n) levels, insertion
// sort for ranges of at most 16 entries), introselect (the same partition, heap select past
// the depth limit, insertion sort under 4 entries) and heap-select partial sort. Every
// comparison is on the value only; the index rides along.
#pragma once
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "parallel.hpp"

namespace rankmeter::core {

namespace stl_order {

template <class V>
struct Entry {
  V v;
  int64_t i;
};

// The comparator of torch's descending sort and topk: NaN first, then larger values.
struct Greater {
  bool operator()(double a, double b) const { return (std::isnan(a) && !std::isnan(b)) || a > b; }
};
struct Less {
  bool operator()(int64_t a, int64_t b) const { return a < b; }
};

inline int64_t floor_log2(int64_t n) {
  int64_t r = 0;
  while (n > 1) {
    n >>= 1;
    ++r;
  }
  return r;
}

template <class E, class C>
inline void linear_insert(E* a, int64_t last, C comp) {  // a[..last) sorted, a[last] moves left
  E v = a[last];
  int64_t j = last - 1;
  while (comp(v.v, a[j].v)) {
    a[j + 1] = a[j];
    --j;
  }
  a[j + 1] = v;
}

template <class E, class C>
inline void insertion_sort(E* a, int64_t first, int64_t last, C comp) {
  if (first == last) return;
  for (int64_t i = first + 1; i < last; ++i) {
    if (comp(a[i].v, a[first].v)) {
      E v = a[i];
      for (int64_t j = i; j > first; --j) a[j] = a[j - 1];
      a[first] = v;
    } else {
      linear_insert(a, i, comp);
    }
  }
}

template <class E, class C>
inline void sift(E* a, int64_t first, int64_t hole, int64_t len, E v, C comp) {
  const int64_t top = hole;
  int64_t child = hole;
  while (child < (len - 1) / 2) {
    child = 2 * (child + 1);
    if (comp(a[first + child].v, a[first + child - 1].v)) --child;
    a[first + hole] = a[first + child];
    hole = child;
  }
  if ((len & 1) == 0 && child == (len - 2) / 2) {
    child = 2 * (child + 1);
    a[first + hole] = a[first + child - 1];
    hole = child - 1;
  }
  int64_t parent = (hole - 1) / 2;
  while (hole > top && comp(a[first + parent].v, v.v)) {
    a[first + hole] = a[first + parent];
    hole = parent;
    parent = (hole - 1) / 2;
  }
  a[first + hole] = v;
}

template <class E, class C>
inline void pop_into(E* a, int64_t first, int64_t last, int64_t result, C comp) {
  E v = a[result];
  a[result] = a[first];
  sift(a, first, 0, last - first, v, comp);
}

template <class E, class C>
inline void make_heap(E* a, int64_t first, int64_t last, C comp) {
  const int64_t len = last - first;
  if (len < 2) return;
  for (int64_t parent = (len - 2) / 2;; --parent) {
    sift(a, first, parent, len, a[first + parent], comp);
    if (parent == 0) return;
  }
}

template <class E, class C>
inline void heap_select(E* a, int64_t first, int64_t middle, int64_t last, C comp) {
  make_heap(a, first, middle, comp);
  for (int64_t i = middle; i < last; ++i)
    if (comp(a[i].v, a[first].v)) pop_into(a, first, middle, i, comp);
}

template <class E, class C>
inline void sort_heap(E* a, int64_t first, int64_t last, C comp) {
  while (last - first > 1) {
    --last;
    pop_into(a, first, last, last, comp);
  }
}

template <class E, class C>
inline void partial_sort(E* a, int64_t first, int64_t middle, int64_t last, C comp) {
  heap_select(a, first, middle, last, comp);
  sort_heap(a, first, middle, comp);
}

// The pivot (median of a[first + 1], a[mid], a[last - 1]) swapped to a[first], then the
// range partitioned around it; returns the cut.
template <class E, class C>
inline int64_t partition_pivot(E* a, int64_t first, int64_t last, C comp) {
  const int64_t x = first + 1, y = first + (last - first) / 2, z = last - 1;
  int64_t m;
  if (comp(a[x].v, a[y].v)) {
    m = comp(a[y].v, a[z].v) ? y : comp(a[x].v, a[z].v) ? z : x;
  } else {
    m = comp(a[x].v, a[z].v) ? x : comp(a[y].v, a[z].v) ? z : y;
  }
  std::swap(a[first], a[m]);
  int64_t lo = first + 1, hi = last;
  for (;;) {
    while (comp(a[lo].v, a[first].v)) ++lo;
    --hi;
    while (comp(a[first].v, a[hi].v)) --hi;
    if (!(lo < hi)) return lo;
    std::swap(a[lo], a[hi]);
    ++lo;
  }
}

template <class E, class C>
inline void introsort_loop(E* a, int64_t first, int64_t last, int64_t depth, C comp) {
  while (last - first > 16) {
    if (depth == 0) {
      partial_sort(a, first, last, last, comp);
      return;
    }
    --depth;
    const int64_t cut = partition_pivot(a, first, last, comp);
    introsort_loop(a, cut, last, depth, comp);
    last = cut;
  }
}

template <class E, class C>
inline void sort(E* a, int64_t first, int64_t last, C comp) {
  if (first == last) return;
  introsort_loop(a, first, last, 2 * floor_log2(last - first), comp);
  if (last - first > 16) {
    insertion_sort(a, first, first + 16, comp);
    for (int64_t i = first + 16; i < last; ++i) linear_insert(a, i, comp);
  } else {
    insertion_sort(a, first, last, comp);
  }
}

template <class E, class C>
inline void nth_element(E* a, int64_t first, int64_t nth, int64_t last, C comp) {
  if (first == last || nth == last) return;
  int64_t depth = 2 * floor_log2(last - first);
  while (last - first > 3) {
    if (depth == 0) {
      heap_select(a, first, nth + 1, last, comp);
      std::swap(a[first], a[nth]);
      return;
    }
    --depth;
    const int64_t cut = partition_pivot(a, first, last, comp);
    if (cut <= nth)
      first = cut;
    else
      last = cut;
  }
  insertion_sort(a, first, last, comp);
}

}  // namespace stl_order

// order[nnz]: every list (CSR indptr) ranked by `keys` descending as torch ranks it, as global
// positions. k < 0: torch.argsort(descending=True); k >= 0: keys.topk(min(k, n)) (k = 0: the
// list's length), whose first min(k, n) positions are topk's result and the rest what its
// algorithm leaves after them.
inline void order_torch(const int64_t* indptr, int64_t n_users, const double* keys, int64_t k, int64_t* order,
                        int threads) {
  const int T = effective_threads(threads, n_users);
  (void)T;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    std::vector<stl_order::Entry<double>> buf;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (int64_t u = 0; u < n_users; ++u) {
      const int64_t b = indptr[u], n = indptr[u + 1] - b;
      buf.resize(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) buf[static_cast<size_t>(j)] = {keys[b + j], j};
      stl_order::Entry<double>* a = buf.data();
      const stl_order::Greater comp;
      if (k < 0) {
        stl_order::sort(a, 0, n, comp);
      } else if (n > 0) {
        const int64_t kk = (k == 0 || k > n) ? n : k;
        if (kk * 64 <= n) {
          stl_order::partial_sort(a, 0, kk, n, comp);
        } else {
          stl_order::nth_element(a, 0, kk - 1, n, comp);
          stl_order::sort(a, 0, kk - 1, comp);
        }
      }
      for (int64_t j = 0; j < n; ++j) order[b + j] = b + a[j].i;
    }
  }
}

// perm[n]: the rows 0..n-1 as std::sort orders (key, row) pairs by key ascending (torch.sort
// of an int64 tensor below 32768 entries).
inline void stl_sort_int64(const int64_t* keys, int64_t n, int64_t* perm) {
  std::vector<stl_order::Entry<int64_t>> buf(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) buf[static_cast<size_t>(j)] = {keys[j], j};
  stl_order::sort(buf.data(), 0, n, stl_order::Less{});
  for (int64_t j = 0; j < n; ++j) perm[j] = buf[static_cast<size_t>(j)].i;
}

}  // namespace rankmeter::core
