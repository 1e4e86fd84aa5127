# Hand-written stubs of the private C++ module rankmeter._core.
from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt

has_openmp: bool
exact_limbs: int
exact_shift: int

def max_threads() -> int: ...

# The metric registry (metrics.def) and the option enums of the fused pass (ranking/columns.hpp)
class _Enum:
    name: str
    value: int
    __members__: dict[str, Any]
    def __init__(self, value: int) -> None: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...

class Kind(_Enum):
    hits: Kind
    precision: Kind
    recall: Kind
    fbeta: Kind
    ap: Kind
    ar: Kind
    cg: Kind
    dcg: Kind
    ndcg: Kind
    hit_rate: Kind
    rr: Kind
    arhr: Kind
    r_precision: Kind
    num_rel: Kind
    num_ret: Kind
    num_q: Kind
    bpref: Kind
    rbp: Kind
    err: Kind
    judged: Kind
    num_nonrel_judged: Kind
    unjudged: Kind
    rprec_mult: Kind
    iprec: Kind
    rbp_resid: Kind
    bin_g: Kind
    trec_g: Kind
    ndcg_rel: Kind
    rndcg: Kind
    infap: Kind
    compat: Kind
    pairwise_accuracy: Kind

class Denominator(_Enum):
    relevant: Denominator
    min_relevant_k: Denominator
    hits: Denominator
    k: Denominator

class Gain(_Enum):
    linear: Gain
    exponential: Gain
    binary: Gain

class Ideal(_Enum):
    cut: Ideal
    all: Ideal
    k_slots: Ideal

class BelowMin(_Enum):
    gain: BelowMin
    zero: BelowMin

class Discount(_Enum):
    reciprocal: Discount
    divide: Discount

class CrrIdeal(_Enum):
    k: CrrIdeal
    list: CrrIdeal

class ShortLists(_Enum):
    pad: ShortLists
    evidently: ShortLists

class Negative(_Enum):
    nonrelevant: Negative
    unjudged: Negative

class Scale(_Enum):
    none: Scale
    max_grade: Scale

class Cut(_Enum):
    round: Cut
    trec9: Cut

class Quantity(_Enum):
    eu: Quantity
    etu: Quantity
    ec: Quantity
    etc: Quantity
    ed: Quantity
    res_eu: Quantity
    res_etu: Quantity
    res_ec: Quantity
    res_etc: Quantity
    res_ed: Quantity

class Normalize(_Enum):
    ideal: Normalize
    none: Normalize

class EmptyPolicy(_Enum):
    skip: EmptyPolicy
    zero: EmptyPolicy
    one: EmptyPolicy
    error: EmptyPolicy

class DupPolicy(_Enum):
    error: DupPolicy
    first: DupPolicy
    miss: DupPolicy
    count: DupPolicy

class AucTies(_Enum):
    half: AucTies
    strict: AucTies
    optimistic: AucTies

class SerendipityRelevance(_Enum):
    relevant: SerendipityRelevance
    all: SerendipityRelevance
    none: SerendipityRelevance

class Code(_Enum):
    ok: Code
    bad_indptr: Code
    duplicate_truth: Code
    duplicate_recs: Code
    empty_truth: Code
    pad_inside: Code
    bad_rowmap: Code
    too_large: Code
    too_many_variants: Code
    missing_feature: Code
    missing_similarity: Code
    bad_score: Code
    bad_grade: Code

class TrecError(_Enum):
    ok: TrecError
    fields: TrecError
    not_number: TrecError
    not_finite: TrecError
    not_utf8: TrecError

class Column:
    kind: Kind
    cutoff: int
    denominator: Denominator
    gain: Gain
    ideal: Ideal
    log_base: float
    beta: float
    p: float
    max_grade: float
    mult: float
    at: float
    rel_ret: float
    nonrel_ret: float
    rel_nonret: float
    nonrel_nonret: float
    num_docs: float
    below_min: BelowMin
    discount: Discount
    crr_ideal: CrrIdeal
    short_lists: ShortLists
    negative: Negative
    scale: Scale
    cut: Cut
    t: float
    hb: float
    gain_med: float
    l: float
    halflife: float
    max_gain: float
    max_cost: float
    min_cost: float
    depth: float
    quantity: Quantity
    normalize: Normalize
    def __init__(self) -> None: ...

