"""The report in a real browser: headless Chromium at 1280 x 800 lays the page out; the motif
section must start on the first screen and no table may reach past the window's right edge.

Needs a Chromium binary (Debian: ``apt-get install chromium-headless-shell``; the Playwright
download is not reachable from every machine). Without one the test is skipped with that
reason; tests/test_report.py checks the same page with an HTML parser (the motif section
precedes the heatmaps, every table sits in a box whose cells wrap)."""

import json
import re
import shutil
import subprocess

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from seqimp.report import build_report  # noqa: E402


BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
PROBE = """<script>window.addEventListener("load", function () {
  var out = {width: innerWidth, page: document.documentElement.scrollWidth,
             motifs: document.getElementById("motifs").getBoundingClientRect().top, wide: []};
  document.querySelectorAll("table").forEach(function (t, i) {
    if (t.getBoundingClientRect().right > innerWidth + 0.5) out.wide.push(i); });
  var pre = document.createElement("pre"); pre.id = "layout"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre); });</script>"""


def _browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium binary (apt-get install chromium-headless-shell); the HTML-parser check in "
                "tests/test_report.py covers the layout rules")


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
    dom = subprocess.run([browser, "--no-sandbox", "--disable-gpu", "--window-size=1280,800",
                          "--virtual-time-budget=5000", "--dump-dom", (tmp_path / "probe.html").as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    layout = json.loads(re.search(r'<pre id="layout">([^<]*)</pre>', dom).group(1))
    assert layout["width"] == 1280
    assert 0 <= layout["motifs"] < 800, layout          # the motif section starts on the first screen
    assert layout["wide"] == [] and layout["page"] <= 1280, layout   # no table reaches past the window
