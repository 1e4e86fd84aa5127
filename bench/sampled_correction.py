"""Sampled vs corrected vs full metrics on a small W1-like simulation (docs/model.md, "Sampled evaluation").

python bench/sampled_correction.py [--users 2000 --items 5000 --gamma 0.01]
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.sparse as sp

import rankmeter as rm


def simulate(n_users: int, n_items: int, dim: int = 16, seed: int = 0):
    """Factors with signal: truth and train drawn from a softmax of the true scores plus noise, item
    popularity long-tailed (a W1-like shape: a few held-out items per user, Zipf-like item frequencies)."""
    rng = np.random.default_rng(seed)
    U0 = rng.normal(size=(n_users, dim)).astype(np.float32)
    V0 = rng.normal(size=(n_items, dim)).astype(np.float32)
    pop = np.log(1.0 / np.arange(1, n_items + 1) ** 0.8)
    rows, cols = [], []
    for lo in range(0, n_users, 500):
        logits = (U0[lo : lo + 500] @ V0.T) / 1.5 + pop
        g = logits + rng.gumbel(size=logits.shape)
        top = np.argsort(-g, axis=1)[:, :12]
        rows.append(np.repeat(np.arange(lo, lo + top.shape[0]), 12))
        cols.append(top.ravel())
    r, c = np.concatenate(rows), np.concatenate(cols)
    held = np.tile(np.arange(12) < 2, n_users)  # 2 held-out items per user, 10 in train
    truth = rm.Truth.from_csr(np.arange(0, 2 * n_users + 1, 2), c[held])
    train = sp.csr_matrix((np.ones((~held).sum()), (r[~held], c[~held])), shape=(n_users, n_items))
    # the model: noisy copies of the true factors
    U = (U0 + 0.7 * rng.normal(size=U0.shape)).astype(np.float32)
    V = (V0 + 0.7 * rng.normal(size=V0.shape)).astype(np.float32)
    return truth, train, U, V


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=2000)
    ap.add_argument("--items", type=int, default=5000)
    ap.add_argument("--negatives", type=int, default=100)
    ap.add_argument("--gamma", type=float, default=0.01)
    a = ap.parse_args()
    truth, train, U, V = simulate(a.users, a.items)
    res = rm.evaluate_sampled(
        truth,
        U,
        V,
        ["recall@10", "ndcg@10", "ap@10", "recall@50", "rr", "auc"],
        n_negatives=a.negatives,
        train=train,
        gamma=a.gamma,
        full=True,
    )
    print(f"{a.users} users x {a.items} items, {a.negatives} uniform negatives, gamma={a.gamma}")
    print("| metric | sampled | corrected | full | abs. error sampled | abs. error corrected |")
    print("|---|---|---|---|---|---|")
    for m, s, c, f in res.table():
        assert c is not None and f is not None  # full=True: every column is there
        print(f"| {m} | {s:.4f} | {c:.4f} | {f:.4f} | {abs(s - f):.4f} | {abs(c - f):.4f} |")


if __name__ == "__main__":
    main()
