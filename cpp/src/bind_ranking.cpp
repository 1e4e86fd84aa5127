// Bindings of the fused accuracy pass (rankmeter/ranking.hpp).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <new>
#include <optional>
#include <stdexcept>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "rankmeter/ranking.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;

// A float64 matrix for the kernel's output. Large ones are 2 MiB aligned and
// advised to use transparent huge pages: the kernel writes every element once,
// and with 4 KiB pages the page faults of a fresh 160 MB output cost as much as
// a fifth of the pass.
F64 output_matrix(py::ssize_t rows, py::ssize_t cols) {
  const size_t bytes = static_cast<size_t>(rows) * static_cast<size_t>(cols) * sizeof(double);
  constexpr size_t kHuge = size_t(1) << 21;
  if (bytes < 2 * kHuge) return F64({rows, cols});
  const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, rounded);
  if (!p) throw std::bad_alloc();
#ifdef __linux__
  madvise(p, rounded, MADV_HUGEPAGE);
#endif
  py::capsule owner(p, [](void* q) { std::free(q); });
  return F64({rows, cols}, {cols * static_cast<py::ssize_t>(sizeof(double)), static_cast<py::ssize_t>(sizeof(double))},
             static_cast<double*>(p), owner);
}

using I32 = py::array_t<int32_t, py::array::c_style>;

// Item ids: contiguous int64 on both sides, or int32 on both sides (read in place).
bool ids_are_int32(const py::array& t_items, const py::array& r_items) {
  const bool t64 = py::isinstance<I64>(t_items), r64 = py::isinstance<I64>(r_items);
  const bool t32 = !t64 && py::isinstance<I32>(t_items), r32 = !r64 && py::isinstance<I32>(r_items);
  if (!(t64 && r64) && !(t32 && r32))
    throw py::type_error("t_items and r_items must both be int64 or both int32 arrays");
  if (!(t_items.flags() & py::array::c_style) || !(r_items.flags() & py::array::c_style))
    throw py::type_error("t_items and r_items must be contiguous");
  return t32;
}

// The pass's view of the input buffers, shapes checked, with item ids of type Id.
template <typename Id>
RankingDataT<Id> ranking_data(const I64& t_indptr, const py::array& t_items, const std::optional<py::array>& t_grades,
                              bool g64, const std::optional<I64>& r_indptr, const py::array& r_items, int64_t r_stride,
                              int64_t r_pad, const std::optional<I64>& r_rowmap) {
  RankingDataT<Id> d;
  d.n_users = t_indptr.shape(0) - 1;
  d.t_indptr = t_indptr.data();
  d.t_items = static_cast<const Id*>(t_items.data());
  if (t_grades && g64) d.t_grades = static_cast<const double*>(t_grades->data());
  if (t_grades && !g64) d.t_grades32 = static_cast<const float*>(t_grades->data());
  d.t_nnz = t_items.shape(0);
  d.r_items = static_cast<const Id*>(r_items.data());
  d.r_nnz = r_items.size();
  if (r_indptr) {
    if (r_indptr->ndim() != 1 || r_indptr->shape(0) < 1) throw std::invalid_argument("r_indptr must be 1-D");
    if (r_items.ndim() != 1) throw std::invalid_argument("r_items must be 1-D with r_indptr");
    d.r_indptr = r_indptr->data();
    d.r_rows = r_indptr->shape(0) - 1;
  } else {
    if (r_items.ndim() != 2 || r_items.shape(1) != r_stride) throw std::invalid_argument("r_items must be 2-D");
    d.r_padded = true;
    d.r_stride = r_stride;
    d.r_pad = r_pad;
    d.r_rows = r_items.shape(0);
  }
  if (r_rowmap) {
    if (r_rowmap->ndim() != 1 || r_rowmap->shape(0) != d.n_users) throw std::invalid_argument("rowmap length");
    d.r_rowmap = r_rowmap->data();
  } else if (d.r_rows != d.n_users) {
    throw std::invalid_argument("recs rows must equal truth users without a rowmap");
  }
  return d;
}

