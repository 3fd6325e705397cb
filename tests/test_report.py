"""Tests of seqimp.pipeline._report: an offline HTML page built from a results folder."""

import base64
import json
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from seqimp.errors import SeqimpError  # noqa: E402
from seqimp.report import write_report
from seqimp.report._page import build_report  # noqa: E402



def _png(path, y=1):
    fig, ax = plt.subplots(figsize=(1, 1))
    ax.plot([0, y])
    fig.savefig(path, dpi=20)
    plt.close(fig)
    return path.read_bytes()


@pytest.fixture
def results(tmp_path):
    summary = {"title": "test run", "data": {"positive": "p.fa", "negative": "n.fa", "n_positive": 10,
                                             "n_negative": 12, "length": 30},
               "metrics": {"accuracy": 0.875, "auroc": 0.93125, "n_test": 8},
               "parameters": {"degree": 3, "max_order": 4}, "background": {"description": "uniform"},
               "timings": {"train": 0.5}, "versions": {"seqimp": "0.1.0"},
               "top_per_order": [{"rank": 3, "oligomer": "TTG", "order": 3, "position": 15, "poim": 0.25,
                                  "firm": 0.125}]}
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    (tmp_path / "top_oligomers.tsv").write_text(
        "rank\toligomer\torder\tposition\tpoim\tfirm\n1\tGATTACA\t7\t11\t0.5\t0.25\n2\tA<b>\t1\t3\t-0.1\t-0.05\n")
    pngs = {name: _png(tmp_path / f"{name}.png")
            for name in ("poim_order10", "weights_vs_firm", "poim_order2", "differential_poim")}
    (tmp_path / "poim_order1.pdf").write_bytes(b"%PDF-1.4 fake")
    return tmp_path, pngs


def test_figures_are_embedded_in_reading_order(results):
    folder, pngs = results
    text = build_report(folder)
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', text)
    assert [base64.b64decode(e) for e in embedded] == [
        pngs["differential_poim"], pngs["poim_order2"], pngs["poim_order10"], pngs["weights_vs_firm"]]
    # the PDF is linked relatively, not embedded
    assert 'data="poim_order1.pdf"' in text and 'href="poim_order1.pdf"' in text
    # offline: no absolute paths, no external resources
    assert str(folder) not in text and "http" not in text


def test_summary_and_top_table(results):
    folder, _ = results
    text = build_report(folder)
    assert "<title>test run</title>" in text
    assert "0.8750" in text and "0.9313" in text and "10 positive, 12 negative" in text
    assert "<td class=s>GATTACA</td>" in text
    # oligomers of order >= 3 lead; the 1-mer is only in the collapsed table of all orders
    assert text.index("<td class=s>GATTACA</td>") < text.index("<details><summary>all orders") \
        < text.index("A&lt;b&gt;")
    assert ("Top oligomer of each order" in text and
            "<tr><td>3</td><td class=s>TTG</td><td>15</td><td>0.25</td><td>0.125</td></tr>" in text)
    assert "A&lt;b&gt;" in text  # escaped
    assert "Motifs" not in text
    assert "<h3>Parameters</h3><dl><dt>degree</dt><dd>3</dd><dt>max_order</dt><dd>4</dd></dl>" in text


def test_parameters_read_as_names_and_values_nested_records_inside():
    """A record of parameters (the deeper search's) is a list of names and values inside its
    parameter, a list of words is joined by commas, text has no quotes, the rest is JSON; every
    name and value escaped."""
    from seqimp.report._page import _parameter_html

    depth = {"candidates_tested": 7, "word_lengths": [5, 6], "stopped": "3 <in> a row", "found": None,
             "tuned": True, "nested": {"a": [1, {"b": 2}]}, "empty": {}}
    assert _parameter_html(depth) == (
        "<dl><dt>candidates_tested</dt><dd>7</dd><dt>word_lengths</dt><dd>5, 6</dd>"
        "<dt>stopped</dt><dd>3 &lt;in&gt; a row</dd><dt>found</dt><dd>null</dd><dt>tuned</dt><dd>true</dd>"
        "<dt>nested</dt><dd><dl><dt>a</dt><dd>[1, {&quot;b&quot;: 2}]</dd></dl></dd><dt>empty</dt><dd>{}</dd></dl>")
    assert _parameter_html(0.25) == "0.25" and _parameter_html([]) == "[]"


