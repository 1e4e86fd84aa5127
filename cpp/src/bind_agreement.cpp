// Bindings of the agreement kernel (rankmeter/agreement.hpp). The Python layer
// (python/rankmeter/evaluation/_agreement.py) reads both runs, ranks them, joins their users and codes
// their items; the checks here are the memory-safety net.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "rankmeter/agreement.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using I32 = py::array_t<int, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;

void check_rows(const I64& items, const I64& start, const I64& len, int64_t n_users, const char* what) {
  if (items.ndim() != 1 || start.ndim() != 1 || len.ndim() != 1) throw std::invalid_argument("arrays must be 1-D");
  if (start.size() != n_users || len.size() != n_users)
    throw std::invalid_argument(std::string(what) + ": one start and one length per user");
  const int64_t n = items.size();
  for (int64_t u = 0; u < n_users; ++u) {
    const int64_t s = start.data()[u], l = len.data()[u];
    if (s < 0 || l < 0 || s > n || l > n - s) throw std::invalid_argument(std::string(what) + ": row out of range");
  }
}

py::tuple agreement_values_py(const I64& a_items, const I64& a_start, const I64& a_len, const I64& b_items,
                              const I64& b_start, const I64& b_len, const I32& kinds, const I64& ka, const I64& kb,
                              const F64& p, const I32& variant, int threads) {
  const int64_t n_users = a_start.size();
  check_rows(a_items, a_start, a_len, n_users, "run_a");
  check_rows(b_items, b_start, b_len, n_users, "run_b");
  const int64_t n_cols = kinds.size();
  if (ka.size() != n_cols || kb.size() != n_cols || p.size() != n_cols || variant.size() != n_cols)
    throw std::invalid_argument("one kind, cutoff pair, p and variant per column");
  std::vector<AgreeColumn> cols(static_cast<size_t>(n_cols));
  for (int64_t c = 0; c < n_cols; ++c) {
    cols[c] = {kinds.data()[c], ka.data()[c], kb.data()[c], p.data()[c], variant.data()[c]};
    if (cols[c].kind < 0 || cols[c].kind > 6) throw std::invalid_argument("unknown agreement measure code");
    if (cols[c].ka < 0 || cols[c].kb < 0) throw std::invalid_argument("cutoffs must be >= 0 (0: the whole list)");
    if (cols[c].kind == static_cast<int>(AgreeKind::unexpectedness) && cols[c].ka < 1)
      throw std::invalid_argument("unexpectedness needs a cutoff");
    if (cols[c].kind == static_cast<int>(AgreeKind::rbo) && !(cols[c].p > 0.0 && cols[c].p < 1.0))
      throw std::invalid_argument("rbo's p must be in (0, 1)");
  }
  F64 out(n_cols * n_users);
  AgreeInput in{n_users, a_items.data(), a_start.data(), a_len.data(), b_items.data(), b_start.data(), b_len.data()};
  double* o = out.mutable_data();
  int64_t bad = -1;
  int side = 0;
  std::vector<ExactSum> sums(static_cast<size_t>(n_cols));
  std::vector<int64_t> counts(static_cast<size_t>(n_cols), 0);
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and output above
    bad = agreement_values(in, cols.data(), n_cols, o, threads, &side, sums.data(), counts.data());
  }
  py::array_t<int64_t> limbs({n_cols, static_cast<int64_t>(ExactSum::kLimbs)});
  py::array_t<int64_t> count(n_cols);
  for (int64_t c = 0; c < n_cols; ++c) {
    std::copy(sums[c].limb, sums[c].limb + ExactSum::kLimbs, limbs.mutable_data() + c * ExactSum::kLimbs);
    count.mutable_data()[c] = counts[c];
  }
  return py::make_tuple(out, bad, side, limbs, count);
}

}  // namespace

void bind_agreement(py::module_& m) {
  m.def("agreement_values", &agreement_values_py, py::arg("a_items"), py::arg("a_start"), py::arg("a_len"),
        py::arg("b_items"), py::arg("b_start"), py::arg("b_len"), py::arg("kinds"), py::arg("ka"), py::arg("kb"),
        py::arg("p"), py::arg("variant"), py::arg("threads"),
        "Agreement between two runs per user: (values[n_cols * n_users], first user repeating an item or -1, its run, "
        "exact sums as limbs[n_cols, kLimbs], counts[n_cols])");
}