def metric_registry() -> list[dict[str, Any]]: ...
def metric_aliases() -> list[tuple[str, str, str]]: ...
def metric_better() -> list[tuple[str, str]]: ...
def simd_path() -> str: ...
def ranking_pass(
    t_indptr: npt.NDArray[np.int64],
    t_items: Union[npt.NDArray[np.int64], npt.NDArray[np.int32]],
    t_grades: Optional[Union[npt.NDArray[np.float64], npt.NDArray[np.float32]]],
    r_indptr: Optional[npt.NDArray[np.int64]],
    r_items: Union[npt.NDArray[np.int64], npt.NDArray[np.int32]],
    r_stride: int,
    r_pad: int,
    r_rowmap: Optional[npt.NDArray[np.int64]],
    columns: list[Column],
    min_relevance: Optional[float],
    empty: EmptyPolicy,
    duplicates: DupPolicy,
    max_items: int,
    threads: int,
    whole_lists: bool = False,
    per_user: bool = True,
    r_costs: Optional[npt.NDArray[np.float64]] = None,
) -> tuple[
    Optional[npt.NDArray[np.float64]], npt.NDArray[np.int64], npt.NDArray[np.int64], int, tuple[Code, int, int]
]: ...

# Statuses are (code, user index, item) tuples; Code.ok means no problem.
_I64 = npt.NDArray[np.int64]
_F64 = npt.NDArray[np.float64]
_Status = tuple[Code, int, int]

# ---- beyond-accuracy kernels (cpp/src/bind_beyond.cpp, rankmeter/beyond.hpp)
def train_popularity(indptr: _I64, items: _I64, n_items: int, threads: int) -> tuple[_I64, _I64, int]: ...
def prepare_lists(
    n_users: int,
    rowmap: Optional[_I64],
    r_indptr: Optional[_I64],
    r_items: _I64,
    r_scores: Optional[_F64],
    duplicates: DupPolicy,
    max_items: int,
    keep: int,
    threads: int,
    r_lens: Optional[_I64] = None,
) -> tuple[Optional[_I64], Optional[_I64], Optional[_F64], _Status]: ...
def padded_lengths(items: _I64, pad: int, threads: int) -> tuple[_I64, int]: ...
def item_counts(indptr: _I64, items: _I64, n_items: int, k: int, threads: int) -> _I64: ...
def int_range(x: _I64, threads: int) -> tuple[int, int]: ...
def train_codes(
    indptr: _I64, items: _I64, hard_limit: int, want_pop: bool, threads: int
) -> Optional[tuple[int, npt.NDArray[Any], Optional[_I64], int]]: ...
def topk_pass(
    n_users: int,
    rowmap: Optional[_I64],
    r_indptr: Optional[_I64],
    r_items: _I64,
    duplicates: DupPolicy,
    max_items: int,
    keep: int,
    n_base: int,
    hard_limit: int,
    cutoffs: list[int],
    tables: list[_F64],
    table_k: list[int],
    table_div: list[int],
    threads: int,
    r_lens: Optional[_I64] = None,
) -> Optional[tuple[_I64, list[_I64], list[_F64], _Status]]: ...
def count_no_relevant(
    indptr: _I64, grades: Optional[_F64], min_relevance: Optional[float], threads: int
) -> tuple[int, int]: ...
def cosine_overlap_sum(indptr: _I64, items: _I64, n_items: int, k: int, threads: int) -> float: ...
def mean_item_value(indptr: _I64, items: _I64, table: _F64, k: int, divide_by_k: bool, threads: int) -> _F64: ...
def diversity_features(
    indptr: _I64, items: _I64, X: _F64, has: npt.NDArray[np.uint8], k: int, threads: int
) -> tuple[_F64, _Status]: ...
def diversity_matrix(
    indptr: _I64,
    items: _I64,
    idx: _I64,
    dense: Optional[_F64],
    sp_indptr: Optional[_I64],
    sp_indices: Optional[_I64],
    sp_data: Optional[_F64],
    k: int,
    threads: int,
) -> tuple[_F64, _Status]: ...
def cooccurrence_pair_sums(
    t_indptr: _I64, t_items: _I64, r_indptr: _I64, r_items: _I64, n_items: int, threads: int
) -> tuple[_F64, _I64]: ...
def cooccurrence_row_sums(
    t_indptr: _I64, t_items: _I64, r_groups: _I64, r_items: _I64, n_items: int, threads: int
) -> _F64: ...
def diversity_cooccurrence(
    indptr: _I64, items: _I64, iu_indptr: _I64, iu_users: _I64, k: int, threads: int
) -> _F64: ...
def serendipity(
    indptr: _I64,
    items: _I64,
    t_indptr: _I64,
    t_items: _I64,
    t_grades: Optional[_F64],
    min_relevance: Optional[float],
    h_indptr: _I64,
    h_items: _I64,
    h_rowmap: Optional[_I64],
    X: _F64,
    has: npt.NDArray[np.uint8],
    k: int,
    relevance: SerendipityRelevance,
    iu_indptr: Optional[_I64],
    iu_users: Optional[_I64],
    empty: EmptyPolicy,
    threads: int,
) -> tuple[_F64, _Status]: ...
def fcp_counts(
    indptr: _I64,
    items: _I64,
    n_items: int,
    t_indptr: _I64,
    t_items: _I64,
    t_grades: Optional[_F64],
    min_relevance: Optional[float],
    k: int,
    empty: EmptyPolicy,
    threads: int,
) -> tuple[_I64, _I64, _Status]: ...
def score_entropy(indptr: _I64, items: _I64, scores: _F64, n_items: int, k: int, threads: int) -> float: ...
def exact_sum(values: _F64, threads: int) -> tuple[_I64, int]: ...
def exact_sum_groups(values: _F64, codes: _I64, n_groups: int, threads: int) -> tuple[_I64, _I64]: ...

