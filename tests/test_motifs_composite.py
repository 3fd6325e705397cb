"""A composite motif (two halves and a gap) in positives whose negatives carry single halves
(motif_benchmark_2/composite in small): a candidate that is not reported -- the half, depleted
in the positives or not enriched there -- must not take the composite's sites away. The
composite's sites are checked against a plain count: every window and strand of the search
window scored by loops, the threshold that 1% of the negatives pass."""

import numpy as np

from seqimp.motifs import Motif, refine_motifs

LEFT, RIGHT = "ACCGGAAGT", "TGTGGTT"
COMP = str.maketrans("ACGT", "TGCA")


def _codes(text):
    return np.array(["ACGT".index(c) for c in text], dtype=np.uint8)


def _rc(word):
    return word.translate(COMP)[::-1]


def _composite_set(seed=3, n=300, L=60, start=20):
    """Positives: LEFT + 2 random letters + RIGHT at 0-based ``start`` on a random strand;
    negatives: LEFT alone at a random place and strand (so the half is everywhere in them)."""
    rng = np.random.default_rng(seed)
    pos, neg = rng.integers(0, 4, (n, L)).astype(np.uint8), rng.integers(0, 4, (n, L)).astype(np.uint8)
    for i in range(n):
        unit = LEFT + "".join("ACGT"[c] for c in rng.integers(0, 4, 2)) + RIGHT
        unit = unit if rng.random() < 0.5 else _rc(unit)
        pos[i, start:start + len(unit)] = _codes(unit)
        half = LEFT if rng.random() < 0.5 else _rc(LEFT)
        s = int(rng.integers(0, L - len(half) + 1))
        neg[i, s:s + len(half)] = _codes(half)
    return pos, neg


def _plain_sites(pwm, pos, neg, first, last, fpr=0.01):
    """Positives with a site, by loops: best log2-odds window over the 0-based starts
    ``first..last`` on both strands against the negatives' letter frequencies (one pseudocount
    per letter; the null is the window's letters on either strand, as ``site_scores``), above
    the (k+1)-th largest negative best score, k = floor(fpr n)."""
    counts = np.bincount(neg.ravel(), minlength=4)[:4] + 1.0
    bg = counts / counts.sum()
    m = len(pwm)

    def best(x):
        top = -np.inf
        for s in range(first, last + 1):
            w = x[s:s + m]
            null = sum(np.log2(bg[w[c]]) for c in range(m))  # the window's letters, either strand
            plus = sum(np.log2(pwm[c, w[c]]) for c in range(m)) - null
            minus = sum(np.log2(pwm[c, 3 - w[m - 1 - c]]) for c in range(m)) - null
            top = max(top, plus, minus)
        return top

    neg_best = sorted(best(x) for x in neg)
    threshold = neg_best[len(neg_best) - int(np.floor(fpr * len(neg_best))) - 1]
    return sum(best(x) > threshold for x in pos)


def _candidates(direction):
    half = Motif.from_consensus("half", LEFT, purity=0.8, start=1, position_free=True, direction=direction)
    unit = Motif.from_consensus("unit", LEFT + "AA" + RIGHT, purity=0.8, start=21)
    unit.pwm[9:11] = 0.25  # the gap: any letter
    return [half, unit]


def test_a_depleted_candidate_does_not_take_the_composite_sites():
    pos, neg = _composite_set()
    res = refine_motifs(_candidates("depleted"), pos, neg, strand="both", held_out=False)
    half, unit = res.stats.to_dict("records")
    # the case that matters: the half's best windows in the positives lie on the composite
    on_unit = res.sites[(res.sites["motif"] == "half") & res.sites["position"].between(18, 32)]
    assert half["sites"] >= 20 and len(on_unit) >= 20
    # yet every composite site counts, as a plain count with its PWM and window finds them
    expected = _plain_sites(res.motifs[1].pwm, pos, neg, unit["window_start"] - 1, unit["window_end"] - 1)
    assert unit["sites"] == expected and unit["taken_sites"] == 0
    assert unit["sites"] >= 0.95 * len(pos)
    alone = refine_motifs(_candidates("depleted")[1:], pos, neg, strand="both", held_out=False)
    assert alone.stats["sites"].iloc[0] == unit["sites"]


def test_only_a_candidate_whose_p_value_passes_claims_its_sites():
    """The half as an enriched candidate, kept a half (no growing): in every positive and every
    negative. Searched where the positives hold it (refinement places the position-free
    candidate there, ``tests/test_motifs_window.py``) its sites lie on one strand there and are
    called and fitted on it (226 positives against 3 negatives, p = 2e-94), but they are fewer than
    the composite's (300 against 3). Refined with a level it fails (1e-100) it claims nothing; with
    no level (every candidate tested) it claims the windows it passes in."""
    pos, neg = _composite_set()
    gated = refine_motifs(_candidates("enriched"), pos, neg, strand="both", held_out=False, max_grow=0,
                          max_held_out_pvalue=1e-100)
    half, unit = gated.stats.to_dict("records")
    assert half["p_value"] > 1e-100 and half["sites"] >= 10 and half["strand"] == "given"
    assert unit["strand"] == "both"
    expected = _plain_sites(gated.motifs[1].pwm, pos, neg, unit["window_start"] - 1, unit["window_end"] - 1)
    assert unit["sites"] == expected >= 0.95 * len(pos)
    ungated = refine_motifs(_candidates("enriched"), pos, neg, strand="both", held_out=False, max_grow=0)
    row = ungated.stats.iloc[1]
    assert row["taken_by"] == "half" and row["taken_sites"] >= 10 and row["sites"] < expected
    # what the half took leaves the composite's other orientation: the composite is still called on
    # both strands (its strands counted with those places open)
    assert row["strand"] == "both"
