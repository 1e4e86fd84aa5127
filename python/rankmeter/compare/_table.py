"""``Comparison``: the outcome of :func:`rankmeter.compare` and its exports."""

from __future__ import annotations

import html
import json
import math
from typing import Any, Optional

__all__ = ["Comparison", "COLUMNS", "TEST_LABELS", "superscript_letter"]

COLUMNS = (
    "run",
    "baseline",
    "metric",
    "mean",
    "baseline_mean",
    "diff",
    "ci_low",
    "ci_high",
    "effect_size",
    "p_value",
    "p_adjusted",
    "significant",
    "n_users",
)

from ._labels import CORRECTION_LABELS, TEST_LABELS, _counted  # noqa: E402

# Unicode modifier letters for the superscripts of the text and Markdown tables
# (Unicode has no modifier q; runs past z get numbers).
_SUPER = dict(zip("abcdefghijklmnoprstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"))
_SUPER_DIGITS = dict(zip("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def letter(i: int) -> str:
    """a, b, ..., z, then 27, 28, ... (1-based numbers past z)."""
    return chr(ord("a") + i) if i < 26 else str(i + 1)


def superscript_letter(i: int) -> str:
    s = letter(i)
    if len(s) == 1 and s in _SUPER:
        return _SUPER[s]
    if s == "q":
        return "q"
    return "".join(_SUPER_DIGITS[c] for c in s)


def _fmt(x: float, digits: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:.{digits}f}"


def _fmt_p(p: float) -> str:
    if p is None or math.isnan(p):
        return "nan"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _text_table(header: list[str], body: list[list[str]], align: Optional[list[str]] = None) -> str:
    widths = [max(len(str(r[j])) for r in [header, *body]) for j in range(len(header))]
    align = align or ["<"] * len(header)

    def line(r):
        return "  ".join(f"{c!s:{a}{w}}" for c, a, w in zip(r, align, widths)).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in body])


def _latex_escape(s: str) -> str:
    out = []
    for ch in s:
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "~":
            out.append("\\textasciitilde{}")
        elif ch == "^":
            out.append("\\textasciicircum{}")
        elif ch == "\\":
            out.append("\\textbackslash{}")
        else:
            out.append(ch)
    return "".join(out)


