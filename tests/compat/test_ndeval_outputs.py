"""`rankmeter ndeval` prints what ndeval 4.5 printed for the same files and flags, byte for byte
(tests/data/ndeval/README.md: the inputs and the real ndeval's outputs)."""

from __future__ import annotations

import pathlib

import pytest

from rankmeter.cli import main
from rankmeter.compat.ndeval import ndeval

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "ndeval"
CASES = [
    ("small.out", "small", []),
    ("small.c_traditional.out", "small", ["-c", "-traditional"]),
    ("shaped.out", "shaped", []),
    ("shaped.c_alpha_beta_M.out", "shaped", ["-c", "-alpha", "0.3", "-beta", "0.8", "-M", "12"]),
    ("shaped.traditional.out", "shaped", ["-traditional"]),
]


@pytest.mark.parametrize("out, stem, flags", CASES)
def test_rankmeter_ndeval_prints_ndeval_output_byte_for_byte(out, stem, flags, capsys):
    rc = main(["ndeval", *flags, str(DATA / f"{stem}.qrels"), str(DATA / f"{stem}.run")])
    assert rc == 0
    assert capsys.readouterr().out == (DATA / out).read_text()


def test_a_repeated_rank_is_refused_as_ndeval_refuses_it(tmp_path):
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 1.0 r\n1 Q0 b 1 0.5 r\n")
    with pytest.raises(ValueError, match="duplicate rank"):
        ndeval(DATA / "small.qrels", run)


def test_a_repeated_docno_is_refused_as_ndeval_refuses_it(tmp_path):
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 1.0 r\n1 Q0 a 2 0.5 r\n")
    with pytest.raises(ValueError, match="duplicate docno"):
        ndeval(DATA / "small.qrels", run)
