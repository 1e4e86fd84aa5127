// Bindings of the resampling kernels of the paired significance tests
// (rankmeter/significance.hpp). The Python layer (python/rankmeter/compare)
// builds the value matrices; the checks here are the memory-safety net.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <stdexcept>

#include "rankmeter/significance.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using F64 = py::array_t<double, py::array::c_style>;

void check_matrix(const F64& X, int64_t R) {
  if (X.ndim() != 2) throw std::invalid_argument("values must be a 2-D float64 matrix (users x columns)");
  if (R < 1) throw std::invalid_argument("n_resamples must be >= 1");
}

py::tuple sign_flip_sums_py(const F64& X, int64_t n_resamples, uint64_t seed, int threads) {
  check_matrix(X, n_resamples);
  const int64_t n = X.shape(0), C = X.shape(1);
  F64 sums({static_cast<py::ssize_t>(n_resamples), static_cast<py::ssize_t>(C)});
  F64 observed(static_cast<py::ssize_t>(C));
  const double* x = X.data();
  double* s = sums.mutable_data();
  double* o = observed.mutable_data();
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and outputs above
    sign_flip_sums(x, n, C, n_resamples, seed, threads, s, o);
  }
  return py::make_tuple(sums, observed);
}

F64 bootstrap_sums_py(const F64& X, int64_t n_resamples, uint64_t seed, int threads) {
  check_matrix(X, n_resamples);
  const int64_t n = X.shape(0), C = X.shape(1);
  if (n > static_cast<int64_t>(UINT32_MAX)) throw std::invalid_argument("at most 2^32 - 1 users per bootstrap");
  F64 sums({static_cast<py::ssize_t>(n_resamples), static_cast<py::ssize_t>(C)});
  const double* x = X.data();
  double* s = sums.mutable_data();
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and output above
    bootstrap_sums(x, n, C, n_resamples, seed, threads, s);
  }
  return sums;
}

using I64 = py::array_t<int64_t, py::array::c_style>;

F64 group_permutation_ranges_py(const F64& W, const F64& valid, const I64& codes, int64_t n_groups,
                                int64_t n_permutations, uint64_t seed, int threads) {
  if (W.ndim() != 2 || valid.ndim() != 2 || valid.shape(0) != W.shape(0) || valid.shape(1) != W.shape(1))
    throw std::invalid_argument("values and valid must be 2-D float64 matrices of one shape (users x columns)");
  const int64_t n = W.shape(0), C = W.shape(1);
  if (codes.ndim() != 1 || codes.shape(0) != n) throw std::invalid_argument("codes: one group code per user");
  if (n_groups < 0 || n_permutations < 0) throw std::invalid_argument("negative count");
  const int64_t* cd = codes.data();
  for (int64_t u = 0; u < n; ++u)
    if (cd[u] < 0 || cd[u] >= n_groups) throw std::invalid_argument("codes: a group code outside [0, n_groups)");
  F64 out({static_cast<py::ssize_t>(n_permutations), static_cast<py::ssize_t>(C)});
  const double* w = W.data();
  const double* v = valid.data();
  double* o = out.mutable_data();
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and output above
    group_permutation_ranges(w, v, cd, n, C, n_groups, n_permutations, seed, threads, o);
  }
  return out;
}

}  // namespace

void bind_significance(py::module_& m) {
  m.def("group_permutation_ranges", &group_permutation_ranges_py, py::arg("values").noconvert(),
        py::arg("valid").noconvert(), py::arg("codes").noconvert(), py::arg("n_groups"), py::arg("n_permutations"),
        py::arg("seed"), py::arg("threads"),
        "Permutation test of the gap between user groups: per permutation of the group labels and column, the "
        "range (max - min) of the group means");
  m.def("sign_flip_sums", &sign_flip_sums_py, py::arg("values").noconvert(), py::arg("n_resamples"), py::arg("seed"),
        py::arg("threads"),
        "Randomization test: per resample and column, the sum of the values with random signs; and the observed sums");
  m.def("bootstrap_sums", &bootstrap_sums_py, py::arg("values").noconvert(), py::arg("n_resamples"), py::arg("seed"),
        py::arg("threads"),
        "Paired bootstrap: per resample and column, the sum of the values of n users drawn with replacement");
  m.def(
      "splitmix_words",
      [](uint64_t seed, uint64_t domain, uint64_t r, int64_t count) {
        py::array_t<uint64_t> out(static_cast<py::ssize_t>(count));
        uint64_t* o = out.mutable_data();
        const uint64_t key = resample_key(seed, domain, r);
        for (int64_t w = 0; w < count; ++w) o[w] = stream_word(key, static_cast<uint64_t>(w));
        return out;
      },
      py::arg("seed"), py::arg("domain"), py::arg("resample"), py::arg("count"),
      "The first `count` words of a resample's random stream (for tests of the generator)");
}
