"""ndeval (the TREC Web track's novelty and diversity evaluation, version 4.5) on rankmeter's subtopic metrics.

Before::

    ndeval -c qrels.diversity run.txt

After::

    rankmeter ndeval -c qrels.diversity run.txt

or, from Python, ``rankmeter.compat.ndeval.ndeval("qrels.diversity", "run.txt", complete=True)``, which returns
the text ndeval prints: a CSV of ERR-IA@5,10,20, nERR-IA, alpha-DCG, alpha-nDCG, NRBP, nNRBP, MAP-IA, P-IA and
strec for every topic of the run, then the ``amean`` row. The measures are rankmeter's ``err_ia``,
``nerr_ia``, ``alpha_dcg``, ``alpha_ndcg``, ``nrbp``, ``nnrbp``, ``map_ia``, ``p_ia`` and ``strec``
(docs/metrics.md 3.20); this module reads the files as ndeval does and prints as ndeval prints:

- qrels lines ``topic subtopic doc judgment`` (natural numbers but the doc; a judgment above 1 counts as 1);
- run lines ``topic Q0 doc rank score runid`` (a topic may carry a prefix ending in ``-``, as ``wt09-1``; the
  runid of the first line names the run); ranked by the rank column, or with ``traditional`` by score, equal
  scores by docno descending (``strcmp``); ``depth``: ndeval's ``-M``; a repeated rank or docno in a topic
  raises ValueError, where ndeval exits;
- one row per run topic in ascending topic order (a topic without qrels: zeros), values with 6 decimals, NaN
  as ``-nan`` (nNRBP of a topic without a relevant subtopic is 0 / 0); the ``amean`` row is each column's
  total over the printed rows divided by the number of topics of both the qrels and the run (``complete``,
  ndeval's ``-c``: of the qrels).

Not reproduced: the risk-sensitive evaluation (``-baseline``, ``-riskAlpha``), ndeval's exit messages.
"""

from __future__ import annotations

import math
import os
from typing import Any

__all__ = ["COLUMNS", "ndeval"]

COLUMNS = (
    "ERR-IA@5", "ERR-IA@10", "ERR-IA@20", "nERR-IA@5", "nERR-IA@10", "nERR-IA@20",
    "alpha-DCG@5", "alpha-DCG@10", "alpha-DCG@20", "alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20",
    "NRBP", "nNRBP", "MAP-IA", "P-IA@5", "P-IA@10", "P-IA@20", "strec@5", "strec@10", "strec@20",
)  # fmt: skip
_NAMES = {"ERR-IA": "err_ia", "nERR-IA": "nerr_ia", "alpha-DCG": "alpha_dcg", "alpha-nDCG": "alpha_ndcg",
          "P-IA": "p_ia", "strec": "strec"}  # fmt: skip
_LARGE_ENOUGH = 100000


def _natural(s: str) -> int:
    """ndeval's naturalNumber: digits only, else -1 (a value past its limit too)."""
    if not s or not s.isascii() or not s.isdigit():
        return -1
    value = 0
    for ch in s:
        if value > _LARGE_ENOUGH:
            return -1
        value = 10 * value + ord(ch) - 48
    return value


def _topic(s: str) -> int:
    """ndeval's parseTopic: a number, or the number after the first '-' (``wt09-1``)."""
    if s[:1].isdigit():
        return _natural(s)
    i = s.find("-")
    return _natural(s[i + 1 :]) if i >= 0 else -1


def _lines(path: Any) -> list:
    with open(os.fspath(path), encoding="utf-8", errors="surrogateescape") as f:
        return f.read().splitlines()


def _read_qrels(path: Any) -> list:
    rows = []
    lines = _lines(path)
    if not lines:
        raise ValueError(f'qrel file "{os.fspath(path)}" is empty')
    for no, line in enumerate(lines, 1):
        a = line.split()
        if len(a) < 4 or min(_natural(a[0]), _natural(a[1]), _natural(a[3])) < 0:
            raise ValueError(f'syntax error in qrel file "{os.fspath(path)}" at line {no}')
        rows.append((_natural(a[0]), _natural(a[1]), a[2], min(_natural(a[3]), 1)))
    return rows


