"""rankmeter.compat.ranx's files against the live ranx: a Run saved as LZ4 (CBOR in an LZ4 frame) by one is
read by the other with the same queries, documents, scores and order; a Qrels or Run saved with a ``.gz`` name
holds the same TREC lines, byte for byte, as ranx writes (uncompressed); a Qrels refuses ``.lz4`` as ranx's. The ranx venv runs in a subprocess; skipped without it (a failure in CI)."""

from __future__ import annotations

import json
import subprocess

import pytest

from rankmeter.compat import ranx as compat
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import peer_env

pytest.importorskip("lz4", reason="lz4 (pip install lz4 cbor2) is not installed")
pytest.importorskip("cbor2", reason="cbor2 (pip install lz4 cbor2) is not installed")

RUN = {"q2": {"d3": 0.25, "d1": 0.5, "x": -1.0}, "q1": {"d10": 1e-300, "d2": 3.0}, "q3": {}}
QRELS = {"q2": {"d1": 2, "d3": 0}, "q1": {"d2": 1}}

SCRIPT = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
from ranx import Qrels, Run
tmp = sys.argv[1]
data = json.load(open(f"{tmp}/in.json"))
read = Run.from_file(f"{tmp}/ours.lz4")
out = {"read": {q: list(d.items()) for q, d in read.to_dict().items()}, "name": read.name}
run = Run(data["run"], name="theirs")
run.save(f"{tmp}/theirs.lz4")
run.save(f"{tmp}/theirs_run.gz")
try:
    Qrels(data["qrels"]).save(f"{tmp}/theirs_qrels.lz4")
except AssertionError as e:
    out["qrels_lz4"] = str(e)
Qrels(data["qrels"]).save(f"{tmp}/theirs_qrels.gz")
json.dump(out, open(f"{tmp}/out.json", "w"))
"""


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    py = peer_python("ranx")
    tmp = tmp_path_factory.mktemp("ranx_files")
    (tmp / "in.json").write_text(json.dumps({"run": RUN, "qrels": QRELS}))
    compat.Run(RUN, name="ours").save(str(tmp / "ours.lz4"))
    (tmp / "w.py").write_text(SCRIPT)
    p = subprocess.run([str(py), str(tmp / "w.py"), str(tmp)], capture_output=True, text=True, env=peer_env())
    assert p.returncode == 0, p.stderr[-3000:]
    return tmp, json.loads((tmp / "out.json").read_text())


def test_ranx_reads_the_lz4_run_rankmeter_writes(live):
    _tmp, out = live
    want = compat.Run(RUN).to_dict()  # sorted as saved: by score, descending
    assert out["read"] == {q: [list(x) for x in d.items()] for q, d in want.items()}


def test_rankmeter_reads_the_lz4_run_ranx_writes(live):
    tmp, _out = live
    got = compat.Run.from_file(str(tmp / "theirs.lz4"))
    want = compat.Run(RUN).to_dict()
    assert {q: list(d.items()) for q, d in got.to_dict().items()} == {q: list(d.items()) for q, d in want.items()}


@pytest.mark.parametrize(
    ("cls", "name", "theirs"),
    [("Qrels", "q.gz", "theirs_qrels.gz"), ("Run", "r.gz", "theirs_run.gz")],
)
def test_trec_lines_under_a_gz_name_are_ranxs_bytes(live, cls, name, theirs):
    tmp, _out = live
    obj = compat.Qrels(QRELS) if cls == "Qrels" else compat.Run(RUN, name="theirs")
    obj.save(str(tmp / name))
    assert (tmp / name).read_bytes() == (tmp / theirs).read_bytes()


def test_a_qrels_refuses_an_lz4_file_as_ranxs(live):
    tmp, out = live
    with pytest.raises(AssertionError) as e:
        compat.Qrels(QRELS).save(str(tmp / "q.lz4"))
    assert str(e.value) == out["qrels_lz4"]
    with pytest.raises(AssertionError):
        compat.Qrels.from_file(str(tmp / "q.lz4"))
