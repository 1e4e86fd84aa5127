// Bindings of the beyond-accuracy and pairwise kernels (rankmeter/beyond.hpp).
//
// The Python layer (python/rankmeter/evaluation/_beyond.py) validates and codes every
// input; the checks here are the memory-safety net: CSR pointers inside their
// buffers and item codes inside [0, n_items) before any kernel indexes with them.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rankmeter/beyond.hpp"
#include "rankmeter/popularity.hpp"
#include "rankmeter/propensity.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;
using U8 = py::array_t<uint8_t, py::array::c_style>;

// The recs row of every user (-1: none), or, without a map, one recs row per user.
void check_rowmap(const std::optional<I64>& rowmap, int64_t n_users, int64_t rows) {
  if (rowmap) {
    if (rowmap->ndim() != 1 || rowmap->shape(0) != n_users) throw std::invalid_argument("rowmap length");
    for (int64_t u = 0; u < n_users; ++u)
      if (rowmap->data()[u] < -1 || rowmap->data()[u] >= rows) throw std::invalid_argument("rowmap out of range");
  } else if (rows != n_users) {
    throw std::invalid_argument("recs rows must equal users without a rowmap");
  }
}

void check_csr(const I64& indptr, const I64& items, int64_t n_items, const char* what) {
  if (indptr.ndim() != 1 || indptr.shape(0) < 1 || items.ndim() != 1)
    throw std::invalid_argument(std::string(what) + ": bad CSR shape");
  const int64_t* ip = indptr.data();
  const int64_t n = indptr.shape(0) - 1, nnz = items.shape(0);
  if (ip[0] != 0 || ip[n] != nnz) throw std::invalid_argument(std::string(what) + ": indptr does not span items");
  for (int64_t u = 0; u < n; ++u)
    if (ip[u + 1] < ip[u]) throw std::invalid_argument(std::string(what) + ": indptr decreases");
  if (n_items < 0) return;  // raw ids: no range
  const int64_t* it = items.data();
  for (int64_t p = 0; p < nnz; ++p)
    if (it[p] < 0 || it[p] >= n_items) throw std::invalid_argument(std::string(what) + ": item code out of range");
}

// The lists given to prepare_lists/topk_pass: CSR (indptr + 1-D items), or a padded 2-D array of items read in
// place with the lengths of its rows (padded_lengths), indptr None.
ListsIn lists_in(int64_t n_users, const std::optional<I64>& rowmap, const std::optional<I64>& r_indptr,
                 const I64& r_items, const std::optional<I64>& r_lens) {
  ListsIn in;
  in.n_users = n_users;
  in.items = r_items.data();
  int64_t rows = 0;
  if (r_indptr) {
    check_csr(*r_indptr, r_items, -1, "recs");
    in.indptr = r_indptr->data();
    rows = r_indptr->shape(0) - 1;
  } else {
    if (!r_lens || r_items.ndim() != 2 || r_lens->ndim() != 1 || r_lens->shape(0) != r_items.shape(0))
      throw std::invalid_argument("padded recs need a 2-D items array and one length per row");
    rows = r_items.shape(0);
    in.stride = r_items.shape(1);
    in.lens = r_lens->data();
    for (int64_t r = 0; r < rows; ++r)
      if (in.lens[r] < 0 || in.lens[r] > in.stride) throw std::invalid_argument("padded row length out of range");
  }
  check_rowmap(rowmap, n_users, rows);
  in.rowmap = rowmap ? rowmap->data() : nullptr;
  return in;
}

py::tuple padded_lengths_py(const I64& items, int64_t pad, int threads) {
  if (items.ndim() != 2) throw std::invalid_argument("padded_lengths: a 2-D array is expected");
  const int64_t n = items.shape(0), stride = items.shape(1);
  I64 lens(n);
  int64_t bad;
  {
    py::gil_scoped_release release;
    bad = padded_lengths(items.data(), n, stride, pad, threads, lens.mutable_data());
  }
  return py::make_tuple(lens, bad);
}

Lists lists_of(const I64& indptr, const I64& items, const std::optional<F64>& scores, int64_t n_items) {
  check_csr(indptr, items, n_items, "lists");
  Lists L;
  L.n_users = indptr.shape(0) - 1;
  L.indptr = indptr.data();
  L.items = items.data();
  L.n_items = n_items;
  if (scores) {
    if (scores->ndim() != 1 || scores->shape(0) != items.shape(0)) throw std::invalid_argument("scores length");
    L.scores = scores->data();
  }
  return L;
}

py::tuple status_tuple(const Status& st) { return py::make_tuple(st.code, st.user, st.item); }

TruthCodes truth_of(const I64& t_indptr, const I64& t_items, const std::optional<F64>& t_grades,
                    std::optional<double> min_rel, int64_t n_users, int64_t n_items) {
  check_csr(t_indptr, t_items, n_items, "truth");
  if (t_indptr.shape(0) - 1 != n_users) throw std::invalid_argument("truth users must match the lists");
  if (t_grades && (t_grades->ndim() != 1 || t_grades->shape(0) != t_items.shape(0)))
    throw std::invalid_argument("truth grades length");
  TruthCodes t;
  t.indptr = t_indptr.data();
  t.items = t_items.data();
  t.grades = t_grades ? t_grades->data() : nullptr;
  t.has_min_relevance = min_rel.has_value();
  t.min_relevance = min_rel.value_or(0.0);
  return t;
}

