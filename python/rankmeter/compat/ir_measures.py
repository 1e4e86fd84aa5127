"""``ir_measures`` on rankmeter's fused pass: measures, providers, ``calc_aggregate``, ``iter_calc``, ``calc``.

Before::

    import ir_measures
    from ir_measures import nDCG, AP, P
    ir_measures.calc_aggregate([nDCG@10, AP, P@5], qrels, run)

After::

    from rankmeter.compat import ir_measures
    from rankmeter.compat.ir_measures import nDCG, AP, P
    ir_measures.calc_aggregate([nDCG@10, AP, P@5], qrels, run)

Measures are this module's objects (``nDCG@10``, ``P(rel=2)@5``, ``RBP(rel=1, p=0.9)``), their names as
strings (``"nDCG@10"``, parsed as ir_measures parses them) or ir_measures' own measure objects. ``qrels`` is
``{query: {doc: grade}}``, an iterable of ``Qrel``-like namedtuples or a DataFrame with ``query_id``,
``doc_id``, ``relevance``; ``run`` the same with ``score``. ``calc_aggregate`` gives ``{measure: value}`` (the
mean over the qrels queries; a sum for ``NumRel``, ``NumRet``, ``NumQ``), ``iter_calc`` yields
``Metric(query_id, measure, value)`` for every qrels query (a query missing from the run scores 0), ``calc``
gives both; a measure's own ``calc_aggregate``/``iter_calc``/``calc`` and ``evaluator(measures, qrels)`` too.

Each measure is computed as the ir_measures provider that its default pipeline picks computes it
(docs/metrics.md, "ir_measures"), each with its own order among equal scores:

- ``pytrec_eval`` (trec_eval as rankmeter.compat.pytrec_eval reads it: scores rounded to float32, equal scores
  by document id descending, a negative grade unjudged for bpref): ``P``, ``R``, ``AP``, ``RR`` without cutoff,
  ``nDCG`` (``dcg="log2"``, ``gains=``), ``Success``, ``Rprec``, ``Bpref``, ``NumRel`` (rel=1), ``NumRet``,
  ``NumRelRet``, ``NumQ``, ``SetP``, ``SetRelP``, ``SetR``, ``SetF``, ``SetAP``, ``IPrec@r`` (trec_eval 9.0.x's
  levels, as pytrec_eval), ``infAP``, with ``rel=`` and ``judged_only=`` (trec_eval -J); ids must be strings and grades integers, as pytrec_eval requires (TypeError);
- ``cwl_eval`` (equal scores in input order): ``RBP(rel=L, p=P)``, binary gains on the first 1000 documents,
  normalised by the sum of their weights; the C/W/L measures ``INST(T=, min_rel=, max_rel=)``, ``INSQ``,
  ``BPM(T=)@k``, ``SDCG@k``, ``NERR8@k``, ``NERR9@k``, ``NERR10(p=)``, ``NERR11(T=)`` (cwl-eval's expected utility,
  docs/metrics.md 3.21, on the grades clipped to [min_rel, max_rel] and scaled to [0, 1]; ``T`` > 0 and ``p`` in
  (0, 1) here, else ValueError), and ``P@k``, ``RR``, ``AP`` asked of this provider itself;
  normalised by the sum of their weights;
- ``compat`` (equal scores by document id ascending): ``Compat(p=, normalize=)``, the rank-biased overlap with the
  ideal ranking (grade, then run score with 0.0 for a document the run lacks, then qrels order); a query with an
  empty ranking and no grade > 0 raises ZeroDivisionError, as in ir_measures;
- ``judged`` (equal scores by document id ascending): ``Judged``, ``Judged@k``; a query with an empty ranking
  raises ZeroDivisionError, as in ir_measures;
- ``msmarco`` (equal scores by document id ascending): ``RR@k``;
- ``gdeval`` (equal scores by document id descending): ``ERR@k`` and ``nDCG(dcg="exp-log2")@k``, rounded to 5
  decimals per query as gdeval prints them; numeric query ids and integer grades up to 4 (gdeval's perl script
  rejects anything else; here a ValueError, as for two ids gdeval reads as one topic number, such as 7 and 007).
- ``pyndeval`` (ndeval; equal scores by document id ascending): ``alpha_nDCG``, ``alpha_DCG``, ``ERR_IA``,
  ``nERR_IA``, ``NRBP``, ``nNRBP``, ``AP_IA``, ``P_IA``, ``StRecall`` (cutoffs up to 20), the subtopic read from
  the qrels' ``iteration`` field (docs/metrics.md 3.20); a call of several pyndeval invocations is scored as
  separate calls would be (ir_measures scores only the one a set's hash order puts first).
- ``accuracy`` (equal scores in input order): ``Accuracy(rel=)@k``, the share of (relevant, other) pairs of the top
  k ranked relevant first, for the queries with a relevant document there only (no default for the others when
  it is the only provider asked); a query whose top k are all relevant raises ZeroDivisionError, as in
  ir_measures.

``RBP`` without ``rel=`` and anything no provider takes raise
``ValueError("Unsupported measures {...}.")`` at the call; the first provider to raise raises, in ir_measures'
order. Where ir_measures' own value is
not defined this module gives rankmeter's: pytrec_eval's num_rel (and so IPrec) of a query with an empty ranking,
and nDCG without
``gains=`` or NumRet/NumQ without ``rel=`` asked with ``gains=`` or ``judged_only=True`` measures (ir_measures
computes them in whichever pytrec_eval invocation its measure set lists first).
"""

from __future__ import annotations

import ast
import functools
import gzip
import io
import itertools
import math
import re
from typing import Any, ClassVar, Iterable, Iterator, NamedTuple, Union

import numpy as np

import rankmeter as _rm
from rankmeter import _core

__all__ = [
    "parse_trec_measure",
    "AP",
    "AP_IA",
    "Accuracy",
    "Compat",
    "BPref",
    "Bpref",
    "CalcResults",
    "ERR",
    "ERR_IA",
    "IPrec",
    "Judged",
    "MAP",
    "MAP_IA",
    "MRR",
    "Measure",
    "Metric",
    "NDCG",
    "NRBP",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "P_IA",
    "Precision",
    "Qrel",
    "R",
    "RBP",
    "RPrec",
    "RR",
    "Recall",
    "Rprec",
    "ScoredDoc",
    "SetAP",
    "SetF",
    "SetP",
    "SetR",
    "SetRelP",
    "StRecall",
    "Success",
    "calc",
    "calc_aggregate",
    "accuracy",
    "compat",
    "cwl_eval",
    "alpha_DCG",
    "alpha_nDCG",
    "evaluator",
    "gdeval",
    "infAP",
    "iter_calc",
    "judged",
    "msmarco",
    "nDCG",
    "nERR_IA",
    "nNRBP",
    "parse_measure",
    "pyndeval",
    "providers",
    "pytrec_eval",
    "read_trec_qrels",
    "read_trec_run",
]


class Qrel(NamedTuple):
    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


class ScoredDoc(NamedTuple):
    query_id: str
    doc_id: str
    score: float


class Metric(NamedTuple):
    query_id: str
    measure: Any
    value: Union[float, int]


class CalcResults(NamedTuple):
    aggregated: Any
    per_query: list


class _NotProvided:
    def __repr__(self) -> str:
        return "NOT_PROVIDED"


NOT_PROVIDED: Any = _NotProvided()


class _Param:
    __slots__ = ("dtype", "required", "default", "choices")

    def __init__(self, dtype: Any, required: bool = False, default: Any = NOT_PROVIDED, choices: Any = None):
        self.dtype, self.required, self.default, self.choices = dtype, required, default, choices

    def valid(self, value: Any) -> bool:
        if value is NOT_PROVIDED:
            return not self.required
        if self.dtype is not None and not isinstance(value, self.dtype):
            return False
        return self.choices is None or value in self.choices


