"""A fast random fuzzer over every public entry point, for the million-call long run.

The hypothesis suite (tests/properties/test_fuzz.py) checks every accepted input against
the pure-Python reference, which costs milliseconds per call. This driver
keeps the same oracle for each call (:func:`fuzz_strategies.guarded`: a
result or a ValueError/TypeError naming the argument, no hang, no write into
the caller's arrays, and no crash of the process) but draws its inputs with
numpy's generator, so it runs about ten times as many calls per second.

    RANKMETER_FUZZ_CALLS=1000000 RANKMETER_FUZZ_SEED=1 RANKMETER_FUZZ_REPORT=r.json \\
        python -m pytest tests/properties/test_fuzz.py -k random -q

CI runs it with 3000 calls. Inputs mix valid and malformed parts: wrong
dtypes (object, bool, float, big-endian, uint64), NaN/inf grades and scores,
negative, huge and duplicate ids, string ids, empty and ragged forms,
mismatched lengths, non-contiguous and read-only arrays, unknown metrics and
options, and random context (train, features, similarity, catalog).
"""

from __future__ import annotations

import gzip
import io
import os
import tempfile

import numpy as np

import rankmeter as rm
from tests.support import fuzz_strategies as fz

METRIC_POOL = [
    "precision",
    "recall@3",
    "ndcg@5",
    "map",
    "mar@2",
    "mrr",
    "hit_rate@1",
    "arhr",
    "f1@4",
    "fbeta(beta=0.5)@3",
    "dcg@10",
    "cg",
    "hits@2",
    "r_precision",
    "num_rel",
    "success@1",
    "ndcg(gain=exponential,ideal=all)@3",
    "map(denominator=hits)@5",
    "recall(denominator=min_relevant_k)@2",
    "coverage@3",
    "personalization@2",
    "personalization(similarity=cosine)",
    "gini(over=recommended)@3",
    "arp@2",
    "novelty(unseen=zero)@3",
    "diversity@3",
    "diversity(similarity=matrix)@2",
    "diversity(similarity=cooccurrence)",
    "fcp",
    "serendipity@3",
    "score_entropy@4",
    # malformed (after N_VALID_METRICS)
    "precision@0",
    "ndcg@-1",
    "nope",
    "map(denominator=x)",
    "recall@",
    "@3",
    "",
    "ndcg(gain=linear",
    3,
    None,
]
N_VALID_METRICS = METRIC_POOL.index("precision@0")
SHORTCUTS = [
    "precision",
    "recall",
    "map",
    "ndcg",
    "mrr",
    "hit_rate",
    "coverage",
    "personalization",
    "gini",
    "novelty",
    "arp",
    "diversity",
    "fcp",
    "score_entropy",
]
HUGE = np.array([2**62 + j for j in range(20)] + [-(2**63) + j for j in range(10)] + [2**63 - 1 - j for j in range(10)])
WEIRD = [None, float("nan"), float("inf"), "x", b"y", 2**64, -(2**63), 2**63 - 1, 1.5, True, (1,), object()]


