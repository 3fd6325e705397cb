"""Sites of a PWM in sequences: log-odds scores of windows, the site threshold calibrated on
the negatives, the best window of every sequence.

:func:`seqimp.motifs.refine_motifs` fits every motif's PWM (EM) and then counts its sites
with these: a sequence's score is its best log2-odds window (both strands with
``strands=("+", "-")``); it has a site when that score passes the threshold that at most a
share ``fpr`` of the negatives pass (:func:`site_threshold`, :func:`has_site`).

Codes are letter indices (0..3 for A, C, G, T) of shape (n, L); ``starts`` are the 0-based
starts of the windows searched, ``strands`` a tuple of ``"+"``/``"-"``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["window_letters", "site_scores", "site_threshold", "has_site", "best_windows"]


def window_letters(codes, starts, m, strand):
    """Letters of every window of length ``m``: shape (n, len(starts), m); the reverse
    complement for ``strand="-"``."""
    idx = starts[:, None] + np.arange(m)[None, :]
    x = codes[:, idx]
    return 3 - x[:, :, ::-1] if strand == "-" else x


def site_scores(pwm, codes, starts, strands, background):
    """log2-odds scores of every window and strand: shape (n, len(starts), len(strands)).

    ``log2 P(window | PWM on that strand) - log2 P(window | background)``: on the ``-`` strand
    the PWM's reverse complement reads the window; the background term is the same.
    ``pwm`` has shape (m, 4), ``background`` shape (4,).
    """
    logp = np.log2(pwm)
    m = pwm.shape[0]
    # the background of the letters in the sequence (the same for both strands)
    null = np.log2(background)[window_letters(codes, starts, m, "+")].sum(axis=2)
    out = np.empty((codes.shape[0], starts.size, len(strands)))
    for s, strand in enumerate(strands):
        x = window_letters(codes, starts, m, strand)
        out[:, :, s] = logp[np.arange(m)[None, None, :], x].sum(axis=2) - null
    return out


def site_threshold(neg_best, fpr):
    """The site threshold from the negatives' best scores ``neg_best`` (shape (n,)): a score
    above the (k+1)-th largest negative score (k = floor(fpr n)), so that at most a share
    ``fpr`` of the negatives has a site -- ``(threshold, False)``, sites score above it. Where
    that score is already the largest one (a short motif whose best match occurs by chance in
    more than ``fpr`` of the negatives), sites are the windows reaching it -- ``(threshold,
    True)`` -- and the negatives' real share is reported."""
    vals = np.sort(neg_best)
    k = int(np.floor(fpr * vals.size))
    threshold = float(vals[vals.size - k - 1])
    return threshold, bool(threshold >= vals[-1])


def has_site(best, threshold, inclusive):
    """Which best-window scores (shape (n,)) make a site under :func:`site_threshold`'s
    ``(threshold, inclusive)``: boolean, shape (n,)."""
    return best >= threshold if inclusive else best > threshold


def best_windows(pwm, codes, starts, strands, background, claimed):
    """Best window of every sequence: ``(score, start, strand)``, each of shape (n,): the
    log2-odds score, the 0-based start and the index into ``strands``. Places overlapping
    ``claimed`` positions (boolean, shape (n, L), or None) are skipped."""
    scores = site_scores(pwm, codes, starts, strands, background)
    if claimed is not None:
        idx = starts[:, None] + np.arange(pwm.shape[0])[None, :]
        scores[claimed[:, idx].any(axis=2)] = -np.inf
    flat = scores.reshape(len(codes), -1)
    k = flat.argmax(axis=1)
    return flat[np.arange(len(codes)), k], starts[k // len(strands)], k % len(strands)
