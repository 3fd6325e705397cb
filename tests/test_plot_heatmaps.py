"""Tests of seqimp.plot._heatmaps on small hand-made POIM results."""

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from seqimp.errors import SeqimpError  # noqa: E402
from seqimp.plot import differential_heatmap, poim_heatmap, weights_vs_firm  # noqa: E402
from seqimp import MarkovBackground, poim  # noqa: E402
from seqimp.importance import POIMResult  # noqa: E402
from seqimp.kernels import PositionalWeights  # noqa: E402


def _result(length=12, max_order=4, seed=0, nan_at=None):
    rng = np.random.default_rng(seed)
    poim = [rng.normal(size=(length - k + 1, 4 ** k)) for k in range(1, max_order + 1)]
    if nan_at is not None:
        poim[nan_at[0] - 1][nan_at[1], nan_at[2]] = np.nan
    firm = [0.5 * t for t in poim]
    return POIMResult(poim, firm, expected_score=0.0, score_std=1.0)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _kmers(k):
    return ["".join(p) for p in itertools.product("ACGT", repeat=k)]


@pytest.mark.parametrize("order", [1, 2, 3])
def test_low_orders_show_every_kmer_times_position(order):
    res = _result()
    ax = poim_heatmap(res, order)
    image = ax.images[0]
    np.testing.assert_array_equal(image.get_array().filled(np.nan), res.poim[order - 1].T)
    assert [t.get_text() for t in ax.get_yticklabels()] == _kmers(order)
    # centred diverging scale, 1-based position axis
    assert image.norm.vmin == -image.norm.vmax == -np.nanmax(np.abs(res.poim[order - 1]))
    assert ax.get_xlim() == (0.5, res.length - order + 1 + 0.5)
    assert ax.figure.axes[-1].get_ylabel() == "POIM  Q(z, j)"  # colorbar


def test_high_order_shows_the_top_kmers_by_max_abs_over_positions():
    res = _result()
    ax = poim_heatmap(res, 4, top=7, measure="firm")
    table = res.firm[3]
    # brute force: rank every 4-mer by its largest |FIRM| over positions
    strength = {z: max(abs(table[j, i]) for j in range(table.shape[0])) for i, z in enumerate(_kmers(4))}
    expected = sorted(sorted(strength, key=lambda z: -strength[z])[:7])
    shown = [t.get_text() for t in ax.get_yticklabels()]
    assert shown == expected
    cols = [_kmers(4).index(z) for z in shown]
    np.testing.assert_array_equal(ax.images[0].get_array().filled(np.nan), table[:, cols].T)


def test_default_top_for_order_above_three_and_explicit_kmers():
    res = _result()
    assert len(poim_heatmap(res, 4).get_yticklabels()) == 20
    ax = poim_heatmap(res, 2, kmers=["GT", "AG"])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["GT", "AG"]
    np.testing.assert_array_equal(ax.images[0].get_array().filled(np.nan), res.poim[1][:, [11, 2]].T)
    with pytest.raises(SeqimpError, match=r"k-mer 'GTA' has length 3, expected order 2"):
        poim_heatmap(res, 2, kmers=["GTA"])


def test_nan_is_masked_and_given_axes_are_used():
    res = _result(nan_at=(2, 3, 5))
    fig, ax = plt.subplots()
    out = poim_heatmap(res, 2, ax=ax, colorbar=False)
    assert out is ax
    assert ax.images[0].get_array().mask[5, 3]


def test_position_labels_replace_tick_text():
    res = _result(length=57, max_order=2)
    labels = np.concatenate([np.arange(-50, 0), np.arange(1, 8)])
    ax = poim_heatmap(res, 1, position_labels=labels)
    ax.figure.canvas.draw()
    texts = {t.get_text() for t in ax.get_xticklabels() if t.get_text()}
    assert texts and texts <= {f"{v:+d}" for v in labels}   # labels around an origin print signed
    with pytest.raises(SeqimpError, match=r"position_labels has 3 entries, the sequences have length 57"):
        poim_heatmap(res, 1, position_labels=[1, 2, 3])


def test_ticks_stay_legible_for_long_sequences():
    res = _result(length=1000, max_order=1)
    ax = poim_heatmap(res, 1)
    ax.figure.canvas.draw()
    ticks = [t for t in ax.get_xticks() if 0.5 <= t <= 1000.5]
    assert 4 <= len(ticks) <= 13 and all(float(t).is_integer() for t in ticks)


def test_bad_order_and_measure():
    res = _result()
    with pytest.raises(SeqimpError, match=r"order must lie in 1..4 \(the result's max_order\), got 5"):
        poim_heatmap(res, 5)
    with pytest.raises(SeqimpError, match=r"measure must be one of 'poim', 'firm', got 'weight'"):
        poim_heatmap(res, 1, measure="weight")


