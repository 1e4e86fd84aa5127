"""``EvalOptions``: every evaluation option once, with its type, default, allowed values and docs.

Every entry point (``evaluate``, ``partial``, the single-metric shortcuts,
``evaluate_stream``, ``rankmeter.spark`` / ``rankmeter.dask``, ``compare`` and
the command line) turns its keyword arguments into one :class:`EvalOptions`
as soon as it is called, so an option is declared, checked and documented
here only and means the same everywhere. The docstring of
:func:`rankmeter.evaluate` and the flags of ``rankmeter eval`` are generated
from the table below.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from .. import _core
from .._options import choice, resolve_threads
from ..inputs import RANX_TIES
from ..inputs._torch_order import TORCH_TIES
from ._presets import Preset, get_preset

# the `empty=` values and the policy of each in the C++ kernels (docs/metrics.md, section 4)
EMPTY_CODES = {name: _core.EmptyPolicy.__members__[name] for name in ("skip", "zero", "one", "error")}
# the `duplicates=` values and the policy of each in the C++ list scans (docs/metrics.md, section 6)
DUP_CODES = {name: _core.DupPolicy.__members__[name] for name in ("error", "first", "miss", "count")}
# the AUC family's `ties` option: what a tied (positive, negative) pair counts in the kernel (docs/metrics.md 3.19.10)
AUC_TIES = {name: _core.AucTies.__members__[name] for name in ("half", "strict", "optimistic")}

__all__ = [
    "EvalOptions",
    "DUP_CODES",
    "AUC_TIES",
    "DEFAULTS",
    "OPTION_NAMES",
    "CONVENTIONS",
    "CONTEXT",
    "COLUMNS",
    "options_doc",
    "option_field",
    "unknown_option",
]

_MAX_ITEMS_CAP = 2**62  # larger max_items values truncate nothing, like no max_items


def _meta(kind: str, type_: str, doc: str, help_: str, *, allowed: tuple = (), default: Any = None, cli: Any = str):
    """What is known of one option: ``kind`` ('convention', 'threads', 'context' or 'column'),
    the type and the text of its docstring entry, a one-line help (the command line's), the allowed
    values, rankmeter's own default (None: none, or "the preset's") and the type a command-line value
    is read as (None: no command-line form). The type of an option with allowed values is their set."""
    if allowed:
        type_ = "{" + ", ".join(map(repr, allowed)) + "}"
    return {"kind": kind, "type": type_, "doc": doc, "help": help_, "allowed": allowed, "default": default, "cli": cli}


_COLUMNS_DOC = (
    "Column names of long tables (pandas, polars, pyarrow, parquet paths);\n"
    "defaults ``user_id``, ``item_id``, ``relevance``, ``rank``, ``score``."
)
_SIDE_DOC = (
    "The user or item column of one table only, where truth and recs name it\n"
    "differently (``truth_user_col='userId', recs_user_col='uid'``); they win\n"
    "over ``user_col``/``item_col`` for that table (``train`` keeps those)."
)
_TIES = ("item", "input", "file", "trec", "trec9", "item_desc", "average", *RANX_TIES, *TORCH_TIES, "evidently", "last")


@dataclass(frozen=True)
class EvalOptions:
    """Every option of an evaluation, checked once (the same messages at every entry point).

    ``None`` means "the preset's default, else rankmeter's" (:data:`DEFAULTS`);
    :meth:`resolved` fills those in. Build one with :meth:`from_kwargs` (unknown
    names raise a ``TypeError`` naming them) or directly; both check every value.
    How per-user values are returned is not an option of the evaluation but of
    each entry point (``evaluate(per_user=)``, the shortcuts' ``aggregate=None``,
    ``evaluate_stream(per_user=path)``, ``rankmeter.spark.per_user``).
    """

    preset: Optional[str] = field(
        default=None,
        metadata=_meta(
            "convention",
            "str, optional",
            'A family of conventions matching another tool, e.g. ``"trec_eval"``.',
            "conventions of another tool, e.g. trec_eval or ranx (rankmeter metrics lists them)",
        ),
    )
    threads: Optional[int] = field(
        default=None,
        metadata=_meta(
            "threads",
            "int, optional",
            "Threads of the C++ pass; default ``RANKMETER_NUM_THREADS`` or all cores.\n"
            "Results are bit-identical for any value.",
            "threads of the C++ pass (default: RANKMETER_NUM_THREADS, else all cores)",
            cli=int,
        ),
    )
    empty: Optional[str] = field(
        default=None,
        metadata=_meta(
            "convention",
            "choice",
            "Users whose truth has no relevant item: excluded (NaN, default), 0,\n1, or an error.",
            "users without a relevant item",
            allowed=tuple(EMPTY_CODES),
            default="skip",
        ),
    )
    duplicates: Optional[str] = field(
        default=None,
        metadata=_meta(
            "convention",
            "choice",
            "The same item twice in one list: an error (default); keep the first\n"
            "(the list closes up); keep the repeat's position but never count it as\n"
            "a hit (``'miss'``: ml_metrics, recmetrics, CAPRI); or count every\n"
            "occurrence as a hit at its position (``'count'``: Spark), docs/metrics.md 6.1.",
            "an item twice in one list: error, first (drop the repeat), miss (keep its slot, no hit), "
            "count (every occurrence a hit)",
            allowed=tuple(DUP_CODES),
            default="error",
        ),
    )
    truth_duplicates: Optional[str] = field(
        default=None,
        metadata=_meta(
            "convention",
            "choice",
            "The same item twice in one user's truth (repeated interaction rows):\n"
            "an error (default), or one item whose grade is the largest, the sum,\n"
            "the first or the last of the repeats' grades (docs/conventions.md).",
            "an item twice in one user's truth",
            allowed=("error", "max", "sum", "first", "last"),
            default="error",
        ),
    )
    ties: Any = field(
        default=None,
        metadata=_meta(
            "convention",
            "choice",
            "Equal scores when ranking by score: item id ascending (default: the\n"
            "same numbers whatever the row order), input order, no ranking at all\n"
            "(file: the order given, scores ignored, as cwl-eval), item id\n"
            "descending as strings (trec_eval), the same on scores rounded to\n"
            "float32 (trec9: trec_eval 9.0.x, pytrec_eval), item id descending,\n"
            "tie-averaged DCG/NDCG (scikit-learn), ranx's numba quicksort order (a ``Run``;\n"
            "a ``Run`` after ``make_comparable=True``; a plain dict), torch's\n"
            "order of float32 scores (argsort; topk at the metric's cutoff;\n"
            "tie-averaged), Evidently's ranks (a tie group at positions a..b at\n"
            "rank floor((a+b)/2)), or every tie group at its last rank b (ap only:\n"
            "Cornac's MAP). A dict ``{metric: rule}`` gives each metric its\n"
            "own rule (``'*'``: the others; default 'item'), docs/metrics.md 6.3.",
            "equal scores",
            allowed=_TIES,
            default="item",
        )
        | {"type": "{" + ", ".join(map(repr, _TIES)) + "} or dict"},
    )
    min_relevance: Optional[float] = field(
        default=None,
        metadata=_meta(
            "convention",
            "float, optional",
            "Items are relevant when grade >= min_relevance (default: grade > 0);\n"
            "``-inf``: every truth row is relevant, whatever its grade (RecTools,\n"
            "Recommenders). Gains of the DCG family still use the grade itself.",
            "relevant means grade >= L (trec_eval -l L)",
            cli=float,
        ),
    )
    max_items: Optional[int] = field(
        default=None,
        metadata=_meta(
            "convention",
            "int, optional",
            "Truncate every list to its first ``max_items`` items (trec_eval -M).",
            "only the first N items of every list (trec_eval -M N)",
            cli=int,
        ),
    )
    missing: Optional[str] = field(
        default=None,
        metadata=_meta(
            "convention",
            "choice",
            "Truth users without recommendations: scored as empty lists (default;\n"
            "trec_eval ``-c``), left out (only users on both sides: trec_eval's\n"
            "default, and the per-shard recipe of :func:`partial`), or left out\n"
            "together with the users whose list is empty (``skip_empty``: a table of\n"
            "recommendations has no row for them; Microsoft Recommenders).",
            "truth users without recs (skip_empty: also users with an empty list)",
            allowed=("zero", "skip", "skip_empty"),
            default="zero",
        ),
    )
    recs_only: Optional[str] = field(
        default=None,
        metadata=_meta(
            "convention",
            "choice",
            "Recommendation users absent from the truth: left out (default, counted\n"
            "in ``meta['n_ignored_recs']``) or evaluated with an empty truth\n"
            "(``empty``: accuracy metrics then follow ``empty=``; the beyond-accuracy\n"
            "metrics, which read the lists, score them: RecTools, Recommenders);\n"
            "``listed``: as ``empty`` for those whose list holds an item, the users\n"
            "with an empty list left out (LensKit's RunAnalysis).",
            "recs users absent from the truth (empty: evaluated with an empty truth; listed: those with a non-empty list)",
            allowed=("skip", "empty", "listed"),
            default="skip",
        ),
    )
    train: Any = field(
        default=None,
        metadata=_meta(
            "context",
            "any truth-like form, optional",
            "Training interactions (user, item): item popularity, user histories and the\n"
            "default catalog of the beyond-accuracy metrics (novelty, arp, serendipity,\n"
            "coverage, gini, diversity with similarity=cooccurrence).",
            "",
            cli=None,
        ),
    )
    item_features: Any = field(
        default=None,
        metadata=_meta(
            "context",
            "2-D array (row = item id), dict, (ids, matrix) or DataFrame indexed by item id, optional",
            "Item feature vectors for diversity (similarity=features) and serendipity.",
            "",
            cli=None,
        ),
    )
    item_similarity: Any = field(
        default=None,
        metadata=_meta(
            "context",
            "square array or scipy.sparse (row/column = item id), (ids, matrix), DataFrame or dict, optional",
            "Item x item similarity for diversity(similarity=matrix): also a DataFrame whose index and\n"
            "columns are item ids, or ``{a: {b: sim}}`` (missing pairs 0).",
            "",
            cli=None,
        ),
    )
    catalog: Any = field(
        default=None,
        metadata=_meta(
            "context",
            "iterable of item ids, optional",
            "The catalog of coverage and gini (default: the items seen in ``train``).",
            "",
            cli=None,
        ),
    )
    subtopics: Any = field(
        default=None,
        metadata=_meta(
            "context",
            "long table, dict of columns, (users, subtopics, items, grades) arrays or ndeval qrels path, optional",
            "Subtopic judgments of the intent-aware diversity metrics (alpha_ndcg, err_ia,\n"
            "nrbp, p_ia, strec, map_ia, ...): one row per (user, subtopic, item, grade);\n"
            "a file path is read as ndeval's qrels (``topic subtopic doc judgment``).",
            "",
            cli=None,
        ),
    )
    costs: Any = field(
        default=None,
        metadata=_meta(
            "context",
            "long table, dict of columns or (users, items, costs) arrays, optional",
            "The cost of each (user, item) of the lists for the C/W/L metrics (cwl_p, cwl_rbp,\n"
            "sdcg, inst, bpm, umeasure, tbg, ...: EC, ETC, BPM's cost limit K, U-measure's and\n"
            "TBG's weights), as cwl-eval's cost file gives it per element type; an item without\n"
            "a row costs the metric's ``max_cost`` (``min_cost`` in the residuals' best case).",
            "",
            cli=None,
        ),
    )
    tail_items: Any = field(
        default=None,
        metadata=_meta(
            "context",
            "iterable of item ids, optional",
            "The long-tail items of aplt, aclt and tail_percentage with ``tail=given`` (every other\n"
            "item is head) in place of the split of the train popularity (docs/metrics.md 3.19.14-3.19.15).",
            "",
            cli=None,
        ),
    )
    item_categories: Any = field(
        default=None,
        metadata=_meta(
            "context",
            "dict item -> category or list of categories, pandas Series, item/category table or (items, categories), optional",
            "The categories of the items for miscalibration (Steck's calibration): a multi-category\n"
            "item spreads weight 1 over its categories; an item without one (absent, or an empty\n"
            "list) adds nothing to the user's or the list's category distribution.",
            "",
            cli=None,
        ),
    )
    propensity: Any = field(
        default=None,
        metadata=_meta(
            "context",
            "dict item -> propensity, pandas Series, (items, propensities) or 'popularity', optional",
            "The propensity p_i of each item for the propensity-weighted metrics (ips_precision,\n"
            "ips_recall, ips_ndcg, ips_rr, ips_hit_rate, ips_ap): a relevant item weighs 1 / p_i.\n"
            "'popularity' computes Yang et al.'s p_i = n_i / sum_j n_j from ``train``\n"
            "(rm.popularity_propensity(train, gamma=...) for other exponents; docs/metrics.md 3.19.21).",
            "",
            cli=None,
        ),
    )
    item_groups: Any = field(
        default=None,
        metadata=_meta(
            "context",
            "dict item -> group or list of groups, pandas Series, item/group table or (items, groups), optional",
            "The groups of the items (providers, categories, popularity head/tail) for exposure_disparity,\n"
            'awrf and awrf_ndcg (docs/fairness.md, "Item exposure"): an item in m groups counts 1/m in\n'
            'each; an item without a group is left out (``ungrouped=skip``) or in a "no group" bucket\n'
            "(``ungrouped=own``).",
            "",
            cli=None,
        ),
    )
    user_col: Optional[str] = field(
        default=None, metadata=_meta("column", "str, optional", _COLUMNS_DOC, "user column of tables (default user_id)")
    )
    item_col: Optional[str] = field(
        default=None, metadata=_meta("column", "str, optional", _COLUMNS_DOC, "item column (default item_id)")
    )
    relevance_col: Optional[str] = field(
        default=None,
        metadata=_meta("column", "str, optional", _COLUMNS_DOC, "grade column of the truth (default relevance)"),
    )
    rank_col: Optional[str] = field(
        default=None, metadata=_meta("column", "str, optional", _COLUMNS_DOC, "rank column of the recs (default rank)")
    )
    score_col: Optional[str] = field(
        default=None,
        metadata=_meta("column", "str, optional", _COLUMNS_DOC, "score column of the recs (default score)"),
    )

    truth_user_col: Optional[str] = field(
        default=None,
        metadata=_meta(
            "column",
            "str, optional",
            _SIDE_DOC,
            "user column of the truth table only (when the tables name it differently)",
        ),
    )
    truth_item_col: Optional[str] = field(
        default=None,
        metadata=_meta("column", "str, optional", _SIDE_DOC, "item column of the truth table only"),
    )
    recs_user_col: Optional[str] = field(
        default=None,
        metadata=_meta("column", "str, optional", _SIDE_DOC, "user column of the recs table only"),
    )
    recs_item_col: Optional[str] = field(
        default=None,
        metadata=_meta("column", "str, optional", _SIDE_DOC, "item column of the recs table only"),
    )

    def __post_init__(self) -> None:
        # the order of the checks is the order evaluate() has always reported them in
        get_preset(self.preset)
        for name in ("missing", "empty", "duplicates", "truth_duplicates", "ties", "recs_only"):
            value = getattr(self, name)
            if name == "ties" and isinstance(value, Mapping):
                object.__setattr__(self, "ties", tie_rules(value, _FIELDS[name].metadata["allowed"]))
            elif value is not None:
                choice(value, _FIELDS[name].metadata["allowed"], name)
        mr = self.min_relevance
        if mr is not None:
            if isinstance(mr, bool) or not isinstance(mr, numbers.Real):
                raise TypeError(f"`min_relevance` must be a number or None, got {mr!r}")
            if math.isnan(float(mr)) or float(mr) == math.inf:
                raise ValueError(f"`min_relevance` must be finite or -inf (every truth row relevant), got {mr!r}")
            object.__setattr__(self, "min_relevance", float(mr))
        mi = self.max_items
        if mi is not None:
            if isinstance(mi, bool) or not isinstance(mi, numbers.Integral):
                raise TypeError(f"`max_items` must be a positive integer or None, got {mi!r}")
            if mi < 1:
                raise ValueError(f"`max_items` must be a positive integer or None, got {mi}")
            object.__setattr__(self, "max_items", min(int(mi), _MAX_ITEMS_CAP))
        if self.threads is not None:
            object.__setattr__(self, "threads", resolve_threads(self.threads))

    @classmethod
    def from_kwargs(cls, where: str = "evaluate", /, **kwargs: Any) -> EvalOptions:
        """The options of keyword arguments; a name that is no option raises a ``TypeError`` naming it
        (``where``: the function named in the message)."""
        for name in kwargs:
            if name not in _FIELDS:
                raise unknown_option(where, name)
        return cls(**kwargs)

    @classmethod
    def pick(cls, where: str, args: dict, **extra: Any) -> EvalOptions:
        """The options among a function's arguments (``locals()`` of a signature that lists every option;
        its other arguments are left out), plus ``extra`` keyword arguments (checked by name)."""
        return cls.from_kwargs(where, **{k: v for k, v in args.items() if k in _FIELDS}, **extra)

    def replace(self, **changes: Any) -> EvalOptions:
        """A copy with some options changed (checked like the others)."""
        return dataclasses.replace(self, **changes)

    def kwargs(self) -> dict:
        """The options that are set (not None), as keyword arguments of :func:`rankmeter.evaluate`."""
        return {name: getattr(self, name) for name in OPTION_NAMES if getattr(self, name) is not None}

    def columns(self) -> dict:
        """The column names (``user_col`` ... ``score_col``; None: the default), as keyword arguments."""
        return {name: getattr(self, name) for name in COLUMNS}

    def context(self) -> dict:
        """The context of the beyond-accuracy metrics (``train`` ... ``catalog``), as keyword arguments."""
        return {name: getattr(self, name) for name in CONTEXT}

    @property
    def preset_spec(self) -> Optional[Preset]:
        """The preset named by ``preset`` (None: no preset)."""
        return get_preset(self.preset)

    def conventions_text(self) -> str:
        """The conventions that run, in one line: ``preset 'trec_eval': ties='trec', empty='zero', ...``
        (the preset's defaults, else rankmeter's, where nothing was passed; min_relevance and max_items when
        set). Every output of the command line and of :func:`rankmeter.compare` shows it."""
        r = self.resolved()
        head = f"preset {r.preset!r}" if r.preset is not None else "no preset (rankmeter's conventions)"
        shown = [f"{k}={getattr(r, k)!r}" for k in DEFAULTS]
        shown += [f"{k}={getattr(r, k)!r}" for k in ("min_relevance", "max_items") if getattr(r, k) is not None]
        return f"{head}: " + ", ".join(shown)

    def resolved(self) -> EvalOptions:
        """These options with every unset convention filled in: the preset's default, else rankmeter's."""
        pre = get_preset(self.preset)
        defaults = dict(DEFAULTS)
        if pre is not None:
            defaults.update(pre.defaults)
        changes = {k: v for k, v in defaults.items() if getattr(self, k) is None}
        if not changes:
            return self
        if any(isinstance(v, Mapping) for v in changes.values()):  # a per-metric rule table: checked as passed
            return self.replace(**changes)
        # the defaults are valid values already: a copy with them set, without checking every option again
        out = copy.copy(self)
        for k, v in changes.items():
            object.__setattr__(out, k, v)
        return out


def tie_rules(value: Mapping, allowed: tuple) -> dict:
    """A per-metric ``ties`` mapping, checked: ``{canonical metric name or '*': rule}`` (a new dict; the
    caller's mapping is not kept). Keys are metric names without options or cutoff (aliases allowed)."""
    from ..metrics import parse

    out: dict = {}
    for key, rule in value.items():
        if not isinstance(key, str):
            raise TypeError(f"`ties` keys must be metric names (str) or '*', got {key!r}")
        name = key.strip()
        if name != "*":
            if "@" in name or "(" in name:
                raise ValueError(f"`ties` keys are metric names without options or cutoff, e.g. 'ndcg'; got {key!r}")
            try:
                name = parse(name).name
            except (ValueError, TypeError):
                raise ValueError(
                    f"`ties` key {key!r} is no metric name (rankmeter.metrics.list() names them)"
                ) from None
        if not isinstance(rule, str) or rule not in allowed:
            raise ValueError(f"`ties[{key!r}]` must be one of {', '.join(map(repr, allowed))}; got {rule!r}")
        if name in out and out[name] != rule:
            raise ValueError(f"`ties` gives {name!r} two rules: {out[name]!r} and {rule!r}")
        out[name] = rule
    return out


_FIELDS: dict[str, dataclasses.Field] = {f.name: f for f in dataclasses.fields(EvalOptions)}
OPTION_NAMES: tuple = tuple(_FIELDS)
CONVENTIONS: tuple = tuple(n for n, f in _FIELDS.items() if f.metadata["kind"] == "convention")
CONTEXT: tuple = tuple(n for n, f in _FIELDS.items() if f.metadata["kind"] == "context")
COLUMNS: tuple = tuple(n for n, f in _FIELDS.items() if f.metadata["kind"] == "column")
# rankmeter's own defaults (a preset's defaults replace them, anything passed explicitly wins over both)
DEFAULTS: dict = {n: f.metadata["default"] for n, f in _FIELDS.items() if f.metadata["default"] is not None}


def option_field(name: str) -> dataclasses.Field:
    """The declaration of one option (its metadata: kind, type, doc, help, allowed, default, cli)."""
    return _FIELDS[name]


def unknown_option(where: str, name: str) -> TypeError:
    """The error for a keyword that is no evaluation option, with the closest option's name."""
    close = difflib.get_close_matches(name, OPTION_NAMES, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return TypeError(
        f"{where}() got an unexpected keyword argument {name!r}{hint}; the evaluation options are "
        f"{', '.join(OPTION_NAMES)}"
    )


def options_doc(indent: str = "    ") -> str:
    """The numpydoc ``Parameters`` entries of every option, in declaration order (options that share a
    description, like the column names, share one entry)."""
    groups: list[tuple[list[str], str, str]] = []
    for name, f in _FIELDS.items():
        type_, doc = f.metadata["type"], f.metadata["doc"]
        if groups and groups[-1][1:] == (type_, doc):
            groups[-1][0].append(name)
        else:
            groups.append(([name], type_, doc))
    lines = []
    for names, type_, doc in groups:
        lines.append(f"{indent}{', '.join(names)} : {type_}")
        lines.extend(f"{indent}    {line}" for line in doc.splitlines())
    return "\n".join(lines) + "\n"
