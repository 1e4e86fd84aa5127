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
#include <vector>

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
  if (n_items < 0) return;  // raw ids: no range to check
  const int64_t* it = items.data();
  for (int64_t p = 0; p < items.shape(0); ++p)
    if (it[p] < 0 || it[p] >= n_items) throw std::invalid_argument(std::string(what) + ": item code out of range");
}

void check_row_count(const std::optional<I64>& rowmap, int64_t n_users, int64_t rows, bool may_miss) {
  if (rowmap) {
    if (rowmap->ndim() != 1 || rowmap->shape(0) != n_users) throw std::invalid_argument("rowmap length");
    const int64_t* r = rowmap->data();
    for (int64_t u = 0; u < n_users; ++u)
      if (r[u] < (may_miss ? -1 : 0) || r[u] >= rows) throw std::invalid_argument("rowmap out of range");
  } else if (rows != n_users) {
    throw std::invalid_argument("list rows must equal users without a rowmap");
  }
}

void fill_truth(AucInput& in, const I64& t_indptr, const I64& t_items, const std::optional<F64>& t_grades,
                std::optional<double> min_rel) {
  if (t_grades && (t_grades->ndim() != 1 || t_grades->shape(0) != t_items.shape(0)))
    throw std::invalid_argument("truth grades length");
  in.truth.indptr = t_indptr.data();
  in.truth.items = t_items.data();
  in.truth.grades = t_grades ? t_grades->data() : nullptr;
  in.truth.has_min_relevance = min_rel.has_value();
  in.truth.min_relevance = min_rel.value_or(0.0);
}

// Allocates the per-user outputs (relevant, positives, negatives, 2 x the AUC numerator, value), runs
// kernel(rel, pos, neg, num2, value) -> Status without the GIL (raw buffers only, kept alive by the caller's
// arguments and the arrays here), and returns them with the status.
template <class Kernel>
py::tuple run_outputs(int64_t n_users, Kernel&& kernel) {
  I64 rel(n_users), pos(n_users), neg(n_users);
  F64 num2(n_users), value(n_users);
  int64_t* pr = rel.mutable_data();
  int64_t* pp = pos.mutable_data();
  int64_t* pn = neg.mutable_data();
  double* p2 = num2.mutable_data();
  double* pv = value.mutable_data();
  Status st;
  {
    py::gil_scoped_release release;
    st = kernel(pr, pp, pn, p2, pv);
  }
  return py::make_tuple(rel, pos, neg, num2, value, py::make_tuple(st.code, st.user, st.item));
}

// The lists as given (CSR, or a padded 2-D array with its row lengths, indptr None), read in place through
// rowmap with the duplicates policy, max_items and keep of prepare_lists; list items may be any int64.
py::tuple auc_values_py(int64_t n_users, const std::optional<I64>& rowmap, const std::optional<I64>& indptr,
                        const I64& items, const std::optional<F64>& scores, const std::optional<I64>& lens,
                        DupPolicy dups, int64_t max_items, int64_t keep, int64_t n_items, const I64& t_indptr,
                        const I64& t_items, const std::optional<F64>& t_grades, std::optional<double> min_rel,
                        const std::optional<U8>& catalog, const std::optional<I64>& h_indptr,
                        const std::optional<I64>& h_items, int64_t k, double max_fpr, AucTies ties, int threads) {
  if (n_users < 0 || n_items < 0 || max_items < 0 || keep < 0) throw std::invalid_argument("negative size");
  if (k < 0) throw std::invalid_argument("k must be >= 0 (0: the whole list)");
  if (!(max_fpr > 0.0 && max_fpr <= 1.0)) throw std::invalid_argument("max_fpr must be in (0, 1]");
  AucInput in;
  in.n_users = n_users;
  in.n_items = n_items;
  in.lists.n_users = n_users;
  in.lists.items = items.data();
  int64_t rows = 0;
  if (indptr) {
    if (items.ndim() != 1 || indptr->ndim() != 1 || indptr->shape(0) < 1)
      throw std::invalid_argument("lists: bad CSR shape");
    rows = indptr->shape(0) - 1;
    check_rows(*indptr, items, rows, -1, "lists");
    in.lists.indptr = indptr->data();
    if (scores) {
      if (scores->ndim() != 1 || scores->shape(0) != items.shape(0)) throw std::invalid_argument("scores length");
      in.lists.scores = scores->data();
    }
  } else {
    if (scores) throw std::invalid_argument("padded lists carry no scores");
    if (!lens || items.ndim() != 2 || lens->ndim() != 1 || lens->shape(0) != items.shape(0))
      throw std::invalid_argument("padded lists need a 2-D items array and one length per row");
    rows = items.shape(0);
    in.lists.stride = items.shape(1);
    in.lists.lens = lens->data();
    for (int64_t r = 0; r < rows; ++r)
      if (in.lists.lens[r] < 0 || in.lists.lens[r] > in.lists.stride)
        throw std::invalid_argument("padded row length out of range");
  }
  check_row_count(rowmap, n_users, rows, true);
  in.lists.rowmap = rowmap ? rowmap->data() : nullptr;
  in.dups = dups;
  in.max_items = max_items;
  in.keep = keep;
  check_rows(t_indptr, t_items, n_users, n_items, "truth");
  fill_truth(in, t_indptr, t_items, t_grades, min_rel);
  if (catalog) {
    if (catalog->ndim() != 1 || catalog->shape(0) != n_items) throw std::invalid_argument("catalog mask length");
    in.catalog = catalog->data();
    for (int64_t i = 0; i < n_items; ++i) in.n_catalog += in.catalog[i] != 0;
  }
  if (h_indptr.has_value() != h_items.has_value()) throw std::invalid_argument("history: indptr and items together");
  if (h_indptr) {
    if (!catalog) throw std::invalid_argument("history is read only with a catalog");
    check_rows(*h_indptr, *h_items, n_users, n_items, "history");
    in.h_indptr = h_indptr->data();
    in.h_items = h_items->data();
  }
  return run_outputs(n_users, [&](int64_t* pr, int64_t* pp, int64_t* pn, double* p2, double* pv) {
    return auc_values(in, k, max_fpr, ties, threads, pr, pp, pn, p2, pv);
  });
}

