"""Input containers (:class:`Truth`, :class:`Recs`) and conversion of every accepted
form into contiguous CSR buffers.

Everything here runs once per evaluation, before the C++ pass. Forms that are
already buffers (CSR triples, padded 2-D arrays) are used in place: nothing is
copied when the dtype is already int64/float64 and the array is contiguous.
Forms made of Python objects (dicts, lists) are flattened once with
``itertools.chain``; that walk over the caller's objects is the price of the
form itself, the metrics never loop over users in Python.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional, Union

import numpy as np

from .. import _core
from .._options import check_k, resolve_threads
from .._status import is_ok, message
from . import _frame, _trec
from ._arrays import as_float64_1d, as_grades_1d, as_int64_1d, as_items, check_indptr, check_scores, indptr_of, user_ids
from ._factors import check_block, check_factors, exclusion_csr, factor_pass
from ._ids import INT64_MAX, Coded, as_id_array

__all__ = ["Truth", "Recs"]


def _rows(items: Sequence[Iterable[Any]], what: str) -> list:
    """Every user's row as a list; a ``str`` row (or a non-iterable one) is a TypeError naming
    the user's position: a string is never a list of items (it would split into characters)."""
    rows = []
    for u, r in enumerate(items):
        if isinstance(r, list):
            rows.append(r)
        elif isinstance(r, (str, bytes)) or not isinstance(r, Iterable):
            extra = (
                "; a list of file paths is not a form of `recs`/`truth`: pass one path, or read the files first"
                if isinstance(r, str) and r.endswith((".parquet", ".txt", ".tsv", ".csv", ".gz", ".run", ".qrels"))
                else ""
            )
            raise TypeError(
                f"`{what}` for user {u} (row {u} of the list of lists) must be a list of items, got "
                f"{type(r).__name__} {r!r:.60}; a str is never a list of items{extra}"
            )
        else:
            rows.append(list(r))
    return rows


def walk_objects(truth: Any, recs: Any) -> Optional[tuple[Optional[Truth], Optional[Recs]]]:
    """``truth`` and/or ``recs`` (None: not given) read from Python dicts and lists by the C++ walker.

    One walk over the objects with the GIL held (``_core.walk_py``): str ids are coded through a hash
    table that uses each str's cached hash (no string is copied, encoded or sorted; the distinct ones
    become the labels, shared by both sides, so their codes need no second factorization), int ids are
    kept as their values, and dict keys as the user ids; with both sides keyed, the users are joined there
    too (:attr:`Truth.paired`). None when the objects are not plain (ids other than str and int, a mix of
    them, containers other than dict, list, tuple and set, values other than numbers, ...): the Python
    readers below then read them, accept what they accept and name what they refuse."""
    out = _core.walk_py(truth, recs)
    if out is None:
        return None
    t_side, r_side, labels, _kind, rowmap = out

    def ids(values: np.ndarray) -> Union[np.ndarray, Coded]:
        return Coded(values, labels) if labels is not None else values  # labels: str ids (kind 2)

    t = r = None
    if r_side is not None:
        users, indptr, items, scores = r_side
        if scores is not None:
            check_scores(scores, indptr, users)
        r = Recs(indptr, ids(items), scores, users, by_score=scores is not None)
    if t_side is not None:
        users, indptr, items, grades = t_side
        t = Truth(indptr, ids(items), grades, users)
        if rowmap is not None:
            t.paired = (r, rowmap)
    return t, r


