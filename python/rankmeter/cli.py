"""The ``rankmeter`` command.

``rankmeter demo``     build workload W1 in memory and evaluate it; time a plain
                       per-user Python loop on a sample for comparison.
``rankmeter eval``     evaluate runs (TREC, parquet, CSV) against a truth, in trec_eval's layout
                       or as a table, JSON or CSV; streams large runs.
``rankmeter metrics``  the metric table with conventions and presets.
``rankmeter compare``  compare runs on one truth with paired significance tests.
``rankmeter report``   the same comparison as one self-contained HTML report.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import difflib
import io
import json
import math
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Optional, Sequence

import numpy as np

from . import PRESETS as evaluation_presets
from . import Recs, Truth, _core, datasets, evaluate, metrics, read_trec_qrels, read_trec_run
from ._version import __version__
from .evaluation import CONTEXT, DEFAULTS, OPTION_NAMES, EvalOptions, evaluate_with, option_field
from .inputs import to_recs, to_truth
from .inputs._frame import read_csv, side_keywords
from .inputs._sources import classify, open_binary, path_size
from .inputs._torch_order import float32_scores

DEMO_METRICS = ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")
DEMO_KS = (10, 100)


# ----------------------------------------------------------------- the slow way
def python_loop(truth: list[dict], lists: list[list], ks: Sequence[int]) -> dict[str, float]:
    """The per-user Python loop rankmeter replaces: textbook formulas, one user at a time."""
    sums = {f"{m}@{k}": 0.0 for k in ks for m in DEMO_METRICS}
    for grades, items in zip(truth, lists):
        relevant = {i for i, g in grades.items() if g > 0}
        n_rel = len(relevant)
        ideal = sorted((g for g in grades.values() if g > 0), reverse=True)
        for k in ks:
            top = items[:k]
            hits = ap = arhr = dcg = 0.0
            ar = 0.0
            first = 0
            for j, item in enumerate(top, 1):
                if item in grades:
                    dcg += max(grades[item], 0.0) / math.log2(j + 1)
                if item in relevant:
                    hits += 1
                    ap += hits / j
                    ar += hits / n_rel
                    arhr += 1.0 / j
                    if not first:
                        first = j
            idcg = sum(g / math.log2(j + 2) for j, g in enumerate(ideal[:k]))
            p, r = hits / k, hits / n_rel
            sums[f"precision@{k}"] += p
            sums[f"recall@{k}"] += r
            sums[f"f1@{k}"] += 2 * p * r / (p + r) if p + r else 0.0
            sums[f"map@{k}"] += ap / n_rel
            sums[f"mar@{k}"] += ar / n_rel
            sums[f"ndcg@{k}"] += dcg / idcg if idcg else 0.0
            sums[f"dcg@{k}"] += dcg
            sums[f"hit_rate@{k}"] += 1.0 if hits else 0.0
            sums[f"mrr@{k}"] += 1.0 / first if first else 0.0
            sums[f"arhr@{k}"] += arhr
    return {name: s / len(truth) for name, s in sums.items()}


def _sample_as_python(w: datasets.Workload, n: int) -> tuple[list[dict], list[list]]:
    # only the sample's users become Python objects (the whole workload as lists would take GBs)
    ti, ri = w.truth_indptr[: n + 1].tolist(), w.recs_indptr[: n + 1].tolist()
    tit, tg = w.truth_items[: ti[n]].tolist(), w.truth_grades[: ti[n]].tolist()
    rit = w.recs_items[: ri[n]].tolist()
    truth = [dict(zip(tit[ti[u] : ti[u + 1]], tg[ti[u] : ti[u + 1]])) for u in range(n)]
    lists = [rit[ri[u] : ri[u + 1]] for u in range(n)]
    return truth, lists


# ----------------------------------------------------------------- commands
def demo(users: int, threads: Optional[int], loop_users: int, repeats: int, seed: int) -> int:
    print(f"rankmeter {__version__} demo: the standard workload W1, built in memory")
    t0 = time.perf_counter()
    w = datasets.w1(users, seed=seed)
    build = time.perf_counter() - t0
    print(f"  {w.n_users:,} users x 100 ranked items, catalog 100,000 (Zipf 1.1), truth Poisson(10)+1, grades 1-3")
    print(
        f"  built in {build:.1f} s: {w.nbytes / 1e6:,.0f} MB of CSR buffers; "
        f"OpenMP: {'yes' if _core.has_openmp else 'no'}, cores: {_core.max_threads()}"
    )
    names = [f"{m}@{k}" for k in DEMO_KS for m in DEMO_METRICS]
    truth, recs = w.truth, w.recs
    times = []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        res = evaluate(truth, recs, names, threads=threads)
        times.append(time.perf_counter() - t0)
    t_eval = statistics.median(times)
    print(f"\nevaluate(): {len(names)} metric columns in one pass, {t_eval:.3f} s (median of {len(times)})\n")
    print(f"  {'metric':<10}" + "".join(f"{'@' + str(k):>12}" for k in DEMO_KS))
    for m in DEMO_METRICS:
        print(f"  {m:<10}" + "".join(f"{res[f'{m}@{k}']:>12.6f}" for k in DEMO_KS))

    n = min(loop_users, w.n_users)
    if n == 0:
        return 0
    sample_truth, sample_lists = _sample_as_python(w, n)
    t0 = time.perf_counter()
    slow = python_loop(sample_truth, sample_lists, DEMO_KS)
    t_loop = time.perf_counter() - t0
    extrapolated = t_loop * w.n_users / n
    sample = w.head(n)
    head = evaluate(sample.truth, sample.recs, names, threads=threads)
    worst = max(abs(head[name] - slow[name]) / max(abs(slow[name]), 1e-300) for name in names)
    print(
        f"\nplain per-user Python loop, same metrics, on {n:,} users: {t_loop:.2f} s "
        f"-> {extrapolated:,.0f} s extrapolated to {w.n_users:,} users"
    )
    print(
        f"speed-up of rankmeter: {extrapolated / t_eval:,.0f}x   "
        f"(agreement on the sample: max relative difference {worst:.1e})"
    )
    return 0


# ----------------------------------------------------------------- rankmeter eval
# trec_eval's measures that rankmeter implements, in the order trec_eval prints them,
# with the rankmeter metric behind each (None: computed by the command itself from other values).
TREC_MEASURES: dict[str, Optional[str]] = {
    "runid": None,
    "num_q": None,
    "num_ret": None,
    "num_rel": "num_rel",
    "num_rel_ret": "hits",
    "map": "ap",
    "gm_map": None,  # the geometric mean of map over queries: `all` line only
    "Rprec": "r_precision",
    "bpref": "bpref",
    "recip_rank": "rr",
    "iprec_at_recall": "iprec",
    "P": "precision",
    "relstring": None,  # the grades of the top 10 documents: query lines only
    "recall": "recall",
    "infAP": "infap",
    "gm_bpref": None,  # the geometric mean of bpref over queries: `all` line only
    "Rprec_mult": "rprec_mult",
    "utility": None,
    "11pt_avg": None,  # the mean of iprec_at_recall over its levels
    "binG": "bin_g",
    "G": "trec_g",
    "ndcg": "ndcg",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "rndcg",
    "ndcg_cut": "ndcg",
    "map_cut": "ap",
    "relative_P": "recall(denominator=min_relevant_k)",
    "success": "hit_rate",
    "set_P": "precision",
    "set_relative_P": "recall(denominator=min_relevant_k)",
    "set_recall": "recall",
    "set_map": None,  # hits^2 / (num_ret num_rel)
    "set_F": "fbeta",
    "num_nonrel_judged_ret": "num_nonrel_judged",
    "rbp": "rbp(p=0.9,gain=linear,scale=max_grade)",
    "rbp_resid": "rbp_resid(p=0.9)",
    "unj": "unjudged",
}
# measures with a list of integer cutoffs (`P.5,10`), printed as `P_5`, `P_10`
TREC_CUTOFF_MEASURES = ("P", "recall", "ndcg_cut", "map_cut", "success", "relative_P", "unj")
_TREC_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
TREC_DEFAULT_CUTOFFS = {
    "P": _TREC_CUTS,
    "recall": _TREC_CUTS,
    "ndcg_cut": _TREC_CUTS,
    "map_cut": _TREC_CUTS,
    "relative_P": _TREC_CUTS,
    "success": (1, 5, 10),
    "unj": (5, 10, 20),
}
# measures with a list of levels (`Rprec_mult.0.2,0.4`), printed as `Rprec_mult_0.20`: the option they set
TREC_LEVEL_MEASURES = {"iprec_at_recall": "at", "Rprec_mult": "mult"}
TREC_DEFAULT_LEVELS = {
    "iprec_at_recall": tuple(i / 10 for i in range(11)),
    "Rprec_mult": tuple(i / 5 for i in range(1, 11)),
}
# measures whose parameters (`utility.2,-1,0,0`) print after the name as given (`utility_2,-1,0,0`)
TREC_PARAM_MEASURES = ("relstring", "utility", "11pt_avg", "set_F", "rbp", "rbp_resid")
TREC_DEFAULT_PARAMS = {
    "relstring": (10.0,),
    "utility": (1.0, -1.0, 0.0, 0.0),
    "11pt_avg": TREC_DEFAULT_LEVELS["iprec_at_recall"],
}
# trec_eval's named measure sets (its "nicknames"), restricted to what rankmeter implements
TREC_SETS = {
    "all_trec": tuple(TREC_MEASURES),
    "official": (
        *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"),
        *("iprec_at_recall", "P"),
    ),
    "set": (
        *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall"),
        *("set_relative_P", "set_map", "set_F"),
    ),
}
TREC_SETS_9 = {**TREC_SETS, "all_trec": tuple(m for m in TREC_MEASURES if m not in ("rbp", "rbp_resid", "unj"))}
TREC_SUMS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")  # trec_eval's `all` line sums these
FORMATS = ("trec", "table", "json", "csv")
_ORDER = {name: i for i, name in enumerate(TREC_MEASURES)}
_TREC_FORM = re.compile(r"^(P|recall|ndcg_cut|map_cut|success|relative_P|unj)(?:[._](\d+))?$")
# a level measure spelled as printed: iprec_at_recall_0.10, Rprec_mult_2.00
_TREC_LEVEL_FORM = re.compile(r"^(iprec_at_recall|Rprec_mult)_(\d*\.?\d+)$")
# a trec_eval measure with parameters: `name.params` (the whole -m value)
_TREC_PARAMS = re.compile(
    r"^("
    + "|".join(re.escape(n) for n in (*TREC_CUTOFF_MEASURES, *TREC_LEVEL_MEASURES, *TREC_PARAM_MEASURES))
    + r"|ndcg|G|ndcg_rel|Rndcg)\.(.+)$"
)
# its parameters: numbers, or name=number pairs, separated by commas
_PARAM_LIST = re.compile(r"(?:[A-Za-z0-9_]+=)?[0-9.eE+-]+(?:,(?:[A-Za-z0-9_]+=)?[0-9.eE+-]+)*")


class CliError(ValueError):
    """A command-line mistake: printed as one line, exit status 2."""


@dataclass(frozen=True)
class Measure:
    """One output row: how it prints and how it is computed."""

    label: str  # the name printed
    key: Optional[str]  # the rankmeter metric string given to evaluate (None: runid, num_q, num_ret, derived)
    special: Optional[str] = None  # "runid", "num_q", "num_ret", or a measure derived from `deps` (_DERIVED)
    order: tuple = (len(TREC_MEASURES), 0)  # trec_eval's print order (unknown names last, as asked)
    deps: tuple = ()  # the metric strings a derived measure is computed from
    params: tuple = ()  # its parameters (utility's coefficients, relstring's depth)
    asked: bool = True  # asked for by name (False: as part of a set such as all_trec)

    @property
    def is_sum(self) -> bool:
        return self.label in TREC_SUMS


def _split_commas(text: str) -> list[str]:
    """Split on commas outside parentheses: ``ndcg(gain=exponential)@10,map`` -> two names."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def _closest(name: str) -> str:
    known = metrics.list() + list(TREC_MEASURES) + list(TREC_SETS) + ["P_10", "ndcg_cut_10", "map_cut_100"]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    if not close:
        close = difflib.get_close_matches(name.lower(), [k.lower() for k in known], n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else ""


def _trec_label(metric: metrics.Metric, preset_options) -> Optional[str]:
    """The trec_eval name of a rankmeter metric under the trec_eval preset (None: trec_eval has none)."""
    canon = str(metric)
    for trec, base in TREC_MEASURES.items():
        if base is None or base != metric.name or trec in TREC_LEVEL_MEASURES:
            continue
        if trec in TREC_CUTOFF_MEASURES:
            if metric.k is None:
                continue
            candidate = f"{base}@{metric.k}"
            label = f"{trec}_{metric.k}"
        else:
            if metric.k is not None:
                continue
            candidate, label = base, trec
        if str(metrics.parse(candidate, preset_options)) == canon:
            return label
    return None


def _trec_numbers(name: str, params: str) -> list[float]:
    """``.10,.20`` -> [0.1, 0.2]: the comma-separated numbers after a trec_eval measure name."""
    out = []
    for part in params.split(","):
        try:
            out.append(float(part))
        except ValueError:
            raise CliError(f"-m {name}.{params}: {part!r} is not a number") from None
    return out


def _trec_rows(name: str, params: Optional[str], trec_names: bool) -> list[Measure]:
    """The output rows of one trec_eval measure, with the parameters written after its dot (None: its
    defaults), in trec_eval's print order (docs/metrics.md 8.2)."""
    idx = _ORDER[name]
    base = TREC_MEASURES[name]
    given = f"{name}.{params}"
    if name in ("runid", "num_q", "num_ret"):
        if params is not None:
            raise CliError(f"-m {given}: {name} takes no parameters")
        return [Measure(name, None, name, (idx, 0))]
    if name in TREC_CUTOFF_MEASURES:
        assert base is not None
        if params is None:
            cuts: Sequence[int] = TREC_DEFAULT_CUTOFFS[name]
        else:
            cuts = sorted({int(x) for x in _trec_numbers(name, params)})  # trec_eval reads "23.4" as 23
            if any(k < 1 for k in cuts):
                raise CliError(f"-m {given}: cutoffs must be >= 1")
        return [Measure(f"{name}_{k}" if trec_names else f"{base}@{k}", f"{base}@{k}", None, (idx, k)) for k in cuts]
    if name in TREC_LEVEL_MEASURES:
        assert base is not None
        levels = TREC_DEFAULT_LEVELS[name] if params is None else sorted(set(_trec_numbers(name, params)))
        rows = []
        for x in levels:
            key = f"{base}({TREC_LEVEL_MEASURES[name]}={x!r})"
            try:
                metrics.parse(key)
            except (ValueError, TypeError) as e:
                raise CliError(f"-m {given}: {e}") from None
            rows.append(Measure(f"{name}_{x:.2f}", key, None, (idx, x)))
        return rows
    label = name if params is None else f"{name}_{params}"
    if name == "relstring":
        depth = int(TREC_DEFAULT_PARAMS[name][0] if params is None else _trec_numbers(name, params)[0])
        return [Measure(label, None, "relstring", (idx, 0), params=(depth,))]
    if name == "utility":
        coeffs = TREC_DEFAULT_PARAMS[name] if params is None else tuple(_trec_numbers(name, params))
        if len(coeffs) != 4:
            raise CliError(
                f"-m {given}: utility takes 4 coefficients (relevant retrieved, non-relevant "
                "retrieved, relevant not retrieved, non-relevant not retrieved)"
            )
        return [Measure(label, None, "utility", (idx, 0), ("hits", "num_ret", "num_rel"), coeffs)]
    if name == "11pt_avg":
        levels = TREC_DEFAULT_PARAMS[name] if params is None else tuple(_trec_numbers(name, params))
        deps = tuple(f"iprec(at={x!r})" for x in levels)
        for key in deps:
            try:
                metrics.parse(key)
            except (ValueError, TypeError) as e:
                raise CliError(f"-m {given}: {e}") from None
        return [Measure(label, None, "mean_of", (idx, 0), deps)]
    if name in ("gm_map", "gm_bpref"):
        return [Measure(name, None, "geometric_mean", (idx, 0), ("ap" if name == "gm_map" else "bpref",))]
    if name == "set_map":
        return [Measure(name, None, "set_map", (idx, 0), ("hits", "num_ret", "num_rel"))]
    assert base is not None
    key = base
    if params is not None:
        if name == "set_F":
            x = _trec_numbers(name, params)[0]
            if not x > 0:
                raise CliError(f"-m {given}: the weight of recall must be > 0")
            key = f"fbeta(beta={math.sqrt(x)!r})"
        elif name in ("rbp", "rbp_resid"):
            m = re.fullmatch(r"p=([0-9.eE+-]+)", params)
            if not m:
                raise CliError(f"-m {given}: {name} takes one parameter, p=<persistence>")
            key = re.sub(r"p=[0-9.]+", f"p={m.group(1)}", base)
        else:  # ndcg, G, ndcg_rel, Rndcg with a gain per grade: `1=3,2=9,4=4.5`
            gains = []
            for part in params.split(","):
                pair = re.fullmatch(r"([+-]?\d+)=([0-9.eE+-]+)", part)
                if not pair:
                    raise CliError(f"-m {given}: give gains as <grade>=<gain>, e.g. {name}.1=3,2=9")
                gain = _trec_numbers(name, pair.group(2))[0]
                if not gain >= 0:
                    raise CliError(f"-m {given}: a gain must be >= 0 (negative gains are not supported)")
                gains.append((float(pair.group(1)), gain))
            return [Measure(label, None, "gains", (idx, 0), (base,), tuple(gains))]
        try:
            metrics.parse(key)
        except (ValueError, TypeError) as e:
            raise CliError(f"-m {given}: {e}") from None
    return [Measure(label if trec_names else key if params is not None else name, key, None, (idx, 0))]


def parse_measures(texts: Sequence[str], preset: Optional[str]) -> list[Measure]:
    """``-m`` values -> measures: rankmeter names, comma lists and trec_eval's spellings.

    ``P.10``, ``P_10``, ``P.5,10`` (cutoff lists), ``ndcg_cut.10,20``, ``map_cut.100``,
    ``recall.20``, ``success.1``, bare ``P``/``ndcg_cut``/``map_cut`` (trec_eval's default
    cutoffs), ``map``, ``ndcg``, ``recip_rank``, ``Rprec``, ``num_rel_ret``, ``num_rel``,
    ``num_ret``, ``num_q``, ``runid``, every other trec_eval measure name with its parameters
    (``iprec_at_recall..10,.20``, ``Rprec_mult.0.2``, ``utility.2,-1,0,0``, ``11pt_avg..25,.5``,
    ``set_F.0.5``, ``relstring.20``, ``rbp.p=0.95``: they replace the defaults of a set) and the sets
    ``all_trec`` / ``official``; a number after a comma continues the previous name's cutoffs
    (``ndcg@10,20`` is ``ndcg@10 ndcg@20``).
    """
    pre = evaluation_presets.get(preset.strip().lower().replace("-", "_")) if preset else None
    trec_names = pre is not None and pre.name in ("trec_eval", "trec_eval_9")
    # trec_eval 9.0.x's all_trec has no rbp, rbp_resid or unj_k (added in 10.0)
    sets = TREC_SETS_9 if pre is not None and pre.name == "trec_eval_9" else TREC_SETS
    preset_options = pre.metric_options if pre is not None else None
    # ("trec" or "set" (from a set), trec_eval name, its parameters or None) or ("metric", metric string, None)
    tokens: list[tuple[str, str, Optional[str]]] = []
    explicit = set()  # trec_eval names given with parameters: a set does not add their defaults
    whole = [_TREC_PARAMS.match(text.strip()) for text in texts]
    for m in whole:
        if m and _PARAM_LIST.fullmatch(m.group(2)):
            explicit.add(m.group(1))
    prev: Optional[tuple[str, str]] = None  # what a bare number continues
    for text, m in zip(texts, whole):
        if m and _PARAM_LIST.fullmatch(m.group(2)):
            tokens.append(("trec", m.group(1), m.group(2)))
            prev = ("trec", m.group(1)) if m.group(1) in TREC_CUTOFF_MEASURES else None
            continue
        for part in _split_commas(text):
            if re.fullmatch(r"\d+", part):
                if prev is None:
                    raise CliError(f"-m {text!r}: the cutoff {part} follows no metric name")
                if prev[0] == "trec":
                    tokens.append(("trec", prev[1], part))
                else:
                    tokens.append(("metric", f"{prev[1]}@{part}", None))
                continue
            if part in sets:
                tokens.extend(("set", name, None) for name in sets[part] if name not in explicit)
                prev = None
                continue
            f = _TREC_FORM.match(part)
            if f and part != "recall" and part != "success":
                tokens.append(("trec", f.group(1), f.group(2)))
                prev = ("trec", f.group(1))
                continue
            f = _TREC_LEVEL_FORM.match(part)
            if f:
                tokens.append(("trec", f.group(1), f.group(2)))
                prev = None
                continue
            if part in TREC_MEASURES and part not in ("recall", "success"):
                tokens.append(("trec", part, None))
                prev = None
                continue
            at = re.fullmatch(r"(.*?)@\s*(\d+)", part)
            prev = ("metric", at.group(1) if at else part)
            tokens.append(("metric", part, None))
    out: dict[str, Measure] = {}
    for kind, name, params in tokens:
        if kind in ("trec", "set"):
            for meas in _trec_rows(name, params, trec_names):
                out.setdefault(meas.label, dataclasses.replace(meas, asked=kind == "trec"))
            continue
        key = name
        try:
            parsed = metrics.parse(key, preset_options)
        except (ValueError, TypeError) as e:
            bare = re.match(r"[A-Za-z_][A-Za-z_0-9.]*", key)
            hint = _closest(bare.group(0) if bare else key)
            msg = str(e)
            if msg.startswith("unknown metric"):
                msg = msg.split(";")[0] + " (`rankmeter metrics` lists them)"
            raise CliError(f"-m {key!r}: {msg}{hint}") from None
        label = (_trec_label(parsed, preset_options) if trec_names else None) or key
        order: tuple = (len(TREC_MEASURES), 0)
        if trec_names and label != key:
            base_name = re.sub(r"_\d+$", "", label)
            order = (_ORDER.get(base_name, len(TREC_MEASURES)), parsed.k or 0)
        meas = Measure(label, key, None, order)
        out.setdefault(meas.label, meas)
    measures = list(out.values())
    if trec_names:
        measures.sort(key=lambda x: x.order)  # stable: names trec_eval does not know keep their order
    return measures


# --------------------------------------------------------------- reading inputs
def _check_file(path: str, what: str) -> None:
    if not os.path.exists(path):
        raise CliError(f"{what} {path}: no such file or directory")
    if classify(path) == "trec":
        if os.path.isdir(path):
            raise CliError(f"{what} {path}: is a directory")
        with open(path, "rb") as f:
            head = f.read(4)
        if head == b"PAR1":
            raise CliError(
                f"{what} {path}: is a parquet file, not TREC text; give it a .parquet name to read it as a table"
            )


def _run_id(path: str, fallback: str) -> str:
    """trec_eval's runid: the 6th field of the run file's first line (the file name for tables)."""
    if classify(path) != "trec":
        return fallback
    with open_binary(path) as f:
        for raw in f:
            fields = raw.split()
            if fields:
                return fields[5].decode("utf-8", "replace") if len(fields) >= 6 else fallback
    return fallback


def load_truth(path: str, columns: dict) -> Truth:
    """The truth, read once: TREC qrels, a parquet file/directory or a CSV file."""
    own = side_keywords({k: v for k, v in columns.items() if v is not None}, "truth")  # truth_user_col= ...
    cols = {k: v for k, v in own.items() if k in ("user_col", "item_col", "relevance_col")}
    return to_truth(path, **cols)


def load_input(path: str, what: str, columns: dict):
    """A TREC file (kept as the path), a parquet path, or a CSV file read with pyarrow.csv."""
    kind = classify(path)
    if kind == "csv":
        columns = side_keywords({k: v for k, v in columns.items() if v is not None}, what)
        return read_csv(path, what, columns.get("user_col"), columns.get("item_col"))
    if kind == "trec":
        return read_trec_qrels(path) if what == "truth" else read_trec_run(path)
    return path


def _recs_lengths(recs: Any) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """(users, list lengths) of recommendations read into a rankmeter.Recs."""
    if isinstance(recs, Recs) and recs.indptr is not None and recs.users is not None:
        return np.asarray(recs.users), np.diff(recs.indptr)
    return None


def _lookup(keys: np.ndarray, values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """values[keys == q] for every query (0 when absent), by sorting: no per-user dict."""
    k = keys.astype(str)
    q = np.asarray(queries).astype(str)
    order = np.argsort(k, kind="stable")
    pos = np.searchsorted(k[order], q)
    pos = np.minimum(pos, max(len(k) - 1, 0))
    found = (k[order][pos] == q) if len(k) else np.zeros(len(q), dtype=bool)
    out = np.zeros(len(q), dtype=np.int64)
    out[found] = values[order][pos[found]]
    return out


@dataclass
class RunOutput:
    """Everything printed for one run."""

    name: str
    runid: str
    users: np.ndarray  # evaluated users, in print order
    per_user: dict[str, np.ndarray]  # label -> values aligned with users
    all: dict[str, Any]  # label -> the `all` value (mean, sum, count or runid)
    printed: Optional[np.ndarray] = None  # the users with query lines (None: all; trec_eval 9.0.x -c: the run's)


def _sort_users(users: np.ndarray) -> np.ndarray:
    users = np.asarray(users)
    if users.dtype.kind in "iu":
        return np.argsort(users, kind="stable")
    return np.argsort(users.astype(str), kind="stable")


def _exact_sum(state: Any, key: str) -> float:
    col = dict(state.keys)[key]
    return state.sums[col] / (1 << 1074)


def evaluate_run(truth: Any, path: str, measures: list[Measure], opts: EvalOptions, args: Any, name: str) -> RunOutput:
    keys = list(
        dict.fromkeys(
            [
                *(m.key for m in measures if m.key is not None),
                *(d for m in measures if m.special != "gains" for d in m.deps),
            ]
        )
    )
    keys = keys or ["num_rel"]
    # trec_eval 9.0.x with -c -q prints no query line for a qrels query without results (10.0 prints its zeros)
    hide_missing = bool(args.per_query) and opts.preset == "trec_eval_9" and opts.resolved().missing == "zero"
    if hide_missing and "num_ret" not in keys:
        keys.append("num_ret")  # the queries with results: a TREC run has at least one line for each
    # -J can leave a query without documents: trec_eval's iprec_at_recall and 11pt_avg are then 0/0 (NaN) at a
    # level of 0 documents (their interpolation starts at num_rel_ret / num_ret)
    levels = [m for m in measures if (m.key or "").startswith("iprec(") or m.label.startswith("11pt_avg")]
    run_users: Optional[np.ndarray] = None
    if args.judged_only and levels:
        keys.extend(k for k in ("num_ret", "num_rel") if k not in keys)
    columns = opts.columns()
    auto = False
    if args.stream or args.stream_truth:
        stream = True
    elif args.no_stream or classify(path) == "trec":
        stream = False
    else:  # streamed when the run read whole would pass the memory budget
        stream = auto = estimated_rows(path) * ROW_BYTES > args.memory_budget
    per_query = args.per_query or args.format != "trec" or any(m.deps for m in measures)
    lengths = None
    relstring = [m for m in measures if m.special == "relstring"]
    regained = [m for m in measures if m.special == "gains"]
    if auto and any(m.special == "num_ret" for m in measures):
        stream = auto = False  # num_ret needs the whole run: asked for, it is read in memory
    if auto and (relstring or regained or args.judged_only):
        stream = auto = False  # relstring and gains per grade need the whole run: asked for, it is read in memory
    if stream:
        if any(m.special == "num_ret" for m in measures):
            raise CliError("-m num_ret is not available when streaming (--stream): drop it or evaluate in memory")
        if args.judged_only:
            raise CliError("-J is not available when streaming (--stream): evaluate in memory")
        if relstring or regained:
            name = (relstring or regained)[0].label
            raise CliError(f"-m {name} is not available when streaming (--stream): drop it or evaluate in memory")
        from .stream import MaybeNotGrouped, evaluate_stream

        chunks: list = []
        try:
            sres = evaluate_stream(
                truth,
                path,
                keys,
                batch_rows=args.batch_rows,
                progress=False if args.no_progress else None,
                stream_truth=bool(args.stream_truth),
                per_user=(lambda users, values: chunks.append((users, values))) if per_query else None,
                **opts.kwargs(),
            )
        except ValueError as e:
            if not (auto and ("not grouped by user" in str(e) or isinstance(e, MaybeNotGrouped))):
                raise
            print(
                f"rankmeter eval: run {path} is not grouped by user, so it cannot be streamed; reading it whole "
                f"(about {estimated_rows(path) * ROW_BYTES / 2**30:.1f} GiB; sort it by user to stream it)",
                file=sys.stderr,
            )
            return evaluate_run(truth, path, measures, opts, _no_stream(args), name)
        state, meta = sres.state, sres.meta
        if chunks:
            users = np.concatenate([c[0] for c in chunks])
            values = {k: np.concatenate([c[1][k] for c in chunks]) for k in chunks[0][1]}
        else:
            users, values = np.zeros(0, dtype=object), {}
    else:
        recs = load_input(path, "recs", columns)
        if args.judged_only:  # trec_eval -J: the run cut at -M, without unjudged documents
            if not isinstance(truth, Truth):
                raise CliError("-J needs the truth in memory: drop --stream-truth")
            if not isinstance(recs, Recs):
                rcols = {k: v for k, v in columns.items() if k != "relevance_col" and v is not None}
                recs = to_recs(recs, **rcols)
            if recs.scores is not None and opts.resolved().ties not in ("trec", "trec9"):
                raise CliError("-J ranks equal scores as trec_eval does (docno descending): add --ties trec")
            run_users = np.asarray(recs.users)  # the queries with results, before -J empties some
            recs = judged_only(truth, recs, opts.max_items, opts.resolved().ties == "trec9")
            opts = opts.replace(max_items=None)
        res = evaluate_with(truth, recs, keys, opts)
        state, meta = res.state, res.meta
        users, values = np.asarray(res.users), {}
        for k in keys:
            with contextlib.suppress(KeyError, ValueError, TypeError):  # catalog-level: no per-user values
                values[k] = np.asarray(res.per_user[k], dtype=np.float64)
        if any(m.special == "num_ret" for m in measures):
            got = _recs_lengths(recs) if not isinstance(recs, str) else None
            if got is None:
                rcols = {k: v for k, v in columns.items() if k != "relevance_col" and v is not None}
                got = _recs_lengths(to_recs(recs, **rcols))  # the parquet path or the CSV table read above
            assert got is not None
            lengths = _lookup(got[0], got[1], users)
            if opts.max_items:
                lengths = np.minimum(lengths, opts.max_items)
        if relstring:
            if not isinstance(truth, Truth):
                raise CliError("-m relstring needs the truth in memory: drop --stream-truth or relstring")
            run_recs = recs
            if not isinstance(run_recs, Recs):
                rcols = {k: v for k, v in columns.items() if k != "relevance_col" and v is not None}
                run_recs = to_recs(recs, **rcols)
            depth = max(m.params[0] for m in relstring)
            if opts.max_items:
                depth = min(depth, opts.max_items)
            strings = relevance_strings(truth, run_recs, users, depth, opts.resolved().ties == "trec9")
        for m in regained:  # the same evaluation with each grade replaced by its gain
            if not isinstance(truth, Truth):
                raise CliError(f"-m {m.label} needs the truth in memory: drop --stream-truth or the gains")
            again = evaluate_with(regrade(truth, m.params), recs, list(m.deps), opts)
            values[m.label] = _align(np.asarray(again.users), np.asarray(again.per_user[m.deps[0]]), users)
    if args.judged_only and levels:
        _empty_ranking_nan(levels, values, opts.preset == "trec_eval_9")
    order = _sort_users(users)
    users = users[order]
    out = RunOutput(name, _run_id(path, name), users, {}, {})
    if hide_missing:
        if run_users is not None:
            out.printed = np.isin(users.astype(str), run_users.astype(str))
        else:
            out.printed = values["num_ret"][order] > 0
    means = state.finalize()
    for m in measures:
        if m.special == "runid":
            out.all[m.label] = out.runid
        elif m.special == "num_q":
            out.all[m.label] = int(meta["n_users"])
        elif m.special == "num_ret":
            assert lengths is not None
            out.per_user[m.label] = lengths[order]
            out.all[m.label] = int(lengths.sum())
        elif m.special == "relstring":  # query lines only, as trec_eval prints it
            cut = np.array([s[: int(m.params[0])] for s in strings[order]], dtype=object)
            out.per_user[m.label] = np.array([f"'{s}'" for s in cut], dtype=object)
        elif m.special == "gains":
            out.per_user[m.label] = values[m.label][order]
            out.all[m.label] = float(np.mean(values[m.label])) if len(users) else float("nan")
        elif m.special is not None:
            value = derived_values(m, values, args.num_docs)
            if m.special == "geometric_mean":  # the `all` line only, as trec_eval prints it
                out.all[m.label] = geometric_mean(value)
            else:
                out.per_user[m.label] = value[order]
                out.all[m.label] = float(np.mean(value)) if len(value) else float("nan")
        else:
            assert m.key is not None
            if m.key in values:
                out.per_user[m.label] = values[m.key][order]
            if args.judged_only and m in levels:  # its NaN (see _empty_ranking_nan) carries into `all`
                out.all[m.label] = float(np.mean(values[m.key])) if len(users) else float("nan")
                continue
            out.all[m.label] = round(_exact_sum(state, m.key)) if m.is_sum and args.format == "trec" else means[m.key]
    return out


def _empty_ranking_nan(levels: list[Measure], values: dict[str, np.ndarray], trec9: bool) -> None:
    """trec_eval's NaN for a query whose ranking is empty (after -J) at a recall level of 0 documents: the values
    of the iprec metrics behind `levels` (and so of 11pt_avg, their mean) set to NaN there, in place."""
    n_ret, n_rel = values["num_ret"], values["num_rel"]
    for key in {k for m in levels for k in ((m.key,) if m.key else m.deps)}:
        if key not in values:
            continue
        at = float(re.search(r"at=([0-9.eE+-]+)", key).group(1))  # type: ignore[union-attr]
        docs = np.floor(at * n_rel + 0.9) if trec9 else np.floor(at * n_rel + 0.5)
        values[key] = np.where((n_ret == 0) & (docs == 0), np.nan, values[key])


# trec_eval's floor for values in a geometric mean (gm_map, gm_bpref)
GM_FLOOR = 0.00001


def geometric_mean(values: np.ndarray) -> float:
    """trec_eval's geometric mean over queries: exp(mean(log(max(v, 0.00001))))."""
    v = np.asarray(values, dtype=np.float64)
    if not len(v):
        return float("nan")
    return float(np.exp(math.fsum(np.log(np.maximum(v, GM_FLOOR)).tolist()) / len(v)))


def derived_values(m: Measure, values: dict[str, np.ndarray], num_docs: int = 0) -> np.ndarray:
    """The per-query values of a measure the command computes from other metrics (docs/metrics.md 8.2):
    set_map = hits^2 / (num_ret num_rel), utility = a hits + b (num_ret - hits) + c (num_rel - hits)
    + d (num_docs + hits - num_ret - num_rel) (num_docs: the collection size, trec_eval's -N; 0 for a query without
    retrieved documents, which trec_eval does not score), 11pt_avg = the mean of
    iprec at its levels, and the values a geometric mean is taken of."""
    if m.special == "set_map":
        hits, n, nrel = (values[k] for k in m.deps)
        den = n * nrel
        return np.divide(hits * hits, den, out=np.zeros_like(hits), where=den > 0)
    if m.special == "utility":
        # a query without retrieved documents is not scored by trec_eval (-c fills it with zeros)
        hits, n, nrel = (values[k] for k in m.deps)
        a, b, c, d = m.params
        return np.where(n > 0, a * hits + b * (n - hits) + c * (nrel - hits) + d * (num_docs + hits - n - nrel), 0.0)
    if m.special == "mean_of":
        return np.mean(np.stack([values[k] for k in m.deps]), axis=0)
    if m.special == "geometric_mean":
        return values[m.deps[0]]
    raise AssertionError(m.special)  # pragma: no cover - every special is handled above


def regrade(truth: Truth, gains: tuple) -> Truth:
    """The truth with each grade listed in `gains` ((grade, gain) pairs) replaced by its gain: trec_eval's
    `ndcg.1=3,2=9` (a grade not listed keeps its value as gain, docs/metrics.md 8.2)."""
    grades = np.asarray(truth.grades, dtype=np.float64) if truth.grades is not None else np.ones(len(truth.items))
    new = grades.copy()
    for grade, gain in gains:
        new[grades == grade] = gain
    return Truth.from_csr(truth.indptr, truth.items, new, truth.users)


def _align(keys: np.ndarray, values: np.ndarray, users: np.ndarray) -> np.ndarray:
    """values[keys == u] for every user u (keys and users hold the same ids), by sorting."""
    k_order, u_order = _sort_users(keys), _sort_users(users)
    if len(keys) != len(users) or not np.array_equal(keys[k_order].astype(str), users[u_order].astype(str)):
        raise AssertionError("the evaluation with gains per grade evaluated other users")  # pragma: no cover
    out = np.empty(len(users), dtype=np.float64)
    out[u_order] = values[k_order]
    return out


def _trec_top(
    truth: Truth, recs: Recs, depth: Optional[int], float32: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each user's first `depth` documents (all: None) in trec_eval's order (score descending, then
    docno descending; file order without scores; `float32`: the scores as trec_eval 9.0.x stores them): (their
    rows of `recs` in that order, the index of their user in `recs`, their truth grade or NaN without a truth
    row)."""
    assert recs.indptr is not None and recs.users is not None
    seg_len = np.diff(recs.indptr)
    seg = np.repeat(np.arange(len(seg_len)), seg_len)
    items = np.asarray(recs.items).astype(str)
    if recs.scores is not None:
        scores = np.asarray(recs.scores, dtype=np.float64)
        if float32:
            scores = float32_scores(scores)
        _, item_code = np.unique(items, return_inverse=True)
        order = np.lexsort((-item_code, -scores, seg))
    else:
        order = np.arange(len(items))
    rank = np.arange(len(order)) - recs.indptr[seg[order]]
    top = order[rank < depth] if depth is not None else order
    # the grade of each (user, item) of the top: truth rows keyed by "user\0item"
    t_len = np.diff(truth.indptr)
    t_keys = np.char.add(
        np.char.add(np.repeat(np.asarray(truth.users).astype(str), t_len), "\0"), np.asarray(truth.items).astype(str)
    )
    t_grades = np.asarray(truth.grades, dtype=np.float64) if truth.grades is not None else np.ones(len(t_keys))
    r_keys = np.char.add(np.char.add(np.asarray(recs.users).astype(str)[seg[top]], "\0"), items[top])
    if not len(t_keys):
        return top, seg[top], np.full(len(top), np.nan)
    srt = np.argsort(t_keys)
    pos = np.minimum(np.searchsorted(t_keys[srt], r_keys), len(t_keys) - 1)
    grade = np.where(t_keys[srt][pos] == r_keys, t_grades[srt][pos], np.nan)
    return top, seg[top], grade


def relevance_strings(truth: Truth, recs: Recs, users: np.ndarray, depth: int, float32: bool = False) -> np.ndarray:
    """trec_eval's relstring: for each user, the grades of its first `depth` documents in trec_eval's
    order (score descending, then docno descending): a digit per grade 0-9, `>` above 9, `.` for a
    negative grade (judged unjudged), `-` for a document without a truth row (docs/metrics.md 8.2)."""
    out = np.full(len(users), "", dtype=object)
    if recs.indptr is None or recs.users is None or depth <= 0:
        return out
    _, seg, grade = _trec_top(truth, recs, depth, float32)
    chars = np.where(
        np.isnan(grade),
        "-",
        np.where(grade < 0, ".", np.where(grade > 9, ">", np.char.mod("%d", np.nan_to_num(np.clip(grade, 0, 9))))),
    )
    per_seg = np.split(chars, np.cumsum(np.bincount(seg, minlength=len(recs.indptr) - 1))[:-1])
    text = {u: "".join(c.tolist()) for u, c in zip(np.asarray(recs.users).astype(str).tolist(), per_seg)}
    for i, u in enumerate(np.asarray(users).astype(str).tolist()):
        out[i] = text.get(u, "")
    return out


def judged_only(truth: Truth, recs: Recs, max_items: Optional[int], float32: bool = False) -> Recs:
    """trec_eval -J: each user's list in trec_eval's order, cut at `max_items` (-M), without the documents
    that have no truth row or a negative grade (the rest move up), as ranked lists (docs/metrics.md 8.1)."""
    if recs.indptr is None or recs.users is None:
        raise CliError("-J needs a run of ranked lists per query")  # pragma: no cover - readers give CSR
    top, seg, grade = _trec_top(truth, recs, max_items, float32)
    keep = ~np.isnan(grade) & (grade >= 0)
    counts = np.bincount(seg[keep], minlength=len(recs.indptr) - 1)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return Recs.from_csr(indptr, np.asarray(recs.items)[top[keep]], None, recs.users)


# Peak bytes per row of a run read whole (a parquet run of 70M rows: 6.4 GB, docs/performance.md);
# the memory budget of `rankmeter eval` is compared with rows x this.
ROW_BYTES = 96
_DEFAULT_BUDGET_CAP = 1 << 30


def estimated_rows(path: str) -> int:
    """The rows of a parquet or CSV run, before reading it: from the parquet footers (exact), or for text from
    the file size and the mean length of its first lines (a gzip file: of its decompressed start, times the
    compression ratio of that start)."""
    kind = classify(path)
    if kind == "parquet":
        import pyarrow.dataset as ds

        return int(ds.dataset(path, format="parquet").count_rows())
    size = path_size(path)
    with open_binary(path) as f:
        head = f.read(1 << 20)
    lines = head.count(b"\n")
    if not head or lines == 0:
        return 1 if head else 0
    per_line = len(head) / lines
    if path.endswith(".gz"):
        with open(path, "rb") as fz:
            import zlib

            d = zlib.decompressobj(31)
            comp = fz.read(1 << 18)
            ratio = max(len(d.decompress(comp)) / max(len(comp), 1), 1.0)
        return int(size * ratio / per_line) + 1
    return int(size / per_line) + 1


def memory_budget(text: Optional[str]) -> int:
    """Bytes a run may take in memory before `rankmeter eval` streams it: ``--memory`` (``800M``, ``4G``,
    ``2.5GB`` or bytes), else a quarter of the available memory, at most 1 GiB."""
    if text is None:
        avail = _available_memory()
        return min(_DEFAULT_BUDGET_CAP, avail // 4) if avail else _DEFAULT_BUDGET_CAP
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    if not m:
        raise CliError(f"--memory {text!r}: give a size such as 800M, 4G or 2.5GB")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
    value = int(float(m.group(1)) * scale)
    if value <= 0:
        raise CliError(f"--memory {text!r}: must be positive")
    return value


def _available_memory() -> int:
    """MemAvailable of /proc/meminfo in bytes (0 where unknown)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _no_stream(args: Any) -> Any:
    copy = argparse.Namespace(**vars(args))
    copy.no_stream = True
    return copy


def _fmt_value(v: Any, integer: bool) -> str:
    if isinstance(v, str):
        return v
    if v != v:  # NaN: printed as trec_eval's printf("%6.4f") prints 0.0 / 0.0
        return "  -nan"
    if integer and v == v:
        return str(round(float(v)))
    return f"{float(v):.4f}"


def format_trec(run: RunOutput, measures: list[Measure], per_query: bool) -> Iterator[str]:
    """trec_eval's layout: ``%-22s\\t%s\\t%s`` lines, per query (-q) then ``all``."""
    if per_query:
        for i, user in enumerate(run.users.tolist()):
            if run.printed is not None and not run.printed[i]:
                continue
            for m in measures:
                if m.label in run.per_user:
                    yield f"{m.label:<22}\t{user}\t{_fmt_value(run.per_user[m.label][i], m.is_sum)}\n"
    for m in measures:
        if m.label in run.all:  # relstring has no `all` line
            yield f"{m.label:<22}\tall\t{_fmt_value(run.all[m.label], m.is_sum or m.special == 'num_q')}\n"


def _json_value(v: Any) -> Any:
    if isinstance(v, (str, int)):
        return v
    v = float(v)
    return v if math.isfinite(v) else None


def format_other(
    runs: list[RunOutput], measures: list[Measure], fmt: str, per_query: bool, conventions: str = ""
) -> Iterator[str]:
    labels = [m.label for m in measures if m.special != "runid"]
    if fmt == "json":
        doc = {}
        for run in runs:
            entry: dict[str, Any] = {
                "runid": run.runid,
                "conventions": conventions,
                "all": {k: _json_value(run.all[k]) for k in labels if k in run.all},
            }
            if per_query:
                entry["per_query"] = {
                    str(u): {k: _json_value(run.per_user[k][i]) for k in labels if k in run.per_user}
                    for i, u in enumerate(run.users.tolist())
                }
            doc[run.name] = entry
        yield json.dumps(doc, indent=2) + "\n"
        return
    rows = []
    for run in runs:
        if per_query:
            for i, u in enumerate(run.users.tolist()):
                rows.append(
                    [run.name, str(u)] + [_cell(run.per_user[k][i]) if k in run.per_user else "" for k in labels]
                )
        rows.append([run.name, "all"] + [_cell(run.all.get(k, "")) for k in labels])
    header = ["run", "query", *labels]
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        yield buf.getvalue()
        return
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        yield "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip() + "\n"
    if conventions:
        yield f"\nconventions: {conventions}\n"


def _cell(v: Any) -> str:
    if isinstance(v, (str, int, np.integer)):
        return str(v)
    return f"{float(v):.4f}"


def eval_files(args: Any) -> int:
    if args.rel_format != "qrels":
        raise CliError(
            f"-R {args.rel_format}: rankmeter eval reads qrels only (trec_eval's -R qrels); the qrels_jg and prefs "
            "formats (judgment groups, preferences) and their measures are not evaluated"
        )
    _check_file(args.truth, "truth")
    for path in args.runs:
        _check_file(path, "run")
    opts = options_from_args(args, "rankmeter eval")
    measures = parse_measures(args.metric, opts.preset)
    args.memory_budget = memory_budget(args.memory)
    conventions = opts.conventions_text()
    columns = opts.columns()
    from .stream import TRUTH_IN_MEMORY_MAX

    # a truth bigger than memory is streamed alongside every run (both sorted by user); else read once
    args.stream_truth = args.stream_truth or (not args.no_stream and path_size(args.truth) > TRUTH_IN_MEMORY_MAX)
    truth: Any = args.truth if args.stream_truth else load_truth(args.truth, columns)
    taken: set = set()
    runs = []
    label_blocks = len(args.runs) > 1 and not any(m.special == "runid" for m in measures)
    runids: set = set()
    for path in args.runs:
        run = evaluate_run(truth, path, measures, opts, args, _run_name(path, taken))
        if args.format == "trec":
            if label_blocks:  # several runs: each block starts with its runid line (the file name if taken)
                runid = run.runid if run.runid not in runids else run.name
                runids.add(runid)
                _write([f"{'runid':<22}\tall\t{runid}\n"])
            _write(format_trec(run, measures, args.per_query))
        runs.append(run)
    if args.format != "trec":
        _write(format_other(runs, measures, args.format, args.per_query, conventions))
    if args.format in ("trec", "csv"):  # layouts other tools parse: the conventions go to stderr, once done
        print(f"rankmeter eval: {conventions}", file=sys.stderr)
    return 0


def _write(lines: Iterable[str]) -> None:
    out = sys.stdout
    for line in lines:
        out.write(line)
    out.flush()


# ----------------------------------------------------------------- rankmeter metrics
def metrics_table() -> str:
    """Every metric with its family, options (defaults first) and definition; then the presets."""
    rows = [("metric", "family", "cutoff", "options=default", "definition")]
    for name, spec in sorted(metrics.SPECS.items()):
        options = []
        for opt, (default, _check) in spec.options.items():
            options.append(f"{opt}={default}")
        rows.append((name, spec.family, "@k" if spec.cutoff else "-", ", ".join(options) or "-", spec.doc))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + "  " + r[4] for r in rows]
    aliases = ", ".join(
        f"{a} = {c}{'(' + ', '.join(f'{k}={v}' for k, v in o.items()) + ')' if o else ''}"
        for a, (c, o) in sorted(metrics._ALIASES.items())
    )
    lines += ["", "aliases: " + aliases]
    lines += [
        "",
        "conventions (evaluate() defaults): "
        + ", ".join(f"{k}={v!r}{_DEFAULT_NOTES.get((k, v), '')}" for k, v in DEFAULTS.items())
        + ", relevant: grade > 0",
        "",
        "presets:",
    ]
    for name, pre in sorted(evaluation_presets.items()):
        lines.append(f"  {name}: {pre.doc}")
    return "\n".join(lines) + "\n"


_DEFAULT_NOTES = {
    ("empty", "skip"): " (users without a relevant item: NaN, left out of the mean)",
    ("missing", "zero"): " (truth users without recs: empty lists)",
}


def _epilog() -> str:
    names = ", ".join(metrics.list())
    return (
        f"metrics: {names}\n"
        "  (name@k, name(option=value)@k; `rankmeter metrics` prints the table with definitions)\n"
        f"presets: none, {', '.join(sorted(evaluation_presets))}\n"
        "trec_eval spellings in -m: P.10, P_10, P.5,10, ndcg_cut.10,20, map_cut.100, recall.20, success.1, "
        "map, ndcg, recip_rank, Rprec, num_rel_ret, num_rel, num_ret, num_q, runid, all_trec, official, and every\n"
        "  other trec_eval measure with its parameters: iprec_at_recall..10,.20, Rprec_mult.0.2, utility.2,-1,0,0, ..."
    )


def _run_name(path: str, taken: set) -> str:
    import os

    base = os.path.basename(path.rstrip("/\\")) or path
    for ext in (".gz", ".parquet", ".txt", ".trec", ".run"):
        if base.endswith(ext) and len(base) > len(ext):
            base = base[: -len(ext)]
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


def _comparison(args):
    from .compare import compare

    _check_file(args.truth, "truth")
    for path in args.runs:
        _check_file(path, "run")
    opts = options_from_args(args, f"rankmeter {args.command}")
    measures = parse_measures(args.metric, opts.preset)
    keys = []
    for m in measures:
        if m.key is None:
            if m.asked:  # asked for by name, not as part of a set (all_trec, official)
                what = (
                    "a count of the run" if m.special in ("runid", "num_q", "num_ret") else "computed by rankmeter eval"
                )
                raise CliError(
                    f"-m {m.label}: compare and report need per-query metrics of the fused pass; {m.label} is {what} "
                    "(rankmeter eval prints it)"
                )
            continue
        keys.append(m.key)
    taken: set = set()
    runs = {_run_name(path, taken): path for path in args.runs}
    return compare(
        args.truth,
        runs,
        list(dict.fromkeys(keys)),
        baseline=args.baseline,
        test=args.test,
        alpha=args.alpha,
        correction=args.correction,
        n_resamples=args.n_resamples,
        seed=args.seed,
        **opts.kwargs(),
    )


def compare_files(args) -> int:
    cmp = _comparison(args)
    fmt = args.format
    if fmt == "table":
        text = repr(cmp)
    elif fmt == "markdown":
        text = cmp.to_markdown()
    elif fmt == "latex":
        text = cmp.to_latex()
    elif fmt == "json":
        text = cmp.to_json()
    else:
        text = cmp.to_html(plots=not args.no_plots)
    if args.per_query:
        text = text.rstrip("\n") + "\n\n" + _per_query_table(cmp)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text if text.endswith("\n") else text + "\n")
    else:
        print(text)
    return 0


def _per_query_table(cmp: Any) -> str:
    """Every run's value of every query, one row per query and one column per (metric, run)."""
    users = np.asarray(cmp.results[cmp.runs[0]].users)
    order = _sort_users(users)
    header = ["query"] + [f"{k} {r}" for k in cmp.metrics for r in cmp.runs]
    rows = [header]
    cols = [np.asarray(cmp.results[r].per_user[k], dtype=np.float64)[order] for k in cmp.metrics for r in cmp.runs]
    for i, u in enumerate(users[order].tolist()):
        rows.append([str(u)] + [_cell(c[i]) for c in cols])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
        for r in rows
    )


