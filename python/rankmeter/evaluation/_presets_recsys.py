"""The recommender libraries' presets (RecTools, Microsoft Recommenders, Evidently,
torchmetrics, scikit-learn, ml_metrics, recmetrics, CAPRI), as plain tables.

Each entry is the keyword arguments of ``Preset`` built by ``_presets.py``:
``defaults`` (``evaluate()`` keyword defaults), ``options`` (metric -> option
defaults), ``metrics`` (the library's metric -> the rankmeter metric it equals
under the preset), ``unmatched`` (what the preset does not reproduce) and
``doc``. The versions named are the ones the conformance suite
(``tests/conformance``) runs against; each statement below was read from that
version's code, not its documentation.
"""

from __future__ import annotations

__all__ = ["RECSYS_PRESETS"]

RECSYS_PRESETS: list[dict] = [
    {
        "name": "rectools",
        "defaults": {"empty": "zero", "missing": "zero"},
        "options": {
            "ndcg": {"ideal": "k_slots", "gain": "binary"},
            "novelty": {"unseen": "one_user"},
            "arp": {"popularity": "interactions", "unseen": "zero"},
        },
        "metrics": (
            ("Precision(k)", "precision@k"),
            ("Precision(k, r_precision=True)", "recall(denominator=min_relevant_k)@k"),
            ("Recall(k)", "recall@k"),
            ("F1Beta(k, beta)", "fbeta(beta=beta)@k"),
            ("MAP(k)", "ap@k"),
            ("MAP(k, divide_by_k=True)", "ap(denominator=k)@k"),
            ("NDCG(k)", "ndcg(ideal=k_slots,gain=binary)@k"),
            ("NDCG(k, divide_by_achievable=True)", "ndcg(ideal=cut,gain=binary)@k"),
            ("MRR(k)", "rr@k"),
            ("HitRate(k)", "hit_rate@k"),
            ("MeanInvUserFreq(k)", "novelty(unseen=one_user)@k (train=prev_interactions)"),
            ("AvgRecPopularity(k)", "arp(popularity=interactions,unseen=zero)@k (train=prev_interactions)"),
            ("AvgRecPopularity(k, normalize=True)", "arp(popularity=interactions,unseen=zero,normalize=total)@k"),
        ),
        "unmatched": (
            "RecTools counts every interaction row as relevant, whatever its weight; rankmeter counts grades > 0 "
            "(the same for positive weights or a truth without grades)",
            "a duplicated (user, item) row in interactions or reco counts twice in RecTools; rankmeter rejects "
            "duplicates in truth and, with duplicates='first', keeps the first in recs",
            "equal ranks in reco all count at their rank in RecTools; rankmeter reads one ordered list",
            "MeanInvUserFreq/AvgRecPopularity average over RecTools' reco users; rankmeter over the truth users "
            "with a non-empty list (the same users when every reco user is in truth)",
            "Serendipity, IntraListDiversity, Intersection, Accuracy, MCC, the classification metrics needing a "
            "catalog and the debiased variants have no rankmeter counterpart",
        ),
        "doc": (
            "RecTools 0.19 (rectools/metrics/*.py): users are the users of `interactions` (all of them relevant, "
            "so empty='zero' changes nothing there); a user without recommendations scores 0 (missing='zero'); "
            "precision@k = tp/k; recall@k = tp/|R|; MAP = sum of P@j at the hits within k / |R| (divide_by_k=False); "
            "NDCG ignores weights (binary gain) and divides by the DCG of k relevant items (ideal='k_slots', "
            "divide_by_achievable=False); MRR 1/first hit rank within k; MeanInvUserFreq -log2(n_users(i)/N) with an "
            "unseen item counted as one user (novelty(unseen='one_user')); AvgRecPopularity = mean number of "
            "interactions of the top-k items, unseen 0 (arp(popularity='interactions', unseen='zero'))."
        ),
    },
    {
        "name": "recommenders",
        "defaults": {"empty": "zero", "missing": "skip"},
        "options": {
            "ndcg": {"gain": "binary"},
            "ap": {"denominator": "min_relevant_k"},
            "diversity": {"similarity": "cooccurrence"},
            "serendipity": {"relevance": "all"},
        },
        "metrics": (
            ("precision_at_k(k)", "precision@k"),
            ("recall_at_k(k)", "recall@k"),
            ("ndcg_at_k(k)", "ndcg(gain=binary)@k"),
            ("ndcg_at_k(k, score_type='raw')", "ndcg(gain=linear)@k"),
            ("ndcg_at_k(k, score_type='exp')", "ndcg(gain=exponential)@k"),
            ("map_at_k(k)", "ap(denominator=min_relevant_k)@k"),
            ("map(k)", "ap(denominator=relevant)@k"),
            ("catalog_coverage", "coverage (catalog = the train items, the default)"),
            ("diversity / user_diversity (co-occurrence)", "diversity(similarity=cooccurrence)"),
        ),
        "unmatched": (
            "ndcg_at_k averages over every user of rating_true (a user without predictions scores 0) while the other "
            "ranking metrics average over the users in both tables: pass missing='zero' for ndcg_at_k",
            "every rating_true row is relevant in Recommenders, whatever its rating; rankmeter counts grades > 0",
            "r_precision_at_k averages over the users with at least one hit in the top k only; no rankmeter option "
            "drops users that way",
            "ties in the prediction column are ordered by pandas' unstable sort; rankmeter keeps the input order "
            "(ties='input')",
            "novelty/historical_item_novelty (log2 of interaction share over all train rows, weighted by how often "
            "an item is recommended) and distributional_coverage have no rankmeter counterpart; catalog_coverage "
            "counts recommended items outside train too (rankmeter's coverage counts only catalog items)",
        ),
        "doc": (
            "Microsoft Recommenders 1.2 (recommenders/evaluation/python_evaluation.py, relevancy_method='top_k'): "
            "only users present in both rating_true and rating_pred are evaluated (missing='skip'); a user without "
            "a hit scores 0; precision@k = hits/k; recall@k = hits/|rating_true rows|; ndcg_at_k: score_type "
            "'binary' (default, gain 1 per truth row), 'raw' (linear) or 'exp' (2^r - 1), ideal = the truth ratings "
            "sorted descending cut at k (the log base cancels); map_at_k = sum of P@j at the hits / min(|R|, k); "
            "map = the same sum / |R|."
        ),
    },
    {
        "name": "torchmetrics",
        "defaults": {"empty": "zero", "ties": "average"},
        "options": {
            "ap": {"denominator": "hits", "hit_scores": "positive"},
            "precision": {"hit_scores": "positive"},
            "recall": {"hit_scores": "positive"},
            "rr": {"hit_scores": "positive"},
        },
        "metrics": (
            ("RetrievalPrecision(top_k)", "precision(hit_scores=positive)@k"),
            (
                "RetrievalPrecision(top_k, adaptive_k=True)",
                "precision(hit_scores=positive,short_lists=evidently)@k (hits / min(n, k))",
            ),
            ("RetrievalRecall(top_k)", "recall(hit_scores=positive)@k"),
            ("RetrievalMAP(top_k)", "ap(denominator=hits,hit_scores=positive)@k"),
            ("RetrievalMRR(top_k)", "rr(hit_scores=positive)@k"),
            ("RetrievalHitRate(top_k)", "hit_rate@k"),
            ("RetrievalNormalizedDCG(top_k)", "ndcg@k (ties='average')"),
            ("RetrievalRPrecision()", "r_precision"),
            ("top_k=None", "no cutoff (the whole list)"),
            ("empty_target_action='neg'/'pos'/'skip'/'error'", "empty='zero'/'one'/'skip'/'error'"),
        ),
        "unmatched": (
            "torchmetrics computes in float32: values agree to float32's precision (relative ~1e-6), not bit for bit. "
            "Rounding rankmeter's per-user values to float32 gives torchmetrics' exactly for precision, recall, rr, "
            "hit_rate and r_precision (one division each), but not for AP (559 of 720 users in a trial) or NDCG "
            "(347 of 720), which torchmetrics accumulates in float32, nor for the float32 means",
            "ignore_index drops the rows whose target equals it before anything is computed: leave those rows out "
            "of truth and recs",
            "equal scores outside NDCG are ordered by torch.topk/argsort (unspecified); rankmeter averages them only "
            "for NDCG-family gains",
            "with every query skipped torchmetrics returns 0.0; rankmeter NaN",
        ),
        "doc": (
            "torchmetrics 1.x retrieval metrics (functional/retrieval/*.py, retrieval/base.py): a query without a "
            "positive target scores 0 (empty_target_action='neg': empty='zero'); the mean is over queries; "
            "precision@k = hits/k even when fewer than k documents (adaptive_k=False); MAP = mean precision at the "
            "hit positions within top_k (ap(denominator='hits')); NDCG: linear gain, tie-averaged DCG "
            "(ties='average'), ideal = targets sorted descending cut at top_k. The documents of a query are its list "
            "(recs) and the ones with target > 0 its truth. RetrievalPrecision, RetrievalRecall, RetrievalMAP and "
            "RetrievalMRR count a document whose prediction is <= 0 as not relevant (torch.where(preds > 0, target, "
            "0)) though it keeps its rank and still counts in |R| and in the empty-query check; RetrievalHitRate, "
            "RetrievalRPrecision and RetrievalNormalizedDCG do not filter: the preset sets hit_scores='positive' on "
            "precision, recall, ap and rr only."
        ),
    },
    {
        "name": "sklearn",
        "defaults": {"empty": "zero", "ties": "average"},
        "options": {},
        "metrics": (
            ("ndcg_score(y_true, y_score, k)", "ndcg@k (ties='average'; ndcg without k: no cutoff)"),
            ("ndcg_score(..., ignore_ties=True)", "ndcg@k with ties='input' on lists ordered by score"),
            ("dcg_score(y_true, y_score, k, log_base)", "dcg(log_base=log_base)@k"),
            ("top_k_accuracy_score(y_true, y_score, k)", "hit_rate@k, one relevant label per row, ties='item_desc'"),
        ),
        "unmatched": (
            "ndcg_score raises ValueError on negative y_true and on a single document per row; rankmeter computes",
            "sample_weight (a weighted mean) has no rankmeter option",
            "top_k_accuracy_score orders equal scores by descending class index (ties='item_desc' with items = "
            "column indices); with two classes it thresholds a 1-D score instead",
        ),
        "doc": (
            "scikit-learn (sklearn/metrics/_ranking.py): each row of y_true/y_score is a user whose documents are the "
            "columns: recs = the columns ranked by y_score, truth = the grades y_true; a row whose ideal DCG is 0 "
            "scores 0 (empty='zero'); equal scores share their discounts (ignore_ties=False: ties='average'); "
            "ideal = y_true sorted descending cut at k; dcg_score divides by log_base(rank+1) (log_base=2)."
        ),
    },
    {
        "name": "ml_metrics",
        "defaults": {"empty": "one"},
        "options": {"ap": {"denominator": "min_relevant_k"}},
        "metrics": (
            ("apk(actual, predicted, k)", "ap(denominator=min_relevant_k)@k, empty='one'"),
            ("mapk(actual, predicted, k)", "mean of the same (np.mean over zip(actual, predicted))"),
        ),
        "unmatched": (
            "a repeated prediction keeps its position without counting in ml_metrics; rankmeter rejects it "
            "(duplicates='error') or closes the list up (duplicates='first'): rankmeter.compat.ml_metrics "
            "reproduces the original exactly",
            "len(actual) counts repeated truth items in the denominator; rankmeter truth items are unique",
            "the GitHub source after 0.1.4 scores an empty actual 0.0: pass empty='zero' for it",
        ),
        "doc": (
            "ml_metrics 0.1.4 (the PyPI release, average_precision.py): AP@k = sum of P@j at the hits within k / "
            "min(len(actual), k) (ap(denominator='min_relevant_k')); an empty actual scores 1.0 (empty='one')."
        ),
    },
    {
        "name": "recmetrics",
        "defaults": {"empty": "zero"},
        "options": {
            "ap": {"denominator": "hits"},
            "personalization": {"similarity": "cosine"},
            "novelty": {"divide_by": "k", "popularity": "interactions", "unseen": "zero"},
        },
        "metrics": (
            ("mapk(actual, predicted, k) (GitHub; not in 0.1.5)", "ap(denominator=hits)@k"),
            ("mark(actual, predicted, k)", "ap(denominator=relevant)@k (precision at the hits / len(actual))"),
            ("personalization(predicted)", "personalization(similarity=cosine)"),
            ("intra_list_similarity(predicted, features)", "1 - diversity (item_features=features)"),
            (
                "novelty(predicted, pop, u, n)",
                "novelty(divide_by=k,popularity=interactions,unseen=zero)@n "
                "when pop counts train interactions and u is the number of train users",
            ),
            ("prediction_coverage(predicted, catalog)", "round(100 * coverage, 2) (catalog=catalog)"),
            (
                "recommender_precision / recommender_recall",
                "precision / recall without cutoff, rounded to 4 decimals per user by recmetrics (not reproduced)",
            ),
        ),
        "unmatched": (
            "repeated predictions keep their positions in recmetrics (see ml_metrics); rankmeter.compat.recmetrics "
            "reproduces the originals exactly",
            "catalog_coverage samples lists with random.choices; prediction_coverage counts predicted items outside "
            "the catalog too; recommender_precision/recall round each user's value to 4 decimals",
        ),
        "doc": (
            "recmetrics 0.1.5 (metrics.py) and its GitHub mapk: mapk = mean of precision at the hits within k "
            "(ap(denominator='hits')), 0 for an empty actual (empty='zero'); mark divides the same sum by "
            "len(actual); personalization uses the cosine of two users' item sets; novelty sums -log2(pop[i]/u) "
            "over a list and divides by n (divide_by='k')."
        ),
    },
    {
        "name": "capri",
        "defaults": {"empty": "zero"},
        "options": {
            "ap": {"denominator": "min_relevant_k"},
            "ndcg": {"ideal": "all", "gain": "binary", "rounding": "capri"},
            "novelty": {"unseen": "zero", "divide_by": "k", "popularity": "interactions"},
            "personalization": {"similarity": "cosine"},
            "diversity": {"similarity": "matrix"},
        },
        "metrics": (
            ("mapk", "ap(denominator=min_relevant_k)@k"),
            ("ndcgk", "ndcg(gain=binary,ideal=all,rounding=capri)@k: float32, rounded to 4 decimals per user"),
            ("novelty", "novelty(unseen=zero,divide_by=k,popularity=interactions)@k"),
            ("coverage", "round(100 * coverage, 2)"),
            ("personalization", "personalization(similarity=cosine)"),
            ("list diversity (item similarity matrix)", "diversity(similarity=matrix)"),
            ("precisionk", "precision without cutoff with max_items=k (CAPRI divides by the list length)"),
        ),
        "unmatched": (
            "evaluator.py calls mapk(actual, predicted[:topK]) without k, so its denominator is min(len(actual), 10) "
            "whatever topK: the preset's map@k (min(|R|, k)) equals it for k = 10, or when no user has more than k "
            "relevant items",
            "ndcgk(actual, predicted, relevance=grades) (not what evaluator.py calls) uses the gain 2^grade - 1: "
            "ndcg(gain=exponential,ideal=all), without CAPRI's float32 rounding",
            "CAPRI writes the means to its CSV rounded to 5 decimals (DataFrame.round(5)); its np.mean of float32 "
            "values is float32 when no user scores 0: rankmeter's mean is the exact mean of the same per-user values",
            "CAPRI is not installable from PyPI: its code path is restated in tests (tests/compat/test_capri.py, "
            "tests/metrics/test_beyond.py), not run",
        ),
        "doc": (
            "CAPRI (github.com/CapriRecSys/CAPRI, Evaluations/metrics/*.py, restated in tests/compat/test_capri.py and "
            "tests/metrics/test_beyond.py): MAP@k divides by min(|R|, k); nDCG@k (ndcgk as evaluator.py calls it) "
            "gains 1 per relevant item, divides by the ideal DCG of all relevant items (ideal='all'), computes in float32 "
            "and rounds each user's value to 4 decimals (round() of a numpy float32: rounding='capri'); novelty "
            "sums -log2 of the "
            "interaction share over the top k and divides by k, unseen items 0; personalization by cosine; list "
            "diversity from an item similarity matrix."
        ),
    },
    {
        "name": "evidently",
        "defaults": {"empty": "skip", "missing": "zero", "ties": "evidently"},
        "options": {
            "precision": {"short_lists": "evidently", "rows": "evidently"},
            "ap": {"short_lists": "evidently", "rows": "evidently"},
            "ar": {"short_lists": "evidently", "rows": "evidently"},
            "ndcg": {"rows": "evidently"},
            "diversity": {"divide_by": "items"},
            "serendipity": {"aggregate": "sum"},
            "personalization": {"similarity": "evidently"},
            "gini": {"over": "recommended"},
        },
        "metrics": (
            (
                "PrecisionTopK(k)",
                "precision(short_lists=evidently,rows=evidently)@k: hits / min(rows, k), rows = the list plus the "
                "truth items not in it",
            ),
            ("RecallTopK(k)", "recall@k (|R| = the user's rows with target > 0)"),
            ("FBetaTopK(k, beta)", "(1 + b^2) P R / (b^2 P + R) of the means P = precision@k, R = recall@k"),
            ("MAP(k)", "ap(short_lists=evidently,rows=evidently)@k"),
            ("MAR(k) (legacy MARKMetric)", "ar(short_lists=evidently,rows=evidently)@k"),
            ("NDCG(k)", "ndcg(rows=evidently)@k (the target as gain, negative too; ideal over every row, cut at k)"),
            ("NDCG(k, min_rel_score=m)", "ndcg(rows=evidently,gain=binary)@k with min_relevance=m"),
            ("MRR(k)", "rr@k"),
            ("HitRate(k)", "hit_rate@k"),
            ("min_rel_score=m (top-k metrics)", "min_relevance=m (m = 0 is no threshold in Evidently: none)"),
            ("no_feedback_users=False / True", "empty='skip' / 'zero'"),
            ("recommendations_type='score'", "score_col= and ties='evidently' (floored average ranks of tied scores)"),
            ("Novelty(k)", "novelty@k (train=the training data)"),
            ("Personalization(k)", "personalization(similarity=evidently)@k"),
            ("Diversity(k, item_features)", "diversity(divide_by=items)@k (item_features=...)"),
            (
                "Serendipity(k, item_features)",
                "serendipity(aggregate=sum)@k (train=..., item_features=...; empty='skip')",
            ),
            (
                "PopularityBiasMetric(k): arp / coverage / gini",
                "arp@k (normalize_arp=True: arp(normalize=max)@k) / coverage@k / gini(over=recommended)@k",
            ),
            ("ScoreDistribution(k)", "score_entropy@k"),
        ),
        "unmatched": (
            "a (user, item) pair in two rows of Evidently's table counts twice (twice a relevant row, twice a hit, "
            "twice in the item counts); rankmeter's truth items are unique and a repeated list item raises "
            "(duplicates='error') or keeps its first position (duplicates='first', which the Evidently options reject)",
            "Evidently's 'rel_j' is the last row at or above rank j in the order the rows are given: the preset "
            "reproduces rows given in rank order per user; rows out of rank order change Evidently's MAP/MAR",
            "equal ranks in a rank table (several rows at one rank) all count at that rank in Evidently; rankmeter "
            "reads one list with ranks 1..n (a table with repeated ranks raises)",
            "when no user has k rows, Evidently raises (KeyError: no rank k in its table); so does NDCG/MRR/HitRate "
            "when no list reaches rank k; Diversity raises (ZeroDivisionError) when a user has no row within k; "
            "rankmeter computes",
            "Personalization of fewer than two users: Evidently divides by zero (inf or NaN); rankmeter returns NaN",
            "NDCG and MRR in the new API (evidently.metrics): each value is reported at 'rank' = index + 1 while the "
            "legacy series is already indexed from 1, so the row labelled rank K holds NDCG@K-1 / MRR@K-1; "
            "rankmeter's ndcg@k is NDCG@K (the legacy current_value)",
            "FBetaTopK is the F-beta of the mean precision and the mean recall, not a mean of per-user F-beta "
            "(rankmeter's fbeta): compute it from res['precision@k'] and res['recall@k']",
            "no_feedback_users and the new API's Serendipity without min_rel_score: rankmeter's empty= and "
            "min_relevance apply to every metric of a call, so evaluate Serendipity in a call with empty='skip' "
            "(and without min_relevance for the new API)",
            "a user that is only in recs (no truth row) is not evaluated by rankmeter: pass the whole table as truth "
            "(its rows with target 0 make the user a truth user), docs/metrics.md 11.4",
            "ItemBias, UserBias and RecCasesTable are histograms and tables, not metrics (rankmeter.item_bias, "
            "user_bias, rec_cases give rankmeter's own tables)",
        ),
        "doc": (
            "Evidently 0.7.23 (legacy/metrics/recsys/*.py behind evidently.metrics; the same numbers in both APIs). "
            "Evidently reads one table of rows: recommended items with their rank (or score) and relevant items that "
            "were not recommended, ranked past every cutoff; pass the table as truth and the recommended rows as recs "
            "(docs/metrics.md 11.4). Users without a relevant row are left out (no_feedback_users=False: "
            "empty='skip'); a user whose rows are all unrecommended scores 0 (missing='zero'); recall@k = tp_k / "
            "relevant rows; precision_j = tp_j / min(rows, j) and MAP/MAR sum precision_j (recall_j) times the "
            "relevance of the last row at or above rank j (short_lists='evidently', rows='evidently'), so ranks past "
            "a short list repeat its last item; NDCG gains each row's target (negative ones too) at its rank and "
            "divides by the ideal of every row's target cut at k (rows='evidently'); MRR and HitRate: relevant rows "
            "within k. With scores, a tie group at positions a..b sits at rank floor((a+b)/2) for those metrics and is "
            "in the top k of the others when (a+b)/2 <= k (ties='evidently'). Personalization, Diversity and "
            "Serendipity follow its code (similarity='evidently', divide_by='items', aggregate='sum'); Novelty, ARP "
            "and coverage are rankmeter's defaults over the train data, Gini is over the recommended items."
        ),
    },
]
