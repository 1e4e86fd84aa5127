"""``ir_measures.calc_aggregate`` and ``iter_calc`` on rankmeter's fused pass.

Before::

    import ir_measures
    from ir_measures import nDCG, AP, P
    ir_measures.calc_aggregate([nDCG@10, AP, P@5], qrels, run)

After::

    from rankmeter.compat import ir_measures
    ir_measures.calc_aggregate(["nDCG@10", "AP", "P@5"], qrels, run)

Measures are ir_measures' names, as strings or as ir_measures measure objects
(their ``str()`` is parsed): ``P@k``, ``R@k``, ``AP``, ``AP@k``, ``RR``,
``RR@k``, ``nDCG``, ``nDCG@k``, ``Success@k``, ``Rprec``, ``Bpref``,
``RBP(rel=1,p=0.8)``, ``ERR@k``, ``Judged@k``, ``NumRel``, ``NumRelRet``, with
``rel=L`` where ir_measures accepts it (aliases ``MAP``, ``MRR``, ``NDCG``,
``BPref``, ``Precision``, ``Recall``, ``RPrec``). ``qrels`` is ``{query: {doc:
grade}}`` (or an iterable of objects with ``query_id``, ``doc_id``,
``relevance``), ``run`` ``{query: {doc: score}}`` (or objects with ``query_id``,
``doc_id``, ``score``). ``calc_aggregate`` returns ``{measure: mean}`` and
``iter_calc`` yields ``Metric(query_id, measure, value)`` for every qrels query
(one missing from the run scores 0), as ir_measures does. Numbers follow
``preset="ir_measures"``. ``RBP(p=…)`` without ``rel`` raises
``ValueError("Unsupported measures {RBP(p=0.5)}.")`` from both functions, as
ir_measures does (its only RBP provider, cwl_eval, requires ``rel``; the
graded form is ``rankmeter.evaluate(..., ["rbp(p=0.5,gain=linear)"])``).
"""

from __future__ import annotations

import re
from collections import namedtuple
from typing import Any, Iterable, Iterator, Optional

import numpy as np

import rankmeter as _rm

from ._nested import to_containers

__all__ = ["Measure", "Metric", "parse_measure", "calc_aggregate", "iter_calc"]

Metric = namedtuple("Metric", ["query_id", "measure", "value"])

_ALIASES = {
    "MAP": "AP",
    "MRR": "RR",
    "NDCG": "nDCG",
    "BPref": "Bpref",
    "Precision": "P",
    "Recall": "R",
    "RPrec": "Rprec",
    "NumRet": "NumRet",
}
# name -> (rankmeter metric base, cutoff: "any" | "required" | "none", params allowed)
_SPECS = {
    "P": ("precision", "any", {"rel"}),
    "R": ("recall", "any", {"rel"}),
    "AP": ("ap", "any", {"rel"}),
    "RR": ("rr", "any", {"rel"}),
    "nDCG": ("ndcg", "any", set()),
    "Success": ("hit_rate", "any", {"rel"}),
    "Rprec": ("r_precision", "none", {"rel"}),
    "Bpref": ("bpref", "none", {"rel"}),
    "RBP": ("rbp", "none", {"rel", "p"}),
    "ERR": ("err", "required", set()),
    "Judged": ("judged", "any", set()),
    "NumRel": ("num_rel", "none", {"rel"}),
    "NumRelRet": ("hits", "none", {"rel"}),
}
_SUMMED = ("NumRel", "NumRelRet")
_TEXT = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\(([^)]*)\))?\s*(?:@\s*(\d+))?\s*$")


class Measure:
    """A parsed ir_measures measure; ``str()`` prints it as ir_measures does (``nDCG@10``, ``P(rel=2)@5``)."""

    __slots__ = ("name", "params", "cutoff")

    def __init__(self, name: str, params: dict, cutoff: Optional[int]):
        self.name, self.params, self.cutoff = name, params, cutoff

    def __str__(self) -> str:
        shown = {
            k: v
            for k, v in self.params.items()
            if not (k == "p" and v == 0.8) and not (k == "rel" and v == 1 and self.name != "RBP")
        }
        text = self.name
        if shown:
            text += "(" + ",".join(f"{k}={v}" for k, v in sorted(shown.items())) + ")"
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def _rankmeter(self) -> tuple[str, int]:
        base, _, _ = _SPECS[self.name]
        rel = int(self.params.get("rel", 1))
        if self.name == "RBP":  # cwl_eval's binary RBP (rel= is required: see _evaluate)
            return f"rbp(p={float(self.params.get('p', 0.8))!r})", rel
        return base + (f"@{self.cutoff}" if self.cutoff is not None else ""), rel