def test_the_candidates_tested_are_a_collapsed_table_of_the_motif_details(results):
    folder, _ = results
    (folder / "motifs.tsv").write_text("name\tconsensus\tstart\nmotif1\tGATTACA\t11\n")
    (folder / "candidate_tests.tsv").write_text(
        "candidate\tconsensus\tsites\tlog10_p_value\tlog10_held_out_p_value\toutcome\tmotif\tround\n"
        "candidate1\tGATTACA\t9\t-5.2\t-3.1\treported\tmotif1\t1\n"
        "candidate2\tGATTAC\t4\t-2.0\t-1.0\tcopy\tmotif1\t1\n"
        "round2_word1\tCC<G>\t3\t-1.0\tnan\tnot enriched\t\t2\n")
    text = build_report(folder)
    assert "<details><summary>candidate_tests.tsv: 3 candidates tested, 1 reported</summary>" in text
    assert "CC&lt;G&gt;" in text and text.index("candidate_tests.tsv: 3") > text.index('id="motif-details"')
    assert '<a href="candidate_tests.tsv">candidate_tests.tsv</a>' in text


def test_motif_section_appears_when_motifs_exist(results):
    folder, _ = results
    (folder / "motifs.tsv").write_text("name\tconsensus\tstart\tlength\tscore\tsites\tfraction_positive\t"
                                       "fraction_negative\nmotif1\tGATTACA\t11\t7\t2.5\t9\t0.9\t0.1\n")
    (folder / "motifs.meme").write_text("MEME version 4\n")
    (folder / "logos").mkdir()
    logo = _png(folder / "logos" / "motif1_logo.png", y=-1)
    path = write_report(folder)
    text = path.read_text()
    assert path == folder / "report.html"
    assert '<div id="motifs"><h2>Motifs</h2>' in text and "<td class=s>motif1</td>" in text
    assert "9 sites (90% of positives, 10% of negatives)" in text and "starts at 11" in text
    assert 'href="motifs.meme"' in text
    assert text.count(base64.b64encode(logo).decode()) == 1  # logos are not repeated among the figures
    # the answer first: the motif card comes before the summary, the tables and the heatmaps
    assert text.index('id="motifs"') < text.index("<h2>Summary</h2>") < text.index("<h2>Figures</h2>")


def test_linked_figures(results):
    folder, _ = results
    text = build_report(folder, embed=False)
    assert '<img src="differential_poim.png"' in text and "base64" not in text


def test_the_summary_in_memory_is_the_one_shown(results):
    """A run builds its report from the summary it holds (what summary.json holds), not from the file."""
    folder, _ = results
    summary = json.loads((folder / "summary.json").read_text())
    assert build_report(folder, summary=summary) == build_report(folder)
    (folder / "summary.json").unlink()
    assert build_report(folder, summary=summary) == build_report(folder, summary=dict(summary))
    assert "<title>test run</title>" in build_report(folder, summary=summary)
    assert "Summary" not in build_report(folder)  # no summary.json and none given
    summary["motif_database"] = {"file": "db.meme", "attribution": "credit <line>"}
    (folder / "motifs.tsv").write_text("name\tconsensus\nm\tACGT\n")
    (folder / "matches.tsv").write_text("query\ttarget\nm\tx\n")
    assert "credit &lt;line&gt;" in build_report(folder, summary=summary)  # the database line of the motifs


def test_missing_folder():
    with pytest.raises(SeqimpError, match=r"nowhere: not a directory"):
        build_report("nowhere")


def test_only_this_runs_files_are_shown(results):
    """A PNG that no seqimp command wrote, or one the summary does not record, is not embedded."""
    folder, pngs = results
    stray = _png(folder / "holiday.png", y=3)
    (folder / "logos").mkdir()
    stray_logo = _png(folder / "logos" / "other_logo.png", y=4)
    text = build_report(folder)
    for data in (stray, stray_logo):
        assert base64.b64encode(data).decode() not in text
    assert "holiday" not in text
    # with a record of what the run wrote, a heatmap of an earlier run is not shown either
    summary = json.loads((folder / "summary.json").read_text())
    summary["files"] = {"bytes": {"differential_poim.png": 1, "top_oligomers.tsv": 1}, "total": 2}
    text = build_report(folder, summary=summary)
    assert 'alt="differential_poim.png"' in text and 'alt="poim_order2.png"' not in text


