"""Two builds of rankmeter, bit for bit: every per-user value and mean, on W1 and on random edge cases.

    python bench/compare_builds.py --old /path/to/old/python --new python [--users 200000] [--cases 400]

Each side runs in a child process whose ``rankmeter`` is imported from the given directory (a source
tree's ``python/`` with its compiled ``_core`` beside it). Both children evaluate the same inputs:

- W1 (``rankmeter.datasets.w1``) with every accuracy metric and option spelling of the determinism suite,
  at cutoffs 1, 5, 10 and none, for threads 1 and 2;
- ``--cases`` random cases drawn from one seed: empty truth, all-zero and fractional grades, users
  missing on either side, empty and short lists, duplicates (``duplicates="first"``), padded arrays,
  string and huge ids, ``empty=`` policies, ``min_relevance``, ``max_items``, score ties with each
  ``ties=`` rule, the presets, and the beyond-accuracy metrics with their context.

The parent compares the raw bytes of every mean and every per-user column (or the error text, when a
case is rejected) and prints the number of values compared and any difference. Used to show that a
refactoring changed no number (docs/architecture.md).
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile

CUTOFFS = ("@1", "@5", "@10", "")
BASES = [
    *("precision", "recall", "recall(denominator=min_relevant_k)", "f1", "fbeta(beta=0.5)"),
    *("ap", "ap(denominator=min_relevant_k)", "ap(denominator=hits)", "ap(denominator=k)"),
    *("ar", "ar(denominator=hits)", "precision(short_lists=evidently)", "ap(short_lists=evidently)"),
    *("ar(short_lists=evidently)", "cg", "cg(gain=exponential)", "cg(gain=binary)", "cg(below_min=zero)"),
    *("dcg", "dcg(gain=exponential)", "dcg(gain=binary)", "dcg(log_base=10)", "dcg(gain=exponential,log_base=3)"),
    *("ndcg", "ndcg(ideal=all)", "ndcg(ideal=k_slots)", "ndcg(gain=exponential)", "ndcg(gain=exponential,ideal=all)"),
    *("ndcg(gain=exponential,ideal=k_slots)", "ndcg(gain=binary)", "ndcg(gain=binary,ideal=all)"),
    *("ndcg(gain=binary,ideal=k_slots)", "ndcg(below_min=zero)", "hit_rate", "rr", "arhr", "hits"),
    *("bpref", "rbp", "rbp(p=0.95,gain=linear,below_min=zero)", "err", "err(max_grade=2)", "judged"),
    *("num_nonrel_judged", "unjudged", "rbp_resid", "bin_g", "rbp(p=0.9,gain=linear,scale=max_grade)"),
]
ACCURACY = [
    *(b + c for c in CUTOFFS for b in BASES),
    *("r_precision", "num_rel", "rprec_mult(mult=0.2)", "rprec_mult(mult=2)", "iprec(at=0.1)", "iprec(at=0.5)"),
    *("trec_g", "ndcg_rel", "rndcg", "infap"),
]
BEYOND = [
    "fcp",
    "fcp(average=users)@3",
    "diversity@3",
    "diversity(similarity=cooccurrence)@3",
    "novelty@3",
    "novelty(unseen=zero,divide_by=k)@3",
    "novelty(unseen=one_user)",
    "serendipity@3",
    "serendipity(relevance=all)@4",
    "personalization@3",
    "personalization(similarity=cosine)",
    "coverage@3",
    "coverage",
    "arp@3",
    "arp(popularity=interactions,unseen=zero)@3",
    "arp(normalize=max)@2",
    "gini@3",
    "gini(over=recommended)",
    "score_entropy@3",
]

CHILD = r"""
import pickle, sys
import numpy as np
import rankmeter as rm

ACCURACY, BEYOND, users, n_cases, out = pickle.loads(bytes.fromhex(sys.argv[1]))


def record(res, metrics):
    row = {}
    for m in metrics:
        row[m] = np.float64(res[m]).tobytes()
        try:
            pu = res.per_user[m]
        except KeyError:
            continue
        row["per_user:" + m] = np.ascontiguousarray(pu, dtype=np.float64).tobytes()
    return row


def run(truth, recs, metrics, **kw):
    try:
        return record(rm.evaluate(truth, recs, metrics, **kw), metrics)
    except (ValueError, TypeError, KeyError) as e:
        return {"error": f"{type(e).__name__}: {e}"}


results = {}
w = rm.datasets.w1(users, seed=0)
for threads in (1, 2):
    results[f"w1/threads={threads}"] = run(w.truth, w.recs, ACCURACY, threads=threads)
    results[f"w1/per_user=False/threads={threads}"] = {
        m: np.float64(v).tobytes()
        for m, v in zip(ACCURACY, (lambda r: [r[m] for m in ACCURACY])(
            rm.evaluate(w.truth, w.recs, ACCURACY, threads=threads, per_user=False)))
    }

