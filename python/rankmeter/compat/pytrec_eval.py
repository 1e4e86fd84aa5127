"""``pytrec_eval`` on rankmeter's fused pass.

Before::

    import pytrec_eval
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "bpref"})
    per_query = ev.evaluate(run)

After::

    from rankmeter.compat import pytrec_eval
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "bpref"})
    per_query = ev.evaluate(run)

``qrels`` is ``{query: {doc: int grade}}``, ``run`` is ``{query: {doc: float score}}``.
The result is pytrec_eval's nested dict ``{query: {measure: value}}`` with
trec_eval's measure names (``P_5``, ``ndcg_cut_10``, ``map``, ``bpref``, ...),
for the run's queries that have qrels, in the run's order. The numbers are
pytrec_eval-terrier 0.5's (trec_eval 9.0.8 inside: ``preset="trec_eval_9"``):
scores are rounded to float32 as trec_eval 9 stores them, documents ranked by
score, equal scores by document id descending (strings); relevant means grade >=
``relevance_level``; a negative grade is "in the pool but unjudged" (bpref
ignores it); queries without a relevant document score 0.

Every measure of pytrec_eval's ``supported_measures`` is computed (this module's
``supported_measures`` is the same set): the fused pass gives most, and ``gm_map``,
``gm_bpref`` (per query the log pytrec_eval returns), ``utility``, ``set_map``,
``11pt_avg``, ``runid`` and ``relstring`` (texts in trec_eval: 0.0 here) come from
its per-query values. Measure requests follow pytrec_eval: a name (``"P"``:
trec_eval's default cutoffs), ``"P.5,10"`` or ``"P_5,10"`` (cutoffs, merged over
every request of the measure, so ``{"P", "P.3"}`` gives ``P_3`` only), levels
(``"iprec_at_recall.0.25,0.5"``), the nicknames ``"official"``, ``"set"`` and
``"all_trec"``. ``supported_nicknames`` gives what each nickname holds. Also:
``compute_aggregated_measure``, ``parse_qrel``, ``parse_run`` (docs/metrics.md 8.5).
"""

from __future__ import annotations

import collections
import itertools
import math
import numbers
import re
from typing import Any, Iterable, Mapping

import numpy as np

import rankmeter as _rm

from .. import _core
from .._options import resolve_threads
from ._nested import _row_of, to_containers, trec_columns

__all__ = [
    "RelevanceEvaluator",
    "supported_measures",
    "supported_nicknames",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
]

# trec_eval's measures, in the order it computes (and pytrec_eval returns) them.
_TREC_ORDER = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
]
_ORDER = {name: i for i, name in enumerate(_TREC_ORDER)}
# trec_eval's nicknames (measures.c), as pytrec_eval expands them
_NICKNAMES = {
    "official": "P Rprec bpref gm_map iprec_at_recall map num_q num_rel num_rel_ret num_ret recip_rank runid",
    "set": "num_q num_rel num_rel_ret num_ret runid set_F set_P set_map set_recall set_relative_P utility",
    "all_trec": " ".join(_TREC_ORDER),
}
_PREF_NICKNAMES = ("all_prefs", "prefs", "qrels_jg")  # preference and judgment-group qrels: another input format