# --------------------------------------------------------------------------- Truth
class _ItemIds:
    """The item ids of Truth and Recs, kept as codes (``coded``) when read that way and made into
    an id array only when asked for: ``items[indptr[u]:indptr[u+1]]`` for user u (Recs: or the
    padded 2-D array). int32 ids given as CSR or a padded array are kept as given
    (:attr:`items_native`); the accuracy pass reads them in place."""

    __slots__ = ("_items", "_items64", "coded")
    _items: Optional[np.ndarray]
    _items64: Optional[np.ndarray]
    coded: Optional[Coded]

    @property
    def items(self) -> np.ndarray:
        """The item ids as int64 (or objects for string ids). int32 ids are widened into a copy
        made once, only when something asks for it (the accuracy pass does not)."""
        if self._items is None:
            assert self.coded is not None
            self._items = self.coded.ids()
        a = self._items
        if a.dtype == np.int32:
            if self._items64 is None:
                self._items64 = a.astype(np.int64)
            return self._items64
        return a

    @items.setter
    def items(self, value: np.ndarray) -> None:
        self._items, self._items64, self.coded = value, None, None

    @property
    def items_native(self) -> np.ndarray:
        """The item ids in the dtype they are kept in: int32 as given (no copy), else :attr:`items`."""
        a = self._items
        if a is not None and a.dtype == np.int32:
            return a
        return self.items

    def item_values(self) -> np.ndarray:
        """The item ids, or only the distinct ones when they are coded (enough to tell their kinds)."""
        return self.coded.kind_sample() if self.coded is not None else self.items_native


