"""Human-readable names of the tests and corrections (tables, report)."""

TEST_LABELS = {
    "randomization": "Fisher's randomization test (paired sign flips)",
    "bootstrap": "paired bootstrap test (shift method)",
    "t": "paired Student's t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
}
CORRECTION_LABELS = {"holm": "Holm", "bonferroni": "Bonferroni", "none": "no"}


def _counted(m: dict) -> str:
    """'195 of 200 queries evaluated' (the truth's count when some were left out), else '200 queries'."""
    entity = m.get("entity", "users")
    total = m.get("n_truth_users", m["n_users"])
    if total != m["n_users"]:
        return f"{m['n_users']:,} of {total:,} {entity} evaluated"
    return f"{m['n_users']:,} {entity}"