py::tuple ranking_pass(const I64& t_indptr, const py::array& t_items, const std::optional<py::array>& t_grades,
                       const std::optional<I64>& r_indptr, const py::array& r_items, int64_t r_stride, int64_t r_pad,
                       const std::optional<I64>& r_rowmap, const std::vector<Column>& cols,
                       std::optional<double> min_relevance, EmptyPolicy empty, DupPolicy duplicates, int64_t max_items,
                       int threads, bool whole_lists, bool per_user, const std::optional<F64>& r_costs) {
  // Shapes are validated here too: the Python layer checks them with friendly
  // messages first, this is the memory-safety net.
  if (t_indptr.ndim() != 1 || t_indptr.shape(0) < 1) throw std::invalid_argument("t_indptr must be 1-D, non-empty");
  const int64_t n_users = t_indptr.shape(0) - 1;
  if (t_items.ndim() != 1) throw std::invalid_argument("t_items must be 1-D");
  if (t_grades && (t_grades->ndim() != 1 || t_grades->shape(0) != t_items.shape(0)))
    throw std::invalid_argument("t_grades must match t_items");
  // float64, or float32 read in place (C-contiguous, native byte order)
  const bool g64 = t_grades && py::isinstance<F64>(*t_grades);
  const bool g32 = t_grades && !g64 && py::isinstance<py::array_t<float, py::array::c_style>>(*t_grades);
  if (t_grades && !g64 && !g32) throw py::type_error("t_grades must be a contiguous float64 or float32 array");
  if (t_grades && !(t_grades->flags() & py::array::c_style)) throw py::type_error("t_grades must be contiguous");
  const bool ids32 = ids_are_int32(t_items, r_items);

  // The input buffers as the pass's view, for the id type given (int64 or int32, read in place).
  std::optional<RankingDataT<int64_t>> d64;
  std::optional<RankingDataT<int32_t>> d32;
  if (ids32)
    d32 = ranking_data<int32_t>(t_indptr, t_items, t_grades, g64, r_indptr, r_items, r_stride, r_pad, r_rowmap);
  else
    d64 = ranking_data<int64_t>(t_indptr, t_items, t_grades, g64, r_indptr, r_items, r_stride, r_pad, r_rowmap);

  if (r_costs) {  // the C/W/L costs, aligned with r_items
    if (r_costs->ndim() != r_items.ndim() || r_costs->size() != r_items.size())
      throw std::invalid_argument("r_costs must have the shape of r_items");
    if (d32) d32->r_costs = r_costs->data();
    if (d64) d64->r_costs = r_costs->data();
  }
  for (const Column& c : cols) {
    if (c.cutoff < 0) throw std::invalid_argument("cutoff must be >= 0");
    if ((c.kind == Kind::rbp || c.kind == Kind::rbp_resid) && !(c.p > 0.0 && c.p < 1.0))
      throw std::invalid_argument("rbp persistence p must be in (0, 1)");
  }

  RankingOptions opt;
  opt.has_min_relevance = min_relevance.has_value();
  opt.min_relevance = min_relevance.value_or(0.0);
  opt.empty = empty;
  opt.dups = duplicates;
  opt.whole_lists = whole_lists;
  opt.max_items = max_items;
  opt.threads = threads;
  opt.simd = simd_enabled();
  opt.costs = r_costs.has_value();

  const auto n_cols = static_cast<py::ssize_t>(cols.size());
  // per_user=false: means only, no per-user matrix allocated or written.
  std::optional<F64> values;
  if (per_user) values = output_matrix(n_cols, static_cast<py::ssize_t>(n_users));
  py::array_t<int64_t> limbs({n_cols, static_cast<py::ssize_t>(ExactSum::kLimbs)});
  py::array_t<int64_t> counts(n_cols);
  double* vptr = values ? values->mutable_data() : nullptr;
  int64_t* lptr = limbs.mutable_data();
  int64_t* cptr = counts.mutable_data();
  int64_t n_skipped = 0;
  Status st;
  {
    // Safe: the kernel touches only the raw buffers above, whose owners (the
    // argument arrays and the fresh outputs) stay referenced by this frame.
    py::gil_scoped_release release;
    std::vector<ExactSum> sums(cols.size());
    st = ids32 ? evaluate_ranking(*d32, cols, opt, vptr, sums.data(), cptr, &n_skipped)
               : evaluate_ranking(*d64, cols, opt, vptr, sums.data(), cptr, &n_skipped);
    if (st.ok())
      for (size_t i = 0; i < cols.size(); ++i)
        for (int j = 0; j < ExactSum::kLimbs; ++j) lptr[i * ExactSum::kLimbs + j] = sums[i].limb[j];
  }
  py::tuple status = py::make_tuple(st.code, st.user, st.item);
  py::object vals = values ? py::object(*values) : py::object(py::none());
  return py::make_tuple(vals, limbs, counts, n_skipped, status);
}

