"""What each ``preset=`` changes: ``rankmeter.presets.describe("rectools")``.

A preset selects one library's conventions at once (``evaluate(...,
preset="rectools")``); anything passed explicitly wins over it. This module
only reads the preset table of :mod:`rankmeter.evaluation`.
"""

from __future__ import annotations

import sys
from typing import Optional, TextIO

from .evaluation import DEFAULTS, PRESETS, get_preset
from .evaluation._presets import _trec_eval_options

__all__ = ["names", "describe", "summary"]


def names() -> list[str]:
    """The known presets' names."""
    return sorted(PRESETS)


def summary(name: str) -> str:
    """What the preset ``name`` changes, as text (``describe`` prints it)."""
    pre = get_preset(name)
    if pre is None:
        return "no preset: rankmeter's own defaults (" + ", ".join(f"{k}={v!r}" for k, v in DEFAULTS.items()) + ")"
    lines = [f"preset {pre.name!r}", ""]
    lines.append("evaluate() defaults:")
    for key, value in pre.defaults.items():
        base = DEFAULTS.get(key)
        note = "" if base is None or base == value else f" (rankmeter: {base!r})"
        lines.append(f"  {key}={value!r}{note}")
    if not pre.defaults:
        lines.append("  (unchanged)")
    lines.append("metric option defaults:")
    if pre.options:
        for metric, opts in pre.options.items():
            lines.append(f"  {metric}: " + ", ".join(f"{k}={v}" for k, v in opts.items()))
    elif pre.metric_options is _trec_eval_options:
        lines.append("  ndcg without a cutoff: ideal=all")
        lines.append("  bpref: negative=unjudged")
    else:
        lines.append("  (unchanged)")
    if pre.metrics:
        lines.append("the library's metrics under this preset:")
        width = max(len(a) for a, _ in pre.metrics)
        lines.extend(f"  {a.ljust(width)}  ->  {b}" for a, b in pre.metrics)
    if pre.unmatched:
        lines.append("not reproduced:")
        lines.extend(f"  - {u}" for u in pre.unmatched)
    if pre.doc:
        lines.extend(["", pre.doc])
    return "\n".join(lines)


def describe(name: str, file: Optional[TextIO] = None) -> None:
    """Print what the preset ``name`` changes: defaults, metric options, the
    library's metrics and what the preset does not reproduce.

    >>> import rankmeter as rm
    >>> rm.presets.describe("rectools")  # doctest: +ELLIPSIS
    preset 'rectools'
    ...
    """
    print(summary(name), file=file if file is not None else sys.stdout)
