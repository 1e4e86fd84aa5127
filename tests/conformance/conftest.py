"""Shared set-up of the conformance suite: peers live in venvs of their own,
built by bench/peers/setup.sh under $RANKMETER_PEERS (default
~/.cache/rankmeter-peers). A missing venv skips its tests, except in CI
(CI=true), where it fails them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
