// Bindings of the input kernels (rankmeter/inputs.hpp): score-matrix top-k, long tables, TREC files.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rankmeter/inputs.hpp"
#include "rankmeter/torch_order.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;

py::object decode_utf8(std::string_view v) {
  PyObject* o = PyUnicode_DecodeUTF8(v.data(), static_cast<py::ssize_t>(v.size()), "strict");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

// Store v in an object array's slot (which holds a reference, e.g. None from numpy.empty).
void put_object(PyObject** slot, py::object v) {
  PyObject* old = *slot;
  *slot = v.release().ptr();
  Py_XDECREF(old);
}

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
  return py::make_tuple(cols, scores, lens, py::make_tuple(st.code, st.user, st.item));
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

// The lists of a CSR pair: the number of rows of `indptr` after checking it against `values` (1-D, starting at 0,
// ending at values' length, non-decreasing); std::invalid_argument naming `what` otherwise.
template <class V>
int64_t list_rows(const I64& indptr, const V& values, const char* what) {
  if (indptr.ndim() != 1 || indptr.shape(0) < 1) throw std::invalid_argument("indptr must be 1-D and non-empty");
  if (values.ndim() != 1) throw std::invalid_argument(std::string(what) + " must be 1-D");
  const int64_t n_rows = indptr.shape(0) - 1, nnz = values.shape(0);
  const int64_t* ip = indptr.data();
  if (ip[0] != 0 || ip[n_rows] != nnz) throw std::invalid_argument(std::string("indptr does not match ") + what);
  for (int64_t u = 0; u < n_rows; ++u)
    if (ip[u + 1] < ip[u]) throw std::invalid_argument("indptr must be non-decreasing");
  return n_rows;
}

// (first[nnz], repeats, distinct[n_rows]): whether each entry's code is the first of its value in its list (a repeat
// later in the list: false), the number of repeats, and each list's number of distinct codes. A list of up to 32
// entries compares each with those before it; a longer one sorts (code, position) pairs. Lists run in parallel;
// the answer does not depend on the thread count.
py::tuple first_in_row_py(const I64& indptr, const I64& codes, int threads) {
  const int64_t n_rows = list_rows(indptr, codes, "codes"), nnz = codes.shape(0);
  const int64_t* ip = indptr.data();
  py::array_t<bool> first(nnz);
  I64 distinct(n_rows);
  bool* f = first.mutable_data();
  int64_t* dn = distinct.mutable_data();
  const int64_t* c = codes.data();
  int64_t repeats = 0;
  {
    py::gil_scoped_release release;  // the buffers above only
    const int T = effective_threads(threads, n_rows);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) reduction(+ : repeats) schedule(static)
#endif
    for (int t = 0; t < T; ++t) {
      std::vector<std::pair<int64_t, int64_t>> pairs;
      for (int64_t u = n_rows * t / T, e = n_rows * (t + 1) / T; u < e; ++u) {
        const int64_t b = ip[u], n = ip[u + 1] - b;
        int64_t rep = 0;
        if (n <= 32) {
          for (int64_t j = 0; j < n; ++j) {
            bool seen = false;
            for (int64_t i = 0; i < j && !seen; ++i) seen = c[b + i] == c[b + j];
            f[b + j] = !seen;
            rep += seen;
          }
        } else {
          pairs.resize(static_cast<size_t>(n));
          for (int64_t j = 0; j < n; ++j) pairs[static_cast<size_t>(j)] = {c[b + j], j};
          std::sort(pairs.begin(), pairs.end());
          for (size_t j = 0; j < pairs.size(); ++j) {
            const bool seen = j > 0 && pairs[j].first == pairs[j - 1].first;
            f[b + pairs[j].second] = !seen;
            rep += seen;
          }
        }
        dn[u] = n - rep;
        repeats += rep;
      }
    }
  }
  return py::make_tuple(first, repeats, distinct);
}

