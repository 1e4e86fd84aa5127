// Bindings of the rank fusion kernels (rankmeter/fusion.hpp). The Python layer
// (python/rankmeter/evaluation/_fusion.py) reads the runs, codes the documents and ranks
// the lists; the checks here are the memory-safety net.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <stdexcept>

#include "rankmeter/fusion.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;

void check_csr(const I64& indptr, int64_t n) {
  if (indptr.ndim() != 1 || indptr.size() < 1) throw std::invalid_argument("indptr must be 1-D with >= 1 entry");
  const int64_t* ip = indptr.data();
  if (ip[0] != 0 || ip[indptr.size() - 1] != n) throw std::invalid_argument("indptr must run from 0 to the size");
  for (py::ssize_t i = 1; i < indptr.size(); ++i)
    if (ip[i] < ip[i - 1]) throw std::invalid_argument("indptr must not decrease");
}

F64 normalise_py(const I64& indptr, const F64& values, int norm, int threads) {
  check_csr(indptr, values.size());
  if (norm < 0 || norm > 6) throw std::invalid_argument("unknown normalisation code");
  F64 out(values.size());
  const int64_t* ip = indptr.data();
  const double* v = values.data();
  double* o = out.mutable_data();
  const int64_t n_lists = indptr.size() - 1;
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and output above
    fusion_normalise(ip, n_lists, v, static_cast<FuseNorm>(norm), o, threads);
  }
  return out;
}

py::tuple fuse_py(const I64& indptr, const I64& codes, const F64& values, int64_t n_runs, int transform, int combine,
                  bool borda_norm, double k, double phi, double gamma, double sigma, double missing, int64_t w,
                  const F64& weights, const std::optional<F64>& tables, const std::optional<I64>& table_indptr,
                  const std::optional<F64>& map_scores, int threads) {
  check_csr(indptr, codes.size());
  if (values.size() != codes.size()) throw std::invalid_argument("codes and values must have the same size");
  if (n_runs < 1 || (indptr.size() - 1) % n_runs != 0)
    throw std::invalid_argument("indptr must hold n_runs * n_queries lists");
  if (weights.size() != n_runs) throw std::invalid_argument("weights must hold one value per run");
  if (transform < 0 || transform > 9 || combine < 0 || combine > 12)
    throw std::invalid_argument("unknown transform or combine code");
  if (tables.has_value() != table_indptr.has_value()) throw std::invalid_argument("tables need table_indptr");
  if (tables) {
    if (table_indptr->size() != n_runs + 1) throw std::invalid_argument("table_indptr must hold n_runs + 1 entries");
    check_csr(*table_indptr, tables->size());
  }
  if (map_scores && map_scores->size() != n_runs) throw std::invalid_argument("map_scores: one value per run");
  const int64_t n_queries = (indptr.size() - 1) / n_runs;
  FuseParams p;
  p.transform = static_cast<FuseTransform>(transform);
  p.combine = static_cast<FuseCombine>(combine);
  p.borda_norm = borda_norm;
  p.k = k;
  p.phi = phi;
  p.gamma = gamma;
  p.sigma = sigma;
  p.missing = missing;
  p.w = w;
  const int64_t* ip = indptr.data();
  const int64_t* c = codes.data();
  const double* v = values.data();
  I64 out_indptr(n_queries + 1);
  int64_t* oi = out_indptr.mutable_data();
  {
    py::gil_scoped_release release;
    fusion_count(ip, c, n_queries, n_runs, oi + 1, threads);
    oi[0] = 0;
    for (int64_t q = 0; q < n_queries; ++q) oi[q + 1] += oi[q];
  }
  I64 out_codes(oi[n_queries]);
  F64 out_scores(oi[n_queries]);
  int64_t* oc = out_codes.mutable_data();
  double* os = out_scores.mutable_data();
  const double* wt = weights.data();
  const double* tb = tables ? tables->data() : nullptr;
  const int64_t* ti = table_indptr ? table_indptr->data() : nullptr;
  const double* ms = map_scores ? map_scores->data() : nullptr;
  int64_t bad = -1;
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and outputs above
    bad = fusion_fuse(ip, c, v, n_queries, n_runs, p, wt, tb, ti, ms, oi, oc, os, threads);
  }
  return py::make_tuple(out_indptr, out_codes, out_scores, bad);
}

I64 wsum_ranks_py(const I64& cand_indptr, const F64& values, const I64& rel_indptr, const I64& rel_idx,
                  const F64& weights, int threads) {
  if (values.ndim() != 2 || weights.ndim() != 2 || values.shape(1) != weights.shape(1))
    throw std::invalid_argument("values (n_cand x R) and weights (n_trials x R) must be 2-D with R columns");
  const int64_t R = values.shape(1), n_trials = weights.shape(0);
  check_csr(cand_indptr, values.shape(0));
  check_csr(rel_indptr, rel_idx.size());
  if (rel_indptr.size() != cand_indptr.size()) throw std::invalid_argument("rel_indptr: one entry per query + 1");
  const int64_t n_queries = cand_indptr.size() - 1, n_rel = rel_idx.size();
  const int64_t* ci = cand_indptr.data();
  const int64_t* ri = rel_indptr.data();
  const int64_t* rx = rel_idx.data();
  for (int64_t q = 0; q < n_queries; ++q)
    for (int64_t i = ri[q]; i < ri[q + 1]; ++i)
      if (rx[i] < ci[q] || rx[i] >= ci[q + 1]) throw std::invalid_argument("rel_idx outside its query's candidates");
  I64 ranks({static_cast<py::ssize_t>(n_trials), static_cast<py::ssize_t>(n_rel)});
  const double* v = values.data();
  const double* w = weights.data();
  int64_t* o = ranks.mutable_data();
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and output above
    fusion_wsum_ranks(ci, n_queries, v, R, ri, rx, n_rel, w, n_trials, o, threads);
  }
  return ranks;
}

}  // namespace

void bind_fusion(py::module_& m) {
  m.def("fusion_normalise", &normalise_py, py::arg("indptr").noconvert(), py::arg("values").noconvert(),
        py::arg("norm"), py::arg("threads"), "Every list's values normalised (min-max, max, sum, zmuv, rank)");
  m.def("fusion_fuse", &fuse_py, py::arg("indptr").noconvert(), py::arg("codes").noconvert(),
        py::arg("values").noconvert(), py::arg("n_runs"), py::arg("transform"), py::arg("combine"),
        py::arg("borda_norm"), py::arg("k"), py::arg("phi"), py::arg("gamma"), py::arg("sigma"), py::arg("missing"),
        py::arg("w"), py::arg("weights").noconvert(), py::arg("tables").noconvert(),
        py::arg("table_indptr").noconvert(), py::arg("map_scores").noconvert(), py::arg("threads"),
        "Fused lists of n_runs runs (CSR of n_runs * n_queries lists): (indptr, codes, scores, first bad query or -1)");
  m.def("fusion_wsum_ranks", &wsum_ranks_py, py::arg("cand_indptr").noconvert(), py::arg("values").noconvert(),
        py::arg("rel_indptr").noconvert(), py::arg("rel_idx").noconvert(), py::arg("weights").noconvert(),
        py::arg("threads"), "Per weight vector, the rank of every relevant candidate in the weighted-sum fusion");
}
