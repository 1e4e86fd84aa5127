"""The worked example of docs/fairness.md: does a model serve cold users as well as heavy users?

Simulated interactions of MovieLens shape: 6,000 users whose activity is log-normal (a few heavy users, many
light ones), 3,000 items whose popularity follows Zipf's law. Each user's last fifth of interactions is the
test set, the rest is train. Two runs of top-10 lists, train items excluded:

- ``most_popular``: the 10 most popular train items the user has not seen (the same for everyone);
- ``personal``: a simulated model whose quality grows with the history it had to learn from: each of its 10
  slots holds one of the user's test items with probability 0.05 + 0.25 * (1 - exp(-|train| / 30)), else a
  popular unseen item.

    python docs/examples/segments.py [out.png]

prints the per-group tables and the gaps, draws ``ndcg@10`` by group (docs/fairness_groups.png), and then
asks which providers the two runs expose: the items belong to three providers by popularity rank (``major``:
the 300 most popular items, ``mid``: the next 1,200, ``indie``: the other 1,500).
"""

from __future__ import annotations

import sys

import numpy as np

import rankmeter as rm

rng = np.random.default_rng(2020)
n_users, n_items = 6_000, 3_000
activity = np.maximum(2, rng.lognormal(2.6, 1.1, n_users).astype(int))
popularity = 1.0 / np.arange(1, n_items + 1) ** 0.9
popularity /= popularity.sum()

train: dict[int, list[int]] = {}
test: dict[int, list[int]] = {}
for u in range(n_users):
    seen = rng.choice(n_items, size=min(int(activity[u]), n_items // 2), replace=False, p=popularity)
    cut = max(1, round(0.8 * seen.size))
    train[u], test[u] = seen[:cut].tolist(), seen[cut:].tolist()

counts = np.bincount(np.concatenate([np.asarray(v) for v in train.values()]), minlength=n_items)
by_popularity = np.argsort(-counts, kind="stable")


def unseen_popular(u: int, n: int, skip: set) -> list[int]:
    out = []
    for i in by_popularity:
        if len(out) == n:
            break
        if int(i) not in skip:
            out.append(int(i))
    return out


most_popular = {u: unseen_popular(u, 10, set(train[u])) for u in range(n_users)}
personal = {}
for u in range(n_users):
    p_hit = 0.05 + 0.25 * (1 - np.exp(-len(train[u]) / 30))
    hits = [i for i in test[u] if rng.random() < p_hit][:10]
    fill = unseen_popular(u, 10 - len(hits), set(train[u]) | set(hits))
    personal[u] = hits + fill
    rng.shuffle(personal[u])

groups = rm.activity_groups(train, bins=[10, 50])  # cold < 10 train interactions, regular 10-49, heavy >= 50
cmp = rm.compare(
    test,
    {"most_popular": most_popular, "personal": personal},
    ["ndcg@10", "recall@10", "hit_rate@10"],
    user_groups=groups,
)
print(cmp.by_group().round(4).to_string())
print()
for run in cmp.runs:
    print(run)
    print(cmp.results[run].group_gaps(n_permutations=999, seed=0).round(4).to_string())
    print()
fig = cmp.plot("groups", "ndcg@10")
fig.savefig(sys.argv[1] if len(sys.argv) > 1 else "docs/fairness_groups.png", dpi=110)

providers = {int(i): "major" if r < 300 else "mid" if r < 1500 else "indie" for r, i in enumerate(by_popularity)}
exposure = ["exposure_gini@10", "exposure_disparity(target=catalog)@10", "awrf(target=catalog)@10"]
print("item exposure by provider (target: each provider's share of the catalog)")
for run, lists in (("most_popular", most_popular), ("personal", personal)):
    res = rm.evaluate(test, lists, exposure, item_groups=providers, train=train)
    print(f"{run:13s}" + "".join(f"  {m.split('(')[0].split('@')[0]} {res[m]:.4f}" for m in exposure))
