// Bindings of the input kernels (rankmeter/inputs.hpp): score-matrix top-k, long tables, TREC files.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "rankmeter/inputs.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;

template <class T>
py::tuple topk_impl(const py::array_t<T, py::array::c_style>& S, int64_t k, const std::optional<I64>& ex_indptr,
                    const std::optional<I64>& ex_cols, int threads) {
  if (S.ndim() != 2) throw std::invalid_argument("scores must be 2-D");
  if (k < 0) throw std::invalid_argument("k must be >= 0");
  const int64_t n_users = S.shape(0), n_items = S.shape(1);
  if (ex_indptr.has_value() != ex_cols.has_value()) throw std::invalid_argument("exclude needs indptr and columns");
  if (ex_indptr) {
    if (ex_indptr->ndim() != 1 || ex_indptr->shape(0) != n_users + 1 || ex_cols->ndim() != 1)
      throw std::invalid_argument("exclude shape");
    const int64_t* ip = ex_indptr->data();
    if (ip[0] != 0 || ip[n_users] != ex_cols->shape(0)) throw std::invalid_argument("exclude indptr");
    for (int64_t u = 0; u < n_users; ++u)
      if (ip[u + 1] < ip[u]) throw std::invalid_argument("exclude indptr decreases");
    const int64_t* c = ex_cols->data();
    for (int64_t p = 0; p < ex_cols->shape(0); ++p)
      if (c[p] < 0 || c[p] >= n_items) throw std::invalid_argument("exclude column out of range");
  }
  const int64_t kk = std::min(k, n_items);
  I64 cols({n_users, kk});
  py::array_t<double> scores({n_users, kk});
  I64 lens(n_users);
  int64_t* oc = cols.mutable_data();
  double* os = scores.mutable_data();
  int64_t* ol = lens.mutable_data();
  Status st;
  {
    // Safe: raw buffers of the arguments and the fresh outputs, all referenced by this frame.
    py::gil_scoped_release release;
    st = topk_rows<T>(S.data(), n_users, n_items, k, ex_indptr ? ex_indptr->data() : nullptr,
                      ex_cols ? ex_cols->data() : nullptr, threads, oc, os, ol);
  }
  return py::make_tuple(cols, scores, lens, py::make_tuple(static_cast<int>(st.code), st.user, st.item));
}

py::tuple factorize_int64_py(const I64& ids) {
  if (ids.ndim() != 1) throw std::invalid_argument("ids must be 1-D");
  const int64_t n = ids.shape(0);
  I64 codes(n);
  std::vector<int64_t> first;
  {
    py::gil_scoped_release release;
    factorize_ids(ids.data(), n, codes.mutable_data(), first);
  }
  I64 first_row(static_cast<py::ssize_t>(first.size()));
  std::copy(first.begin(), first.end(), first_row.mutable_data());
  return py::make_tuple(codes, first_row);
}

py::tuple group_rows_py(const I64& codes, int64_t n_codes, const std::optional<I64>& rank) {
  if (codes.ndim() != 1) throw std::invalid_argument("codes must be 1-D");
  const int64_t n = codes.shape(0);
  if (n_codes < 0) throw std::invalid_argument("n_codes must be >= 0");
  const int64_t* c = codes.data();
  for (int64_t r = 0; r < n; ++r)
    if (c[r] < 0 || c[r] >= n_codes) throw std::invalid_argument("code out of range");
  if (rank && (rank->ndim() != 1 || rank->shape(0) != n)) throw std::invalid_argument("rank length");
  I64 indptr(n_codes + 1), order(n);
  int64_t bad = -1;
  {
    py::gil_scoped_release release;
    if (rank)
      bad = group_by_rank(c, rank->data(), n, n_codes, indptr.mutable_data(), order.mutable_data());
    else
      group_stable(c, n, n_codes, indptr.mutable_data(), order.mutable_data());
  }
  return py::make_tuple(indptr, order, bad);
}

// order[nnz]: every list's entries by score descending, ties by key descending, then input order.
I64 order_by_score_py(const I64& indptr, const F64& scores, const std::optional<I64>& key, int threads) {
  if (indptr.ndim() != 1 || indptr.shape(0) < 1) throw std::invalid_argument("indptr must be 1-D and non-empty");
  if (scores.ndim() != 1) throw std::invalid_argument("scores must be 1-D");
  const int64_t n_users = indptr.shape(0) - 1, nnz = scores.shape(0);
  const int64_t* ip = indptr.data();
  if (ip[0] != 0 || ip[n_users] != nnz) throw std::invalid_argument("indptr does not match scores");
  for (int64_t u = 0; u < n_users; ++u)
    if (ip[u + 1] < ip[u]) throw std::invalid_argument("indptr must be non-decreasing");
  if (key && (key->ndim() != 1 || key->shape(0) != nnz)) throw std::invalid_argument("key length");
  I64 order(nnz);
  const int64_t* k = key ? key->data() : nullptr;
  {
    // Safe: only the raw buffers above (kept alive by the arguments) are touched.
    py::gil_scoped_release release;
    order_by_score(ip, n_users, scores.data(), k, order.mutable_data(), threads);
  }
  return order;
}