# trec_eval's default cutoffs of the measures computed at cutoffs
_TREC_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_DEFAULT_CUTOFFS = {
    "P": _TREC_CUTS,
    "recall": _TREC_CUTS,
    "map_cut": _TREC_CUTS,
    "ndcg_cut": _TREC_CUTS,
    "relative_P": _TREC_CUTS,
    "success": (1, 5, 10),
}
# measure -> rankmeter metric (with "{k}" for the cutoff); the metrics run under preset="trec_eval_9"
_CUT = {
    "P": "precision@{k}",
    "recall": "recall@{k}",
    "map_cut": "ap@{k}",
    "ndcg_cut": "ndcg@{k}",
    "success": "hit_rate@{k}",
    "relative_P": "recall(denominator=min_relevant_k)@{k}",
}
# measures at levels (floats), printed with 2 decimals: the metric at level {x}
_LEVELS = {
    "iprec_at_recall": ("iprec(at={x})", tuple(i / 10 for i in range(11))),
    "Rprec_mult": ("rprec_mult(mult={x})", tuple(i / 5 for i in range(1, 11))),
}
_PLAIN = {
    "num_q": "num_q",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "hits",
    "map": "ap",
    "Rprec": "r_precision",
    "bpref": "bpref",  # the trec_eval presets give negative="unjudged"
    "recip_rank": "rr",
    "infAP": "infap",
    "binG": "bin_g",
    "G": "trec_g",
    "ndcg": "ndcg",  # the trec_eval presets give ideal="all"
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "rndcg",
    "set_P": "precision",
    "set_relative_P": "recall(denominator=min_relevant_k)",
    "set_recall": "recall",
    "num_nonrel_judged_ret": "num_nonrel_judged",
}
# measures computed here from per-query values of other metrics (docs/metrics.md 8.2): name -> the metrics read
_DERIVED = {
    "gm_map": ("ap",),  # per query: log(max(map, 0.00001)), as pytrec_eval returns it (its aggregate: exp(mean))
    "gm_bpref": ("bpref",),
    "utility": ("hits", "num_ret", "num_rel"),
    "set_map": ("hits", "num_ret", "num_rel"),
    "11pt_avg": (),  # the iprec metrics of its levels
    "set_F": (),  # fbeta(beta=sqrt(x))
    "runid": (),  # a text, not a number: pytrec_eval returns an unset double (0.0 here)
    "relstring": (),  # a text: pytrec_eval returns 0.0
}
_GM_FLOOR = 0.00001  # trec_eval's MIN_GEO_MEAN

supported_measures = frozenset(_CUT) | frozenset(_LEVELS) | frozenset(_PLAIN) | frozenset(_DERIVED)
supported_nicknames = {nick: frozenset(names.split()) & supported_measures for nick, names in _NICKNAMES.items()}
# a request "meas.p1,p2" or "meas_p1,p2": pytrec_eval's pattern, matched at the start of the request
_PARAMS = r"[._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"
_GAINS = ("ndcg", "G", "binG", "ndcg_rel", "Rndcg")  # trec_eval reads parameters of these as gains per grade


class _Output:
    """One output value: a metric's per-query value (``metric``), or one computed from metrics (``kind``)."""

    __slots__ = ("metric", "kind", "deps", "params")

    def __init__(self, metric: Any = None, kind: Any = None, deps: tuple = (), params: tuple = ()):
        self.metric, self.kind, self.deps, self.params = metric, kind, deps, params


def _numbers(base: str, given: set) -> list[float]:
    return sorted(float(p) for p in given)


def _level(x: float) -> str:
    return repr(float(x))