def report_files(args) -> int:
    cmp = _comparison(args)
    cmp.to_html(args.output, plots=not args.no_plots, k_max=args.k_max)
    print(f"report written to {args.output}")
    return 0


def _compare_args(p: argparse.ArgumentParser) -> None:
    _shared_args(p, "per-user metrics (at least two runs)")
    p.add_argument(
        "-q", "--per-query", action="store_true", help="also print every run's value of every query (a table)"
    )
    p.add_argument("--test", default="randomization", help="randomization (default), bootstrap, t or wilcoxon")
    p.add_argument("--baseline", default=None, help="compare every run against this one (default: every pair)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level, in (0, 1) (default 0.05)")
    p.add_argument("--correction", default="holm", help="holm (default), bonferroni or none")
    p.add_argument(
        "--n-resamples", type=int, default=10_000, help="resamples of randomization and bootstrap (default 10,000)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the resamples (default 0)")
    p.add_argument("--no-plots", action="store_true", help="HTML without plots")


# trec_eval's short forms and the value names of some option flags
_SHORT_FLAGS = {"max_items": ("-M",), "min_relevance": ("-l",)}
_METAVARS = {"max_items": "N", "min_relevance": "L"}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_option_flags(p: argparse.ArgumentParser) -> None:
    """A flag for every evaluation option, from its one declaration (:class:`EvalOptions`): its help,
    type and allowed values. The context of beyond-accuracy metrics (``--train`` ...) takes Python
    objects: its flags exist only to be refused by name (:func:`options_from_args`). ``eval``, ``compare``
    and ``report`` take the same flags, with the same defaults."""
    for name in OPTION_NAMES:
        meta = option_field(name).metadata
        if meta["cli"] is None:
            p.add_argument(_flag(name), default=None, help=argparse.SUPPRESS)
            continue
        kw: dict[str, Any] = dict(default=None, type=meta["cli"], help=meta["help"])
        if meta["allowed"]:
            kw["choices"] = meta["allowed"]
        if name in _METAVARS:
            kw["metavar"] = _METAVARS[name]
        if name == "preset":
            kw["help"] = (
                "conventions of another tool: trec_eval, ranx, rectools, ... (`rankmeter metrics` lists them); "
                "default: trec_eval for a TREC qrels file, none (rankmeter's own) for tables"
            )
        p.add_argument(*_SHORT_FLAGS.get(name, ()), _flag(name), **kw)


