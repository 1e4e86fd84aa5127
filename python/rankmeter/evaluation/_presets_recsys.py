"""The recommender libraries' presets (Elliot, LensKit, Cornac, RecBole, RePlay, RecTools, Microsoft Recommenders, Evidently,
torchmetrics, scikit-learn, ml_metrics, recmetrics, CAPRI), as plain tables.

Each entry is the keyword arguments of ``Preset`` built by ``_presets.py``:
``defaults`` (``evaluate()`` keyword defaults), ``options`` (metric -> option
defaults; ``uncut``: a metric's row when it has no cutoff), ``metrics`` (the library's metric -> the rankmeter metric it equals
under the preset), ``unmatched`` (what the preset does not reproduce) and
``doc``. The versions named are the ones the conformance suite
(``tests/conformance``) runs against; each statement below was read from that
version's code, not its documentation.
"""

from __future__ import annotations

import math

__all__ = ["RECSYS_PRESETS"]

RECSYS_PRESETS: list[dict] = [
    {
        "name": "replay",
        "defaults": {
            "empty": "zero",
            "min_relevance": -math.inf,
            "missing": "zero",
            "recs_only": "skip",
            "ties": "item_desc",
        },
        "options": {"ndcg": {"gain": "binary"}, "ap": {"denominator": "min_relevant_k"}},
        "metrics": (
            ("NDCG(k)", "ndcg(gain=binary)@k"),
            ("MAP(k)", "ap(denominator=min_relevant_k)@k"),
            ("MRR(k)", "rr@k"),
            ("Precision(k)", "precision@k"),
            ("Recall(k)", "recall@k"),
            ("HitRate(k)", "hit_rate@k"),
        ),
        "unmatched": (
            "a dict of (item, score) lists: RePlay keeps equal scores in the list's order (ties='input'); its "
            "DataFrames order them by item id, descending (the preset's ties='item_desc')",
            "Novelty (the share of the top k not in the user's own train items), Coverage (over the train items), "
            "Surprisal, Unexpectedness, CategoricalDiversity and RocAuc: not in the preset",
        ),
        "doc": (
            "RePlay 0.22 (replay/metrics/*.py), the DataFrame form: the users are those of the ground truth, every "
            "ground-truth row relevant (min_relevance=-inf); a user without recommendations scores 0 "
            "(missing='zero'); users of the recommendations only are not evaluated; the recommendations are ordered "
            "by score, descending, equal scores by item id, descending (ties='item_desc'); a repeated (user, item) "
            "is refused, as rankmeter does; NDCG@k: binary gain, ideal of min(|R|, k) items "
            "(ndcg(gain=binary)); MAP@k = sum of P@j at the hits within k / min(|R|, k) "
            "(ap(denominator=min_relevant_k)); MRR@k, Precision@k = hits / k, Recall@k = hits / |R|, HitRate@k. "
            "The mean is numpy's mean over the users. Verified against the live RePlay by "
            "tests/differential/replay.py (random cases over the whole data space)."
        ),
    },
    {
        "name": "elliot",
        "defaults": {
            "empty": "skip",
            "min_relevance": 1.0,
            "missing": "skip",
            "recs_only": "skip",
            "duplicates": "count",
            "ties": "input",
        },
        "options": {
            "ndcg": {"gain": "exponential", "below_min": "zero"},
            "shannon_entropy": {"log_base": 2.0},
            "user_coverage": {"served": "any"},
        },
        "metrics": (
            ("nDCG", "ndcg(gain=exponential,below_min=zero)@k (relevance_threshold 1: gain 2^rating - 1)"),
            ("nDCGRendle2020", "ndcg(gain=binary)@k"),
            ("Precision, Recall, F1", "precision@k (hits / k), recall@k, f1@k"),
            ("HR, MRR", "hit_rate@k, rr@k"),
            ("MAP", "the per-user mean of precision@1 ... precision@k (mean of P@n over n = 1..k, not AP)"),
            ("MAR", "the per-user mean of recall@1 ... recall@k"),
            ("EPC, EFD", "epc@k, efd@k (train=the train data)"),
            ("ARP", "arp@k (train=the train data: distinct users per item)"),
            ("APLT, ACLT", "aplt@k, aclt@k (head_share 0.8, popularity=users)"),
            ("ItemCoverage", "coverage(outside=count)@k x the number of train items (a count)"),
            ("Gini", "1 - gini@k (catalog: the train items, Elliot's num_items)"),
            ("SEntropy", "shannon_entropy(log_base=2)@k (the preset sets log_base=2)"),
            ("UserCoverage", "user_coverage(served=any)@k x res.meta['n_users'] (a count)"),
            ("relevance_threshold: t", "min_relevance=t (nDCG: grades shifted by 1 - t, see unmatched)"),
        ),
        "unmatched": (
            "Elliot is not installable here (it pins an older Python and TensorFlow): the preset is checked against "
            "a restatement of its published code (tests/support/reference_elliot.py, commit fc27efe of "
            "sisinflab/elliot, version 1.0.0), not against the package",
            "relevance_threshold t other than 1 in nDCG: Elliot's gain is 2^(rating - t + 1) - 1; give rankmeter the "
            "ratings shifted by 1 - t (rating - t + 1) with min_relevance=1 for that gain (the binary metrics only "
            "need min_relevance=t); Elliot's default when the configuration sets none is t = 0",
            "MAP and MAR average P@n (R@n) over every n <= k, not at the hits: no single rankmeter metric; the "
            "per-user mean of precision@1..k (recall@1..k) of one call is that value",
            "ties of popularity in the short head (APLT, ACLT): Elliot orders them by its item index (the iteration "
            "order of a Python set of the train items, per process for string ids); rankmeter by item id",
            "SEntropy when the lists (cut at k) have different lengths: Elliot weighs each occurrence by 1 / |L_u| "
            "and divides by the number of users; equal to shannon_entropy(log_base=2) when every list has one "
            "length",
            "an empty list: Elliot's ARP and APLT divide by zero (ZeroDivisionError); rankmeter leaves the user out "
            "of arp and aplt (NaN). Elliot recommends only items of its train index: rankmeter's arp skips an item "
            "without train users and aplt/aclt count it as long tail, where Elliot would fail (ARP) or count it as "
            "head (APLT, ACLT)",
            "no item recommended to any evaluated user: Elliot's Gini is 1 and its SEntropy 0 (sums over no item); "
            "rankmeter's gini and shannon_entropy are NaN",
            "APLT/ACLT count the distinct items of a list (set(top k)); rankmeter counts every position (equal for "
            "lists without repeats, which Elliot's top-k lists are)",
            "NumRetrieved (the list length), the AUC family (GAUC, LAUC: docs/metrics.md 3.19.10-3.19.12), "
            "PopREO/PopRSP, BiasDisparity, the MAD metrics (rm.evaluate(..., user_groups=...).group_gaps()), "
            "SRecall, DSC and the rating metrics are not in the preset",
        ),
        "doc": (
            "Elliot 1.0.0 (sisinflab/elliot at commit fc27efe, elliot/evaluation/: evaluator.py, relevance/"
            "relevance.py, popularity_utils/popularity.py, metrics/*), restated in tests/support/reference_elliot.py "
            "(Elliot does not install here). The lists evaluated are those of the users with test data "
            "(recs_only='skip'; test users without a list are not evaluated: missing='skip'); a test item is "
            "relevant when its rating >= relevance_threshold (1 in Elliot's sample configurations: "
            "min_relevance=1); the accuracy metrics, EPC and EFD evaluate the users with a relevant test item "
            "(empty='skip'), ARP, APLT and ACLT every list kept; every value reads the list cut at k, a repeated "
            "item at each of its positions (duplicates='count'), lists in the order given (ties='input'). nDCG: gain "
            "2^(rating - t + 1) - 1 for a relevant item, 0 otherwise (t = 1: ndcg(gain=exponential,below_min=zero)), "
            "discount 1 / log2(j + 1), ideal of the min(|R|, k) largest gains; nDCGRendle2020: binary gain; "
            "Precision = hits / k; Recall = hits / |R|; F1; HR; MRR; MAP and MAR: the mean over n = 1..k of P@n and "
            "R@n; EPC/EFD as docs/metrics.md 3.19.17-3.19.18; popularity = distinct train users per item, the items "
            "are the train items (Gini's n); ARP = mean popularity of the top k; APLT/ACLT: the short head of 80% of "
            "the train transactions; ItemCoverage and UserCoverage are counts; Gini = 1 - the Gini coefficient "
            "(n - 1 divisor) of the recommendation counts over the train items; SEntropy = -sum p log2 p of the "
            "recommended items. The mean is np.average over the users. Verified by tests/differential/elliot.py "
            "against the restatement on random cases over the whole data space."
        ),
    },
    {
        "name": "lenskit",
        "defaults": {
            "empty": "zero",
            "min_relevance": -math.inf,
            "missing": "skip",
            "recs_only": "listed",
            "duplicates": "count",
            "ties": "input",
        },
        "options": {
            "ndcg": {"gain": "binary", "discount": "clip"},
            "dcg": {"gain": "binary", "discount": "clip"},
            "precision": {"short_lists": "evidently"},
            "recall": {"denominator": "min_relevant_k"},
            "ap": {"denominator": "min_listed"},
            "rbp": {"p": 0.85, "gain": "binary"},
            "gini": {"divisor": "n"},
        },
        # Recall without n divides by |R| (min(|R|, n) needs an n)
        "uncut": {"recall": {}},
        "metrics": (
            ("NDCG(n)", "ndcg(gain=binary,discount=clip)@n (no n: ndcg, the ideal of every test item)"),
            ("NDCG(n, gain='rating')", "ndcg(gain=linear,discount=clip)@n"),
            ("DCG(n)", "dcg(gain=binary,discount=clip)@n"),
            ("DCG(n, gain='rating')", "dcg(gain=linear,discount=clip)@n"),
            ("Precision(n)", "precision(short_lists=evidently)@n: hits / min(n, list length)"),
            ("Recall(n)", "recall(denominator=min_relevant_k)@n (no n: recall, hits / |R|)"),
            ("RecipRank(n)", "rr@n"),
            ("Hit(n)", "hit_rate@n"),
            ("RBP(n, patience=p)", "rbp(p=p,gain=binary)@n (the preset sets p=0.85, LensKit's default)"),
            ("AveragePrecision(n) (lenskit.metrics.ranking)", "ap(denominator=min_listed)@n"),
            ("ListGini(n, items=catalog)", "gini(divisor=n)@n (catalog=the items)"),
            ("RunAnalysis(...).measure(recs, test).list_summary()['mean']", "res[metric]"),
            ("list_metrics() (NaN filled with the metric's default 0)", "res.per_user[metric]"),
        ),
        "unmatched": (
            "a negative rating under NDCG/DCG(gain='rating'): LensKit gains it as it is (negative) and its ideal "
            "(the n largest ratings) holds it; rankmeter's linear gain is 0 below 0 (equal for ratings >= 0)",
            "AveragePrecision of a list whose user has no test items: LensKit divides 0.0 by min(0, n) "
            "(ZeroDivisionError, and RunAnalysis.measure with it); rankmeter gives 0 (empty='zero')",
            "NDCG/DCG(gain='rating') of a list whose user has no test items: LensKit's empty test list has no rating "
            "field (KeyError); rankmeter gives 0",
            "ListGini: LensKit raises when a list is empty (pyarrow: an empty ItemList's ids are int32, the others' "
            "not) or when more distinct items are recommended than `items` counts, and counts an item outside the "
            "catalog in one of the catalog's slots; rankmeter's gini counts the catalog's items only",
            "no user of the test data has a list: LensKit still scores the users of the lists only (0); "
            "rm.evaluate raises ValueError (a guard against ids that do not match)",
            "RBP(normalize=True) (marked experimental by LensKit), MeanPopRank (popularity-rank quantiles), "
            "ExposureGini (float32 exposures), entropy, rank_biased_entropy, rank_biased_overlap and "
            "least_item_promoted: not in the preset; RMSE and MAE are rating-prediction metrics",
        ),
        "doc": (
            "LensKit 2025.8 (lenskit/metrics/ranking/*.py, lenskit/metrics/bulk.py RunAnalysis; the newest release "
            "for Python 3.11, 2026.x needs 3.12). RunAnalysis.measure(outputs, test) evaluates every list of the "
            "outputs: a list whose user has no test data is scored against an empty test list "
            "(recs_only='listed'), unless the list is empty too (then it is skipped); test users without a list "
            "are not evaluated (missing='skip'). Every test item is relevant, whatever its rating "
            "(min_relevance=-inf); a metric's NaN (no test items, an empty list) is filled with its default 0 in "
            "list_metrics() and list_summary() (empty='zero'). Items match by np.isin, so a repeated item is a hit "
            "at every position (duplicates='count'); lists are read in the order given (ties='input'). "
            "LogRankWeight: 1 / log2(max(j, 2)), positions 1 and 2 undiscounted (discount='clip'); NDCG: binary "
            "gain, ideal of min(|R|, n) test items; with gain='rating' the rating is the gain and the ideal the n "
            "largest ratings; DCG the same without the ideal; Precision = hits / min(n, list length) "
            "(short_lists='evidently'), 0 for an empty list; Recall = hits / min(|R|, n) "
            "(denominator='min_relevant_k'); AveragePrecision = sum of P@j at the hits / min(|R|, items listed "
            "within n) (denominator='min_listed'); RecipRank = 1 / rank of the first hit within n; Hit = 1 if a "
            "hit within n; RBP = (1 - p) sum of p^(j-1) over the hits, p = 0.85; ListGini(items=N) = Gini of how "
            "many times each item is recommended over N items, sum (2i - N - 1) x_i / (N sum x) (gini(divisor=n)). "
            "The mean is over the evaluated lists. Verified against the live LensKit by tests/differential/"
            "lenskit.py (random cases over the whole data space, every metric above in one call)."
        ),
    },
    {
        "name": "cornac",
        "defaults": {
            "empty": "skip",
            "min_relevance": 1.0,
            "missing": "zero",
            "recs_only": "skip",
            "duplicates": "count",
            "ties": {"ap": "last", "*": "input"},
        },
        "options": {
            "ndcg": {"gain": "binary"},
            "ncrr": {"crr_ideal": "list"},
            "auc": {"ties": "strict"},
            "ap": {"denominator": "hits"},
        },
        "metrics": (
            ("NDCG(k)", "ndcg(gain=binary)@k (k=-1: ndcg(gain=binary), ideal of every positive)"),
            ("Precision(k)", "precision@k (k=-1: precision, hits / n)"),
            ("Recall(k)", "recall@k"),
            ("FMeasure(k)", "f1@k"),
            ("HitRatio(k)", "hit_rate@k"),
            ("MRR()", "rr (no cutoff: the first positive of the whole list)"),
            ("NCRR(k)", "ncrr(crr_ideal=list)@k (ideal over min(|R|, items in the top k))"),
            ("AUC()", "auc(ties=strict) (no cutoff) on the scores of every candidate item: a tie is no win"),
            (
                "MAP()",
                "ap(denominator=hits) (no cutoff) with ties='last' on the scores of every candidate item: a tie group "
                "at its last rank, divided by the positives among the candidates",
            ),
        ),
        "unmatched": (
            "MRR of a user whose list holds no positive: Cornac raises ValueError (and ranking_eval with it); "
            "rankmeter gives 0",
            "Precision without k (k=-1) of an empty list: Cornac divides 0 by 0 (NaN); rankmeter gives 0",
            "AUC of a user whose candidates hold no positive or no negative, and MAP of one without a positive: "
            "Cornac's value is 0/0 (NaN), and its mean over users is NaN with it; rankmeter leaves the user out of "
            "auc (one_class='skip') and its ap is 0 (ranking_eval never hands Cornac such a user unless every "
            "candidate is a positive: every test positive is a candidate)",
            "the order of equal scores for the list metrics (NDCG, Precision, ...): Cornac's Recommender.rank orders "
            "the scores of the candidates with numpy's argsort, reversed; the preset keeps equal scores in the order "
            "given (ties='input')",
        ),
        "doc": (
            "Cornac 3.0 (cornac/metrics/ranking.py, cornac/eval_methods/base_method.py ranking_eval): the users "
            "evaluated are those with a test item rated >= rating_threshold (1.0: min_relevance=1, empty='skip'); "
            "users of the lists only are not evaluated (recs_only='skip'); a test user without a list scores as "
            "an empty list (missing='zero'); each metric matches items with np.isin, so a repeated item is a hit "
            "at every position (duplicates='count'); NDCG: binary gain divided by log2(rank + 1), ideal of "
            "min(|R|, k) positives (ndcg(gain=binary)); Precision = hits / k (hits / n without k); Recall = hits / "
            "|R|; FMeasure = 2PR / (P + R), 0 when both are 0; HitRatio = 1 if a hit in the top k; MRR = 1 / rank "
            "of the first positive in the whole list; NCRR = the sum of 1 / rank over the hits in the top k divided "
            "by that sum for min(|R|, items in the top k) hits at the top (ncrr(crr_ideal=list)). AUC and MAP read "
            "the scores of every candidate item (ranking_eval's candidates: the test positives and every item that "
            "is no positive of the user in train, validation or test): give those scores as the recommendations "
            "({user: {item: score}}, a score table, Recs.from_scores(matrix, k=n_items)); AUC = the share of "
            "(positive, negative) candidate pairs in which the positive scores higher, a tie no win "
            "(auc(ties=strict)); MAP = the mean over the positive candidates of (positives scored >= its score) / "
            "(candidates scored >= its score), a tie group at its last rank (ap(denominator=hits) with "
            "ties={'ap': 'last', '*': 'input'}). The mean is over the evaluated users. Verified against the live "
            "Cornac by tests/differential/cornac.py (random cases over the whole data space, every metric above in "
            "one call on the scores)."
        ),
    },
    {
        "name": "recbole",
        "defaults": {
            "empty": "skip",
            "min_relevance": -math.inf,
            "missing": "zero",
            "recs_only": "skip",
            "ties": "input",
        },
        "options": {
            "ndcg": {"gain": "binary"},
            "ap": {"denominator": "min_relevant_k"},
            "arp": {"popularity": "interactions", "unseen": "zero"},
            "gauc": {"negatives": "catalog", "one_class": "skip"},
            "gini": {"divisor": "n"},
            "shannon_entropy": {"normalize": "distinct"},
        },
        "metrics": (
            ("Hit@k", "hit_rate@k"),
            ("MRR@k", "rr@k"),
            ("NDCG@k", "ndcg(gain=binary)@k"),
            ("MAP@k", "ap(denominator=min_relevant_k)@k"),
            ("Precision@k", "precision@k"),
            ("Recall@k", "recall@k"),
            ("GAUC", "gauc(negatives=catalog,one_class=skip) (train=the history RecBole masks)"),
            ("ItemCoverage@k", "coverage@k (catalog=the item ids, see unmatched for [PAD])"),
            ("AveragePopularity@k", "arp(popularity=interactions,unseen=zero)@k (train=the training interactions)"),
            ("GiniIndex@k", "gini(divisor=n)@k (catalog=the item ids, see unmatched for [PAD])"),
            ("ShannonEntropy@k", "shannon_entropy(normalize=distinct)@k"),
            ("TailPercentage@k (tail_ratio=r)", "tail_percentage(tail_ratio=r)@k (train=the training interactions)"),
        ),
        "unmatched": (
            "RecBole rounds every mean to metric_decimal_place (4 by default) digits; rankmeter gives the exact "
            "mean: round(res[metric], 4) prints RecBole's number",
            "ItemCoverage and GiniIndex divide by dataset.item_num, which counts RecBole's [PAD] item (id 0, never "
            "recommended): pass a catalog that holds one more, never recommended, item to get RecBole's number",
            "a user without a test interaction is not in RecBole's evaluation (its data loader has no row for it): "
            "rankmeter leaves users of the recommendations only out (recs_only='skip')",
            "RecBole's lists are the top k of a full score matrix: each user's list holds max(topk) distinct items; "
            "rankmeter also takes shorter lists (precision@k still divides by k) and refuses a repeated item",
            "TailPercentage breaks ties of interaction counts by RecBole's internal item index; rankmeter by the "
            "item id: equal when the remapped order is the id order, or no tie crosses the cut",
        ),
        "doc": (
            "RecBole 1.2.1 (recbole/evaluator/metrics.py), full-sort evaluation: the positives of a user are its "
            "test interactions, whatever their rating (min_relevance=-inf: every truth row; pass min_relevance=t "
            "for RecBole's `threshold` on a rating column); every metric reads the top max(topk) items of the user's row, and the mean is over "
            "the users of the test set (the truth); Hit@k = 1 if a positive in the top k; MRR@k = 1 / "
            "rank of the first positive within k; NDCG@k: binary gain, ideal of min(|R|, k) positives "
            "(ndcg(gain=binary)); MAP@k = sum of P@j at the hits within k / min(|R|, k) "
            "(ap(denominator=min_relevant_k)); Precision@k = hits / k; Recall@k = hits / |R|; "
            "AveragePopularity@k = mean over the top k of the item's number of training interactions, 0 for an "
            "item without one; ItemCoverage@k = distinct items of all top-k lists / number of items; "
            "GiniIndex@k = Gini index of the items' recommendation counts over the catalog, divided by n, not n - 1 "
            "(gini(divisor=n)); ShannonEntropy@k = -sum p ln p over the recommended items, divided by their number "
            "(shannon_entropy(normalize=distinct)); TailPercentage@k = share of the top k in the tail_ratio "
            "least-interacted train items (tail_percentage); GAUC = AUC per user "
            "over every unmasked catalog item, averaged with weights = positives, users with one class left out. "
            "Verified against the live RecBole by tests/differential/recbole.py and tests/compat/test_gauc_recbole.py."
        ),
    },
    {
        "name": "rectools",
        "defaults": {
            "empty": "skip",
            "missing": "zero",
            "min_relevance": -math.inf,
            "recs_only": "empty",
            "ties": "input",
        },
        "options": {
            "ndcg": {"ideal": "k_slots", "gain": "binary"},
            "novelty": {"unseen": "one_user"},
            "arp": {"popularity": "interactions", "unseen": "zero"},
            "coverage": {"outside": "count"},
            "diversity": {"one_item": "zero"},
        },
        "metrics": (
            ("Precision(k)", "precision@k"),
            ("Precision(k, r_precision=True)", "recall(denominator=min_relevant_k)@k"),
            ("Recall(k)", "recall@k"),
            ("F1Beta(k, beta)", "fbeta(beta=beta)@k"),
            ("MAP(k)", "ap@k"),
            ("MAP(k, divide_by_k=True)", "ap(denominator=k)@k"),
            ("NDCG(k) (any log_base: it cancels)", "ndcg(ideal=k_slots,gain=binary)@k"),
            ("NDCG(k, divide_by_achievable=True)", "ndcg(ideal=cut,gain=binary)@k"),
            ("MRR(k)", "rr@k"),
            ("HitRate(k)", "hit_rate@k"),
            ("MeanInvUserFreq(k)", "novelty(unseen=one_user)@k (train=prev_interactions)"),
            ("AvgRecPopularity(k)", "arp(popularity=interactions,unseen=zero)@k (train=prev_interactions)"),
            ("AvgRecPopularity(k, normalize=True)", "arp(popularity=interactions,unseen=zero,normalize=total)@k"),
            ("CatalogCoverage(k, normalize=True)", "coverage(outside=count)@k (catalog=catalog)"),
            ("CatalogCoverage(k) (a count)", "coverage(outside=count)@k times len(catalog)"),
            (
                "IntraListDiversity(k, distance_calculator)",
                "diversity(similarity=matrix,one_item=zero)@k with item_similarity = 1 - the calculator's distance",
            ),
            ("Intersection(k, ref_k)", "recall@ref_k with truth = reco's top k and recs = ref_reco"),
        ),
        "unmatched": (
            "a (user, item) repeated in reco: RecTools' join with interactions makes every occurrence a hit and "
            "adds the relevant ones to the user's number of interactions too; rankmeter raises "
            "(duplicates='error') rather than count an item twice",
            "a (user, item) repeated in interactions counts twice in RecTools (in |R| and as hits); rankmeter "
            "raises: a user's truth items are unique",
            "equal ranks in reco all count at their rank in RecTools; rankmeter reads one ordered list",
            "no user of interactions has recommendations while both tables hold rows: rankmeter raises (it takes "
            "that for mismatched user ids) where RecTools scores every user 0",
            "Serendipity (RecTools' rank-based probability difference over the catalog), PartialAUC and PAP (ROC "
            "area up to the k-th false positive), Accuracy and MCC (true negatives over a catalog) are other "
            "metrics than rankmeter's; SufficientReco, UnrepeatedReco and CoveredUsers check the reco table "
            "(res.meta counts users without recommendations: n_missing_recs); debias_config resamples "
            "interactions",
        ),
        "doc": (
            "RecTools 0.19 (rectools/metrics/*.py): every interaction row is relevant, whatever its weight "
            "(min_relevance=-inf); the ranking and classification metrics evaluate the users of `interactions` "
            "(users of reco only are given an empty truth, recs_only='empty', and left out of these: "
            "empty='skip'), a user without recommendations scoring 0 (missing='zero'); MeanInvUserFreq, "
            "AvgRecPopularity and IntraListDiversity evaluate the users of reco (every user with a non-empty "
            "list); precision@k = tp/k; recall@k = tp/|R|; MAP = sum of P@j at the hits within k / |R| "
            "(divide_by_k=False); NDCG ignores weights (binary gain) and divides by the DCG of k relevant items "
            "(ideal='k_slots', divide_by_achievable=False); MRR 1/first hit rank within k; MeanInvUserFreq "
            "-log2(n_users(i)/N) with an unseen item counted as one user (novelty(unseen='one_user')); "
            "AvgRecPopularity = mean number of interactions of the top-k items, unseen 0 "
            "(arp(popularity='interactions', unseen='zero')); CatalogCoverage counts every distinct item of "
            "the top k, also those outside the catalog (coverage(outside='count')); IntraListDiversity = mean "
            "pairwise distance in the top k, a one-item list 0 and counted (diversity(one_item='zero')). "
            "Verified against the live RecTools by tests/differential (random cases over the whole data space)."
        ),
    },
    {
        "name": "recommenders",
        "defaults": {
            "empty": "skip",
            "missing": "skip_empty",
            "min_relevance": -math.inf,
            "recs_only": "empty",
            "ties": "input",
        },
        "options": {
            "ndcg": {"gain": "binary", "missing_recs": "zero"},
            "ap": {"denominator": "min_relevant_k"},
            "diversity": {"similarity": "cooccurrence"},
            "serendipity": {"relevance": "none", "similarity": "cooccurrence"},
            "coverage": {"outside": "count"},
            "novelty": {"popularity": "interaction_share", "unseen": "zero", "average": "items"},
        },
        "metrics": (
            ("precision_at_k(k)", "precision@k"),
            ("recall_at_k(k)", "recall@k"),
            ("ndcg_at_k(k) (loge or log2: the base cancels)", "ndcg(gain=binary,missing_recs=zero)@k"),
            ("ndcg_at_k(k, score_type='raw')", "ndcg(gain=linear,missing_recs=zero)@k"),
            ("ndcg_at_k(k, score_type='exp')", "ndcg(gain=exponential,missing_recs=zero)@k"),
            ("map_at_k(k)", "ap(denominator=min_relevant_k)@k"),
            ("map(k)", "ap(denominator=relevant)@k"),
            ("catalog_coverage(train_df, reco_df)", "coverage(outside=count) (catalog = the train items, the default)"),
            (
                "diversity / user_diversity (item_sim_measure='item_cooccurrence_count')",
                "diversity(similarity=cooccurrence) (train=train_df)",
            ),
            ("diversity / user_diversity (item_sim_measure='item_feature_vector')", "diversity(similarity=features)"),
            (
                "novelty(train_df, reco_df)",
                "novelty(popularity=interaction_share,unseen=zero,average=items) (train=train_df)",
            ),
            (
                "serendipity / user_serendipity (col_relevance unset, item_cooccurrence_count)",
                "serendipity(relevance=none,similarity=cooccurrence) (train=train_df)",
            ),
            (
                "serendipity / user_serendipity (item_feature_vector)",
                "serendipity(relevance=none,similarity=features) (item_features=...)",
            ),
        ),
        "unmatched": (
            "a (user, item) repeated in rating_pred: precision_at_k, recall_at_k, map_at_k and map count every "
            "occurrence as a hit, and ndcg_at_k joins the table with itself (n^2 rows for n occurrences, in the DCG "
            "and in the ideal); rankmeter raises (duplicates='error') rather than count an item twice",
            "a (user, item) repeated in rating_true counts twice (in |R| and as hits); rankmeter raises: a user's "
            "truth items are unique",
            "no user in both tables: every function returns 0.0 where rankmeter has no user to average (NaN), "
            "or raises when both tables hold rows (it takes that for mismatched user ids)",
            "score_type='raw'/'exp' with ratings <= 0: Recommenders' gains are the ratings themselves (negative "
            "gains, and 0/0 = NaN for a user whose ratings are all 0, left out of the mean); rankmeter's gain of a "
            "grade <= 0 is 0 (docs/metrics.md, 3.8), so such a user scores 0",
            "r_precision_at_k divides the hits among the first min(k, |R|) by |R| and averages over the users "
            "with at least one such hit only (a user scoring 0 is left out of the mean by pandas' index "
            "alignment): no rankmeter metric leaves users out by their value",
            "distributional_coverage (entropy of the recommended items) has no rankmeter metric",
            "serendipity with col_relevance: Recommenders weighs each item by that column (cast to float16) and "
            "keeps a user whose weights are all 0 (value 0); serendipity(relevance=all) reads the weights 0/1 from "
            "the truth and leaves a user without a relevant item to empty=",
            "train_df with a (user, item) row repeated (Recommenders assumes none): its co-occurrence counts and "
            "history means count the row twice; rankmeter reads each user's distinct train items. Item feature "
            "vectors of norm 0 make Recommenders divide by zero (ZeroDivisionError)",
            "auc, logloss, rmse, mae, rsquared, exp_var rate predicted ratings, not ranked lists",
        ),
        "doc": (
            "Microsoft Recommenders 1.2 (recommenders/evaluation/python_evaluation.py, relevancy_method='top_k'): "
            "every rating_true row is relevant, whatever its rating (min_relevance=-inf); precision_at_k, "
            "recall_at_k, map_at_k and map evaluate the users present in both rating_true and rating_pred "
            "(missing='skip_empty': a user whose list is empty has no row in rating_pred); ndcg_at_k evaluates "
            "every user of rating_true, a user without predictions scoring 0 (ndcg(missing_recs='zero')); a user "
            "without a hit scores 0; predictions are ranked by descending prediction, equal predictions in the "
            "order of the rows (a stable lexsort: ties='input' with the rows in the same order); precision@k = "
            "hits/k; recall@k = hits/|rating_true rows|; ndcg_at_k: score_type 'binary' (default, gain 1 per "
            "truth row), 'raw' (linear) or 'exp' (2^r - 1), ideal = the truth ratings sorted descending cut at k; "
            "map_at_k = sum of P@j at the hits / min(|R|, k); map = the same sum / |R|; catalog_coverage = "
            "distinct recommended items (also those outside train) / distinct train items "
            "(coverage(outside='count')); diversity = 1 - mean pairwise item similarity of every user of "
            "reco_df (recs_only='empty') with at least two items (co-occurrence cosine over train, or the cosine "
            "of item features); novelty = the mean over every recommendation row of -log2(train rows of the item / "
            "train rows), 0 for an item not in train (novelty(popularity='interaction_share', unseen='zero', "
            "average='items')); serendipity = per user, the mean over every recommended item of 1 - the mean "
            "similarity to the user's train items, users without train items left out "
            "(serendipity(relevance='none', similarity='cooccurrence')). Verified against the live Recommenders by tests/differential (random cases over "
            "the whole data space)."
        ),
    },
    {
        "name": "torchmetrics",
        "defaults": {
            "empty": "zero",
            "missing": "skip",
            "ties": {
                "precision": "torch_topk",
                "ap": "torch_topk",
                "rr": "torch_topk",
                "ndcg": "torch_average",
                "dcg": "torch_average",
                "*": "torch",
            },
        },
        "options": {
            "ap": {"denominator": "hits", "hit_scores": "positive"},
            "precision": {"hit_scores": "positive"},
            "recall": {"hit_scores": "positive"},
            "rr": {"hit_scores": "positive"},
        },
        "metrics": (
            ("RetrievalPrecision(top_k)", "precision(hit_scores=positive)@k, ties='torch_topk'"),
            (
                "RetrievalPrecision(top_k, adaptive_k=True)",
                "precision(hit_scores=positive,short_lists=evidently)@k (hits / min(n, k)), ties='torch_topk'",
            ),
            ("RetrievalRecall(top_k)", "recall(hit_scores=positive)@k, ties='torch'"),
            ("RetrievalMAP(top_k)", "ap(denominator=hits,hit_scores=positive)@k, ties='torch_topk'"),
            ("RetrievalMRR(top_k)", "rr(hit_scores=positive)@k, ties='torch_topk'"),
            ("RetrievalHitRate(top_k)", "hit_rate@k, ties='torch'"),
            ("RetrievalNormalizedDCG(top_k)", "ndcg@k, ties='torch_average' (tie-averaged, float32 scores)"),
            ("RetrievalRPrecision()", "r_precision, ties='torch'"),
            ("top_k=None", "no cutoff (the whole list)"),
            ("empty_target_action='neg'/'pos'/'skip'/'error'", "empty='zero'/'one'/'skip'/'error'"),
            ("aggregation='mean'", "the mean (res[name])"),
            (
                "aggregation='median'/'min'/'max'/callable",
                "that function of res.per_user[name] over the evaluated users; torch's median of an even count is "
                "the lower middle value (np.quantile(v, 0.5, method='lower'))",
            ),
            (
                "RetrievalPrecisionRecallCurve(max_k) / RetrievalRecallAtFixedPrecision",
                "precision(hit_scores=any)@j and recall(hit_scores=any)@j, j = 1..max_k, in one call (see not "
                "reproduced); the fixed-precision recall is the largest mean recall@j whose mean precision@j >= "
                "min_precision",
            ),
        ),
        "unmatched": (
            "torchmetrics computes in float32: values agree to float32's precision (relative ~1e-6), not bit for bit; "
            "scores are compared as float32 (two scores that round to the same float32 are tied, a score that "
            "rounds to 0 is not > 0), as torchmetrics compares them",
            "equal scores follow torch's CPU sorts as torch's Linux builds run them (GNU libstdc++'s std::sort, "
            "std::nth_element, std::partial_sort; ties='torch' and 'torch_topk' reproduce them, docs/metrics.md 6.3) "
            "for rows grouped by query in the order given; torch builds on another C++ standard library (macOS, "
            "Windows) order equal scores their own way, and rows of different queries interleaved in the tensors "
            "(or a query split across update() calls) reorder each query's tied rows by the whole layout",
            "RetrievalNormalizedDCG with negative targets: torchmetrics adds them as negative gains and calls a query "
            "empty when its targets sum to 0; rankmeter's gains are max(grade, 0) (scikit-learn's ndcg_score rejects "
            "negative y_true)",
            "ignore_index drops the rows whose target equals it before anything is computed: leave those rows out "
            "of truth and recs",
            "with every query skipped (empty_target_action='skip') torchmetrics returns 0.0; rankmeter NaN",
            "RetrievalFallOut has no rankmeter metric: its denominator counts the documents judged non-relevant, "
            "which rankmeter's truth (relevant items and their grades) does not hold for unlisted items",
            "RetrievalAUROC (per-query ROC AUC of the scores within the top k) has no rankmeter metric; fcp counts "
            "concordant pairs by rank over all truth items",
            "RetrievalPrecisionRecallCurve ranks each query once by topk(max_k) and reads its first j documents, "
            "without the preds > 0 filter: rankmeter's precision@j/recall@j rank by topk(j) (ties='torch_topk') "
            "or argsort, so with tied scores across position j the curve may differ; "
            "RetrievalRecallAtFixedPrecision compares float32 mean precisions with min_precision, so a mean "
            "precision at the floor itself may fall on the other side",
        ),
        "doc": (
            "torchmetrics 1.x retrieval metrics (functional/retrieval/*.py, retrieval/base.py), torchmetrics 1.9 "
            "verified (tests/differential/torchmetrics.py): the documents of a query are its rows (preds, target, "
            "indexes): pass recs {query: {document: pred}} and truth {query: {document: target}} for the same rows, "
            "0 targets included, so that every query exists: a relevant item that is not a row does not exist for "
            "torchmetrics, and a query without rows is no query (missing='skip'). A query without a positive target "
            "scores 0 (empty_target_action='neg': empty='zero'); the mean is over queries; precision@k = hits/k "
            "even when fewer than k documents (adaptive_k=False); MAP = mean precision at the hit positions within "
            "top_k (ap(denominator='hits')); NDCG: linear gain, tie-averaged DCG, ideal = targets sorted "
            "descending cut at top_k. RetrievalPrecision, RetrievalRecall, RetrievalMAP and RetrievalMRR count a "
            "document whose prediction is <= 0 as not relevant (torch.where(preds > 0, target, 0)) though it "
            "keeps its rank and still counts in |R| and in the empty-query check; RetrievalHitRate, "
            "RetrievalRPrecision and RetrievalNormalizedDCG do not filter: the preset sets hit_scores='positive' on "
            "precision, recall, ap and rr only. Equal scores, per metric as torchmetrics ranks for it (ties= a "
            "dict, docs/metrics.md 6.3): precision, MAP and MRR by preds.topk(min(k, n)) (ties='torch_topk'), "
            "recall, hit rate, R-precision and any other metric by torch.argsort (ties='torch'), NDCG (and dcg) "
            "tie-averaged over float32 scores (ties='torch_average'); every metric in one call. The query index "
            "is the user id when ids are integers, else the user's position in the order given."
        ),
    },
    {
        "name": "sklearn",
        "defaults": {"empty": "zero", "ties": {"ndcg": "average", "dcg": "average", "hit_rate": "item_desc"}},
        "options": {},
        "metrics": (
            ("ndcg_score(y_true, y_score, k)", "ndcg@k, ties='average' (ndcg without k: no cutoff)"),
            ("dcg_score(y_true, y_score, k, log_base)", "dcg(log_base=log_base)@k, ties='average'"),
            (
                "top_k_accuracy_score(y_true, y_score, k)",
                "hit_rate@k, ties='item_desc' (truth {row: {label: 1}}, items = column indices)",
            ),
            ("top_k_accuracy_score(..., normalize=False)", "hit_rate@k mean x number of rows"),
            ("sample_weight=w", "np.average(res.per_user[name], weights=w)"),
            (
                "ndcg_score / dcg_score(..., ignore_ties=True)",
                "ndcg@k / dcg@k with ties='input' when no row holds equal scores (see not reproduced)",
            ),
        ),
        "unmatched": (
            "ndcg_score raises ValueError on negative y_true and on rows of a single document; rankmeter computes",
            "dcg_score with negative y_true adds negative gains; rankmeter's gains are max(grade, 0)",
            "ignore_ties=True with equal scores: scikit-learn ranks them with numpy's default argsort, whose order "
            "of equal values depends on the CPU (numpy's AVX-512/AVX2 sorts) and the row length; rankmeter has no "
            "rule for it (the default ignore_ties=False is reproduced: ties='average')",
            "top_k_accuracy_score with two classes thresholds a 1-D score instead of ranking; rankmeter ranks",
        ),
        "doc": (
            "scikit-learn 1.x (sklearn/metrics/_ranking.py), scikit-learn 1.9 verified (tests/differential/"
            "sklearn.py): each row of y_true/y_score is a user whose documents are all the columns: recs = "
            "{row: {column: score}} for every column, truth = {row: {column: grade}} with the 0 grades too, so that "
            "every row is a user; a row whose ideal DCG is 0 scores 0 (empty='zero'); equal scores share their "
            "discounts (ignore_ties=False: ties='average' on dcg and ndcg); ideal = y_true sorted descending cut at "
            "k; dcg_score divides by log_base(rank+1) (log_base=2). top_k_accuracy_score: a row is a user, its "
            "label the one relevant item (truth {row: {label: 1}}), items the column indices; scikit-learn ranks "
            "with a stable argsort read backwards, so equal scores go to the higher column first "
            "(ties='item_desc' on hit_rate). The mean is over rows (np.average)."
        ),
    },
    {
        "name": "ml_metrics",
        "defaults": {"empty": "one", "duplicates": "miss", "ties": "input"},
        "options": {"ap": {"denominator": "min_relevant_k"}},
        "metrics": (
            ("apk(actual, predicted, k)", "ap(denominator=min_relevant_k)@k, empty='one'"),
            ("mapk(actual, predicted, k)", "mean of the same (np.mean over zip(actual, predicted))"),
        ),
        "unmatched": (
            "len(actual) counts an item listed twice in actual in the denominator; rankmeter refuses a truth item "
            "listed twice for one user (an error naming it): rankmeter.compat.ml_metrics takes such lists and "
            "reproduces the original",
            "the GitHub source after 0.1.4 scores an empty actual 0.0: pass empty='zero' for it",
        ),
        "doc": (
            "ml_metrics 0.1.4 (the PyPI release, average_precision.py): AP@k = sum of P@j at the hits within k / "
            "min(len(actual), k) (ap(denominator='min_relevant_k')); an empty actual scores 1.0 (empty='one'); a "
            "repeated prediction keeps its position but is no hit again (duplicates='miss'). ml_metrics takes "
            "lists of items without grades: every truth item is relevant (give truth without grades, or grades > 0); "
            "a user is a position of the zipped lists, so a user with predictions and no actual items is a truth "
            "user with an empty truth (scored 1.0)."
        ),
    },
    {
        "name": "recmetrics",
        "defaults": {"empty": "zero", "duplicates": "miss", "ties": "input"},
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
                "precision / recall without cutoff with duplicates='count', rounded to 4 decimals per user by "
                "recmetrics (not reproduced: see below)",
            ),
        ),
        "unmatched": (
            "mapk (GitHub) takes its hits at first occurrences but its precision at a hit counts every occurrence "
            "of an actual item above it: with a relevant item repeated above a later hit, neither duplicates='miss' "
            "nor 'count' is that mix; rankmeter.compat.recmetrics.mapk reproduces it",
            "recommender_precision/recall count every occurrence (duplicates='count') and round each user's value "
            "to 4 decimals (np.round): rankmeter.compat.recmetrics reproduces them; the preset's precision/recall "
            "are not rounded",
            "catalog_coverage draws its lists with random.choices (rankmeter.compat.recmetrics makes the same draw "
            "from the same random state); prediction_coverage (0.1.5) counts predicted items outside the catalog "
            "too, where rankmeter's coverage counts only catalog items",
            "len(actual) counts an item listed twice in actual (mark's denominator); rankmeter refuses a truth item "
            "listed twice for one user: rankmeter.compat.recmetrics reproduces the original",
            "personalization of a single user (no pair of users): recmetrics divides by 0 pairs and returns NaN, inf "
            "or -inf as the rounding of the list's cosine with itself falls; rankmeter gives NaN "
            "(rankmeter.compat.recmetrics reproduces the original's value)",
        ),
        "doc": (
            "recmetrics 0.1.5 (metrics.py) and its GitHub mapk: mapk = mean of precision at the hits within k "
            "(ap(denominator='hits')), 0 for an empty actual (empty='zero'); mark divides the same sum by "
            "len(actual); a repeated prediction keeps its position but is no hit again (duplicates='miss'); "
            "novelty and intra_list_similarity read every occurrence of a repeated item, as rankmeter's novelty and "
            "diversity do under duplicates='miss'; personalization (like recmetrics' pandas pivot) refuses a list "
            "holding an item twice; personalization uses the cosine of two users' item sets; novelty sums "
            "-log2(pop[i]/u) over a list and divides by n (divide_by='k'). recmetrics takes lists of items without "
            "grades: every truth item is relevant."
        ),
    },
    {
        "name": "capri",
        "defaults": {"empty": "zero", "duplicates": "miss", "ties": "input"},
        "options": {
            "ap": {"denominator": "min_relevant_k"},
            "ndcg": {"ideal": "all", "gain": "binary", "rounding": "capri"},
            "novelty": {"unseen": "zero", "divide_by": "k", "popularity": "interactions"},
            "personalization": {"similarity": "cosine"},
            "diversity": {"similarity": "matrix"},
            "coverage": {"outside": "count"},
        },
        "metrics": (
            ("mapk", "ap(denominator=min_relevant_k)@k"),
            ("ndcgk", "ndcg(gain=binary,ideal=all,rounding=capri)@k: float32, rounded to 4 decimals per user"),
            ("novelty", "novelty(unseen=zero,divide_by=k,popularity=interactions)@k"),
            ("catalogCoverage", "round(100 * coverage(outside=count), 2): every distinct predicted item counts"),
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
            "ndcgk gains a repeated item of actual at each of its positions (duplicates='count' gives that for "
            "ndcg, and then also counts the repeat in map@k, which CAPRI's mapk does not): CAPRI's own evaluator "
            "ranks by argsort and never repeats an item",
            "CAPRI is not installable from PyPI: its code path is restated in tests (tests/compat/test_capri.py, "
            "tests/metrics/test_beyond.py), not run",
        ),
        "doc": (
            "CAPRI (github.com/CapriRecSys/CAPRI, Evaluations/metrics/*.py, restated in tests/compat/test_capri.py and "
            "tests/metrics/test_beyond.py): MAP@k divides by min(|R|, k); nDCG@k (ndcgk as evaluator.py calls it) "
            "gains 1 per relevant item, divides by the ideal DCG of all relevant items (ideal='all'), computes in float32 "
            "and rounds each user's value to 4 decimals (round() of a numpy float32: rounding='capri'); mapk, "
            "precisionk and recallk keep a repeated prediction's position but count it once (duplicates='miss'); "
            "novelty sums -log2 of the "
            "interaction share over the top k and divides by k, unseen items 0; catalogCoverage counts every "
            "distinct predicted item, also one outside the catalog (coverage(outside='count'): can exceed 100); "
            "personalization by cosine; list diversity from an item similarity matrix."
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
            "(duplicates='error'; its other duplicates= conventions count a repeat once in |R|, and the Evidently "
            "options reject them)",
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
