"""Layout of the project: one binding file per core header family, stubs for every binding, package
layers that import downward only, and a test tree that mirrors the package."""

import pathlib
import re

import pytest

import rankmeter._core as core

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC, INC = ROOT / "cpp" / "src", ROOT / "cpp" / "include" / "rankmeter"
UTILITIES = {"parallel", "status", "exact_sum", "policy"}  # shared by every family, bound by none
# headers of one family bound in another's file: torch's orders of equal scores order the input lists (bind_inputs)
# popularity.hpp's and propensity.hpp's kernels read beyond.hpp's Lists and TruthCodes and are bound with their
# checks (bind_beyond)
BOUND_ELSEWHERE = {"torch_order": "inputs", "popularity": "beyond", "propensity": "beyond"}


@pytest.mark.skipif(not SRC.is_dir(), reason="needs the source tree")
def test_one_binding_file_per_header_family():
    bindings = {p.stem[len("bind_") :] for p in SRC.glob("bind_*.cpp")}
    # the metric registry (metrics.def) is a family of its own, bound by bind_metrics.cpp
    headers = {p.stem for p in INC.glob("*.hpp")} - UTILITIES - set(BOUND_ELSEWHERE) | {
        p.stem for p in INC.glob("*.def")
    }
    assert bindings == headers
    for header, fam in BOUND_ELSEWHERE.items():
        assert f'#include "rankmeter/{header}.hpp"' in (SRC / f"bind_{fam}.cpp").read_text()
    assert (SRC / "module.cpp").is_file()
    for fam in bindings:
        text = (SRC / f"bind_{fam}.cpp").read_text()
        assert f'#include "rankmeter/{fam}.hpp"' in text or f'#include "rankmeter/{fam}.def"' in text


@pytest.mark.skipif(not (ROOT / "python" / "rankmeter" / "_core.pyi").is_file(), reason="needs the source tree")
def test_every_binding_has_a_stub():
    stubs = (ROOT / "python" / "rankmeter" / "_core.pyi").read_text()
    declared = (
        set(re.findall(r"^def (\w+)\(", stubs, re.M))
        | set(re.findall(r"^(\w+): ", stubs, re.M))
        | set(re.findall(r"^class ([A-Za-z]\w*)\b", stubs, re.M))
    )
    public = {n for n in dir(core) if not n.startswith("_")}
    assert public - declared == set()
    assert declared - public == set()


PKG = ROOT / "python" / "rankmeter"
# the layers, lowest first: a module may import only its own layer or lower ones
LAYERS = [
    {
        "rankmeter._core",
        "rankmeter._options",
        "rankmeter._status",
        "rankmeter.metrics",
        "rankmeter._aggregate",
        "rankmeter._exposure_values",
    },
    {"rankmeter.inputs"},
    {"rankmeter.evaluation", "rankmeter.datasets"},
    {
        "rankmeter",
        "rankmeter.cli",
        "rankmeter.compare",
        "rankmeter.compat",
        "rankmeter.stream",
        "rankmeter.spark",
        "rankmeter.dask",
        "rankmeter._partitions",
        "rankmeter.plot",
        "rankmeter.presets",
    },
]


