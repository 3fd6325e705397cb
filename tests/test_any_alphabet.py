"""Protein and RNA through the API: encode, WD models, backgrounds, exact POIM, heatmaps, logos;
what needs DNA says so in one line."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from seqimp import SeqimpError
from seqimp.background import MarkovBackground
from seqimp.importance import poim
from seqimp.io import PROTEIN, decode, encode, reverse_complement_codes
from seqimp.kernels import PositionalWeights, WDRegressor
from seqimp.motifs import discover_motifs
from seqimp.plot import differential_heatmap, importance_logo, letter_importance, logo, poim_heatmap, weights_vs_firm

matplotlib.use("Agg")
L = 12


@pytest.fixture(scope="module")
def protein():
    """Peptides whose value rises with 'KR' at 0-based 5; an exact POIM of a fitted WD regressor."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 20, size=(300, L)).astype(np.uint8)
    X[::2, 5:7] = encode(["KR"], "protein")[0]
    seqs = decode(X, "protein")
    y = (np.arange(300) % 2 == 0) * 2.0 + rng.normal(scale=0.3, size=300)
    model = WDRegressor(degree=2, alpha=1.0, alphabet="protein").fit(seqs, y)
    bg = MarkovBackground(order=1, alphabet="protein").fit(X)
    result = poim(model, bg, max_order=3)
    return seqs, model, result


def test_protein_encode_model_and_poim(protein):
    seqs, model, result = protein
    assert encode(seqs, "protein").shape == (300, L) and result.alphabet.name == "protein"
    assert result.poim[1].shape == (L - 1, 400) and result.poim[2].shape == (L - 2, 8000)
    top = result.top(1, measure="poim", order=2)
    assert (top["oligomer"][0], top["position"][0]) == ("KR", 6)
    assert result.differential.shape == (3, L)


def test_protein_heatmaps_have_readable_labels(protein):
    _, model, result = protein
    ax = poim_heatmap(result, 1)
    assert [t.get_text() for t in ax.get_yticklabels()] == list(PROTEIN.symbols)     # all 20 letters
    ax = poim_heatmap(result, 2)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 20 and "KR" in labels and all(len(t) == 2 for t in labels)   # top 20 of 400
    assert ax.yaxis.get_ticklabels()[0].get_fontsize() >= 7
    differential_heatmap(result)
    poim_heatmap(result, 3, top=10)
    ax = weights_vs_firm(model.positional_weights(), result, annotate=3)
    assert any("KR@6" in t.get_text() for t in ax.texts)
    plt.close("all")


def test_protein_and_rna_logos(protein):
    _, _, result = protein
    values = letter_importance(result, order=2)
    assert values.shape == (L, 20)
    assert PROTEIN.symbols[int(np.argmax(values[5]))] == "K"
    ax = importance_logo(result, order=1)
    assert ax.get_ylabel().startswith("POIM")
    pwm = np.full((4, 20), 0.01)
    pwm[np.arange(4), [8, 14, 8, 14]] = 0.81            # K R K R
    ax = logo(pwm)
    assert "KRKR" in ax.get_title() and ax.get_ylim()[1] == pytest.approx(np.log2(20))
    rna = logo(np.array([[0.97, 0.01, 0.01, 0.01], [0.01, 0.01, 0.01, 0.97]]), alphabet="rna")
    assert "AU" in rna.get_title()
    rng = np.random.default_rng(1)
    w = PositionalWeights([rng.normal(size=(8, 4))], alphabet="rna")
    importance_logo(poim(w, MarkovBackground.uniform(alphabet="rna"), 2), order=2)
    with pytest.raises(SeqimpError, match=r"the PWM has 4 columns, the alphabet 20 letters"):
        logo(np.full((2, 4), 0.25), alphabet="protein")
    plt.close("all")


def test_what_needs_dna_says_so(protein):
    _, _, result = protein
    with pytest.raises(SeqimpError, match=r"^motif discovery needs DNA sequences \(got protein\)$"):
        discover_motifs(result)
    with pytest.raises(SeqimpError, match=r"^the reverse complement needs DNA sequences \(got protein\)$"):
        reverse_complement_codes(np.zeros((1, 3), np.uint8), "protein")
    assert reverse_complement_codes(encode(["AACG"]))[0].tolist() == encode(["CGTT"])[0].tolist()


def test_reverse_complement_index_against_strings():
    from seqimp.io import kmer_index, kmer_string
    from seqimp.io._strand import reverse_complement_index

    for k in (1, 2, 4):
        table = reverse_complement_index(k)
        assert table.shape == (4 ** k,)
        for i in range(4 ** k):
            word = kmer_string(i, k)
            rc = word[::-1].translate(str.maketrans("ACGT", "TGCA"))
            assert table[i] == kmer_index(rc)
