"""Elliot's metrics restated in plain Python (Elliot does not install here: it needs an older Python).

Restated from Elliot's published code at commit fc27efedaddf4a57294db14b4bcaa5553a0015d2 of sisinflab/elliot
(setup.py version 1.0.0), ``elliot/evaluation/``: ``evaluator.py`` (which users each metric sees),
``relevance/relevance.py`` (binary and graded relevance, the rank discount), ``popularity_utils/popularity.py``
(item popularity, the short head) and ``metrics/*``. This module is a restatement of the formulas and conventions,
written for rankmeter's tests, not Elliot's code:

- ``Evaluator._process_test_data`` keeps the recommendation lists of the users that have test data (any rating);
  the lists of other users and the test users without a list are not evaluated;
- relevance threshold t (``relevance_threshold``): a test item is relevant when its rating >= t; binary relevance
  1, graded relevance (nDCG) 2^(rating - t + 1) - 1; the discount of 0-based rank r is ln 2 / ln(r + 2);
- the accuracy metrics and EPC/EFD evaluate the users with at least one relevant test item, every other
  list-based metric every user kept; each value is read from the list cut at the cutoff k (``list[:k]``), a
  repeated item counting at each of its positions; the mean is ``np.average`` of the per-user values;
- nDCG = DCG / IDCG (0 when DCG is 0) with graded gains, IDCG over the min(|R|, k) largest gains;
  nDCGRendle2020 the same with binary gains; Precision = hits / k (k even for a shorter list); Recall = hits /
  |R|; F1 their harmonic mean (0 when both are 0); HR = 1 if a hit; MRR = 1 / rank of the first hit;
  MAP = the mean over n = 1..k of hits@n / n; MAR = the mean over n = 1..k of hits@n / |R|;
- popularity: the number of distinct train users of an item (the binarised train matrix); the items are the
  train items (``num_items``, Elliot recommends no other); the short head: the train items by popularity,
  descending, taken up to and including the one at which their summed popularity reaches 0.8 x the train
  transactions (distinct user-item pairs); the long tail the other train items. Elliot breaks ties of
  popularity by the order of its item index (a Python set of the train items); the restatement by item id;
- ARP = sum of the popularity of the list's items / list length; APLT = |set(list) & long tail| / list length;
  ACLT = |set(list) & long tail| (an empty list: ZeroDivisionError for ARP and APLT, as in Elliot);
- EPC / EFD: sum over the list of rel * disc(r) * novelty(i) / sum of disc(r); novelty 1 - users(i) / train users
  (1 for an item not in train) / -log2(users(i) / sum of users) (for an item not in train, the largest value);
- ItemCoverage = the number of distinct items of all lists; UserCoverage = the number of non-empty lists;
  NumRetrieved = the mean list length over the users with a relevant item; Gini = 1 - the Gini coefficient of the
  items' recommendation counts over ``num_items`` items (n - 1 divisor); SEntropy = sum over items of w_i
  (-log2(c_i / total positions)) / number of users, w_i = sum over the lists holding i of 1 / list length.
"""

from __future__ import annotations

import math
from typing import Any


def discount(r: int) -> float:
    """Elliot's logarithmic_ranking_discount of the 0-based rank r."""
    return 1 / math.log(r + 2) * math.log(2)