void check_features(const F64& X, const U8& has, int64_t n_items) {
  if (X.ndim() != 2 || X.shape(0) != n_items || has.ndim() != 1 || has.shape(0) != n_items)
    throw std::invalid_argument("features must be n_items x d with a has-row mask of n_items");
}

py::tuple prepare_lists_py(int64_t n_users, const std::optional<I64>& rowmap, const std::optional<I64>& r_indptr,
                           const I64& r_items, const std::optional<F64>& r_scores, DupPolicy dups, int64_t max_items,
                           int64_t keep, int threads, const std::optional<I64>& r_lens) {
  // raw ids: any int64 value is fine, only the pointers need checking
  ListsIn in = lists_in(n_users, rowmap, r_indptr, r_items, r_lens);
  if (r_scores && (!r_indptr || r_scores->ndim() != 1 || r_scores->shape(0) != r_items.shape(0)))
    throw std::invalid_argument("scores length");
  in.scores = r_scores ? r_scores->data() : nullptr;
  const int64_t limit = list_limit(max_items, keep);
  std::vector<int64_t> ub(static_cast<size_t>(n_users + 1)), n_out(static_cast<size_t>(n_users));
  prepare_bounds(in, limit, ub.data());
  const int64_t cap = ub[n_users];
  I64 indptr(n_users + 1), items(cap);
  std::optional<F64> scores;
  if (r_scores) scores.emplace(cap);
  int64_t* ip = indptr.mutable_data();
  int64_t* it = items.mutable_data();
  double* sc = scores ? scores->mutable_data() : nullptr;
  Status st;
  int64_t nnz = 0;
  {
    py::gil_scoped_release release;  // raw buffers only, owned by this frame's arguments and outputs
    st = prepare_lists(in, dups, limit, max_items, threads, ub.data(), n_out.data(), it, sc);
    if (st.ok()) nnz = compact_lists(n_users, ub.data(), n_out.data(), ip, it, sc);
  }
  if (!st.ok()) return py::make_tuple(py::none(), py::none(), py::none(), status_tuple(st));
  py::object items_out = items, scores_out = scores ? py::object(*scores) : py::object(py::none());
  if (nnz != cap) {  // duplicates were dropped: hand out exact-size copies
    items_out = items[py::slice(0, nnz, 1)].attr("copy")();
    if (scores) scores_out = (*scores)[py::slice(0, nnz, 1)].attr("copy")();
  }
  return py::make_tuple(indptr, items_out, scores_out, status_tuple(st));
}

py::tuple int_range_py(const I64& x, int threads) {
  if (x.ndim() != 1) throw std::invalid_argument("ids must be 1-D");
  int64_t lo = 0, hi = -1;
  const int64_t* p = x.data();
  const int64_t n = x.shape(0);
  {
    py::gil_scoped_release release;
    int_range(p, n, threads, &lo, &hi);
  }
  return py::make_tuple(lo, hi);
}

// (n_codes, users, interactions, non-empty rows) with want_pop, else (n_codes, present mask, None,
// non-empty rows); None when an id is not a code in [0, hard_limit).
py::object train_codes_py(const I64& indptr, const I64& items, int64_t hard_limit, bool want_pop, int threads) {
  check_csr(indptr, items, -1, "train");
  std::vector<int64_t> users, inter;
  std::vector<uint8_t> present;
  int64_t n = 0, ne = 0;
  bool ok = false;
  {
    py::gil_scoped_release release;
    ok = train_codes(indptr.shape(0) - 1, indptr.data(), items.data(), hard_limit, want_pop, threads, &users, &inter,
                     &present, &n, &ne);
  }
  if (!ok) return py::none();
  if (want_pop) {
    I64 u(n), i(n);
    std::copy(users.begin(), users.end(), u.mutable_data());
    std::copy(inter.begin(), inter.end(), i.mutable_data());
    return py::make_tuple(n, u, i, ne);
  }
  U8 m(n);
  std::copy(present.begin(), present.end(), m.mutable_data());
  return py::make_tuple(n, m, py::none(), ne);
}

