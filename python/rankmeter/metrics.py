"""Metric objects and the metric-name grammar.

A metric is written ``name``, ``name@k`` or ``name(option=value, ...)@k``, e.g.
``"ndcg(gain=exponential)@10"`` or ``"ap(denominator=hits)@20"``. Without
``@k`` the whole list counts (k = the list's length). The same metrics exist
as objects, whose ``str()`` is the canonical name::

    >>> from rankmeter import metrics
    >>> str(metrics.NDCG(k=10, gain="exponential"))
    'ndcg(gain=exponential)@10'
    >>> str(metrics.parse("map@5"))
    'ap@5'

Formulas, defaults and the library each default agrees with are in
``docs/metrics.md``.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Optional, Union

from . import _core
from ._options import MAX_K as _MAX_K
from ._options import check_k as _check_k

__all__ = [
    "Metric",
    "Hits",
    "Precision",
    "Recall",
    "FBeta",
    "F1",
    "AP",
    "MAP",
    "AR",
    "MAR",
    "CG",
    "DCG",
    "NDCG",
    "HitRate",
    "RR",
    "MRR",
    "ARHR",
    "NCRR",
    "RPrecision",
    "NumRel",
    "NumRet",
    "NumQ",
    "Bpref",
    "RBP",
    "ERR",
    "Judged",
    "FCP",
    "Diversity",
    "Novelty",
    "Serendipity",
    "Personalization",
    "Coverage",
    "ARP",
    "Gini",
    "ScoreEntropy",
    "parse",
    "list",
]

_list = list  # `list` is also the name of a public function of this module


def _choice(*values: str) -> Callable[[Any, str], str]:
    def check(v: Any, where: str) -> str:
        s = str(v).strip()
        if s not in values:
            raise ValueError(f"{where} must be one of {', '.join(values)}; got {v!r}")
        return s

    return check


def _positive_float(v: Any, where: str) -> float:
    if isinstance(v, str):
        s = v.strip()
        try:
            f = math.e if s == "e" else float(s)
        except ValueError:
            raise ValueError(f"{where} must be a positive number, got {v!r}") from None
    elif isinstance(v, numbers.Real) and not isinstance(v, bool):
        f = float(v)
    else:
        raise TypeError(f"{where} must be a positive number, got {v!r}")
    if not (math.isfinite(f) and f > 0):
        raise ValueError(f"{where} must be a positive finite number, got {v!r}")
    return f


def _persistence(v: Any, where: str) -> float:
    f = _positive_float(v, where)
    if not f < 1.0:
        raise ValueError(f"{where} must be in (0, 1), got {v!r}")
    return f


def _unit(v: Any, where: str) -> float:
    """A number in [0, 1] (a recall level)."""
    if isinstance(v, str):
        try:
            f = float(v.strip())
        except ValueError:
            raise ValueError(f"{where} must be a number in [0, 1], got {v!r}") from None
    elif isinstance(v, numbers.Real) and not isinstance(v, bool):
        f = float(v)
    else:
        raise TypeError(f"{where} must be a number in [0, 1], got {v!r}")
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"{where} must be in [0, 1], got {v!r}")
    return f


def _fpr(v: Any, where: str) -> float:
    """A false-positive rate bounding a partial AUC: a number in (0, 1]."""
    f = _unit(v, where)
    if f == 0.0:
        raise ValueError(f"{where} must be in (0, 1] (a partial AUC up to that false-positive rate), got {v!r}")
    return f


def _share(v: Any, where: str) -> float:
    """A mixing weight: a number in (0, 1] (miscalibration's alpha)."""
    f = _unit(v, where)
    if f == 0.0:
        raise ValueError(f"{where} must be in (0, 1], got {v!r}")
    return f


def _real(v: Any, where: str) -> float:
    """Any finite number (a rate that may be negative or zero)."""
    if isinstance(v, str):
        try:
            f = float(v.strip())
        except ValueError:
            raise ValueError(f"{where} must be a finite number, got {v!r}") from None
    elif isinstance(v, numbers.Real) and not isinstance(v, bool):
        f = float(v)
    else:
        raise TypeError(f"{where} must be a finite number, got {v!r}")
    if not math.isfinite(f):
        raise ValueError(f"{where} must be a finite number, got {v!r}")
    return f


def _log_base(v: Any, where: str) -> float:
    f = _positive_float(v, where)
    if f == 1.0:
        raise ValueError(f"{where} must not be 1 (log base 1 is undefined)")
    return f


# The checker of each numeric option type of the registry (metrics.def)
_NUMERIC: dict[str, Callable[[Any, str], float]] = {
    "positive": _positive_float,
    "persistence": _persistence,
    "log_base": _log_base,
    "unit": _unit,
    "fpr": _fpr,
    "share": _share,
    "real": _real,
}


def _option(text: str, where: str) -> tuple[str, tuple[Any, Callable[[Any, str], Any]]]:
    """One option of a registry row, ``name:type=default``: (name, (default, checker))."""
    m = re.fullmatch(r"\s*([a-z_][a-z_0-9]*)\s*:\s*([^=]+?)\s*=\s*(.+?)\s*", text)
    if not m:  # pragma: no cover - a malformed registry row fails at import, in every test
        raise RuntimeError(f"metric registry: cannot read option {text!r} of {where}")
    name, kind, default = m.groups()
    check = _NUMERIC.get(kind) or _choice(*kind.split("|"))
    return name, (check(default, f"default of option {name!r} of {where}"), check)


@dataclass(frozen=True)
class _Spec:
    """One row of the metric registry (metrics.def), as Python reads it."""

    kind: Any  # rankmeter._core.Kind of an accuracy metric (the fused pass), None for the others
    options: dict  # option name -> (default, checker)
    cutoff: bool = True
    doc: str = ""
    family: str = "accuracy"  # "accuracy" (the fused pass), "user" (per-user beyond kernels), "catalog" (one value)
    needs: tuple = ()  # context arguments the metric needs: (name, condition) pairs, condition None or (option, value)
    stage: str = "snapshot"  # where an accuracy value comes from: snapshot, ideal, walk, user; "kernel" otherwise
    count_like: bool = False  # keeps its computed value for users without a relevant item under empty="one"
    reads: tuple = ()  # what it reads besides the lists ("grades", "scores", "catalog"): (name, condition) pairs
    section: str = ""  # its section of docs/metrics.md
    better: tuple = (("higher", None),)  # which way it is better: ("higher" | "lower" | "none", condition) pairs


def _words(text: str, where: str) -> tuple:
    """The words of a registry field, ``train item_features[similarity=features]``: (word, condition) pairs,
    the condition None (always) or (option, value) (only under that option value)."""
    out = []
    for word in text.split():
        m = re.fullmatch(r"([a-z_]+)(?:\[([a-z_]+)=([a-z_0-9]+)\])?", word)
        if not m:  # pragma: no cover - a malformed registry row fails at import, in every test
            raise RuntimeError(f"metric registry: cannot read {word!r} of {where}")
        out.append((m.group(1), (m.group(2), m.group(3)) if m.group(2) else None))
    return tuple(out)


def _specs() -> dict[str, _Spec]:
    out: dict[str, _Spec] = {}
    for row in _core.metric_registry():
        name = row["name"]
        out[name] = _Spec(
            kind=_core.Kind.__members__[name] if row["family"] == "accuracy" else None,
            options=dict(_option(o, repr(name)) for o in row["options"].split(";") if o.strip()),
            cutoff=row["cutoff"],
            doc=row["summary"],
            family=row["family"],
            needs=_words(row["needs"], repr(name)),
            stage=row["stage"],
            count_like=row["count_like"],
            reads=_words(row["reads"], repr(name)),
            section=row["section"],
        )
    return out


SPECS: dict[str, _Spec] = _specs()


def _better() -> None:
    for name, direction in _core.metric_better():
        words = _words(direction, f"the direction of {name!r}")
        if name not in SPECS or any(w not in ("higher", "lower", "none") for w, _c in words):
            raise RuntimeError(f"metric registry: bad RANKMETER_BETTER row for {name!r}: {direction!r}")
        SPECS[name] = replace(SPECS[name], better=words)


_better()


def _aliases() -> dict[str, tuple[str, dict]]:
    out: dict[str, tuple[str, dict]] = {}
    for alias, name, fixed in _core.metric_aliases():
        opts = {}
        for part in fixed.split(";"):
            if part.strip():
                key, val = (x.strip() for x in part.split("=", 1))
                opts[key] = SPECS[name].options[key][1](val, f"option {key!r} of alias {alias!r}")
        out[alias] = (name, opts)
    return out


# alias -> (canonical name, fixed options)
_ALIASES: dict[str, tuple[str, dict]] = _aliases()


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return repr(int(v)) if v.is_integer() else repr(v)
    return str(v)


def _did_you_mean(name: str) -> str:
    """'; did you mean 'ndcg'?' for a metric name close to a known one (or alias), else ''."""
    import difflib

    close = difflib.get_close_matches(name, [*SPECS, *_ALIASES], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


class Metric:
    """One metric column: a name, options and an optional cutoff ``k``.

    ``str(metric)`` is the canonical name; two metrics with the same canonical
    name are equal. Build one with the named classes (``NDCG(k=10)``) or from a
    string with :func:`parse`.
    """

    __slots__ = ("name", "k", "options", "_text", "_col")
    name: str
    k: Optional[int]
    options: dict
    _text: Optional[str]
    _col: Any

    def __init__(self, name: str, k: Optional[int] = None, **options: Any):
        name = name.strip().lower()
        fixed: dict = {}
        if name in _ALIASES:
            name, fixed = _ALIASES[name]
        if name not in SPECS:
            raise ValueError(f"unknown metric {name!r}{_did_you_mean(name)}; known metrics: {', '.join(list())}")
        spec = SPECS[name]
        for key in options:
            if key not in spec.options:
                allowed = ", ".join(spec.options) or "none"
                hint = " (log_base changes DCG, never NDCG)" if name == "ndcg" and key == "log_base" else ""
                raise ValueError(f"unknown option {key!r} for metric {name!r}{hint}; allowed options: {allowed}")
        for key, val in fixed.items():
            if key in options and spec.options[key][1](options[key], key) != val:
                raise ValueError(f"option {key!r} is fixed to {val!r} for this alias")
        opts = {}
        for key, (default, check) in spec.options.items():
            value = check(options[key], f"option {key!r} of {name!r}") if key in options else fixed.get(key, default)
            opts[key] = value
        k = _check_k(k, f"cutoff of {name!r}")
        if k is not None and not spec.cutoff:
            raise ValueError(
                f"metric {name!r} takes no cutoff (it is defined on the whole list); got @{k}: drop the @{k}"
            )
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "options", opts)
        object.__setattr__(self, "_text", None)  # the canonical text, made once (the object never changes)
        object.__setattr__(self, "_col", None)  # the pass column, made once

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Metric objects are immutable")

    def __reduce__(self) -> tuple:
        # pickled and copied by name, cutoff and options (the cached text and pass column are remade)
        return (_rebuild_metric, (self.name, self.k, dict(self.options)))

    # canonical text
    def __str__(self) -> str:
        text = self._text
        if text is None:
            text = self._canonical_text()
            object.__setattr__(self, "_text", text)
        return text

    def _canonical_text(self) -> str:
        spec = SPECS[self.name]
        non_default = [(key, v) for key, v in self.options.items() if v != spec.options[key][0]]
        if self.name == "fbeta" and self.options["beta"] == 1.0:
            base = "f1"
        else:
            base = self.name
            if non_default:
                base += "(" + ",".join(f"{key}={_fmt(v)}" for key, v in non_default) + ")"
        return base + (f"@{self.k}" if self.k is not None else "")

    def __repr__(self) -> str:
        return f"rankmeter.metrics.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Metric) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def with_options(self, **options: Any) -> Metric:
        """A copy with some options (or ``k``) changed."""
        k = options.pop("k", self.k)
        merged = dict(self.options)
        merged.update(options)
        return Metric(self.name, k, **merged)

    @property
    def needs(self) -> tuple:
        """The context arguments of ``evaluate`` this metric cannot run without, with its options (the registry's
        ``needs``), e.g. ``("train",)`` for ``diversity(similarity=cooccurrence)``."""
        return _applicable(SPECS[self.name].needs, self.options)

    @property
    def reads(self) -> tuple:
        """What its value depends on besides the lists, with its options (the registry's ``reads``): ``"grades"``,
        ``"scores"``, ``"catalog"`` (the ``catalog`` argument, else the items of ``train``)."""
        return _applicable(SPECS[self.name].reads, self.options)

    @property
    def better(self) -> Optional[str]:
        """Which way this metric is better: ``"higher"``, ``"lower"`` (``gini``, ``arp``) or ``None`` for a count or
        a diagnostic (``num_ret``, ``judged``, C/W/L expected cost); the registry's ``RANKMETER_BETTER`` rows, read
        by the comparison tables and plots (docs/compare.md)."""
        words = _applicable(SPECS[self.name].better, self.options)
        word = words[0] if words else "none"
        return None if word == "none" else word

    @property
    def family(self) -> str:
        """'accuracy' (fused pass), 'user' (per-user beyond kernel) or 'catalog' (one value)."""
        return SPECS[self.name].family

    # what the C++ pass needs
    def _column(self) -> Any:
        """This metric as a column of the fused pass (``_core.Column``): the registry's options that are
        fields of ``Column`` go there under the same name; the others are applied in Python. Made once per
        Metric (the pass only reads it)."""
        if self._col is not None:
            return self._col
        col = _core.Column()
        col.kind = SPECS[self.name].kind
        col.cutoff = self.k or 0
        for key, value in self.options.items():
            if not hasattr(col, key):
                continue
            current = getattr(col, key)
            setattr(col, key, float(value) if isinstance(current, float) else type(current).__members__[value])
        object.__setattr__(self, "_col", col)
        return col


def _rebuild_metric(name: str, k: Optional[int], options: dict) -> Metric:
    return Metric(name, k, **options)


def _applicable(words: tuple, options: dict) -> tuple:
    return tuple(w for w, cond in words if cond is None or options.get(cond[0]) == cond[1])


def _cls(cls_name: str, name: str, doc: str, params: str) -> type:
    def __init__(self: Metric, k: Optional[int] = None, **options: Any) -> None:
        Metric.__init__(self, name, k, **options)

    return type(
        cls_name,
        (Metric,),
        {
            "__init__": __init__,
            "__slots__": (),
            "__doc__": f"{doc}\n\nParameters\n----------\nk : int, optional\n    Cutoff; None means the whole list.\n{params}",
        },
    )


_HIT_DOC = "hit_scores : {'any', 'positive'}, default 'any' ('positive': an item scored <= 0 is never a hit)\n"
_SHORT_DOC = (
    "short_lists : {'pad', 'evidently'}, default 'pad' ('evidently': Evidently's code on lists shorter than k)\n"
)
_ROWS_DOC = (
    "rows : {'list', 'evidently'}, default 'list' ('evidently': a user's rows are its list plus its truth items not "
    "in it, Evidently's size)\n"
)
Hits = _cls("Hits", "hits", "Number of relevant items in the top k.", "")
Precision = _cls(
    "Precision",
    "precision",
    "hits@k / k (k even when the list is shorter; short_lists='evidently': hits@k / min(n, k)).",
    _SHORT_DOC + _HIT_DOC + _ROWS_DOC,
)
Recall = _cls("Recall", "recall", "hits@k / |R|.", "denominator : {'relevant', 'min_relevant_k'}\n" + _HIT_DOC)
FBeta = _cls("FBeta", "fbeta", "F-beta of precision@k and recall@k.", "beta : float, default 1\n")
AP = _cls(
    "AP",
    "ap",
    "Average precision at k.",
    "denominator : {'relevant', 'min_relevant_k', 'hits', 'k', 'min_listed'} ('min_listed': min(|R|, k, n), "
    "LensKit)\n" + _SHORT_DOC + _HIT_DOC + _ROWS_DOC,
)
AR = _cls("AR", "ar", "Average recall at k.", "denominator : {'relevant', 'hits'}\n" + _SHORT_DOC + _ROWS_DOC)
CG = _cls("CG", "cg", "Cumulative gain at k.", "gain : {'linear', 'exponential', 'binary'}\n")
DCG = _cls(
    "DCG",
    "dcg",
    "Discounted cumulative gain at k.",
    "gain : str\nlog_base : float, default 2\n"
    "discount : {'reciprocal', 'divide', 'clip'} ('divide': each gain divided by log_b(j + 1), as ranx and most numpy "
    "code do; the default multiplies by a table of 1 / log_b(j + 1); the two differ only by rounding, in the last "
    "bits; 'clip': times ln(b) / ln(max(j, 2)), positions 1 and 2 undiscounted, as LensKit)\n",
)
NDCG = _cls(
    "NDCG",
    "ndcg",
    "Normalised DCG at k.",
    "gain : str\nideal : {'cut', 'all', 'k_slots'}\n"
    "discount : {'reciprocal', 'divide', 'clip'} ('divide': each gain divided by log_b(j + 1), as ranx and most numpy "
    "code do; the default multiplies by a table of 1 / log_b(j + 1); the two differ only by rounding, in the last "
    "bits; 'clip': times ln(b) / ln(max(j, 2)), positions 1 and 2 undiscounted, as LensKit)\n"
    "rounding : {'none', 'capri', 'gdeval'} ('capri': CAPRI's float32 value "
    "rounded to 4 decimals per user; needs gain=binary, ideal=all; 'gdeval': each user's value with 5 decimals, as "
    "gdeval prints it)\nmissing_recs : {'inherit', 'zero'} ('zero': truth users without recs score 0 here whatever "
    "evaluate(missing=) says)\nrows : {'list', 'evidently'} ('evidently': Evidently's NDCG, grades as gains, negative "
    "too, ideal over the list and the truth items not in it)\n",
)
HitRate = _cls("HitRate", "hit_rate", "1 when at least one relevant item is in the top k.", "")
RR = _cls("RR", "rr", "Reciprocal rank of the first relevant item within k.", _HIT_DOC)
ARHR = _cls("ARHR", "arhr", "Average reciprocal hit rank: sum of 1/j over every hit j <= k.", "")
NCRR = _cls(
    "NCRR",
    "ncrr",
    "Normalised cumulative reciprocal rank: arhr over the arhr of min(|R|, k) hits at the top.",
    "crr_ideal : {'k', 'list'} ('list': the ideal over min(|R|, items read within k), as Cornac's NCRR)\n",
)
RPrecision = _cls("RPrecision", "r_precision", "Precision at |R|.", "")
NumRel = _cls("NumRel", "num_rel", "|R|, the number of relevant items of the user.", "")
NumRet = _cls(
    "NumRet", "num_ret", "The number of list items read (trec_eval num_ret): the whole list after max_items.", ""
)
NumQ = _cls("NumQ", "num_q", "1 for every evaluated user (trec_eval num_q; its sum is the number of users).", "")
Bpref = _cls(
    "Bpref",
    "bpref",
    "Binary preference (Buckley & Voorhees 2004, trec_eval's m_bpref.c): truth rows that are not relevant are "
    "the judged non-relevant items.",
    "negative : {'nonrelevant', 'unjudged'}, default 'nonrelevant' ('unjudged': a non-relevant truth row with a "
    "negative grade counts as unjudged, as in trec_eval)\n",
)
RBP = _cls(
    "RBP",
    "rbp",
    "Rank-biased precision (Moffat & Zobel 2008): (1 - p) sum_{j<=k} g_j p^(j-1).",
    "p : float in (0, 1), default 0.8\ngain : {'binary', 'linear', 'exponential'}, default 'binary'\n"
    "below_min : {'gain', 'zero'}\n",
)
ERR = _cls(
    "ERR",
    "err",
    "Expected reciprocal rank (Chapelle et al. 2009), R_j = (2^g_j - 1) / 2^max_grade.",
    "max_grade : float, default 4 (gdeval's MAX_JUDGMENT)\nrounding : {'none', 'gdeval'} ('gdeval': each user's "
    "value with 5 decimals, as gdeval prints it and ir_measures' ERR@k returns it)\n",
)
Judged = _cls("Judged", "judged", "Share of the top min(k, n) items that have a truth row, whatever its grade.", "")
MAP, MAR, MRR = AP, AR, RR
FCP = _cls("FCP", "fcp", "Fraction of concordant pairs (Koren).", "average : {'pairs', 'users'}\n")
Diversity = _cls(
    "Diversity",
    "diversity",
    "Intra-list diversity: 1 - mean pairwise similarity in the top k.",
    "similarity : {'features', 'matrix', 'cooccurrence'}\none_item : {'skip', 'zero'} ('zero': a one-item top k "
    "scores 0 and counts)\ndivide_by : {'pairs', 'items'} ('items': the distance sum divided by the number of items, "
    "Evidently)\n",
)
Novelty = _cls(
    "Novelty",
    "novelty",
    "Mean self-information -log2(users_with_item / train_users) of the top k.",
    "unseen : {'skip', 'zero', 'one_user'}\ndivide_by : {'items', 'k'}\npopularity : {'users', 'interactions'}\n",
)
Serendipity = _cls(
    "Serendipity",
    "serendipity",
    "Mean unexpectedness of the relevant top-k items.",
    "relevance : {'relevant', 'all'}\naggregate : {'mean', 'sum'} ('sum': 1 - the summed similarity, Evidently)\n",
)
Personalization = _cls(
    "Personalization",
    "personalization",
    "1 - mean overlap of two users' top k.",
    "similarity : {'overlap', 'cosine', 'evidently'}\n",
)
Coverage = _cls(
    "Coverage",
    "coverage",
    "Share of the catalog that appears in some top k.",
    "outside : {'skip', 'count'} ('count': recommended items outside the catalog count too; can exceed 1)\n",
)
ARP = _cls(
    "ARP",
    "arp",
    "Average recommendation popularity.",
    "popularity : {'users', 'interactions'}\nunseen : {'skip', 'zero'}\nnormalize : {'none', 'max', 'total'}\n",
)
Gini = _cls(
    "Gini",
    "gini",
    "Gini index of the recommendation counts of catalog items.",
    "over : {'catalog', 'recommended'}\n"
    "divisor : {'n_minus_1', 'n'} ('n': divided by n instead of n - 1, RecBole's GiniIndex)\n",
)
ScoreEntropy = _cls("ScoreEntropy", "score_entropy", "Entropy of the softmax of all top-k scores pooled.", "")


def F1(k: Optional[int] = None) -> Metric:
    """F1 = F-beta with beta = 1."""
    return Metric("fbeta", k, beta=1.0)


_GRAMMAR = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*(?:\((.*)\))?\s*(?:@\s*(.*?))?\s*$")


def parse(text: Union[str, Metric], preset_options: Optional[Callable[[str, Optional[int]], dict]] = None) -> Metric:
    """Parse ``name``, ``name@k`` or ``name(option=value, ...)@k`` into a :class:`Metric`.

    ``preset_options(name, k)`` (used by presets) gives option defaults that
    apply unless the text sets the option itself.
    """
    if isinstance(text, Metric):
        return text
    if not isinstance(text, str):
        raise TypeError(f"a metric must be a string like 'ndcg@10' or a rankmeter.metrics.Metric, got {text!r}")
    if type(text) is not str:
        return _parse(text, preset_options)
    key = (text, preset_options)  # a preset's metric_options is a fixed function of its arguments
    try:
        hit = _PARSED.get(key)
    except TypeError:  # an unhashable preset_options: parsed every time
        return _parse(text, preset_options)
    if hit is None:
        hit = _parse(text, preset_options)
        if len(_PARSED) >= 4096:
            _PARSED.clear()
        _PARSED[key] = hit
    return hit


_PARSED: dict = {}  # (text, preset_options) -> Metric (a Metric never changes): a name in a loop is parsed once


def _parse(text: str, preset_options: Optional[Callable[[str, Optional[int]], dict]]) -> Metric:
    m = _GRAMMAR.match(text)
    if not m:
        raise ValueError(f"cannot parse metric {text!r}; expected 'name', 'name@k' or 'name(option=value)@k'")
    name, opt_text, k_text = m.group(1).lower(), m.group(2), m.group(3)
    k: Optional[int] = None
    if k_text is not None:
        if not re.fullmatch(r"\d+", k_text.strip()):
            raise ValueError(f"the cutoff in {text!r} must be a positive integer, got {k_text!r}")
        k = int(k_text)
        if k < 1 or k > _MAX_K:
            raise ValueError(f"the cutoff in {text!r} must be a positive integer of at most 2**62, got {k}")
    options: dict[str, Any] = {}
    if opt_text is not None and opt_text.strip():
        for part in opt_text.split(","):
            if "=" not in part:
                raise ValueError(f"cannot parse option {part.strip()!r} in metric {text!r}; expected option=value")
            key, val = part.split("=", 1)
            key = key.strip()
            if key in options:
                raise ValueError(f"option {key!r} given twice in metric {text!r}")
            options[key] = val.strip()
    canonical = _ALIASES.get(name, (name, {}))[0]
    if preset_options is not None and canonical in SPECS:
        for key, val in preset_options(canonical, k).items():
            if key in SPECS[canonical].options and key not in options and key not in _ALIASES.get(name, ("", {}))[1]:
                options[key] = val
    try:
        return Metric(name, k, **options)
    except (ValueError, TypeError) as e:
        raise type(e)(f"{e} (in metric {text!r})") from None


def list() -> _list[str]:
    """Every metric name rankmeter knows, aliases included."""
    return sorted(_list(SPECS) + _list(_ALIASES))
