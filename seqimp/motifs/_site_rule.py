"""The site rule, one for every caller (the site calls of :mod:`seqimp.motifs._sites`, the
refinement, the PWM tuning's numba trials in :mod:`seqimp.motifs._tune`): the threshold at rank k
of the negatives' sorted best scores and which scores pass it (:func:`site_threshold`,
:func:`has_site`, :func:`strict_threshold`), and the score at which the positives are most
enriched over a control (:func:`enrichment_threshold`, STREME's rule)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..errors import SeqimpError

__all__ = ["site_rank", "site_threshold", "has_site", "strict_threshold", "enrichment_threshold", "sites_passing"]


def site_rank(fpr, n) -> int:
    """k = floor(fpr n): how many of ``n`` negatives may score above the site threshold."""
    return int(np.floor(fpr * n))


@njit(cache=True)
def _cut(sorted_scores, k):
    """``(threshold, inclusive)`` of :func:`site_threshold` from the negatives' best scores sorted
    ascending and the rank ``k``."""
    threshold = sorted_scores[sorted_scores.size - k - 1]
    return threshold, threshold >= sorted_scores[sorted_scores.size - 1]


@njit(cache=True, inline="always")
def _is_site(score, threshold, inclusive):
    """Whether a best-window score makes a site under ``(threshold, inclusive)``; ``-inf`` (no
    window without an unknown base) never does."""
    return score > threshold or (inclusive and score == threshold and score > -np.inf)


@njit(cache=True)
def _has_site(best, threshold, inclusive, out):
    for i in range(best.size):
        out[i] = _is_site(best[i], threshold, inclusive)


def site_threshold(neg_best, fpr):
    """The site threshold from the negatives' best scores ``neg_best`` (shape (n,)): a score
    above the (k+1)-th largest negative score (k = floor(fpr n)), so that at most a share
    ``fpr`` of the negatives has a site -- ``(threshold, False)``, sites score above it. Where
    that score is already the largest one (a short motif whose best match occurs by chance in
    more than ``fpr`` of the negatives), sites are the windows reaching it -- ``(threshold,
    True)`` -- and the negatives' real share is reported."""
    vals = np.sort(np.asarray(neg_best, dtype=np.float64).ravel())
    threshold, inclusive = _cut(vals, site_rank(fpr, vals.size))
    return float(threshold), bool(inclusive)


def has_site(best, threshold, inclusive):
    """Which best-window scores (shape (n,)) make a site under :func:`site_threshold`'s
    ``(threshold, inclusive)``: boolean, shape (n,)."""
    best = np.ascontiguousarray(best, dtype=np.float64)
    out = np.empty(best.shape, dtype=np.bool_)
    _has_site(best.ravel(), float(threshold), bool(inclusive), out.ravel())
    return out


def strict_threshold(neg_best, fpr) -> float:
    """The (k+1)-th largest of the negatives' best scores, k = floor(fpr n): scores above it are
    hits, and at most k negatives have one."""
    vals = np.sort(np.asarray(neg_best, dtype=np.float64).ravel())
    return float(vals[vals.size - site_rank(fpr, vals.size) - 1])


@njit(cache=True)
def _log_tail(k, total, marked, drawn):
    """Natural log of P(X >= k), X hypergeometric: ``drawn`` of ``total`` items of which
    ``marked`` are marked. The terms from k up are summed through the ratio of consecutive
    terms; past the mode they fall with a falling ratio (the law is log-concave), so the sum
    stops once the rest is bounded below 2**-60 of it."""
    hi = min(marked, drawn)
    lo = max(0, drawn - (total - marked))
    if k <= lo:
        return 0.0
    if k > hi:
        return -np.inf
    log_term = (math.lgamma(marked + 1) - math.lgamma(k + 1) - math.lgamma(marked - k + 1)
                + math.lgamma(total - marked + 1) - math.lgamma(drawn - k + 1)
                - math.lgamma(total - marked - drawn + k + 1)
                - math.lgamma(total + 1) + math.lgamma(drawn + 1) + math.lgamma(total - drawn + 1))
    term, acc, x = 1.0, 1.0, k  # in units of the first term
    while x < hi:
        ratio = (marked - x) * (drawn - x) / ((x + 1.0) * (total - marked - drawn + x + 1.0))
        term *= ratio
        acc += term
        x += 1
        if ratio < 1.0 and term * min(hi - x, 1.0 / (1.0 - ratio)) < acc * 2.0 ** -60:
            break
    return min(log_term + math.log(acc), 0.0)


@njit(cache=True)
def _tail_kernel(positives, drawn, total, n_pos, out):
    for j in range(positives.size):
        out[j] = _log_tail(positives[j], total, n_pos, drawn[j])


def enrichment_threshold(pos_best, control_best) -> tuple[float, float]:
    """``(threshold, log p)``: the score at which the positives are most enriched over the
    control, as STREME sets a motif's site threshold. For every distinct score ``t`` of the
    sequences' best scores (both sets), the positives scoring at least ``t`` against the
    sequences that do, under the hypergeometric law of drawing that many from the pooled
    sequences (the one-sided Fisher test of the 2 x 2 table; tails summed in numba,
    :func:`_log_tail`); the ``t`` of the smallest p-value (the highest such ``t`` on a tie) and
    that natural-log p-value. Sites: ``best >= threshold``. (scipy's ``hypergeom.logsf``, which
    :func:`seqimp.motifs._stats.fisher_log10`'s way of summing would mean at every ``t``, made a
    sharpening round on ``gen repeats`` take 16 s instead of 0.13 s.)"""
    pos_best = np.asarray(pos_best, dtype=np.float64).ravel()
    control_best = np.asarray(control_best, dtype=np.float64).ravel()
    if pos_best.size == 0 or control_best.size == 0:
        raise SeqimpError("enrichment_threshold: need best scores of at least one positive and one control sequence")
    scores = np.concatenate([pos_best, control_best])
    order = np.argsort(-scores, kind="stable")
    ranked = scores[order]
    positives = np.cumsum(order < pos_best.size)  # positives among the top j + 1
    last = np.flatnonzero(np.r_[ranked[1:] != ranked[:-1], True])  # the last of every score
    logp = np.empty(last.size)
    _tail_kernel(positives[last].astype(np.int64), (last + 1).astype(np.int64), scores.size, pos_best.size, logp)
    i = int(np.argmin(logp))  # the first, highest score among equal p-values
    return float(ranked[last[i]]), float(logp[i])


def sites_passing(pos_best, neg_best, fpr) -> int:
    """Positives whose best score passes the threshold that a share ``fpr`` of the negatives'
    best scores pass (:func:`site_threshold`, as sites are called)."""
    threshold, inclusive = site_threshold(neg_best, fpr)
    return int(has_site(pos_best, threshold, inclusive).sum())