# popularity and long tail (helper pop; rankmeter/popularity.hpp)
def popularity_values(
    indptr: _I64,
    items: _I64,
    table: _F64,
    k: int,
    divide: int,
    log_discount: bool,
    t_indptr: Optional[_I64],
    t_items: Optional[_I64],
    t_grades: Optional[_F64],
    min_relevance: Optional[float],
    threads: int,
) -> tuple[_F64, Optional[_I64]]: ...
def ips_values(
    indptr: _I64,
    items: _I64,
    weight: _F64,
    k: int,
    kind: int,
    snips: bool,
    t_indptr: _I64,
    t_items: _I64,
    t_grades: Optional[_F64],
    min_relevance: Optional[float],
    threads: int,
) -> tuple[_F64, _I64]: ...

# ties="last" (cpp/src/bind_ranking.cpp, rankmeter/ranking/ties.hpp): (AP's sum, hits) per row
def ap_tie_last(indptr: _I64, scores: _F64, rel: npt.NDArray[np.uint8], k: int, threads: int) -> tuple[_F64, _I64]: ...

# ---- the AUC family (cpp/src/bind_auc.cpp, rankmeter/auc.hpp)
def auc_values(
    n_users: int,
    rowmap: Optional[_I64],
    indptr: Optional[_I64],
    items: _I64,
    scores: Optional[_F64],
    lens: Optional[_I64],
    dups: DupPolicy,
    max_items: int,
    keep: int,
    n_items: int,
    t_indptr: _I64,
    t_items: _I64,
    t_grades: Optional[_F64],
    min_relevance: Optional[float],
    catalog: Optional[npt.NDArray[np.uint8]],
    h_indptr: Optional[_I64],
    h_items: Optional[_I64],
    k: int,
    max_fpr: float,
    ties: AucTies,
    threads: int,
) -> tuple[_I64, _I64, _I64, _F64, _F64, _Status]: ...
def auc_matrix_f32(
    matrix: npt.NDArray[np.float32],
    rowmap: Optional[_I64],
    t_indptr: _I64,
    t_items: _I64,
    t_grades: Optional[_F64],
    min_relevance: Optional[float],
    max_fpr: float,
    ties: AucTies,
    threads: int,
) -> tuple[_I64, _I64, _I64, _F64, _F64, _Status]: ...
def auc_matrix_f64(
    matrix: _F64,
    rowmap: Optional[_I64],
    t_indptr: _I64,
    t_items: _I64,
    t_grades: Optional[_F64],
    min_relevance: Optional[float],
    max_fpr: float,
    ties: AucTies,
    threads: int,
) -> tuple[_I64, _I64, _I64, _F64, _F64, _Status]: ...

# ---- input kernels (cpp/src/bind_inputs.cpp, rankmeter/inputs.hpp)
def topk_f64(
    scores: _F64, k: int, ex_indptr: Optional[_I64], ex_cols: Optional[_I64], threads: int
) -> tuple[_I64, _F64, _I64, _Status]: ...
def topk_f32(
    scores: npt.NDArray[np.float32], k: int, ex_indptr: Optional[_I64], ex_cols: Optional[_I64], threads: int
) -> tuple[_I64, _F64, _I64, _Status]: ...
def factorize_int64(ids: _I64) -> tuple[_I64, _I64]: ...

