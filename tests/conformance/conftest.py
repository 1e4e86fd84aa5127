"""Shared set-up of the conformance suite: peers live in venvs of their own,
built by bench/peers/setup.sh under $RANKMETER_PEERS (default
~/.cache/rankmeter-peers). A missing venv skips its tests, except in CI
(CI=true), where it fails them."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter):
    """The largest difference from each peer seen in this run (for the closing note)."""
    from tests.conformance.recsys_helpers import WORST

    if WORST:
        terminalreporter.write_line("largest differences from the peers (absolute, relative):")
        for tag, (a, r) in sorted(WORST.items()):
            terminalreporter.write_line(f"  {tag or 'untagged'}: {a:.3g}, {r:.3g}")