// order[nnz]: every list by numba's quicksort argsort of `keys` (ranx's order; reversed per list with `reverse`).
I64 order_numba_quicksort_py(const I64& indptr, const F64& keys, bool reverse, int threads) {
  if (indptr.ndim() != 1 || indptr.shape(0) < 1) throw std::invalid_argument("indptr must be 1-D and non-empty");
  if (keys.ndim() != 1) throw std::invalid_argument("keys must be 1-D");
  const int64_t n_users = indptr.shape(0) - 1, nnz = keys.shape(0);
  const int64_t* ip = indptr.data();
  if (ip[0] != 0 || ip[n_users] != nnz) throw std::invalid_argument("indptr does not match keys");
  for (int64_t u = 0; u < n_users; ++u)
    if (ip[u + 1] < ip[u]) throw std::invalid_argument("indptr must be non-decreasing");
  I64 order(nnz);
  {
    py::gil_scoped_release release;  // only the raw buffers of the arguments are touched
    order_numba_quicksort(ip, n_users, keys.data(), reverse, order.mutable_data(), threads);
  }
  return order;
}

// A TREC qrels/run buffer to (queries in first-appearance order, indptr, docnos grouped by
// query in file order, values, error). Error: (code, line, n_fields, byte, token).
py::tuple parse_trec_py(const py::bytes& data, int n_min, int n_max, int value_field) {
  if (value_field < 0 || value_field >= 8 || n_min <= value_field || n_min < 3) throw std::invalid_argument("layout");
  char* buf = nullptr;
  py::ssize_t len = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &buf, &len) != 0) throw py::error_already_set();
  TrecParse res;
  std::vector<int64_t> codes, first;
  std::vector<std::string_view> queries;
  {
    py::gil_scoped_release release;  // the bytes object is immutable and owned by the caller
    res = parse_trec(buf, static_cast<int64_t>(len), n_min, n_max, value_field);
    if (res.error == TrecError::ok) {
      std::unordered_map<std::string_view, int64_t> index;
      codes.resize(res.rows.size());
      for (size_t r = 0; r < res.rows.size(); ++r) {
        if (r > 0 && res.rows[r].query == res.rows[r - 1].query) {  // files are usually grouped by query
          codes[r] = codes[r - 1];
          continue;
        }
        auto it = index.emplace(res.rows[r].query, static_cast<int64_t>(queries.size()));
        if (it.second) queries.push_back(res.rows[r].query);
        codes[r] = it.first->second;
      }
    }
  }
  auto err =
      py::make_tuple(static_cast<int>(res.error), res.line, res.n_fields, res.byte, py::bytes(std::string(res.token)));
  if (res.error != TrecError::ok) return py::make_tuple(py::none(), py::none(), py::none(), py::none(), err);
  const int64_t n = static_cast<int64_t>(res.rows.size()), nq = static_cast<int64_t>(queries.size());
  I64 indptr(nq + 1);
  std::vector<int64_t> order(static_cast<size_t>(n));
  group_stable(codes.data(), n, nq, indptr.mutable_data(), order.data());
  auto decode = [](std::string_view v) {
    PyObject* o = PyUnicode_DecodeUTF8(v.data(), static_cast<py::ssize_t>(v.size()), "strict");
    if (!o) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(o);
  };
  py::object np_empty = py::module_::import("numpy").attr("empty");
  py::array users = np_empty(nq, py::arg("dtype") = "O");  // filled with None: safe to overwrite below
  py::array docs = np_empty(n, py::arg("dtype") = "O");
  py::array_t<double> values(n);
  auto** up = static_cast<PyObject**>(users.mutable_data());
  auto** dp = static_cast<PyObject**>(docs.mutable_data());
  double* vp = values.mutable_data();
  auto put = [](PyObject** slot, py::object v) {
    PyObject* old = *slot;
    *slot = v.release().ptr();
    Py_XDECREF(old);
  };
  for (int64_t q = 0; q < nq; ++q) put(up + q, decode(queries[q]));
  for (int64_t j = 0; j < n; ++j) {
    const TrecRow& row = res.rows[order[j]];
    put(dp + j, decode(row.doc));
    vp[j] = row.value;
  }
  return py::make_tuple(users, indptr, docs, values, err);
}

}  // namespace

void bind_inputs(py::module_& m) {
  m.def("parse_trec", &parse_trec_py, py::arg("data"), py::arg("n_min"), py::arg("n_max"), py::arg("value_field"),
        "Parse TREC qrels/run text: (queries, indptr, docnos, values, error).");
  m.def("factorize_int64", &factorize_int64_py, py::arg("ids").noconvert(),
        "(codes, first_row): dense codes of int64 ids in order of first appearance (hash, no sort).");
  m.def("group_rows", &group_rows_py, py::arg("codes").noconvert(), py::arg("n_codes"), py::arg("rank").noconvert(),
        "(indptr, order, bad_row): rows grouped by code by a counting sort, placed by rank when given.");
  m.def("order_numba_quicksort", &order_numba_quicksort_py, py::arg("indptr").noconvert(), py::arg("keys").noconvert(),
        py::arg("reverse"), py::arg("threads"),
        "Permutation ordering every list by numba's quicksort argsort of keys (ranx's order of equal scores).");
  m.def("order_by_score", &order_by_score_py, py::arg("indptr").noconvert(), py::arg("scores").noconvert(),
        py::arg("key").noconvert(), py::arg("threads"),
        "Permutation ordering every list by score descending, ties by key descending, then input order.");
  m.def("topk_f64", &topk_impl<double>, py::arg("scores").noconvert(), py::arg("k"), py::arg("ex_indptr").noconvert(),
        py::arg("ex_cols").noconvert(), py::arg("threads"), "Top-k columns per row of a float64 score matrix.");
  m.def("topk_f32", &topk_impl<float>, py::arg("scores").noconvert(), py::arg("k"), py::arg("ex_indptr").noconvert(),
        py::arg("ex_cols").noconvert(), py::arg("threads"), "Top-k columns per row of a float32 score matrix.");
}