// ties="last": AP's sum and hits per row of score-ordered CSR lists with one relevance flag per entry
// (rankmeter/ranking/ties.hpp); k = 0: whole rows.
py::tuple ap_tie_last_py(const py::array_t<int64_t, py::array::c_style>& indptr,
                         const py::array_t<double, py::array::c_style>& scores,
                         const py::array_t<uint8_t, py::array::c_style>& rel, int64_t k, int threads) {
  if (indptr.ndim() != 1 || indptr.shape(0) < 1 || scores.ndim() != 1 || rel.ndim() != 1 ||
      rel.shape(0) != scores.shape(0))
    throw std::invalid_argument("ap_tie_last: bad shapes");
  if (k < 0) throw std::invalid_argument("ap_tie_last: k must be >= 0 (0: whole rows)");
  const int64_t n_rows = indptr.shape(0) - 1;
  const int64_t* ip = indptr.data();
  if (ip[0] != 0 || ip[n_rows] != scores.shape(0)) throw std::invalid_argument("ap_tie_last: indptr does not span");
  for (int64_t r = 0; r < n_rows; ++r)
    if (ip[r + 1] < ip[r]) throw std::invalid_argument("ap_tie_last: indptr decreases");
  py::array_t<double> sum(n_rows);
  py::array_t<int64_t> hits(n_rows);
  double* ps = sum.mutable_data();
  int64_t* ph = hits.mutable_data();
  {
    // Safe: the kernel touches only the raw buffers of the arrays above, all referenced by this frame.
    py::gil_scoped_release release;
    ap_tie_last(ip, n_rows, scores.data(), rel.data(), k, threads, ps, ph);
  }
  return py::make_tuple(sum, hits);
}

}  // namespace

void bind_ranking(py::module_& m) {
  m.def("ap_tie_last", &ap_tie_last_py, py::arg("indptr").noconvert(), py::arg("scores").noconvert(),
        py::arg("rel").noconvert(), py::arg("k"), py::arg("threads"),
        "(AP's sum, hits) per row when a tie group of equal scores sits at its last rank (ties='last', "
        "docs/metrics.md 6.3)");
  m.def("ranking_pass", &ranking_pass, py::arg("t_indptr").noconvert(), py::arg("t_items").noconvert(),
        py::arg("t_grades").noconvert(), py::arg("r_indptr").noconvert(), py::arg("r_items").noconvert(),
        py::arg("r_stride"), py::arg("r_pad"), py::arg("r_rowmap").noconvert(), py::arg("columns"),
        py::arg("min_relevance"), py::arg("empty"), py::arg("duplicates"), py::arg("max_items"), py::arg("threads"),
        py::arg("whole_lists") = false, py::arg("per_user") = true, py::arg("r_costs").noconvert() = py::none(),
        "Fused accuracy pass over `columns` (a list of Column); item ids int64 on both sides or int32 on both sides. "
        "Returns (values[n_cols, n_users] or "
        "None when per_user=False, limbs[n_cols, 68], counts,\n"
        "n_skipped, status).\n"
        "Duplicates are looked for in the part of each list the columns read (up to the largest cutoff,\n"
        "or the whole list when a column has no cutoff); whole_lists=True looks in whole lists (trec_eval).\n"
        "r_costs: float64 costs of the C/W/L metrics aligned with r_items (NaN: none given), or None.");
  m.def(
      "simd_path", [] { return simd_enabled() ? "avx2" : "scalar"; },
      "The list scan the accuracy pass uses now: 'avx2' (chosen by CPU features) or 'scalar' (no AVX2, or "
      "RANKMETER_SIMD=0 in the environment).");
  m.attr("exact_limbs") = ExactSum::kLimbs;
  m.attr("exact_shift") = 1074;
}
