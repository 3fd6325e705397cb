"""seqimp.motifs.scan_sequences: exact p-values against enumeration of every word, sites on
both strands against a slow scan, q-values against the BH/Storey definitions."""

import itertools

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, scan_sequences
from seqimp.motifs.known._scan import score_matrix, score_pvalues
from seqimp.motifs.known._scan import SCALE, pvalue_threshold


def _motif(seed=1, width=5, name="m1"):
    rng = np.random.default_rng(seed)
    return Motif(name, rng.dirichlet(np.full(4, 0.5), size=width))


def _enumerated_pvalues(matrix, bg):
    """P(score >= s) for every word's score s: all 4**w words weighted by the background."""
    w = matrix.shape[0]
    words = np.array(list(itertools.product(range(4), repeat=w)))
    scores = matrix[np.arange(w), words].sum(axis=1)
    weights = bg[words].prod(axis=1)
    pvalue = {}
    total = 0.0
    for s in np.unique(scores)[::-1]:
        total += weights[scores == s].sum()
        pvalue[int(s)] = total
    return words, scores, pvalue


@pytest.mark.parametrize("bg", [np.full(4, 0.25), np.array([0.35, 0.15, 0.2, 0.3])])
@pytest.mark.parametrize("seed", [1, 2])
def test_pvalues_equal_exhaustive_enumeration(bg, seed):
    motif = _motif(seed, width=5)
    matrix = score_matrix(motif, bg)
    low, tail = score_pvalues(matrix, bg)
    _, scores, pvalue = _enumerated_pvalues(matrix, bg)
    for s, p in pvalue.items():
        assert tail[s - low] == pytest.approx(p, rel=1e-12, abs=1e-15)
    assert tail[0] == pytest.approx(1.0, abs=1e-12)


def test_scan_hits_against_slow_scan():
    motif = _motif(3, width=4)
    bg = np.array([0.3, 0.2, 0.2, 0.3])
    rng = np.random.default_rng(0)
    seqs = ["".join(rng.choice(list("ACGT"), size=n)) for n in rng.integers(2, 40, size=40)]
    seqs[5] = seqs[5][:3] + "N" + seqs[5][4:]
    hits = scan_sequences(motif, seqs, background=bg, threshold=0.05)
    # slow: every window, both strands, p-values by enumeration of the words
    plus = score_matrix(motif, bg)
    minus = score_matrix(motif.reverse_complement(), bg)
    _, _, p_plus = _enumerated_pvalues(plus, bg)
    _, _, p_minus = _enumerated_pvalues(minus, bg)
    expected, tests = set(), 0
    for r, s in enumerate(seqs):
        for i in range(len(s) - 3):
            word = s[i:i + 4]
            if "N" in word:
                continue
            x = ["ACGT".index(c) for c in word]
            for strand, mat, table in (("+", plus, p_plus), ("-", minus, p_minus)):
                tests += 1
                score = int(mat[np.arange(4), x].sum())
                if table[score] <= 0.05:
                    expected.add((r, i + 1, strand, round(score / SCALE, 6), round(table[score], 12)))
    got = {(r, p, s, round(sc, 6), round(pv, 12)) for r, p, s, sc, pv in
           hits[["sequence", "position", "strand", "score", "p_value"]].itertuples(index=False)}
    assert got == expected
    assert hits.attrs["tests"]["m1"] == tests
    # BH over every test: q_i = min_{j >= i} p_(j) N / j
    p = np.sort(hits["p_value"].to_numpy())
    q = np.minimum(np.minimum.accumulate((p * tests / np.arange(1, p.size + 1))[::-1])[::-1], 1)
    np.testing.assert_allclose(np.sort(hits["q_value"].to_numpy()), q, rtol=1e-12)
    # the matched text of a '-' site is the reverse complement of the window
    row = hits[hits["strand"] == "-"].iloc[0]
    window = seqs[row["sequence"]][row["position"] - 1:row["position"] + 3]
    assert row["matched"] == window[::-1].translate(str.maketrans("ACGT", "TGCA"))


def test_storey_qvalues_scale_bh_by_pi0():
    motif = _motif(4, width=6)
    rng = np.random.default_rng(1)
    seqs = ["".join(rng.choice(list("ACGT"), size=60)) for _ in range(30)]
    bh = scan_sequences(motif, seqs, threshold=0.01)
    st = scan_sequences(motif, seqs, threshold=0.01, q_method="storey")
    pi0 = st.attrs["pi0"]["m1"]
    assert 0 < pi0 <= 1
    np.testing.assert_allclose(st["q_value"], np.minimum(bh["q_value"] * pi0, 1), rtol=1e-12)


def test_planted_site_is_found_with_small_p():
    motif = Motif.from_consensus("site", "TGACTCAGCA", purity=0.97)
    rng = np.random.default_rng(5)
    seqs = ["".join(rng.choice(list("ACGT"), size=50)) for _ in range(10)]
    seqs[3] = seqs[3][:20] + "TGCTGAGTCA" + seqs[3][30:]  # reverse complement of the consensus
    hits = scan_sequences(motif, seqs, threshold=1e-4)
    top = hits.iloc[0]
    assert (top["sequence"], top["position"], top["strand"]) == (3, 21, "-")
    assert top["p_value"] == pytest.approx(0.25 ** 10, rel=0.01)  # the best word is one of 4**10
    assert top["q_value"] < 0.05


def test_threshold_score_and_bad_input():
    motif = _motif(2)
    low, tail = score_pvalues(score_matrix(motif, np.full(4, 0.25)), np.full(4, 0.25))
    cut = pvalue_threshold(low, tail, 0.01)
    assert tail[cut - low] <= 0.01 < tail[cut - low - 1]
    with pytest.raises(SeqimpError, match="threshold must be"):
        scan_sequences(motif, ["ACGTACGT"], threshold=0)
    with pytest.raises(SeqimpError, match="no motifs to scan"):
        scan_sequences([], ["ACGT"])
    with pytest.raises(SeqimpError, match="background must be 4 positive"):
        scan_sequences(motif, ["ACGT"], background=[1, 0, 0, 0])


def test_bed_scores_are_integers_0_to_1000():
    from seqimp.io._bed import bed_scores
    from seqimp.pipeline._scan_run import pvalue_bed_score

    assert bed_scores([0, 500, 1000]).tolist() == [0, 500, 1000]          # already BED scores: kept
    assert bed_scores([0.5, -0.25, float("nan")]).tolist() == [1000, 500, 0]  # scaled by the largest |v|
    assert pvalue_bed_score([1e-4, 1e-12, 0.5, 0.0]).tolist() == [400, 1000, 30, 1000]