// (kept lengths, counts per cutoff (list of arrays), means per table (list of arrays), status), or None
// when a kept id is not a code in [0, hard_limit).
py::object topk_pass_py(int64_t n_users, const std::optional<I64>& rowmap, const std::optional<I64>& r_indptr,
                        const I64& r_items, DupPolicy dups, int64_t max_items, int64_t keep, int64_t n_base,
                        int64_t hard_limit, const std::vector<int64_t>& cutoffs, const std::vector<F64>& tables,
                        const std::vector<int64_t>& table_k, const std::vector<int64_t>& table_div, int threads,
                        const std::optional<I64>& r_lens) {
  ListsIn in = lists_in(n_users, rowmap, r_indptr, r_items, r_lens);
  if (n_base < 0 || hard_limit < n_base) throw std::invalid_argument("bad code bounds");
  if (tables.size() != table_k.size() || tables.size() != table_div.size())
    throw std::invalid_argument("one cutoff and one divide flag per table");
  TopkTables tabs;
  for (size_t t = 0; t < tables.size(); ++t) {
    if (tables[t].ndim() != 1 || tables[t].shape(0) != n_base + 1)
      throw std::invalid_argument("tables must hold n_base + 1 values");
    tabs.table.push_back(tables[t].data());
    tabs.k.push_back(table_k[t]);
    if (table_div[t] < 0 || table_div[t] > 2) throw std::invalid_argument("table mode must be 0, 1 or 2");
    tabs.divide_by_k.push_back(static_cast<char>(table_div[t]));
  }
  I64 kept(n_users);
  std::vector<F64> means;
  std::vector<double*> mp;
  for (size_t t = 0; t < tables.size(); ++t) {
    means.emplace_back(n_users);
    mp.push_back(means.back().mutable_data());
  }
  int64_t* kp = kept.mutable_data();
  std::vector<std::vector<int64_t>> counts;
  int64_t n_final = 0;
  Status st;
  bool ok = false;
  {
    py::gil_scoped_release release;
    ok = topk_pass(in, dups, list_limit(max_items, keep), max_items, n_base, hard_limit, cutoffs, tabs, threads, kp, mp,
                   counts, &n_final, &st);
  }
  if (!ok) return py::none();
  py::list cl, ml;
  for (auto& c : counts) {
    I64 a(n_final);
    std::copy(c.begin(), c.end(), a.mutable_data());
    cl.append(a);
  }
  for (auto& m : means) ml.append(m);
  return py::make_tuple(kept, cl, ml, status_tuple(st));
}

I64 item_counts_py(const I64& indptr, const I64& items, int64_t n_items, int64_t k, int threads) {
  Lists L = lists_of(indptr, items, std::nullopt, n_items);
  I64 out(n_items);
  int64_t* o = out.mutable_data();
  py::gil_scoped_release release;
  item_counts(L, k, threads, o);
  return out;
}

py::tuple train_popularity_py(const I64& indptr, const I64& items, int64_t n_items, int threads) {
  Lists L = lists_of(indptr, items, std::nullopt, n_items);
  I64 users(n_items), inter(n_items);
  int64_t* pu = users.mutable_data();
  int64_t* pi = inter.mutable_data();
  int64_t nonempty = 0;
  {
    py::gil_scoped_release release;
    nonempty = train_popularity(L.n_users, L.indptr, L.items, n_items, threads, pu, pi);
  }
  return py::make_tuple(users, inter, nonempty);
}

double cosine_overlap_py(const I64& indptr, const I64& items, int64_t n_items, int64_t k, int threads) {
  Lists L = lists_of(indptr, items, std::nullopt, n_items);
  py::gil_scoped_release release;
  return cosine_overlap_sum(L, k, threads);
}

F64 mean_item_value_py(const I64& indptr, const I64& items, const F64& table, int64_t k, bool divide_by_k,
                       int threads) {
  if (table.ndim() != 1) throw std::invalid_argument("table must be 1-D");
  Lists L = lists_of(indptr, items, std::nullopt, table.shape(0));
  F64 out(L.n_users);
  double* o = out.mutable_data();
  const double* tb = table.data();
  py::gil_scoped_release release;
  mean_item_value(L, k, tb, divide_by_k, threads, o);
  return out;
}

py::tuple diversity_features_py(const I64& indptr, const I64& items, const F64& X, const U8& has, int64_t k,
                                int threads) {
  Lists L = lists_of(indptr, items, std::nullopt, X.ndim() == 2 ? X.shape(0) : 0);
  check_features(X, has, L.n_items);
  F64 out(L.n_users);
  double* o = out.mutable_data();
  Status st;
  {
    py::gil_scoped_release release;
    st = diversity_features(L, k, X.data(), X.shape(1), has.data(), threads, o);
  }
  return py::make_tuple(out, status_tuple(st));
}

