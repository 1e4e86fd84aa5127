// Bindings of the AUC family kernel (rankmeter/auc.hpp).
//
// The Python layer (python/rankmeter/evaluation/_beyond.py) codes the lists, the truth, the history and the
// catalog on one dense item code; the checks here are the memory-safety net: CSR pointers inside their
// buffers and item codes inside [0, n_items) before the kernel indexes with them.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "rankmeter/auc.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;
using U8 = py::array_t<uint8_t, py::array::c_style>;

void check_rows(const I64& indptr, const I64& items, int64_t rows, int64_t n_items, const char* what) {
  if (indptr.ndim() != 1 || items.ndim() != 1 || indptr.shape(0) != rows + 1)
    throw std::invalid_argument(std::string(what) + ": bad CSR shape");
  const int64_t* ip = indptr.data();
  if (ip[0] != 0 || ip[rows] != items.shape(0))
    throw std::invalid_argument(std::string(what) + ": indptr does not span items");
  for (int64_t u = 0; u < rows; ++u)
    if (ip[u + 1] < ip[u]) throw std::invalid_argument(std::string(what) + ": indptr decreases");
  const int64_t* it = items.data();
  for (int64_t p = 0; p < items.shape(0); ++p)
    if (it[p] < 0 || it[p] >= n_items) throw std::invalid_argument(std::string(what) + ": item code out of range");
}

py::tuple auc_values_py(const I64& indptr, const I64& items, const std::optional<F64>& scores, int64_t n_items,
                        const I64& t_indptr, const I64& t_items, const std::optional<F64>& t_grades,
                        std::optional<double> min_rel, const std::optional<U8>& catalog,
                        const std::optional<I64>& h_indptr, const std::optional<I64>& h_items, int64_t k,
                        double max_fpr, int threads) {
  if (indptr.ndim() != 1 || indptr.shape(0) < 1) throw std::invalid_argument("lists: bad CSR shape");
  if (n_items < 0) throw std::invalid_argument("n_items must be >= 0");
  if (k < 0) throw std::invalid_argument("k must be >= 0 (0: the whole list)");
  if (!(max_fpr > 0.0 && max_fpr <= 1.0)) throw std::invalid_argument("max_fpr must be in (0, 1]");
  AucInput in;
  in.n_users = indptr.shape(0) - 1;
  in.n_items = n_items;
  check_rows(indptr, items, in.n_users, n_items, "lists");
  check_rows(t_indptr, t_items, in.n_users, n_items, "truth");
  in.l_indptr = indptr.data();
  in.l_items = items.data();
  if (scores) {
    if (scores->ndim() != 1 || scores->shape(0) != items.shape(0)) throw std::invalid_argument("scores length");
    in.l_scores = scores->data();
  }
  if (t_grades && (t_grades->ndim() != 1 || t_grades->shape(0) != t_items.shape(0)))
    throw std::invalid_argument("truth grades length");
  in.truth.indptr = t_indptr.data();
  in.truth.items = t_items.data();
  in.truth.grades = t_grades ? t_grades->data() : nullptr;
  in.truth.has_min_relevance = min_rel.has_value();
  in.truth.min_relevance = min_rel.value_or(0.0);
  if (catalog) {
    if (catalog->ndim() != 1 || catalog->shape(0) != n_items) throw std::invalid_argument("catalog mask length");
    in.catalog = catalog->data();
    for (int64_t i = 0; i < n_items; ++i) in.n_catalog += in.catalog[i] != 0;
  }
  if (h_indptr.has_value() != h_items.has_value()) throw std::invalid_argument("history: indptr and items together");
  if (h_indptr) {
    if (!catalog) throw std::invalid_argument("history is read only with a catalog");
    check_rows(*h_indptr, *h_items, in.n_users, n_items, "history");
    in.h_indptr = h_indptr->data();
    in.h_items = h_items->data();
  }
  I64 rel(in.n_users), pos(in.n_users), neg(in.n_users);
  int64_t* pr = rel.mutable_data();
  F64 num2(in.n_users), value(in.n_users);
  int64_t* pp = pos.mutable_data();
  int64_t* pn = neg.mutable_data();
  double* p2 = num2.mutable_data();
  double* pv = value.mutable_data();
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and outputs above
    auc_values(in, k, max_fpr, threads, pr, pp, pn, p2, pv);
  }
  return py::make_tuple(rel, pos, neg, num2, value);
}

}  // namespace

void bind_auc(py::module_& m) {
  m.def("auc_values", &auc_values_py, py::arg("indptr").noconvert(), py::arg("items").noconvert(),
        py::arg("scores").noconvert(), py::arg("n_items"), py::arg("t_indptr").noconvert(),
        py::arg("t_items").noconvert(), py::arg("t_grades").noconvert(), py::arg("min_relevance"),
        py::arg("catalog").noconvert(), py::arg("h_indptr").noconvert(), py::arg("h_items").noconvert(), py::arg("k"),
        py::arg("max_fpr"), py::arg("threads"),
        "(relevant items, positives, negatives, 2 P N AUC, value) per user: the AUC family kernel (docs/metrics.md, "
        "3.19.10)");
}
