"""The report in a real browser: headless Chromium at 1280 x 800 lays the page out; the motif
section must start on the first screen and no table may reach past the window's right edge.

Needs a Chromium binary (Debian: ``apt-get install chromium-headless-shell``, or the full
``chromium``; the Playwright download is not reachable from every machine), run with
``--headless`` so that no display is needed. Without one, or when it cannot start here, the
test is skipped saying why; tests/test_report.py checks the same page with an HTML parser (the
motif section precedes the heatmaps, every table sits in a box whose cells wrap)."""

import json
import re
import shutil
import subprocess

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from seqimp.report._page import build_report  # noqa: E402


BROWSERS = ("chromium-headless-shell", "chrome-headless-shell", "chromium", "chromium-browser", "google-chrome",
            "google-chrome-stable")
PROBE = """<script>window.addEventListener("load", function () {
  var out = {width: innerWidth, page: document.documentElement.scrollWidth,
             motifs: null, wide: []};
  var motifs = document.getElementById("motifs");
  if (motifs) out.motifs = motifs.getBoundingClientRect().top;
  document.querySelectorAll("table").forEach(function (t, i) {
    if (t.getBoundingClientRect().right > innerWidth + 0.5) out.wide.push(i); });
  var pre = document.createElement("pre"); pre.id = "layout"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre); });</script>"""


def _browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(f"no Chromium binary ({', '.join(BROWSERS)}; apt-get install chromium-headless-shell); the "
                "HTML-parser check in tests/test_report.py covers the layout rules")


def _render(browser, page, profile):
    """The DOM of ``page`` laid out by headless Chromium at 1280 x 800; skipped, saying why, when the
    browser prints no page (it cannot start here: a missing library, no sandbox support)."""
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
               "--window-size=1280,800", "--virtual-time-budget=5000", "--dump-dom", page.as_uri()]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.skip(f"{browser} --headless printed no page in 120 s")
    if "<html" not in done.stdout.lower():
        last = (done.stderr.strip().splitlines() or ["nothing on stderr"])[-1][:200]
        pytest.skip(f"{browser} --headless printed no page (exit status {done.returncode}: {last})")
    return done.stdout


def _png(path, size=(8, 6)):
    fig, ax = plt.subplots(figsize=size)
    ax.imshow([[0, 1], [1, 0]])
    fig.savefig(path, dpi=60)
    plt.close(fig)


def test_motifs_on_the_first_screen_and_no_table_wider_than_the_page(tmp_path):
    browser = _browser()
    summary = {"title": "browser check", "data": {"n_positive": 10, "n_negative": 10, "length": 60},
               "parameters": {f"parameter_{i}": "x" * 40 for i in range(12)}}
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    long = "\t".join(f"column_with_a_long_name_{i}" for i in range(24))
    (tmp_path / "top_oligomers.tsv").write_text("rank\toligomer\torder\tposition\tpoim\tfirm\t" + long + "\n" + "".join(
        f"{r}\t{'ACGT' * 6}\t{3 + r % 5}\t{r}\t0.5\t0.25\t" + "\t".join("0.123456" for _ in range(24)) + "\n"
        for r in range(1, 40)))
    for name in ("differential_poim", "maximal_poim", "poim_order1", "poim_order2", "poim_order3"):
        _png(tmp_path / f"{name}.png")
    (tmp_path / "logos").mkdir()
    _png(tmp_path / "logos" / "motif1_logo.png", (6, 2.5))
    _png(tmp_path / "logos" / "motif1_positions.png", (8, 2))
    (tmp_path / "motifs.tsv").write_text("name\tconsensus\tstart\tsites\tfraction_positive\tfraction_negative\t"
                                         + long + "\nmotif1\tTGACTCATGACTCATGACTCA\t11\t9\t0.9\t0.1\t"
                                         + "\t".join("a_rather_long_value_" * 2 for _ in range(24)) + "\n")
    (tmp_path / "matches.tsv").write_text(
        "query\ttarget\ttarget_description\ttarget_class\tp_value\tq_value\tsignificant\ttarget_family\t" + long
        + "\n" + "".join(f"motif1\tMA{i}\tFACTOR{i}::PARTNER\tBasic leucine zipper factors (bZIP)\t1e-0{i}\t0.01\t"
                         f"True\tFos-related\t" + "\t".join("v" * 30 for _ in range(24)) + "\n" for i in range(1, 6)))
    html = build_report(tmp_path)
    (tmp_path / "probe.html").write_text(html.replace("</body>", PROBE + "</body>"))
    dom = _render(browser, tmp_path / "probe.html", tmp_path / "profile")
    probe = re.search(r'<pre id="layout">([^<]*)</pre>', dom)
    assert probe, "the page's script did not run to the end: " + dom[-500:]
    layout = json.loads(probe.group(1))
    assert layout["width"] == 1280
    assert layout["motifs"] is not None and 0 <= layout["motifs"] < 800, layout  # the motifs on the first screen
    assert layout["wide"] == [] and layout["page"] <= 1280, layout   # no table reaches past the window