py::tuple diversity_matrix_py(const I64& indptr, const I64& items, const I64& idx, const std::optional<F64>& dense,
                              const std::optional<I64>& sp_indptr, const std::optional<I64>& sp_indices,
                              const std::optional<F64>& sp_data, int64_t k, int threads) {
  if (idx.ndim() != 1) throw std::invalid_argument("idx must be 1-D");
  Lists L = lists_of(indptr, items, std::nullopt, idx.shape(0));
  SimMatrix S;
  S.idx = idx.data();
  int64_t m = 0;
  if (dense) {
    if (dense->ndim() != 2 || dense->shape(0) != dense->shape(1)) throw std::invalid_argument("dense must be square");
    m = dense->shape(0);
    S.dense = dense->data();
    S.m = m;
  } else {
    if (!sp_indptr || !sp_indices || !sp_data) throw std::invalid_argument("sparse similarity needs three arrays");
    m = sp_indptr->shape(0) - 1;
    const int64_t* ip = sp_indptr->data();
    const int64_t nnz = sp_indices->shape(0);
    if (m < 0 || ip[0] != 0 || ip[m] != nnz || sp_data->shape(0) != nnz) throw std::invalid_argument("bad sparse");
    for (int64_t r = 0; r < m; ++r)
      if (ip[r + 1] < ip[r]) throw std::invalid_argument("bad sparse indptr");
    S.sp_indptr = ip;
    S.sp_indices = sp_indices->data();
    S.sp_data = sp_data->data();
  }
  for (int64_t i = 0; i < idx.shape(0); ++i)
    if (idx.data()[i] < -1 || idx.data()[i] >= m) throw std::invalid_argument("idx out of range");
  F64 out(L.n_users);
  double* o = out.mutable_data();
  Status st;
  {
    py::gil_scoped_release release;
    st = diversity_matrix(L, k, S, threads, o);
  }
  return py::make_tuple(out, status_tuple(st));
}

F64 diversity_cooccurrence_py(const I64& indptr, const I64& items, const I64& iu_indptr, const I64& iu_users, int64_t k,
                              int threads) {
  const int64_t n_items = iu_indptr.ndim() == 1 ? iu_indptr.shape(0) - 1 : 0;
  Lists L = lists_of(indptr, items, std::nullopt, n_items);
  check_csr(iu_indptr, iu_users, -1, "item users");
  F64 out(L.n_users);
  double* o = out.mutable_data();
  py::gil_scoped_release release;
  diversity_cooccurrence(L, k, iu_indptr.data(), iu_users.data(), threads, o);
  return out;
}

// Microsoft Recommenders' co-occurrence similarity on item codes 0..n_items-1 (rankmeter.compat.recommenders):
// count(a, b) = the pairs of rows of one train group (user) holding a and b (a != b, repeats counted), n_x = the
// train rows of x, sim(a, b) = count(a, b) / (sqrt(n_a) sqrt(n_b)), 0 when the pair never co-occurs or a = b.
// The counts are held in one open-addressing table (key lo * n_items + hi), built once, read by every thread.
class CoocTable {
 public:
  CoocTable(const int64_t* tip, const int64_t* tit, int64_t n_groups, int64_t n_rows, int64_t n_items)
      : n_items_(n_items), sq_(static_cast<size_t>(n_items), 0.0) {
    for (int64_t p = 0; p < n_rows; ++p) sq_[static_cast<size_t>(tit[p])] += 1.0;
    for (double& x : sq_) x = std::sqrt(x);
    uint64_t pairs = 0;
    for (int64_t g = 0; g < n_groups; ++g) {
      const uint64_t m = static_cast<uint64_t>(tip[g + 1] - tip[g]);
      pairs += m * (m - (m > 0)) / 2;
    }
    const uint64_t ni = static_cast<uint64_t>(n_items);
    pairs = std::min(pairs, ni * (ni - (ni > 0)) / 2);  // distinct keys: at most one per pair of items
    while ((uint64_t{1} << bits_) < 2 * pairs + 2) ++bits_;
    table_.assign(size_t{1} << bits_, Slot{-1, 0});
    mask_ = (uint64_t{1} << bits_) - 1;
    for (int64_t g = 0; g < n_groups; ++g)
      for (int64_t r = tip[g]; r < tip[g + 1]; ++r)
        for (int64_t j = r + 1; j < tip[g + 1]; ++j) {
          const int64_t a = tit[r], b = tit[j];
          if (a == b) continue;
          const int64_t key = std::min(a, b) * n_items + std::max(a, b);
          Slot& x = table_[find(key)];
          x.key = key;
          ++x.count;
        }
  }
  // the similarity as the Python version computes it: count / (sqrt(n_lo) * sqrt(n_hi))
  double sim(int64_t a, int64_t b) const {
    if (a == b) return 0.0;
    const int64_t lo = std::min(a, b), hi = std::max(a, b);
    const Slot& x = table_[find(lo * n_items_ + hi)];
    return x.key == -1 ? 0.0
                       : static_cast<double>(x.count) / (sq_[static_cast<size_t>(lo)] * sq_[static_cast<size_t>(hi)]);
  }

