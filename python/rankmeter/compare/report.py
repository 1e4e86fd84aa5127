"""One self-contained HTML report of a :class:`Comparison`.

Tables, plots as inline SVG (matplotlib, when installed), the conventions
used and the data sizes, in one file that opens offline: no script, no
stylesheet, font or image is fetched from anywhere.
"""

from __future__ import annotations

import html
import io
import re
from typing import Any

import numpy as np

from .._version import __version__
from ._labels import CORRECTION_LABELS, TEST_LABELS, _counted

__all__ = ["render_report", "figure_svg"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:70em;
color:#1b1b1b;background:#fff;line-height:1.45;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.8em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}th{background:#f2f4f7}
td:first-child,td:nth-child(2),td:nth-child(3){text-align:left}
tr.rm-sig{background:#eef7ee}.rm-legend{font-size:.9em;color:#444}
.rm-plots{display:flex;flex-wrap:wrap;gap:1em}.rm-plot{flex:1 1 28em;max-width:100%}
.rm-plot svg{width:100%;height:auto}dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}
dt{font-weight:600}dd{margin:0}code{background:#f4f4f4;padding:0 .2em}
"""

_TEST_DEFS = {
    "randomization": "Two-sided Fisher randomization test: under the null hypothesis the two runs are exchangeable "
    "for every user, so each user's difference keeps or flips its sign with probability 1/2. "
    "p = (c + 1) / (R + 1), c = resamples whose |sum of signed differences| reaches the observed one.",
    "bootstrap": "Paired bootstrap, shift method: users are drawn with replacement R times; the bootstrap "
    "distribution of the mean difference, shifted to mean 0, gives p = (c + 1) / (R + 1), c = "
    "resamples with |shifted difference| >= |observed difference|. Intervals are percentile intervals.",
    "t": "Paired Student t-test on the per-user differences (two-sided, df = n - 1), as scipy.stats.ttest_rel; "
    "intervals are Student t intervals of the mean difference.",
    "wilcoxon": "Wilcoxon signed-rank test with scipy's defaults (zeros dropped, no continuity correction, exact "
    "distribution for small samples without ties, normal approximation otherwise).",
}


def figure_svg(fig: Any) -> str:
    """The figure as an inline ``<svg>`` element (XML prolog and DOCTYPE removed)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    text = buf.getvalue()
    start = text.find("<svg")
    text = text[start:] if start >= 0 else text
    # matplotlib's SVG needs no external resource; make sure nothing points outside
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    return re.sub(r"<!--.*?-->", "", text, flags=re.S)


def _valid_counts(cmp: Any, metric: str) -> str:
    total = cmp.meta.get("n_truth_users", cmp.meta["n_users"])
    counts = []
    for r in cmp.runs:
        v = np.asarray(cmp.results[r].per_user[metric], dtype=np.float64)
        counts.append(f"{r} {int(np.count_nonzero(~np.isnan(v))):,}")
    return ", ".join(counts) + f" of {total:,}"


def _plots(cmp: Any, k_max: int) -> tuple[list[tuple[str, str]], str]:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return [], "Plots need matplotlib (pip install 'rankmeter[plot]'); this report has the tables only."
    from . import plot as P

    m = cmp.meta
    entity = m.get("entity", "users")
    one = P._singular(entity)
    level = f"{100 * (1 - m['alpha']):g}%"
    how = "bootstrap percentile" if m["test"] == "bootstrap" else "Student t"
    out = []
    fig = P.plot_comparison_means(cmp)
    out.append((f"Means per run ({_counted(m)}) with the {level} {how} interval of each mean", fig))
    if cmp._inputs is not None:
        truth, runs, ev = cmp._inputs
        # a curve over k for each metric that takes a cutoff (num_ret, r_precision, ... have none)
        families = list(dict.fromkeys(P.base_name(x) for x in cmp.metrics if P.takes_cutoff(x)))
        for fam in families:
            curve = P.plot_metric_at_k(truth, runs, fam, k_max, title=False, **ev)
            out.append((f"{fam}@k for k = 1..{k_max} (means over the {entity})", curve))
        pr = P.plot_pr_curve(truth, runs, k_max, title=False, **ev)
        out.append((f"Precision-recall curve: P@k against R@k for k = 1..{k_max}", pr))
    ref = m.get("baseline") or cmp.runs[0]
    for x in cmp.metrics:
        d = P.per_user_differences(cmp, x, ref)
        n_both = ", ".join(f"{r} {v.size:,}" for r, v in d.items())
        way = cmp.direction(x)
        sides = {
            "higher": "wins above zero, losses below",
            "lower": "lower is better: wins below zero, losses above",
        }.get(way or "", "no better direction: higher above zero, lower below")
        out.append(
            (
                f"Per-{one} difference in {x} against {ref}, sorted: {sides} "
                f"({entity} evaluated in both runs: {n_both})",
                P.plot_per_user_difference(cmp, x, ref, title=False),
            )
        )
    for x in cmp.metrics:
        out.append(
            (
                f"Pairwise comparisons on {x}: mean difference (row - column) and adjusted p-value "
                f"({TEST_LABELS[m['test']]}, {CORRECTION_LABELS[m['correction']]}; * significant)",
                P.plot_significance_matrix(cmp, x, title=False),
            )
        )
    if cmp._has_groups():
        for x in cmp.metrics:
            out.append(
                (
                    f"{x} by user group: each run's mean over the group's users with its {level} Student t "
                    "interval; dashed: the run's mean over all users",
                    P.plot_by_group(cmp, x, title=False),
                )
            )
    for x in cmp.metrics:
        dist = P.plot_distributions(cmp.results, x, entity=entity, title=False)
        out.append((f"Distribution of {x} per {one} ({entity} with a value: {_valid_counts(cmp, x)})", dist))
    return [(title, figure_svg(fig)) for title, fig in out], ""


def render_report(cmp: Any, plots: bool = True, k_max: int = 20) -> str:
    esc = html.escape
    m = cmp.meta
    entity = m.get("entity", "users")
    sizes = [
        (f"{entity} (truth)", f"{m.get('n_truth_users', m['n_users']):,}"),
        (f"{entity} compared", f"{m['n_users']:,}"),
        ("runs", str(m["n_runs"])),
        ("metrics", str(m["n_metrics"])),
        ("comparisons", str(m["n_comparisons"])),
    ]
    per_run = "".join(
        f"<tr><td>{esc(r)}</td><td>{ev['n_users']:,}</td><td>{ev['n_skipped']:,}</td>"
        f"<td>{ev['n_missing_recs']:,}</td><td>{ev['n_ignored_recs']:,}</td></tr>"
        for r, ev in m["evaluated"].items()
    )
    conv = [
        ("test", TEST_LABELS[m["test"]]),
        ("definition", _TEST_DEFS[m["test"]]),
        ("comparisons", f"each run against {m['baseline']!r}" if m["baseline"] is not None else "every pair of runs"),
        (
            "correction",
            f"{CORRECTION_LABELS[m['correction']]} over all {m['n_comparisons']} (pair, metric) "
            "comparisons of the call",
        ),
        ("alpha", f"{m['alpha']:g} (significant: adjusted p <= alpha; intervals at {100 * (1 - m['alpha']):g}%)"),
    ]
    if m["test"] in ("randomization", "bootstrap"):
        conv.append(
            (
                "resamples",
                f"{m['n_resamples']:,}, seed {m['seed']} (counter-based generator: the same "
                "p-values for any thread count)",
            )
        )
    conv += [
        ("preset", str(m["preset"]) if m["preset"] else "none (rankmeter's defaults, see docs/metrics.md)"),
        ("conventions", m.get("conventions", "")),
        (
            entity,
            f"the truth's {entity}, aligned across runs; one whose value is NaN for a run (no relevant item "
            "under empty='skip') is left out of that run's comparisons",
        ),
        (
            "effect size",
            "diff = mean(run) - mean(baseline); effect_size = mean difference / standard deviation of "
            f"the per-{'query' if entity == 'queries' else 'user'} differences (Cohen's d_z)",
        ),
    ]
    figs, note = _plots(cmp, k_max) if plots else ([], "Plots were not requested.")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>rankmeter comparison: {esc(', '.join(cmp.runs))}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>Comparison of {len(cmp.runs)} runs</h1>",
        f"<p>rankmeter {esc(__version__)} &middot; {esc(', '.join(cmp.metrics))}</p>",
        "<h2>Results</h2>",
        cmp.html_tables(),
        "<h2>Plots</h2>",
    ]
    if figs:
        parts.append('<div class="rm-plots">')
        for title, svg in figs:
            parts.append(f'<figure class="rm-plot"><figcaption>{esc(title)}</figcaption>{svg}</figure>')
        parts.append("</div>")
    else:
        parts.append(f"<p>{esc(note)}</p>")
    parts += [
        "<h2>Conventions</h2><dl>",
        "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in conv),
        "</dl>",
        "<h2>Data sizes</h2><dl>",
        "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in sizes),
        "</dl>",
        f"<table><thead><tr><th>run</th><th>{entity} evaluated</th><th>skipped (no relevant item)</th>"
        f"<th>truth {entity} without results</th><th>run {entity} not in truth</th></tr></thead><tbody>",
        per_run,
        "</tbody></table>",
        "</body></html>",
    ]
    return "\n".join(parts)