// A dense users x items score matrix (float32 or float64, C order, read in place): rowmap[u] is the row of truth
// user u; truth codes are column indices (other codes: relevant items that are not columns).
template <class T>
py::tuple auc_matrix_py(const py::array_t<T, py::array::c_style>& matrix, const std::optional<I64>& rowmap,
                        const I64& t_indptr, const I64& t_items, const std::optional<F64>& t_grades,
                        std::optional<double> min_rel, double max_fpr, AucTies ties, int threads) {
  if (matrix.ndim() != 2) throw std::invalid_argument("matrix must be 2-D");
  if (!(max_fpr > 0.0 && max_fpr <= 1.0)) throw std::invalid_argument("max_fpr must be in (0, 1]");
  const int64_t rows = matrix.shape(0), cols = matrix.shape(1);
  if (t_indptr.ndim() != 1 || t_indptr.shape(0) < 1) throw std::invalid_argument("truth: bad CSR shape");
  const int64_t n_users = t_indptr.shape(0) - 1;
  check_row_count(rowmap, n_users, rows, false);
  check_rows(t_indptr, t_items, n_users, -1, "truth");
  AucInput in;
  fill_truth(in, t_indptr, t_items, t_grades, min_rel);
  std::vector<int64_t> identity;
  const int64_t* rm = rowmap ? rowmap->data() : nullptr;
  if (!rm) {
    identity.resize(static_cast<size_t>(n_users));
    for (int64_t u = 0; u < n_users; ++u) identity[u] = u;
    rm = identity.data();
  }
  return run_outputs(n_users, [&](int64_t* pr, int64_t* pp, int64_t* pn, double* p2, double* pv) {
    return auc_matrix(matrix.data(), cols, rm, n_users, in.truth, max_fpr, threads, pr, pp, pn, p2, pv, ties);
  });
}

}  // namespace

void bind_auc(py::module_& m) {
  py::enum_<AucTies>(m, "AucTies", "What a tied (positive, negative) pair counts in an AUC (docs/metrics.md 3.19.10).")
      .value("half", AucTies::half)
      .value("strict", AucTies::strict)
      .value("optimistic", AucTies::optimistic);
  m.def("auc_values", &auc_values_py, py::arg("n_users"), py::arg("rowmap").noconvert(), py::arg("indptr").noconvert(),
        py::arg("items").noconvert(), py::arg("scores").noconvert(), py::arg("lens").noconvert(), py::arg("dups"),
        py::arg("max_items"), py::arg("keep"), py::arg("n_items"), py::arg("t_indptr").noconvert(),
        py::arg("t_items").noconvert(), py::arg("t_grades").noconvert(), py::arg("min_relevance"),
        py::arg("catalog").noconvert(), py::arg("h_indptr").noconvert(), py::arg("h_items").noconvert(), py::arg("k"),
        py::arg("max_fpr"), py::arg("ties"), py::arg("threads"),
        "(relevant items, positives, negatives, 2 P N AUC, value, status) per user from the lists read in place: the "
        "AUC family kernel (docs/metrics.md, 3.19.10)");
  const char* doc =
      "(relevant items, positives, negatives, 2 P N AUC, value, status) per user of a dense score matrix, every "
      "column a candidate (docs/metrics.md, 3.19.10)";
  m.def("auc_matrix_f32", &auc_matrix_py<float>, py::arg("matrix").noconvert(), py::arg("rowmap").noconvert(),
        py::arg("t_indptr").noconvert(), py::arg("t_items").noconvert(), py::arg("t_grades").noconvert(),
        py::arg("min_relevance"), py::arg("max_fpr"), py::arg("ties"), py::arg("threads"), doc);
  m.def("auc_matrix_f64", &auc_matrix_py<double>, py::arg("matrix").noconvert(), py::arg("rowmap").noconvert(),
        py::arg("t_indptr").noconvert(), py::arg("t_items").noconvert(), py::arg("t_grades").noconvert(),
        py::arg("min_relevance"), py::arg("max_fpr"), py::arg("ties"), py::arg("threads"), doc);
}