 private:
  struct Slot {
    int64_t key;  // -1: empty
    int64_t count;
  };
  uint64_t find(int64_t key) const {
    uint64_t i = (static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> (64 - bits_);
    while (table_[i].key != -1 && table_[i].key != key) i = (i + 1) & mask_;
    return i;
  }
  int64_t n_items_;
  std::vector<double> sq_;
  std::vector<Slot> table_;
  int bits_ = 4;
  uint64_t mask_ = 0;
};

// For every recs group: the number of its row pairs p < q with different items, and the sum of their
// similarities added in that order (p, then q ascending): the order of the Python version's weighted bincount,
// so the same bits.
py::tuple cooccurrence_pair_sums_py(const I64& t_indptr, const I64& t_items, const I64& r_indptr, const I64& r_items,
                                    int64_t n_items, int threads) {
  if (n_items < 0 || n_items > (int64_t{1} << 31)) throw std::invalid_argument("n_items must be in [0, 2^31]");
  check_csr(t_indptr, t_items, n_items, "train");
  check_csr(r_indptr, r_items, n_items, "recs");
  const int64_t n_t = t_indptr.shape(0) - 1, n_r = r_indptr.shape(0) - 1;
  const int64_t *tip = t_indptr.data(), *tit = t_items.data(), *rip = r_indptr.data(), *rit = r_items.data();
  F64 total(n_r);
  I64 count(n_r);
  double* tot = total.mutable_data();
  int64_t* cnt = count.mutable_data();
  {
    py::gil_scoped_release release;  // the buffers above only
    const CoocTable table(tip, tit, n_t, t_items.shape(0), n_items);
    const int T = effective_threads(threads, n_r);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(dynamic, 256)
#endif
    for (int64_t g = 0; g < n_r; ++g) {
      double sum = 0.0;
      int64_t c = 0;
      for (int64_t p = rip[g]; p < rip[g + 1]; ++p)
        for (int64_t q = p + 1; q < rip[g + 1]; ++q) {
          if (rit[p] == rit[q]) continue;
          ++c;
          sum += table.sim(rit[p], rit[q]);
        }
      tot[g] = sum;
      cnt[g] = c;
    }
  }
  return py::make_tuple(total, count);
}

// For every recs row r: the sum of sim(r_items[r], t) over the train rows t of its group r_groups[r], added in
// the train group's order (the Python version's weighted bincount of one (user, item) row, so the same bits).
F64 cooccurrence_row_sums_py(const I64& t_indptr, const I64& t_items, const I64& r_groups, const I64& r_items,
                             int64_t n_items, int threads) {
  if (n_items < 0 || n_items > (int64_t{1} << 31)) throw std::invalid_argument("n_items must be in [0, 2^31]");
  check_csr(t_indptr, t_items, n_items, "train");
  if (r_groups.ndim() != 1 || r_items.ndim() != 1 || r_groups.shape(0) != r_items.shape(0))
    throw std::invalid_argument("recs: groups and items must be 1-D of one length");
  const int64_t n_t = t_indptr.shape(0) - 1, n_r = r_items.shape(0);
  const int64_t *tip = t_indptr.data(), *tit = t_items.data(), *rg = r_groups.data(), *rit = r_items.data();
  for (int64_t r = 0; r < n_r; ++r) {
    if (rg[r] < 0 || rg[r] >= n_t) throw std::invalid_argument("recs: group out of range");
    if (rit[r] < 0 || rit[r] >= n_items) throw std::invalid_argument("recs: item code out of range");
  }
  F64 out(n_r);
  double* o = out.mutable_data();
  {
    py::gil_scoped_release release;  // the buffers above only
    const CoocTable table(tip, tit, n_t, t_items.shape(0), n_items);
    const int T = effective_threads(threads, n_r);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) schedule(dynamic, 1024)
#endif
    for (int64_t r = 0; r < n_r; ++r) {
      double sum = 0.0;
      const int64_t g = rg[r];
      for (int64_t t = tip[g]; t < tip[g + 1]; ++t) sum += table.sim(rit[r], tit[t]);
      o[r] = sum;
    }
  }
  return out;
}

py::tuple serendipity_py(const I64& indptr, const I64& items, const I64& t_indptr, const I64& t_items,
                         const std::optional<F64>& t_grades, std::optional<double> min_rel, const I64& h_indptr,
                         const I64& h_items, const std::optional<I64>& h_rowmap, const F64& X, const U8& has, int64_t k,
                         SerendipityRelevance relevance, const std::optional<I64>& iu_indptr,
                         const std::optional<I64>& iu_users, EmptyPolicy empty, int threads) {
  Lists L = lists_of(indptr, items, std::nullopt, X.ndim() == 2 ? X.shape(0) : 0);
  check_features(X, has, L.n_items);
  if (iu_indptr.has_value() != iu_users.has_value()) throw std::invalid_argument("item users: indptr and users");
  if (iu_indptr) check_csr(*iu_indptr, *iu_users, -1, "item users");
  if (iu_indptr && iu_indptr->shape(0) != L.n_items + 1) throw std::invalid_argument("item users: one row per item");
  TruthCodes t = truth_of(t_indptr, t_items, t_grades, min_rel, L.n_users, L.n_items);
  check_csr(h_indptr, h_items, L.n_items, "history");
  const int64_t h_rows = h_indptr.shape(0) - 1;
  if (h_rowmap) {
    if (h_rowmap->ndim() != 1 || h_rowmap->shape(0) != L.n_users) throw std::invalid_argument("history rowmap");
    for (int64_t u = 0; u < L.n_users; ++u)
      if (h_rowmap->data()[u] < -1 || h_rowmap->data()[u] >= h_rows) throw std::invalid_argument("history rowmap");
  } else if (h_rows != L.n_users) {
    throw std::invalid_argument("history rows must equal users without a rowmap");
  }
  F64 out(L.n_users);
  double* o = out.mutable_data();
  Status st;
  {
    py::gil_scoped_release release;
    st = serendipity(L, k, t, h_indptr.data(), h_items.data(), h_rowmap ? h_rowmap->data() : nullptr, X.data(),
                     X.shape(1), has.data(), relevance, iu_indptr ? iu_indptr->data() : nullptr,
                     iu_users ? iu_users->data() : nullptr, empty, threads, o);
  }
  return py::make_tuple(out, status_tuple(st));
}

