// Bindings of the exposure kernels (rankmeter/exposure.hpp). The Python layer (python/rankmeter/evaluation/
// _exposure.py) reads `item_groups`, codes the items with the lists and builds the truth, history and group tables;
// the checks here are the memory-safety net.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "rankmeter/exposure.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;
using U8 = py::array_t<uint8_t, py::array::c_style>;

void check_indptr(const I64& indptr, int64_t rows, int64_t n, const char* what) {
  if (indptr.ndim() != 1 || indptr.size() != rows + 1) throw std::invalid_argument(std::string(what) + ": bad size");
  const int64_t* ip = indptr.data();
  if (ip[0] != 0 || ip[rows] != n) throw std::invalid_argument(std::string(what) + " must run from 0 to the size");
  for (int64_t i = 1; i <= rows; ++i)
    if (ip[i] < ip[i - 1]) throw std::invalid_argument(std::string(what) + " must not decrease");
}

void check_codes(const I64& items, int64_t n_items, const char* what) {
  const int64_t* p = items.data();
  for (int64_t i = 0; i < items.size(); ++i)
    if (p[i] < 0 || p[i] >= n_items) throw std::invalid_argument(std::string(what) + ": item code out of range");
}

// the top-k entry offsets of every user and their total
I64 entry_starts(const I64& l_indptr, int64_t k, int64_t& total) {
  const int64_t n = l_indptr.size() - 1;
  I64 out(n);
  int64_t* o = out.mutable_data();
  const int64_t* ip = l_indptr.data();
  total = 0;
  for (int64_t u = 0; u < n; ++u) {
    o[u] = total;
    int64_t len = ip[u + 1] - ip[u];
    if (k > 0 && len > k) len = k;
    total += len;
  }
  return out;
}

py::tuple exposure_lookup_py(const I64& l_indptr, const I64& l_items, const I64& t_indptr, const I64& t_items,
                             std::optional<F64> t_grades, std::optional<I64> h_indptr, std::optional<I64> h_items,
                             int64_t n_items, int64_t k, int ideal, int threads) {
  const int64_t n_users = l_indptr.size() - 1;
  if (n_users < 0) throw std::invalid_argument("l_indptr: bad size");
  if (k < 0) throw std::invalid_argument("k must be >= 0 (0: the whole list)");
  if (ideal < 0 || ideal > 2) throw std::invalid_argument("unknown ideal code");
  check_indptr(l_indptr, n_users, l_items.size(), "l_indptr");
  check_indptr(t_indptr, n_users, t_items.size(), "t_indptr");
  check_codes(l_items, n_items, "l_items");
  check_codes(t_items, n_items, "t_items");
  if (t_grades && t_grades->size() != t_items.size()) throw std::invalid_argument("t_grades: bad size");
  if (h_indptr.has_value() != h_items.has_value()) throw std::invalid_argument("h_indptr and h_items go together");
  if (h_indptr) {
    check_indptr(*h_indptr, n_users, h_items->size(), "h_indptr");
    check_codes(*h_items, n_items, "h_items");
  }
  int64_t total = 0;
  I64 starts = entry_starts(l_indptr, k, total);
  F64 e_grade(total);
  U8 e_first(total), t_seen(t_items.size());
  F64 ideal_dcg(ideal ? n_users : 0);
  ExposureLists L{n_users, l_indptr.data(), l_items.data(), starts.data(), k};
  const double* tg = t_grades ? t_grades->data() : nullptr;
  const int64_t* hp = h_indptr ? h_indptr->data() : nullptr;
  const int64_t* hi = h_items ? h_items->data() : nullptr;
  double* eg = e_grade.mutable_data();
  uint8_t* ef = e_first.mutable_data();
  uint8_t* ts = t_seen.mutable_data();
  double* id = ideal_dcg.mutable_data();
  if (!hp) std::fill(ts, ts + t_items.size(), uint8_t{0});
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and outputs above
    exposure_lookup(L, t_indptr.data(), t_items.data(), tg, hp, hi, n_items, ideal, eg, ef, ts, id, threads);
  }
  return py::make_tuple(e_grade, e_first, t_seen, ideal_dcg);
}

