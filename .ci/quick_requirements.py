"""The pip set of `bash .ci/run --quick`, one requirement a line, read from pyproject.toml.

The build requirements, the dependencies and the test extra, and the build tools a build without
isolation needs. .ci/run makes its cached venv again when this list (or the Python) changes.
"""

from __future__ import annotations

try:
    import tomllib
except ImportError:  # Python < 3.11: the copy pip carries
    from pip._vendor import tomli as tomllib

with open("pyproject.toml", "rb") as f:
    pyproject = tomllib.load(f)
requirements = list(pyproject["build-system"]["requires"])
requirements += pyproject["project"]["dependencies"]
requirements += pyproject["project"]["optional-dependencies"]["test"]
requirements += ["cmake>=3.18", "ninja"]
print("\n".join(requirements))