def _module_imports() -> dict:
    """Every module of the package -> the package modules it imports (lazy imports included)."""
    import ast

    mods = {}
    for path in PKG.rglob("*.py"):
        name = ".".join(path.relative_to(PKG.parent).with_suffix("").parts)
        mods[name[: -len(".__init__")] if name.endswith(".__init__") else name] = path
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        base = m if path.name == "__init__.py" else m.rsplit(".", 1)[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                typing_only.update(id(x) for x in ast.walk(node))
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = base.split(".")[: len(base.split(".")) - node.level + 1]
                    mod = ".".join(parts + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            graph[m].update(t for t in targets if t in mods and t != m and not m.startswith(t + "."))
    return graph


@pytest.mark.skipif(not PKG.is_dir(), reason="needs the source tree")
def test_no_import_cycle():
    graph = _module_imports()
    assert "rankmeter.inputs._containers" in graph  # the walk found the subpackages
    state, stack, cycles = {}, [], []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                cycles.append(" -> ".join([*stack[stack.index(v) :], v]))
            elif v not in state:
                visit(v)
        stack.pop()
        state[u] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert cycles == []


@pytest.mark.skipif(not PKG.is_dir(), reason="needs the source tree")
def test_layers_import_downward_only():
    def layer(mod):
        for i, names in enumerate(LAYERS):
            if any(
                mod == n or mod.startswith(n + ".") for n in sorted(names, key=len, reverse=True) if n != "rankmeter"
            ):
                return i
        return len(LAYERS) - 1  # the package root and anything new sits on top

    bad = [
        f"{m} (layer {layer(m)}) imports {t} (layer {layer(t)})"
        for m, targets in _module_imports().items()
        for t in targets
        if layer(t) > layer(m)
    ]
    assert bad == []


# --------------------------------------------------------------------------- the test tree
TESTS = ROOT / "tests"
# each directory of tests/ -> the part of the package it protects (None: no one module)
TEST_AREAS = {
    "metrics": ("rankmeter.metrics",),
    "inputs": ("rankmeter.inputs",),
    "evaluation": ("rankmeter.evaluation",),
    "compare": ("rankmeter.compare",),
    "compat": ("rankmeter.compat",),
    "engines": ("rankmeter.stream", "rankmeter.spark", "rankmeter.dask", "rankmeter._partitions", "rankmeter.cli"),
    "properties": None,  # determinism, concurrency, fuzzing: across the package
    "docs": None,  # README and docs/
    "conformance": None,  # the real peer libraries (run on its own in CI)
    "differential": None,  # random cases against the live peer libraries (presets and compat modules)
    "support": None,  # references, strategies, shared checks: no tests
    "data": None,  # input files, no code
}


@pytest.mark.skipif(not (TESTS / "__init__.py").is_file(), reason="needs the source tree")
def test_the_test_tree_mirrors_the_package():
    dirs = {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    assert dirs == set(TEST_AREAS), "a new directory of tests/ needs its entry in TEST_AREAS"
    for modules in filter(None, TEST_AREAS.values()):
        for mod in modules:
            rel = pathlib.Path(*mod.split("."))
            assert (ROOT / "python" / rel).is_dir() or (ROOT / "python" / rel.with_suffix(".py")).is_file(), mod
    # the tests live in the areas; at the root only this file and the shared conftest.py
    assert sorted(p.name for p in TESTS.glob("*.py")) == ["__init__.py", "conftest.py", "test_layout.py"]
    # every directory holding Python is a package: tests import their helpers as tests.support.* (LensKit's own
    # tests, vendored as its repository lays them out and run in its venv, are not this suite's modules)
    vendored = TESTS / "conformance" / "vendored"
    for path in TESTS.rglob("*.py"):
        if vendored in path.parents:
            continue
        assert (path.parent / "__init__.py").is_file(), f"{path.parent} has no __init__.py"


@pytest.mark.skipif(not (TESTS / "__init__.py").is_file(), reason="needs the source tree")
def test_tests_import_their_helpers_and_are_named_after_behaviour():
    patched = re.compile(r"sys\.path\.(insert|append)\(|sys\.path\s*=|sys\.path\[")
    for path in [*TESTS.rglob("*.py"), *(ROOT / "bench").rglob("*.py"), *(ROOT / "fuzz").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        assert not patched.search(text), f"{path.relative_to(ROOT)} patches sys.path"
        named = re.findall(r"^\s*def (test_\w*issue_?\d+\w*)", text, re.M | re.I)
        assert not named, f"{path.relative_to(ROOT)}: name tests after the behaviour they protect: {named}"