py::tuple fcp_py(const I64& indptr, const I64& items, int64_t n_items, const I64& t_indptr, const I64& t_items,
                 const std::optional<F64>& t_grades, std::optional<double> min_rel, int64_t k, EmptyPolicy empty,
                 int threads) {
  Lists L = lists_of(indptr, items, std::nullopt, n_items);
  TruthCodes t = truth_of(t_indptr, t_items, t_grades, min_rel, L.n_users, n_items);
  I64 conc(L.n_users), disc(L.n_users);
  int64_t* c = conc.mutable_data();
  int64_t* d = disc.mutable_data();
  Status st;
  {
    py::gil_scoped_release release;
    st = fcp_counts(L, k, t, empty, threads, c, d);
  }
  return py::make_tuple(conc, disc, status_tuple(st));
}

double score_entropy_py(const I64& indptr, const I64& items, const F64& scores, int64_t n_items, int64_t k,
                        int threads) {
  Lists L = lists_of(indptr, items, scores, n_items);
  py::gil_scoped_release release;
  return score_entropy(L, k, threads);
}

py::tuple count_no_relevant_py(const I64& indptr, const std::optional<F64>& grades, std::optional<double> min_rel,
                               int threads) {
  if (indptr.ndim() != 1 || indptr.shape(0) < 1) throw std::invalid_argument("indptr must be 1-D");
  const int64_t n_users = indptr.shape(0) - 1;
  const int64_t* ip = indptr.data();
  const int64_t nnz = grades ? grades->shape(0) : ip[n_users];
  if (grades && grades->ndim() != 1) throw std::invalid_argument("grades must be 1-D");
  if (ip[0] != 0 || ip[n_users] != nnz) throw std::invalid_argument("indptr does not span the grades");
  for (int64_t u = 0; u < n_users; ++u)
    if (ip[u + 1] < ip[u]) throw std::invalid_argument("indptr decreases");
  const double* g = grades ? grades->data() : nullptr;
  int64_t first = -1, n = 0;
  {
    py::gil_scoped_release release;
    n = count_no_relevant(n_users, ip, g, min_rel.has_value(), min_rel.value_or(0.0), threads, &first);
  }
  return py::make_tuple(n, first);
}

py::tuple exact_sum_py(const F64& values, int threads) {
  if (values.ndim() != 1) throw std::invalid_argument("values must be 1-D");
  py::array_t<int64_t> limbs(ExactSum::kLimbs);
  int64_t count = 0;
  {
    ExactSum acc;
    const double* v = values.data();
    const int64_t n = values.shape(0);
    {
      py::gil_scoped_release release;
      count = exact_sum_values(v, n, threads, acc);
    }
    std::copy(acc.limb, acc.limb + ExactSum::kLimbs, limbs.mutable_data());
  }
  return py::make_tuple(limbs, count);
}

// (limbs [n_groups x kLimbs], counts [n_groups]): the exact sum and count of each group's non-NaN values.
py::tuple exact_sum_groups_py(const F64& values, const I64& codes, int64_t n_groups, int threads) {
  if (values.ndim() != 1 || codes.ndim() != 1 || values.shape(0) != codes.shape(0))
    throw std::invalid_argument("values and codes must be 1-D arrays of one length");
  if (n_groups < 1 || n_groups > 4096) throw std::invalid_argument("n_groups must be in [1, 4096]");
  const int64_t n = values.shape(0);
  const int64_t* c = codes.data();
  for (int64_t i = 0; i < n; ++i)
    if (c[i] < 0 || c[i] >= n_groups) throw std::invalid_argument("codes must be in [0, n_groups)");
  py::array_t<int64_t> limbs({n_groups, static_cast<int64_t>(ExactSum::kLimbs)});
  py::array_t<int64_t> counts(n_groups);
  {
    std::vector<ExactSum> acc(static_cast<size_t>(n_groups));
    const double* v = values.data();
    int64_t* cnt = counts.mutable_data();
    {
      py::gil_scoped_release release;
      exact_sum_groups(v, c, n, n_groups, threads, acc.data(), cnt);
    }
    int64_t* out = limbs.mutable_data();
    for (int64_t g = 0; g < n_groups; ++g)
      std::copy(acc[static_cast<size_t>(g)].limb, acc[static_cast<size_t>(g)].limb + ExactSum::kLimbs,
                out + g * ExactSum::kLimbs);
  }
  return py::make_tuple(limbs, counts);
}