def options_from_args(args: Any, where: str) -> EvalOptions:
    """The evaluation options of parsed command-line arguments, checked once (as every entry point)."""
    kw = {name: getattr(args, name) for name in OPTION_NAMES}
    for name in CONTEXT:
        if kw[name] is not None:
            raise CliError(
                f"{_flag(name)} is not available on the command line: the context of beyond-accuracy metrics "
                f"takes Python objects; pass {name}=... to rankmeter.evaluate"
            )
    if getattr(args, "complete", False):
        if kw["missing"] not in (None, "zero"):
            raise CliError(f"-c is --missing zero; it cannot be combined with --missing {kw['missing']}")
        kw["missing"] = "zero"  # trec_eval -c
    if kw["preset"] is None:
        kw["preset"] = default_preset(args.truth)
    elif kw["preset"] == "none":
        kw["preset"] = None
    return EvalOptions.from_kwargs(where, **kw)


def default_preset(truth_path: str) -> Optional[str]:
    """The conventions when ``--preset`` is not given follow the input kind: a TREC qrels file is read with
    trec_eval's (what trec_eval users expect of it), a table (parquet, CSV) with rankmeter's own."""
    return "trec_eval" if classify(truth_path) == "trec" else None


def _shared_args(p: argparse.ArgumentParser, metric_help: str) -> None:
    """The arguments eval, compare and report share: truth, runs, -m, every option flag, -c and -q."""
    p.add_argument("truth", help="qrels: a TREC qrels file, a parquet file/directory or a CSV file")
    p.add_argument("runs", nargs="+", metavar="RECS", help="runs: TREC run files, parquet files/directories or CSV")
    p.add_argument(
        "-m",
        "--metric",
        nargs="+",
        action="extend",
        required=True,
        help=metric_help + ": rankmeter names (ndcg@10 map@100), comma lists (ndcg@10,20) or trec_eval spellings "
        "(P.10, P_10, ndcg_cut.10,20, map_cut.100, all_trec)",
    )
    add_option_flags(p)
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="qrels queries without results count as empty lists (trec_eval -c; the same as --missing zero)",
    )


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def _eval_args(p: argparse.ArgumentParser) -> None:
    _shared_args(p, "metrics")
    p.add_argument("-q", "--per-query", action="store_true", help="values of every query, then the `all` lines")
    p.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="trec_eval -J: drop the documents without a qrels row or with a negative grade (after -M); the "
        "rest move up",
    )
    p.add_argument(
        "-N",
        "--num-docs",
        type=_non_negative_int,
        default=0,
        metavar="N",
        help="trec_eval -N: the number of documents in the collection, for utility (default 0)",
    )
    p.add_argument(
        "-R",
        "--rel-format",
        default="qrels",
        metavar="FORMAT",
        help="trec_eval -R: the format of the truth file; qrels (the default, the only one read: trec_eval's "
        "qrels_jg and prefs formats hold judgment groups and preferences, which rankmeter does not evaluate)",
    )
    p.add_argument(
        "--format", choices=FORMATS, default="trec", help="trec (default: trec_eval's layout), table, json, csv"
    )
    p.add_argument("--stream", action="store_true", help="stream the runs in batches of whole users")
    p.add_argument("--no-stream", action="store_true", help="never stream")
    p.add_argument(
        "--memory",
        default=None,
        metavar="SIZE",
        help="stream a parquet/CSV run whose rows would take more than SIZE in memory (800M, 4G; default: a "
        "quarter of the available memory, at most 1G)",
    )
    p.add_argument(
        "--stream-truth",
        action="store_true",
        help="stream the truth alongside the runs too (both sorted by user id); default: when it is above 1 GiB",
    )
    p.add_argument("--batch-rows", type=int, default=1_000_000, help="rows per streamed batch (1,000,000)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar when streaming")