# The walker of Python objects (bind_walk.cpp): None when the objects are not plain, else
# (truth side, recs side, str labels, item kind (0 none, 1 int, 2 exact str, 4 str with numpy.str_), rowmap); a side: (users, indptr, items, values).
def walk_py(
    truth: Any, recs: Any, dict_rows: bool = False, threads: int = 0, parallel_min: int = 65536
) -> Optional[tuple[Any, Any, Optional[npt.NDArray[np.object_]], int, Optional[_I64]]]: ...
def distinct_ids(rows: Any, threads: int = 0, pick: Optional[npt.NDArray[np.int64]] = None) -> int: ...
def set_cooc_dense(mode: int) -> int: ...
def apk_one(actual: Any, predicted: Any, k: Any) -> Optional[float]: ...
def mt_choices(state: tuple[int, ...], n: int, k: int) -> Optional[tuple[npt.NDArray[np.int64], tuple[int, ...]]]: ...
def draw_distinct(generator: Any, rows: Any, k: int, threads: int = 0) -> Optional[int]: ...
def mt_choices_inplace(generator: Any, n: int, k: int) -> Optional[npt.NDArray[np.int64]]: ...
def lists_ap(
    actual: Any, predicted: Any, k: int, den_min_k: bool, empty_value: float, threads: int = 0
) -> Optional[_F64]: ...
def nested_dict(keys: npt.NDArray[np.object_], names: list, values: _F64) -> dict: ...

# (key types, inner key types, inner value types) of a plain dict of plain dicts, or None.
def nested_types(outer: Any) -> Optional[tuple[set[type], set[type], set[type]]]: ...

# [q for q, docs in outer.items() if q in docs] for a dict of dicts (BEIR's identical ids), or None.
def keys_in_values(outer: Any) -> Optional[list[Any]]: ...

# pytrec_eval's evaluate(run) in one call (plain dicts of str documents), or None for the general path.
def trec_nested(
    qrels: Any,
    run: Any,
    columns: list[Column],
    col_of: list[int],
    names: list[str],
    min_relevance: float,
    empty: EmptyPolicy,
    duplicates: DupPolicy,
    threads: int,
    nested: bool = True,
    by_input: bool = False,
) -> Any: ...
def all_finite(a: npt.NDArray[np.floating], threads: int) -> bool: ...
def first_in_row(indptr: _I64, codes: _I64, threads: int) -> tuple[npt.NDArray[np.bool_], int, _I64]: ...
def pairs_overlap(a_user: _I64, a_item: _I64, b_user: _I64, b_item: _I64, n_users: int, threads: int) -> int: ...
def order_by_score(indptr: _I64, scores: _F64, key: Optional[_I64], threads: int) -> _I64: ...
def order_numba_quicksort(indptr: _I64, keys: _F64, reverse: bool, threads: int) -> _I64: ...
def order_torch(indptr: _I64, keys: _F64, k: int, threads: int) -> _I64: ...
def stl_sort_int64(keys: _I64) -> _I64: ...
def group_rows(codes: _I64, n_codes: int, rank: Optional[_I64]) -> tuple[_I64, _I64, int]: ...
def parse_trec(
    data: bytes, n_min: int, n_max: int, value_field: int
) -> tuple[
    Optional[npt.NDArray[np.object_]],
    Optional[_I64],
    Optional[_I64],
    Optional[bytes],
    Optional[_I64],
    Optional[_F64],
    tuple[TrecError, int, int, int, bytes],
]: ...
def merge_sorted_strings(
    blob_a: bytes, offsets_a: _I64, blob_b: bytes, offsets_b: _I64
) -> tuple[_I64, _I64, bytes, _I64]: ...
def decode_strings(blob: bytes, offsets: _I64, index: Optional[_I64] = None) -> npt.NDArray[np.object_]: ...

