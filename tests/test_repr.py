"""Every public result type shows itself: a short one-line ``repr`` and an HTML view for Jupyter
(``_repr_html_``) with figures, the top table and, for motifs, an inline logo."""

import base64
import html
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from seqimp._utils.repr import heatmap_png, html_card, logo_svg, short_repr
from seqimp.importance import POIMResult, StreamedPOIM, load_poim
from seqimp.io import read_fasta
from seqimp.motifs import Motif
from seqimp.options import ImportanceOptions, ModelOptions, MotifOptions, OutputOptions
from seqimp.pipeline import MotifRun, PipelineRun, run_poim
from seqimp.tabular import firm, permutation_importance, relative_feature_importance, sensitivity_importance

DATA = Path(__file__).resolve().parent / "data"
MAX_REPR = 500

pytestmark = pytest.mark.filterwarnings("ignore:tomtom was given:UserWarning")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A small seqimp poim run with its motifs (GATTACA planted at 11) and a toy database."""
    out = tmp_path_factory.mktemp("run")
    pos, neg = read_fasta(DATA / "planted_pos.fa"), read_fasta(DATA / "planted_neg.fa")
    return run_poim(out, pos, neg, model=ModelOptions(degree=2), importance=ImportanceOptions(max_order=5),
                    motifs=MotifOptions(database=str(DATA / "toy_motifs.meme")), output=OutputOptions(top=3),
                    random_state=0)


@pytest.fixture(scope="module")
def tabular():
    return _tabular()


def _tabular():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    w = np.array([2.0, 0.5, 0.0])
    y = X @ w
    return [firm(lambda A: A @ w, X),
            permutation_importance(lambda A: A @ w, X, y, n_repeats=2, random_state=0),
            sensitivity_importance(lambda A: A @ w, X),
            relative_feature_importance(X, (y > 0).astype(int), random_state=0)]


def _results(run, tabular):
    streamed = load_poim(Path(run.files[0]).parent / "poim.npz")
    motif = run.motifs.motifs[0]
    return [run, run.result, streamed, run.motifs, motif] + tabular


def _check_html(text):
    """Well-formed HTML of the card: one root element, parsed as XML (inline SVG and images too)."""
    ET.fromstring(text if text.count("<div class='seqimp-result'") == 1 else f"<div>{text}</div>")


def test_every_result_type_has_a_short_repr_and_an_html_view(run, tabular):
    kinds = set()
    for obj in _results(run, tabular):
        kinds.add(type(obj).__name__)
        text = repr(obj)
        assert len(text) < MAX_REPR and text.count("\n") == 0, (type(obj).__name__, text)
        view = obj._repr_html_()
        assert "<table" in view, type(obj).__name__
        _check_html(view)
    assert {"PipelineRun", "POIMResult", "StreamedPOIM", "MotifRun", "Motif", "FIRMResult", "PermutationResult",
            "SensitivityResult", "RFIResult"} <= kinds


def test_pipeline_run_view_shows_metrics_top_oligomers_and_motif_logo(run):
    assert isinstance(run, PipelineRun) and isinstance(run.motifs, MotifRun)
    view = run._repr_html_()
    assert "held-out sequences" in view and "GATTACA" in view
    assert "data:image/png;base64," in view  # the differential POIM, inline
    assert "<svg" in view  # the motif's logo
    assert repr(run).startswith("PipelineRun(command='poim'")


def test_poim_views_show_the_five_best_oligomers_over_all_orders(run):
    for result in (run.result, load_poim(Path(run.files[0]).parent / "poim.npz")):
        view = result._repr_html_()
        best = result.top(5, per_order=False)
        assert len(best) == 5 and best["oligomer"].iloc[0] in view
        assert len(re.findall("<tr>", view)) >= 6  # header and five rows


def test_motif_run_and_motif_views(run):
    motifs = run.motifs
    assert repr(motifs).startswith(f"MotifRun(motifs={len(motifs.motifs)}, consensus='GATTACA")
    assert "toy.GATTACA" in motifs._repr_html_()  # the database match table
    assert "<svg" in motifs.motifs[0]._repr_html_()


def test_tabular_views_rank_features_by_mean_importance(tabular):
    for result in tabular:
        table = result.ranking()
        assert list(table["feature"].iloc[:1]) == ["x1"]  # the largest weight
        assert table["importance"].is_monotonic_decreasing
        assert "x1" in repr(result) and html.escape(result.method) in result._repr_html_()


def test_top_n_is_per_order_unless_asked_for_n_overall(run):
    res = run.result
    assert len(res.top(2)) == 2 * res.max_order
    overall = res.top(2, per_order=False)
    assert len(overall) == 2 and overall.equals(res.top(2).head(2))
    assert list(overall["rank"]) == [1, 2]
    streamed = load_poim(Path(run.files[0]).parent / "poim.npz")
    assert streamed.top(2, per_order=False).equals(streamed.top(2).head(2))


def test_helpers_escape_and_draw():
    card = html_card("a <b>", [("x", 1.234567), ("y", "<i>")])
    assert "a &lt;b&gt;" in card and "&lt;i&gt;" in card and "1.235" in card
    assert short_repr("R", a=1.0 / 3, b="x" * 60) == f"R(a=0.3333, b='{'x' * 37}...')"
    assert heatmap_png(np.array([[1.0, np.nan], [0.5, -1.0]])).startswith("<img src='data:image/png;base64,")
    # the inline PNG carries no date: a notebook's repr is the same bytes on a rerun
    assert heatmap_png(np.eye(3)) == heatmap_png(np.eye(3))
    assert b"tIME" not in base64.b64decode(heatmap_png(np.eye(3)).split(",", 1)[1].split("'")[0])
    # a pure column fills the logo's height with one letter; a uniform column draws nothing
    svg = logo_svg(np.array([[1.0, 0, 0, 0], [0.25, 0.25, 0.25, 0.25]]))
    root = ET.fromstring(svg)
    letters = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert letters == ["A"]


def test_poim_result_repr_stays_short_for_many_orders():
    tables = [np.zeros((30 - k + 1, 4 ** k)) for k in range(1, 7)]
    res = POIMResult(tables, tables, expected_score=0.0, score_std=1.0)
    assert len(repr(res)) < MAX_REPR and "<table" in res._repr_html_()
    assert len(repr(StreamedPOIM.from_result(res, top_n=3))) < MAX_REPR
    assert "Motif(" in repr(Motif.from_consensus("m", "GATTACA", start=3))
