// Bindings of the intent-aware (subtopic) diversity kernel (rankmeter/subtopic.hpp). The Python layer
// (python/rankmeter/evaluation/_subtopic.py) reads the subtopic judgments, codes the documents with the
// lists and builds the per-user tables; the checks here are the memory-safety net.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <stdexcept>

#include "rankmeter/subtopic.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using I32 = py::array_t<int, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;

void check_csr(const I64& indptr, int64_t rows, int64_t n, const char* what) {
  if (indptr.ndim() != 1 || indptr.size() != rows + 1) throw std::invalid_argument(std::string(what) + ": bad size");
  const int64_t* ip = indptr.data();
  if (ip[0] != 0 || ip[rows] != n) throw std::invalid_argument(std::string(what) + " must run from 0 to the size");
  for (int64_t i = 1; i <= rows; ++i)
    if (ip[i] < ip[i - 1]) throw std::invalid_argument(std::string(what) + " must not decrease");
}

F64 subtopic_values_py(const I64& l_indptr, const I64& l_items, const I64& j_indptr, const I64& j_items,
                       const I64& j_key, const I64& s_indptr, const I64& s_sub, const I64& n_sub, const I32& kinds,
                       const I64& ks, double alpha, double beta, int threads) {
  const int64_t n_users = n_sub.size();
  const int64_t n_docs = j_items.size();
  check_csr(l_indptr, n_users, l_items.size(), "l_indptr");
  check_csr(j_indptr, n_users, n_docs, "j_indptr");
  check_csr(s_indptr, n_docs, s_sub.size(), "s_indptr");
  if (j_key.size() != n_docs) throw std::invalid_argument("j_key: one key per document");
  if (kinds.size() != ks.size()) throw std::invalid_argument("kinds and ks must have the same size");
  const int64_t n_cols = kinds.size();
  for (int64_t c = 0; c < n_cols; ++c) {
    const int k = kinds.data()[c];
    if (k < 0 || k > 8) throw std::invalid_argument("unknown subtopic measure code");
    if (ks.data()[c] < 0) throw std::invalid_argument("cutoffs must be >= 0 (0: the whole list)");
  }
  for (int64_t u = 0; u < n_users; ++u) {
    const int64_t S = n_sub.data()[u];
    if (S < 0) throw std::invalid_argument("n_sub must be >= 0");
    for (int64_t d = j_indptr.data()[u]; d < j_indptr.data()[u + 1]; ++d)
      for (int64_t s = s_indptr.data()[d]; s < s_indptr.data()[d + 1]; ++s)
        if (s_sub.data()[s] < 0 || s_sub.data()[s] >= S) throw std::invalid_argument("s_sub out of range");
  }
  F64 out(n_cols * n_users);
  SubtopicInput in{n_users,      l_indptr.data(), l_items.data(), j_indptr.data(), j_items.data(),
                   j_key.data(), s_indptr.data(), s_sub.data(),   n_sub.data()};
  double* o = out.mutable_data();
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and output above
    subtopic_values(in, kinds.data(), ks.data(), n_cols, alpha, beta, o, threads);
  }
  return out;
}

}  // namespace

void bind_subtopic(py::module_& m) {
  m.def("subtopic_values", &subtopic_values_py, py::arg("l_indptr"), py::arg("l_items"), py::arg("j_indptr"),
        py::arg("j_items"), py::arg("j_key"), py::arg("s_indptr"), py::arg("s_sub"), py::arg("n_sub"), py::arg("kinds"),
        py::arg("ks"), py::arg("alpha"), py::arg("beta"), py::arg("threads"),
        "Intent-aware diversity measures (ndeval's conventions), column-major values[n_cols * n_users]");
}
