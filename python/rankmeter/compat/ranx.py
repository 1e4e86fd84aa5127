"""``ranx.evaluate``, ``Qrels`` and ``Run`` on rankmeter's fused pass.

Before::

    from ranx import Qrels, Run, evaluate
    evaluate(Qrels(qrels), Run(run), ["ndcg@10", "map@100", "rbp.95"])

After::

    from rankmeter.compat.ranx import Qrels, Run, evaluate
    evaluate(Qrels(qrels), Run(run), ["ndcg@10", "map@100", "rbp.95"])

``qrels`` and ``run`` are ranx ``Qrels``/``Run`` objects (this module's or
ranx's own: anything with ``to_dict()``), plain dicts ``{query: {doc: value}}``
or ranx's low-level form (a 3-D array or a list of ``n x 2`` arrays of
``[doc id, value]`` rows, lists already ranked). The metric strings are ranx's:
``hits``, ``hit_rate``, ``precision``, ``recall``, ``f1``, ``r-precision``,
``mrr``, ``map``, ``dcg``, ``dcg_burges``, ``ndcg``, ``ndcg_burges``,
``bpref`` with an optional ``@k``, ``rbp.95`` (persistence 0.95; also
``rbp@95``), and an optional ``-lL`` suffix for ``rel_lvl=L``. One metric gives
a value, several a dict ``{metric: value}`` (``return_mean=False``: per-query
arrays; ``return_std=True``: ``{"mean", "std"}``); with a ``Run`` and
``save_results_in_run=True`` the per-query values go to ``run.scores``, the
means to ``run.mean_scores`` and (``return_std=True``) the standard deviations
to ``run.std_scores``.

The numbers are ranx 0.3's on any data (docs/metrics.md, "ranx"):

- queries are paired by position, as ranx pairs them: a plain dict in its own
  order, a ``Qrels``/``Run`` sorted by query id (``make_comparable=True``, with
  two objects, first adds the run's missing queries and drops its extra ones);
  two dicts listing the same queries in different orders are paired as ranx
  pairs them, query i of the qrels with query i of the run;
- equal scores are ordered with numba's quicksort as ranx reaches it (a dict
  run: ``ties="ranx_dict"``; a ``Run``: its own sorted order, sorted once more
  by ``make_comparable=True`` or when the ``Run`` was filled by ``add_score``);
- ``bpref`` is NaN for a query with relevant documents retrieved and no judged
  non-relevant one (ranx's 0/0), and ranx's parallel bpref kernel stops at a
  query without a relevant document: that query and every later query of the
  same numba thread's share of the queries score 0. The thread count is the one
  ranx leaves numba with: 1 once a call had fewer than 10 queries, ``threads``
  when given, else numba's default (``NUMBA_NUM_THREADS`` or the usable CPUs);
  this module keeps that state across its calls as ranx does in a process.

``fuse(runs, norm, method, params)`` and ``optimize_fusion(qrels, runs, norm, method, metric, ...)`` are
ranx's rank fusion on :func:`rankmeter.fuse` (docs/fusion.md: every method and normalisation; where ranx's own
result depends on a Python set's order, equality holds on the queries where it does not);
``rankmeter.compat.ranx.fusion`` holds ranx's training functions (``probfuse_train``, ``posfuse_train``,
``slidefuse_train``, ``segfuse_train``, ``bayesfuse_train``, ``mapfuse_train``, docs/fusion.md "Training"),
which ``optimize_fusion`` of the trained methods uses as ranx does.

Like ranx, ``evaluate`` writes into a ``Run`` it is given: ``make_comparable``
and the sort of an unsorted ``Run`` change its queries and order, and
``save_results_in_run`` its ``scores``/``mean_scores``/``std_scores``.
Not reproduced: ranx identifies documents by ``float(hash(id))``, so distinct
int ids of 2**53 and more whose hashes round to the same float are one
document for ranx; they stay distinct here.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import sys
import types
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Union

import numpy as np

import rankmeter as _rm

from .. import _core
from ..inputs import ranx_order

__all__ = ["Qrels", "Run", "evaluate", "fuse", "optimize_fusion", "OptimizationReport", "get_file_kind", "to_rankmeter"]

_PLAIN = {
    "hits": "hits",
    "hit_rate": "hit_rate",
    "precision": "precision",
    "recall": "recall",
    "f1": "f1",
    "mrr": "rr",
    "map": "ap",
    "dcg": "dcg",
    "dcg_burges": "dcg(gain=exponential)",
    "ndcg": "ndcg",
    "ndcg_burges": "ndcg(gain=exponential)",
}
_UNSUPPORTED = (
    "Metric {} not supported. Supported metrics are `hits`, `hit_rate`, `precision`, `recall`, `f1`, "
    "`r-precision`, `mrr`, `map`, `ndcg`, and `ndcg_burges`."
)
_KEYS_ERROR = (
    "Qrels and Run query ids do not match. Pass `make_comparable=True` to add empty results for queries missing "
    "from the run and remove those not appearing in qrels."
)
# metrics whose value reads |R| or the ideal ranking (low-level array qrels must hold each document once)
_READS_ALL_QRELS = ("recall", "f1", "ap", "r_precision", "ndcg", "bpref")


def to_rankmeter(metric: str) -> tuple[str, int]:
    """A ranx metric string -> (rankmeter metric under preset='ranx', rel_lvl)."""
    if not isinstance(metric, str):
        raise AssertionError("Metrics error")
    rel_lvl = 1
    m = metric
    if "-l" in m:
        m, lvl = m.split("-l")
        rel_lvl = int(lvl)
    if "rbp" in m:
        if "." in m:
            base, p_text = m.split(".")[:2]
        elif "@" in m:
            base, p_text = m.split("@")[:2]
        else:
            raise ValueError("RBP requires persistence value. Example: `rpb.95`")
        p = float(f"0.{p_text}")
        if base != "rbp":
            raise ValueError(_UNSUPPORTED.format(base))
        # p = 0: (1 - 0) * grade of the first document, the cumulative gain at 1
        return ("cg@1" if p == 0.0 else f"rbp(p={p!r})"), rel_lvl
    parts = m.split("@")
    base = parts[0]
    k = int(parts[1]) if len(parts) > 1 else 0
    if base == "bpref":
        return "bpref", rel_lvl  # ranx ignores k for bpref
    if base == "r-precision":
        return "r_precision", rel_lvl  # and for r-precision
    if base not in _PLAIN:
        raise ValueError(_UNSUPPORTED.format(base))
    if k < 0:
        raise AssertionError("k must be grater or equal to 0")
    return _PLAIN[base] + (f"@{k}" if k > 0 else ""), rel_lvl


# ---------------------------------------------------------------------------------------------------------------
# numba's thread count as ranx leaves it (ranx.evaluate calls numba.set_num_threads, which stays in effect)
_NUMBA_THREADS: list = [None]


def _numba_default_threads() -> int:
    env = os.environ.get("NUMBA_NUM_THREADS", "").strip()
    if env:
        return max(1, int(env))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _set_numba_threads(n_queries: int, threads: int) -> int:
    if n_queries < 10:
        _NUMBA_THREADS[0] = 1
    elif threads != 0:
        top = _numba_default_threads()
        if not 1 <= threads <= top:
            raise ValueError(f"The number of threads must be between 1 and {top}")
        _NUMBA_THREADS[0] = threads
    return _NUMBA_THREADS[0] or _numba_default_threads()


def _thread_chunks(n: int, n_threads: int) -> list[tuple[int, int]]:
    """numba's static schedule of a prange over n iterations (gufunc_scheduler: one contiguous share per thread,
    the share of thread i = ceil(remaining / threads left))."""
    if n <= n_threads:
        return [(i, i + 1) for i in range(n)]
    out, cur = [], 0
    for i in range(n_threads):
        step = (n - cur - 1) // (n_threads - i) + 1
        end = n if i == n_threads - 1 else cur + step
        out.append((cur, end))
        cur += step
    return out


# ---------------------------------------------------------------------------------------------------------------
class _Store:
    """ranx's Qrels/Run: {query: {doc: value}}, queries sorted by id and documents by value (numba's quicksort,
    as ranx sorts them) once sorted."""

    _dtype: Any = float

    def __init__(self, data: Optional[Mapping] = None, name: Optional[str] = None):
        self._data: dict = {}
        self.sorted = False
        self.name = name
        if data is not None:
            self._data = self._from_mapping(data)
            self.sort()

    def _from_mapping(self, data: Mapping) -> dict:
        if not isinstance(data, Mapping):
            raise TypeError(f"{type(self).__name__} takes a dict {{query: {{doc: value}}}}, got {type(data).__name__}")
        if not any(len(docs) for docs in data.values()):
            raise ValueError(f"{type(self).__name__} needs at least one (query, document) pair")
        bad = next((d for docs in data.values() for d in docs if not isinstance(d, str)), None)
        if bad is not None:
            raise TypeError(f"{type(self).__name__} document ids must be strings (as in ranx), got {bad!r}")
        out = {}
        for q, docs in data.items():
            values = np.asarray(list(docs.values()), dtype=self._dtype)  # ranx: int grades, float scores
            out[q] = dict(zip(docs.keys(), values.tolist()))
        return out

    # -- ranx's API
    def keys(self):
        return self._data.keys()

    def add_score(self, q_id: Any, doc_id: Any, score: Any) -> None:
        self._data.setdefault(q_id, {})[doc_id] = self._dtype(score)
        self.sorted = False

    def add(self, q_id: Any, doc_ids: list, scores: list) -> None:
        self.add_multi([q_id], [doc_ids], [scores])

    def add_multi(self, q_ids: list, doc_ids: list, scores: list) -> None:
        for q, docs, vals in zip(q_ids, doc_ids, scores):
            self._data[q] = dict(zip(docs, (self._dtype(v) for v in vals)))
        self.sort()

    def get_query_ids(self) -> list:
        return list(self._data.keys())

    def get_doc_ids_and_scores(self) -> list:
        return [dict(d) for d in self._data.values()]

    def sort(self) -> None:
        """Queries by id; each query's documents by value descending, equal values in numba's quicksort order."""
        keys = sorted(self._data)
        lens = np.fromiter((len(self._data[q]) for q in keys), dtype=np.int64, count=len(keys))
        indptr = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        docs = [d for q in keys for d in self._data[q]]
        vals = np.fromiter((v for q in keys for v in self._data[q].values()), dtype=np.float64, count=len(docs))
        order = ranx_order(indptr, vals, "ranx").tolist() if docs else []
        new = {}
        for i, q in enumerate(keys):
            lo, hi = int(indptr[i]), int(indptr[i + 1])
            new[q] = {docs[j]: self._data[q][docs[j]] for j in order[lo:hi]}
        self._data = new
        self.sorted = True

    def to_dict(self) -> dict:
        out: dict = defaultdict(dict)
        for q, d in self._data.items():
            out[q] = dict(d)
        return out

    def to_dataframe(self) -> Any:
        import pandas as pd

        rows = [(q, d, v) for q, docs in self._data.items() for d, v in docs.items()]
        return pd.DataFrame(rows, columns=["q_id", "doc_id", "score"])

    @property
    def size(self) -> int:
        return len(self._data)

    def __getitem__(self, q_id: Any) -> dict:
        return dict(self._data[q_id])

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return repr(self._data)

    __str__ = __repr__

    @classmethod
    def _read_file(cls, path: str, kind: Optional[str], columns: int) -> tuple[dict, Optional[str]]:
        kind = _kind_of(cls, path, kind)
        if kind == "json":
            with open(path, "rb") as f:
                return json.loads(f.read()), None
        if kind == "lz4":
            return _load_lz4(path), None
        if kind == "parquet":
            raise ValueError(
                f"file kind 'parquet': use {cls.__name__}.from_parquet (from_file reads 'json', 'trec', 'gz' and "
                "'lz4', as ranx's does)"
            )
        data: dict = defaultdict(dict)
        name = None
        with gzip.open(path, "rt") if kind == "gz" else open(path) as f:
            for line in f:
                parts = line.split()
                if columns == 4:
                    q_id, _, doc_id, rel = parts
                    data[q_id][doc_id] = int(rel)
                else:
                    q_id, _, doc_id, _, score, run_name = parts
                    data[q_id][doc_id] = float(score)
                    name = run_name if name is None else name
        return data, name

    def save(self, path: str = "", kind: Optional[str] = None) -> None:
        """Write to ``path`` as ranx writes it (kind from the extension, as ranx infers it): JSON, Parquet, a Run's
        LZ4 file (CBOR in an LZ4 frame; needs lz4 and cbor2; a Qrels has none, as in ranx), else TREC lines,
        uncompressed (also for ``.gz``, as ranx)."""
        path = path or f"{type(self).__name__.lower()}.json"
        kind = _kind_of(type(self), path, kind)
        if not self.sorted:
            self.sort()
        if kind == "json":
            with open(path, "w") as f:
                json.dump(self.to_dict(), f, indent=2)
        elif kind == "parquet":
            self.to_dataframe().to_parquet(path, index=False)
        elif kind == "lz4":
            _save_lz4(self.to_dict(), path)
        else:  # as ranx: TREC lines, uncompressed, for 'trec' and 'gz'
            # each line ends with a newline but the last document of the last query (so a last query without
            # documents leaves the newline of the one before), as ranx writes them
            parts = []
            last_q = len(self._data) - 1
            for i, (q, docs) in enumerate(self._data.items()):
                last_d = len(docs) - 1
                for j, (d, v) in enumerate(docs.items()):
                    parts.append(self._trec_line(q, d, j + 1, v))
                    if i != last_q or j != last_d:
                        parts.append("\n")
            with open(path, "w") as f:
                f.write("".join(parts))

    def _trec_line(self, q: Any, d: Any, rank: int, v: Any) -> str:
        return f"{q} 0 {d} {v}"

    @classmethod
    def _from_parquet(cls, path: str, q_id_col: str, doc_id_col: str, score_col: str, pd_kwargs: Any) -> dict:
        import pandas as pd

        return _df_to_dict(pd.read_parquet(path, **(pd_kwargs or {})), q_id_col, doc_id_col, score_col)


def _kind_of(cls: type, path: str, kind: Optional[str]) -> str:
    """The file kind as ranx's module of ``cls`` infers and checks it: a Qrels has no LZ4 kind (ranx's qrels module
    asserts, and its run module's get_file_kind, exported here, allows it)."""
    kind = get_file_kind(path, kind)
    if cls.__name__ == "Qrels":
        assert kind in {"json", "trec", "gz", "parquet"}, "Error `kind` must be 'json', 'trec', 'gz', or 'parquet'"
    return kind