class Truth(_ItemIds):
    """Ground truth (qrels): per user a set of items with a relevance grade.

    Use the ``from_*`` constructors; :func:`rankmeter.evaluate` also accepts
    the raw forms (dicts, lists) directly. ``users`` is None for positional
    truth (users 0..n-1). Items are relevant when their grade is > 0 (or >=
    ``min_relevance``); grade <= 0 items are judged non-relevant.
    """

    __slots__ = ("users", "indptr", "_grades", "_grades64", "source_rows", "source_col", "paired")
    _grades: Optional[np.ndarray]
    _grades64: Optional[np.ndarray]

    def __init__(
        self,
        indptr: np.ndarray,
        items: Union[np.ndarray, Coded],
        grades: Optional[np.ndarray],
        users: Optional[np.ndarray],
    ):
        self.indptr = indptr
        # string ids read from a table or a TREC file come coded (codes + distinct ids); the
        # id array itself is only made (a gather of pointers) when something asks for `items`
        self.coded: Optional[Coded] = items if isinstance(items, Coded) else None
        self._items: Optional[np.ndarray] = None if isinstance(items, Coded) else items
        self._items64: Optional[np.ndarray] = None
        self.grades = grades
        self.users = users
        # from a long table: the table row of every entry and the item column's name (error messages)
        self.source_rows: Optional[np.ndarray] = None
        self.source_col: Optional[str] = None
        # (recs, rowmap) when this truth was read together with `recs` by the walker of Python objects,
        # which joined the users already: the recs row of every truth user (-1: none)
        self.paired: Optional[tuple[Any, np.ndarray]] = None

    @property
    def grades(self) -> Optional[np.ndarray]:
        """The grades as float64 (None: every item has grade 1). float32 grades are kept as given
        and read in place by the accuracy pass (:attr:`grades_native`); this float64 copy is made
        once, only when something else asks for it."""
        g = self._grades
        if g is None or g.dtype == np.float64:
            return g
        if self._grades64 is None:
            self._grades64 = g.astype(np.float64)
        return self._grades64

    @grades.setter
    def grades(self, value: Optional[np.ndarray]) -> None:
        self._grades, self._grades64 = value, None

    @property
    def grades_native(self) -> Optional[np.ndarray]:
        """The grades in the dtype they are kept in: float64, or float32 as given (no copy)."""
        return self._grades

    @property
    def n_entries(self) -> int:
        """Number of (user, item) entries."""
        return int(self.indptr[-1]) if self.indptr.size else 0

    @property
    def n_users(self) -> int:
        return int(self.indptr.size - 1)

    def __len__(self) -> int:
        return self.n_users

    def __repr__(self) -> str:
        return f"Truth(n_users={self.n_users}, n_items={self.n_entries}, keyed={self.users is not None})"

    @classmethod
    def from_csr(cls, indptr: Any, items: Any, grades: Any = None, users: Any = None) -> Truth:
        """CSR triple: ``items[indptr[u]:indptr[u+1]]`` are user u's truth items.

        int64 ids are used in place, int32 ids kept as given (read in place by the accuracy
        pass when the recs hold int32 ids too); float32 grades are kept as given."""
        indptr = as_int64_1d(indptr, "truth indptr")
        items_arr = as_items(items, "truth items")
        check_indptr(indptr, items_arr.size, "truth")
        g = None if grades is None else as_grades_1d(grades, "truth grades", items_arr.size)
        return cls(indptr, items_arr, g, user_ids(users, indptr.size - 1, "truth"))

    @classmethod
    def from_lists(cls, items: Sequence[Iterable[Any]], grades: Optional[Sequence[Iterable[float]]] = None) -> Truth:
        """``items[u]`` is user u's truth; ``grades[u]`` (optional) the matching grades."""
        if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
            raise TypeError(f"`truth` lists must be a list of lists, got {type(items).__name__}")
        if grades is None:
            read = walk_objects(items, None)
            if read is not None and read[0] is not None:
                return read[0]
        rows = _rows(items, "truth")
        indptr = indptr_of(rows)
        flat = as_id_array(list(itertools.chain.from_iterable(rows)), "truth items")
        g = None
        if grades is not None:
            grows = [list(r) for r in grades]
            if len(grows) != len(rows) or any(len(a) != len(b) for a, b in zip(grows, rows)):
                raise ValueError("`grades` must have the same shape as the truth `items` lists")
            g = as_float64_1d(list(itertools.chain.from_iterable(grows)), "truth grades", flat.size)
        return cls(indptr, flat, g, None)

    @classmethod
    def from_dict(cls, d: Mapping[Any, Any]) -> Truth:
        """``{user: {item: grade}}`` or ``{user: iterable_of_items}`` (grade 1)."""
        if not isinstance(d, Mapping):
            raise TypeError(f"`truth` must be a dict, got {type(d).__name__}")
        read = walk_objects(d, None)
        if read is not None and read[0] is not None:
            return read[0]
        users = as_id_array(list(d.keys()), "truth users")
        values = list(d.values())
        graded = [isinstance(v, Mapping) for v in values]
        rows: list[Any] = []
        for user, v, is_map in zip(d.keys(), values, graded):
            if is_map:
                rows.append(v.keys())
            elif isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
                raise TypeError(
                    f"`truth` for user {user!r} must be a dict of item -> grade or an iterable of items, "
                    f"got {type(v).__name__}"
                )
            else:
                rows.append(v if isinstance(v, (list, tuple)) else list(v))
        indptr = indptr_of(rows)
        flat = as_id_array(list(itertools.chain.from_iterable(rows)), "truth items")
        g = None
        if any(graded):
            gl = itertools.chain.from_iterable(
                v.values() if m else itertools.repeat(1.0, len(r)) for v, m, r in zip(values, graded, rows)
            )
            try:
                g = np.fromiter(gl, dtype=np.float64, count=flat.size)
            except (TypeError, ValueError) as e:
                raise TypeError(f"`truth` grades must be numbers: {e}") from None
        return cls(indptr, flat, g, users)

    @classmethod
    def from_frame(
        cls, frame: Any, *, user_col: str = "user_id", item_col: str = "item_id", relevance_col: str = "relevance"
    ) -> Truth:
        """A long table (pandas, polars or pyarrow Table/RecordBatch): one row per (user, item[, grade]).

        Users keep their order of first appearance; without ``relevance_col`` every
        row has grade 1. Nulls are errors naming the column and the row.
        """
        if not _frame.is_frame(frame):
            raise TypeError(f"`frame` must be a pandas/polars DataFrame or a pyarrow Table, got {type(frame).__name__}")
        return cls._of_frame(frame, "truth", dict(user_col=user_col, item_col=item_col, relevance_col=relevance_col))

    @classmethod
    def _of_frame(cls, frame: Any, what: str, kw: dict) -> Truth:
        indptr, items, grades, users, rows, col = _frame.frame_to_truth(frame, what, **kw)
        t = cls(indptr, items, grades, users)
        t.source_rows, t.source_col = rows, col
        return t

    @classmethod
    def from_parquet(cls, path: Any, **columns: Any) -> Truth:
        """A parquet file or directory (read with pyarrow.dataset) as :meth:`from_frame`."""
        cols = (columns.get("user_col", "user_id"), columns.get("item_col", "item_id"))
        return cls.from_frame(_frame.read_parquet(path, cols), **columns)

    @classmethod
    def from_trec(cls, path: Any) -> Truth:
        """A TREC qrels file (``query iter docno grade``; gzip allowed); ids stay strings."""
        users, indptr, docs, grades = _trec.parse_qrels(path)
        # built by the parser (str ids, finite numbers, consistent indptr): no second validation pass
        return cls(indptr, docs, grades, users)

    @classmethod
    def from_scipy(cls, matrix: Any) -> Truth:
        """A scipy.sparse users x items matrix of grades (explicit entries are the truth items,
        zeros included): user u is row u, item i is column i."""
        if not (hasattr(matrix, "tocsr") and hasattr(matrix, "shape")):
            raise TypeError(f"`matrix` must be a scipy.sparse matrix, got {type(matrix).__name__}")
        m = matrix.tocsr()
        if len(m.shape) != 2:
            raise ValueError(f"`matrix` must be 2-D, got shape {m.shape}")
        if not m.has_canonical_format:
            # tocsr() of a CSR matrix is the caller's own object: combine the duplicates on a copy
            m = m.copy()
            m.sum_duplicates()
        return cls.from_csr(m.indptr.astype(np.int64), m.indices.astype(np.int64), np.asarray(m.data, dtype=np.float64))


