"""Inputs: every accepted form of truth and recommendations into checked CSR buffers.

Layer 2 of the package (it imports only the low layer: ``_options``,
``_core``): the containers :class:`Truth` and :class:`Recs`, one module per
source (dicts and lists and numpy in ``_containers``, tables and parquet in
``_frame``, TREC files in ``_trec``), the one classifier of input paths
(``_sources``: parquet, CSV or TREC), the readers of inputs in chunks of whole
users for streaming (``_chunks``), id coding (``_ids``), checked buffers
(``_arrays``), the dispatcher that picks a reader (``_dispatch``) and user
alignment (``_align``). Nothing here knows a metric.
"""

from ._align import (
    RANX_TIES,
    add_recs_only_users,
    align,
    count_tied_users,
    label_rank,
    list_lengths,
    padded_to_csr,
    rank_by_score,
    ranx_order,
    score_order,
    string_rank,
    subset_users,
    tie_key,
)
from ._arrays import all_finite, sum_is_finite
from ._containers import Recs, Truth
from ._dispatch import read_trec_qrels, read_trec_run, to_recs, to_truth
from ._frame import is_frame, is_ranked_table
from ._ids import as_id_array, check_id_kinds, code_ids, factorize, factorize_items, id_kind, id_label

__all__ = [
    "Truth",
    "Recs",
    "to_truth",
    "to_recs",
    "read_trec_qrels",
    "read_trec_run",
    "is_frame",
    "is_ranked_table",
    "align",
    "rank_by_score",
    "count_tied_users",
    "ranx_order",
    "RANX_TIES",
    "padded_to_csr",
    "string_rank",
    "score_order",
    "label_rank",
    "tie_key",
    "subset_users",
    "add_recs_only_users",
    "list_lengths",
    "as_id_array",
    "code_ids",
    "factorize",
    "factorize_items",
    "id_label",
    "id_kind",
    "check_id_kinds",
    "all_finite",
    "sum_is_finite",
]
