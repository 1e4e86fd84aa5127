"""Short differential run of the training of ranx's trained fusion methods against the live ranx (the long run:
``python -m tests.differential.run ranx_fusion_train``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_fusion_training_gives_ranx_tables_and_optimised_fusions_on_random_runs():
    check("ranx_fusion_train", max(SHORT_RUN // 6, 1))  # about 1 s a case: 8 trainings, optimisations, fusions