# --------------------------------------------------------------------------- Recs
class Recs(_ItemIds):
    """Ranked recommendations (a run): per user an ordered list of items, best first.

    Either CSR (``indptr`` + ``items``) or a padded 2-D array (``items_2d`` with
    ``pad``). ``scores`` ride along; when ``by_score`` is true the lists are
    ranked by score (descending) at evaluation time, with the ``ties=`` policy.
    """

    __slots__ = ("users", "indptr", "scores", "pad", "by_score")

    def __init__(self, indptr, items, scores, users, pad=None, by_score=False):
        self.indptr = indptr  # None for a padded 2-D array
        # CSR string ids from a table or a TREC file come coded (see Truth)
        self.coded: Optional[Coded] = items if isinstance(items, Coded) else None
        self._items: Optional[np.ndarray] = None if isinstance(items, Coded) else items
        self._items64: Optional[np.ndarray] = None
        self.scores = scores
        self.users = users
        self.pad = pad
        self.by_score = by_score

    @property
    def n_entries(self) -> int:
        """Number of entries (a padded array: its size, pads included)."""
        if self.indptr is None:
            return int(self.items_native.size)
        return int(self.indptr[-1]) if self.indptr.size else 0

    @property
    def n_users(self) -> int:
        return int(self.items_native.shape[0]) if self.indptr is None else int(self.indptr.size - 1)

    def __len__(self) -> int:
        return self.n_users

    def __repr__(self) -> str:
        form = "padded" if self.indptr is None else "csr"
        return f"Recs(n_users={self.n_users}, form={form}, keyed={self.users is not None}, by_score={self.by_score})"

    @classmethod
    def from_csr(
        cls, indptr: Any, items: Any, scores: Any = None, users: Any = None, *, by_score: bool = False
    ) -> Recs:
        """CSR pair/triple: ``items[indptr[u]:indptr[u+1]]`` is user u's list, best first.

        With ``by_score=True`` the order is ignored and each list is ranked by
        ``scores`` (descending, ties per ``evaluate(ties=...)``).
        """
        indptr = as_int64_1d(indptr, "recs indptr")
        items_arr = as_items(items, "recs items")
        check_indptr(indptr, items_arr.size, "recs")
        s = None if scores is None else as_float64_1d(scores, "recs scores", items_arr.size)
        if by_score and s is None:
            raise ValueError("`by_score=True` needs `scores`")
        u = user_ids(users, indptr.size - 1, "recs")
        if s is not None:
            check_scores(s, indptr, u)
        return cls(indptr, items_arr, s, u, by_score=by_score)

    @classmethod
    def from_array(cls, items_2d: Any, pad: int = -1, users: Any = None) -> Recs:
        """A 2-D integer array ``n_users x k`` of item ids, each row best first,
        shorter lists padded at the end with ``pad``."""
        arr = np.asarray(items_2d)
        if arr.ndim != 2:
            raise ValueError(f"`recs` array must be 2-D (n_users x k), got shape {arr.shape}")
        if arr.dtype.kind == "f":
            raise TypeError(
                "`recs` is a 2-D float array: that looks like a score matrix. "
                "Use rankmeter.Recs.from_scores(matrix, k) to rank it (a 2-D integer array is taken as item ids)."
            )
        if arr.dtype.kind not in "iu":
            raise TypeError(f"`recs` 2-D array must hold integer item ids, got dtype {arr.dtype}")
        if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and arr.size and int(arr.max()) > INT64_MAX:
            raise ValueError("`recs` item ids must fit in int64")
        if not isinstance(pad, numbers.Integral) or isinstance(pad, bool):
            raise TypeError(f"`pad` must be an integer, got {pad!r}")
        # int32 ids are kept as given (read in place by the accuracy pass), other ints as int64
        arr = np.ascontiguousarray(arr, dtype=np.int32 if arr.dtype == np.int32 else np.int64)
        return cls(None, arr, None, user_ids(users, arr.shape[0], "recs"), pad=int(pad))

    @classmethod
    def from_scores(
        cls,
        matrix: Any,
        k: int,
        items: Any = None,
        exclude: Any = None,
        users: Any = None,
        *,
        threads: Optional[int] = None,
    ) -> Recs:
        """Top-``k`` lists from a dense ``n_users x n_items`` score matrix.

        Higher score first; equal scores keep column order (``ties="input"``).
        ``items`` names the columns (default: the column index). ``exclude``
        (a scipy.sparse matrix of the same shape, or a CSR pair
        ``(indptr, item_columns)``) lists items never to recommend to a user,
        e.g. their training items; a user with fewer than ``k`` eligible items
        gets a shorter list. NaN or infinite scores are errors.

        Selection runs in C++ (OpenMP over users, GIL released): one streaming
        pass per row checks that every score is finite, takes 64-score block
        maxima and collects the scores above a lower bound of the k-th best
        (carried over from the previous row, else the (k + k/4 + 8)-th largest
        block maximum); only those candidates are selected and sorted. float32
        and float64 matrices are read in place; float32 block maxima use AVX2
        where the CPU has it (``RANKMETER_SIMD=0``: the scalar loop, the same
        lists). The chosen scores ride along (as float64).
        """
        S = np.asarray(matrix)
        if S.ndim != 2:
            raise ValueError(f"`matrix` must be 2-D (n_users x n_items), got shape {S.shape}")
        if S.dtype.kind not in "fiu" or S.dtype.kind == "b":
            raise TypeError(f"`matrix` must hold numeric scores, got dtype {S.dtype}")
        if k is None:
            raise TypeError("`k` must be a positive integer, got None")
        k = int(check_k(k, "`k`") or 0)
        n_users, n_items = S.shape
        u = user_ids(users, n_users, "recs")
        ids = np.arange(n_items, dtype=np.int64) if items is None else as_id_array(items, "items")
        if ids.size != n_items:
            raise ValueError(f"`items` has {ids.size} ids but `matrix` has {n_items} columns")
        ex_indptr, ex_cols = exclusion_csr(exclude, S.shape, "matrix")
        # float32 and float64 matrices are read in place when C-contiguous; others are converted once
        if S.dtype == np.float32 or S.dtype == np.float64:
            M = np.ascontiguousarray(S)
        else:
            M = np.ascontiguousarray(S, dtype=np.float64)
        if M.dtype.byteorder not in ("=", "|"):
            M = M.astype(M.dtype.newbyteorder("="))
        kernel = _core.topk_f32 if M.dtype == np.float32 else _core.topk_f64
        cols2, sc2, lens, status = kernel(M, int(min(k, 2**62)), ex_indptr, ex_cols, resolve_threads(threads))
        code, br, bc = status
        if not is_ok(code):
            user = u[br] if u is not None else br
            user = user.item() if isinstance(user, np.generic) else user
            raise ValueError(message(code, user=user, score=S[br, bc], item=bc))
        indptr = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        if int(indptr[-1]) == cols2.size:
            cols, sc = cols2.reshape(-1), sc2.reshape(-1)
        else:
            keep = np.arange(cols2.shape[1])[None, :] < lens[:, None]
            cols, sc = cols2[keep], sc2[keep]
        return cls(indptr, ids[cols], sc, u)

    @classmethod
    def from_factors(
        cls,
        user_vectors: Any,
        item_vectors: Any,
        k: int,
        *,
        exclude: Any = None,
        score: str = "dot",
        user_ids: Any = None,
        item_ids: Any = None,
        block: Any = None,
        threads: Optional[int] = None,
    ) -> Recs:
        """Top-``k`` lists straight from user and item factors (embeddings), without the score matrix.

        The lists of ``Recs.from_scores(rankmeter.factor_scores(user_vectors, item_vectors, score=score), k,
        items=item_ids, exclude=exclude, users=user_ids)``, bit for bit, for any ``block`` and ``threads``:
        higher score first, equal scores in column order, excluded items never listed, a user with fewer than
        ``k`` eligible items gets a shorter list; the scores ride along (float32 values as float64).

        ``user_vectors``: ``n_users x dim``, ``item_vectors``: ``n_items x dim`` (float32; float64 and integers
        are rounded to float32 once; NaN or infinity is a ValueError naming the argument). ``score``: ``"dot"``
        (the score of (u, i) is the float32 fused multiply-add chain over the dimensions in order) or
        ``"cosine"`` (the same on rows scaled to unit length; a zero row scores 0 with everything). ``exclude``
        as in :meth:`from_scores`. ``block``: users per tile, or ``(users, items)`` (default 192 x 1024): the
        scores are made one tile at a time and selected while the tile is in cache; memory is the factors, a
        packed copy of ``item_vectors`` and one tile per thread. docs/model.md.
        """
        if k is None:
            raise TypeError("`k` must be a positive integer, got None")
        k = int(check_k(k, "`k`") or 0)
        U, V = check_factors(user_vectors, item_vectors, score)
        n_users, n_items = U.shape[0], V.shape[0]
        u = None if user_ids is None else np.array(as_id_array(user_ids, "user_ids"), copy=True)
        if u is not None and u.size != n_users:
            raise ValueError(f"`user_ids` has {u.size} ids but `user_vectors` has {n_users} rows")
        ids = np.arange(n_items, dtype=np.int64) if item_ids is None else as_id_array(item_ids, "item_ids")
        if ids.size != n_items:
            raise ValueError(f"`item_ids` has {ids.size} ids but `item_vectors` has {n_items} rows")
        ex = exclusion_csr(exclude, (n_users, n_items), "user_vectors x item_vectors")
        empty_i = np.zeros(n_users + 1, dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        cols2, sc2, lens, _, _ = factor_pass(
            U, V, k, ex, empty_i, none, np.zeros(0, dtype=np.uint8), check_block(block), resolve_threads(threads), u
        )
        return cls._of_lists(cols2, sc2, lens, None if item_ids is None else ids, u)

    @classmethod
    def _of_lists(cls, cols2: np.ndarray, sc2: np.ndarray, lens: np.ndarray, ids: Optional[np.ndarray], u: Any) -> Recs:
        """Recs from the padded top-k output of a kernel (row u: its first ``lens[u]`` columns; ``ids``: the item id
        of every column, None when the columns are the ids)."""
        n_users = lens.size
        indptr = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        if int(indptr[-1]) == cols2.size:
            cols, sc = cols2.reshape(-1), sc2.reshape(-1)
        else:
            keep = np.arange(cols2.shape[1])[None, :] < lens[:, None]
            cols, sc = cols2[keep], sc2[keep]
        return cls(indptr, cols if ids is None else ids[cols], sc, u)

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        user_col: str = "user_id",
        item_col: str = "item_id",
        rank_col: str = "rank",
        score_col: str = "score",
    ) -> Recs:
        """A long table (pandas, polars or pyarrow): one row per (user, item) with a rank (1..n per
        user, no gaps or repeats) or a score column (ranked by score at evaluation); rank decides
        when both are present and the scores ride along."""
        if not _frame.is_frame(frame):
            raise TypeError(f"`frame` must be a pandas/polars DataFrame or a pyarrow Table, got {type(frame).__name__}")
        return cls._of_frame(
            frame, "recs", dict(user_col=user_col, item_col=item_col, rank_col=rank_col, score_col=score_col)
        )

    @classmethod
    def _of_frame(cls, frame: Any, what: str, kw: dict) -> Recs:
        indptr, items, scores, users, by_score = _frame.frame_to_recs(frame, what, **kw)
        return cls(indptr, items, scores, users, by_score=by_score)

    @classmethod
    def from_parquet(cls, path: Any, **columns: Any) -> Recs:
        """A parquet file or directory (read with pyarrow.dataset) as :meth:`from_frame`."""
        cols = (columns.get("user_col", "user_id"), columns.get("item_col", "item_id"))
        return cls.from_frame(_frame.read_parquet(path, cols), **columns)

    @classmethod
    def from_trec(cls, path: Any) -> Recs:
        """A TREC run file (``query Q0 docno rank score runid``; gzip allowed), ranked by score."""
        users, indptr, docs, scores = _trec.parse_run(path)
        return cls(indptr, docs, scores, users, by_score=True)

    @classmethod
    def from_lists(cls, items: Sequence[Iterable[Any]], scores: Optional[Sequence[Iterable[float]]] = None) -> Recs:
        """``items[u]`` is user u's list, best first (users are positions 0..n-1)."""
        if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
            raise TypeError(f"`recs` lists must be a list of lists, got {type(items).__name__}")
        if scores is None:
            read = walk_objects(None, items)
            if read is not None and read[1] is not None and not read[1].by_score:
                return read[1]
        rows = _rows(items, "recs")
        indptr = indptr_of(rows)
        flat = as_id_array(list(itertools.chain.from_iterable(rows)), "recs items")
        s = None
        if scores is not None:
            srows = [list(r) for r in scores]
            if len(srows) != len(rows) or any(len(a) != len(b) for a, b in zip(srows, rows)):
                raise ValueError("`scores` must have the same shape as the recs `items` lists")
            s = as_float64_1d(list(itertools.chain.from_iterable(srows)), "recs scores", flat.size)
            check_scores(s, indptr, None)
        return cls(indptr, flat, s, None)

    @classmethod
    def from_dict(cls, d: Mapping[Any, Any]) -> Recs:
        """``{user: [items best first]}`` or ``{user: {item: score}}`` (ranked by score)."""
        if not isinstance(d, Mapping):
            raise TypeError(f"`recs` must be a dict, got {type(d).__name__}")
        read = walk_objects(None, d)
        if read is not None and read[1] is not None:
            return read[1]
        users = as_id_array(list(d.keys()), "recs users")
        values = list(d.values())
        scored = [isinstance(v, Mapping) for v in values]
        if any(scored) and not all(scored):
            raise TypeError("`recs` dict mixes {item: score} dicts and ordered lists; use one form for every user")
        rows: list[Any] = []
        for user, v in zip(d.keys(), values):
            if isinstance(v, Mapping):
                rows.append(v.keys())
            elif isinstance(v, (str, bytes)) or not isinstance(v, Iterable) or isinstance(v, (set, frozenset)):
                raise TypeError(
                    f"`recs` for user {user!r} must be an ordered list of items or a dict of item -> score, "
                    f"got {type(v).__name__}"
                )
            else:
                rows.append(v if isinstance(v, (list, tuple)) else list(v))
        indptr = indptr_of(rows)
        flat = as_id_array(list(itertools.chain.from_iterable(rows)), "recs items")
        if all(scored) and values:
            try:
                s = np.fromiter(
                    itertools.chain.from_iterable(v.values() for v in values), dtype=np.float64, count=flat.size
                )
            except (TypeError, ValueError) as e:
                raise TypeError(f"`recs` scores must be numbers: {e}") from None
            return cls.from_csr(indptr, flat, s, users, by_score=True)
        return cls(indptr, flat, None, users)