# ---- rankmeter cwl: cwl-eval's command line (docs/metrics.md 8.11)

# cwl-eval's metric classes: (rankmeter metric, its printed name, the class's parameters and defaults)
_CWL_CLASSES: dict = {
    "PrecisionCWLMetric": ("cwl_p", "P@{0}", (10,)),
    "RBPCWLMetric": ("cwl_rbp", "RBP@{0}", (0.9,)),
    "NDCGCWLMetric": ("sdcg", "NDCG-k@{0}", (None,)),
    "RRCWLMetric": ("cwl_rr", "RR", ()),
    "APCWLMetric": ("cwl_ap", "AP", ()),
    "INSTCWLMetric": ("inst", "INST-T={0}", (1.0,)),
    "INSQCWLMetric": ("insq", "INSQ-T={0}", (1.0,)),
    "BPMCWLMetric": ("bpm", "BPM-Static-T={0}-K={1}", (1.0, 10)),
    "BPMDCWLMetric": ("bpm_dynamic", "BPM-Dynamic-T={0}-K={1}-hb={2}-hc={3}", (1, 10, 1.0, 1.0, 0.5)),
    "NERReq8CWLMetric": ("nerr8", "NERR-EQ8@k={0}", (None,)),
    "NERReq9CWLMetric": ("nerr9", "NERR-EQ9@k={0}", (None,)),
    "NERReq10CWLMetric": ("nerr10", "NERR-EQ10@phi={0}", (0.9,)),
    "NERReq11CWLMetric": ("nerr11", "NERR-EQ11@T={0}", (1.0,)),
    "UMeasureCWLMetric": ("umeasure", "U-L@{0} ", (1000,)),
    "TBGCWLMetric": ("tbg", "TBG-H@{0} ", (224,)),
}
# cwl-eval's default metric set (no -m file)
_CWL_DEFAULT = (
    [("PrecisionCWLMetric", (k,)) for k in (1, 2, 3, 4, 5, 10)]
    + [("RBPCWLMetric", (p,)) for p in (0.2, 0.4, 0.8)]
    + [("NDCGCWLMetric", (5,)), ("NDCGCWLMetric", (10,)), ("RRCWLMetric", ()), ("APCWLMetric", ())]
    + [("INSTCWLMetric", (t,)) for t in (1.0, 2.0, 3.0)]
)