def parse_measure(measure: Any) -> Measure:
    """'nDCG@10', 'P(rel=2)@5', 'RBP(rel=1,p=0.9)' or an ir_measures measure object -> Measure."""
    if isinstance(measure, Measure):
        return measure
    text = measure if isinstance(measure, str) else str(measure)
    m = _TEXT.match(text)
    if not m:
        raise ValueError(f"cannot parse measure {text!r}")
    name = _ALIASES.get(m.group(1), m.group(1))
    if name == "NumRet" and m.group(2) and m.group(2).replace(" ", "").startswith("rel="):
        name = "NumRelRet"  # ir_measures spells NumRelRet as NumRet(rel=1)
    if name not in _SPECS:
        raise NameError(f"measure not found: {m.group(1)}")
    _, cut_rule, allowed = _SPECS[name]
    params: dict = {}
    for part in (m.group(2) or "").split(","):
        if not part.strip():
            continue
        key, _, val = part.partition("=")
        key, val = key.strip(), val.strip()
        if key not in allowed:
            raise ValueError(f"unsupported parameter {key!r} for measure {name}")
        params[key] = float(val) if key == "p" else int(val)
    if name == "RBP" and "p" in params and not 0 < params["p"] < 1:
        raise ValueError(f"RBP p must be in (0, 1), got {params['p']}")
    cutoff = int(m.group(3)) if m.group(3) else None
    if cutoff is not None and cut_rule == "none":
        raise ValueError(f"measure {name} takes no cutoff")
    if cutoff is None and cut_rule == "required":
        raise ValueError(f"measure {name} requires a cutoff (e.g. {name}@10)")
    return Measure(name, params, cutoff)


def _as_nested(data: Any, value_field: str, what: str) -> dict:
    if isinstance(data, dict):
        return data
    out: dict = {}
    try:
        for row in data:
            out.setdefault(row.query_id, {})[row.doc_id] = getattr(row, value_field)
    except (TypeError, AttributeError):
        raise TypeError(
            f"`{what}` must be a dict {{query: {{doc: value}}}} or an iterable of namedtuples with query_id, doc_id "
            f"and {value_field}"
        ) from None
    return out


def _evaluate(measures: Iterable[Any], qrels: Any, run: Any):
    given = list(measures)
    parsed = [parse_measure(m) for m in given]
    # ir_measures' default providers: RBP comes from cwl_eval only, whose RBP requires rel=; ir_measures
    # raises ValueError("Unsupported measures {...}.") naming the set of measures no provider takes.
    unsupported = [p for p in parsed if p.name == "RBP" and "rel" not in p.params]
    if unsupported:
        raise ValueError("Unsupported measures {" + ", ".join(dict.fromkeys(map(str, unsupported))) + "}.")
    keys = [m if not isinstance(m, str) else p for m, p in zip(given, parsed)]
    q = _as_nested(qrels, "relevance", "qrels")
    r = _as_nested(run, "score", "run")
    for p in parsed:
        if p.name == "ERR":
            top = max((g for d in q.values() for g in d.values()), default=0)
            if top > 4:
                raise ValueError(f"ERR (gdeval) accepts grades up to 4; the qrels hold {top}")
    wanted = {p: p._rankmeter() for p in parsed}
    by_rel: dict[int, list[str]] = {}
    for name, rel in wanted.values():
        by_rel.setdefault(rel, []).append(name)
    truth, recs = to_containers(q, r)  # document codes in docno order: item_desc = trec_eval's ties
    values: dict[tuple[str, int], np.ndarray] = {}
    users: list = []
    for rel, names in by_rel.items():
        res = _rm.evaluate(
            truth, recs, list(dict.fromkeys(names)), preset="ir_measures", ties="item_desc", min_relevance=rel
        )
        users = res.users.tolist()
        for n in names:
            values[(n, rel)] = np.asarray(res.per_user[n], dtype=np.float64)
    # ir_measures fills every measure of a qrels query missing from the run with 0 (NumRel too)
    no_run = ~np.fromiter(map(r.__contains__, users), dtype=bool, count=len(users))
    cols = [np.where(no_run, 0.0, values[wanted[p]]) for p in parsed]
    return keys, cols, users


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> dict:
    """``{measure: mean over the qrels queries}``."""
    keys, cols, _ = _evaluate(measures, qrels, run)
    out = {}
    for k, c in zip(keys, cols):
        if parse_measure(k).name in _SUMMED:
            out[k] = float(np.sum(c))  # ir_measures aggregates the counts by a sum
        else:
            out[k] = float(np.mean(c)) if c.size else float("nan")
    return out


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
    """``Metric(query_id, measure, value)`` for every qrels query and measure. Bad measures raise at the call,
    before the first value, as in ir_measures."""
    keys, cols, users = _evaluate(measures, qrels, run)
    return _rows(keys, cols, users)


def _rows(keys: list, cols: list, users: list) -> Iterator[Metric]:
    rows = [c.tolist() for c in cols]
    for k, vals in zip(keys, rows):
        for u, v in zip(users, vals):
            yield Metric(u, k, v)
