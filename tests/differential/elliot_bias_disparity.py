"""Restatement of Elliot's ``BiasDisparityBS``, ``BiasDisparityBR`` and ``BiasDisparityBD``
(elliot/evaluation/metrics/fairness/BiasDisparity/, sisinflab/elliot) for the comparison with
``rm.bias_disparity``.

Elliot reads its clusterings from files as dicts id -> integer cluster 0 .. n-1 and indexes numpy arrays by
cluster; without a user clustering every user is in cluster 0. Per (user cluster, item category) it counts the
train pairs (``train_dict``: one per (user, item)) or the top-``cutoff`` entries of the recommendations whose user
has a cluster and whose item has a category; PR = count / the user cluster's count; P(C) = the share of the
clustering file's items in C; B = PR / P(C); BD = (BR - BS) / BS.
"""

from __future__ import annotations

import numpy as np


def _bias(lists: dict, user_cluster: dict, item_cluster: dict, n_users: int, n_items: int) -> np.ndarray:
    count = np.zeros((n_users, n_items))
    total = np.zeros(n_users)
    for user, items in lists.items():
        g = user_cluster.get(user, None if user_cluster else 0)
        if g is None:
            continue
        for item in items:
            c = item_cluster.get(item, None if item_cluster else 0)
            if c is not None:
                count[g, c] += 1
                total[g] += 1
    sizes: dict = {}
    for c in item_cluster.values():
        sizes[c] = sizes.get(c, 0) + 1
    pc = np.array([sizes.get(c, 0) / len(item_cluster) if item_cluster else 1 for c in range(n_items)])
    with np.errstate(divide="ignore", invalid="ignore"):
        return (count.T / total).T / pc


def elliot_bias_disparity(
    train: dict, recs: dict, cutoff: int, user_cluster: dict, item_cluster: dict
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(BS, BR, BD) arrays (user clusters x item categories). ``train``: {user: {item: rating}}; ``recs``:
    {user: [item, ...]}; clusters: id -> int."""
    n_users = len(set(user_cluster.values())) if user_cluster else 1
    n_items = len(set(item_cluster.values())) if item_cluster else 1
    bs = _bias({u: list(r) for u, r in train.items()}, user_cluster, item_cluster, n_users, n_items)
    br = _bias({u: r[:cutoff] for u, r in recs.items()}, user_cluster, item_cluster, n_users, n_items)
    with np.errstate(divide="ignore", invalid="ignore"):
        return bs, br, (br - bs) / bs