// The number of rows r of the second table whose (b_user[r], b_item[r]) equals some row of the first table
// (pandas' inner join on both columns, counted on the second side). Users are codes 0..n_users-1, items any
// int64. The first table's rows are grouped by user (a counting sort), a group longer than 16 is sorted, and
// each row of the second table scans or searches its user's group: two passes over the tables, no hash table.
int64_t pairs_overlap_py(const I64& a_user, const I64& a_item, const I64& b_user, const I64& b_item, int64_t n_users,
                         int threads) {
  for (const I64* x : {&a_user, &a_item, &b_user, &b_item})
    if (x->ndim() != 1) throw std::invalid_argument("pairs_overlap: the columns must be 1-D");
  if (a_user.shape(0) != a_item.shape(0) || b_user.shape(0) != b_item.shape(0))
    throw std::invalid_argument("pairs_overlap: user and item columns of one table must have the same length");
  if (n_users < 0) throw std::invalid_argument("pairs_overlap: n_users must be >= 0");
  const int64_t na = a_user.shape(0), nb = b_user.shape(0);
  const int64_t *au = a_user.data(), *ai = a_item.data(), *bu = b_user.data(), *bi = b_item.data();
  for (int64_t r = 0; r < na; ++r)
    if (au[r] < 0 || au[r] >= n_users) throw std::invalid_argument("pairs_overlap: a user code is out of range");
  for (int64_t r = 0; r < nb; ++r)
    if (bu[r] < 0 || bu[r] >= n_users) throw std::invalid_argument("pairs_overlap: a user code is out of range");
  int64_t found = 0;
  {
    py::gil_scoped_release release;  // the buffers above only
    std::vector<int64_t> ip(static_cast<size_t>(n_users) + 1, 0), items(static_cast<size_t>(na));
    for (int64_t r = 0; r < na; ++r) ++ip[static_cast<size_t>(au[r]) + 1];
    for (int64_t u = 0; u < n_users; ++u) ip[static_cast<size_t>(u) + 1] += ip[static_cast<size_t>(u)];
    {
      std::vector<int64_t> cursor(ip.begin(), ip.end() - 1);
      for (int64_t r = 0; r < na; ++r) items[static_cast<size_t>(cursor[static_cast<size_t>(au[r])]++)] = ai[r];
    }
    const int T = effective_threads(threads, nb);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T) reduction(+ : found)
#endif
    {
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
      for (int64_t u = 0; u < n_users; ++u) {
        const int64_t b = ip[static_cast<size_t>(u)], e = ip[static_cast<size_t>(u) + 1];
        if (e - b > 16) std::sort(items.begin() + b, items.begin() + e);
      }
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
      for (int64_t r = 0; r < nb; ++r) {
        const size_t u = static_cast<size_t>(bu[r]);
        const int64_t* first = items.data() + ip[u];
        const int64_t* last = items.data() + ip[u + 1];
        const int64_t v = bi[r];
        bool hit = false;
        if (last - first <= 16) {
          for (const int64_t* x = first; x < last; ++x) hit |= *x == v;
        } else {
          hit = std::binary_search(first, last, v);
        }
        found += hit;
      }
    }
  }
  return found;
}

// order[nnz]: every list's entries by score descending, ties by key descending, then input order.
I64 order_by_score_py(const I64& indptr, const F64& scores, const std::optional<I64>& key, int threads) {
  const int64_t n_users = list_rows(indptr, scores, "scores"), nnz = scores.shape(0);
  const int64_t* ip = indptr.data();
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
  const int64_t n_users = list_rows(indptr, keys, "keys"), nnz = keys.shape(0);
  const int64_t* ip = indptr.data();
  I64 order(nnz);
  {
    py::gil_scoped_release release;  // only the raw buffers of the arguments are touched
    order_numba_quicksort(ip, n_users, keys.data(), reverse, order.mutable_data(), threads);
  }
  return order;
}

