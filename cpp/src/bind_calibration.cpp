// Bindings of the miscalibration kernel (rankmeter/calibration.hpp). The Python layer
// (python/rankmeter/evaluation/_calibration.py) reads `item_categories`, codes the items with the lists and
// builds the item -> category table and the users' histories; the checks here are the memory-safety net.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "rankmeter/calibration.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

namespace {

using I64 = py::array_t<int64_t, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;

void check_indptr(const I64& indptr, int64_t rows, int64_t n, const char* what) {
  if (indptr.ndim() != 1 || indptr.size() != rows + 1) throw std::invalid_argument(std::string(what) + ": bad size");
  const int64_t* ip = indptr.data();
  if (ip[0] != 0 || ip[rows] != n) throw std::invalid_argument(std::string(what) + " must run from 0 to the size");
  for (int64_t i = 1; i <= rows; ++i)
    if (ip[i] < ip[i - 1]) throw std::invalid_argument(std::string(what) + " must not decrease");
}

F64 calibration_values_py(const I64& l_indptr, const I64& l_items, const I64& h_indptr, const I64& h_items,
                          const I64& c_indptr, const I64& c_cat, int64_t n_cats, int64_t k, double alpha, int weight,
                          int threads) {
  const int64_t n_users = l_indptr.size() - 1;
  if (n_users < 0) throw std::invalid_argument("l_indptr: bad size");
  const int64_t n_items = c_indptr.size() - 1;
  if (n_items < 0) throw std::invalid_argument("c_indptr: bad size");
  check_indptr(l_indptr, n_users, l_items.size(), "l_indptr");
  check_indptr(h_indptr, n_users, h_items.size(), "h_indptr");
  check_indptr(c_indptr, n_items, c_cat.size(), "c_indptr");
  if (n_cats < 0) throw std::invalid_argument("n_cats must be >= 0");
  for (int64_t c = 0; c < c_cat.size(); ++c)
    if (c_cat.data()[c] < 0 || c_cat.data()[c] >= n_cats) throw std::invalid_argument("c_cat out of range");
  if (k < 0) throw std::invalid_argument("k must be >= 0 (0: the whole list)");
  if (!(alpha > 0.0 && alpha <= 1.0)) throw std::invalid_argument("alpha must be in (0, 1]");
  if (weight < 0 || weight > 2) throw std::invalid_argument("unknown rank weight code");
  F64 out(n_users);
  CalibrationInput in{n_users, l_indptr.data(), l_items.data(), h_indptr.data(), h_items.data(),
                      n_items, c_indptr.data(), c_cat.data(),   n_cats};
  double* o = out.mutable_data();
  {
    py::gil_scoped_release release;  // raw buffers only, kept alive by the arguments and output above
    calibration_values(in, k, alpha, static_cast<RankWeight>(weight), o, threads);
  }
  return out;
}

}  // namespace

void bind_calibration(py::module_& m) {
  m.def("calibration_values", &calibration_values_py, py::arg("l_indptr"), py::arg("l_items"), py::arg("h_indptr"),
        py::arg("h_items"), py::arg("c_indptr"), py::arg("c_cat"), py::arg("n_cats"), py::arg("k"), py::arg("alpha"),
        py::arg("weight"), py::arg("threads"),
        "Steck's miscalibration C_KL per user (NaN: no categorized history or an empty top k)");
}
