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

from .._version import __version__
from ._labels import CORRECTION_LABELS, TEST_LABELS

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


def _plots(cmp: Any, k_max: int) -> tuple[list[tuple[str, str]], str]:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return [], "Plots need matplotlib (pip install 'rankmeter[plot]'); this report has the tables only."
    from . import plot as P

    out = []
    fig = P.plot_comparison_means(cmp)
    out.append(("Means per run", figure_svg(fig)))
    if cmp._inputs is not None:
        truth, runs, ev = cmp._inputs
        families = list(dict.fromkeys(P.base_name(m) for m in cmp.metrics))
        for fam in families:
            out.append((f"{fam}@k, k = 1..{k_max}", figure_svg(P.plot_metric_at_k(truth, runs, fam, k_max, **ev))))
        out.append(("Precision-recall curve (P@k against R@k)", figure_svg(P.plot_pr_curve(truth, runs, k_max, **ev))))
    for m in cmp.metrics:
        out.append((f"Per-user distribution of {m}", figure_svg(P.plot_distributions(cmp.results, m))))
    return out, ""


def render_report(cmp: Any, plots: bool = True, k_max: int = 20) -> str:
    esc = html.escape
    m = cmp.meta
    sizes = [
        ("users (truth)", f"{m['n_users']:,}"),
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
        (
            "users",
            "the truth users, aligned across runs; a user whose value is NaN for a run (no relevant item "
            "under empty='skip') is left out of that run's comparisons",
        ),
        (
            "effect size",
            "diff = mean(run) - mean(baseline); effect_size = mean difference / standard deviation of "
            "the per-user differences (Cohen's d_z)",
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
        "<table><thead><tr><th>run</th><th>users evaluated</th><th>skipped (no relevant item)</th>"
        "<th>truth users without recs</th><th>recs users not in truth</th></tr></thead><tbody>",
        per_run,
        "</tbody></table>",
        "</body></html>",
    ]
    return "\n".join(parts)
