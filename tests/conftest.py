"""Hypothesis profiles of the test suite.

``RANKMETER_HYPOTHESIS_PROFILE=quick`` (set by ``bash .ci/run --quick``) loads the
``quick`` profile, which caps every property test at its ``max_examples``, also
the tests that ask for more with their own ``@settings``.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("quick", max_examples=10)
_PROFILE = os.environ.get("RANKMETER_HYPOTHESIS_PROFILE")
if _PROFILE:
    settings.load_profile(_PROFILE)  # an unknown name fails here with Hypothesis' InvalidArgument


def pytest_collection_modifyitems(items):
    """Under the quick profile, lower the examples of tests whose own settings ask for more.

    A test's ``@settings(max_examples=...)`` outranks any profile; Hypothesis reads a
    test's settings from its ``_hypothesis_internal_use_settings`` when the test runs,
    so the capped copy is put there (a Hypothesis without that attribute: no cap)."""
    if _PROFILE != "quick":
        return
    cap = settings.get_profile("quick").max_examples
    for item in items:
        obj = getattr(item, "obj", None)
        test = getattr(obj, "__func__", obj)  # a method's function
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if isinstance(own, settings) and own.max_examples > cap:
            setattr(test, "_hypothesis_internal_use_settings", settings(own, max_examples=cap))  # noqa: B010