def _expand(measures: Iterable[str]) -> dict[str, _Output]:
    """pytrec_eval measure requests -> {output name: what gives it}, in trec_eval's order."""
    if isinstance(measures, (str, bytes)) or not isinstance(measures, Iterable):
        raise TypeError(
            "`measures` must be a set of measure names such as {'map', 'P.10'}, got " + type(measures).__name__
        )
    requests: list[str] = []
    for req in measures:
        if not isinstance(req, str):
            raise TypeError(f"measure names must be strings, got {req!r}")
        if req in _NICKNAMES:
            requests += _NICKNAMES[req].split()
        elif req in _PREF_NICKNAMES:
            raise ValueError(
                f"nickname {req!r} (measures of preference or judgment-group qrels) is not computed by "
                "rankmeter.compat.pytrec_eval"
            )
        else:
            requests.append(req)
    params: dict[str, set[str]] = {}
    order: dict[str, list[str]] = {}  # parameters in the order given (utility's coefficients)
    for req in requests:
        if req in _ORDER:
            params.setdefault(req, set())
            continue
        base = next((m for m in _TREC_ORDER if re.match(re.escape(m) + _PARAMS, req)), None)
        if base is None:
            raise ValueError(f"unsupported measure {req}")
        got = re.match(re.escape(base) + _PARAMS, req).group(1).split(",")  # type: ignore[union-attr]
        params.setdefault(base, set()).update(got)
        order[base] = got
    out: dict[str, _Output] = {}
    for base in sorted(params, key=_ORDER.__getitem__):
        given = params[base]
        if base in _GAINS and given:
            raise ValueError(
                f"{base} with parameters ({','.join(sorted(given))}): trec_eval reads them as pairs grade=gain, "
                "which pytrec_eval's measure parser cannot pass (pytrec_eval aborts the process)"
            )
        if base in _PLAIN:
            out[base] = _Output(_PLAIN[base])  # trec_eval ignores the parameters of the other single-value measures
        elif base in _CUT:
            # trec_eval reads each cutoff with atol (its integer part), sorts them and rejects 0 and repeats
            ks = sorted(int(p.split(".")[0]) for p in given) if given else list(_DEFAULT_CUTOFFS[base])
            if ks[0] < 1:
                raise ValueError(f"cutoffs of {base} must be positive, got {','.join(sorted(given))}")
            if len(set(ks)) != len(ks):
                raise ValueError(f"cutoffs of {base} repeat a value: {','.join(sorted(given))}")
            for k in ks:
                out[f"{base}_{k}"] = _Output(_CUT[base].format(k=k))
        elif base in _LEVELS:
            form, default = _LEVELS[base]
            levels = _numbers(base, given) if given else list(default)
            if base == "iprec_at_recall" and levels[-1] > 1:
                raise ValueError(f"recall levels of iprec_at_recall must be in [0, 1], got {','.join(sorted(given))}")
            if base == "Rprec_mult" and levels[0] <= 0:
                raise ValueError(f"multiples of Rprec_mult must be > 0, got {','.join(sorted(given))}")
            for x in levels:
                metric = form.format(x=_level(x))
                if base == "iprec_at_recall":  # NaN on an empty ranking at a level of 0 documents (see _derive)
                    out[f"{base}_{x:.2f}"] = _Output(kind="iprec", deps=(metric, "num_ret", "num_rel"), params=(x,))
                else:
                    out[f"{base}_{x:.2f}"] = _Output(metric)
        elif base == "11pt_avg":
            levels = _numbers(base, given) if given else list(_LEVELS["iprec_at_recall"][1])
            if levels[-1] > 1:
                raise ValueError(f"recall levels of 11pt_avg must be in [0, 1], got {','.join(sorted(given))}")
            deps = (*(f"iprec(at={_level(x)})" for x in levels), "num_ret", "num_rel")
            out[base] = _Output(kind="mean_of", deps=deps, params=tuple(levels))
        elif base == "set_F":
            x = float(order[base][0]) if given else 1.0
            if not x > 0:
                raise ValueError(f"the parameter of set_F (the weight of recall, beta^2) must be > 0, got {x}")
            out[base] = _Output(f"fbeta(beta={math.sqrt(x)!r})")
        elif base == "utility":
            if given:
                raise ValueError(
                    f"utility with coefficients ({','.join(order[base])}): pytrec_eval does not pass them to "
                    "trec_eval (it prints 'improper number of coefficients' and returns 0 for every query); ask for "
                    "'utility' (coefficients 1,-1,0,0) or use `rankmeter eval -m utility.a,b,c,d`"
                )
            out[base] = _Output(kind="utility", deps=_DERIVED[base], params=(1.0, -1.0, 0.0, 0.0))
        elif base in ("runid", "relstring"):
            out[base] = _Output(kind="zero")
        else:  # gm_map, gm_bpref, set_map
            out[base] = _Output(kind=base, deps=_DERIVED[base])
    return out