def _cwl_metric(cls: str, args: tuple, depth: int, max_gain: float, cost: tuple = (1.0, 1.0, False)) -> tuple:
    """(printed name, rankmeter metric without its quantity) of one cwl-eval metric class with its arguments;
    ``cost``: (max_cost, min_cost, whether items may cost other than 1)."""
    if cls not in _CWL_CLASSES:
        raise ValueError(f"cwl metric class {cls!r} is not computed by rankmeter (known: {', '.join(_CWL_CLASSES)})")
    name, label, defaults = _CWL_CLASSES[cls]
    if len(args) > len(defaults):
        raise ValueError(f"{cls} takes at most {len(defaults)} arguments, got {len(args)}")
    vals = list(args) + list(defaults[len(args) :])
    if any(v is None for v in vals):
        raise ValueError(f"{cls} needs its cutoff k")
    opts = [f"depth={depth}", f"max_gain={max_gain!r}"]
    if cost[0] != 1.0 or cost[1] != 1.0:
        opts += [f"max_cost={cost[0]!r}", f"min_cost={cost[1]!r}"]
    k = None
    if name in ("cwl_p", "sdcg", "nerr8", "nerr9"):
        k = int(vals[0])
        if name == "cwl_p" and k > depth + 1:  # cwl-eval's vectors no longer align there: it stops
            raise ValueError(f"{label.format(*vals)}: k = {k} is more than --max_depth + 1 = {depth + 1}")
    elif name in ("cwl_rbp", "nerr10"):
        opts.append(f"p={float(vals[0])!r}")
    elif name in ("inst", "insq", "nerr11"):
        opts.append(f"t={float(vals[0])!r}")
    elif name in ("bpm", "bpm_dynamic"):
        # the cost so far (i items) must stay below K: the cutoff ceil(K); with costs, the cutoff is the
        # cost limit K itself
        opts.append(f"t={float(vals[0])!r}")
        if cost[2] and not (float(vals[1]) == int(vals[1]) and vals[1] >= 1):
            raise ValueError(
                f"{label.format(*vals)}: with costs, BPM's cost limit K must be a whole number >= 1 (rankmeter's "
                f"cutoff @K), got {vals[1]!r}"
            )
        k = max(1, math.ceil(vals[1]))
        if name == "bpm_dynamic":  # hc has no effect in cwl-eval (docs/metrics.md 3.21.9)
            opts += [f"hb={float(vals[2])!r}", f"gain_med={float(vals[4])!r}"]
    elif name == "umeasure":
        opts.append(f"l={float(vals[0])!r}")
    elif name == "tbg":
        opts.append(f"halflife={float(vals[0])!r}")
    return label.format(*vals), f"{name}({','.join(opts)}" + "{q})" + (f"@{k}" if k else "")


