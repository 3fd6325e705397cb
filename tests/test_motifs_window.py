"""A motif that discovery reports as position-free although its sites sit at one place (a weak
motif at 30 +- 1, the generated weaklong/few sets in small): refinement gives it the window
its sites occupy, and its sites are those of a plain count over that window; a motif planted
anywhere stays position-free."""

import numpy as np
from test_motifs_composite import _codes, _plain_sites, _rc

from seqimp.motifs import Motif, refine_motifs

WORD = "TTACGTAAGC"


def _planted_set(anywhere, seed=5, n=200, L=80, share=0.6, purity=0.7):
    """Positives: WORD (each letter kept with ``purity``, else a random one) in a share of
    them, at 0-based 29..31 or (``anywhere``) at any start, on a random strand; negatives:
    random letters."""
    rng = np.random.default_rng(seed)
    pos, neg = rng.integers(0, 4, (n, L)).astype(np.uint8), rng.integers(0, 4, (n, L)).astype(np.uint8)
    for i in np.flatnonzero(rng.random(n) < share):
        site = _codes(WORD if rng.random() < 0.5 else _rc(WORD))
        noisy = rng.random(len(site)) > purity
        site[noisy] = rng.integers(0, 4, int(noisy.sum()))
        s = int(rng.integers(0, L - len(site) + 1)) if anywhere else 29 + int(rng.integers(-1, 2))
        pos[i, s:s + len(site)] = site
    return pos, neg


def _candidate():
    return Motif.from_consensus("word", WORD, purity=0.8, start=1, position_free=True)


def test_a_placed_motif_reported_position_free_gets_its_window():
    pos, neg = _planted_set(anywhere=False)
    res = refine_motifs([_candidate()], pos, neg, strand="both", held_out=False)
    motif, row = res.motifs[0], res.stats.iloc[0]
    first, last = int(row["window_start"]) - 1, int(row["window_end"]) - 1
    L, m = pos.shape[1], motif.length
    assert not motif.position_free and last - first + 1 < L - m + 1
    assert first <= 26 and last >= 32  # the planted starts 28..30, give or take the PWM's shift
    assert abs(motif.start - 30) <= 3
    # the sites are the plain count's over that window, and more than over every start
    assert row["sites"] == _plain_sites(motif.pwm, pos, neg, first, last)
    assert row["sites"] > _plain_sites(motif.pwm, pos, neg, 0, L - m)


def test_a_motif_anywhere_stays_position_free():
    pos, neg = _planted_set(anywhere=True)
    res = refine_motifs([_candidate()], pos, neg, strand="both", held_out=False)
    row = res.stats.iloc[0]
    assert res.motifs[0].position_free
    assert row["window_start"] == 1 and row["window_end"] == pos.shape[1] - res.motifs[0].length + 1