_CUT = _Param(int)
_CUT_REQ = _Param(int, required=True)
_REL = _Param(int, default=1)
_JUDGED = _Param(bool, default=False)
_SPECS: dict = {
    "P": {"cutoff": _CUT_REQ, "rel": _REL, "judged_only": _JUDGED},
    "R": {"cutoff": _CUT_REQ, "rel": _REL, "judged_only": _JUDGED},
    "AP": {"cutoff": _CUT, "rel": _REL, "judged_only": _JUDGED},
    "RR": {"cutoff": _CUT, "rel": _REL, "judged_only": _JUDGED},
    "nDCG": {
        "cutoff": _CUT,
        "dcg": _Param(str, default="log2", choices=("log2", "exp-log2")),
        "gains": _Param(dict),
        "judged_only": _JUDGED,
    },
    "Success": {"cutoff": _CUT_REQ, "rel": _REL, "judged_only": _JUDGED},
    "Rprec": {"rel": _REL, "judged_only": _JUDGED},
    "Bpref": {"rel": _REL},
    "RBP": {"cutoff": _CUT, "p": _Param(float, default=0.8), "rel": _Param(int)},
    "ERR": {"cutoff": _CUT},
    "Judged": {"cutoff": _CUT},
    "NumRel": {"rel": _REL},
    "NumRet": {"rel": _Param(int)},
    "NumQ": {},
    "SetP": {"rel": _REL, "relative": _Param(bool, default=False), "judged_only": _JUDGED},
    "SetR": {"rel": _REL},
    "SetF": {"rel": _REL, "beta": _Param(float, default=1.0), "judged_only": _JUDGED},
    "SetAP": {"rel": _REL, "judged_only": _JUDGED},
    # C/W/L measures of the cwl_eval provider: grades clipped to [min_rel, max_rel] and scaled to [0, 1]
    "INST": {"T": _Param(float, default=1.0), "min_rel": _Param(int, default=0), "max_rel": _Param(int, required=True)},
    "INSQ": {"T": _Param(float, default=1.0), "min_rel": _Param(int, default=0), "max_rel": _Param(int, required=True)},
    "BPM": {
        "cutoff": _CUT_REQ,
        "T": _Param(float, default=1.0),
        "min_rel": _Param(int, default=0),
        "max_rel": _Param(int, required=True),
    },
    "SDCG": {
        "cutoff": _CUT_REQ,
        "dcg": _Param(str, default="log2", choices=("log2",)),
        "min_rel": _Param(int, default=0),
        "max_rel": _Param(int, required=True),
    },
    "NERR8": {"cutoff": _CUT_REQ, "min_rel": _Param(int, default=0), "max_rel": _Param(int, required=True)},
    "NERR9": {"cutoff": _CUT_REQ, "min_rel": _Param(int, default=0), "max_rel": _Param(int, required=True)},
    "NERR10": {
        "p": _Param(float, default=0.9),
        "min_rel": _Param(int, default=0),
        "max_rel": _Param(int, required=True),
    },
    "NERR11": {
        "T": _Param(float, default=1.0),
        "min_rel": _Param(int, default=0),
        "max_rel": _Param(int, required=True),
    },
    "IPrec": {"recall": _Param(float, required=True), "rel": _REL, "judged_only": _JUDGED},
    "infAP": {"rel": _REL},
    # ndeval's intent-aware diversity measures (the pyndeval provider)
    "ERR_IA": {"cutoff": _CUT, "rel": _REL, "judged_only": _JUDGED},
    "nERR_IA": {"cutoff": _CUT, "rel": _REL, "judged_only": _JUDGED},
    "alpha_DCG": {"cutoff": _CUT, "rel": _REL, "alpha": _Param(float, default=0.5), "judged_only": _JUDGED},
    "alpha_nDCG": {"cutoff": _CUT, "rel": _REL, "alpha": _Param(float, default=0.5), "judged_only": _JUDGED},
    "NRBP": {"rel": _REL, "alpha": _Param(float, default=0.5), "beta": _Param(float, default=0.5)},
    "nNRBP": {"rel": _REL, "alpha": _Param(float, default=0.5), "beta": _Param(float, default=0.5)},
    "AP_IA": {"rel": _REL, "judged_only": _JUDGED},
    "P_IA": {"cutoff": _CUT, "rel": _REL, "judged_only": _JUDGED},
    "StRecall": {"cutoff": _CUT, "rel": _REL},
    "Compat": {"p": _Param(float, default=0.95), "normalize": _Param(bool, default=True)},
    "Accuracy": {"cutoff": _CUT, "rel": _REL},
}
_AT_PARAM = {"IPrec": "recall"}
_SUMMED = ("NumRel", "NumRet", "NumQ")
# ir_measures measures rankmeter does not compute
_NOT_COMPUTED: tuple = ()


class Measure:
    """An ir_measures measure: a name and parameters; ``measure@k`` sets the cutoff, ``measure(rel=2)`` others.

    ``str()``/``repr()``, equality and hashing are ir_measures' (``P(rel=2)@5``), so these objects and
    ir_measures' own are interchangeable as keys."""

    AT_PARAM = "cutoff"
    DEFAULT = 0.0

    def __init__(self, name: str, **params: Any):
        self.NAME = self.__name__ = name
        self.AT_PARAM = _AT_PARAM.get(name, "cutoff")
        self.SUPPORTED_PARAMS = _SPECS[name]
        self.params = params
        self.validated = False

    def __call__(self, **kwargs: Any) -> Measure:
        return Measure(self.NAME, **{**self.params, **kwargs})

    def __matmul__(self, at_param: Any) -> Measure:
        return self(**{self.AT_PARAM: at_param})

    def __getitem__(self, key: str) -> Any:
        return self.params.get(key, self.SUPPORTED_PARAMS[key].default)

    def validate_params(self) -> None:
        if self.validated:
            return
        unknown = list(self.params.keys() - self.SUPPORTED_PARAMS.keys())
        assert not unknown, f"unsupported params found: {unknown}"
        for name, spec in self.SUPPORTED_PARAMS.items():
            value = self.params.get(name, NOT_PROVIDED)
            assert spec.valid(value), f"invalid param {name}={value!r}"
        self.validated = True

    def iter_calc(self, qrels: Any, run: Any) -> Iterator[Metric]:
        self.validate_params()
        return iter_calc([self], qrels, run)

    def calc_aggregate(self, qrels: Any, run: Any) -> Any:
        return calc_aggregate([self], qrels, run)[self]

    def calc(self, qrels: Any, run: Any) -> CalcResults:
        agg, perq = calc([self], qrels, run)
        return CalcResults(agg[self], perq)

    def evaluator(self, qrels: Any) -> _Evaluator:
        return evaluator([self], qrels)

    def aggregator(self) -> str:
        return "sum" if self.NAME in _SUMMED else "mean"

    def __repr__(self) -> str:
        shown = ",".join(
            f"{k}={_param_repr(v)}"
            for k, v in self.params.items()
            if k != self.AT_PARAM and v != self.SUPPORTED_PARAMS[k].default
        )
        text = self.NAME + (f"({shown})" if shown else "")
        if self.AT_PARAM in self.params:
            text += f"@{self.params[self.AT_PARAM]}"
        return text

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Measure) or (hasattr(other, "NAME") and hasattr(other, "params")):
            return repr(self) == repr(other)
        return False

    def __hash__(self) -> int:
        return hash(repr(self))


def _param_repr(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{x}" for k, x in sorted(v.items()) if k != x) + "}"
    return repr(v)


P = Precision = Measure("P")
R = Recall = Measure("R")
AP = MAP = Measure("AP")
RR = MRR = Measure("RR")
nDCG = NDCG = Measure("nDCG")
Success = Measure("Success")
Rprec = RPrec = Measure("Rprec")
Bpref = BPref = Measure("Bpref")
RBP = Measure("RBP")
ERR = Measure("ERR")
Judged = Measure("Judged")
NumRel = Measure("NumRel")
NumRet = Measure("NumRet")
NumRelRet = NumRet(rel=1)
NumQ = Measure("NumQ")
SetP = Measure("SetP")
SetRelP = SetP(relative=True)
SetR = Measure("SetR")
SetF = Measure("SetF")
SetAP = Measure("SetAP")
IPrec = Measure("IPrec")
infAP = Measure("infAP")
ERR_IA = Measure("ERR_IA")
nERR_IA = Measure("nERR_IA")
alpha_DCG = Measure("alpha_DCG")
alpha_nDCG = Measure("alpha_nDCG")
NRBP = Measure("NRBP")
nNRBP = Measure("nNRBP")
AP_IA = MAP_IA = Measure("AP_IA")
P_IA = Measure("P_IA")
StRecall = Measure("StRecall")
INST = Measure("INST")
INSQ = Measure("INSQ")
BPM = Measure("BPM")
SDCG = Measure("SDCG")
NERR8 = Measure("NERR8")
NERR9 = Measure("NERR9")
NERR10 = Measure("NERR10")
NERR11 = Measure("NERR11")
Compat = Measure("Compat")
Accuracy = Measure("Accuracy")
_REGISTRY = {
    "P": P, "Precision": P, "R": R, "Recall": R, "AP": AP, "MAP": AP, "RR": RR, "MRR": RR, "nDCG": nDCG,
    "NDCG": nDCG, "Success": Success, "Rprec": Rprec, "RPrec": Rprec, "Bpref": Bpref, "BPref": Bpref, "RBP": RBP,
    "ERR": ERR, "Judged": Judged, "NumRel": NumRel, "NumRet": NumRet, "NumRelRet": NumRelRet, "NumQ": NumQ,
    "SetP": SetP, "SetRelP": SetRelP, "SetR": SetR, "SetF": SetF, "SetAP": SetAP, "IPrec": IPrec, "infAP": infAP,
    "ERR_IA": ERR_IA, "nERR_IA": nERR_IA, "alpha_DCG": alpha_DCG, "α_DCG": alpha_DCG, "alpha_nDCG": alpha_nDCG,
    "α_nDCG": alpha_nDCG, "NRBP": NRBP, "nNRBP": nNRBP, "AP_IA": AP_IA, "MAP_IA": AP_IA, "P_IA": P_IA,
    "StRecall": StRecall,
    "Compat": Compat, "Accuracy": Accuracy,
}  # fmt: skip
# the C/W/L measures of the cwl_eval provider
_REGISTRY.update({"INST": INST, "INSQ": INSQ, "BPM": BPM, "SDCG": SDCG, "NERR8": NERR8, "NERR9": NERR9,
                  "NERR10": NERR10, "NERR11": NERR11})  # fmt: skip