F64 awrf_values_py(const I64& l_indptr, const I64& l_items, int64_t k, const F64& attention, const I64& g_indptr,
                   const I64& g_codes, int64_t n_groups, bool own_bucket, bool multi_each, std::optional<F64> fixed,
                   std::optional<I64> t_indptr, std::optional<I64> t_items, std::optional<U8> t_rel, double log_base,
                   int threads) {
  const int64_t n_users = l_indptr.size() - 1;
  if (n_users < 0) throw std::invalid_argument("l_indptr: bad size");
  if (k < 0) throw std::invalid_argument("k must be >= 0 (0: the whole list)");
  check_indptr(l_indptr, n_users, l_items.size(), "l_indptr");
  const int64_t n_items = g_indptr.size() - 1;
  if (n_items < 0) throw std::invalid_argument("g_indptr: bad size");
  check_indptr(g_indptr, n_items, g_codes.size(), "g_indptr");
  const int64_t listed = own_bucket ? n_groups - 1 : n_groups;
  if (n_groups < 1 || listed < 0) throw std::invalid_argument("n_groups must be >= 1");
  for (int64_t i = 0; i < g_codes.size(); ++i)
    if (g_codes.data()[i] < 0 || g_codes.data()[i] >= listed) throw std::invalid_argument("g_codes out of range");
  const int64_t* li = l_items.data();
  for (int64_t i = 0; i < l_items.size(); ++i)
    if (li[i] < 0) throw std::invalid_argument("l_items: negative item code");
  int64_t total = 0;
  I64 starts = entry_starts(l_indptr, k, total);
  if (attention.size() != total) throw std::invalid_argument("attention: one value per top-k entry");
  if (fixed) {
    if (fixed->size() != n_groups) throw std::invalid_argument("fixed: one share per group");
  } else {
    if (!t_indptr || !t_items || !t_rel) throw std::invalid_argument("a fixed target or the truth is needed");
    check_indptr(*t_indptr, n_users, t_items->size(), "t_indptr");
    if (t_rel->size() != t_items->size()) throw std::invalid_argument("t_rel: bad size");
    for (int64_t i = 0; i < t_items->size(); ++i)
      if (t_items->data()[i] < 0) throw std::invalid_argument("t_items: negative item code");
  }
  if (!(log_base > 0 && log_base != 1.0)) throw std::invalid_argument("log_base must be > 0 and != 1");
  F64 out(n_users);
  ExposureLists L{n_users, l_indptr.data(), li, starts.data(), k};
  AwrfGroups G{g_indptr.data(), g_codes.data(), n_items, n_groups, own_bucket, multi_each};
  const double* fx = fixed ? fixed->data() : nullptr;
  const int64_t* tp = t_indptr ? t_indptr->data() : nullptr;
  const int64_t* ti = t_items ? t_items->data() : nullptr;
  const uint8_t* tr = t_rel ? t_rel->data() : nullptr;
  double* o = out.mutable_data();
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and output above
    awrf_values(L, attention.data(), G, fx, tp, ti, tr, log_base, o, threads);
  }
  return out;
}

}  // namespace

void bind_exposure(py::module_& m) {
  m.def("exposure_lookup", &exposure_lookup_py, py::arg("l_indptr"), py::arg("l_items"), py::arg("t_indptr"),
        py::arg("t_items"), py::arg("t_grades").none(true), py::arg("h_indptr").none(true),
        py::arg("h_items").none(true), py::arg("n_items"), py::arg("k"), py::arg("ideal"), py::arg("threads"),
        "per top-k entry its truth grade and first-occurrence flag, per truth entry whether it is in the history, "
        "per user the ideal DCG (ideal 1: 1/log2(j+1), 2: 1/log2(max(j,2)))");
  m.def("awrf_values", &awrf_values_py, py::arg("l_indptr"), py::arg("l_items"), py::arg("k"), py::arg("attention"),
        py::arg("g_indptr"), py::arg("g_codes"), py::arg("n_groups"), py::arg("own_bucket"), py::arg("multi_each"),
        py::arg("fixed").none(true), py::arg("t_indptr").none(true), py::arg("t_items").none(true),
        py::arg("t_rel").none(true), py::arg("log_base"), py::arg("threads"),
        "AWRF per user: 1 - JSD(attention-weighted group distribution, target) / ln(log_base) (NaN: no distribution)");
}
