"""Layout of the project (STYLE.md): one binding file per core header family, stubs for every binding."""

import pathlib
import re

import pytest

import rankmeter._core as core

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC, INC = ROOT / "cpp" / "src", ROOT / "cpp" / "include" / "rankmeter"
UTILITIES = {"parallel", "status", "exact_sum"}  # shared by every family, bound by none


@pytest.mark.skipif(not SRC.is_dir(), reason="needs the source tree")
def test_one_binding_file_per_header_family():
    bindings = {p.stem[len("bind_"):] for p in SRC.glob("bind_*.cpp")}
    headers = {p.stem for p in INC.glob("*.hpp")} - UTILITIES
    assert bindings == headers
    assert (SRC / "module.cpp").is_file()
    for fam in bindings:
        assert f'#include "rankmeter/{fam}.hpp"' in (SRC / f"bind_{fam}.cpp").read_text()


@pytest.mark.skipif(not (ROOT / "python" / "rankmeter" / "_core.pyi").is_file(), reason="needs the source tree")
def test_every_binding_has_a_stub():
    stubs = (ROOT / "python" / "rankmeter" / "_core.pyi").read_text()
    declared = set(re.findall(r"^def (\w+)\(", stubs, re.M)) | set(re.findall(r"^(\w+): ", stubs, re.M))
    public = {n for n in dir(core) if not n.startswith("_")}
    assert public - declared == set()
    assert declared - public == set()
