"""Evaluation: ``evaluate``, ``partial``, ``Result``, presets, shortcuts and tables.

Layer 3 of the package: it validates options (one :class:`EvalOptions` per
call, whatever the entry point), converts the inputs through
:mod:`rankmeter.inputs`, runs the fused accuracy pass (``_accuracy``) and the
beyond-accuracy kernels (``_beyond``: context prepared once per call, then one
small function per metric family), and aggregates exactly into a
:class:`~rankmeter.State` and a :class:`Result`.
"""

from ._agreement import AGREEMENT_METRICS, AgreementResult, AgreementState, agreement
from ._beyond import context_needs
from ._evaluate import evaluate, evaluate_with, partial, partial_with
from ._options import COLUMNS, CONTEXT, CONVENTIONS, DEFAULTS, OPTION_NAMES, EvalOptions, option_field
from ._presets import PRESETS, Preset, get_preset
from ._result import Result

__all__ = [
    "evaluate",
    "agreement",
    "AgreementResult",
    "AgreementState",
    "AGREEMENT_METRICS",
    "partial",
    "evaluate_with",
    "partial_with",
    "EvalOptions",
    "OPTION_NAMES",
    "CONVENTIONS",
    "CONTEXT",
    "COLUMNS",
    "DEFAULTS",
    "option_field",
    "context_needs",
    "Result",
    "PRESETS",
    "Preset",
    "get_preset",
]