g = np.random.default_rng(20261125)


def ids(n, kind):
    if kind == "str":
        return [f"i{j}" for j in range(n)]
    if kind == "huge":
        return [2**62 + 7 * j for j in range(n)]
    return list(range(n))


for case in range(n_cases):
    n_users = int(g.integers(1, 30))
    n_items = int(g.integers(1, 40))
    kind = ["int", "str", "huge"][case % 3]
    items = ids(n_items, kind)
    users = ids(n_users + 3, "str" if case % 2 else "int")
    grade_kind = case % 4
    truth, recs, scored = {}, {}, {}
    for u in users[:n_users]:
        if g.random() < 0.1:
            continue  # a user missing from truth
        m = int(g.integers(0, min(n_items, 8) + 1))
        chosen = g.choice(n_items, size=m, replace=False)
        if grade_kind == 0:
            grades = np.ones(m)
        elif grade_kind == 1:
            grades = g.integers(0, 4, size=m).astype(float)
        elif grade_kind == 2:
            grades = np.zeros(m)
        else:
            grades = np.round(g.random(m) * 3 - 0.5, 2)
        truth[u] = {items[int(i)]: float(x) for i, x in zip(chosen, grades)}
    for u in users:
        if g.random() < 0.15:
            continue  # a user missing from recs
        n = int(g.integers(0, min(n_items, 12) + 1))
        lst = [items[int(i)] for i in g.integers(0, n_items, size=n)]
        recs[u] = lst
        scored[u] = {it: float(g.integers(0, 3)) for it in lst}
    kw = {"threads": int(g.integers(1, 4)), "duplicates": "first"}
    if g.random() < 0.3:
        kw["empty"] = ["skip", "zero", "one"][int(g.integers(0, 3))]
    if g.random() < 0.3:
        kw["min_relevance"] = float(g.integers(1, 3))
    if g.random() < 0.2:
        kw["max_items"] = int(g.integers(1, 6))
    if g.random() < 0.3:
        kw["missing"] = ["zero", "skip"][int(g.integers(0, 2))]
    metrics = [ACCURACY[int(i)] for i in g.integers(0, len(ACCURACY), size=12)]
    results[f"case{case}/lists"] = run(truth, recs, metrics, **kw)
    ties = ["input", "trec", "item_desc"][case % 3]
    results[f"case{case}/scores/{ties}"] = run(truth, scored, metrics, ties=ties, **kw)
    train = {u: [items[int(i)] for i in g.integers(0, n_items, size=int(g.integers(0, 6)))] for u in users}
    feats = {it: g.random(3) for it in items}
    beyond = [BEYOND[int(i)] for i in g.integers(0, len(BEYOND), size=6)]
    results[f"case{case}/beyond"] = run(truth, scored, beyond, train=train, item_features=feats, **kw)
    for preset in ("trec_eval", "ranx", "rectools", "evidently", "recommenders", "torchmetrics"):
        if g.random() < 0.25:
            results[f"case{case}/preset={preset}"] = run(truth, scored, metrics[:6], preset=preset)

with open(out, "wb") as f:
    pickle.dump(results, f)
"""


def side(path: str, users: int, cases: int, tmp: str, label: str) -> dict:
    out = os.path.join(tmp, f"{label}.pkl")
    arg = pickle.dumps((ACCURACY, BEYOND, users, cases, out)).hex()
    env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
    p = subprocess.run([sys.executable, "-c", CHILD, arg], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{label} side failed:\n{p.stderr[-3000:]}")
    with open(out, "rb") as f:
        return pickle.load(f)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="directory holding the old build's rankmeter package")
    ap.add_argument("--new", required=True, help="directory holding the new build's rankmeter package")
    ap.add_argument("--users", type=int, default=200_000)
    ap.add_argument("--cases", type=int, default=400)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = side(args.old, args.users, args.cases, tmp, "old")
        new = side(args.new, args.users, args.cases, tmp, "new")
    n_values = n_bad = n_errors = 0
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a is None or b is None or set(a) != set(b):
            print(f"DIFFERENT keys in {key}")
            n_bad += 1
            continue
        if "error" in a:
            n_errors += 1
        for name in a:
            if a[name] != b[name]:
                print(f"DIFFERENT {key} {name}")
                n_bad += 1
            elif name != "error":
                n_values += len(a[name]) // 8
    print(
        f"{len(old)} evaluations ({n_errors} rejected with the same message on both sides), "
        f"{n_values:,} float64 values compared byte for byte: {n_bad} differences"
    )
    return 1 if n_bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