def _derive(out: _Output, col: Mapping[str, np.ndarray], n: int) -> np.ndarray:
    """The per-query values of a computed measure from the metrics' values ``col`` (docs/metrics.md 8.2)."""
    if out.kind == "zero":
        return np.zeros(n)
    if out.kind in ("iprec", "mean_of"):
        # trec_eval 9.0.x starts its interpolated precision at num_rel_ret / num_ret, which is NaN (0/0) on an
        # empty ranking (an empty dict, or nothing judged left with judged_docs_only_flag); a level of 0 documents
        # (int(x |R| + 0.9) = 0) takes that value (m_iprec_at_recall.c, m_11pt_avg.c; 10.0 does the same)
        *its, n_ret, n_rel = (col[d] for d in out.deps)
        value = its[0] if out.kind == "iprec" else np.mean(np.stack(its), axis=0)
        zero_level = np.zeros(n, dtype=bool)
        for x in out.params:
            zero_level |= (x * n_rel + 0.9).astype(np.int64) == 0
        return np.where((n_ret == 0) & zero_level, np.nan, value)
    if out.kind in ("gm_map", "gm_bpref"):
        return np.log(np.maximum(col[out.deps[0]], _GM_FLOOR))
    hits, n_ret, n_rel = (col[d] for d in out.deps)
    if out.kind == "set_map":
        den = n_ret * n_rel
        return np.divide(hits * hits, den, out=np.zeros(n), where=den > 0)
    a, b, c, d = out.params  # utility; the collection size (trec_eval -N) is 0 in pytrec_eval
    return a * hits + b * (n_ret - hits) + c * (n_rel - hits) + d * (hits - n_ret - n_rel)


def _check_qrels(query_relevance: Any) -> None:
    if not isinstance(query_relevance, Mapping):
        raise TypeError(
            f"`query_relevance` must be a dict {{query: {{doc: int grade}}}}, got {type(query_relevance).__name__}"
        )
    got = _core.nested_types(query_relevance)  # one C loop over a plain dict of plain dicts, else None
    if got is None:
        kinds = set(map(type, query_relevance.values()))  # one C-level pass; the ABC check per distinct type only
        for kind in kinds:
            if not issubclass(kind, Mapping):
                raise TypeError(f"`query_relevance` values must be dicts {{doc: int grade}}, got {kind.__name__}")
        chain = itertools.chain.from_iterable
        got = (
            set(map(type, query_relevance)),
            set(map(type, chain(query_relevance.values()))),
            set(map(type, chain(docs.values() for docs in query_relevance.values()))),
        )
    query_types, doc_types, grade_types = got
    if not all(issubclass(t, (numbers.Integral, np.integer)) for t in grade_types):
        raise TypeError("Expected relevance to be integer.")
    # ids: str as pytrec_eval takes them, or ints (read as their decimal strings); anything else is pytrec_eval's
    # "Expected string as key." here too, whichever queries a run asks for later
    for what, kinds in (("query", query_types), ("document", doc_types)):
        for kind in kinds:
            if not issubclass(kind, (str, numbers.Integral, np.integer)) or issubclass(kind, (bool, np.bool_)):
                raise TypeError(
                    f"Expected string as key: `query_relevance` has a {what} id of type {kind.__name__} (str ids, "
                    "or ints)"
                )