def _read_run(path: Any, traditional: bool, depth: int) -> tuple[str, dict]:
    lines = _lines(path)
    if not lines:
        raise ValueError(f'run file "{os.fspath(path)}" is empty')
    runid = None
    by_topic: dict = {}
    for no, line in enumerate(lines, 1):
        a = line.split()
        if len(a) < 6 or _topic(a[0]) < 0 or _natural(a[3]) < 0:
            raise ValueError(f'syntax error in run file "{os.fspath(path)}" at line {no}')
        if runid is None:
            runid = a[5]
        try:
            score = float(a[4])
        except ValueError:
            score = 0.0
        by_topic.setdefault(_topic(a[0]), []).append((_natural(a[3]), score, a[2]))
    out = {}
    for t in sorted(by_topic):
        docs = by_topic[t]
        if traditional:  # score descending, then docno descending (byte order), ranks 1..n
            docs = sorted(docs, key=lambda r: r[2].encode("utf-8", "surrogateescape"), reverse=True)
            docs = sorted(docs, key=lambda r: -r[1])
            docs = [(i + 1, s, d) for i, (_r, s, d) in enumerate(docs)]
        docs = sorted(docs, key=lambda r: r[0])
        for x, y in zip(docs, docs[1:]):
            if x[0] == y[0]:
                raise ValueError(f'duplicate rank ({x[0]}) for topic {t} in run file "{os.fspath(path)}"')
        if depth > 0:
            docs = docs[:depth]
        names = [d for _r, _s, d in docs]
        if len(set(names)) != len(names):
            seen: set = set()
            dup = next(d for d in names if d in seen or seen.add(d))  # type: ignore[func-returns-value]
            raise ValueError(f'duplicate docno ({dup}) for topic {t} in run file "{os.fspath(path)}"')
        out[t] = names
    return runid or "", out


def _fmt(x: float) -> str:
    return "-nan" if math.isnan(x) else f"{x:.6f}"


def ndeval(
    qrels: Any,
    run: Any,
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    traditional: bool = False,
    depth: int = 0,
    complete: bool = False,
    threads: Any = None,
) -> str:
    """The text ndeval prints for ``qrels`` and ``run`` (file paths), with its options ``-alpha``, ``-beta``,
    ``-traditional``, ``-M depth`` and ``-c`` (``complete``)."""
    import rankmeter as rm

    if not 0.0 <= alpha <= 1.0 or not 0.0 <= beta <= 1.0:
        raise ValueError(f"`alpha` and `beta` must be in [0, 1], got {alpha!r} and {beta!r}")
    if depth < 0:
        raise ValueError(f"`depth` must be > 0 (0: no cutoff), got {depth!r}")
    rows = _read_qrels(qrels)
    runid, lists = _read_run(run, traditional, depth)
    truth: dict = {}
    for t, _s, d, g in rows:
        docs = truth.setdefault(t, {})
        docs[d] = max(docs.get(d, 0), g)
    scored = [t for t in lists if t in truth]
    metrics: dict = {}
    for col in COLUMNS:
        if "@" in col:
            name, k = col.split("@")
            opt = f"(alpha={alpha!r})" if name in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") else ""
            metrics[col] = f"{_NAMES[name]}{opt}@{k}"
    metrics["NRBP"] = f"nrbp(alpha={alpha!r},beta={beta!r})"
    metrics["nNRBP"] = f"nnrbp(alpha={alpha!r},beta={beta!r})"
    metrics["MAP-IA"] = "map_ia"
    values: dict = {}
    if scored:
        res = rm.evaluate(
            {t: truth[t] for t in scored},
            {t: lists[t] for t in scored},
            list(dict.fromkeys(metrics.values())),
            subtopics=[(t, s, d, g) for t, s, d, g in rows if t in lists],
            min_relevance=1,
            threads=threads,
        )
        users = res.users.tolist()
        per = {col: res.per_user[name].tolist() for col, name in metrics.items()}
        values = {t: [per[col][i] for col in COLUMNS] for i, t in enumerate(users)}
    out = ["runid,topic," + ",".join(COLUMNS)]
    totals = [0.0] * len(COLUMNS)
    for t in lists:  # every run topic, ascending; one without qrels scores 0
        vals = values.get(t, [0.0] * len(COLUMNS))
        out.append(f"{runid},{t}," + ",".join(map(_fmt, vals)))
        totals = [a + b for a, b in zip(totals, vals)]
    n = len({t for t, *_ in rows}) if complete else len(scored)
    mean = [a / n if n else math.nan for a in totals]
    out.append(f"{runid},amean," + ",".join(map(_fmt, mean)))
    return "\n".join(out) + "\n"
