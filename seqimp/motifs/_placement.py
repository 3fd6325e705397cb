"""Placing a motif that discovery reported as position-free: where its sites sit in a
positional window, the window, tested held out.

:func:`seqimp.motifs.refine_motifs` searches a position-free motif's sites over every start.
A motif whose sites in fact sit at one place (a weak motif whose POIM peaks are spread, or a
k-mer candidate of the gkm route) then competes with chance windows over the whole sequence:
the threshold that 1% of the negatives pass rises, and sites are lost (the generated
``few`` set, MEF2A at 40 +- 2: 35 of 75 positives over every start, 51 over its sites'
window). :func:`concentrated_window` gives it the window its sites occupy when that finds
sites better out of sample. ``tests/test_motifs_window.py`` checks it against a plain count.
"""

from __future__ import annotations

import numpy as np

from ._sites import best_windows, has_site, site_threshold
from ._stats import fisher_log10

__all__ = ["concentrated_window"]


def _site_window(pwm, pos, neg, starts, strands, background, fpr, flank):
    """The window where the sites of ``pwm`` in ``pos`` lie (searched over ``starts``, threshold
    from ``neg``): their median start +- (2 sd + ``flank``), as refinement places a positional
    motif, the sd estimated robustly (interquartile range / 1.349: the chance sites of a weak
    motif, anywhere in the sequence, would widen the sd itself to most of it); ``starts``
    itself with fewer than 2 sites. Returns 0-based starts, shape (W,)."""
    neg_best, _at, _ = best_windows(pwm, neg, starts, strands, background, None)
    best, at, _ = best_windows(pwm, pos, starts, strands, background, None)
    where = at[has_site(best, *site_threshold(neg_best, fpr))]
    if where.size < 2:
        return starts
    q1, q3 = np.percentile(where, [25, 75])
    reach = int(np.ceil(2 * (q3 - q1) / 1.349)) + int(flank)
    centre = int(np.median(where))
    return np.arange(max(centre - reach, int(starts[0])), min(centre + reach, int(starts[-1])) + 1)


def _hits(pwm, pos, neg, starts, strands, background, fpr):
    """Positives and negatives with a site of ``pwm`` over ``starts``, the threshold calibrated
    on ``neg``."""
    neg_best = best_windows(pwm, neg, starts, strands, background, None)[0]
    threshold, inclusive = site_threshold(neg_best, fpr)
    best = best_windows(pwm, pos, starts, strands, background, None)[0]
    return int(has_site(best, threshold, inclusive).sum()), int(has_site(neg_best, threshold, inclusive).sum())


def concentrated_window(pwm, pos, neg, starts, strands, background, fpr, flank):
    """The window of a motif that discovery reported as position-free but whose sites sit in a
    positional window (:func:`_site_window`), or every start ``starts`` where they do not.

    Tested out of sample, both ways over the halves of the sequences (sequence i in half
    i mod 2): the window is placed on one half's sites, and the other half's sites are counted
    over it and over every start, each with its own threshold calibrated on that half's
    negatives. The window is kept when its pooled Fisher p-value (sites in the positives
    against the negatives) is smaller than every start's: searching fewer places lowers the
    threshold, so a concentrated motif gains sites, a position-free one loses those outside.

    Parameters
    ----------
    pwm : ndarray of shape (m, 4)
    pos, neg : ndarray of shape (n, L), uint8
        The positives and negatives the motif is fitted on (letter codes).
    starts : ndarray of shape (L - m + 1,), int
        Every 0-based start.
    strands : tuple of str
        ``("+",)`` or ``("+", "-")``.
    background : ndarray of shape (4,)
        The negatives' letter frequencies (the null of the log-odds scores).
    fpr : float
        Share of the negatives with a site (the threshold).
    flank : int
        Starts added on each side beyond 2 sd.

    Returns
    -------
    ndarray of shape (W,), int
        The 0-based starts to search: the window, or ``starts``.
    """
    if min(len(pos), len(neg)) < 4:
        return starts
    half_pos, half_neg = np.arange(len(pos)) % 2, np.arange(len(neg)) % 2
    narrow, every = np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
    for h in range(2):
        fit_pos, fit_neg = pos[half_pos != h], neg[half_neg != h]
        test_pos, test_neg = pos[half_pos == h], neg[half_neg == h]
        window = _site_window(pwm, fit_pos, fit_neg, starts, strands, background, fpr, flank)
        if window.size == starts.size:
            return starts
        narrow += _hits(pwm, test_pos, test_neg, window, strands, background, fpr)
        every += _hits(pwm, test_pos, test_neg, starts, strands, background, fpr)
    n, k = len(pos), len(neg)
    log_narrow = fisher_log10(narrow[0], n - narrow[0], narrow[1], k - narrow[1], "greater")
    log_every = fisher_log10(every[0], n - every[0], every[1], k - every[1], "greater")
    if not log_narrow < log_every:
        return starts
    return _site_window(pwm, pos, neg, starts, strands, background, fpr, flank)
