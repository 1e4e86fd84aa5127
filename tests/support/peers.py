"""How the tests start a peer library's python (its own venv under ~/.cache/rankmeter-peers)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

SANITIZER_ENV = ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")


def peer_env(**extra: str) -> dict[str, str]:
    """The environment for a peer's python: ours without the sanitizer preload and our pytest options.

    ``.ci/sanitize`` preloads AddressSanitizer into the test process; a peer's
    own C extension (pytrec_eval's) then aborts on its own allocation mismatch,
    which is the peer's fault, not rankmeter's. The peer runs unsanitized.
    """
    env = {k: v for k, v in os.environ.items() if k not in SANITIZER_ENV}
    # our pytest's options (.ci/run's PYTEST_ADDOPTS: -n auto, --durations) and xdist worker names are not the
    # peer's: a peer's own suite run under pytest (tests/conformance/test_lenskit_suite.py) takes its flags as given
    for k in [k for k in env if k == "PYTEST_ADDOPTS" or k.startswith("PYTEST_XDIST")]:
        del env[k]
    env.update(extra)
    return env


def skip_if_sanitized() -> None:
    """Skip a test that runs rankmeter inside a peer's python under ``.ci/sanitize``: the core there is the
    ASan build, which loads only with the sanitizer runtime preloaded, and the preload is left out of the
    peer's process (peer_env: the peer's own code is not sanitized). Such tests run in the plain suite."""
    import pytest

    if "asan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("rankmeter inside a peer's python: the sanitized core needs the preload the peer runs without")


def skip_peer_c_code_if_sanitized(peer: str) -> None:
    """Skip a test that runs a peer's C extension in the test process (or a fork of it) under ``.ci/sanitize``:
    AddressSanitizer, preloaded there, aborts inside the peer's own code (pytrec_eval frees with free() what it
    allocated with new[]), which is the peer's fault, not rankmeter's. Such tests run in the plain suite."""
    import pytest

    if "asan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip(f"{peer}'s C code aborts under AddressSanitizer (its own allocation mismatch); plain suite only")


def run_peer_script(python: Path, script: str, data: Any, tmp: Path, timeout: int = 900) -> Any:
    """Run ``script`` (its argv: IN.json OUT.json) with a peer venv's ``python`` on ``data`` written as JSON in
    ``tmp``, and return what it wrote; a failing script fails the test with the end of its stderr."""
    (tmp / "in.json").write_text(json.dumps(data))
    (tmp / "w.py").write_text(script)
    p = subprocess.run(
        [str(python), str(tmp / "w.py"), str(tmp / "in.json"), str(tmp / "out.json")],
        capture_output=True,
        text=True,
        env=peer_env(),
        timeout=timeout,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads((tmp / "out.json").read_text())