# ---- significance kernels (cpp/src/bind_significance.cpp, rankmeter/significance.hpp)
def sign_flip_sums(values: _F64, n_resamples: int, seed: int, threads: int) -> tuple[_F64, _F64]: ...
def bootstrap_sums(values: _F64, n_resamples: int, seed: int, threads: int) -> _F64: ...
def splitmix_words(seed: int, domain: int, resample: int, count: int) -> npt.NDArray[np.uint64]: ...
def group_permutation_ranges(
    values: npt.NDArray[np.float64],
    valid: npt.NDArray[np.float64],
    codes: npt.NDArray[np.int64],
    n_groups: int,
    n_permutations: int,
    seed: int,
    threads: int,
) -> npt.NDArray[np.float64]: ...
def fusion_normalise(indptr: _I64, values: _F64, norm: int, threads: int) -> _F64: ...
def fusion_fuse(
    indptr: _I64,
    codes: _I64,
    values: _F64,
    n_runs: int,
    transform: int,
    combine: int,
    borda_norm: bool,
    k: float,
    phi: float,
    gamma: float,
    sigma: float,
    missing: float,
    w: int,
    weights: _F64,
    tables: Optional[_F64],
    table_indptr: Optional[_I64],
    map_scores: Optional[_F64],
    threads: int,
) -> tuple[_I64, _I64, _F64, int]: ...
def fusion_wsum_ranks(
    cand_indptr: _I64, values: _F64, rel_indptr: _I64, rel_idx: _I64, weights: _F64, threads: int
) -> _I64: ...

# ---- intent-aware (subtopic) diversity (cpp/src/bind_subtopic.cpp, rankmeter/subtopic.hpp)
def subtopic_values(
    l_indptr: _I64,
    l_items: _I64,
    j_indptr: _I64,
    j_items: _I64,
    j_key: _I64,
    s_indptr: _I64,
    s_sub: _I64,
    n_sub: _I64,
    kinds: npt.NDArray[np.int32],
    ks: _I64,
    alpha: float,
    beta: float,
    threads: int,
) -> _F64: ...

# ---- agreement between two runs (cpp/src/bind_agreement.cpp, rankmeter/agreement.hpp)
def agreement_values(
    a_items: _I64,
    a_start: _I64,
    a_len: _I64,
    b_items: _I64,
    b_start: _I64,
    b_len: _I64,
    kinds: npt.NDArray[np.int32],
    ka: _I64,
    kb: _I64,
    p: _F64,
    variant: npt.NDArray[np.int32],
    threads: int,
) -> tuple[_F64, int, int, _I64, _I64]: ...

# ---- miscalibration (cpp/src/bind_calibration.cpp, rankmeter/calibration.hpp)
def calibration_values(
    l_indptr: _I64,
    l_items: _I64,
    h_indptr: _I64,
    h_items: _I64,
    c_indptr: _I64,
    c_cat: _I64,
    n_cats: int,
    k: int,
    alpha: float,
    weight: int,
    threads: int,
) -> _F64: ...

# item exposure fairness (rankmeter/exposure.hpp, docs/metrics.md 3.23)
def exposure_lookup(
    l_indptr: _I64,
    l_items: _I64,
    t_indptr: _I64,
    t_items: _I64,
    t_grades: Optional[_F64],
    h_indptr: Optional[_I64],
    h_items: Optional[_I64],
    n_items: int,
    k: int,
    ideal: int,
    threads: int,
) -> tuple[_F64, npt.NDArray[np.uint8], npt.NDArray[np.uint8], _F64]: ...
def awrf_values(
    l_indptr: _I64,
    l_items: _I64,
    k: int,
    attention: _F64,
    g_indptr: _I64,
    g_codes: _I64,
    n_groups: int,
    own_bucket: bool,
    multi_each: bool,
    fixed: Optional[_F64],
    t_indptr: Optional[_I64],
    t_items: Optional[_I64],
    t_rel: Optional[npt.NDArray[np.uint8]],
    log_base: float,
    threads: int,
) -> _F64: ...

# Factors (bind_model.cpp, rankmeter/model.hpp): the float32 score matrix, and the blocked pass:
# (top-k columns, their scores, list lengths, the rank of every truth entry, (rel, pos, neg, num2, auc), status).
def factor_scores(U: npt.NDArray[np.float32], V: npt.NDArray[np.float32], threads: int) -> npt.NDArray[np.float32]: ...
def factor_pass(
    U: npt.NDArray[np.float32],
    V: npt.NDArray[np.float32],
    k: int,
    ex_indptr: Optional[_I64],
    ex_cols: Optional[_I64],
    t_indptr: _I64,
    t_cols: _I64,
    t_rel: npt.NDArray[np.uint8],
    block_users: int,
    block_items: int,
    ties: AucTies,
    threads: int,
) -> tuple[_I64, _F64, _I64, _I64, tuple[_I64, _I64, _I64, _F64, _F64], _Status]: ...
def factor_tile_path() -> int: ...
