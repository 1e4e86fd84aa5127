"""`rankmeter cwl GAIN_FILE RESULT_FILE` against the live cwl-eval command line (in the ir_measures venv): the same
lines on random gain and result files, with and without -n, -r, -m, -c (cost files), --max_depth, --max_gain,
--max_cost and --min_cost (docs/metrics.md 8.11); and cwl-eval's output with a cost file kept as a golden file. A printed zero may differ in its sign ("-0.0000"): the last bits of cwl-eval's numpy sums are not
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
# the same measures with a whole K for BPM (with costs, K is a cost limit: rankmeter's cutoff @K)
COST_METRICS_FILE = METRICS_FILE.replace("BPMCWLMetric(1.0,2.5)", "BPMCWLMetric(1.0,3)") + "APCWLMetric()\n"
ELEMENT_TYPES = ["Q0", "web", "snip", "img", "video"]  # video has no cost: max_cost (min_cost at best)


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
    # element types (the run's second column) from a generator of their own: the draws above stay as they were
    types = np.random.default_rng(seed + 1000)
    run = [" ".join([t, str(types.choice(ELEMENT_TYPES)), *rest]) for t, _q0, *rest in (x.split() for x in run)]
    costs = types.choice([0.0, 0.5, 1.0, 2.5, 3.0, 120.0], 4)
    (tmp_path / "q.txt").write_text("\n".join(qrels) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(run) + "\n")
    (tmp_path / "m.txt").write_text(METRICS_FILE)
    (tmp_path / "mc.txt").write_text(COST_METRICS_FILE)
    (tmp_path / "c.txt").write_text("".join(f"{t} {c}\n" for t, c in zip(ELEMENT_TYPES[:4], costs)))


@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["-n", "-r"],
        ["-m", "m.txt", "-r"],
        ["-m", "m.txt", "-r", "--max_depth", "9"],
        ["-c", "c.txt", "-r"],
        ["-c", "c.txt", "-m", "mc.txt", "-r"],
        ["-c", "c.txt", "-m", "mc.txt", "-r", "--max_depth", "7", "--max_cost", "2", "--min_cost", "0.5"],
        ["-m", "mc.txt", "-r", "--max_cost", "0.5", "--min_cost", "3"],
    ],
)
@pytest.mark.parametrize("seed", range(6))
def test_rankmeter_cwl_prints_what_cwl_eval_prints(tmp_path, capsys, monkeypatch, seed, flags):
    require_peer("ir_measures")
    _files(tmp_path, seed)
    flags = [str(tmp_path / f) if f.endswith(".txt") else f for f in flags]
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


# cwl-eval 1.0.12's output for these files with `-c COSTS -r -m METRICS --max_cost 2 --min_cost 0.5`: a document
# repeated under another element type (a: snip, then img, which the cost file does not name), costs 0 and 2.5,
# BPM's K = 3 a cost limit (topic 1 reads 3 items: 0 + 2.5 < 3)
GOLDEN_QRELS = "1 0 a 0.25\n1 0 b 0.5\n2 0 x 1\n2 0 y 0\n"
GOLDEN_RUN = (
    "1 snip a 1 1 r\n1 web b 2 1 r\n1 web c 3 1 r\n1 img a 4 1 r\n1 snip d 5 1 r\n"
    "2 web y 1 1 r\n2 snip z 2 1 r\n2 web x 3 1 r\n"
)
GOLDEN_COSTS = "web 2.5\nsnip 0\n"
GOLDEN_METRICS = (
    "BPMCWLMetric(2.0,3)\nUMeasureCWLMetric(5)\nTBGCWLMetric(3)\nINSTCWLMetric(1.0)\nPrecisionCWLMetric(3)\n"
)
GOLDEN_OUT = """\
1\tBPM-Static-T=2.0-K=3\t0.2500\t0.7500\t1.6667\t5.0000\t3.0000\t0.3333\t1.0000\t0.0000\t0.0000\t0.0000
1\tU-L@5 \t0.3000\t0.7500\t1.5000\t3.7500\t2.5000\t0.2000\t0.5000\t0.0000\t0.0000\t0.0000
1\tTBG-H@3 \t0.2295\t0.8287\t1.5524\t5.6055\t3.6109\t0.5111\t3.4139\t-0.6191\t-0.2589\t2.1180
1\tINST-T=1.0\t0.2276\t0.4809\t1.1263\t2.3759\t2.1127\t0.2081\t0.3086\t-0.2554\t-0.7982\t-0.3010
1\tP@3\t0.2500\t0.7500\t1.6667\t5.0000\t3.0000\t0.3333\t1.0000\t0.0000\t0.0000\t0.0000
2\tBPM-Static-T=2.0-K=3\t0.3333\t1.0000\t1.6667\t5.0000\t3.0000\t0.3333\t1.0000\t0.0000\t0.0000\t0.0000
2\tU-L@5 \t0.2500\t0.5000\t1.8750\t3.7500\t2.0000\t0.2500\t0.5000\t0.0000\t0.0000\t0.0000
2\tTBG-H@3 \t0.1887\t0.5612\t1.8850\t5.6055\t2.9737\t0.6116\t3.4483\t-0.8178\t-0.2589\t2.0358
2\tINST-T=1.0\t0.1073\t0.2500\t1.8868\t4.3932\t2.3308\t0.3372\t0.5500\t-0.1796\t-1.3204\t-0.5308
2\tP@3\t0.3333\t1.0000\t1.6667\t5.0000\t3.0000\t0.3333\t1.0000\t0.0000\t0.0000\t0.0000
"""


def test_rankmeter_cwl_with_a_cost_file_prints_cwl_eval_s_golden_output(tmp_path, capsys):
    files = {"q": GOLDEN_QRELS, "r": GOLDEN_RUN, "c": GOLDEN_COSTS, "m": GOLDEN_METRICS}
    for name, text in files.items():
        (tmp_path / f"{name}.txt").write_text(text)
    q, r, c, m = (str(tmp_path / f"{n}.txt") for n in "qrcm")
    assert main(["cwl", q, r, "-c", c, "-r", "-m", m, "--max_cost", "2", "--min_cost", "0.5"]) == 0
    assert capsys.readouterr().out == GOLDEN_OUT


def test_rankmeter_cwl_with_costs_refuses_a_fractional_bpm_cost_limit(tmp_path, capsys):
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "r.txt").write_text("1 web a 1 1.0 run\n")
    (tmp_path / "c.txt").write_text("web 2\n")
    (tmp_path / "m.txt").write_text("BPMCWLMetric(1.0,2.5)\n")
    q, r, c, m = (str(tmp_path / f"{n}.txt") for n in "qrcm")
    assert main(["cwl", q, r, "-c", c, "-m", m]) == 2
    assert "must be a whole number" in capsys.readouterr().err