def _lz4_modules() -> tuple[Any, Any]:
    try:
        import cbor2
        import lz4.frame
    except ImportError:
        raise ImportError(
            "LZ4 run files (ranx's CBOR in an LZ4 frame) need lz4 and cbor2: pip install lz4 cbor2"
        ) from None
    return lz4.frame, cbor2


def _save_lz4(content: dict, path: str) -> None:
    """ranx's LZ4 run file: the run dict as CBOR, compressed as an LZ4 frame (level 16) and written through
    an LZ4 frame file (so framed twice, as ranx writes it); the parent directories are made."""
    frame, cbor2 = _lz4_modules()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with frame.open(path, mode="wb") as f:
        f.write(frame.compress(cbor2.dumps(content), compression_level=16))


def _load_lz4(path: str) -> dict:
    frame, cbor2 = _lz4_modules()
    with frame.open(path, mode="r") as f:
        return cbor2.loads(frame.decompress(f.read()))


def get_file_kind(path: str = "run.json", kind: Optional[str] = None) -> str:
    """ranx's file kind of ``path``: its extension (``txt`` is ``trec``, ``parq`` is ``parquet``) unless given."""
    if kind is None:
        kind = os.path.splitext(path)[1][1:]
        kind = {"txt": "trec", "parq": "parquet"}.get(kind, kind)
    assert kind in {"json", "trec", "lz4", "gz", "parquet"}, (
        "Error `kind` must be 'json', 'trec', 'lz4', 'gz', or 'parquet'"
    )
    return kind