// order[nnz]: every list ranked by `keys` descending in torch's order of equal keys (argsort: k < 0; topk: k >= 0).
I64 order_torch_py(const I64& indptr, const F64& keys, int64_t k, int threads) {
  const int64_t n_users = list_rows(indptr, keys, "keys"), nnz = keys.shape(0);
  const int64_t* ip = indptr.data();
  I64 order(nnz);
  {
    py::gil_scoped_release release;  // only the raw buffers of the arguments are touched
    order_torch(ip, n_users, keys.data(), k, order.mutable_data(), threads);
  }
  return order;
}

// perm[n]: std::sort of (key, row) pairs by key ascending (torch.sort of a small int64 tensor).
I64 stl_sort_int64_py(const I64& keys) {
  if (keys.ndim() != 1) throw std::invalid_argument("keys must be 1-D");
  const int64_t n = keys.shape(0);
  I64 perm(n);
  {
    py::gil_scoped_release release;
    stl_sort_int64(keys.data(), n, perm.mutable_data());
  }
  return perm;
}

// A TREC qrels/run buffer to (queries in first-appearance order, indptr, docno codes grouped
// by query in file order, the distinct docnos in ascending order as one bytes blob + offsets
// (codes index them, so codes compare as the docnos), values, error).
// Error: (code, line, n_fields, byte, token).
py::tuple parse_trec_py(const py::bytes& data, int n_min, int n_max, int value_field) {
  if (value_field < 0 || value_field >= 8 || n_min <= value_field || n_min < 3) throw std::invalid_argument("layout");
  char* buf = nullptr;
  py::ssize_t len = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &buf, &len) != 0) throw py::error_already_set();
  TrecParse res;
  std::vector<int64_t> codes;
  std::vector<std::string_view> queries, docs, labels;
  std::vector<int64_t> order;
  I64 indptr(1);
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
  auto err = py::make_tuple(res.error, res.line, res.n_fields, res.byte, py::bytes(std::string(res.token)));
  if (res.error != TrecError::ok)
    return py::make_tuple(py::none(), py::none(), py::none(), py::none(), py::none(), py::none(), err);
  const int64_t n = static_cast<int64_t>(res.rows.size()), nq = static_cast<int64_t>(queries.size());
  indptr = I64(nq + 1);
  I64 doc_codes(n);
  py::array_t<double> values(n);
  int64_t* ip = indptr.mutable_data();
  int64_t* cp = doc_codes.mutable_data();
  double* vp = values.mutable_data();
  {
    py::gil_scoped_release release;  // fresh buffers and the parse above only
    order.resize(static_cast<size_t>(n));
    group_stable(codes.data(), n, nq, ip, order.data());
    docs.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      const TrecRow& row = res.rows[static_cast<size_t>(order[static_cast<size_t>(j)])];
      docs[static_cast<size_t>(j)] = row.doc;
      vp[j] = row.value;
    }
    code_strings_in_order(docs.data(), n, cp, labels);
  }
  py::object np_empty = py::module_::import("numpy").attr("empty");
  py::array users = np_empty(nq, py::arg("dtype") = "O");  // filled with None: safe to overwrite below
  auto** up = static_cast<PyObject**>(users.mutable_data());
  for (int64_t q = 0; q < nq; ++q) put_object(up + q, decode_utf8(queries[static_cast<size_t>(q)]));
  // the distinct docnos as one blob + offsets: Python strings are only made if someone asks (decode_strings)
  I64 offsets(static_cast<py::ssize_t>(labels.size() + 1));
  int64_t* op = offsets.mutable_data();
  op[0] = 0;
  size_t total = 0;
  for (size_t j = 0; j < labels.size(); ++j) {
    total += labels[j].size();
    op[j + 1] = static_cast<int64_t>(total);
  }
  py::bytes blob(nullptr, 0);
  {
    PyObject* b = PyBytes_FromStringAndSize(nullptr, static_cast<py::ssize_t>(total));
    if (!b) throw py::error_already_set();
    blob = py::reinterpret_steal<py::bytes>(b);
    char* dst = PyBytes_AS_STRING(b);
    for (const auto& v : labels) {
      std::copy(v.begin(), v.end(), dst);
      dst += v.size();
    }
  }
  return py::make_tuple(users, indptr, doc_codes, blob, offsets, values, err);
}