_PARSE_ERROR = "problem parsing measure {}; must be in format Measure(k1=v1, k2=v2)@c"


def _ast_value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):
        return dict(zip(map(_ast_value, node.keys), map(_ast_value, node.values)))  # type: ignore[arg-type]
    raise ValueError(_PARSE_ERROR.format("values must be str, float, int, bool, etc."))


# trec_eval names -> (measure, its parameter, trec_eval's default values), as ir_measures 0.3 maps them
# (util.parse_trec_measure); None: a trec_eval measure ir_measures does not offer
def _trec_name_map() -> dict:
    cuts = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
    return {
        "ndcg": (nDCG, None, None),
        "P": (P, "cutoff", cuts),
        "map_cut": (AP, "cutoff", cuts),
        "set_map": (SetAP, None, None),
        "set_P": (SetP, None, None),
        "infAP": (infAP, None, None),
        "bpref": (Bpref, None, None),
        "num_rel_ret": (NumRelRet, None, None),
        "recip_rank": (RR, None, None),
        "recall": (R, "cutoff", cuts),
        "set_recall": (SetR, None, None),
        "set_relative_P": (SetRelP, None, None),
        "num_ret": (NumRet, None, None),
        "num_rel": (NumRel, None, None),
        "ndcg_cut": (nDCG, "cutoff", cuts),
        "Rprec": (Rprec, None, None),
        "num_q": (NumQ, None, None),
        "map": (AP, None, None),
        "success": (Success, "cutoff", [1, 5, 10]),
        "set_F": (SetF, "beta", [1.0]),
        "iprec_at_recall": (IPrec, "recall", [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
        **dict.fromkeys(
            (
                "Rndcg",
                "num_nonrel_judged_ret",
                "11pt_avg",
                "relative_P",
                "gm_map",
                "binG",
                "ndcg_rel",
                "utility",
                "Rprec_mult",
                "relstring",
                "gm_bpref",
                "G",
            ),
            (None, None, None),
        ),
    }


_TREC_PARAM_TYPES = {"cutoff": int, "beta": float, "recall": float}


def parse_trec_measure(measure: str) -> list:
    """The measures a trec_eval measure name stands for, as ir_measures' ``parse_trec_measure`` gives them:
    ``"P_5,10"`` or ``"P.5,10"`` -> ``[P@5, P@10]``; a bare name with parameters -> trec_eval's defaults
    (``"P"`` -> P@5 ... P@1000); a nickname (``"official"``, ``"set"``, ``"all_trec"``) -> its measures in
    name order, those ir_measures does not offer skipped (printed, as ir_measures prints them; ``runid``
    silently). ``ValueError`` for a name trec_eval does not know or ir_measures does not offer."""
    from .pytrec_eval import _NICKNAMES

    names = _trec_name_map()
    if measure in _NICKNAMES:
        result: list = []
        skipped = []
        for sub in sorted(set(_NICKNAMES[measure].split())):
            try:
                result += parse_trec_measure(sub)
            except ValueError:
                if sub != "runid":
                    skipped.append(sub)
        if skipped:
            print(f"skipped {skipped}: measures not yet supported")
        return result
    if measure in names:
        meas, param, defaults = names[measure]
        if meas is None:
            raise ValueError(f"known trec name {measure}, but not yet supported")
        if param is not None:
            return [meas(**{param: v}) for v in defaults]
        return [meas]
    for base in names:  # "base.p1,p2" or "base_p1,p2", as trec_eval writes parameters
        m = re.match(rf"{re.escape(base)}[._]([0-9]+(?:\.[0-9]+)?(?:,[0-9]+(?:\.[0-9]+)?)*)", measure)
        if m is None:
            continue
        meas, param, _ = names[base]
        if meas is None:
            raise ValueError(f"known trec name {measure}, but not yet supported")
        if param is None:
            raise ValueError(f"unknown argument for {measure}: {m.group(1)}")
        return [meas(**{param: _TREC_PARAM_TYPES[param](v)}) for v in m.group(1).split(",")]
    raise ValueError(f"unknown measure {measure}")


def parse_measure(measure: Any) -> Measure:
    """``'nDCG@10'``, ``'P(rel=2)@5'``, ``"nDCG(dcg='exp-log2')@10"``, a Measure or an ir_measures measure."""
    if isinstance(measure, Measure):
        return measure
    text = measure if isinstance(measure, str) else str(measure)
    seen = _PARSED.get(text)
    if seen is not None:  # a name parsed before: a new Measure of the same name and parameters
        return Measure(seen.NAME, **seen.params)
    m = _parse_text(text)
    if len(_PARSED) >= 4096:
        _PARSED.clear()
    _PARSED[text] = m
    return Measure(m.NAME, **m.params)


_PARSED: dict = {}  # measure text -> its parse (a call in a loop parses each name once)


def _parse_text(text: str) -> Measure:
    try:
        body = ast.parse(text).body
    except SyntaxError as e:
        raise ValueError(_PARSE_ERROR.format(str(e))) from None
    if len(body) != 1:
        raise ValueError(_PARSE_ERROR.format("multiple expressions"))
    if not isinstance(body[0], ast.Expr):
        raise ValueError(_PARSE_ERROR.format("not an expression"))
    node = body[0].value
    at = None
    args: dict = {}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at = _ast_value(node.right)
        node = node.left
    if isinstance(node, ast.Call):
        if node.args:
            raise ValueError(_PARSE_ERROR.format("args must be named"))
        for kw in node.keywords:
            args[kw.arg] = _ast_value(kw.value)
        node = node.func
    if not isinstance(node, ast.Name):
        raise ValueError(_PARSE_ERROR.format("unexpected expression"))
    name = node.id
    if name in _NOT_COMPUTED:
        raise NameError(f"measure not computed by rankmeter.compat.ir_measures: {name} (use ir_measures itself)")
    if name not in _REGISTRY:
        raise NameError(f"measure not found: {name}")
    base = _REGISTRY[name]
    if at is not None:
        args[base.AT_PARAM] = at
    return base(**args)


# ---------------------------------------------------------------------------------------------------------------
# inputs


def _nested(data: Any, field: str, what: str) -> dict:
    if isinstance(data, dict):
        return data
    if hasattr(data, "itertuples") and hasattr(data, "columns"):
        missing = [c for c in ("query_id", "doc_id", field) if c not in data.columns]
        if missing:
            raise ValueError(f"unknown {what} format: DataFrame missing columns: {missing}")
        out: dict = {}
        for q, d, v in zip(data["query_id"].tolist(), data["doc_id"].tolist(), data[field].tolist()):
            out.setdefault(q, {})[d] = v
        return out
    if hasattr(data, "__iter__") and not isinstance(data, (str, bytes)):
        out = {}
        try:
            for row in data:
                out.setdefault(row.query_id, {})[row.doc_id] = getattr(row, field)
        except AttributeError:
            raise ValueError(
                f"unknown {what} format: provide an iterable of namedtuples with query_id, doc_id and {field}, "
                f"a DataFrame with those columns or a dict-of-dict"
            ) from None
        return out
    raise ValueError(f"unknown {what} format: provide a dict-of-dict, an iterable of namedtuples or a DataFrame")


def read_trec_qrels(file: Any) -> Iterator[Qrel]:
    """TREC qrels lines ``query iteration doc relevance`` (a path, a ``.gz`` path, file contents or a file)."""
    if hasattr(file, "read"):
        for line in file:
            if line.strip():
                q, it, d, rel = line.split()
                yield Qrel(q, d, int(rel), it)
    elif isinstance(file, str):
        if "\n" in file:
            yield from read_trec_qrels(io.StringIO(file))
        else:
            with (gzip.open if file.endswith(".gz") else open)(file, "rt") as f:
                yield from read_trec_qrels(f)


def read_trec_run(file: Any) -> Iterator[ScoredDoc]:
    """TREC run lines ``query Q0 doc rank score tag`` (a path, a ``.gz`` path, file contents or a file)."""
    if hasattr(file, "read"):
        for line in file:
            if line.strip():
                q, _it, d, _rank, score, _tag = line.split()
                yield ScoredDoc(q, d, float(score))
    elif isinstance(file, str):
        if "\n" in file:
            yield from read_trec_run(io.StringIO(file))
        else:
            with (gzip.open if file.endswith(".gz") else open)(file, "rt") as f:
                yield from read_trec_run(f)


class _Data:
    """qrels and run as CSR over the qrels queries (in qrels order), with document codes; the run's arrays and
    the codes are built when a provider first reads them (pytrec_eval's measures read the dicts themselves)."""

    def __init__(self, qrels: dict, run: dict, numbers_only: bool = False):
        self.qrels, self.run = qrels, run
        self.queries = list(qrels.keys())
        pos = dict(zip(self.queries, itertools.count()))
        self.position = pos
        n = len(self.queries)
        self.in_run = np.fromiter(map(run.__contains__, self.queries), dtype=bool, count=n)
        self._rank: dict = {}
        self.subtopic_rows: Any = None  # set by the evaluator for pyndeval's measures
        self._walked: Any = False  # the walker's answer for (qrels, run), made on first use
        if not numbers_only:
            self.grades  # noqa: B018 -- grades that are not numbers are a TypeError here, before any provider runs

    def walked(self) -> Any:
        """``_core.walk_py(qrels, run, dict_rows=True)``, once (None: the dicts are not plain)."""
        if self._walked is False:
            from .. import _core

            self._walked = _core.walk_py(self.qrels, self.run, dict_rows=True)
        return self._walked

    @functools.cached_property
    def t_indptr(self) -> np.ndarray:
        """The qrels rows' offsets (in qrels order); made on first use, as the documents and grades below (the
        one-call pytrec_eval path reads the dicts itself)."""
        t_lens = np.fromiter(map(len, self.qrels.values()), dtype=np.int64, count=len(self.queries))
        return np.concatenate([[0], np.cumsum(t_lens)]).astype(np.int64)

    @functools.cached_property
    def _t_docs(self) -> list:
        return list(itertools.chain.from_iterable(self.qrels.values()))

    @functools.cached_property
    def grades(self) -> np.ndarray:
        try:
            return np.fromiter(
                itertools.chain.from_iterable(d.values() for d in self.qrels.values()),
                dtype=np.float64,
                count=len(self._t_docs),
            )
        except (TypeError, ValueError):
            raise TypeError("qrels relevance values must be numbers") from None

    @functools.cached_property
    def _run_part(self) -> tuple:
        pos, run = self.position, self.run
        kept = list(filter(pos.__contains__, run))  # the run's queries that have qrels, in the run's order
        r_users = np.fromiter(map(pos.__getitem__, kept), dtype=np.int64, count=len(kept))
        lists = list(map(run.__getitem__, kept))
        r_lens = np.fromiter(map(len, lists), dtype=np.int64, count=len(kept))
        r_indptr = np.concatenate([[0], np.cumsum(r_lens)]).astype(np.int64)
        r_docs = list(itertools.chain.from_iterable(lists))
        try:
            scores = np.fromiter(
                itertools.chain.from_iterable(d.values() for d in lists), dtype=np.float64, count=len(r_docs)
            )
        except (TypeError, ValueError):
            raise TypeError("run scores must be numbers") from None
        n_ret = np.zeros(len(self.queries), dtype=np.float64)
        n_ret[r_users] = r_lens
        return r_users, r_indptr, r_docs, scores, n_ret

    @property
    def r_users(self) -> np.ndarray:
        return self._run_part[0]

    @property
    def r_indptr(self) -> np.ndarray:
        return self._run_part[1]

    @property
    def scores(self) -> np.ndarray:
        return self._run_part[3]

    @property
    def n_ret(self) -> np.ndarray:
        return self._run_part[4]

    @functools.cached_property
    def _codes_part(self) -> tuple:
        t_docs, r_docs = self._t_docs, self._run_part[2]
        both = np.empty(len(t_docs) + len(r_docs), dtype=object)
        both[: len(t_docs)] = t_docs
        both[len(t_docs) :] = r_docs
        codes, uniques = _factorize(both)
        return codes[: len(t_docs)], codes[len(t_docs) :], uniques

    @property
    def t_codes(self) -> np.ndarray:
        return self._codes_part[0]

    @property
    def r_codes(self) -> np.ndarray:
        return self._codes_part[1]

    @property
    def uniques(self) -> list:
        return self._codes_part[2]

    def rank(self, how: str) -> np.ndarray:
        """Rank of every document code in ``str`` order (gdeval, trec_eval) or natural order (Python's sort)."""
        if how not in self._rank:
            u = self.uniques
            if how == "str" or len({type(x) for x in u}) > 1:
                keys = [x if type(x) is str else str(x) for x in u]
            else:
                keys = list(u)
            order = sorted(range(len(keys)), key=keys.__getitem__)
            r = np.empty(len(keys), dtype=np.int64)
            r[order] = np.arange(len(keys), dtype=np.int64)
            self._rank[how] = r
        return self._rank[how]


def _factorize(arr: np.ndarray) -> tuple[np.ndarray, list]:
    try:
        import pandas as pd

        codes, uniques = pd.factorize(arr)
        return np.asarray(codes, dtype=np.int64), list(uniques)
    except ImportError:  # pragma: no cover - pandas is optional
        first: dict = {}
        codes = np.fromiter((first.setdefault(d, len(first)) for d in arr), dtype=np.int64, count=arr.size)
        return codes, list(first)


# ---------------------------------------------------------------------------------------------------------------
# providers: which measures each takes, its order among equal scores, how each measure is computed


class _Provider:
    NAME = ""
    TIES = "desc"  # equal scores by document id: "desc" (str order), "asc" (natural order) or "input"
    FILLS = True  # alone in a call, the provider gives the default value to the qrels queries it does not score

    def supports(self, measure: Any) -> bool:
        m = parse_measure(measure)
        m.validate_params()
        return self._takes(m)

    def _takes(self, m: Measure) -> bool:
        raise NotImplementedError

    def evaluator(self, measures: Iterable[Any], qrels: Any) -> _Evaluator:
        parsed = _unique([parse_measure(m) for m in measures])
        for m in parsed:
            m.validate_params()
            if not self._computes(m):
                raise ValueError(f"unsupported measure {m}")
        qrels = _once(qrels)
        return _Evaluator([(self, parsed)], _nested(qrels, "relevance", "qrels"), _subtopic_rows(qrels, [self]))

    def _computes(self, m: Measure) -> bool:
        return self._takes(m)

    def iter_calc(self, measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
        return self.evaluator(measures, qrels).iter_calc(run)

    def calc_aggregate(self, measures: Iterable[Any], qrels: Any, run: Any) -> dict:
        return self.evaluator(measures, qrels).calc_aggregate(run)

    def calc(self, measures: Iterable[Any], qrels: Any, run: Any) -> CalcResults:
        return self.evaluator(measures, qrels).calc(run)

    def is_available(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<rankmeter.compat.ir_measures provider {self.NAME}>"

    def check(self, data: _Data) -> None:
        """Raise where the original raises on these inputs."""

    # what the provider yields: {measure: values over the qrels queries}, NaN where it yields nothing
    def values(self, data: _Data, measures: list) -> dict:
        raise NotImplementedError


def _evaluate(data: _Data, names: list, ties: str, how: str, rel: float, grades: Any = None) -> dict:
    """{rankmeter metric: per-query values (qrels order)} from one rankmeter call, equal scores by document id
    descending (``ties="desc"``, ids in ``how`` order: "str" or "natural"), ascending, or in input order."""
    n = len(data.queries)
    if not data.r_users.size:  # no qrels query in the run: nothing is evaluated (every value is the default)
        return {nm: np.full(n, np.nan) for nm in names}
    users = np.arange(n, dtype=np.int64)
    if ties == "input":
        t_items, r_items, tie_rule = data.t_codes, data.r_codes, "input"
    else:
        rank = data.rank(how)
        if ties == "asc":
            rank = rank.size - 1 - rank
        t_items, r_items, tie_rule = rank[data.t_codes], rank[data.r_codes], "item_desc"
    truth = _rm.Truth.from_csr(data.t_indptr, t_items, data.grades if grades is None else grades, users=users)
    recs = _rm.Recs.from_csr(data.r_indptr, r_items, data.scores, users=data.r_users, by_score=True)
    res = _rm.evaluate(truth, recs, list(dict.fromkeys(names)), preset="ir_measures", ties=tie_rule, min_relevance=rel)
    at = np.argsort(np.asarray(res.users, dtype=np.int64), kind="stable")
    return {nm: np.asarray(res.per_user[nm], dtype=np.float64)[at] for nm in names}


class PytrecEvalProvider(_Provider):
    """trec_eval through pytrec_eval, one invocation per (``rel=``, ``judged_only=``, ``gains=``), as
    rankmeter.compat.pytrec_eval reads it: scores rounded to float32, equal scores by document id descending,
    ``judged_only=`` is trec_eval's -J, ``nDCG(gains=)`` maps the grades first; the queries in both the qrels
    (with a row) and the run are evaluated, the others get ir_measures' default 0."""

    NAME = "pytrec_eval"
    TIES = "desc"
    _TAKES = ("P", "R", "AP", "RR", "nDCG", "Success", "Rprec", "Bpref", "NumRel", "NumRet", "NumQ", "SetP",
              "SetR", "SetF", "SetAP", "IPrec", "infAP")  # fmt: skip

    def check(self, data: _Data) -> None:
        _check_pytrec_inputs(data)

    def _takes(self, m: Measure) -> bool:
        if m.NAME not in self._TAKES:
            return False
        if m.NAME == "RR" and m["cutoff"] is not NOT_PROVIDED:
            return False
        if m.NAME == "nDCG" and m["dcg"] != "log2":
            return False
        return not (m.NAME == "NumRel" and m["rel"] != 1)

    def values(self, data: _Data, measures: list) -> dict:
        from ._nested import to_containers, trec_one_call

        groups: dict = {}
        for m in measures:
            rel = m["rel"] if "rel" in m.SUPPORTED_PARAMS and m["rel"] is not NOT_PROVIDED else 1
            judged_only = bool(m.params.get("judged_only", False))
            gains = m["gains"] if m.NAME == "nDCG" and m["gains"] is not NOT_PROVIDED else None
            key = (rel, judged_only, None if gains is None else tuple(sorted(gains.items())))
            groups.setdefault(key, []).append(m)
        out: dict = {}
        n = len(data.queries)
        for (rel, judged_only, gains), ms in groups.items():
            qrels = data.qrels
            if gains is not None:
                mapping = dict(gains)
                qrels = {q: {d: mapping.get(g, g) for d, g in docs.items()} for q, docs in qrels.items()}
            names = list(dict.fromkeys(n for m in ms for n in _pytrec_names(m)))
            names += ["hits", "num_rel", "num_ret", "num_q"]
            one = None if judged_only or qrels is not data.qrels else trec_one_call(data.qrels, data.run, names, rel)
            if one is not None:
                # dicts of str documents: read, ranked and evaluated in one C++ call
                values, rows = one
                run_keys = (
                    np.fromiter(data.run, dtype=object, count=len(data.run)) if rows.size else np.zeros(0, object)
                )
                at = np.fromiter(map(data.position.__getitem__, run_keys[rows]), dtype=np.int64, count=rows.size)
                vals = {nm: np.full(n, np.nan) for nm in names}
                for j, nm in enumerate(names):
                    vals[nm][at] = values[j]
                for m in ms:
                    out[m] = _pytrec_value(m, vals)
                continue
            truth, recs = to_containers(
                qrels,
                data.run,
                float32=True,
                judged_only=judged_only,
                drop_empty_qrels=True,
                walked=data.walked() if qrels is data.qrels else None,
            )
            judged_queries = set(truth.users.tolist()) if truth.users is not None else set()
            vals = {nm: np.full(n, np.nan) for nm in names}
            if not judged_queries.isdisjoint(data.run.keys()):
                res = _rm.evaluate(truth, recs, names, preset="trec_eval_9", min_relevance=rel, ties="input")
                users = res.users.tolist()
                at = np.fromiter(map(data.position.__getitem__, users), dtype=np.int64, count=len(users))
                for nm in names:
                    vals[nm][at] = np.asarray(res.per_user[nm], dtype=np.float64)
            for m in ms:
                out[m] = _pytrec_value(m, vals)
        return out


def _pytrec_names(m: Measure) -> list:
    cut = f"@{m.params['cutoff']}" if "cutoff" in m.params else ""
    if m.NAME == "P":
        return [f"precision{cut}"]
    if m.NAME == "R":
        return [f"recall{cut}"]
    if m.NAME == "AP":
        return [f"ap{cut}"]
    if m.NAME == "RR":
        return ["rr"]
    if m.NAME == "nDCG":
        return [f"ndcg{cut}"]
    if m.NAME == "Success":
        return [f"hit_rate{cut}"]
    if m.NAME == "Rprec":
        return ["r_precision"]
    if m.NAME == "Bpref":
        return ["bpref"]
    if m.NAME in ("SetP", "SetAP"):
        return ["precision", "recall"]
    if m.NAME == "SetR":
        return ["recall"]
    if m.NAME == "SetF":
        return ["precision", "recall"]
    if m.NAME == "IPrec":
        return [f"iprec(at={float(m['recall'])!r})"]
    if m.NAME == "infAP":
        return ["infap"]
    return []  # counts: hits, num_rel, num_ret, num_q


def _pytrec_value(m: Measure, vals: dict) -> np.ndarray:
    if m.NAME == "NumRel":
        return vals["num_rel"]
    if m.NAME == "NumQ":
        return vals["num_q"]
    if m.NAME == "NumRet":
        return vals["num_ret"] if m["rel"] is NOT_PROVIDED else vals["hits"]
    if m.NAME == "SetAP":
        return vals["precision"] * vals["recall"]
    if m.NAME == "SetF":  # trec_eval's set_F: (x + 1) P R / (x P + R), x weighing R (not squared)
        x, p, r = float(m["beta"]), vals["precision"], vals["recall"]
        den = x * p + r
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, (x + 1.0) * p * r / den, np.where(np.isnan(den), np.nan, 0.0))
    if m.NAME == "IPrec":
        # trec_eval 9.0.x: an empty ranking starts the interpolation at 0/0, the value of a level of 0 documents
        # (int(x |R| + 0.9) = 0): NaN (as rankmeter.compat.pytrec_eval gives it)
        x, value, n_ret, n_rel = float(m["recall"]), vals[_pytrec_names(m)[0]], vals["num_ret"], vals["num_rel"]
        with np.errstate(invalid="ignore"):
            zero_level = np.floor(x * np.nan_to_num(n_rel) + 0.9) == 0
        return np.where((n_ret == 0) & zero_level, np.nan, value)
    if m.NAME == "SetP" and m["relative"]:
        den = np.minimum(vals["num_ret"], vals["num_rel"])
        ok = np.nan_to_num(den) > 0
        return np.where(np.isnan(den), np.nan, np.divide(vals["hits"], den, out=np.zeros_like(den), where=ok))
    return vals[_pytrec_names(m)[0]]


def _types(values: Iterable) -> set:
    return set(map(type, values))


def _nested_types(d: Any) -> tuple[set, set, Any]:
    """(types of the keys of ``d``, of its inner keys, of its inner values: a set, or a callable that makes it):
    one C loop over a plain dict of plain dicts, else Python's scans."""
    got = _core.nested_types(d)
    if got is not None:
        return got[0], got[1], got[2]
    return (
        _types(d),
        _types(itertools.chain.from_iterable(d.values())),
        lambda: _types(itertools.chain.from_iterable(v.values() for v in d.values())),
    )


def _check_pytrec_qrels(qrels: dict) -> None:
    keys, docs, grades = _nested_types(qrels)
    if (keys | docs) - {str}:
        raise TypeError("Expected string as key: pytrec_eval takes query and document ids as strings")
    kinds = grades if isinstance(grades, set) else grades()
    if not all(issubclass(t, (int, np.integer)) for t in kinds):
        raise TypeError("Expected relevance to be integer: pytrec_eval takes integer grades")


def _check_pytrec_inputs(data: _Data) -> None:
    walked = data._walked if data._walked is not False else None  # the walk is not made for this check alone
    # item kind 2: every document of qrels and run an exact str (the walker looked at each); else a scan of types
    if walked is not None and walked[3] == 2:
        keys, docs = _types(data.run), {str}
    else:
        keys, docs, _ = _nested_types(data.run)
    if (keys | docs) - {str}:
        raise TypeError("Unable to extract query/object scores: pytrec_eval takes query and document ids as strings")


class CwlEvalProvider(_Provider):
    """cwl_eval: RBP with gains 1 for grades >= rel (negative grades count as 0), on the first 1000 documents, each
    weighted p^(j-1) / sum of the 1000 weights; the C/W/L measures INST, INSQ, BPM, SDCG, NERR8-NERR11 (and P, RR,
    AP with rel=) as cwl-eval computes their expected utility (docs/metrics.md 3.21) on the grades clipped at 0,
    then clipped to [min_rel, max_rel] and scaled to [0, 1] (or 1 for grades >= rel, else 0); equal scores in
    input order."""

    NAME = "cwl_eval"
    TIES = "input"
    _CWL = ("INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11")

    def _takes(self, m: Measure) -> bool:
        if m.NAME in self._CWL:
            return True
        if m.NAME in ("P", "RR", "AP"):
            return not m["judged_only"] and (m.NAME == "P" or m["cutoff"] is NOT_PROVIDED)
        return m.NAME == "RBP" and m["cutoff"] is NOT_PROVIDED and m["rel"] is not NOT_PROVIDED

    def _metric(self, m: Measure) -> str:
        """The rankmeter metric of a C/W/L measure (its EU), cwl-eval's classes as ir_measures builds them."""
        name, k = m.NAME, m["cutoff"] if "cutoff" in m.SUPPORTED_PARAMS else None
        T, p = m["T"] if "T" in m.SUPPORTED_PARAMS else 1.0, m["p"] if m.NAME == "NERR10" else 0.9
        if T <= 0:
            raise ValueError(f"{m}: rankmeter takes T > 0 for the C/W/L measures, got {T!r}")
        if not 0 < p < 1:
            raise ValueError(f"{m}: rankmeter takes p in (0, 1) for NERR10, got {p!r}")
        return {
            "P": f"cwl_p@{k}",
            "RR": "cwl_rr",
            "AP": "cwl_ap",
            "INST": f"inst(t={T!r})",
            "INSQ": f"insq(t={T!r})",
            "BPM": f"bpm(t={T!r})@{k}",
            "SDCG": f"sdcg@{k}",
            "NERR8": f"nerr8@{k}",
            "NERR9": f"nerr9@{k}",
            "NERR10": f"nerr10(p={p!r})",
            "NERR11": f"nerr11(t={T!r})",
        }[name]

    def _gains(self, data: _Data, m: Measure) -> np.ndarray:
        g = np.maximum(data.grades, 0.0)  # negative grades count as 0 (ir_measures' cwl_eval provider)
        if m.NAME in ("P", "RR", "AP"):
            return (g >= m["rel"]).astype(np.float64)
        lo, hi = m["min_rel"], m["max_rel"]
        if not lo < hi:
            raise AssertionError("min_rel must be less than max_rel")
        return (np.minimum(np.maximum(g, lo), hi) - lo) / (hi - lo)

    def values(self, data: _Data, measures: list) -> dict:
        out: dict = {}
        groups: dict = {}  # one rankmeter call per gain mapping
        for m in measures:
            if m.NAME == "RBP":
                continue
            key = ("rel", m["rel"]) if m.NAME in ("P", "RR", "AP") else ("range", m["min_rel"], m["max_rel"])
            groups.setdefault(key, []).append(m)
        for ms in groups.values():
            names = {m: self._metric(m) for m in ms}
            vals = _evaluate(
                data, list(dict.fromkeys(names.values())), "input", "natural", 1.0, self._gains(data, ms[0])
            )
            for m in ms:
                out[m] = np.where(data.in_run & (data.n_ret > 0), vals[names[m]], np.nan)
        for m in measures:
            if m.NAME != "RBP":
                continue
            p, rel = float(m["p"]), m["rel"]
            lowest = float(data.grades.min(initial=0.0))
            level = float(rel) if rel > 0 else min(lowest, 0.0)  # grades are clipped at 0 before the threshold
            if p == 1.0:
                name, scale = "hits@1000", 1.0 / 1000.0
            elif p == 0.0:
                name, scale = "hits@1", 1.0
            elif 0.0 < p < 1.0:
                name, scale = f"rbp(p={p!r})@1000", 1.0 / (1.0 - p**1000)
            else:
                raise ValueError(f"RBP p must be in [0, 1], got {p}")
            v = _evaluate(data, [name], "input", "natural", level)[name] * scale
            out[m] = np.where(data.in_run & (data.n_ret > 0), v, np.nan)
        return out


class JudgedProvider(_Provider):
    """The share of the top min(k, n) documents that the qrels judge; equal scores by document id ascending."""

    NAME = "judged"
    TIES = "asc"

    def _takes(self, m: Measure) -> bool:
        return m.NAME == "Judged"

    def values(self, data: _Data, measures: list) -> dict:
        has_qrels = np.diff(data.t_indptr) > 0
        if np.any(data.in_run & has_qrels & (data.n_ret == 0)):
            raise ZeroDivisionError("division by zero")  # ir_measures' judged: a query with an empty ranking
        names = {m: "judged" if m["cutoff"] is NOT_PROVIDED else f"judged@{m['cutoff']}" for m in measures}
        vals = _evaluate(data, list(names.values()), "asc", "natural", 1.0)
        return {m: np.where(data.in_run & has_qrels, vals[names[m]], np.nan) for m in measures}


class MsMarcoProvider(_Provider):
    """MS MARCO's RR@k: 1 / rank of the first document with grade >= rel within k; equal scores by document id
    ascending."""

    NAME = "msmarco"
    TIES = "asc"

    def _takes(self, m: Measure) -> bool:
        return m.NAME == "RR" and not m["judged_only"]

    def values(self, data: _Data, measures: list) -> dict:
        out: dict = {}
        for m in measures:
            name = "rr" if m["cutoff"] is NOT_PROVIDED else f"rr@{m['cutoff']}"
            out[m] = np.where(data.in_run, _evaluate(data, [name], "asc", "natural", m["rel"])[name], np.nan)
        return out


class GdevalProvider(_Provider):
    """gdeval (TREC Web track): ERR@k and nDCG@k with gain 2^g - 1, equal scores by document id descending,
    each query's value printed with 5 decimals."""

    NAME = "gdeval"
    TIES = "desc"

    def _takes(self, m: Measure) -> bool:
        if m.NAME == "ERR":
            return m["cutoff"] is not NOT_PROVIDED
        return (
            m.NAME == "nDCG"
            and m["cutoff"] is not NOT_PROVIDED
            and m["dcg"] == "exp-log2"
            and m["gains"] is NOT_PROVIDED
            and not m["judged_only"]
        )

    def _computes(self, m: Measure) -> bool:
        return m.NAME in ("ERR", "nDCG") and m["cutoff"] is not NOT_PROVIDED  # gdeval's nDCG whatever dcg= says

    def check(self, data: _Data) -> None:
        _check_gdeval_inputs(data)

    def values(self, data: _Data, measures: list) -> dict:
        cut = {m: m["cutoff"] for m in measures}  # gdeval prints each value with 5 decimals: rounding=gdeval
        names = {
            m: f"err(rounding=gdeval)@{cut[m]}"
            if m.NAME == "ERR"
            else f"ndcg(gain=exponential,rounding=gdeval)@{cut[m]}"
            for m in measures
        }
        vals = _evaluate(data, list(dict.fromkeys(names.values())), "desc", "str", 1.0)
        seen = np.zeros(len(data.queries), dtype=bool)  # gdeval reports the queries with a positive judgment
        row = np.repeat(np.arange(data.t_indptr.size - 1), np.diff(data.t_indptr))
        seen[row[data.grades > 0]] = True
        out: dict = {}
        for m in measures:
            out[m] = np.where(data.in_run & (data.n_ret > 0) & seen, vals[names[m]], np.nan)
        return out


_GDEVAL_TOPICS = re.compile(r"^(?:.*-)?([0-9]+)$", re.MULTILINE)


def _check_gdeval_inputs(data: _Data) -> None:
    """gdeval's perl script reads a topic as the digits after the id's last '-' and dies on anything else, and
    reads integer grades up to 4. Two ids it reads as one topic number would merge."""
    ids = list(dict.fromkeys(map(str, itertools.chain(data.queries, data.run))))
    topics = _GDEVAL_TOPICS.findall("\n".join(ids))
    if len(topics) != len(ids) or any("\n" in q for q in ids):
        bad = next(q for q in ids if not re.fullmatch(r"(?:.*-)?[0-9]+", q))
        raise ValueError(f"gdeval (ERR@k, nDCG(dcg='exp-log2')@k) reads numeric query ids only, got {bad!r}")
    if data.grades.size:
        if not np.all(np.mod(data.grades, 1) == 0):
            raise ValueError("gdeval (ERR@k, nDCG(dcg='exp-log2')@k) reads integer grades only")
        if data.grades.max() > 4:
            raise ValueError(
                f"gdeval (ERR@k, nDCG(dcg='exp-log2')@k) accepts grades up to 4, got {data.grades.max():g}"
            )
    numbers = list(map(int, topics))
    if len(set(numbers)) != len(ids):
        seen: dict = {}
        for t, q in zip(numbers, ids):
            if seen.setdefault(t, q) != q:
                raise ValueError(f"gdeval reads query ids {seen[t]!r} and {q!r} as one topic ({t})")


class PyNdEvalProvider(_Provider):
    """ndeval through pyndeval: the intent-aware diversity measures (docs/metrics.md 3.20) from the qrels'
    ``iteration`` field as the subtopic (qrels without it: one subtopic ``'0'``), grades >= ``rel`` relevant; equal
    scores by document id ascending; the queries of both the qrels and the run with a ranked document are scored,
    the other qrels queries get 0. nNRBP of a query without a relevant subtopic is NaN (ndeval's 0 / 0), and so
    is its mean. ir_measures 0.4.3 makes one pyndeval invocation per (``rel``, ``alpha``, ``beta``,
    ``judged_only``), all reading one iterator of the run: the invocation it happens to run first (the order of
    a Python set of the measures, which depends on the string hash seed) reads the run and the others score
    nothing (0 for every query), and ``judged_only=True`` on the first raises TypeError. Here a call of one
    invocation gives ir_measures' values (TypeError with ``judged_only=True``); a call of several computes every
    invocation as a call of its own would (``judged_only``: the run's documents the qrels judge)."""

    NAME = "pyndeval"
    TIES = "asc"
    _TAKES = ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall")
    _NAMES: ClassVar[dict] = {"ERR_IA": "err_ia", "nERR_IA": "nerr_ia", "alpha_DCG": "alpha_dcg", "alpha_nDCG": "alpha_ndcg",
              "NRBP": "nrbp", "nNRBP": "nnrbp", "AP_IA": "map_ia", "P_IA": "p_ia", "StRecall": "strec"}  # fmt: skip

    def _takes(self, m: Measure) -> bool:
        return m.NAME in self._TAKES

    @staticmethod
    def _key(m: Measure) -> tuple:
        """ir_measures' invocation key: (rel, alpha, beta, judged_only), defaults where the measure has none."""
        alpha = m["alpha"] if m.NAME in ("alpha_DCG", "alpha_nDCG", "NRBP", "nNRBP") else 0.5
        beta = m["beta"] if m.NAME in ("NRBP", "nNRBP") else 0.5
        judged = m["judged_only"] if m.NAME not in ("NRBP", "nNRBP", "StRecall") else False
        return m["rel"], alpha, beta, judged

    def prepare(self, measures: list) -> None:
        """pyndeval's checks when ir_measures makes its evaluators (at the call, before any value)."""
        for m in measures:
            if m.NAME in ("NRBP", "nNRBP", "AP_IA"):
                continue
            cut = m["cutoff"]
            if cut is NOT_PROVIDED:
                raise ValueError(f"invalid literal for int() with base 10: {cut!r}")
            assert cut > 0
            assert cut <= 20, "ndeval only supports cutoffs up to 20"

    def values(self, data: _Data, measures: list) -> dict:
        n = len(data.queries)
        groups: dict = {}
        for m in measures:
            groups.setdefault(self._key(m), []).append(m)
        if len(groups) == 1 and next(iter(groups))[3] and any(data.run.values()):
            # ir_measures reads the run's iterator as a dict (an iterator without a document yields nothing)
            raise TypeError("'generator' object is not subscriptable")
        rows = data.subtopic_rows
        qrel_qids = {r[0] for r in rows}
        judged = {(q, d) for q, _it, d, _g in rows}
        out: dict = {}
        for (rel, alpha, beta, judged_only), group in groups.items():
            run = {q: docs for q, docs in data.run.items() if q in qrel_qids}
            if judged_only:
                run = {q: {d: v for d, v in docs.items() if (q, d) in judged} for q, docs in run.items()}
            out.update(self._group(data, rows, {q: d for q, d in run.items() if d}, group, rel, alpha, beta, n))
        return out

    def _group(self, data: _Data, rows: list, run: dict, group: list, rel: Any, alpha: Any, beta: Any, n: int) -> dict:
        """The measures of one pyndeval invocation: the queries of the qrels and the run (with a ranked
        document) scored, the others left to ir_measures' default."""
        if not run:
            return {m: _Present(np.full(n, np.nan), np.zeros(n, dtype=bool)) for m in group}
        truth: dict = {}
        for q, _it, d, g in rows:
            truth.setdefault(q, {})[d] = g
        names = {}
        for m in group:
            opts = []
            if m.NAME in ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP"):
                opts.append(f"alpha={float(alpha)!r}")
            if m.NAME in ("NRBP", "nNRBP"):
                opts.append(f"beta={float(beta)!r}")
            cut = "" if m.NAME in ("NRBP", "nNRBP", "AP_IA") else f"@{m['cutoff']}"
            names[m] = self._NAMES[m.NAME] + (f"({','.join(opts)})" if opts else "") + cut
        res = _rm.evaluate(
            truth,
            run,
            list(dict.fromkeys(names.values())),
            subtopics=rows,
            ties="item",
            missing="skip_empty",
            min_relevance=rel,
        )
        pos = data.position
        at = np.fromiter((pos.get(q, -1) for q in res.users.tolist()), dtype=np.int64, count=len(res.users))
        ok = at >= 0
        present = np.zeros(n, dtype=bool)
        present[at[ok]] = True
        out = {}
        for m, name in names.items():
            v = np.full(n, np.nan)
            v[at[ok]] = np.asarray(res.per_user[name], dtype=np.float64)[ok]
            out[m] = _Present(v, present)
        return out


class _Present(np.ndarray):
    """Per-query values with the mask of the queries the provider yields a value for (a NaN value can be one)."""

    present: np.ndarray

    def __new__(cls, values: np.ndarray, present: np.ndarray) -> _Present:
        obj = np.asarray(values, dtype=np.float64).view(cls)
        obj.present = present
        return obj


def _missing_mask(v: np.ndarray) -> np.ndarray:
    return ~v.present if isinstance(v, _Present) else np.isnan(v)


# ---- ir_measures' compat and accuracy providers (docs/metrics.md 3.18.20, 3.18.21)


def _evaluate_ordered(data: _Data, names: list, ties: str, rel: float, t_order: Any = None, grades: Any = None) -> dict:
    """{rankmeter metric: per-query values (qrels order)} from one rankmeter call (``empty="zero"``), equal scores
    by document id ascending in Python's order (``ties="asc"``) or in input order (``"input"``); the truth rows
    of each query in the order ``t_order`` (a permutation that keeps the rows of each query together) and
    ``grades`` instead of the qrels' grades when given."""
    n = len(data.queries)
    if not data.r_users.size:
        return {nm: np.full(n, np.nan) for nm in names}
    users = np.arange(n, dtype=np.int64)
    if ties == "input":
        t_items, r_items, tie_rule = data.t_codes, data.r_codes, "input"
    else:
        rank = data.rank("natural")
        rank = rank.size - 1 - rank  # item_desc over the reversed ranks: ascending ids
        t_items, r_items, tie_rule = rank[data.t_codes], rank[data.r_codes], "item_desc"
    g = data.grades if grades is None else grades
    if t_order is not None:
        t_items, g = t_items[t_order], g[t_order]
    truth = _rm.Truth.from_csr(data.t_indptr, t_items, g, users=users)
    recs = _rm.Recs.from_csr(data.r_indptr, r_items, data.scores, users=data.r_users, by_score=True)
    res = _rm.evaluate(
        truth, recs, list(dict.fromkeys(names)), preset="ir_measures", ties=tie_rule, min_relevance=rel, empty="zero"
    )
    at = np.asarray(res.users, dtype=np.int64)
    out = {}
    for nm in names:
        v = np.full(n, np.nan)
        v[at] = np.asarray(res.per_user[nm], dtype=np.float64)
        out[nm] = v
    return out


class CompatProvider(_Provider):
    """Compatibility (Clarke, Vtyurina & Smucker 2021): the rank-biased overlap of the ranking (equal scores by
    document id ascending) with the ideal ranking (documents with a grade > 0 by grade, then by their run score,
    0.0 for a document the run lacks, then in qrels order) to the depth of the longer, divided by the ideal's own
    when ``normalize=True`` (rankmeter's ``compat``, docs/metrics.md 3.18.20). The queries in the qrels and the run
    are scored, the other qrels queries get 0; a query with an empty ranking and no grade > 0 raises
    ZeroDivisionError, as in ir_measures."""

    NAME = "compat"
    TIES = "asc"

    def _takes(self, m: Measure) -> bool:
        return m.NAME == "Compat"

    def check(self, data: _Data) -> None:
        positive = np.zeros(len(data.queries), dtype=bool)
        row = np.repeat(np.arange(len(data.queries)), np.diff(data.t_indptr))
        positive[row[data.grades > 0]] = True
        if np.any(data.in_run & (data.n_ret == 0) & ~positive):
            raise ZeroDivisionError("float division by zero")  # ir_measures' rbo over a depth of 0

    def _ideal_order(self, data: _Data) -> np.ndarray:
        """The truth rows of each query by the run's score of their document (0.0 if absent) descending, ties
        in qrels order: rankmeter's ideal then orders them by grade (a stable sort), as ir_measures' two sorts."""
        n_t = data.grades.size
        t_user = np.repeat(np.arange(len(data.queries), dtype=np.int64), np.diff(data.t_indptr))
        if not data.r_users.size or not n_t:
            return np.arange(n_t, dtype=np.int64)
        width = max(len(data.uniques), 1)
        r_user = np.repeat(data.r_users, np.diff(data.r_indptr))
        r_key = r_user * width + data.r_codes
        t_key = t_user * width + data.t_codes
        if not r_key.size:  # only empty rankings
            return np.arange(n_t, dtype=np.int64)
        order = np.argsort(r_key, kind="stable")
        sorted_key = r_key[order]
        at = np.minimum(np.searchsorted(sorted_key, t_key), sorted_key.size - 1)
        found = sorted_key[at] == t_key
        t_score = np.where(found, data.scores[order[at]], 0.0)
        return np.lexsort((-t_score, t_user))

    def values(self, data: _Data, measures: list) -> dict:
        tiny = float(np.nextafter(0.0, 1.0))  # relevant: grade > 0
        names = {}
        for m in measures:
            p = m["p"]
            if not 0.0 <= float(p) <= 1.0:
                raise ValueError(f"Compat p must be in [0, 1] here, got {p!r}")
            names[m] = f"compat(p={float(p)!r},normalize={'ideal' if m['normalize'] else 'none'})"
        vals = _evaluate_ordered(data, list(dict.fromkeys(names.values())), "asc", tiny, self._ideal_order(data))
        return {m: np.where(data.in_run, np.nan_to_num(vals[names[m]]), np.nan) for m in measures}


class AccuracyProvider(_Provider):
    """ir_measures' Accuracy: over the top k documents (the whole ranking without a cutoff; equal scores in input
    order), the share of (document with grade >= rel, other document) pairs that rank the first above the second
    (rankmeter's ``pairwise_accuracy@k``, docs/metrics.md 3.18.21); with ``rel <= 0`` a document without a qrels
    row counts as grade 0. Only queries with a qrels row and a document with grade >= rel in the top k are
    scored, and no default is given to the others; a scored query without another document in the top k raises
    ZeroDivisionError, as in ir_measures."""

    NAME = "accuracy"
    TIES = "input"
    FILLS = False  # ir_measures' accuracy evaluator yields no default value

    def _takes(self, m: Measure) -> bool:
        return m.NAME == "Accuracy"

    def values(self, data: _Data, measures: list) -> dict:
        has_rows = np.diff(data.t_indptr) > 0
        out: dict = {}
        for m in measures:
            cut = 0 if m["cutoff"] is NOT_PROVIDED else int(m["cutoff"])
            rel = m["rel"]
            if cut < 0:  # ir_measures reads no document
                out[m] = np.full(len(data.queries), np.nan)
                continue
            at = f"@{cut}" if cut > 0 else ""
            acc, hits = f"pairwise_accuracy{at}", f"hits{at}"
            if rel > 0:
                vals = _evaluate_ordered(data, [acc, hits, "num_ret"], "input", float(rel))
                top = vals["num_ret"] if cut == 0 else np.minimum(vals["num_ret"], cut)
                n_rel, value = vals[hits], vals[acc]
            else:
                # every document but those graded below rel is relevant: the pairs seen from the other side,
                # with grades negated so that "relevant" is grade < rel
                below = float(np.nextafter(-float(rel), np.inf))
                vals = _evaluate_ordered(data, [acc, hits, "num_ret"], "input", below, grades=-data.grades)
                top = vals["num_ret"] if cut == 0 else np.minimum(vals["num_ret"], cut)
                n_rel, value = top - vals[hits], 1.0 - vals[acc]
            scored = data.in_run & has_rows & (np.nan_to_num(n_rel) > 0)
            if np.any(scored & (top - n_rel == 0)):
                raise ZeroDivisionError("float division by zero")  # ir_measures: no other document to rank below
            out[m] = np.where(scored, value, np.nan)
        return out


pytrec_eval = PytrecEvalProvider()
cwl_eval = CwlEvalProvider()
judged = JudgedProvider()
msmarco = MsMarcoProvider()
gdeval = GdevalProvider()
pyndeval = PyNdEvalProvider()
compat = CompatProvider()
accuracy = AccuracyProvider()
# ir_measures' DefaultPipeline order (runtime and ranx take none of these measures)
_PIPELINE = (pytrec_eval, cwl_eval, compat, pyndeval, judged, msmarco, gdeval, accuracy)


class _ProvidersModule:
    """``ir_measures.providers``: the provider classes and the registry of the ones this module has."""

    PytrecEvalProvider = PytrecEvalProvider
    CwlEvalProvider = CwlEvalProvider
    JudgedProvider = JudgedProvider
    MsMarcoProvider = MsMarcoProvider
    GdevalProvider = GdevalProvider
    PyNdEvalProvider = PyNdEvalProvider
    CompatProvider = CompatProvider
    AccuracyProvider = AccuracyProvider
    Provider = _Provider
    registry: ClassVar[dict] = {p.NAME: p for p in _PIPELINE}


providers = _ProvidersModule()


def _once(qrels: Any) -> Any:
    """qrels read twice (as nested dicts and as subtopic rows): a one-shot iterable becomes a list."""
    if isinstance(qrels, (dict, str, bytes)) or hasattr(qrels, "columns") or not hasattr(qrels, "__iter__"):
        return qrels
    return list(qrels)


def _subtopic_rows(qrels: Any, used: list) -> Any:
    """(query, iteration, doc, relevance) rows of the qrels, the iteration as ir_measures gives it to pyndeval
    (qrels without an ``iteration`` field: ``'0'``); None when no pyndeval measure is asked."""
    if pyndeval not in used:
        return None
    if isinstance(qrels, dict):
        return [(q, "0", d, g) for q, docs in qrels.items() for d, g in docs.items()]
    if hasattr(qrels, "columns"):
        its = qrels["iteration"].tolist() if "iteration" in qrels.columns else ["0"] * len(qrels)
        return list(zip(qrels["query_id"].tolist(), its, qrels["doc_id"].tolist(), qrels["relevance"].tolist()))
    return [(r.query_id, getattr(r, "iteration", "0"), r.doc_id, r.relevance) for r in qrels]


def _unique(ms: list) -> list:
    return list(dict.fromkeys(ms))


class _Evaluator:
    """ir_measures' Evaluator: measures and qrels fixed, runs scored with ``iter_calc``, ``calc_aggregate``,
    ``calc``."""

    def __init__(
        self, plan: list, qrels: dict, subtopic_rows: Any = None, checked: bool = False, numbers_only: Any = None
    ):
        self.plan = plan  # [(provider, [measures])]
        self.qrels = qrels
        self.subtopic_rows = subtopic_rows  # (query, iteration, doc, relevance) rows, for pyndeval's measures
        for provider, ms in plan:
            if provider is pyndeval:
                pyndeval.prepare(ms)
        if not checked and any(p is pytrec_eval for p, _ in plan):
            _check_pytrec_qrels(qrels)  # pytrec_eval reads the qrels when its evaluator is made
        self.measures = [m for _, ms in plan for m in ms]
        # qrels grades of exact int, float and bool only (a plain dict of dicts): nothing to check when a run comes
        if numbers_only is None:
            grades = (_core.nested_types(qrels) or (None, None, None))[2]
            numbers_only = grades is not None and grades <= {int, float, bool}
        self._numbers_only = numbers_only
        # ir_measures gives defaults through its fallback evaluator (more than one provider) or the provider's own
        self.fills = len(plan) != 1 or plan[0][0].FILLS

    def _columns(self, run: Any) -> tuple[list, list]:
        data = _Data(self.qrels, _nested(run, "score", "run"), self._numbers_only)
        data.subtopic_rows = self.subtopic_rows
        cols = []
        for provider, ms in self.plan:  # in ir_measures' order: the first provider to raise raises
            provider.check(data)
            # (pyndeval's judged_only raises on any run, even without a qrels query)
            vals = provider.values(data, ms) if data.queries or provider is pyndeval else {m: np.zeros(0) for m in ms}
            cols += [(m, vals[m]) for m in ms]
        return data.queries, cols

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        queries, cols = self._columns(run)
        return _metrics(queries, cols, self.fills)

    def calc_aggregate(self, run: Any) -> dict:
        _, cols = self._columns(run)
        return {m: _aggregate(m, v, self.fills) for m, v in cols}

    def calc(self, run: Any) -> CalcResults:
        queries, cols = self._columns(run)
        aggregated = {m: _aggregate(m, v, self.fills) for m, v in cols}
        return CalcResults(aggregated, list(_metrics(queries, cols, self.fills)))


def _metrics(queries: list, cols: list, fills: bool = True) -> Iterator[Metric]:
    """Values the provider gives, then (``fills``) the defaults (0) of every (measure, qrels query) it leaves
    out (a NaN the provider gives is a value: _missing_mask)."""
    rows = [(m, v, _missing_mask(v)) for m, v in cols]
    for m, v, missing in rows:
        for q, x, miss in zip(queries, v.tolist(), missing.tolist()):
            if not miss:
                yield Metric(q, m, x)
    if not fills:
        return
    for m, _v, missing in rows:
        for q, miss in zip(queries, missing.tolist()):
            if miss:
                yield Metric(q, m, Measure.DEFAULT)


def _aggregate(m: Any, v: np.ndarray, fills: bool = True) -> Any:
    missing = _missing_mask(v)
    v = np.asarray(v)
    if not fills:  # the mean of the values given (NaN without one), as ir_measures' MeanAgg
        given = v[~missing]
        return float(np.cumsum(given)[-1] / given.size) if given.size else math.nan
    filled = np.where(missing, 0.0, v)
    if parse_measure(m).aggregator() == "sum":
        return float(filled.sum()) if filled.size else 0
    return float(np.cumsum(filled)[-1] / filled.size) if filled.size else math.nan  # summed in order, as MeanAgg


def _plan(measures: Iterable[Any]) -> list:
    """(given object, parsed measure) pairs -> [(provider, measures)] in pipeline order, as ir_measures'
    DefaultPipeline assigns them; ValueError naming the measures no provider takes."""
    given = list(measures)
    parsed = [parse_measure(m) for m in given]
    for m in parsed:
        m.validate_params()
    keyed = _unique([g if not isinstance(g, str) else p for g, p in zip(given, parsed)])
    left = list(keyed)
    plan = []
    for provider in _PIPELINE:
        mine = [k for k in left if provider._takes(parse_measure(k))]
        if mine:
            plan.append((provider, mine))
            left = [k for k in left if k not in mine]
    if left:
        raise ValueError("Unsupported measures {" + ", ".join(map(str, left)) + "}.")
    return plan


def evaluator(measures: Iterable[Any], qrels: Any) -> _Evaluator:
    """ir_measures.evaluator: fix measures and qrels, then score runs."""
    plan = _plan(measures)
    qrels = _once(qrels)
    ev = _Evaluator(
        [(p, [parse_measure(k) for k in ks]) for p, ks in plan],
        _nested(qrels, "relevance", "qrels"),
        _subtopic_rows(qrels, [p for p, _ in plan]),
    )
    keys = [k for _, ks in plan for k in ks]
    return _KeyedEvaluator(ev, keys)


class _KeyedEvaluator(_Evaluator):
    def __init__(self, inner: _Evaluator, keys: list):
        # `inner` has checked the qrels
        super().__init__(inner.plan, inner.qrels, inner.subtopic_rows, checked=True, numbers_only=inner._numbers_only)
        self.keys = keys

    def _columns(self, run: Any) -> tuple[list, list]:
        queries, cols = super()._columns(run)
        return queries, [(k, v) for k, (_, v) in zip(self.keys, cols)]


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
    """``Metric(query_id, measure, value)`` for every qrels query and measure. Bad measures and inputs raise at
    the call, before the first value, as in ir_measures."""
    return evaluator(measures, qrels).iter_calc(run)


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> dict:
    """``{measure: value}``: the mean over the qrels queries (a sum for NumRel, NumRet, NumQ)."""
    return evaluator(measures, qrels).calc_aggregate(run)


def calc(measures: Iterable[Any], qrels: Any, run: Any) -> CalcResults:
    """``CalcResults(aggregated, per_query)``."""
    return evaluator(measures, qrels).calc(run)
