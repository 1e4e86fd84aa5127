"""rankmeter's test suite, laid out like the package it protects.

* ``metrics/``     metric values against plain references, worked examples, fast paths
* ``inputs/``      containers, tables, ids, dtypes, TREC and parquet reading, input mistakes
* ``evaluation/``  evaluate/partial, Result, State, presets, options (ties, hit_scores, per_user), errors
* ``compare/``     rankmeter.compare: significance tests, tables, plots, the HTML report
* ``compat/``      presets and drop-ins against the libraries whose numbers they reproduce
* ``engines/``     evaluate_stream, Spark, Dask, the engine-neutral task, the CLI
* ``properties/``  determinism, concurrency, fuzzing
* ``docs/``        what the documentation promises
* ``conformance/`` the real peer libraries, each in a venv of its own (run on its own in CI)
* ``support/``     no tests: the pure-Python references, the fuzz strategies, shared checks
* ``conftest.py``  shared fixtures; ``test_layout.py`` the layout of the package and of this tree

Run from the repository root: ``python -m pytest`` (``tests`` is a package, so tests import their
helpers as ``from tests.support.reference import ...``; nothing patches ``sys.path``).
"""
