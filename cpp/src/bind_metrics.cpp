// Bindings of the metric registry (rankmeter/metrics.def), the option enums and the
// column of the fused pass (rankmeter/ranking/columns.hpp), and the status codes
// (rankmeter/status.hpp). Python builds its metric table from metric_registry() and
// hands the pass `Column` objects with named fields; nothing crosses as a bare number.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "rankmeter/ranking/columns.hpp"
#include "rankmeter/status.hpp"

namespace py = pybind11;
using namespace rankmeter::core;

void bind_metrics(py::module_& m) {
  py::enum_<Kind> kind(m, "Kind", "The accuracy metrics of the fused pass, one per registry row (metrics.def).");
#define RANKMETER_METRIC(name, family, ...) RANKMETER_IF_ACCURACY_##family(kind.value(#name, Kind::name);)
#include "rankmeter/metrics.def"

  py::enum_<Denominator>(m, "Denominator")
      .value("relevant", Denominator::relevant)
      .value("min_relevant_k", Denominator::min_relevant_k)
      .value("hits", Denominator::hits)
      .value("k", Denominator::k)
      .value("min_listed", Denominator::min_listed);
  py::enum_<Gain>(m, "Gain")
      .value("linear", Gain::linear)
      .value("exponential", Gain::exponential)
      .value("binary", Gain::binary);
  py::enum_<Ideal>(m, "Ideal").value("cut", Ideal::cut).value("all", Ideal::all).value("k_slots", Ideal::k_slots);
  py::enum_<BelowMin>(m, "BelowMin").value("gain", BelowMin::gain).value("zero", BelowMin::zero);
  py::enum_<Discount>(m, "Discount")
      .value("reciprocal", Discount::reciprocal)
      .value("divide", Discount::divide)
      .value("clip", Discount::clip);
  py::enum_<CrrIdeal>(m, "CrrIdeal").value("k", CrrIdeal::k).value("list", CrrIdeal::list);
  py::enum_<ShortLists>(m, "ShortLists").value("pad", ShortLists::pad).value("evidently", ShortLists::evidently);
  py::enum_<Negative>(m, "Negative").value("nonrelevant", Negative::nonrelevant).value("unjudged", Negative::unjudged);
  py::enum_<Scale>(m, "Scale").value("none", Scale::none).value("max_grade", Scale::max_grade);
  py::enum_<Cut>(m, "Cut").value("round", Cut::round).value("trec9", Cut::trec9);
  py::enum_<Quantity>(m, "Quantity")
      .value("eu", Quantity::eu)
      .value("etu", Quantity::etu)
      .value("ec", Quantity::ec)
      .value("etc", Quantity::etc)
      .value("ed", Quantity::ed)
      .value("res_eu", Quantity::res_eu)
      .value("res_etu", Quantity::res_etu)
      .value("res_ec", Quantity::res_ec)
      .value("res_etc", Quantity::res_etc)
      .value("res_ed", Quantity::res_ed);
  py::enum_<Normalize>(m, "Normalize").value("ideal", Normalize::ideal).value("none", Normalize::none);
  py::enum_<EmptyPolicy>(m, "EmptyPolicy")
      .value("skip", EmptyPolicy::skip)
      .value("zero", EmptyPolicy::zero)
      .value("one", EmptyPolicy::one)
      .value("error", EmptyPolicy::error);
  py::enum_<DupPolicy>(m, "DupPolicy", "An item repeated in one list (docs/metrics.md, section 6).")
      .value("error", DupPolicy::error)
      .value("first", DupPolicy::first)
      .value("miss", DupPolicy::miss)
      .value("count", DupPolicy::count);

  py::enum_<Code>(m, "Code", "Status codes of the kernels (rankmeter/status.hpp).")
      .value("ok", Code::ok)
      .value("bad_indptr", Code::bad_indptr)
      .value("duplicate_truth", Code::duplicate_truth)
      .value("duplicate_recs", Code::duplicate_recs)
      .value("empty_truth", Code::empty_truth)
      .value("pad_inside", Code::pad_inside)
      .value("bad_rowmap", Code::bad_rowmap)
      .value("too_large", Code::too_large)
      .value("too_many_variants", Code::too_many_variants)
      .value("missing_feature", Code::missing_feature)
      .value("missing_similarity", Code::missing_similarity)
      .value("bad_score", Code::bad_score)
      .value("bad_grade", Code::bad_grade);

  py::class_<Column>(m, "Column", "One column of the fused pass: a metric at a cutoff with its options.")
      .def(py::init<>())
      .def_readwrite("kind", &Column::kind)
      .def_readwrite("cutoff", &Column::cutoff)
      .def_readwrite("denominator", &Column::denominator)
      .def_readwrite("gain", &Column::gain)
      .def_readwrite("ideal", &Column::ideal)
      .def_readwrite("log_base", &Column::log_base)
      .def_readwrite("beta", &Column::beta)
      .def_readwrite("p", &Column::p)
      .def_readwrite("max_grade", &Column::max_grade)
      .def_readwrite("mult", &Column::mult)
      .def_readwrite("at", &Column::at)
      .def_readwrite("below_min", &Column::below_min)
      .def_readwrite("discount", &Column::discount)
      .def_readwrite("crr_ideal", &Column::crr_ideal)
      .def_readwrite("rel_ret", &Column::rel_ret)
      .def_readwrite("nonrel_ret", &Column::nonrel_ret)
      .def_readwrite("rel_nonret", &Column::rel_nonret)
      .def_readwrite("nonrel_nonret", &Column::nonrel_nonret)
      .def_readwrite("num_docs", &Column::num_docs)
      .def_readwrite("short_lists", &Column::short_lists)
      .def_readwrite("negative", &Column::negative)
      .def_readwrite("scale", &Column::scale)
      .def_readwrite("cut", &Column::cut)
      .def_readwrite("t", &Column::t)
      .def_readwrite("hb", &Column::hb)
      .def_readwrite("gain_med", &Column::gain_med)
      .def_readwrite("l", &Column::l)
      .def_readwrite("halflife", &Column::halflife)
      .def_readwrite("max_gain", &Column::max_gain)
      .def_readwrite("max_cost", &Column::max_cost)
      .def_readwrite("min_cost", &Column::min_cost)
      .def_readwrite("depth", &Column::depth)
      .def_readwrite("quantity", &Column::quantity)
      .def_readwrite("normalize", &Column::normalize)
      .def("__repr__", [](const Column& c) {
        return "<Column kind=" + std::to_string(static_cast<int>(c.kind)) + " cutoff=" + std::to_string(c.cutoff) + ">";
      });

  m.def(
      "metric_registry",
      [] {
        py::list rows;
#define RANKMETER_METRIC(name, family, stage, cutoff, count_like, reads, needs, options, section, summary) \
  rows.append(py::dict(py::arg("name") = #name, py::arg("family") = #family, py::arg("stage") = #stage,    \
                       py::arg("cutoff") = (cutoff) != 0, py::arg("count_like") = (count_like) != 0,       \
                       py::arg("reads") = reads, py::arg("needs") = needs, py::arg("options") = options,   \
                       py::arg("section") = section, py::arg("summary") = summary));
#include "rankmeter/metrics.def"
        return rows;
      },
      "The metric registry (metrics.def): one dict per metric, in row order.");
  m.def(
      "metric_aliases",
      [] {
        py::list rows;
#define RANKMETER_ALIAS(alias, name, fixed) rows.append(py::make_tuple(#alias, #name, fixed));
#include "rankmeter/metrics.def"
        return rows;
      },
      "Other spellings of the registry's metrics: (alias, name, fixed options).");
  m.def(
      "metric_better",
      [] {
        py::list rows;
#define RANKMETER_BETTER(name, direction) rows.append(py::make_tuple(#name, direction));
#include "rankmeter/metrics.def"
        return rows;
      },
      "Which way the registry's metrics are better, where not higher: (name, direction words).");
}