class Elliot:
    """The restated evaluation of one run: ``test`` {user: {item: rating}}, ``recs`` {user: [item, ...]} (ranked),
    ``train`` {user: {item: rating}}, relevance threshold ``t``."""

    def __init__(self, test: dict, recs: dict, train: dict, t: float = 1.0):
        self.test = test
        self.recs = {u: lst for u, lst in recs.items() if test.get(u)}
        self.t = t
        self.rel = {u: [i for i, r in items.items() if r >= t] for u, items in test.items()}
        self.gain = {u: {i: 2 ** (r - t + 1) - 1 for i, r in items.items() if r >= t} for u, items in test.items()}
        self.train = train
        pop: dict = {}
        for items in train.values():
            for i in items:
                pop[i] = pop.get(i, 0) + 1
        self.pop = pop
        self.num_items = len(pop)
        self.transactions = sum(len(v) for v in train.values())

    def relevant_users(self) -> list:
        return [u for u in self.recs if self.rel.get(u)]

    # ---- accuracy (users with a relevant test item)
    def _hits(self, u: Any, lst: list) -> int:
        rel = self.rel.get(u, [])
        return sum(1 for i in lst if i in rel)

    def ndcg(self, u: Any, k: int) -> float:
        gains = sorted(self.gain.get(u, {}).values())
        m, n = len(gains), min(len(gains), k)
        idcg = sum(gains[m - r - 1] * discount(r) for r in range(n))
        dcg = sum(self.gain[u].get(i, 0) * discount(r) for r, i in enumerate(self.recs[u][:k]) if r < k)
        return dcg / idcg if dcg > 0 else 0

    def ndcg_rendle(self, u: Any, k: int) -> float:
        idcg = 1 / sum(1 / (math.log(i + 2) / math.log(2)) for i in range(min(len(self.rel[u]), k)))
        return idcg * sum(
            1 / (math.log(p + 2) / math.log(2)) for p, i in enumerate(self.recs[u][:k]) if i in self.rel[u]
        )

    def precision(self, u: Any, k: int) -> float:
        return self._hits(u, self.recs[u][:k]) / k

    def recall(self, u: Any, k: int) -> float:
        return self._hits(u, self.recs[u][:k]) / len(self.rel[u])

    def f1(self, u: Any, k: int) -> float:
        p, r = self.precision(u, k), self.recall(u, k)
        return 2 * p * r / (p + r) if p + r != 0 else 0

    def hr(self, u: Any, k: int) -> float:
        return 1 if self._hits(u, self.recs[u][:k]) > 0 else 0

    def mrr(self, u: Any, k: int) -> float:
        for r, i in enumerate(self.recs[u][:k]):
            if i in self.rel[u]:
                return 1 / (r + 1)
        return 0

    def map(self, u: Any, k: int) -> float:
        top = self.recs[u][:k]
        return sum(self._hits(u, top[: n + 1]) / (n + 1) for n in range(k)) / k

    def mar(self, u: Any, k: int) -> float:
        top = self.recs[u][:k]
        return sum(self._hits(u, top[: n + 1]) / len(self.rel[u]) for n in range(k)) / k

    def num_retrieved(self, u: Any, k: int) -> float:
        return len(self.recs[u][:k])

    def _novelty(self, u: Any, k: int, value: dict, unseen: float) -> float:
        nov = norm = 0.0
        for r, i in enumerate(self.recs[u][:k]):
            nov += (1 if i in self.rel[u] else 0) * discount(r) * value.get(i, unseen)
            norm += discount(r)
        return nov / norm if norm > 0 else nov

    def epc(self, u: Any, k: int) -> float:
        n_users = len(self.train)
        return self._novelty(u, k, {i: 1 - v / n_users for i, v in self.pop.items()}, 1.0)

    def efd(self, u: Any, k: int) -> float:
        norm = sum(self.pop.values())
        value = {i: -math.log(v / norm) / math.log(2) for i, v in self.pop.items()}
        return self._novelty(u, k, value, -math.log(min(self.pop.values()) / norm) / math.log(2))

    # ---- every user kept
    def _long_tail(self) -> set:
        order = sorted(self.pop.items(), key=lambda kv: (-kv[1], kv[0]))
        limit = self.transactions * 0.8
        head = set()
        for i, p in order:
            head.add(i)
            limit -= p
            if limit <= 0:
                break
        return {i for i in self.pop if i not in head}

    def arp(self, u: Any, k: int) -> float:
        top = self.recs[u][:k]
        return sum(self.pop[i] for i in top) / len(top)

    def aplt(self, u: Any, k: int) -> float:
        top = self.recs[u][:k]
        return len(set(top) & self._long_tail()) / len(top)

    def aclt(self, u: Any, k: int) -> float:
        return len(set(self.recs[u][:k]) & self._long_tail())

    # ---- one value for the run
    def item_coverage(self, k: int) -> int:
        return len({i for lst in self.recs.values() for i in lst[:k]})

    def user_coverage(self) -> int:
        return sum(1 if len(lst) > 0 else 0 for lst in self.recs.values())

    def gini(self, k: int) -> float:
        count: dict = {}
        total = 0
        for lst in self.recs.values():
            total += len(lst[:k])
            for i in lst[:k]:
                count[i] = count.get(i, 0) + 1
        n, z = self.num_items, self.num_items - len(count)
        g = sum((2 * (j + z + 1) - n - 1) * (c / total) for j, c in enumerate(sorted(count.values())))
        return 1 - g / (n - 1)

    def sentropy(self, k: int) -> float:
        count: dict = {}
        weight: dict = {}
        total = 0
        for lst in self.recs.values():
            top = lst[:k]
            total += len(top)
            for i in top:
                count[i] = count.get(i, 0) + 1
                weight[i] = weight.get(i, 0) + 1 / len(top)
        return sum(w * (-math.log(count[i] / total) / math.log(2)) for i, w in weight.items()) / len(self.recs)