class Gen:
    def __init__(self, seed: int):
        self.r = np.random.default_rng(seed)
        self.bad = 0.3  # per call: the chance that each part may be malformed

    def flaw(self, p: float) -> bool:
        """A malformation with probability p, only in calls drawn as malformed."""
        return self.bad > 0 and self.r.random() < p

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def pick(self, seq):
        return seq[int(self.r.integers(len(seq)))]

    def ids(self, n: int):
        kind = self.r.integers(6) if self.bad else self.pick([0, 1, 1, 2, 3])
        if kind == 0:
            return self.r.integers(0, 12, n)
        if kind == 1:
            return self.r.integers(-5, 30, n)
        if kind == 2:
            return self.r.choice(np.array([0, 1, 2**62, -(2**63), 2**63 - 1, 2**31, 7]), n)
        if kind == 3:
            return np.array([f"i{int(x)}" for x in self.r.integers(0, 12, n)], dtype=object)
        if kind == 4:
            return self.r.integers(0, 12, n).astype(np.float64)
        out = np.empty(n, dtype=object)
        for j, x in enumerate(self.r.integers(0, 9, n)):
            out[j] = self.pick(WEIRD) if self.chance(0.3) else int(x)
        return out

    def mangle(self, a: np.ndarray) -> np.ndarray:
        """Dtype, byte order, contiguity and writability changes (values kept where possible)."""
        c = self.r.integers(9)
        if c == 0 and a.dtype.kind in "iuf":
            a = a.astype(a.dtype.newbyteorder(">"))
        elif c == 1 and a.size:
            a = np.repeat(a, 2)[::2]  # non-contiguous view, same values
        elif c == 2 and a.dtype.kind in "iu":
            a = a.astype(np.int32, copy=False) if np.all((a > -(2**31)) & (a < 2**31)) else a
        elif c == 3 and a.dtype.kind in "iu" and a.size and a.min() >= 0:
            a = a.astype(np.uint64)
        elif c == 4:
            a = a.astype(object)
        elif c == 5 and a.size and a.dtype.kind in "iuf":
            a = a.astype(np.float32)
        if self.chance(0.3):
            a = np.array(a, copy=True)
            a.flags.writeable = False
        return a

    def csr(self, n_users: int, max_len: int = 6, graded=True):
        lens = self.r.integers(0, max_len + 1, n_users)
        indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        if self.bad:
            items = self.ids(int(indptr[-1]))
        else:  # distinct items per row, in one of the valid id forms
            base = np.concatenate([self.r.permutation(40)[:n] for n in lens] + [np.zeros(0, np.int64)])
            form = self.r.integers(4)
            items = (
                base
                if form == 0
                else base - 5
                if form == 1
                else HUGE[base]
                if form == 2
                else np.array([f"i{x}" for x in base], dtype=object)
            )
        grades = self.r.choice(np.array([0.0, 1.0, 2.0, 3.0, -1.0, 0.5]), items.size) if graded else None
        if grades is not None and self.flaw(0.2) and grades.size:
            grades[self.r.integers(grades.size)] = self.pick([np.nan, np.inf, -np.inf])
        if self.flaw(0.2) and indptr.size > 2:  # broken pointers
            indptr[self.r.integers(1, indptr.size)] += int(self.r.integers(-3, 4))
        if self.flaw(0.1):
            items = items[:-1] if items.size else np.array([1])
        return indptr, items, grades

    def truth(self, n_users: int):
        f = self.r.integers(4)
        ip, it, g = self.csr(n_users)
        if f == 0:
            return (self.mangle(ip), self.mangle(it), self.mangle(g) if g is not None else None)
        if f == 1:
            ok, out = fz.guarded(rm.Truth.from_csr, ip, it, g)
            return out if ok else None
        users = list(range(n_users))
        out = {}
        for u in users:
            row = it[ip[u] : ip[u + 1]] if 0 <= ip[u] <= ip[u + 1] <= it.size else []
            out[u] = (
                {
                    (x.item() if isinstance(x, np.generic) else x): float(
                        self.pick([1, 2, 0, -1, np.nan] if self.bad else [1, 2, 0, -1])
                    )
                    for x in row
                }
                if f == 2
                else [x.item() if isinstance(x, np.generic) else x for x in row]
            )
        return out

    def recs(self, n_users: int):
        f = self.r.integers(5)
        ip, it, _ = self.csr(n_users, max_len=8, graded=False)
        scores = self.r.normal(size=it.size) if self.chance(0.5) else None
        if scores is not None and self.flaw(0.2) and scores.size:
            scores[self.r.integers(scores.size)] = self.pick([np.nan, np.inf])
        if f == 0:
            ok, out = fz.guarded(rm.Recs.from_csr, ip, it, scores)
            return out if ok else None
        if f == 1:
            width = int(self.r.integers(0, 6))
            pad = self.r.integers(-1, 5, (n_users, width))
            ok, out = fz.guarded(
                rm.Recs.from_array,
                self.mangle(pad.ravel()).reshape(n_users, width) if width and self.flaw(0.5) else pad,
                pad=int(self.pick([-1, 0, 99])),
            )
            return out if ok else None
        if f == 2:
            m = self.r.normal(size=(n_users, int(self.r.integers(1, 7)))).astype(self.pick([np.float32, np.float64]))
            if self.flaw(0.2) and m.size:
                m[0, 0] = np.nan
            ok, out = fz.guarded(rm.Recs.from_scores, m, int(self.r.integers(-1 if self.bad else 1, 6)))
            return out if ok else None
        return {
            u: [x.item() if isinstance(x, np.generic) else x for x in it[ip[u] : ip[u + 1]]]
            for u in range(n_users)
            if 0 <= ip[u] <= ip[u + 1] <= it.size
        }

    def options(self):
        o = {}
        for key, n_valid, vals in (
            ("threads", 4, [None, 1, 2, 3, 0, -1, 5000, "2", 1.5]),
            ("empty", 4, ["skip", "zero", "one", "error", "bad"]),
            ("duplicates", 2, ["error", "first", "nope"]),
            ("ties", 2, ["input", "trec", "average", "x"]),
            ("min_relevance", 3, [1, 2, 0.5, -1, float("nan"), "1"]),
            ("max_items", 3, [None, 1, 3, 0, -2, 2**70]),
            ("preset", 2, [None, "trec_eval", "nope", 3]),
        ):
            if self.chance(0.25):
                o[key] = self.pick(vals if self.bad else vals[:n_valid])
        return o

    def context(self):
        c = {}
        if self.chance(0.5):
            c["train"] = self.truth(int(self.r.integers(0, 6)))
        if self.chance(0.3):
            n = int(self.r.integers(0, 15))
            c["item_features"] = (
                (np.arange(n), self.r.normal(size=(n, 3)))
                if self.chance(0.7)
                else self.r.normal(size=(n, int(self.r.integers(0, 3))))
            )
        if self.chance(0.2):
            n = int(self.r.integers(0, 15))
            c["item_similarity"] = self.r.random((n, n)) if self.chance(0.8) else self.r.random((n, n + 1))
        if self.chance(0.2):
            c["catalog"] = self.ids(int(self.r.integers(0, 20)))
        return c

    def metrics(self):
        if self.flaw(0.1):
            return self.pick(["precision@3", "", None, 5])
        pool = METRIC_POOL if self.bad else METRIC_POOL[:N_VALID_METRICS]
        return [self.pick(pool) for _ in range(int(self.r.integers(1, 5)))]


