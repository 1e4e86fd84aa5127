"""What a kernel's status code means to a user: the one table of messages.

The C++ kernels never raise inside their parallel loops; they return a status
``(code, user index, item)`` naming the first (lowest) user with a problem
(docs/architecture.md, "Statuses"). ``code`` is a bound enum, ``_core.Code``
(``_core.TrecError`` for the TREC parser); this module turns it into the
message every entry point raises, so one code always reads the same.
"""

from __future__ import annotations

from typing import Any

from . import _core

__all__ = ["MESSAGES", "TREC_MESSAGES", "message", "is_ok"]

Code = _core.Code

# {user}, {item}, {side}, {score}, {grade} are filled in by the caller
MESSAGES: dict[Any, str] = {
    Code.bad_indptr: "`{side}` indptr is inconsistent at user {user!r}",
    Code.duplicate_truth: "`truth` lists item {item!r} more than once for user {user!r}; a user's truth items must be unique: "
    "combine the repeats with truth_duplicates='max', 'sum', 'first' or 'last'",
    Code.duplicate_recs: "`recs` lists item {item!r} more than once for user {user!r}; pass duplicates='first' to keep "
    "the first occurrence, 'miss' to keep the repeat's position as a non-hit, or 'count' to count every occurrence",
    Code.empty_truth: "user {user!r} has no relevant item in `truth` and empty='error' (use empty='skip', 'zero' or 'one')",
    Code.pad_inside: "`recs` row of user {user!r} has an item after the padding value at position {item}; pad only at "
    "the end",
    Code.bad_rowmap: "internal error: recs row map out of range at user {user!r}",
    Code.too_large: "one user's truth plus list holds {item} items; at most 2^29 per user are supported",
    Code.too_many_variants: "too many distinct (gain, log_base) combinations in one call (at most {item})",
    Code.missing_feature: "`item_features` has no row for item {item!r} (in the top k of user {user!r}); every "
    "recommended item needs one",
    Code.missing_similarity: "`item_similarity` has no row for item {item!r} (in the top k of user {user!r}); every "
    "recommended item needs one",
    Code.bad_score: "`matrix` scores must be finite; user {user!r} has {score} for item column {item}",
    Code.bad_grade: "`truth` grades must be finite; user {user!r} has grade {grade} for item {item!r}",
}

TrecError = _core.TrecError

# {path}, {line}, {layout}, {n_fields}, {value_name}, {token}, {byte}
TREC_MESSAGES: dict[Any, str] = {
    TrecError.fields: "{path}: line {line}: {layout}, got {n_fields}",
    TrecError.not_number: "{path}: line {line}: {value_name} {token!r} is not a number",
    TrecError.not_finite: "{path}: line {line}: {value_name} {token!r} must be finite",
    TrecError.not_utf8: "`path` {path}: not UTF-8 text (byte {byte}: invalid start or continuation byte)",
}


def is_ok(code: Any) -> bool:
    """Whether a status code is the success code of its table."""
    return code == Code.ok or code == TrecError.ok


def message(code: Any, **fields: Any) -> str:
    """The message of a status code with its fields filled in."""
    table = TREC_MESSAGES if isinstance(code, TrecError) else MESSAGES
    return table[code].format(**fields)
