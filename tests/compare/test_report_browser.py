"""Issue 13: the HTML report renders in a real browser (headless Chromium).

Chromium comes from the system packages (.ci/run installs Debian's `chromium`
when missing). Outside CI (CI != "true") a missing browser skips the test with
the reason; in CI it is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest

import rankmeter as rm


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI") == "true":
        pytest.fail("headless Chromium is missing: .ci/run installs it (apt-get install -y chromium)")
    pytest.skip("no Chromium on PATH (install the 'chromium' package; required when CI=true)")


def _render(browser, html_path, png_path):
    """Screenshot of the page and the browser's log (console messages included)."""
    cmd = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--log-level=0",
        "--window-size=1280,1600",
        f"--screenshot={png_path}",
        f"file://{html_path}",
    ]
    # Chromium is not ours: under the sanitizer run (.ci/sanitize preloads ASan/UBSan into the
    # Python process) it must not inherit the preload, or it hangs.
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert os.path.exists(png_path), p.stderr[-2000:]
    return p.stderr


def _console_errors(log: str) -> list[str]:
    """Console messages of the page. Headless Chromium logs every console message (errors,
    uncaught exceptions, failed resource loads) as an INFO:CONSOLE line whatever its level;
    the report has no script, so any such line is an error."""
    return [line for line in log.splitlines() if ":CONSOLE" in line]


def _report(tmp_path):
    g = np.random.default_rng(0)
    truth = {u: {int(i): int(g.integers(1, 4)) for i in g.choice(50, 6, replace=False)} for u in range(120)}
    runs = {}
    for name, q in (("bm25", 0.2), ("dense", 0.35), ("hybrid", 0.45)):
        runs[name] = {
            u: [i if g.random() < q else int(g.integers(50, 500)) for i in list(truth[u])[:5]]
            + [int(x) for x in g.integers(500, 900, 10)]
            for u in truth
        }
        runs[name] = {u: list(dict.fromkeys(v)) for u, v in runs[name].items()}
    cmp = rm.compare(truth, runs, ["ndcg@10", "recall@10"], n_resamples=999)
    path = tmp_path / "report.html"
    cmp.to_html(str(path), k_max=10)
    return path


def test_report_renders_without_console_errors(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image

    browser = _browser()
    # the console check itself must be able to fail: a page that logs an error is caught
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><p>x</p><script>console.error('boom')</script></body></html>")
    assert _console_errors(_render(browser, bad, tmp_path / "bad.png")), "console errors are not detected"

    html_path = _report(tmp_path)
    png = tmp_path / "report.png"
    log = _render(browser, html_path, png)
    assert _console_errors(log) == []
    img = np.asarray(Image.open(png).convert("L"), dtype=np.float64)
    assert img.shape == (1600, 1280)
    non_white = np.count_nonzero(img < 240) / img.size
    assert non_white > 0.02, f"the screenshot is (nearly) blank: {non_white:.4f} of the pixels are not white"
    assert img.std() > 10
