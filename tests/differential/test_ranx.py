"""Short differential runs against the live ranx (the long run: ``python -m tests.differential.run ranx``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_compat_ranx_gives_ranx_numbers_on_random_cases():
    check("ranx", SHORT_RUN)


def test_preset_ranx_gives_ranx_numbers_on_random_cases():
    check("ranx_preset", SHORT_RUN)
