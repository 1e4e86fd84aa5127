"""RecPack's IPSHitRateK on the cases of tests/differential/test_recpack.py, in RecPack's venv.

    <venv>/bin/python tests/differential/worker_recpack.py IN.json OUT.json

Imports only the standard library, numpy, scipy and RecPack, never rankmeter. Each case gives the train, truth
and list rows as (user, item) pairs over dense user and item codes, the list rows with a score (distinct and
positive: RecPack's top K is by score over the stored entries), the cutoff K and ip_cap. The worker fits
IPSHitRateK on the train matrix (each row a 1, repeats summed, as RecPack's matrix does) with ``ip_cap`` set
before ``fit``, calculates on the truth and score matrices, and returns the per-user sums of ``scores_`` (the
users RecPack keeps: a non-zero truth row) and ``value``.
"""

from __future__ import annotations


def one(case: dict) -> dict:
    import numpy as np
    import scipy.sparse as sp
    from recpack.metrics import IPSHitRateK

    n_u, n_i = case["n_users"], case["n_items"]

    def matrix(rows, values=None):
        r = [u for u, _ in rows]
        c = [i for _, i in rows]
        v = [1.0] * len(rows) if values is None else values
        return sp.csr_matrix((np.array(v, dtype=np.float64), (r, c)), shape=(n_u, n_i))

    X = matrix(case["train"])
    y_true = matrix(case["truth"])
    y_pred = matrix([(u, i) for u, i, _ in case["recs"]], [s for _, _, s in case["recs"]])
    m = IPSHitRateK(case["k"])
    m.ip_cap = case["ip_cap"]
    m.fit(X)
    m.calculate(y_true, y_pred)
    per = np.asarray(m.scores_.sum(axis=1)).ravel().tolist()
    users = [int(u) for u in m.user_id_map_.tolist()]
    return {"users": users, "per_user": per, "value": float(m.value)}


if __name__ == "__main__":
    import worker_io  # beside this script (its directory is on the path of a script)

    worker_io.serve(one)