class RelevanceEvaluator:
    """pytrec_eval's evaluator: the qrels and measures once, then ``evaluate(run)`` per run.

    ``relevance_level``: a document is relevant when its grade is >= it (an int >= 1, as in
    pytrec_eval). ``judged_docs_only_flag``: the run keeps only the documents with a qrels row of
    grade >= 0 (trec_eval -J), in their order.
    """

    def __init__(
        self,
        query_relevance: Mapping[Any, Mapping[Any, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ):
        if not isinstance(relevance_level, (numbers.Integral, np.integer)):
            raise TypeError(f"`relevance_level` must be an int >= 1, got {relevance_level!r}")
        if relevance_level < 1:
            raise TypeError("Argument relevance_level should be positive.")
        if not isinstance(judged_docs_only_flag, (numbers.Integral, np.integer)):
            raise TypeError(f"`judged_docs_only_flag` must be a bool, got {judged_docs_only_flag!r}")
        self._measures: dict[str, _Output] = _expand(measures)
        _check_qrels(query_relevance)
        self._qrels: Mapping[Any, Mapping[Any, int]] = query_relevance
        # the metrics the outputs read, once each (num_q alone when only runid/relstring are asked: it gives the
        # evaluated queries)
        needed = [x for o in self._measures.values() for x in ((o.metric,) if o.metric else o.deps)]
        if self._measures and not needed:
            needed = ["num_q"]
        self._metrics: list[str] = list(dict.fromkeys(needed))
        self._derived: bool = any(o.kind is not None for o in self._measures.values())
        self._relevance_level: int = int(relevance_level)
        self._judged_only: bool = bool(judged_docs_only_flag)
        self._fast: Any = None  # (pass columns, column of each output name, names), made on the first small call

    def _fast_columns(self) -> tuple:
        """The fused pass's columns of the metrics under trec_eval 9.0.x's conventions (what ``rm.evaluate(...,
        preset="trec_eval_9")`` runs), made once per evaluator."""
        if self._fast is None:
            names = list(self._measures)
            col_of = {m: j for j, m in enumerate(self._metrics)}  # one column per distinct metric
            direct = [col_of[self._measures[n].metric] for n in names] if not self._derived else []
            self._fast = (trec_columns(self._metrics), direct, names)
        return self._fast

    def _outputs(self, users: np.ndarray, col: Mapping[str, np.ndarray]) -> dict:
        """The nested dict ``{query: {measure: value}}`` from each metric's values over ``users`` (made in C++)."""
        names = list(self._measures)
        n = users.size
        values = np.empty((n, len(names)), dtype=np.float64)
        for j, name in enumerate(names):
            o = self._measures[name]
            values[:, j] = col[o.metric] if o.metric else _derive(o, col, n)
        return _core.nested_dict(np.ascontiguousarray(users, dtype=object), names, values)

    def evaluate(self, scores: Mapping[Any, Mapping[Any, float]]) -> dict:
        """``{query: {measure: value}}`` for the run's queries that have qrels, in the run's order."""
        if type(scores) is not dict and not isinstance(scores, Mapping):
            raise TypeError(f"`scores` must be a dict {{query: {{doc: score}}}}, got {type(scores).__name__}")
        if not scores or not self._qrels:
            return {}
        if _ONE_CALL and self._metrics and not self._judged_only:
            # a call on a few queries runs on one thread whatever the setting (the same numbers; reading the
            # setting costs more than the pass there)
            threads = resolve_threads(None) if len(scores) > _FEW_QUERIES else 1
            # dicts of str documents: one C++ call reads the dicts, ranks, runs the pass and builds the output
            # (an evaluator called query by query costs about what pytrec_eval's call does); None sends anything
            # it does not take (int documents, -J, a NaN score, ...) to the general path below
            cols, col_of, names = self._fast_columns()
            if not self._derived:
                out = _core.trec_nested(
                    self._qrels,
                    scores,
                    cols,
                    col_of,
                    names,
                    float(self._relevance_level),
                    _EMPTY_ZERO,
                    _DUP_ERROR,
                    threads,
                )
                if out is not None:
                    return out
            else:  # measures computed from metrics: the metrics' values, then the outputs
                got = _core.trec_nested(
                    self._qrels,
                    scores,
                    cols,
                    list(range(len(cols))),
                    list(self._metrics),
                    float(self._relevance_level),
                    _EMPTY_ZERO,
                    _DUP_ERROR,
                    threads,
                    nested=False,
                )
                if got is not None:
                    vals, rows = got
                    if not len(rows):
                        return {}
                    keys = np.empty(len(scores), dtype=object)
                    keys[:] = list(scores.keys())
                    col = {m: np.asarray(vals[j], dtype=np.float64) for j, m in enumerate(self._metrics)}
                    return self._outputs(keys[np.asarray(rows, dtype=np.int64)], col)
        # only the run's queries are evaluated: the qrels of the others are not read (an evaluator made once and
        # called query by query reads one query's qrels per call, as pytrec_eval does; the one-call path above
        # reads the same ones, so both answer alike whatever ids the other queries have)
        qrels = {q: self._qrels[q] for q in scores if q in self._qrels}
        try:
            truth, recs = to_containers(
                qrels, scores, float32=True, judged_only=self._judged_only, drop_empty_qrels=True
            )
        except TypeError:
            raise TypeError("Unable to extract query/object scores.") from None
        assert truth.users is not None and recs.users is not None
        judged = _row_of(truth.users, recs.users) >= 0  # the run's queries that have qrels
        if not self._metrics:  # no measure: an empty dict per evaluated query (pytrec_eval's answer)
            return {q: {} for q in recs.users[judged].tolist()}
        if not judged.any():
            return {}  # no run query has qrels: nothing is evaluated (rm.evaluate would say so with an error)
        # preset="trec_eval_9": the queries in both the run and the qrels (missing="skip"); the lists come
        # ranked (pytrec_eval's order, float32 scores), so no tie rule applies here.
        res = _rm.evaluate(
            truth, recs, self._metrics, preset="trec_eval_9", min_relevance=self._relevance_level, ties="input"
        )
        if not res.users.size:
            return {}
        # in the run's order, the evaluated queries only
        rows = _row_of(np.asarray(res.users, dtype=object), recs.users)
        keep = rows >= 0
        col = {m: np.asarray(res.per_user[m], dtype=np.float64)[rows[keep]] for m in self._metrics}
        return self._outputs(recs.users[keep], col)


_FEW_QUERIES = 64  # up to this many queries, evaluate() runs on one thread (the pass's block of users)
_ONE_CALL = True  # the one-call path of evaluate() (False: the general path only; the tests compare the two)
_EMPTY_ZERO = _core.EmptyPolicy.zero  # trec_eval's conventions: a query without relevant documents scores 0
_DUP_ERROR = _core.DupPolicy.error  # (a dict holds no repeated document)


def compute_aggregated_measure(measure: str, values: Iterable[float]) -> float:
    """pytrec_eval's aggregate of per-query values: a sum for ``num_*``, ``exp(mean)`` for ``gm_*``
    (whose per-query values are logs), else the mean."""
    arr = np.asarray(list(values), dtype=np.float64)
    if measure.startswith("num_"):
        return float(np.sum(arr))
    with np.errstate(invalid="ignore", divide="ignore"):
        if measure.startswith("gm_"):
            return float(np.exp(np.sum(arr) / arr.size)) if arr.size else math.nan
        return float(np.mean(arr)) if arr.size else math.nan


def parse_qrel(f_qrel: Iterable[str]) -> dict:
    """``{query: {doc: int grade}}`` from qrels lines ``query 0 doc grade`` (a file object or a list of lines);
    a defaultdict, as pytrec_eval returns. Blank lines are skipped; a document twice for a query is an error."""
    qrel: dict = collections.defaultdict(dict)
    for n, line in enumerate(f_qrel, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise ValueError(f"qrels line {n}: expected 4 fields `query 0 doc grade`, got {line.strip()!r}")
        query, _, doc, grade = fields
        if doc in qrel[query]:
            raise ValueError(f"qrels line {n}: document {doc!r} is judged twice for query {query!r}")
        qrel[query][doc] = int(grade)
    return qrel


def parse_run(f_run: Iterable[str]) -> dict:
    """``{query: {doc: float score}}`` from run lines ``query Q0 doc rank score run_id`` (columns after the
    run id are ignored, as trec_eval does); a defaultdict, as pytrec_eval returns. The rank column is not read.
    Blank lines are skipped; a document twice for a query is an error."""
    run: dict = collections.defaultdict(dict)
    for n, line in enumerate(f_run, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < 6:
            raise ValueError(f"run line {n}: expected 6 fields `query Q0 doc rank score run_id`, got {line.strip()!r}")
        query, doc, score = fields[0], fields[2], fields[4]
        if doc in run[query]:
            raise ValueError(f"run line {n}: document {doc!r} appears twice for query {query!r}")
        run[query][doc] = float(score)
    return run
