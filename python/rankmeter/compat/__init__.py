"""Drop-in replacements for slow metric functions of other libraries.

Each submodule keeps the original's names, signatures, argument handling,
outputs and exception types, and computes everything with one batched
``rankmeter.evaluate`` call (e.g. ``from rankmeter.compat.ml_metrics import
mapk``). See docs/metrics.md, "Migrating from ...".
"""