def combine_truth_duplicates(t: Truth, how: str) -> Truth:
    """``t`` with every item repeated in a user's truth kept once, its grade the largest (``"max"``), the
    sum (``"sum"``: a truth without grades then counts the repeats), the first or the last of the repeats'
    grades, in the order of the rows. The first occurrences keep their order; ``t`` itself when nothing
    repeats. Vectorised: one stable sort of (user, item) over the whole truth."""
    n = t.n_entries
    if n == 0:
        return t
    row = np.repeat(np.arange(t.n_users, dtype=np.int64), np.diff(t.indptr))
    if t.coded is not None:
        key = t.coded.codes
    else:
        items = t.items_native
        if items.dtype.kind in "iu":
            key = items
        else:
            _, key = np.unique(items.astype(str) if items.dtype == object else items, return_inverse=True)
    order = np.lexsort((key, row))  # stable: by user, then item, repeats in row order
    ks, rs = key[order], row[order]
    start = np.ones(n, dtype=bool)
    start[1:] = (ks[1:] != ks[:-1]) | (rs[1:] != rs[:-1])
    if start.all():
        return t
    starts = np.flatnonzero(start)
    g = t.grades if t.grades is not None else np.ones(n, dtype=np.float64)
    gs = g[order]
    if how == "max":
        grades = np.maximum.reduceat(gs, starts)
    elif how == "sum":
        grades = np.add.reduceat(gs, starts)
    elif how == "first":
        grades = gs[starts]
    elif how == "last":
        grades = gs[np.append(starts[1:], n) - 1]
    else:  # pragma: no cover - checked by the options
        raise ValueError(f"`truth_duplicates` must be 'error', 'max', 'sum', 'first' or 'last', got {how!r}")
    keep = order[starts]
    back = np.argsort(keep, kind="stable")  # the first occurrences in their row order
    keep, grades = keep[back], grades[back]
    indptr = np.zeros(t.n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(row[keep], minlength=t.n_users), out=indptr[1:])
    items_out: Any = t.coded.with_codes(t.coded.codes[keep]) if t.coded is not None else t.items_native[keep]
    binary = t.grades is None and how != "sum"
    out = Truth(indptr, items_out, None if binary else grades, t.users)
    if t.source_rows is not None:
        out.source_rows, out.source_col = t.source_rows[keep], t.source_col
    return out
