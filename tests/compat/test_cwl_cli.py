"""`rankmeter cwl GAIN_FILE RESULT_FILE` against the live cwl-eval command line (in the ir_measures venv): the same
lines on random gain and result files, with and without -n, -r, -m, --max_depth and --max_gain (docs/metrics.md
8.11). A printed zero may differ in its sign ("-0.0000"): the last bits of cwl-eval's numpy sums are not
reproduced, which `describe("cwl")` lists."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from rankmeter.cli import main
from tests.differential.harness import peer_python, require_peer
from tests.support.peers import peer_env

METRICS_FILE = """BPMCWLMetric(1.0,2.5)
BPMDCWLMetric(1,3,0.5,2.0,0.25)
NERReq8CWLMetric(3)
NERReq9CWLMetric(4)
NERReq10CWLMetric(0.5)
NERReq11CWLMetric(2.0)
UMeasureCWLMetric(5)
TBGCWLMetric(3)
INSQCWLMetric(2)
RBPCWLMetric()
"""


def _files(tmp_path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(int(rng.integers(1, 6))):
        topic = f"t{t}" if rng.random() < 0.5 else str(100 + t)
        for d in rng.choice(30, int(rng.integers(0, 8)), replace=False):
            qrels.append(f"{topic} 0 d{d} {rng.choice([0, 0.25, 0.5, 1, 1.0])}")
        if rng.random() < 0.85:
            docs = rng.choice(30, int(rng.integers(1, 15)), replace=True)  # repeats: each occurrence gains
            run += [f"{topic} Q0 d{d} {r + 1} {rng.random():.3f} run" for r, d in enumerate(docs)]
    if not run:
        run.append("t0 Q0 d1 1 1.0 run")
    (tmp_path / "q.txt").write_text("\n".join(qrels) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(run) + "\n")
    (tmp_path / "m.txt").write_text(METRICS_FILE)


@pytest.mark.parametrize("flags", [[], ["-n", "-r"], ["-m", "m.txt", "-r"], ["-m", "m.txt", "-r", "--max_depth", "9"]])
@pytest.mark.parametrize("seed", range(6))
def test_rankmeter_cwl_prints_what_cwl_eval_prints(tmp_path, capsys, monkeypatch, seed, flags):
    require_peer("ir_measures")
    _files(tmp_path, seed)
    flags = [str(tmp_path / f) if f == "m.txt" else f for f in flags]
    q, r = str(tmp_path / "q.txt"), str(tmp_path / "r.txt")
    py = str(peer_python("ir_measures"))
    # the script itself (not -m cwl.cwl_eval): its -m file loader imports `ruler.measures` from its own directory
    script = subprocess.run(
        [py, "-c", "import cwl.cwl_eval as c; print(c.__file__)"], capture_output=True, text=True, check=True
    ).stdout.strip()
    theirs = subprocess.run(
        [py, script, q, r, *flags],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=peer_env(),
        check=True,
    ).stdout
    monkeypatch.chdir(tmp_path)
    assert main(["cwl", q, r, *flags]) == 0
    ours = capsys.readouterr().out
    assert ours.replace("-0.0000", "0.0000") == theirs.replace("-0.0000", "0.0000")


def test_rankmeter_cwl_refuses_gains_outside_zero_one(tmp_path, capsys):
    (tmp_path / "q.txt").write_text("1 0 a 2\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 1.0 run\n")
    assert main(["cwl", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]) == 2
    assert "outside [0, 1.0]" in capsys.readouterr().err