def _cwl_metrics_file(path: str) -> list:
    """cwl-eval's -m file: one ``ClassName(arg, ...)`` a line; an argument with a '.' is a float, else an int."""
    out = []
    with open(path) as f:
        for line in f:
            text = line.strip()
            if not text:
                continue
            m = re.fullmatch(r"(\w+)\((.*)\)", text)
            if not m:
                raise ValueError(f"{path}: cannot read the metric line {text!r}; expected ClassName(arg, ...)")
            args = tuple(
                float(a) if "." in a else int(a) for a in (x.strip() for x in m.group(2).split(",")) if a != ""
            )
            out.append((m.group(1), args))
    return out


def cwl_files(args: Any) -> int:
    """``rankmeter cwl GAIN_FILE RESULT_FILE``: cwl-eval's output, line for line (docs/metrics.md 8.11)."""
    import pandas as pd

    from .evaluation._costs import read_cost_file

    max_cost, min_cost = float(args.max_cost), float(args.min_cost)
    cost_types = read_cost_file(args.cost_file) if args.cost_file else None
    qrels = pd.read_csv(args.gain_file, sep=r"\s+", header=None, dtype=str, usecols=[0, 2, 3], engine="python")
    qrels.columns = ["topic", "doc", "gain"]
    qrels["gain"] = qrels["gain"].astype(np.float64)
    qrels = qrels.drop_duplicates(["topic", "doc"], keep="last")  # cwl-eval's dict keeps the last line
    bad = (qrels["gain"] > args.max_gain) | (qrels["gain"] < 0.0)
    if bad.any():
        g = float(qrels["gain"][bad].iloc[0])
        raise ValueError(
            f"{args.gain_file}: a gain value ({g}) outside [0, {args.max_gain}] (cwl-eval refuses the gain file)"
        )
    run = pd.read_csv(args.result_file, sep=r"\s+", header=None, dtype=str, usecols=[0, 1, 2], engine="python")
    run.columns = ["topic", "etype", "doc"]
    if run.empty:
        raise ValueError(f"{args.result_file}: no result line")
    # cwl-eval measures each run of consecutive lines of one topic as a ranking, in file order
    topic = run["topic"].to_numpy(dtype=object)
    starts = np.concatenate([[True], topic[1:] != topic[:-1]])
    block = np.cumsum(starts) - 1
    run["user_id"] = block
    run["rank"] = np.arange(len(run)) - np.flatnonzero(starts)[block] + 1
    blocks = pd.DataFrame({"user_id": np.arange(int(block[-1]) + 1), "topic": topic[starts]})
    truth = blocks.merge(qrels, on="topic")[["user_id", "doc", "gain"]]
    costs = None
    if cost_types is not None:
        # cwl-eval costs each line by its element type (the run's second column; a type the cost file does not
        # name: no cost). A document repeated in a ranking may have another type there: each repeat becomes a
        # document of its own (a tab never occurs in a whitespace-split id) judged as the document is.
        occ = run.groupby(["user_id", "doc"], sort=False).cumcount().to_numpy()
        if (occ > 0).any():
            rep = occ > 0
            renamed = run["doc"].to_numpy(dtype=object).copy()
            renamed[rep] = [f"{d}\t{o}" for d, o in zip(renamed[rep].tolist(), occ[rep].tolist())]
            extra = run.loc[rep, ["user_id", "doc"]].assign(new=renamed[rep]).merge(truth, on=["user_id", "doc"])
            truth = pd.concat([truth, extra[["user_id", "new", "gain"]].rename(columns={"new": "doc"})])
            run["doc"] = renamed
        cost = run["etype"].map(cost_types).to_numpy(dtype=np.float64)
        has = ~np.isnan(cost)
        costs = pd.DataFrame({"user_id": run["user_id"][has], "doc": run["doc"][has], "cost": cost[has]})
    spec = _cwl_metrics_file(args.metrics_file) if args.metrics_file else _CWL_DEFAULT
    unit = cost_types is None and max_cost == 1.0 and min_cost == 1.0
    named = [_cwl_metric(c, a, args.max_depth, args.max_gain, (max_cost, min_cost, not unit)) for c, a in spec]
    qs = ("eu", "etu", "ec", "etc", "ed") + (
        ("res_eu", "res_etu", "res_ec", "res_etc", "res_ed") if args.residuals else ()
    )
    asked = [m.format(q=f",quantity={q}") for _n, m in named for q in qs]
    res = evaluate(
        truth,
        run[["user_id", "doc", "rank"]],
        list(dict.fromkeys(asked)),
        preset="cwl",
        item_col="doc",
        relevance_col="gain",
        rank_col="rank",
        costs=costs,
    )
    order = np.argsort(np.asarray(res.users, dtype=np.int64), kind="stable")
    n_b = len(blocks)
    cols: dict = {"topic": np.repeat(blocks["topic"].to_numpy(dtype=object), len(named))}
    cols["metric"] = np.tile(np.array([n for n, _m in named], dtype=object), n_b)
    for q in qs:
        vals = np.stack([np.asarray(res.per_user[m.format(q=f",quantity={q}")])[order] for _n, m in named], axis=1)
        cols[q] = vals.reshape(-1)
    out = pd.DataFrame(cols)
    if args.colnames:
        head = "Topic\tMetric\tEU\tETU\tEC\tETC\tED" + (
            "\tResEU\tResETU\tResEC\tResETC\tResED" if args.residuals else ""
        )
        sys.stdout.write(head + "\n")
    sys.stdout.write(out.to_csv(sep="\t", header=False, index=False, float_format="%.4f", lineterminator="\n"))
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # `rankmeter metrics | head -2`: the reader left; end quietly (no message, no flush error at exit)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a C tool killed by the signal reports


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``rankmeter`` command and its subcommands (docs/cli.md describes every flag)."""
    epilog = _epilog()
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="rankmeter", description="Fast, exact offline evaluation of rankings.", epilog=epilog, formatter_class=fmt
    )
    parser.add_argument("--version", action="version", version=f"rankmeter {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("demo", help="evaluate the standard workload W1 and compare with a Python loop")
    p.add_argument("--users", type=int, default=1_000_000, help="users in the workload (default 1,000,000)")
    p.add_argument("--threads", type=int, default=None, help="threads (default: RANKMETER_NUM_THREADS, else all cores)")
    p.add_argument("--loop-users", type=int, default=10_000, help="users timed in the Python loop (default 10,000)")
    p.add_argument("--repeats", type=int, default=3, help="timed evaluate() calls (median reported; default 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the workload (default 0)")

    p = sub.add_parser(
        "eval",
        help="evaluate runs against qrels (trec_eval's output layout)",
        description="Evaluate one or more runs (TREC run files, parquet files/directories, CSV) against a truth, "
        "printed in trec_eval's layout (measure<TAB>query<TAB>value) or as a table, JSON or CSV.",
        epilog=epilog,
        formatter_class=fmt,
    )
    _eval_args(p)

    sub.add_parser(
        "metrics", help="print the metric table with conventions and presets", epilog=epilog, formatter_class=fmt
    )

    p = sub.add_parser(
        "compare", help="compare runs with paired significance tests", epilog=epilog, formatter_class=fmt
    )
    _compare_args(p)
    p.add_argument(
        "--format",
        choices=("table", "markdown", "latex", "html", "json"),
        default="table",
        help="output layout (default table)",
    )
    p.add_argument("-o", "--output", default=None, help="write here instead of printing")

    p = sub.add_parser(
        "report", help="one self-contained HTML report comparing runs", epilog=epilog, formatter_class=fmt
    )
    _compare_args(p)
    p.add_argument(
        "-o", "--output", default="rankmeter-report.html", help="the HTML file (default rankmeter-report.html)"
    )
    p.add_argument("--k-max", type=int, default=20, help="largest cutoff of the curves (default 20)")

    p = sub.add_parser(
        "ndeval",
        help="ndeval's diversity measures (alpha-nDCG, ERR-IA, NRBP, ...) in ndeval's output",
        description="Evaluate a run against subtopic qrels ('topic subtopic doc judgment') and print what ndeval "
        "(TREC Web track, version 4.5) prints (docs/metrics.md 3.20).",
        epilog=epilog,
        formatter_class=fmt,
    )
    p.add_argument("qrels", help="ndeval's qrels: topic subtopic doc judgment")
    p.add_argument("run", help="a TREC run: topic Q0 doc rank score runid")
    p.add_argument("-alpha", type=float, default=0.5, help="redundancy intolerance (default 0.5)")
    p.add_argument("-beta", type=float, default=0.5, help="patience of NRBP (default 0.5)")
    p.add_argument("-traditional", action="store_true", help="rank by score, then docno (default: by rank)")
    p.add_argument("-M", type=int, default=0, dest="depth", help="cut the run at this depth")
    p.add_argument("-c", action="store_true", dest="complete", help="average over every qrels topic")

    p = sub.add_parser(
        "cwl",
        help="the C/W/L metrics as cwl-eval prints them (cwl-eval's command line)",
        description="cwl-eval's output for a gain file (TREC qrels, gains in [0, 1]) and a TREC result file read "
        "in file order: per topic and metric EU, ETU, EC, ETC, ED (and the residuals with -r).",
        epilog=epilog,
        formatter_class=fmt,
    )
    p.add_argument("gain_file", help="TREC qrels whose relevance column is the gain, in [0, 1]")
    p.add_argument("result_file", help="TREC result file: topic element_type doc rank score run (file order counts)")
    p.add_argument(
        "-c",
        "--cost_file",
        default=None,
        help="element_type cost a line: each result line costs its element type's cost (default: every one 1)",
    )
    p.add_argument("-m", "--metrics_file", default=None, help="one ClassName(args) a line (default: cwl-eval's set)")
    p.add_argument("-n", "--colnames", action="store_true", help="print the column names first")
    p.add_argument("-r", "--residuals", action="store_true", help="print the residuals too")
    p.add_argument("--max_gain", type=float, default=1.0, help="the gain of an unjudged document in the residuals")
    p.add_argument("--max_depth", type=int, default=1000, help="positions of every ranking (default 1000)")
    p.add_argument("--max_cost", type=float, default=1.0, help="the cost of a document without one (default 1.0)")
    p.add_argument(
        "--min_cost",
        type=float,
        default=1.0,
        help="the cost of a document without one in the residuals' best case (default 1.0)",
    )
    return parser


def _main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            if args.users < 1:
                parser.error("--users must be >= 1")
            return demo(args.users, args.threads, args.loop_users, args.repeats, args.seed)
        if args.command == "eval":
            return eval_files(args)
        if args.command == "compare":
            return compare_files(args)
        if args.command == "report":
            return report_files(args)
        if args.command == "ndeval":
            from .compat.ndeval import ndeval

            sys.stdout.write(
                ndeval(
                    args.qrels,
                    args.run,
                    alpha=args.alpha,
                    beta=args.beta,
                    traditional=args.traditional,
                    depth=args.depth,
                    complete=args.complete,
                )
            )
            return 0
        if args.command == "cwl":
            return cwl_files(args)
        _write([metrics_table()])
        return 0
    except BrokenPipeError:
        raise
    except (ValueError, TypeError, OSError, KeyError) as e:
        msg = " ".join(str(e).split()) if not isinstance(e, KeyError) else str(e.args[0] if e.args else e)
        if isinstance(e, FileNotFoundError) and e.filename:
            msg = f"{e.filename}: no such file or directory"
        print(f"rankmeter: error: {msg}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"rankmeter: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
