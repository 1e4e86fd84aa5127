"""The Python examples of README.md and docs/*.md run (or, for fragments, name only what exists).

README.md, docs/conventions.md, docs/engines.md and docs/first-hour.md promise that every Python block runs as it stands, in
order, in one session: those blocks are executed. A block that imports an engine which is not installed
(pyspark, dask) is skipped, the rest still run. The other pages hold fragments (migration "before" blocks
of other libraries, calls on the reader's own data): they must parse, and every ``rankmeter`` name they
import or reach through ``rm.`` must exist, so a renamed function cannot leave a stale example behind.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import io
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = ["README.md", "docs/conventions.md", "docs/engines.md", "docs/first-hour.md"]
FRAGMENTS = sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md") if str(p.relative_to(ROOT)) not in RUNNABLE
)
OPTIONAL_ENGINES = ("pyspark", "dask")
_BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.S | re.M)


def python_blocks(rel: str) -> list[str]:
    text = (ROOT / rel).read_text(encoding="utf-8")
    blocks = []
    for indent, body in _BLOCK.findall(text):
        lines = body.splitlines()
        blocks.append("\n".join(line[len(indent) :] for line in lines) + "\n")
    return blocks


def _missing_engine(block: str) -> str | None:
    for node in ast.walk(ast.parse(block)):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            top = name.split(".")[0]
            if top in OPTIONAL_ENGINES and importlib.util.find_spec(top) is None:
                return top
            if name in ("rankmeter.spark", "rankmeter.dask"):
                engine = "pyspark" if name.endswith("spark") else "dask"
                if importlib.util.find_spec(engine) is None:
                    return engine
    return None


@pytest.mark.parametrize("rel", RUNNABLE)
def test_every_python_block_of_the_page_runs_in_order(rel, tmp_path, monkeypatch):
    blocks = python_blocks(rel)
    assert blocks, f"{rel} has no Python example"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__doc_example__"}
    skipped = []
    for i, block in enumerate(blocks):
        engine = _missing_engine(block)
        if engine is not None:
            skipped.append((i, engine))
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(block, f"{rel} python block {i + 1}", "exec"), namespace)
        finally:
            _stop_spark()
    assert len(skipped) < len(blocks)


def _stop_spark() -> None:
    """An example's Spark session must not outlive it (the engine tests build sessions of their own)."""
    if "pyspark.sql" in sys.modules:
        session = sys.modules["pyspark.sql"].SparkSession.getActiveSession()
        if session is not None:
            session.stop()


def _rankmeter_names(block: str) -> list[tuple[str, list[str]]]:
    """(module, attribute chain) pairs the block reaches: ``from rankmeter.x import y`` and ``rm.a.b``."""
    tree = ast.parse(block)
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "rankmeter":
            out.extend((node.module, [a.name]) for a in node.names)
        elif isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names if a.name.split(".")[0] == "rankmeter")
        elif isinstance(node, ast.Attribute):
            chain = []
            cur: ast.expr = node
            while isinstance(cur, ast.Attribute):
                chain.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id == "rm":
                out.append(("rankmeter", chain[::-1]))
    return out


@pytest.mark.parametrize("rel", FRAGMENTS)
def test_python_fragments_parse_and_name_only_existing_rankmeter_api(rel):
    for i, block in enumerate(python_blocks(rel)):
        try:
            ast.parse(block)
        except SyntaxError as e:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{rel} python block {i + 1} does not parse: {e}")
        for module, chain in _rankmeter_names(block):
            top = module.split(".")
            if len(top) > 1 and top[1] in ("spark", "dask"):
                engine = "pyspark" if top[1] == "spark" else "dask"
                if importlib.util.find_spec(engine) is None:
                    continue
            obj = importlib.import_module(module)
            for attr in chain:
                if not hasattr(obj, attr):
                    sub = f"{getattr(obj, '__name__', module)}.{attr}"
                    try:  # a submodule imported by name (from rankmeter.compat import pytrec_eval)
                        obj = importlib.import_module(sub)
                        continue
                    except ImportError:
                        pytest.fail(
                            f"{rel} python block {i + 1} names {module}.{'.'.join(chain)}, which does not exist"
                        )
                obj = getattr(obj, attr)


def test_the_site_tour_is_the_readme_tour():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert '--8<-- "README.md:tour"' in index
    assert "<!-- --8<-- [start:tour] -->" in readme and "<!-- --8<-- [end:tour] -->" in readme
    start, end = readme.index("[start:tour]"), readme.index("[end:tour]")
    # the included part must not hold links relative to the repository root: they break on the site
    assert "](docs/" not in readme[start:end]


def test_readme_is_a_landing_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert "pip install . && rankmeter demo" in readme
    assert 'pip install ".[test]" && python -m pytest' in readme
