// Bindings of the factor kernels (rankmeter/model.hpp): the materialised score matrix and the blocked pass.
//
// The Python layer (python/rankmeter/inputs/_factors.py) checks the factors (float32, C order, finite), the
// exclusions and the truth columns; the checks here are the memory-safety net: shapes, CSR pointers inside their
// buffers and exclusion columns inside [0, n_items) before the kernel indexes with them.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rankmeter/model.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using F32 = py::array_t<float, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;
using U8 = py::array_t<uint8_t, py::array::c_style>;

void check_csr(const I64& indptr, const I64& items, int64_t rows, int64_t n_items, const char* what) {
  if (indptr.ndim() != 1 || items.ndim() != 1 || indptr.shape(0) != rows + 1)
    throw std::invalid_argument(std::string(what) + ": bad CSR shape");
  const int64_t* ip = indptr.data();
  if (ip[0] != 0 || ip[rows] != items.shape(0))
    throw std::invalid_argument(std::string(what) + ": indptr does not span items");
  for (int64_t u = 0; u < rows; ++u)
    if (ip[u + 1] < ip[u]) throw std::invalid_argument(std::string(what) + ": indptr decreases");
  if (n_items < 0) return;
  const int64_t* it = items.data();
  for (int64_t p = 0; p < items.shape(0); ++p)
    if (it[p] < 0 || it[p] >= n_items) throw std::invalid_argument(std::string(what) + ": column out of range");
}

std::vector<float> packed(const F32& V, int threads) {
  const int64_t n = V.shape(0), d = V.shape(1);
  const int64_t np = (n + model_detail::kLanes - 1) / model_detail::kLanes;
  std::vector<float> P(static_cast<size_t>(np * d * model_detail::kLanes));
  model_detail::pack_items(V.data(), n, d, P.data(), np, threads);
  return P;
}

void check_factors(const F32& U, const F32& V) {
  if (U.ndim() != 2 || V.ndim() != 2 || U.shape(1) != V.shape(1)) throw std::invalid_argument("factor shapes");
}

F32 factor_scores_py(const F32& U, const F32& V, int threads) {
  check_factors(U, V);
  const int64_t n = U.shape(0), m = V.shape(0), d = U.shape(1);
  F32 out({n, m});
  float* o = out.mutable_data();
  {
    py::gil_scoped_release release;  // only the buffers above are touched, all held by this frame
    const std::vector<float> P = packed(V, threads);
    factor_scores(U.data(), n, P.data(), m, d, o, threads);
  }
  return out;
}

py::tuple factor_pass_py(const F32& U, const F32& V, int64_t k, const std::optional<I64>& ex_indptr,
                         const std::optional<I64>& ex_cols, const I64& t_indptr, const I64& t_cols, const U8& t_rel,
                         int64_t block_users, int64_t block_items, AucTies ties, int threads) {
  check_factors(U, V);
  if (k < 0) throw std::invalid_argument("k must be >= 0");
  if (block_users < 1 || block_items < 1) throw std::invalid_argument("block sizes must be positive");
  const int64_t n = U.shape(0), m = V.shape(0), d = U.shape(1);
  if (ex_indptr.has_value() != ex_cols.has_value()) throw std::invalid_argument("exclude: indptr and columns");
  if (ex_indptr) check_csr(*ex_indptr, *ex_cols, n, m, "exclude");
  check_csr(t_indptr, t_cols, n, -1, "truth");
  if (t_rel.ndim() != 1 || t_rel.shape(0) != t_cols.shape(0)) throw std::invalid_argument("truth relevance length");
  const int64_t kk = std::min(k, m);
  I64 cols({n, kk}), len(n), rank(t_cols.shape(0)), rel(n), pos(n), neg(n);
  F64 scores({n, kk}), num2(n), auc(n);
  FactorPassOut o{cols.mutable_data(), scores.mutable_data(), len.mutable_data(),
                  rank.mutable_data(), rel.mutable_data(),    pos.mutable_data(),
                  neg.mutable_data(),  num2.mutable_data(),   auc.mutable_data()};
  Status st;
  {
    py::gil_scoped_release release;  // only the buffers above are touched, all held by this frame
    const std::vector<float> P = packed(V, threads);
    st = factor_pass(U.data(), n, V.data(), P.data(), m, d, k, ex_indptr ? ex_indptr->data() : nullptr,
                     ex_cols ? ex_cols->data() : nullptr, t_indptr.data(), t_cols.data(), t_rel.data(), block_users,
                     block_items, ties, threads, o);
  }
  return py::make_tuple(cols, scores, len, rank, py::make_tuple(rel, pos, neg, num2, auc),
                        py::make_tuple(st.code, st.user, st.item));
}

}  // namespace

void bind_model(py::module_& m) {
  m.def("factor_scores", &factor_scores_py, py::arg("U").noconvert(), py::arg("V").noconvert(), py::arg("threads"),
        "The float32 score matrix of user and item factors (rankmeter/model.hpp: one FMA chain per score)");
  m.def("factor_pass", &factor_pass_py, py::arg("U").noconvert(), py::arg("V").noconvert(), py::arg("k"),
        py::arg("ex_indptr").noconvert(), py::arg("ex_cols").noconvert(), py::arg("t_indptr").noconvert(),
        py::arg("t_cols").noconvert(), py::arg("t_rel").noconvert(), py::arg("block_users"), py::arg("block_items"),
        py::arg("ties"), py::arg("threads"),
        "Top k, exact ranks of the truth entries and AUC counts from factors, tile by tile (rankmeter/model.hpp)");
  m.def("factor_tile_path", &model_detail::tile_path, "The tile kernel: 2 AVX-512, 1 AVX2 + FMA, 0 scalar");
}