// (map_a, map_b, union blob, union offsets) of two sorted, distinct string tables.
py::tuple merge_sorted_strings_py(const py::bytes& blob_a, const I64& off_a, const py::bytes& blob_b,
                                  const I64& off_b) {
  const char* a = PyBytes_AsString(blob_a.ptr());
  const char* b = PyBytes_AsString(blob_b.ptr());
  if (!a || !b) throw py::error_already_set();
  const int64_t ma = off_a.shape(0) - 1, mb = off_b.shape(0) - 1;
  if (ma < 0 || mb < 0 || off_a.ndim() != 1 || off_b.ndim() != 1) throw std::invalid_argument("offsets");
  if (off_a.data()[ma] != PyBytes_Size(blob_a.ptr()) || off_b.data()[mb] != PyBytes_Size(blob_b.ptr()))
    throw std::invalid_argument("offsets do not match the blobs");
  I64 map_a(ma), map_b(mb);
  std::vector<char> ublob;
  std::vector<int64_t> uoff;
  int64_t* pa = map_a.mutable_data();
  int64_t* pb = map_b.mutable_data();
  {
    py::gil_scoped_release release;  // immutable bytes held by the caller, fresh outputs
    merge_sorted_strings(a, off_a.data(), ma, b, off_b.data(), mb, pa, pb, ublob, uoff);
  }
  I64 offsets(static_cast<py::ssize_t>(uoff.size()));
  std::copy(uoff.begin(), uoff.end(), offsets.mutable_data());
  return py::make_tuple(map_a, map_b, py::bytes(ublob.data(), ublob.size()), offsets);
}

// The strings of a table (blob + offsets) as an object array of str (all, or those at `index`).
py::array decode_strings_py(const py::bytes& blob, const I64& offsets, const std::optional<I64>& index) {
  const char* d = PyBytes_AsString(blob.ptr());
  if (!d) throw py::error_already_set();
  const int64_t m = offsets.shape(0) - 1;
  if (m < 0 || offsets.ndim() != 1 || offsets.data()[m] != PyBytes_Size(blob.ptr()))
    throw std::invalid_argument("offsets do not match the blob");
  const int64_t* o = offsets.data();
  const int64_t n = index ? index->shape(0) : m;
  py::array out = py::module_::import("numpy").attr("empty")(n, py::arg("dtype") = "O");
  auto** p = static_cast<PyObject**>(out.mutable_data());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = index ? index->data()[i] : i;
    if (k < 0 || k >= m) throw std::invalid_argument("index out of range");
    put_object(p + i, decode_utf8(std::string_view(d + o[k], static_cast<size_t>(o[k + 1] - o[k]))));
  }
  return out;
}

bool all_finite_py(const py::array& a, int threads) {
  if (a.ndim() != 1) throw std::invalid_argument("all_finite: a 1-D array is expected");
  if (!(a.flags() & py::array::c_style)) throw std::invalid_argument("all_finite: a contiguous array is expected");
  const int64_t n = a.shape(0);
  if (a.dtype().is(py::dtype::of<double>())) {
    const auto* p = static_cast<const double*>(a.data());
    py::gil_scoped_release release;
    return rankmeter::core::all_finite(p, n, threads);
  }
  if (a.dtype().is(py::dtype::of<float>())) {
    const auto* p = static_cast<const float*>(a.data());
    py::gil_scoped_release release;
    return rankmeter::core::all_finite(p, n, threads);
  }
  throw py::type_error("all_finite: float64 or float32 expected");
}

}  // namespace