MATCHES = ("query\ttarget\ttarget_description\ttarget_class\tp_value\tq_value\tsignificant\ttarget_family\n"
           "m1\tMA1\tBNC2\tC2H2 zinc finger factors\t1e-06\t0.001\tTrue\tBNC\n"
           "m1\tMA2\tFOS::JUN\tBasic leucine zipper factors (bZIP)\t1e-06\t0.001\tTrue\tFos-related\n"
           "m1\tMA3\tATF3\tBasic leucine zipper factors (bZIP)\t2e-05\t0.01\tTrue\tATF-3\n"
           "m2\t\tno significant match\t\tnan\tnan\tFalse\t\n")


def test_cards_name_family_class_and_ties(results):
    folder, _ = results
    (folder / "motifs.tsv").write_text("name\tconsensus\tstart\tposition_free\tsites\nm1\tTGACTCA\t5\tFalse\t30\n"
                                       "m2\tGGGG\t1\tTrue\t12\n")
    (folder / "matches.tsv").write_text(MATCHES)
    text = build_report(folder)
    card = text[text.index('id="motifs"'):text.index("<h2>Summary</h2>")]
    assert "Best significant match: <b>MA1 BNC2</b> (family BNC; class C2H2 zinc finger factors)" in card
    assert "1 more match tie in p: MA2 FOS::JUN (Fos-related)" in card and "ATF3" not in card
    assert "position-free" in card and "Database: no significant match" in card


def test_tables_wrap_to_fit_the_page(results):
    """The DOM check (no browser): every table sits in a box that never scrolls sideways, and its
    cells wrap; the motif section precedes the heatmaps."""
    from html.parser import HTMLParser

    folder, _ = results
    (folder / "motifs.tsv").write_text("name\tconsensus\nm1\tACGTACGT\n")
    text = build_report(folder)
    style = re.search(r"<style>(.*?)</style>", text, re.S).group(1)
    assert "overflow-wrap:anywhere" in style and "overflow-x:hidden" in style and "max-width:1180px" in style

    class Tables(HTMLParser):
        stack, tables = [], []

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.tables.append(list(self.stack))
            self.stack.append(dict(attrs).get("class"))

        def handle_endtag(self, tag):
            if self.stack:
                self.stack.pop()

    parser = Tables()
    parser.feed(text)
    assert parser.tables and all("scroll" in parents for parents in parser.tables)
    assert text.index('id="motifs"') < text.index("<h2>Figures</h2>")


def test_position_free_logo_has_no_absolute_axis():
    from seqimp.motifs import Motif
    from seqimp.plot import logo

    ax = logo(Motif.from_consensus("pf", "GATA", start=40, position_free=True))
    assert ax.get_xlabel() == "motif column" and "position-free" in ax.get_title()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert "40" not in labels
    plt.close(ax.figure)


def test_site_positions_count_from_the_origin():
    import pandas as pd

    from seqimp.motifs import Motif
    from seqimp.plot import site_positions

    sites = pd.DataFrame({"motif": ["m"] * 3, "position": [9, 10, 11], "strand": ["+", "-", "+"]})
    motif = Motif.from_consensus("m", "ACG")
    ax = site_positions(sites, motif, 20, origin=10)
    ax.figure.canvas.draw()
    shown = {int(round(t.get_position()[0])): t.get_text() for t in ax.get_xticklabels() if t.get_text()}
    assert shown  # every tick at 1-based position p reads p's label from the origin (10 -> +1, 9 -> -1)
    assert all(text == (f"{p - 9:+d}" if p >= 10 else f"{p - 10:+d}") for p, text in shown.items()), shown
    assert ax.get_xlabel() == "site start (+1 at position 10)"
    plt.close(ax.figure)


def test_logo_counts_from_the_origin():
    from seqimp.motifs import Motif
    from seqimp.plot import logo

    ax = logo(Motif.from_consensus("m", "GATTACA", start=8), origin=10)
    ax.figure.canvas.draw()
    shown = {int(round(t.get_position()[0])): t.get_text() for t in ax.get_xticklabels() if t.get_text()}
    assert shown and all(text == (f"{p - 9:+d}" if p >= 10 else f"{p - 10:+d}") for p, text in shown.items())
    assert ax.get_xlabel() == "position (+1 at 10)"
    plt.close(ax.figure)