// ---- popularity and long tail (helper pop; rankmeter/popularity.hpp)
// (values per user, relevant truth items per user or None): see popularity_values.
py::tuple popularity_values_py(const I64& indptr, const I64& items, const F64& table, int64_t k, int divide,
                               bool log_discount, const std::optional<I64>& t_indptr, const std::optional<I64>& t_items,
                               const std::optional<F64>& t_grades, std::optional<double> min_rel, int threads) {
  if (table.ndim() != 1) throw std::invalid_argument("table must be 1-D");
  if (divide < 0 || divide > 3) throw std::invalid_argument("divide must be 0..3");
  Lists L = lists_of(indptr, items, std::nullopt, table.shape(0));
  PopSpec s;
  s.k = k;
  s.table = table.data();
  s.divide = static_cast<PopDivide>(divide);
  s.log_discount = log_discount;
  s.relevance = t_indptr.has_value();
  TruthCodes t;
  if (s.relevance) {
    if (!t_items) throw std::invalid_argument("relevance needs the truth items");
    t = truth_of(*t_indptr, *t_items, t_grades, min_rel, L.n_users, L.n_items);
  }
  F64 out(L.n_users);
  I64 n_rel(s.relevance ? L.n_users : 0);
  double* o = out.mutable_data();
  int64_t* nr = n_rel.mutable_data();
  {
    py::gil_scoped_release release;
    popularity_values(L, s.relevance ? &t : nullptr, s, threads, o, nr);
  }
  return py::make_tuple(out, s.relevance ? py::object(n_rel) : py::none());
}
// ---- end of popularity and long tail

// ---- propensity-weighted metrics (rankmeter/propensity.hpp)
// (values per user, relevant truth items per user): see ips_values.
py::tuple ips_values_py(const I64& indptr, const I64& items, const F64& weight, int64_t k, int kind, bool snips,
                        const I64& t_indptr, const I64& t_items, const std::optional<F64>& t_grades,
                        std::optional<double> min_rel, int threads) {
  if (weight.ndim() != 1) throw std::invalid_argument("weight must be 1-D");
  if (kind < 0 || kind > 5) throw std::invalid_argument("kind must be 0..5");
  Lists L = lists_of(indptr, items, std::nullopt, weight.shape(0));
  TruthCodes t = truth_of(t_indptr, t_items, t_grades, min_rel, L.n_users, L.n_items);
  IpsSpec s;
  s.k = k;
  s.weight = weight.data();
  s.kind = static_cast<IpsKind>(kind);
  s.snips = snips;
  F64 out(L.n_users);
  I64 n_rel(L.n_users);
  double* o = out.mutable_data();
  int64_t* nr = n_rel.mutable_data();
  {
    py::gil_scoped_release release;  // safe: the kernel reads and writes only the buffers taken above
    ips_values(L, t, s, threads, o, nr);
  }
  return py::make_tuple(out, n_rel);
}
// ---- end of propensity-weighted metrics
}  // namespace