void bind_inputs(py::module_& m) {
  py::enum_<TrecError>(m, "TrecError", "Errors of the TREC text parser (rankmeter/inputs.hpp).")
      .value("ok", TrecError::ok)
      .value("fields", TrecError::fields)
      .value("not_number", TrecError::not_number)
      .value("not_finite", TrecError::not_finite)
      .value("not_utf8", TrecError::not_utf8);
  m.def("all_finite", &all_finite_py, py::arg("a").noconvert(), py::arg("threads"),
        "Whether every value of a contiguous 1-D float64/float32 array is finite (parallel, GIL released).");
  m.def("parse_trec", &parse_trec_py, py::arg("data"), py::arg("n_min"), py::arg("n_max"), py::arg("value_field"),
        "Parse TREC qrels/run text: (queries, indptr, docno codes, blob and offsets of the sorted distinct docnos, "
        "values, error).");
  m.def("merge_sorted_strings", &merge_sorted_strings_py, py::arg("blob_a"), py::arg("offsets_a").noconvert(),
        py::arg("blob_b"), py::arg("offsets_b").noconvert(),
        "(map_a, map_b, blob, offsets): the union of two sorted distinct string tables.");
  m.def("decode_strings", &decode_strings_py, py::arg("blob"), py::arg("offsets").noconvert(),
        py::arg("index").noconvert() = py::none(), "The strings of a table (blob + offsets) as an object array.");
  m.def("factorize_int64", &factorize_int64_py, py::arg("ids").noconvert(),
        "(codes, first_row): dense codes of int64 ids in order of first appearance (hash, no sort).");
  m.def("group_rows", &group_rows_py, py::arg("codes").noconvert(), py::arg("n_codes"), py::arg("rank").noconvert(),
        "(indptr, order, bad_row): rows grouped by code by a counting sort, placed by rank when given.");
  m.def("order_numba_quicksort", &order_numba_quicksort_py, py::arg("indptr").noconvert(), py::arg("keys").noconvert(),
        py::arg("reverse"), py::arg("threads"),
        "Permutation ordering every list by numba's quicksort argsort of keys (ranx's order of equal scores).");
  m.def("order_torch", &order_torch_py, py::arg("indptr").noconvert(), py::arg("keys").noconvert(), py::arg("k"),
        py::arg("threads"),
        "Permutation ranking every list by keys descending as torch.argsort (k < 0) or topk(k) orders equal keys.");
  m.def("stl_sort_int64", &stl_sort_int64_py, py::arg("keys").noconvert(),
        "Permutation of std::sort (libstdc++'s introsort) of (key, row) pairs by key ascending.");
  m.def("pairs_overlap", &pairs_overlap_py, py::arg("a_user").noconvert(), py::arg("a_item").noconvert(),
        py::arg("b_user").noconvert(), py::arg("b_item").noconvert(), py::arg("n_users"), py::arg("threads"),
        "The number of rows of the second (user code, item) table that equal a row of the first (pandas' inner "
        "join on both columns, counted on the second side); user codes 0..n_users-1. GIL released.");
  m.def("first_in_row", &first_in_row_py, py::arg("indptr").noconvert(), py::arg("codes").noconvert(),
        py::arg("threads"),
        "(first[nnz], repeats, distinct[n_rows]): whether each code is the first of its value in its list, how many "
        "are not, and each list's number of distinct codes.");
  m.def("order_by_score", &order_by_score_py, py::arg("indptr").noconvert(), py::arg("scores").noconvert(),
        py::arg("key").noconvert(), py::arg("threads"),
        "Permutation ordering every list by score descending, ties by key descending, then input order.");
  m.def("topk_f64", &topk_impl<double>, py::arg("scores").noconvert(), py::arg("k"), py::arg("ex_indptr").noconvert(),
        py::arg("ex_cols").noconvert(), py::arg("threads"), "Top-k columns per row of a float64 score matrix.");
  m.def("topk_f32", &topk_impl<float>, py::arg("scores").noconvert(), py::arg("k"), py::arg("ex_indptr").noconvert(),
        py::arg("ex_cols").noconvert(), py::arg("threads"), "Top-k columns per row of a float32 score matrix.");
}
