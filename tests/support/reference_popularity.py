"""Naive pure-Python references of the popularity and long-tail metrics (docs/metrics.md 3.19.13-3.19.19).

Written from the definitions of the docs with plain loops and dicts (sorted() for the head/tail splits), never
from the implementation. Inputs as in ``reference_beyond``: ``lists`` ``{user: [items best first]}`` (already
de-duplicated), ``train`` ``{user: [items]}`` (repeats allowed), ``truth_u`` ``{item: grade}``.
Per-user functions return a float (NaN: the user is skipped); shannon_entropy returns one float.
"""

import math

NAN = float("nan")


def _top(lst, k):
    return lst if k is None else lst[:k]


def _sort_key(item):
    return (0, item, "") if isinstance(item, int) else (1, 0, str(item))


def popularity(train, kind="users"):
    """item -> distinct train users holding it (users) or train rows equal to it (interactions)."""
    out: dict = {}
    for items in train.values():
        for i in set(items) if kind == "users" else items:
            out[i] = out.get(i, 0) + 1
    return out


def train_user_count(train):
    return sum(1 for items in train.values() if items)


# --------------------------------------------------------------------------- catalog
def shannon_entropy(lists, k, log_base=math.e, normalize="none"):
    counts: dict = {}
    for lst in lists:
        for i in _top(lst, k):
            counts[i] = counts.get(i, 0) + 1
    total = sum(counts.values())
    if total == 0:
        return NAN
    h = 0.0
    for c in counts.values():
        p = c / total
        h -= p * math.log(p, log_base) if log_base != math.e else p * math.log(p)
    return h / len(counts) if normalize == "distinct" else h


# --------------------------------------------------------------------------- head / tail
def short_head(train, share, kind="users"):
    """Train items by popularity descending (ties: smaller id first), taken until their cumulative popularity
    reaches share x the total."""
    pop = popularity(train, kind)
    items = sorted(pop, key=lambda i: (-pop[i], _sort_key(i)))
    total = sum(pop.values())
    head, cum = set(), 0
    for i in items:
        head.add(i)
        cum += pop[i]
        if cum >= share * total:
            break
    return head


def recbole_tail(train, ratio):
    pop = popularity(train, "interactions")
    if ratio > 1:
        return {i for i, c in pop.items() if c <= ratio}
    items = sorted(pop, key=lambda i: (pop[i], _sort_key(i)))
    return set(items[: max(int(len(items) * ratio), 1)])


def tail_percentage(lst, k, train, tail_ratio=0.1, tail_items=None):
    """tail_items: the given long tail (tail="given") instead of RecBole's split."""
    t = _top(lst, k)
    if not t:
        return NAN
    tail = recbole_tail(train, tail_ratio) if tail_items is None else set(tail_items)
    return sum(1 for i in t if i in tail) / len(t)


def _is_tail(train, head_share, popularity, tail_items):
    if tail_items is not None:
        given = set(tail_items)
        return lambda i: i in given
    head = short_head(train, head_share, popularity)
    return lambda i: i not in head


def aplt(lst, k, train, head_share=0.8, popularity="users", tail_items=None):
    t = _top(lst, k)
    if not t:
        return NAN
    is_tail = _is_tail(train, head_share, popularity, tail_items)
    return sum(1 for i in t if is_tail(i)) / len(t)


def aclt(lst, k, train, head_share=0.8, popularity="users", tail_items=None):
    is_tail = _is_tail(train, head_share, popularity, tail_items)
    return float(sum(1 for i in _top(lst, k) if is_tail(i)))


# --------------------------------------------------------------------------- novelty-like
def surprisal(lst, k, train):
    n = train_user_count(train)
    if n <= 1:
        return NAN
    t = _top(lst, k)
    if not t:
        return 0.0
    pop = popularity(train, "users")
    s = 0.0
    for i in t:
        s += math.log2(n / pop[i]) / math.log2(n) if i in pop else 1.0
    return s / (k if k is not None else len(t))


def _relevant(truth_u, min_relevance=None):
    return {i for i, g in truth_u.items() if (g > 0 if min_relevance is None else g >= min_relevance)}


def _expected(truth_u, lst, k, value, discount, relevance, empty):
    rel = _relevant(truth_u)
    if relevance == "binary" and not rel:
        return {"skip": NAN, "zero": 0.0, "one": 1.0}[empty]
    num = den = 0.0
    for r, i in enumerate(_top(lst, k)):
        d = 1.0 / math.log2(r + 2) if discount == "log" else 1.0
        den += d
        if relevance == "binary" and i not in rel:
            continue
        num += d * value(i)
    return num / den if den > 0 else 0.0


def epc(truth_u, lst, k, train, discount="log", relevance="binary", empty="skip"):
    pop, n = popularity(train, "users"), train_user_count(train)
    return _expected(truth_u, lst, k, lambda i: 1.0 - pop[i] / n if i in pop else 1.0, discount, relevance, empty)


def efd(truth_u, lst, k, train, discount="log", relevance="binary", empty="skip"):
    pop = popularity(train, "users")
    if not pop:
        return NAN
    norm = sum(pop.values())
    cold = -math.log2(min(pop.values()) / norm)
    return _expected(
        truth_u, lst, k, lambda i: -math.log2(pop[i] / norm) if i in pop else cold, discount, relevance, empty
    )


def user_coverage(truth_u, lst, k, served="hit"):
    t = _top(lst, k)
    if served == "any" or (served == "full" and k is None):
        return 1.0 if t else 0.0
    if served == "full":
        return 1.0 if len(t) >= k else 0.0
    return 1.0 if _relevant(truth_u) & set(t) else 0.0
