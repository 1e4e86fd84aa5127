"""torch's order of equal scores against the real torch (venv `torch`): the reference of
tests/support/reference_torch.py and rankmeter's C++ (``_core.order_torch``, ``_core.stl_sort_int64``) give
torch.argsort(descending=True), topk and torch.sort's orders on lists of every length (the insertion-sort
threshold at 16, topk's partial_sort path from 64 k <= n, the stable radix sort of torch.sort from 32768
entries); and preset="torchmetrics" gives torchmetrics' values on inputs large enough for those paths."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from rankmeter import _core
from tests.conformance.recsys_helpers import peer_python
from tests.differential import torchmetrics as peer
from tests.differential.harness import Report, compare_case, run_worker
from tests.support import reference_torch as rt
from tests.support.peers import peer_env

_SCRIPT = """
import json, sys, torch
d = json.load(open(sys.argv[1]))
out = []
for c in d["cases"]:
    v = torch.tensor(c["values"], dtype=torch.float32)
    out.append({
        "argsort": torch.argsort(v, dim=-1, descending=True).tolist(),
        "topk": {str(k): v.topk(k, sorted=True)[1].tolist() for k in c["ks"]},
        "sort": torch.sort(torch.tensor(c["keys"], dtype=torch.long))[1].tolist(),
    })
json.dump(out, open(sys.argv[2], "w"))
"""


def _cases() -> list:
    g = np.random.default_rng(11)
    cases = []
    for n in (1, 2, 3, 4, 5, 15, 16, 17, 18, 33, 64, 65, 100, 129, 320, 640, 1000, 2049, 5000):
        for pattern in ("few", "few", "sorted", "reversed", "equal", "alternating"):
            few = g.integers(0, max(2, n // 4), n) / 2
            values = {
                "few": few,
                "sorted": np.sort(few),
                "reversed": np.sort(few)[::-1],
                "equal": np.ones(n),
                "alternating": np.arange(n) % 2,
            }[pattern]
            ks = sorted({1, 2, 3, 5, min(n, 17), max(1, n // 64), max(1, n // 2), n} & set(range(1, n + 1)))
            keys = np.sort(g.integers(0, max(2, n // 8), n)) if pattern != "few" else g.integers(0, 5, n)
            cases.append({"values": values.tolist(), "ks": ks, "keys": keys.tolist()})
    # torch.sort of query indexes around the radix-sort threshold
    for n in (32767, 32768):
        cases.append({"values": [0.0], "ks": [1], "keys": np.sort(g.integers(0, 3000, n)).tolist()})
    return cases


def test_reference_and_rankmeter_order_equal_scores_as_torch():
    py = peer_python("torch")
    cases = _cases()
    with tempfile.TemporaryDirectory() as d:
        src, dst, script = Path(d) / "in.json", Path(d) / "out.json", Path(d) / "orders.py"
        src.write_text(json.dumps({"cases": cases}))
        script.write_text(_SCRIPT)
        proc = subprocess.run(
            [str(py), str(script), str(src), str(dst)], capture_output=True, text=True, timeout=900, env=peer_env()
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        torch_out = json.loads(dst.read_text())
    for c, want in zip(cases, torch_out):
        values = c["values"]
        assert rt.torch_argsort_desc(values) == want["argsort"]
        one = np.array([0, len(values)], dtype=np.int64)
        keys = np.array(values, dtype=np.float64)
        assert _core.order_torch(one, keys, -1, 1).tolist() == want["argsort"]
        for k in c["ks"]:
            assert rt.torch_topk(values, k) == want["topk"][str(k)], (len(values), k)
            assert _core.order_torch(one, keys, k, 1).tolist()[:k] == want["topk"][str(k)], (len(values), k)
        assert rt.torch_sort_rows(c["keys"]) == want["sort"]
        if len(c["keys"]) < 32768:
            assert _core.stl_sort_int64(np.array(c["keys"], dtype=np.int64)).tolist() == want["sort"]


def _big_case(seed: int, n_users: int, length: int, ks: list) -> dict:
    """One case in the differential form (tests/differential/cases.py): long lists of few distinct scores."""
    g = np.random.default_rng(seed)
    truth, recs = [], []
    for u in range(n_users):
        for i in g.choice(length, 40, replace=False):
            truth.append([u, int(i), int(g.choice([0, 1, 1, 2]))])
        scores = np.round(g.random(length) * 6) / 4 - 0.25  # few distinct values, some <= 0
        for r, (i, s) in enumerate(zip(g.permutation(length), scores)):
            recs.append([u, int(i), r + 1, float(s)])
    return {"truth": truth, "recs": recs, "empty_lists": [], "k": ks[0], "ks": ks, "on": ["ties"]}


def test_torchmetrics_preset_on_long_lists_and_large_inputs():
    """30 000 rows (torch.sort of the query index: std::sort) with lists of 500 (topk's partial_sort for k <= 7),
    and 40 000 rows (the stable radix sort): every metric of the preset equals torchmetrics per query and as means."""
    peer_python("torch")
    cases = [_big_case(1, 60, 500, [5, 1, 20]), _big_case(2, 100, 400, [3, 10, 2])]
    rep = Report("torchmetrics", 0)
    for n, (case, res) in enumerate(zip(cases, run_worker(peer, cases))):
        assert "ok" in res, res
        compare_case(peer, n, case, res, rep)
    assert rep.compared > 1000
    assert not rep.mismatches, rep.mismatches[:10]