def one_call(g: Gen, tmpdir: str) -> None:
    g.bad = 0.3 if g.chance(0.5) else 0.0
    kind = g.r.integers(10)
    n = int(g.r.integers(0, 7))
    if kind <= 3:
        t = g.truth(n)
        r = g.recs(n if g.chance(0.9) else n + 1)
        if t is None or r is None:
            return
        fn = rm.evaluate if kind <= 2 else rm.partial
        kw = g.options()
        if g.chance(0.3 if g.bad else 0.7):
            kw.update(g.context())
        fz.guarded(fn, t, r, g.metrics(), **kw)
    elif kind == 4:
        t, r = g.truth(n), g.recs(n)
        if t is None or r is None:
            return
        name = g.pick(SHORTCUTS)
        kw = {"k": g.pick([None, 1, 3, 0, -1, "2"])}
        if g.chance(0.5):
            kw.update(g.context())
        fz.guarded(getattr(rm, name), t, r, **kw)
    elif kind == 5:
        ip, it, gr = g.csr(n)
        fz.guarded(
            g.pick([rm.Truth.from_csr, rm.Recs.from_csr]),
            g.mangle(ip),
            g.mangle(it),
            g.mangle(gr) if gr is not None and g.chance(0.7) else None,
        )
    elif kind == 6:
        fz.guarded(
            rm.metrics.parse,
            g.pick(METRIC_POOL)
            if g.chance(0.7)
            else "".join(g.pick(list("ndcg@(),=0123456789 abx-_.")) for _ in range(int(g.r.integers(0, 12)))),
        )
    elif kind == 7:
        lines = []
        for _ in range(int(g.r.integers(0, 6))):
            parts = [str(g.pick([0, 1, "q1", "Q 2", "", "x\t"])) for _ in range(int(g.r.integers(2, 7)))]
            lines.append(" ".join(parts))
        data = ("\n".join(lines)).encode("utf-8", "surrogatepass")
        if g.chance(0.2):
            data += bytes(g.r.integers(0, 256, 8, dtype=np.uint8))
        path = os.path.join(tmpdir, "f.gz" if g.chance(0.3) else "f.txt")
        with gzip.open(path, "wb") if path.endswith(".gz") and g.chance(0.8) else open(path, "wb") as f:
            f.write(data)
        fz.guarded(g.pick([rm.read_trec_qrels, rm.read_trec_run]), path)
    elif kind == 8:
        t, r = g.truth(n), g.recs(n)
        if t is None or r is None:
            return
        ok, st = fz.guarded(rm.partial, t, r, ["precision@2", "ndcg"])
        if ok:
            b = bytearray(st.to_bytes())
            if b and g.chance(0.8):
                for _ in range(int(g.r.integers(1, 4))):
                    b[int(g.r.integers(len(b)))] = int(g.r.integers(256))
            fz.guarded(rm.State.from_bytes, bytes(b) if g.chance(0.9) else io.BytesIO(b))
    else:
        t, r = g.truth(n), g.recs(n)
        if t is None or r is None:
            return
        fn = g.pick([rm.item_bias, rm.user_bias, rm.rec_cases])
        train = g.truth(int(g.r.integers(0, 5)))
        cats = {int(i): g.pick(["a", "b", ["a", "c"], None]) for i in range(int(g.r.integers(0, 8)))}
        if fn is rm.item_bias:
            fz.guarded(fn, r, train, cats, k=g.pick([None, 2, 0, -1]))
        elif fn is rm.user_bias:
            fz.guarded(fn, g.pick([t, r]), train, cats)
        else:
            fz.guarded(fn, r, train, n=g.pick([0, 2, -1, 10]), k=g.pick([1, 3, 0]), truth=g.pick([None, t]))
        return


def run(n_calls: int, seed: int) -> dict:
    g = Gen(seed)
    start = fz.CALLS["total"]
    with tempfile.TemporaryDirectory() as tmp:
        while fz.CALLS["total"] - start < n_calls:
            one_call(g, tmp)
    return dict(fz.CALLS)
