"""Human-readable names of the tests and corrections (tables, report)."""

TEST_LABELS = {
    "randomization": "Fisher's randomization test (paired sign flips)",
    "bootstrap": "paired bootstrap test (shift method)",
    "t": "paired Student's t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
}
CORRECTION_LABELS = {"holm": "Holm", "bonferroni": "Bonferroni", "none": "no"}
