"""Shared code of the test suite (no tests here): plain references, fuzz strategies, checks, paths."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
FUZZ_FINDINGS = TESTS / "data" / "fuzz_findings"