def test_differential_heatmap_shows_the_differential_poim():
    res = _result()
    ax = differential_heatmap(res)
    data = ax.images[0].get_array()
    np.testing.assert_array_equal(data.filled(np.nan), res.differential)
    assert data.mask[3, -1] and not data.mask[0, -1]  # j > L-k is undefined
    norm = ax.images[0].norm
    assert norm.vmin == -norm.vmax
    assert ax.get_ylim() == (0.5, 4.5) and ax.get_xlim() == (0.5, 12.5)


def test_weights_vs_firm_plots_every_pair():
    res = _result(max_order=3)
    rng = np.random.default_rng(1)
    weights = PositionalWeights([rng.normal(size=(12 - k + 1, 4 ** k)) for k in (1, 2)])
    ax = weights_vs_firm(weights, res, annotate=2)
    points = {tuple(np.round(p, 12)) for c in ax.collections for p in c.get_offsets()}
    expected = {(round(w, 12), round(f, 12)) for k in (1, 2)
                for w, f in zip(weights.tables[k - 1].ravel(), res.firm[k - 1].ravel())}
    assert points == expected
    # the two largest |FIRM| (over orders 1-2) are labelled with k-mer@1-based position
    flat = [(abs(res.firm[k - 1][j, z]), f"{_kmers(k)[z]}@{j + 1}") for k in (1, 2)
            for j in range(13 - k) for z in range(4 ** k)]
    assert sorted(t.get_text() for t in ax.texts) == sorted(name for _, name in sorted(flat)[-2:])


def test_weights_vs_firm_thins_large_orders_and_checks_lengths():
    res = _result(max_order=2)
    weights = PositionalWeights([np.ones((12, 4)), np.zeros((11, 16))])
    ax = weights_vs_firm(weights, res, orders=[2], max_points=10, annotate=0)
    assert len(ax.collections[0].get_offsets()) == 10
    assert "166 near 0 not drawn" in ax.get_legend().get_texts()[0].get_text()
    with pytest.raises(SeqimpError, match=r"order 3 is not in 1..2"):
        weights_vs_firm(weights, res, orders=[3])
    with pytest.raises(SeqimpError, match=r"weights have length 11, the POIM result 12"):
        weights_vs_firm(PositionalWeights([np.ones((11, 4))]), res)


def test_maximal_heatmap_shows_the_maximal_poim_of_both_result_kinds():
    from seqimp.importance import StreamedPOIM
    from seqimp.plot import maximal_heatmap

    rng = np.random.default_rng(5)
    w = PositionalWeights([rng.normal(size=(12 - k + 1, 4**k)) for k in (1, 2, 3)])
    res = poim(w, MarkovBackground.uniform(12), 3)
    for r in (res, StreamedPOIM.from_result(res)):
        ax = maximal_heatmap(r, ax=None)
        shown = np.ma.filled(ax.images[0].get_array(), np.nan)
        np.testing.assert_allclose(shown, res.maximal, rtol=0, atol=1e-12, equal_nan=True)
        assert ax.get_title() == "Maximal POIM"
        plt.close(ax.figure)


def test_poim_heatmap_of_a_streamed_result_draws_kept_orders_and_refuses_higher_ones():
    """A streamed result draws the same heatmap as the in-memory one for k <= 4 (its tables are
    kept) and says in one line that higher orders are not kept (no IndexError)."""
    rng = np.random.default_rng(6)
    w = PositionalWeights([rng.normal(size=(12 - k + 1, 4**k)) for k in (1, 2, 3)])
    bg = MarkovBackground.uniform(12, order=1)
    ref = poim(w, bg, 6, engine="memory")
    res = poim(w, bg, 6, engine="stream", top_n=50)
    for k in (1, 4):
        shown = poim_heatmap(res, k, measure="firm").images[0].get_array().filled(np.nan)
        want = poim_heatmap(ref, k, measure="firm").images[0].get_array().filled(np.nan)
        np.testing.assert_allclose(shown, want, rtol=0, atol=1e-10)
    with pytest.raises(SeqimpError, match=r"^order 6 tables are not kept: a streamed POIM keeps full tables for k <= 4; "
                                          r"rerun with full_tables=PATH \(--full-tables\)"):
        poim_heatmap(res, 6)
    with pytest.raises(SeqimpError, match=r"^order 5 tables are not kept"):
        weights_vs_firm(PositionalWeights([rng.normal(size=(12 - k + 1, 4**k)) for k in range(1, 6)]), res)
