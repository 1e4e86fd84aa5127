"""Short differential run of rank fusion against the live ranx (the long run:
``python -m tests.differential.run ranx_fusion``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_fuse_gives_ranx_fused_scores_on_random_runs():
    check("ranx_fusion", SHORT_RUN)
