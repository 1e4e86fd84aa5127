"""Presets: whole families of conventions selected at once (``preset=``).

A preset sets evaluation defaults (``ties``, ``empty``, ...) and metric option
defaults; anything passed explicitly wins over the preset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

__all__ = ["Preset", "PRESETS", "get_preset"]


@dataclass(frozen=True)
class Preset:
    name: str
    defaults: dict = field(default_factory=dict)  # evaluate() keyword defaults
    metric_options: Callable[[str, Optional[int]], dict] = lambda name, k: {}
    doc: str = ""


def _trec_eval_options(name: str, k: Optional[int]) -> dict:
    # trec_eval's `ndcg` (no cutoff) normalises by the ideal DCG of ALL judged
    # relevant documents; its `ndcg_cut_k` cuts the ideal list at k.
    if name == "ndcg" and k is None:
        return {"ideal": "all"}
    return {}


PRESETS: dict[str, Preset] = {
    "trec_eval": Preset(
        "trec_eval",
        defaults={"ties": "trec", "empty": "zero", "missing": "skip"},
        metric_options=_trec_eval_options,
        doc=(
            "trec_eval 10.0: lists ranked by score, equal scores by docno descending (string order); "
            "queries without relevant documents score 0 (x/0 = 0); only queries in both qrels and run are "
            "evaluated (trec_eval's default; missing='zero' gives -c); `ndcg` without cutoff uses the ideal DCG "
            "of all relevant documents; duplicates are looked for in whole lists. "
            "Use max_items=N for -M N and min_relevance=L for -l L."
        ),
    ),
}


def get_preset(name: Optional[str]) -> Optional[Preset]:
    """The preset of that name; None for no preset (``None`` or ``"none"``)."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"`preset` must be a string, got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_")
    if key == "none":
        return None
    if key not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; known presets: {', '.join(sorted(PRESETS))}")
    return PRESETS[key]