# label -> (method, which users: "relevant" (accuracy, EPC/EFD), "kept" (every list kept), or "run" (one value))
METRICS: dict[str, tuple[str, str]] = {
    "nDCG": ("ndcg", "relevant"),
    "nDCGRendle2020": ("ndcg_rendle", "relevant"),
    "Precision": ("precision", "relevant"),
    "Recall": ("recall", "relevant"),
    "F1": ("f1", "relevant"),
    "HR": ("hr", "relevant"),
    "MRR": ("mrr", "relevant"),
    "MAP": ("map", "relevant"),
    "MAR": ("mar", "relevant"),
    "EPC": ("epc", "relevant"),
    "EFD": ("efd", "relevant"),
    "ARP": ("arp", "kept"),
    "APLT": ("aplt", "kept"),
    "ACLT": ("aclt", "kept"),
    "ItemCoverage": ("item_coverage", "run"),
    "Gini": ("gini", "run"),
    "SEntropy": ("sentropy", "run"),
}


def evaluate(test: dict, recs: dict, train: dict, ks: list, t: float = 1.0) -> dict:
    """{label@k: {"per_user": [[user, value], ...] | None, "mean": value | None, "raised": error}} for every
    metric of :data:`METRICS` at each cutoff, and UserCoverage; a metric that raises records the error."""
    e = Elliot(test, recs, train, t)
    out: dict = {}
    for k in ks:
        for label, (method, users) in METRICS.items():
            key = f"{label}@{k}"
            f = getattr(e, method)
            try:
                if users == "run":
                    out[key] = {"per_user": None, "mean": _num(f(k))}
                    continue
                who = e.relevant_users() if users == "relevant" else list(e.recs)
                per_user = [[u, float(f(u, k))] for u in who]
            except (ZeroDivisionError, KeyError, ValueError) as err:
                out[key] = {"per_user": None, "mean": None, "raised": type(err).__name__}
                continue
            vals = [v for _, v in per_user]
            out[key] = {"per_user": per_user, "mean": sum(vals) / len(vals) if vals else None}
    try:
        out["UserCoverage"] = {"per_user": None, "mean": float(e.user_coverage())}
    except ZeroDivisionError as err:  # pragma: no cover - a count never divides
        out["UserCoverage"] = {"per_user": None, "mean": None, "raised": type(err).__name__}
    return out


def _num(v: float) -> Any:
    v = float(v)
    return None if math.isnan(v) else v
