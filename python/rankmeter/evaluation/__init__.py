"""Evaluation: ``evaluate``, ``partial``, ``Result``, presets, shortcuts and tables.

Layer 3 of the package: it validates options, converts the inputs through
:mod:`rankmeter.inputs`, runs the fused accuracy pass (``_accuracy``) and the
beyond-accuracy kernels (``_beyond``: context prepared once per call, then one
small function per metric family), and aggregates exactly into a
:class:`~rankmeter.State` and a :class:`Result`.
"""

from ._evaluate import evaluate, partial
from ._presets import PRESETS, Preset, get_preset
from ._result import Result

__all__ = ["evaluate", "partial", "Result", "PRESETS", "Preset", "get_preset"]
