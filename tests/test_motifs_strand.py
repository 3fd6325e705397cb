"""A motif whose sites lie on one strand is called on that strand (refine_motifs with
strand="both"): the threshold then comes from the negatives' given strand alone, and the
choice is recorded in the ``strand`` column; a motif on both strands stays called on both."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from seqimp.motifs import Motif, refine_motifs
from seqimp.motifs._refine import ONE_STRAND_PVALUE, one_strand
from seqimp.motifs._sites import site_scores

SITE = "TTTCCCTGCAGGTA"  # not its own reverse complement


def _binomial_two_sided(plus, n):
    """2 P(X <= min(plus, n - plus)), X ~ Bin(n, 1/2), by the sum of the binomial terms."""
    low = min(plus, n - plus)
    return min(1.0, 2.0 * sum(comb(n, k) for k in range(low + 1)) / 2.0 ** n)


@pytest.mark.parametrize("n", [0, 1, 10, 11, 15, 40, 80, 300])
def test_one_strand_is_the_two_sided_binomial_test_at_its_level(n):
    for plus in range(n + 1):
        expected = n > 0 and _binomial_two_sided(plus, n) <= ONE_STRAND_PVALUE
        assert one_strand(plus, n) == expected, (plus, n)
    if n:
        assert one_strand(n, n) == (n >= 11)  # 2 / 2**n <= 1e-3 from 11 sites on


def _set(seed, strands, n=300, L=60, share=0.5):
    """Positives with SITE (letters drawn anew at 30%) at 20 +- 3 in ``share`` of them, on the
    given strand only (``strands="+"``) or on either; negatives without."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(2 * n, L)).astype(np.uint8)
    code = np.array(["ACGT".index(c) for c in SITE], dtype=np.uint8)
    for i in rng.choice(n, int(share * n), replace=False):
        site = np.where(rng.random(code.size) < 0.3, rng.integers(0, 4, code.size), code).astype(np.uint8)
        if strands == "both" and rng.random() < 0.5:
            site = (3 - site)[::-1]
        s = 20 + int(rng.integers(-3, 4))
        X[i, s:s + code.size] = site
    return X[:n], X[n:]


def _seed():
    return Motif.from_consensus("m", SITE, purity=0.8, start=21, spread=2.0)


def test_a_one_strand_motif_is_called_on_its_strand():
    pos, neg = _set(3, "+")
    both = refine_motifs([_seed()], pos, neg, strand="both", held_out=True)
    given = refine_motifs([_seed()], pos, neg, strand="given", held_out=True)
    row, ref = both.stats.iloc[0], given.stats.iloc[0]
    assert row["strand"] == "given" and ref["strand"] == "given"
    assert row["plus_strand"] == 1.0
    # its sites: those of its PWM on the given strand alone, at the threshold of the negatives'
    # given strand (k = floor(0.01 n) of them may score above it), recounted over every window
    pwm, (lo, hi) = both.motifs[0].pwm, (int(row["window_start"]) - 1, int(row["window_end"]))
    starts = np.arange(lo, hi)
    background = np.bincount(neg.ravel(), minlength=4) + 1.0
    scores = [site_scores(pwm, x, starts, ("+",), background / background.sum())[:, :, 0] for x in (pos, neg)]
    threshold = np.sort(scores[1].max(axis=1))[len(neg) - int(0.01 * len(neg)) - 1]
    assert row["threshold"] == pytest.approx(threshold, abs=1e-9)
    hits = np.flatnonzero(scores[0].max(axis=1) > threshold)
    assert list(both.sites["sequence"]) == list(hits)
    assert list(both.sites["position"]) == list(starts[scores[0][hits].argmax(axis=1)] + 1)
    assert set(both.sites["strand"]) == {"+"}
    assert abs(int(row["sites"]) - int(ref["sites"])) <= 5  # as many as the run on the given strand (131, 131)
    # called on both strands, the threshold counts both strands of the negatives: fewer sites
    from seqimp.motifs import _refine

    saved = _refine.one_strand
    _refine.one_strand = lambda plus, n: False
    try:
        old = refine_motifs([_seed()], pos, neg, strand="both", held_out=False).stats.iloc[0]
    finally:
        _refine.one_strand = saved
    assert old["strand"] == "both" and old["sites"] + 10 <= row["sites"]  # 108 against 131


def test_a_motif_on_both_strands_stays_called_on_both():
    pos, neg = _set(2, "both")
    out = refine_motifs([_seed()], pos, neg, strand="both", held_out=False)
    row = out.stats.iloc[0]
    assert row["strand"] == "both"
    assert 0.3 < row["plus_strand"] < 0.7
    assert set(out.sites["strand"]) == {"+", "-"}
    assert not one_strand(round(row["plus_strand"] * row["sites"]), row["sites"])


def test_a_one_strand_motif_is_masked_on_its_strand():
    """Explaining a one-strand motif away erases the negatives' sites on the strand it was called
    on, at that strand's threshold: the same as masking on the + strand, whatever the run's strands."""
    from seqimp.motifs._sites import has_site, mask_sites

    pos, neg = _set(3, "+")
    out = refine_motifs([_seed()], pos, neg, strand="both", held_out=False)
    motif, row = out.motifs[0], out.stats.iloc[0].to_dict()
    assert row["strand"] == "given"
    masked = {}
    for strands in (("+", "-"), ("+",)):
        p, n = pos.copy(), neg.copy()
        counts = mask_sites(motif, row, p, n, out.sites, strands=strands, random_state=0)
        masked[strands] = (counts, p, n)
    (counts, p, n), (ref_counts, ref_p, ref_n) = masked[("+", "-")], masked[("+",)]
    assert counts == ref_counts
    np.testing.assert_array_equal(p, ref_p)
    np.testing.assert_array_equal(n, ref_n)
    # the negatives erased: those whose best + strand window passes the threshold, by site_scores
    starts = np.arange(int(row["window_start"]) - 1, int(row["window_end"]))
    background = np.bincount(neg.ravel(), minlength=5)[:4] + 1.0
    best = site_scores(motif.pwm, neg, starts, ("+",), background / background.sum()).max(axis=(1, 2))
    hit = np.flatnonzero(has_site(best, row["threshold"], row["inclusive"]))
    assert counts[1] == len(hit) and list(np.flatnonzero((n != neg).any(axis=1))) == list(hit)
    # read on both strands against that + strand threshold, more negatives would pass
    both = site_scores(motif.pwm, neg, starts, ("+", "-"), background / background.sum()).max(axis=(1, 2))
    assert int(has_site(both, row["threshold"], row["inclusive"]).sum()) > len(hit)
