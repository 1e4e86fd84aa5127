// Bindings of the input kernels: top-k selection from score matrices (rankmeter/topk.hpp).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <stdexcept>

#include "rankmeter/topk.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;

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

}  // namespace

void bind_inputs(py::module_& m) {
  m.def("topk_f64", &topk_impl<double>, py::arg("scores").noconvert(), py::arg("k"), py::arg("ex_indptr").noconvert(),
        py::arg("ex_cols").noconvert(), py::arg("threads"), "Top-k columns per row of a float64 score matrix.");
  m.def("topk_f32", &topk_impl<float>, py::arg("scores").noconvert(), py::arg("k"), py::arg("ex_indptr").noconvert(),
        py::arg("ex_cols").noconvert(), py::arg("threads"), "Top-k columns per row of a float32 score matrix.");
}