class Qrels(_Store):
    """ranx's ``Qrels``: relevance judgments ``{query: {doc: int grade}}`` (grades truncated to int, as ranx
    stores them)."""

    _dtype = int

    @property
    def qrels(self) -> dict:
        return self._data

    def set_relevance_level(self, rel_lvl: int = 1) -> None:
        self._data = {q: {d: v - (rel_lvl - 1) for d, v in docs.items()} for q, docs in self._data.items()}

    @staticmethod
    def from_dict(d: Mapping) -> Qrels:
        return Qrels(d)

    @staticmethod
    def from_file(path: str, kind: Optional[str] = None) -> Qrels:
        data, _ = Qrels._read_file(path, kind, 4)
        return Qrels(data)

    @staticmethod
    def from_df(df: Any, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score") -> Qrels:
        return Qrels(_df_to_dict(df, q_id_col, doc_id_col, score_col))

    @staticmethod
    def from_parquet(
        path: str, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score", pd_kwargs: Any = None
    ) -> Qrels:
        return Qrels(Qrels._from_parquet(path, q_id_col, doc_id_col, score_col, pd_kwargs))


class Run(_Store):
    """ranx's ``Run``: retrieved documents and their scores ``{query: {doc: score}}``, with the evaluation results
    ``evaluate`` saves in it (``scores``, ``mean_scores``, ``std_scores``)."""

    _dtype = float

    def __init__(self, run: Optional[Mapping] = None, name: Optional[str] = None):
        super().__init__(run, name)
        self.metadata: dict = {}
        self.scores: defaultdict = defaultdict(dict)
        self.mean_scores: dict = {}
        self.std_scores: dict = {}

    @property
    def run(self) -> dict:
        return self._data

    def make_comparable(self, qrels: Any) -> Run:
        """Add empty results for the qrels' queries missing from the run, drop the queries the qrels lack."""
        keep = set(qrels.keys())
        for q in keep - set(self._data):
            self._data[q] = {}
        for q in [q for q in self._data if q not in keep]:
            del self._data[q]
        self.sort()
        return self

    @staticmethod
    def from_dict(d: Mapping, name: Optional[str] = None) -> Run:
        return Run(d, name)

    @staticmethod
    def from_file(path: str, kind: Optional[str] = None, name: Optional[str] = None) -> Run:
        data, found = Run._read_file(path, kind, 6)
        return Run(data, name if name is not None else found)

    @staticmethod
    def from_df(
        df: Any,
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        name: Optional[str] = None,
    ) -> Run:
        return Run(_df_to_dict(df, q_id_col, doc_id_col, score_col), name)

    @staticmethod
    def from_parquet(
        path: str,
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        pd_kwargs: Any = None,
        name: Optional[str] = None,
    ) -> Run:
        return Run(Run._from_parquet(path, q_id_col, doc_id_col, score_col, pd_kwargs), name)

    def _trec_line(self, q: Any, d: Any, rank: int, v: Any) -> str:
        return f"{q} Q0 {d} {rank} {v} {self.name}"


def _df_to_dict(df: Any, q_col: str, d_col: str, s_col: str) -> dict:
    out: dict = {}
    for q, d, s in zip(df[q_col].tolist(), df[d_col].tolist(), df[s_col].tolist()):
        out.setdefault(q, {})[d] = s
    return out


# ---------------------------------------------------------------------------------------------------------------
def _is_object(x: Any) -> bool:
    return not isinstance(x, dict) and hasattr(x, "to_dict")


def _keys(x: Any) -> Any:
    return x.keys() if hasattr(x, "keys") else x.to_dict().keys()


def _n_queries(x: Any) -> int:
    return len(x) if hasattr(x, "__len__") else len(x.to_dict())


def _as_run(x: Any, keep: Optional[Iterable] = None) -> Run:
    """A Run holding an object's to_dict() (only the queries of ``keep``, in the object's order, the others of
    ``keep`` added empty), not sorted yet: what ranx's make_comparable and sort do to a Run, for a Run-like object
    that lacks them."""
    d = x.to_dict()
    out = Run()
    if keep is None:
        out._data = {q: dict(docs) for q, docs in d.items()}
    else:
        wanted = set(keep)
        out._data = {q: dict(docs) for q, docs in d.items() if q in wanted}
        out._data.update({q: {} for q in keep if q not in out._data})
    return out


def _is_low_level(x: Any) -> bool:
    return not isinstance(x, (dict, str, bytes)) and not hasattr(x, "to_dict") and hasattr(x, "__len__")


def _side(x: Any, what: str) -> tuple[list, list]:
    """(query ids, per-query docs) in ranx's order: a dict as given; an object as its to_dict() after ranx's
    in-place sort of an unsorted object; low-level arrays by position (docs as ``n x 2`` float arrays)."""
    if isinstance(x, dict):
        return list(x.keys()), list(x.values())
    if _is_object(x):
        if not getattr(x, "sorted", True):
            if hasattr(x, "sort"):
                x.sort()  # ranx's to_typed_list sorts an unsorted Qrels/Run in place
            else:
                x = _as_run(x)
                x.sort()
        d = x.to_dict()
        return list(d.keys()), list(d.values())
    if _is_low_level(x):
        rows = []
        for i in range(len(x)):
            a = np.asarray(x[i], dtype=np.float64)
            if a.size == 0:
                a = a.reshape(0, 2)
            if a.ndim != 2 or a.shape[1] != 2:
                raise ValueError(f"`{what}` query {i}: ranx's low-level form is an n x 2 array of [doc id, value] rows")
            rows.append(a)
        return list(range(len(rows))), rows
    raise TypeError(
        f"`{what}` must be a ranx {what.capitalize()}, a dict {{query: {{doc: value}}}} or a list of n x 2 arrays, "
        f"got {type(x).__name__}"
    )


def _check_plain_dicts(qrels: Any, run: Any) -> None:
    """ranx turns each query of a plain dict into an array, 2-D with documents and 1-D without: numba's typed list
    rejects the mix (AssertionError, qrels first), and a dict of empty queries only fails numba's typing."""
    empty = []
    for x, what in ((qrels, "qrels"), (run, "run")):
        if not isinstance(x, dict):
            continue
        n_empty = int(np.count_nonzero(np.fromiter(map(len, x.values()), dtype=np.int64, count=len(x)) == 0))
        if 0 < n_empty < len(x):
            raise AssertionError(
                f"`{what}`: ranx cannot evaluate a plain dict mixing queries with and without documents"
            )
        if n_empty == len(x):
            empty.append(what)
    if empty:
        raise TypeError(f"`{empty[0]}`: ranx cannot evaluate a plain dict without any (query, document) pair")


def _flatten(docs: list, what: str) -> tuple[np.ndarray, list, np.ndarray]:
    if docs and not isinstance(docs[0], np.ndarray):
        lens = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
        ids = list(itertools.chain.from_iterable(docs))
        try:
            vals = np.fromiter(
                itertools.chain.from_iterable(q.values() for q in docs), dtype=np.float64, count=len(ids)
            )
        except (TypeError, ValueError, AttributeError):
            raise TypeError(f"`{what}` must be a dict {{query: {{doc: number}}}}") from None
    else:
        lens = np.fromiter((a.shape[0] for a in docs), dtype=np.int64, count=len(docs))
        flat = np.concatenate(docs) if docs else np.zeros((0, 2))
        ids, vals = flat[:, 0].tolist(), np.ascontiguousarray(flat[:, 1])
    indptr = np.zeros(lens.size + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    return indptr, ids, vals


def _codes(t_ids: list, r_ids: list) -> np.ndarray:
    """First-appearance int64 codes of the qrels' then the run's document ids."""
    arr = np.empty(len(t_ids) + len(r_ids), dtype=object)
    arr[: len(t_ids)] = t_ids
    arr[len(t_ids) :] = r_ids
    try:
        import pandas as pd

        return np.asarray(pd.factorize(arr)[0], dtype=np.int64)
    except ImportError:  # pragma: no cover - pandas is optional
        first: dict = {}
        return np.fromiter((first.setdefault(d, len(first)) for d in arr), dtype=np.int64, count=arr.size)


def _repeats(indptr: np.ndarray, codes: np.ndarray) -> bool:
    if codes.size < 2:
        return False
    row = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    key = row * (int(codes.max()) + 1) + codes
    return bool(np.unique(key).size != key.size)


def _first_rows(indptr: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Mask of the first row of every (query, doc) of low-level qrels (ranx matches a document to its first row)."""
    row = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    key = row * (int(codes.max()) + 1) + codes if codes.size else codes
    _, first = np.unique(key, return_index=True)
    mask = np.zeros(codes.size, dtype=bool)
    mask[first] = True
    return mask


def _bpref_as_ranx(
    value: np.ndarray, n_rel: np.ndarray, n_judged: np.ndarray, found: np.ndarray, n_threads: int
) -> np.ndarray:
    out = np.where((n_judged - n_rel == 0) & (found > 0), np.nan, value)  # 0/0 without a judged non-relevant
    no_rel = n_rel == 0  # ZeroDivisionError: numba leaves the rest of that thread's share at 0
    for lo, hi in _thread_chunks(out.size, n_threads):
        hit = np.flatnonzero(no_rel[lo:hi])
        if hit.size:
            out[lo + int(hit[0]) : hi] = 0.0
    return out


def evaluate(
    qrels: Any,
    run: Any,
    metrics: Union[list, str],
    return_mean: bool = True,
    return_std: bool = False,
    threads: int = 0,
    save_results_in_run: bool = True,
    make_comparable: bool = False,
) -> Any:
    """ranx.evaluate's signature, outputs and side effects, computed in one fused pass per rel_lvl."""
    n_threads = _set_numba_threads(_n_queries(qrels), threads)
    if not return_mean:
        return_std = False
    target = run  # where save_results_in_run writes
    if make_comparable and _is_object(qrels) and _is_object(run):
        if hasattr(run, "make_comparable"):
            run = run.make_comparable(qrels)
        else:
            run = _as_run(run, list(_keys(qrels)))
            run.sort()
    named = (isinstance(qrels, dict) or _is_object(qrels)) and (isinstance(run, dict) or _is_object(run))
    if named and set(_keys(qrels)) != set(_keys(run)):
        raise AssertionError(_KEYS_ERROR)
    _check_plain_dicts(qrels, run)
    _, q_docs = _side(qrels, "qrels")
    r_ids, r_docs = _side(run, "run")
    if len(q_docs) != len(r_docs):
        raise ValueError(f"`qrels` holds {len(q_docs)} queries and `run` {len(r_docs)}: ranx pairs them by position")
    metric_list = [metrics] if isinstance(metrics, str) else list(metrics)
    if not all(isinstance(m, str) for m in metric_list):
        raise AssertionError("Metrics error")
    translated = {m: to_rankmeter(m) for m in metric_list}

    # plain dicts of str documents: one walk of the objects in C++ (codes shared by both sides, no list of ids)
    walked = _core.walk_py(qrels, run, dict_rows=True) if type(qrels) is dict and type(run) is dict else None
    if walked is not None and walked[3] != 1:
        (_, t_indptr, t_items, grades), (_, r_indptr, r_items, scores), _, _, _ = walked
        grades = grades if grades is not None else np.zeros(0, dtype=np.float64)
        scores = scores if scores is not None else np.zeros(0, dtype=np.float64)
    else:
        t_indptr, t_ids, grades = _flatten(q_docs, "qrels")
        r_indptr, r_ids_flat, scores = _flatten(r_docs, "run")
        codes = _codes(t_ids, r_ids_flat)
        t_items, r_items = codes[: len(t_ids)], codes[len(t_ids) :]
    low_level = _is_low_level(qrels)
    duplicates = None
    if _is_low_level(run) and _repeats(r_indptr, r_items):
        duplicates = "count"  # ranx reads every row of a low-level run: a repeated relevant document counts again
    if low_level and _repeats(t_indptr, t_items):
        wanted = sorted({n.split("(")[0].split("@")[0] for n, _ in translated.values()} & set(_READS_ALL_QRELS))
        if wanted:
            raise ValueError(
                f"low-level `qrels` list a document twice in one query: ranx counts every row in |R| for {wanted}; "
                "give each (query, document) once"
            )
        keep = _first_rows(t_indptr, t_items)
        row = np.repeat(np.arange(t_indptr.size - 1), np.diff(t_indptr))
        t_indptr = np.concatenate([[0], np.cumsum(np.bincount(row[keep], minlength=t_indptr.size - 1))])
        t_items, grades = t_items[keep], grades[keep]
    n = len(q_docs)
    users = np.arange(n, dtype=np.int64)
    truth = _rm.Truth.from_csr(t_indptr, t_items, grades, users=users)
    # a plain dict run is ranked as ranx's utils.descending_sort ranks it (ties="ranx_dict"); the other forms come
    # ranked (a Run's sorted order, low-level lists as given)
    by_score = isinstance(run, dict)
    recs = _rm.Recs.from_csr(r_indptr, r_items, scores, users=users, by_score=by_score)
    ties = "ranx_dict" if by_score else "input"

    by_level: dict[int, list[str]] = {}
    for name, lvl in translated.values():
        by_level.setdefault(lvl, []).append(name)
    if low_level and any(name.startswith("ndcg") for name, _ in translated.values()):
        _check_ideal_order(t_indptr, grades, by_level)
    per_user: dict[tuple[str, int], np.ndarray] = {}
    n_judged = np.diff(t_indptr)
    for lvl, names in by_level.items():
        wanted = list(dict.fromkeys(names + (["num_rel", "hits"] if "bpref" in names else [])))
        kw: dict = {"duplicates": duplicates} if duplicates else {}
        res = _rm.evaluate(
            truth, recs, wanted, preset="ranx", ties=ties, min_relevance=lvl, threads=threads or None, **kw
        )
        at = np.argsort(np.asarray(res.users, dtype=np.int64), kind="stable")
        vals = {w: np.asarray(res.per_user[w], dtype=np.float64)[at] for w in wanted}
        for name in names:
            v = vals[name]
            if name == "bpref":
                v = _bpref_as_ranx(v, vals["num_rel"], n_judged, vals["hits"], n_threads)
            per_user[(name, lvl)] = v
    out: dict[str, Any] = {}
    for m in metric_list:
        s = per_user[translated[m]]
        if return_mean:
            out[m] = {"mean": np.mean(s), "std": np.std(s)} if return_std else np.mean(s)
        else:
            out[m] = s.copy()
        if save_results_in_run and _is_object(target):
            if hasattr(target, "mean_scores"):
                target.mean_scores[m] = np.mean(s)
            if return_std and hasattr(target, "std_scores"):
                target.std_scores[m] = np.std(s)
            if hasattr(target, "scores"):
                target.scores[m].update(zip(r_ids, s))
    return out[metric_list[-1]] if len(metric_list) == 1 else out


def _check_ideal_order(indptr: np.ndarray, grades: np.ndarray, by_level: Mapping[int, Iterable[str]]) -> None:
    """ranx's ideal DCG of low-level qrels is the DCG of the qrels rows in the order given (its Qrels and dict
    conversions list them by grade descending): rankmeter's ideal is the sorted one, so the rows must be sorted."""
    for lvl, names in by_level.items():
        if not any(n.startswith("ndcg") for n in names):
            continue
        keep = grades >= lvl  # rows below rel_lvl are dropped before the ideal
        row = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))[keep]
        g = grades[keep]
        same = row[1:] == row[:-1]
        if np.any(g[1:][same] > g[:-1][same]):
            raise ValueError(
                "low-level `qrels` rows must be listed by grade descending for ndcg: ranx takes the ideal DCG "
                "of the rows in the order given"
            )


# --------------------------------------------------------------------------------------------------------------- fusion
_FUSED_NAMES = {"wsum": "weighted_sum"}


def _fusion_runs(runs: Any) -> list:
    """ranx's fuse takes Run objects: this module's, ranx's own, or dicts (read as ``Run(d)`` reads them)."""
    if not isinstance(runs, (list, tuple)):
        raise TypeError(f"`runs` must be a list of Run objects, got {type(runs).__name__}")
    out = [Run(r) if isinstance(r, Mapping) else r for r in runs]
    assert len(out) > 1, "Only one run provided"
    for i, run_i in enumerate(out):
        for j, run_j in enumerate(out[i + 1 :]):
            assert set(run_i.keys()) == set(run_j.keys()), f"Runs {i} and {j} query ids do not match"
    return out  # an unsorted Run (filled by add_score) is read in its insertion order, as ranx reads it


def _zmuv_as_ranx(runs: list) -> list:
    """ranx's zmuv normalisation of an empty list divides 0 by 0 inside numba's parallel loop: that query and
    every later query of the same numba thread's share of the run's queries come out empty (the error is
    dropped). The runs with those queries emptied, the thread count as ranx leaves numba (see evaluate)."""
    n_threads = _NUMBA_THREADS[0] or _numba_default_threads()
    out = []
    for r in runs:
        d = r.to_dict()
        keys = list(d)
        lost: set = set()
        for lo, hi in _thread_chunks(len(keys), n_threads):
            first = next((i for i in range(lo, hi) if not d[keys[i]]), None)
            if first is not None:
                lost.update(keys[first + 1 : hi])
        if lost:
            x = Run()
            x._data = {q: ({} if q in lost else dict(v)) for q, v in d.items()}
            x.sorted = True
            r = x
        out.append(r)
    return out


def _fusion_params(method: str, params: Optional[Mapping]) -> tuple[Any, dict]:
    p = dict(params or {})
    p.pop("name", None)
    return p.pop("weights", None), p


def fuse(runs: list, norm: Optional[str] = "min-max", method: str = "wsum", params: Optional[dict] = None) -> Run:
    """ranx.fuse: the runs (``Run`` objects with the same queries) normalised by ``norm`` and fused by
    ``method`` with ``params`` (e.g. ``{"weights": [0.3, 0.7]}``, ``{"k": 60}``), computed by
    :func:`rankmeter.fuse` in C++ (docs/fusion.md). Returns a ``Run`` named as ranx names it."""
    from ..evaluation._fusion import FUSION_METHODS, _method

    rs = _fusion_runs(runs)
    name, m = _method(method) if method in FUSION_METHODS else (method, None)
    if m is None:
        raise ValueError(f"Fusion method {method} not supported.")
    weights, p = _fusion_params(name, params)
    if norm == "zmuv":
        rs = _zmuv_as_ranx(rs)
    fused = _rm.fuse(rs, method=name, weights=weights, norm=norm, ties="ranx", **p)
    out = Run()
    docs = fused.items_native.tolist()
    scores = fused.scores.tolist()
    ip = fused.indptr.tolist()
    out._data = {
        q: dict(zip(docs[ip[i] : ip[i + 1]], scores[ip[i] : ip[i + 1]])) for i, q in enumerate(fused.users.tolist())
    }
    out.sort()
    out.name = (params or {}).get("name", m.label)
    return out


class OptimizationReport:
    """ranx's optimisation report: the tried configurations (as ranx prints them) and their scores."""

    def __init__(
        self,
        method: str,
        configs: list,
        results: list,
        metric: str,
        rounding_digits: int = 3,
        show_percentages: bool = False,
    ):
        self.method, self.configs, self.results, self.metric = method, configs, results, metric
        self.rounding_digits, self.show_percentages = rounding_digits, show_percentages

    def __repr__(self) -> str:
        scale = 100 if self.show_percentages else 1
        rows = [f"{c}\t{round(r * scale, self.rounding_digits)}" for c, r in zip(self.configs, self.results)]
        return "\n".join([f"#\t{self.metric}", *rows])

    __str__ = __repr__


_OPT_DEFAULTS: dict[str, tuple[str, Any]] = {
    # method: (parameter, its trials from the keyword arguments of ranx's optimiser)
    "rrf": ("k", lambda kw: list(range(kw.get("min_k", 10), kw.get("max_k", 100) + 1, kw.get("step", 10)))),
    "gmnz": ("gamma", lambda kw: _float_grid(kw, "gamma")),
    "logn_isr": ("sigma", lambda kw: _float_grid(kw, "sigma")),
    "rbc": ("phi", lambda kw: _float_grid(kw, "phi")),
}


def _float_grid(kw: Mapping, p: str) -> list:
    step = kw.get("step", 0.01)
    digits = str(step)[::-1].find(".")
    lo, hi = kw.get(f"min_{p}", 0.01), kw.get(f"max_{p}", 1.0)
    return [round(x, digits) for x in np.arange(lo, hi + step, step)]


def optimize_fusion(
    qrels: Any,
    runs: list,
    norm: Optional[str] = "min-max",
    method: str = "wsum",
    metric: str = "ndcg",
    return_optimization_report: bool = False,
    rounding_digits: int = 3,
    show_percentages: bool = False,
    **kwargs: Any,
) -> Any:
    """ranx.optimize_fusion for the weighted methods (``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse``,
    ``w_condorcet``: ranx's grid of ``step``), ``rrf``, ``gmnz``, ``logn_isr``, ``rbc``, ``probfuse``
    (``n_segments``) and ``slidefuse`` (``w``) (ranx's ranges), and the training-only ``bayesfuse``, ``mapfuse``,
    ``posfuse``, ``segfuse`` (their trained table, no report):
    every trial fused in C++ and evaluated as ranx evaluates the fused run; returns ``{param: best}`` (and the
    report)."""
    from ..evaluation._fusion import _method, _norm, prepare_runs, run_trials, trials_of

    rs = _fusion_runs(runs)
    q = Qrels(qrels) if isinstance(qrels, Mapping) else qrels
    for i, r in enumerate(rs):
        assert set(r.keys()) == set(q.keys()), f"Run {i} and Qrels query ids do not match"
    name, m = _method(method)
    if name in _TRAIN_ONLY:
        return _optimize_train_only(q, rs, norm, name, return_optimization_report, kwargs)
    kwargs.pop("show_progress", None)
    if name in ("probfuse", "slidefuse"):
        return _optimize_trained(
            q, rs, norm, name, metric, return_optimization_report, kwargs, rounding_digits, show_percentages
        )
    if m.weighted:
        extra = set(kwargs) - {"step"}
        key, fixed = "weights", dict[str, Any]()
        step = kwargs.get("step", 0.1)
        trials_of(name, m, None, step, {}, len(rs))  # checks step
        digits = str(step)[::-1].find(".")
        grid = [round(x, digits) for x in np.arange(0, 1 + step, step)]  # numpy floats, as ranx's (its report)
        trials = [seq for seq in itertools.product(grid, repeat=len(rs)) if sum(seq) == 1.0]
    elif name in _OPT_DEFAULTS:
        key, grid = _OPT_DEFAULTS[name]
        extra = set(kwargs) - {"step", f"min_{key}", f"max_{key}"}
        trials, fixed = grid(kwargs), {}
    else:
        raise ValueError(f"{method} does not support optimization.")
    if extra:
        raise TypeError(f"optimize_fusion(method={method!r}) got unexpected keyword(s) {sorted(extra)}")
    n = _norm(norm)
    prep = prepare_runs(_zmuv_as_ranx(rs) if n == "zmuv" else rs, "ranx")
    score = _fused_scorer(q, prep, metric)
    best, values = run_trials(prep, name, m, n, key, trials, fixed, score, 0)
    out = {key: [] if best is None else best}  # ranx's initial best is []
    if return_optimization_report:
        report = OptimizationReport(method, [str(t) for t in trials], values, metric, rounding_digits, show_percentages)
        return out, report
    return out


def _fused_scorer(q: Any, prep: Any, metric: str) -> Any:
    """score(indptr, codes, scores) of a fused run as ranx's optimisers score it: ``evaluate(qrels, fused, metric)``
    on the fused run sorted by numba's quicksort."""
    lvl_name, lvl = to_rankmeter(metric)
    qd = q.to_dict()
    qids = sorted(qd)
    truth = _rm.Truth.from_dict({k: qd[k] for k in qids}) if qids else None

    def score(oi: np.ndarray, oc: np.ndarray, os_: np.ndarray) -> float:
        order = ranx_order(oi, os_, "ranx")  # ranx sorts the fused run (numba's quicksort, first-appearance order)
        codes = oc[order]
        items = codes if prep.labels is None else prep.labels[codes]
        if lvl_name == "bpref":  # its quirks live in evaluate(): the fused run as a Run
            fused = Run()
            ip, it, sc = oi.tolist(), items.tolist(), os_[order].tolist()
            fused._data = {
                u: dict(zip(it[ip[i] : ip[i + 1]], sc[ip[i] : ip[i + 1]])) for i, u in enumerate(prep.queries.tolist())
            }
            fused.sorted = True
            return float(evaluate(q, fused, metric, save_results_in_run=False))
        recs = _rm.Recs.from_csr(oi, items, os_[order], users=prep.queries)
        res = _rm.evaluate(truth, recs, [lvl_name], preset="ranx", ties="input", min_relevance=lvl)
        return float(np.mean(np.asarray(res.per_user[lvl_name], dtype=np.float64)))

    return score


# ranx's methods whose optimisation is their training only: the parameter returned
_TRAIN_ONLY = {"bayesfuse": "log_odds", "mapfuse": "map_scores", "posfuse": "probs", "segfuse": "probs"}


def _normalised_runs(rs: list, norm: Optional[str]) -> tuple[Any, list]:
    """(the lists, as Run objects) ranx's optimize_fusion trains on: the runs normalised, and sorted once more
    with numba's quicksort (ranx builds a normalised Run unsorted and its training sorts it), except after
    ``min-max-inverted`` (sorted when built) and ``norm=None`` (the runs themselves); under ``borda`` each run
    lists every candidate, the run's own first, the others in first-appearance order (ranx: a set's order)."""
    from ..evaluation._fusion import _norm, prepare_runs, training_lists

    n = _norm(norm)
    prep = prepare_runs(_zmuv_as_ranx(rs) if n == "zmuv" else rs, "ranx")
    lists = training_lists(prep, n, 0)
    if n is None:
        return lists, rs
    nq = prep.queries.size
    ip = lists.indptr.tolist()
    docs = (lists.codes if prep.labels is None else prep.labels[lists.codes]).tolist()
    vals = lists.values.tolist()
    qs = prep.queries.tolist()
    out = []
    for r in range(prep.n_runs):
        x = Run()
        x._data = {
            q: dict(zip(docs[ip[r * nq + i] : ip[r * nq + i + 1]], vals[ip[r * nq + i] : ip[r * nq + i + 1]]))
            for i, q in enumerate(qs)
        }
        x.sorted = True
        out.append(x)
    return lists, out


def _optimize_train_only(q: Any, rs: list, norm: Optional[str], name: str, report: bool, kwargs: Mapping) -> Any:
    """ranx's optimize_fusion for bayesfuse, mapfuse, posfuse, segfuse: the table trained on the normalised runs."""
    if report:
        raise ValueError(f"{name} does not support optimization report.")
    if kwargs:
        raise TypeError(f"optimize_{name}() got an unexpected keyword argument {next(iter(kwargs))!r}")
    _, norm_runs = _normalised_runs(rs, norm)
    train = getattr(fusion, f"{name}_train")
    return {_TRAIN_ONLY[name]: train(q, norm_runs)}


def _optimize_trained(
    q: Any,
    rs: list,
    norm: Optional[str],
    name: str,
    metric: str,
    return_optimization_report: bool,
    kwargs: Mapping,
    rounding_digits: int,
    show_percentages: bool,
) -> Any:
    """ranx's optimize_fusion for probfuse (``n_segments`` from ``min_n_segments`` to ``max_n_segments``, 1 to 100)
    and slidefuse (``w`` from ``min_w`` to ``max_w``, 1 to 100, the probabilities trained once): each trial fused
    on the normalised lists as ranx's training left them (sorted once more) and evaluated as ranx evaluates it;
    the last trial scoring at least the best so far (from 0) wins."""
    from ..evaluation._fusion import FUSION_METHODS, fuse_prepared
    from ..evaluation._fusion_train import hit_lists, train_tables
    from ..inputs import to_truth

    key = "n_segments" if name == "probfuse" else "w"
    extra = set(kwargs) - {f"min_{key}", f"max_{key}"}
    if extra:
        raise TypeError(f"optimize_{name}() got an unexpected keyword argument {sorted(extra)[0]!r}")
    trials = list(range(kwargs.get(f"min_{key}", 1), kwargs.get(f"max_{key}", 100) + 1))
    lists, _ = _normalised_runs(rs, norm)
    qd = q.to_dict()
    truth = to_truth({k: qd[k] for k in sorted(qd)})
    indptr, hit, n_rel, nt = hit_lists(lists, lists.codes, truth, 1)
    R = lists.n_runs
    m = FUSION_METHODS[name]
    score = _fused_scorer(q, lists, metric)
    probs = train_tables(name, indptr, hit, n_rel, R, nt) if name == "slidefuse" else None
    best: Any = None if name == "probfuse" else []
    best_score = 0.0
    values = []
    for v in trials:
        p = (
            {"probs": probs, "w": v}
            if probs is not None
            else {"probs": train_tables(name, indptr, hit, n_rel, R, nt, v)}
        )
        s = float(score(*fuse_prepared(lists, name, m, np.ones(R), p, None, 0)))
        values.append(s)
        if s >= best_score:
            best_score = s
            best = p["probs"] if name == "probfuse" else v
    out = {"probs": best} if name == "probfuse" else {"probs": probs, "w": best}
    if return_optimization_report:
        report = OptimizationReport(name, [str(t) for t in trials], values, metric, rounding_digits, show_percentages)
        return out, report
    return out


# --------------------------------------------------------------------------------------------------------------- training
# ranx.fusion's training functions, also importable at ranx's path (rankmeter.compat.ranx.fusion). As ranx does:
# the qrels and each run are sorted first (in place, when not sorted yet), queries by id; query i of the qrels is
# paired with query i of the run (by position: the run's extra queries are not read); a document is relevant at
# grade >= 1; mapfuse_train is evaluate(qrels, run, "map") per run, with its side effects. A run with fewer queries
# than the qrels is refused: ranx reads past its last query (undefined).


def _sorted_dict(x: Any) -> dict:
    """The object's {query: {doc: value}} after ranx's in-place sort of an unsorted object, queries by id."""
    if isinstance(x, Mapping):
        d = {q: dict(v) for q, v in x.items()}
        return {q: d[q] for q in sorted(d)}
    if hasattr(x, "sorted") and not x.sorted and hasattr(x, "sort"):
        x.sort()
    d = x.to_dict()
    return {q: d[q] for q in sorted(d)} if not hasattr(x, "sort") else dict(d)


def _paired(qrels: Any, runs: list) -> tuple[dict, list]:
    """(qrels as {i: docs}, runs as Run objects {i: ranked docs}) paired by position as ranx pairs them."""
    if not isinstance(runs, (list, tuple)):
        raise TypeError(f"`runs` must be a list of Run objects, got {type(runs).__name__}")
    qd = _sorted_dict(qrels)
    qk = list(qd)
    truth = {i: qd[q] for i, q in enumerate(qk)}
    out = []
    for j, run in enumerate(runs):
        rd = _sorted_dict(run)
        rk = list(rd)
        if len(rk) < len(qk):
            raise ValueError(
                f"runs[{j}] holds {len(rk)} queries and the qrels {len(qk)}: ranx pairs query i of the qrels with "
                "query i of the run and reads past the run's last query (undefined); give every qrels query"
            )
        r = Run()
        r._data = {i: rd[rk[i]] for i in range(len(qk))}
        r.sorted = True
        out.append(r)
    return truth, out


def _train(qrels: Any, runs: list, method: str, n_segments: Optional[int] = None) -> Any:
    from ..evaluation import _fusion_train as ft
    from ..evaluation._fusion import prepare_runs
    from ..inputs import to_truth

    truth, rs = _paired(qrels, runs)
    if not truth:
        raise ValueError("the qrels hold no query")
    k = ft.check_n_segments(method, n_segments)
    prep = prepare_runs(rs, "ranx")
    indptr, hit, n_rel, nt = ft.hit_lists(prep, prep.codes, to_truth(truth), 1)
    return ft.train_tables(method, indptr, hit, n_rel, prep.n_runs, nt, k)


def probfuse_train(qrels: Any, runs: list, n_segments: int) -> np.ndarray:
    """ranx's ProbFuse training: per run, each list cut into ``n_segments`` segments of ``ceil(n / n_segments)``
    positions, the mean over the queries of each segment's share of relevant documents (Lillis et al. 2006).
    A 2-D array, one row per run."""
    return _train(qrels, runs, "probfuse", n_segments)


def posfuse_train(qrels: Any, runs: list) -> list:
    """ranx's PosFuse training: per run, the share of relevant documents at each position over the lists long
    enough to have it (Lillis et al. 2010). One array per run."""
    return _train(qrels, runs, "posfuse")


def slidefuse_train(qrels: Any, runs: list) -> list:
    """ranx's SlideFuse training: PosFuse's per-position probabilities (Lillis et al. 2008)."""
    return _train(qrels, runs, "slidefuse")


def segfuse_train(qrels: Any, runs: list) -> list:
    """ranx's SegFuse training: per run, the mean over the queries of the hits in each of the 10 segments
    [0, 5), [5, 15), [15, 35), ... divided by the segment's size (Shokouhi 2007). One array of 10 per run."""
    return _train(qrels, runs, "segfuse")


def bayesfuse_train(qrels: Any, runs: list) -> list:
    """ranx's BayesFuse training: per run, the log odds ln(a / (1 - a)) of the mean precision ``a`` in each
    interval [0, 5), [5, 10), [10, 15), [15, 20), [20, 30), [30, 100), [100, 200), [200, 500), [500, 1000)
    (0 taken as 0.001), repeated over the interval's positions (Aslam & Montague 2001). 1000 values per run."""
    return _train(qrels, runs, "bayesfuse")


def mapfuse_train(qrels: Any, runs: list) -> list:
    """ranx's MAPFuse training: each run's MAP, ``evaluate(qrels, run, "map")`` (Lillis et al. 2010)."""
    return [evaluate(qrels, run, "map") for run in runs]


fusion = types.ModuleType(
    __name__ + ".fusion", "ranx.fusion's training functions (docs/fusion.md, 'Training'), at ranx's import path."
)
fusion.__all__ = [  # type: ignore[attr-defined]
    "bayesfuse_train",
    "mapfuse_train",
    "posfuse_train",
    "probfuse_train",
    "segfuse_train",
    "slidefuse_train",
]
for _f in (bayesfuse_train, mapfuse_train, posfuse_train, probfuse_train, segfuse_train, slidefuse_train):
    setattr(fusion, _f.__name__, _f)
sys.modules[fusion.__name__] = fusion
