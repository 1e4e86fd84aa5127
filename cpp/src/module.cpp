// rankmeter._core — private extension module. Public API lives in python/rankmeter.
#include <pybind11/pybind11.h>

#include "rankmeter/parallel.hpp"

namespace py = pybind11;

void bind_metrics(py::module_& m);
void bind_ranking(py::module_& m);
void bind_beyond(py::module_& m);
void bind_inputs(py::module_& m);
void bind_significance(py::module_& m);
void bind_walk(py::module_& m);
void bind_fusion(py::module_& m);
void bind_subtopic(py::module_& m);
void bind_agreement(py::module_& m);
void bind_auc(py::module_& m);
void bind_calibration(py::module_& m);
void bind_exposure(py::module_& m);
void bind_model(py::module_& m);

PYBIND11_MODULE(_core, m) {
  m.doc() = "rankmeter's C++ core (private; use the rankmeter package)";
  m.attr("has_openmp") = rankmeter::core::has_openmp();
  m.def("max_threads", &rankmeter::core::max_threads, "Number of processors OpenMP would use");
  bind_metrics(m);
  bind_ranking(m);
  bind_beyond(m);
  bind_inputs(m);
  bind_significance(m);
  bind_walk(m);
  bind_fusion(m);
  bind_subtopic(m);
  bind_agreement(m);
  bind_auc(m);
  bind_calibration(m);
  bind_exposure(m);
  bind_model(m);
}