void bind_beyond(py::module_& m) {
  m.def("train_popularity", &train_popularity_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("n_items"), py::arg("threads"),
        "(distinct rows per item, entries per item, non-empty rows) of a CSR whose rows may repeat items");
  m.def("prepare_lists", &prepare_lists_py, py::arg("n_users"), py::arg("rowmap").noconvert(),
        py::arg("r_indptr").noconvert(), py::arg("r_items").noconvert(), py::arg("r_scores").noconvert(),
        py::arg("duplicates"), py::arg("max_items"), py::arg("keep"), py::arg("threads"),
        py::arg("r_lens").noconvert() = py::none());
  m.def("padded_lengths", &padded_lengths_py, py::arg("items").noconvert(), py::arg("pad"), py::arg("threads"),
        "(lengths of the rows of a padded 2-D int64 array, the lowest row with an item after the pad or -1)");
  m.def("int_range", &int_range_py, py::arg("x").noconvert(), py::arg("threads"),
        "(min, max) of an int64 array, (0, -1) when empty");
  m.def("train_codes", &train_codes_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("hard_limit"), py::arg("want_pop"), py::arg("threads"));
  m.def("topk_pass", &topk_pass_py, py::arg("n_users"), py::arg("rowmap").noconvert(), py::arg("r_indptr").noconvert(),
        py::arg("r_items").noconvert(), py::arg("duplicates"), py::arg("max_items"), py::arg("keep"), py::arg("n_base"),
        py::arg("hard_limit"), py::arg("cutoffs"), py::arg("tables"), py::arg("table_k"), py::arg("table_div"),
        py::arg("threads"), py::arg("r_lens").noconvert() = py::none());
  m.def("item_counts", &item_counts_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(), py::arg("n_items"),
        py::arg("k"), py::arg("threads"));
  m.def("cosine_overlap_sum", &cosine_overlap_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("n_items"), py::arg("k"), py::arg("threads"));
  m.def("mean_item_value", &mean_item_value_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("table").noconvert(), py::arg("k"), py::arg("divide_by_k"), py::arg("threads"));
  m.def("diversity_features", &diversity_features_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("X").noconvert(), py::arg("has").noconvert(), py::arg("k"), py::arg("threads"));
  m.def("diversity_matrix", &diversity_matrix_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("idx").noconvert(), py::arg("dense").noconvert(), py::arg("sp_indptr").noconvert(),
        py::arg("sp_indices").noconvert(), py::arg("sp_data").noconvert(), py::arg("k"), py::arg("threads"));
  m.def("cooccurrence_pair_sums", &cooccurrence_pair_sums_py, py::arg("t_indptr").noconvert(),
        py::arg("t_items").noconvert(), py::arg("r_indptr").noconvert(), py::arg("r_items").noconvert(),
        py::arg("n_items"), py::arg("threads"),
        "Per recs group: (sum of the co-occurrence cosines of its row pairs with different items, their number), "
        "Microsoft Recommenders' counting (rankmeter.compat.recommenders). GIL released.");
  m.def("cooccurrence_row_sums", &cooccurrence_row_sums_py, py::arg("t_indptr").noconvert(),
        py::arg("t_items").noconvert(), py::arg("r_groups").noconvert(), py::arg("r_items").noconvert(),
        py::arg("n_items"), py::arg("threads"),
        "Per recs row: the sum of the co-occurrence cosines of its item with the train rows of its group, "
        "Microsoft Recommenders' counting (rankmeter.compat.recommenders). GIL released.");
  m.def("diversity_cooccurrence", &diversity_cooccurrence_py, py::arg("indptr").noconvert(),
        py::arg("items").noconvert(), py::arg("iu_indptr").noconvert(), py::arg("iu_users").noconvert(), py::arg("k"),
        py::arg("threads"));
  m.def(
      "set_cooc_dense",
      [](int mode) {
        if (mode < -1 || mode > 1) throw py::value_error("set_cooc_dense: mode must be -1, 0 or 1");
        return beyond_detail::cooc_dense_mode().exchange(mode);
      },
      py::arg("mode"),
      "Tests and benches only: how the co-occurrence kernels count n_ab (-1 by cost, 0 merging user lists, 1 dense "
      "counts "
      "wherever they fit); returns the mode before.");
  py::enum_<SerendipityRelevance>(m, "SerendipityRelevance",
                                  "The top-k items serendipity counts (relevant, all weighed by relevance, none)")
      .value("relevant", SerendipityRelevance::relevant)
      .value("all", SerendipityRelevance::all)
      .value("none", SerendipityRelevance::none);
  m.def("serendipity", &serendipity_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("t_indptr").noconvert(), py::arg("t_items").noconvert(), py::arg("t_grades").noconvert(),
        py::arg("min_relevance"), py::arg("h_indptr").noconvert(), py::arg("h_items").noconvert(),
        py::arg("h_rowmap").noconvert(), py::arg("X").noconvert(), py::arg("has").noconvert(), py::arg("k"),
        py::arg("relevance"), py::arg("iu_indptr").noconvert(), py::arg("iu_users").noconvert(), py::arg("empty"),
        py::arg("threads"));
  m.def("fcp_counts", &fcp_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(), py::arg("n_items"),
        py::arg("t_indptr").noconvert(), py::arg("t_items").noconvert(), py::arg("t_grades").noconvert(),
        py::arg("min_relevance"), py::arg("k"), py::arg("empty"), py::arg("threads"));
  m.def("score_entropy", &score_entropy_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("scores").noconvert(), py::arg("n_items"), py::arg("k"), py::arg("threads"));
  m.def("count_no_relevant", &count_no_relevant_py, py::arg("indptr").noconvert(), py::arg("grades").noconvert(),
        py::arg("min_relevance"), py::arg("threads"), "(users without a relevant item, the first of them or -1)");
  m.def("exact_sum", &exact_sum_py, py::arg("values").noconvert(), py::arg("threads"));
  m.def("exact_sum_groups", &exact_sum_groups_py, py::arg("values").noconvert(), py::arg("codes").noconvert(),
        py::arg("n_groups"), py::arg("threads"),
        "(limbs [n_groups x kLimbs], counts): exact sums and counts of the non-NaN values per group code");
  // popularity and long tail (helper pop)
  m.def("ips_values", &ips_values_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("weight").noconvert(), py::arg("k"), py::arg("kind"), py::arg("snips"), py::arg("t_indptr").noconvert(),
        py::arg("t_items").noconvert(), py::arg("t_grades").noconvert(), py::arg("min_relevance"), py::arg("threads"),
        "(propensity-weighted value per user, relevant truth items per user): rankmeter/propensity.hpp");
  m.def("popularity_values", &popularity_values_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("table").noconvert(), py::arg("k"), py::arg("divide"), py::arg("log_discount"),
        py::arg("t_indptr").noconvert(), py::arg("t_items").noconvert(), py::arg("t_grades").noconvert(),
        py::arg("min_relevance"), py::arg("threads"),
        "(per-user popularity-table values, relevant truth items per user or None); docs/metrics.md 3.19.13-3.19.19");
}
