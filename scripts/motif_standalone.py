"""Motifs that stand alone (docs/benchmarks/motifs.md): four generated kinds of set on which a
motif's PWM is scanned over whole sequences, and the "PWM alone at 1% FPR" figure of both tools.

Kinds (``--scenarios standalone`` of ``scripts/eval_motif_recovery.py``):

* ``gcrich`` -- GC-rich promoter-like background (first-order chain, 62% GC, CpG kept), SP1
  (MA0079.5) at 100 +- 20 in half of 1,000 positives of 200 nt;
* ``shuffled`` -- positives only: CTCF (MA0139.2) at 100 +- 30 in every one of 1,000 positives of
  200 nt (human-like background), the negatives their dinucleotide shuffles;
* ``repeats`` -- (CA)n (12-24 nt) and poly-A (10-20 nt) repeats anywhere in half of the
  sequences of both classes each, YY1 (MA0095.4) at 50 +- 5 in 60% of 1,000 positives of 100 nt;
* ``atac`` -- ATAC-like 500-nt peaks: HNF1A (MA0046.3) anywhere in 30% of 1,000 positives.

"PWM alone at 1% FPR" (:func:`pwm_alone_sites`): the reported PWM (motifs.meme, STREME's
streme.txt) scanned over every window of both strands, each window scored against the
negatives' order-2 Markov background counted on both strands (as STREME scores and as seqimp
writes background.txt); a positive has a hit when its best window scores above the (k+1)-th
best negative's, k = floor(0.01 n) -- so at most 1% of the negatives have one (a PWM whose best
word alone is in more of them recalls nothing) -- and the hit counts for a planted site it
overlaps.
"""

from __future__ import annotations

import numpy as np

from scenario_sets import TRANSITIONS, _paste, _site, jaspar, write_scenario

STANDALONE = {  # kind: (JASPAR IDs, sequences per class, length, description)
    "gcrich": (("MA0079.5",), 1000, 200, "SP1 at 100+-20 in 50% of GC-rich promoters (200 nt)"),
    "shuffled": (("MA0139.2",), 1000, 200, "CTCF at 100+-30 in all positives; negatives their dinucleotide shuffles"),
    "repeats": (("MA0095.4",), 1000, 100, "YY1 at 50+-5 in 60%; (CA)n and poly-A repeats in both classes"),
    "atac": (("MA0046.3",), 1000, 500, "HNF1A anywhere in 30% of 500-nt peaks"),
}

# GC-rich first-order chain (rows: previous letter A, C, G, T), CpG not depleted; written here
_GC_RICH = np.array([[0.22, 0.28, 0.32, 0.18],
                     [0.17, 0.33, 0.30, 0.20],
                     [0.20, 0.32, 0.31, 0.17],
                     [0.14, 0.30, 0.34, 0.22]])


def _chain(rng, transitions, n, L):
    stationary = np.full(4, 0.25) @ np.linalg.matrix_power(transitions, 50)
    X = np.empty((n, L), dtype=np.uint8)
    X[:, 0] = rng.choice(4, size=n, p=stationary)
    cum = np.cumsum(transitions, axis=1)
    for j in range(1, L):
        X[:, j] = (rng.random((n, 1)) > cum[X[:, j - 1]]).sum(axis=1)
    return X


def _repeats(rng, X):
    """(CA)n in half of the rows, poly-A in another half (independently), at random places."""
    n, L = X.shape
    for i in np.flatnonzero(rng.random(n) < 0.5):
        size = 2 * int(rng.integers(6, 13))
        s = int(rng.integers(0, L - size + 1))
        X[i, s:s + size] = np.tile([1, 0], size // 2)  # CACA...
    for i in np.flatnonzero(rng.random(n) < 0.5):
        size = int(rng.integers(10, 21))
        s = int(rng.integers(0, L - size + 1))
        X[i, s:s + size] = 0


def generate_standalone(kind, seed, out, shared, database=None):
    """Write a set of ``kind`` (:data:`STANDALONE`) with ``seed`` into ``out``: a
    :class:`scenario_sets.Scenario`."""
    from seqimp.io import dinucleotide_shuffle

    ids, n, L, note = STANDALONE[kind]
    database = jaspar(shared) if database is None else database
    pwm = next(x for x in database if x.name.split("_")[0] == ids[0]).pwm
    m = len(pwm)
    rng = np.random.default_rng([seed, 100 + list(STANDALONE).index(kind)])
    pos = _chain(rng, _GC_RICH if kind == "gcrich" else TRANSITIONS, n, L)
    neg = _chain(rng, _GC_RICH if kind == "gcrich" else TRANSITIONS, n, L)
    if kind == "repeats":
        _repeats(rng, pos)
        _repeats(rng, neg)
    share, centre, jitter = {"gcrich": (0.5, 100, 20), "shuffled": (1.0, 100, 30), "repeats": (0.6, 50, 5),
                             "atac": (0.3, None, None)}[kind]
    rows = []
    for i in np.sort(rng.choice(n, size=int(share * n), replace=False)):
        if centre is None:
            s = int(rng.integers(0, L - m + 1))
        else:
            s = centre - 1 - m // 2 + int(rng.integers(-jitter, jitter + 1))
        _paste(pos, int(i), s, _site(rng, pwm), "+" if rng.random() < 0.5 else "-")
        rows.append((int(i), ids[0], s + 1, s + m))
    if kind == "shuffled":
        neg = dinucleotide_shuffle(pos, random_state=rng)
    return write_scenario(out, kind, seed, pos, neg, rows, database, anywhere=ids if kind == "atac" else (),
                          note=note)


def pwm_alone_sites(motif, pos, neg, fpr=0.01, order=2, background=None):
    """The hits of a PWM alone (module docstring): a table with ``sequence, position, length``
    of the positives whose best window (either strand, every start) scores above the (k+1)-th
    best negative's, against the negatives' order-``order`` Markov background (or ``background``,
    a :class:`seqimp.background.SiteBackground`, where given)."""
    import pandas as pd

    from seqimp.background import SiteBackground
    from seqimp.motifs._scanning_pwm import strict_threshold
    from seqimp.motifs._sites import best_windows

    background = SiteBackground.fit(neg, order) if background is None else background
    starts = np.arange(pos.shape[1] - motif.length + 1)
    neg_best, _at, _on = best_windows(motif.pwm, neg, starts, ("+", "-"), background, None)
    best, at, _on = best_windows(motif.pwm, pos, starts, ("+", "-"), background, None)
    hit = np.flatnonzero(best > strict_threshold(neg_best, fpr))
    return pd.DataFrame({"sequence": hit, "position": at[hit] + 1, "length": motif.length})
