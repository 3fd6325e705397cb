"""Logos: information-content logo of a motif, letter-importance logo of a POIM."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from seqimp.errors import SeqimpError  # noqa: E402
from seqimp.motifs import Motif, implied_poim  # noqa: E402
from seqimp.plot import logo  # noqa: E402
from seqimp.plot import importance_logo, letter_importance  # noqa: E402
from seqimp.importance import POIMResult  # noqa: E402


def _result():
    tables = implied_poim(Motif.from_consensus("a", "GATTACA", purity=0.85, start=6), 20, 3)
    return POIMResult(tables, tables, expected_score=0.0, score_std=1.0)


def _letter_heights(ax):
    """Total height drawn per x position (logomaker draws one patch per letter)."""
    heights = {}
    for patch in ax.patches:
        box = patch.get_extents().transformed(ax.transData.inverted())
        x = int(round((box.x0 + box.x1) / 2))
        heights[x] = heights.get(x, 0.0) + abs(box.y1 - box.y0)
    return heights


def test_logo_information_content():
    m = Motif.from_consensus("m", "ACGT", purity=0.85, start=12)
    fig, ax = plt.subplots()
    assert logo(m, ax=ax) is ax
    assert ax.get_ylim() == (0, 2) and ax.get_ylabel() == "bits"
    lo, hi = ax.get_xlim()
    assert lo == 11.5 and hi == 15.5  # positions 12..15, 1-based, in the sequences
    ic = m.information_content()[0]
    heights = _letter_heights(ax)
    assert sorted(heights) == [12, 13, 14, 15]
    assert heights[12] == pytest.approx(ic, rel=0.05)
    plt.close(fig)
    flat = Motif("flat", [[0.3, 0.25, 0.25, 0.2], [0.25, 0.25, 0.3, 0.2]], start=4)
    ax = logo(flat)  # a flat PWM: the axis follows the tallest column
    tallest = max(np.sum(flat.pwm * flat.information_content()[:, None], axis=1))
    assert ax.get_ylim()[1] == pytest.approx(1.15 * tallest) and "zoomed" in ax.get_title()
    plt.close(ax.figure)
    ax = logo(Motif.from_consensus("db", "ACG"))  # no position: motif columns 1..3
    assert ax.get_xlabel() == "motif column" and ax.get_xlim() == (0.5, 3.5)
    plt.close(ax.figure)


def test_letter_importance_against_loops():
    result = _result()
    got = letter_importance(result, order=1)
    np.testing.assert_allclose(got, result.poim[0] - result.poim[0].mean(axis=1, keepdims=True))
    k = 3
    table = result.poim[k - 1]
    L = result.length
    want = np.zeros((L, 4))
    for j in range(L):
        windows = [s for s in range(j - k + 1, j + 1) if 0 <= s <= L - k]
        for a in range(4):
            vals = []
            for s in windows:
                p = j - s
                zs = [z for z in range(4 ** k) if (z >> (2 * (k - 1 - p))) & 3 == a]
                vals.append(table[s, zs].max())
            want[j, a] = np.mean(vals)
    want -= want.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(letter_importance(result, order=k), want, atol=1e-12)


def test_importance_logo():
    result = _result()
    ax = importance_logo(result, order=2, positions=(3, 15))
    assert ax.get_xlim() == (2.5, 15.5)
    assert "order 2" in ax.get_ylabel()
    plt.close(ax.figure)
    with pytest.raises(SeqimpError, match=r"positions must satisfy 1 <= first <= last <= 20"):
        importance_logo(result, positions=(5, 40))
    with pytest.raises(SeqimpError, match="order must lie in 1..3"):
        letter_importance(result, order=4)


def test_match_logo_aligns_query_and_target():
    from seqimp.motifs import Motif
    from seqimp.plot._logos import match_logo

    target = Motif.from_consensus("T1", "AACGTTTG", purity=0.9)
    query = Motif.from_consensus("q", "CAAAC", purity=0.9)  # reverse complement of target columns 4-8
    ax = match_logo(query, target, offset=0, strand="-")
    assert len(ax) == 2 and ax[0].get_xlim() == ax[1].get_xlim() == (0.5, 8.5)
    assert "T1 (- strand)" in ax[1].get_title() and ax[1].get_xlabel() == "aligned column"
    ax = match_logo(query, target, offset=-2, strand="+")  # the query starts 2 columns left of the target
    assert ax[0].get_xlim() == (0.5, 10.5)
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("flip_below, fade_below", [(True, 0.0), (False, 0.4)])
def test_draw_letters_places_glyphs_as_logomaker(flip_below, fade_below):
    """Every glyph's box, colour and opacity equal logomaker.Logo's on the same matrix (values
    of both signs, a zero, ties)."""
    import logomaker
    import pandas as pd

    from seqimp.plot._logos import draw_letters

    rng = np.random.default_rng(3)
    values = rng.normal(size=(6, 4))
    values[2, 1] = 0.0
    values[4, :2] = 0.7

    def glyphs(ax):
        out = []
        for patch in ax.patches:
            box = patch.get_path().get_extents()
            out.append((round(box.x0, 9), round(box.y0, 9), round(box.x1, 9), round(box.y1, 9),
                        tuple(np.round(patch.get_facecolor(), 9))))
        return sorted(out)

    fig, (ours, theirs) = plt.subplots(2)
    bottom, top = draw_letters(ours, values, np.arange(3, 9), list("ACGT"), "classic", flip_below=flip_below,
                               fade_below=fade_below)
    logomaker.Logo(pd.DataFrame(values, columns=list("ACGT"), index=np.arange(3, 9)), ax=theirs,
                   color_scheme="classic", flip_below=flip_below, fade_below=fade_below)
    assert len(ours.patches) == len(theirs.patches) == 23
    np.testing.assert_allclose(np.array([g[:4] for g in glyphs(ours)]), np.array([g[:4] for g in glyphs(theirs)]),
                               atol=1e-9)
    assert [g[4] for g in glyphs(ours)] == [g[4] for g in glyphs(theirs)]
    assert (bottom, top) == pytest.approx(theirs.get_ylim())
    plt.close(fig)