class Comparison:
    """The outcome of :func:`rankmeter.compare`.

    ``rows``: one dict per (run, baseline, metric) comparison with the columns
    ``COLUMNS``; ``runs``, ``metrics``; ``results`` (run name ->
    :class:`rankmeter.Result`); ``meta`` (sizes, test, alpha, correction, seed);
    ``run_ci`` ((run, metric) -> bootstrap interval of the run's mean, test
    "bootstrap" only).

    Exports: :meth:`to_pandas`, :meth:`to_dict`, :meth:`to_json`,
    :meth:`to_markdown`, :meth:`to_latex`, :meth:`to_html` (a self-contained
    report), ``print(cmp)`` and the notebook view; :meth:`plot`.

    In the wide tables a run's superscript letters name the runs it is
    significantly better than (after the correction); the best mean of every
    metric is bold. Better is higher, lower for the metrics the registry says
    so (``gini``, ``arp``), and neither for counts and diagnostics (``num_ret``,
    ``judged``, C/W/L expected cost): those get no bold and no letters
    (:meth:`direction`, docs/compare.md).
    """

    def __init__(
        self,
        runs: list[str],
        metrics: list[str],
        rows: list[dict],
        results: dict,
        meta: dict,
        run_ci: Optional[dict] = None,
        inputs: Any = None,
        agreement: Optional[list] = None,
    ):
        self.runs = list(runs)
        self.metrics = list(metrics)
        self.rows = rows
        self.results = results
        self.meta = meta
        self.run_ci = dict(run_ci or {})
        self._inputs = inputs
        # compare(agreement=...): one row per (run, baseline, agreement metric) with its mean and users
        self.agreement = list(agreement) if agreement is not None else None

    # ------------------------------------------------------------------ data
    @property
    def means(self) -> dict[str, dict[str, float]]:
        """run -> metric -> mean over the evaluated users."""
        return {r: {m: self.results[r][m] for m in self.metrics} for r in self.runs}

    def direction(self, metric: str) -> Optional[str]:
        """Which way ``metric`` is better: ``"higher"``, ``"lower"`` or ``None`` (a count or a diagnostic), from
        the metric registry (:attr:`rankmeter.metrics.Metric.better`); ``"higher"`` for a name the registry does
        not parse."""
        from .. import metrics as _metrics

        try:
            return _metrics.parse(metric).better
        except (ValueError, TypeError):
            return "higher"

    def better_than(self, run: str, metric: str) -> list[str]:
        """The runs that ``run`` is significantly better than on ``metric`` (none for a metric without a
        direction)."""
        way = self.direction(metric)
        if way is None:
            return []
        sign = 1.0 if way == "higher" else -1.0
        out = []
        for row in self.rows:
            if row["metric"] != metric or not row["significant"]:
                continue
            if row["run"] == run and sign * row["diff"] > 0:
                out.append(row["baseline"])
            elif row["baseline"] == run and sign * row["diff"] < 0:
                out.append(row["run"])
        return [r for r in self.runs if r in out]

    def best(self, metric: str, digits: Optional[int] = None) -> list[str]:
        """The runs with the best mean (rounded to ``digits`` when given): the highest, the lowest for a metric
        better lower, none for a metric without a direction."""
        way = self.direction(metric)
        vals = {r: self.results[r][metric] for r in self.runs}
        if digits is not None:
            vals = {r: round(v, digits) for r, v in vals.items()}
        finite = [v for v in vals.values() if not math.isnan(v)]
        if not finite or way is None:
            return []
        top = max(finite) if way == "higher" else min(finite)
        return [r for r in self.runs if vals[r] == top]

    def _directions_note(self) -> str:
        lower = [m for m in self.metrics if self.direction(m) == "lower"]
        neither = [m for m in self.metrics if self.direction(m) is None]
        out = ""
        if lower:
            out += f" Lower is better for {', '.join(lower)}."
        if neither:
            out += f" No direction (no bold, no letters) for {', '.join(neither)}."
        return out

    def _legend(self) -> str:
        m = self.meta
        corr = CORRECTION_LABELS[m["correction"]]
        scope = f"each run against {m['baseline']!r}" if m["baseline"] is not None else "every pair of runs"
        res = (
            f", {m['n_resamples']:,} resamples, seed {m['seed']}" if m["test"] in ("randomization", "bootstrap") else ""
        )
        return (
            f"Best mean per metric in bold. A superscript letter marks a run significantly better than the run "
            f"of that letter: {TEST_LABELS[m['test']]}{res}, {scope}, {corr} correction over "
            f"{m['n_comparisons']} comparisons, adjusted p <= {m['alpha']:g}; {_counted(m)}."
            + self._directions_note()
            + (f" Conventions: {m['conventions']}." if m.get("conventions") else "")
        )

    def by_group(self):
        """With ``compare(..., user_groups=...)``: each run's exact means per group, a pandas DataFrame
        indexed by (run, group) with ``n_users`` and one column per metric (docs/fairness.md)."""
        import pandas as pd

        tables = {run: self.results[run].by_group() for run in self.runs}
        return pd.concat(tables, names=["run", "group"])

    def _has_groups(self) -> bool:
        return all(getattr(self.results[r], "_grouping", None) is not None for r in self.runs)

    def _group_panels(self, digits: int) -> tuple[list, list, list, list]:
        """The per-group panel (one row per (group, run): users, then each metric's exact mean over the
        group's users; bold: the best run of the group on that metric) and the gap panel (one row per
        (run, metric): max - min, min / max and MAD of the group means), as header and rows of cells; a bold
        cell is ``("b", text)``."""
        tables = {r: self.results[r].by_group() for r in self.runs}
        groups = list(tables[self.runs[0]].index)
        best: dict = {}
        for g in groups:
            for m in self.metrics:
                way = self.direction(m)
                vals = [float(tables[r].loc[g, m]) for r in self.runs]
                ok = [v for v in vals if not math.isnan(v)]
                if way is not None and ok and len(self.runs) > 1:
                    best[(g, m)] = max(ok) if way == "higher" else min(ok)
        head = ["group", "run", "users", *self.metrics]
        rows = []
        for g in groups:
            for r in self.runs:
                cells: list = [str(g), r, f"{int(tables[r].loc[g, 'n_users']):,}"]
                for m in self.metrics:
                    v = float(tables[r].loc[g, m])
                    text = _fmt(v, digits)
                    cells.append(("b", text) if best.get((g, m)) == v else text)
                rows.append(cells)
        gap_head = ["run", "metric", "max - min", "min / max", "MAD"]
        gap_rows = []
        for r in self.runs:
            gaps = self.results[r].group_gaps(n_permutations=0)
            for m in self.metrics:
                row = gaps.loc[m]
                gap_rows.append(
                    [
                        r,
                        m,
                        _fmt(row["max_minus_min"], digits),
                        _fmt(row["min_max_ratio"], digits),
                        _fmt(row["mad"], digits),
                    ]
                )
        return head, rows, gap_head, gap_rows

    _GROUP_TITLE = "By user group: exact means over each group's users (bold: the group's best run)"
    _GAP_TITLE = "Gaps between the group means (permutation test of the range: Result.group_gaps(); docs/fairness.md)"

    def to_pandas(self):
        """The long table as a pandas DataFrame (one row per comparison)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("Comparison.to_pandas() needs pandas: pip install pandas") from None
        return pd.DataFrame(self.rows, columns=list(COLUMNS))

    def to_dict(self) -> dict:
        """Everything as plain Python (JSON-compatible) data."""
        return {
            "meta": self.meta,
            "runs": self.runs,
            "metrics": self.metrics,
            "means": self.means,
            "rows": self.rows,
            "run_ci": [
                {"run": r, "metric": m, "ci_low": lo, "ci_high": hi} for (r, m), (lo, hi) in self.run_ci.items()
            ],
            **({"agreement": self.agreement} if self.agreement is not None else {}),
        }

    def to_json(self, indent: Optional[int] = 2) -> str:
        def clean(x):
            if isinstance(x, float) and not math.isfinite(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, (list, tuple)):
                return [clean(v) for v in x]
            return x

        return json.dumps(clean(self.to_dict()), indent=indent)

    # ------------------------------------------------------------------ wide tables
    def _cell(self, run: str, metric: str, digits: int, kind: str) -> str:
        v = _fmt(self.results[run][metric], digits)
        idx = [self.runs.index(r) for r in self.better_than(run, metric)]
        bold = run in self.best(metric, digits)
        if kind == "text":
            return v + "".join(superscript_letter(i) for i in idx)
        if kind == "markdown":
            v = f"**{v}**" if bold else v
            return v + "".join(superscript_letter(i) for i in idx)
        if kind == "html":
            v = f"<b>{v}</b>" if bold else v
            return v + (f"<sup>{''.join(letter(i) for i in idx)}</sup>" if idx else "")
        # latex: superscripts, and phantoms of the missing letters so the columns align
        v = f"\\textbf{{{v}}}" if bold else v
        sup = "".join(letter(i) for i in idx)
        missing = "".join(letter(i) for i, r in enumerate(self.runs) if r != run and i not in idx)
        out = v + (f"$^{{{sup}}}$" if sup else "")
        return out + (f"\\hphantom{{$^{{{missing}}}$}}" if missing else "")

    def to_text(self, digits: int = 4) -> str:
        body = [
            [letter(i), r] + [self._cell(r, m, digits, "text") for m in self.metrics] for i, r in enumerate(self.runs)
        ]
        wide = _text_table(["#", "run", *self.metrics], body)
        long = _text_table(
            ["run", "baseline", "metric", "diff", "ci_low", "ci_high", "p", "p_adj", "sig"],
            [
                [
                    r["run"],
                    r["baseline"],
                    r["metric"],
                    f"{r['diff']:+.{digits}f}",
                    _fmt(r["ci_low"], digits),
                    _fmt(r["ci_high"], digits),
                    _fmt_p(r["p_value"]),
                    _fmt_p(r["p_adjusted"]),
                    "*" if r["significant"] else "",
                ]
                for r in self.rows
            ],
            ["<", "<", "<", ">", ">", ">", ">", ">", "<"],
        )
        agree = ""
        if self.agreement:
            agree = "\n\nAgreement between the runs (mean over the users of either run)\n" + _text_table(
                ["run", "baseline", "metric", "mean", "users"],
                [
                    [r["run"], r["baseline"], r["metric"], _fmt(r["mean"], digits), str(r["n_users"])]
                    for r in self.agreement
                ],
                ["<", "<", "<", ">", ">"],
            )
        groups = ""
        if self._has_groups():
            head, rows, gh, gr = self._group_panels(digits)
            plain = [[c[1] if isinstance(c, tuple) else c for c in row] for row in rows]
            groups = (
                f"\n\n{self._GROUP_TITLE}\n"
                + _text_table(head, plain, ["<", "<", ">"] + [">"] * len(self.metrics))
                + f"\n\n{self._GAP_TITLE}\n"
                + _text_table(gh, gr, ["<", "<", ">", ">", ">"])
            )
        return f"{wide}\n\n{long}{agree}{groups}\n\n{self._legend()}"

    def __repr__(self) -> str:
        m = self.meta
        head = (
            f"rankmeter.Comparison ({m['n_runs']} runs, {m['n_metrics']} metrics, {_counted(m)}; "
            f"{m['test']}, {m['correction']}, alpha={m['alpha']:g})"
        )
        return head + "\n" + self.to_text()

    def to_markdown(self, digits: int = 4) -> str:
        """The wide table (runs x metrics) in Markdown, best bold, superscripts, legend."""
        head = "| # | run | " + " | ".join(self.metrics) + " |"
        sep = "|---|---|" + "|".join(":---:" for _ in self.metrics) + "|"
        lines = [head, sep]
        for i, r in enumerate(self.runs):
            cells = [self._cell(r, m, digits, "markdown") for m in self.metrics]
            lines.append(f"| {letter(i)} | {r.replace('|', '&#124;')} | " + " | ".join(cells) + " |")
        out = "\n".join(lines) + "\n\n" + self._legend() + "\n"
        if self._has_groups():
            ghead, grows, gh, gr = self._group_panels(digits)

            def md(cells: list) -> str:
                txt = [f"**{c[1]}**" if isinstance(c, tuple) else str(c).replace("|", "&#124;") for c in cells]
                return "| " + " | ".join(txt) + " |"

            out += f"\n{self._GROUP_TITLE}\n\n" + md(ghead) + "\n|" + "---|" * len(ghead) + "\n"
            out += "\n".join(md(r) for r in grows) + "\n"
            out += f"\n{self._GAP_TITLE}\n\n" + md(gh) + "\n|" + "---|" * len(gh) + "\n"
            out += "\n".join(md(r) for r in gr) + "\n"
        return out

    def to_latex(self, digits: int = 4, caption: Optional[str] = None, label: str = "tab:results") -> str:
        """A booktabs table for a paper: best bold, significance superscripts, legend as caption."""
        cap = _latex_escape(caption if caption is not None else self._legend()).replace("<=", "$\\le$")
        lines = [
            "% needs \\usepackage{booktabs}",
            "\\begin{table}[t]",
            "\\centering",
            f"\\caption{{{cap}}}",
            f"\\label{{{label}}}",
            "\\begin{tabular}{cl" + "c" * len(self.metrics) + "}",
            "\\toprule",
            "\\# & Run & " + " & ".join(_latex_escape(m) for m in self.metrics) + " \\\\",
            "\\midrule",
        ]
        for i, r in enumerate(self.runs):
            cells = [self._cell(r, m, digits, "latex") for m in self.metrics]
            lines.append(f"{letter(i)} & {_latex_escape(r)} & " + " & ".join(cells) + " \\\\")
        lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
        return "\n".join(lines) + "\n"

    def html_tables(self, digits: int = 4) -> str:
        """The wide and the long table as HTML fragments (no page around them)."""
        esc = html.escape
        out = [
            '<table class="rm-wide"><thead><tr><th>#</th><th>run</th>'
            + "".join(f"<th>{esc(m)}</th>" for m in self.metrics)
            + "</tr></thead><tbody>"
        ]
        for i, r in enumerate(self.runs):
            out.append(
                f"<tr><td>{letter(i)}</td><td>{esc(r)}</td>"
                + "".join(f"<td>{self._cell(r, m, digits, 'html')}</td>" for m in self.metrics)
                + "</tr>"
            )
        out.append("</tbody></table>")
        out.append(f'<p class="rm-legend">{esc(self._legend())}</p>')
        cols = list(COLUMNS)
        out.append(
            '<table class="rm-long"><thead><tr>' + "".join(f"<th>{c}</th>" for c in cols) + "</tr></thead><tbody>"
        )
        for row in self.rows:
            cells = []
            for c in cols:
                v = row[c]
                if c in ("p_value", "p_adjusted"):
                    v = _fmt_p(v)
                elif isinstance(v, bool):
                    v = "yes" if v else "no"
                elif isinstance(v, float):
                    v = _fmt(v, digits)
                cells.append(f"<td>{esc(str(v))}</td>")
            cls = ' class="rm-sig"' if row["significant"] else ""
            out.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        if self._has_groups():
            head, rows, gh, gr = self._group_panels(digits)

            def td(c: Any) -> str:
                return f"<td><b>{esc(c[1])}</b></td>" if isinstance(c, tuple) else f"<td>{esc(str(c))}</td>"

            for title, h, body, cls in (
                (self._GROUP_TITLE, head, rows, "rm-groups"),
                (self._GAP_TITLE, gh, gr, "rm-gaps"),
            ):
                out.append(f'<p class="rm-legend">{esc(title)}</p>')
                out.append(
                    f'<table class="{cls}"><thead><tr>'
                    + "".join(f"<th>{esc(c)}</th>" for c in h)
                    + "</tr></thead><tbody>"
                    + "".join("<tr>" + "".join(td(c) for c in r) + "</tr>" for r in body)
                    + "</tbody></table>"
                )
        return "\n".join(out)

    def _repr_html_(self) -> str:
        m = self.meta
        return (
            f"<div><p><b>rankmeter.Comparison</b>: {m['n_runs']} runs, {m['n_metrics']} metrics, "
            f"{_counted(m)}</p>{self.html_tables()}</div>"
        )

    def to_html(self, path: Optional[str] = None, *, plots: bool = True, k_max: int = 20) -> str:
        """A self-contained HTML report (tables, embedded SVG plots, conventions, sizes).

        Returns the HTML text; with ``path``, also writes it there (UTF-8).
        Plots need matplotlib; without it the report says so and has the tables.
        """
        from .report import render_report

        text = render_report(self, plots=plots, k_max=k_max)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    # ------------------------------------------------------------------ plots
    def plot(self, kind: str = "means", metric: Optional[str] = None, **kw):
        """A matplotlib Figure: ``kind="means"`` (means with intervals), ``"distribution"``
        (per-user values of ``metric``), ``"curve"`` (``metric``@k for k = 1..k_max, one
        evaluation per run), ``"pr"`` (precision-recall curve from P@k and R@k),
        ``"difference"`` (per-user differences against the baseline, sorted), ``"matrix"``
        (the pairwise comparisons of ``metric``: differences, adjusted p, significance) or ``"groups"``
        (each run's mean of ``metric`` per user group, with ``compare(..., user_groups=...)``)."""
        from . import plot as _plot

        if kind == "means":
            return _plot.plot_comparison_means(self, **kw)
        if kind == "distribution":
            kw.setdefault("entity", self.meta.get("entity", "users"))
            return _plot.plot_distributions(self.results, metric or self.metrics[0], **kw)
        if kind == "difference":
            return _plot.plot_per_user_difference(self, metric or self.metrics[0], **kw)
        if kind == "matrix":
            return _plot.plot_significance_matrix(self, metric or self.metrics[0], **kw)
        if kind == "groups":
            return _plot.plot_by_group(self, metric or self.metrics[0], **kw)
        if kind in ("curve", "pr"):
            if self._inputs is None:
                raise ValueError("this Comparison has no inputs to evaluate curves from")
            truth, runs, ev = self._inputs
            if kind == "curve":
                name = metric or _plot.base_name(self.metrics[0])
                return _plot.plot_metric_at_k(truth, runs, name, **kw, **ev)
            return _plot.plot_pr_curve(truth, runs, **kw, **ev)
        raise ValueError(
            "`kind` must be one of 'means', 'distribution', 'curve', 'pr', 'difference', 'matrix', 'groups'; "
            f"got {kind!r}"
        )
