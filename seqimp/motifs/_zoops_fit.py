"""The ZOOPS EM fit of one motif on the sequences: steps 1-3 of :mod:`seqimp.motifs._refine`
(EM from a sharpened seed, end columns grown and trimmed by their information against two
backgrounds, the window placed or widened) and step 5's refits on held-out halves.

:func:`fit_motif` takes one motif and the encoded sequences and returns the EM's PWM and the
0-based starts of its window; :func:`held_out_sites` counts the sites of the PWMs fitted on
one half of the sequences in the other half. :func:`seqimp.motifs.refine_motifs` is the
front door: it validates its input once and calls these.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._copies import holds_core
from ._motif import information_content
from ._placement import concentrated_window
from ._sites import best_site_scores, best_windows, em_step, has_site, site_threshold
from ._tune import tune_pwm

__all__ = ["FitOptions", "fit_motif", "held_out_sites", "letter_frequencies", "tuning_negatives"]


def _sharpen(pwm, target):
    """``pwm ** beta`` row-normalised, with beta chosen so that the mean IC is ``target`` bits."""
    p = np.clip(pwm, 1e-9, None)
    informative = information_content(pwm) > 1e-6
    if not informative.any():
        return pwm

    def mean_ic(beta):
        q = p ** beta
        q /= q.sum(axis=1, keepdims=True)
        return information_content(q)[informative].mean()

    if mean_ic(1.0) >= target:
        return pwm
    lo, hi = 1.0, 2.0
    while mean_ic(hi) < target and hi < 1e4:
        lo, hi = hi, 2 * hi
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if mean_ic(mid) < target else (lo, mid)
    q = p ** hi
    return q / q.sum(axis=1, keepdims=True)


def _em(pwm, codes, starts, strands, background, pseudocount, max_iter, tol, core=None):
    """ZOOPS EM from ``pwm``: ``(pwm, expected sites)``. With ``core`` (the seed's PWM) it stops
    before an iteration whose PWM no longer holds the seed's core (:func:`seqimp.motifs._copies.holds_core`)
    and returns the last one that is, with its own expected sites."""
    n = codes.shape[0]
    gamma, prev, mass = 0.5, -np.inf, 0.0
    for _ in range(max_iter):
        counts, loglik, mass = em_step(pwm, codes, starts, strands, background, gamma)  # posteriors under pwm
        new = (counts + pseudocount * background) / (counts.sum(axis=1, keepdims=True) + pseudocount)
        if core is not None and not holds_core(core, new):
            break
        pwm = new
        gamma = float(np.clip(mass / n, 1e-3, 1 - 1e-3))
        if loglik - prev < tol * abs(loglik):
            break
        prev = loglik
    return pwm, float(mass)


def _window(motif, m, L, pad, flank):
    if motif.position_free:
        return np.arange(0, L - m + 1)
    reach = int(np.ceil(2 * motif.spread)) + int(flank)
    centre = motif.start - 1 - pad
    lo, hi = max(centre - reach, 0), min(centre + reach, L - m)
    if hi < lo:
        lo = hi = min(max(centre, 0), L - m)
    return np.arange(lo, hi + 1)


def _informative(pwm, n_sites, background, min_ic, alpha):
    """Columns that carry a motif: at least ``min_ic`` bits relative to the background, and
    letter frequencies that differ from it significantly for ``n_sites`` sites (G-test,
    ``G = 2 n ln 2 IC`` against chi-square with 3 degrees of freedom, level ``alpha``). The
    second condition matters for few sites: the EM places a few dozen windows where they fit
    best, so noise columns reach a fraction of a bit."""
    from scipy.stats import chi2

    ic = information_content(pwm, background)
    return (ic >= min_ic) & (2.0 * n_sites * np.log(2.0) * ic >= chi2.isf(alpha, 3))


def _widen(pwm, pos, neg, starts, strands, background, fpr, flank, alpha):
    """The window grown by ``flank`` starts on a side while the sites at its outermost ``flank``
    starts on that side are enriched over the negatives' sites there (one-sided binomial test
    at level ``alpha``): a motif whose start varies more than the POIM's placement said."""
    from scipy.stats import binom

    L, m = pos.shape[1], pwm.shape[0]
    step = max(int(flank), 1)
    while True:
        neg_best, neg_at, _ = best_windows(pwm, neg, starts, strands, background, None)
        threshold, inclusive = site_threshold(neg_best, fpr)
        best, at, _ = best_windows(pwm, pos, starts, strands, background, None)
        has = has_site(best, threshold, inclusive)
        neg_has = has_site(neg_best, threshold, inclusive)
        lo, hi = int(starts[0]), int(starts[-1])
        grow = [0, 0]
        for side, edge, room in ((0, starts[:step], lo > 0), (1, starts[-step:], hi < L - m)):
            if not room:
                continue
            k = int(np.isin(at[has], edge).sum())
            rate = (np.isin(neg_at[neg_has], edge).sum() + 1.0) / (len(neg) + 1.0)
            if k > 0 and binom.sf(k - 1, len(pos), rate) <= alpha:
                grow[side] = step
        if not any(grow):
            return starts
        starts = np.arange(max(lo - grow[0], 0), min(hi + grow[1], L - m) + 1)


def _trim(pwm, informative):
    keep = np.flatnonzero(informative)
    if keep.size == 0:
        keep = np.array([int(np.argmax(information_content(pwm)))])
    return int(keep[0]), int(keep[-1]) + 1


def _width_limits(pwm, a, b, min_length, max_length):
    """The kept columns ``[a, b)`` within ``min_length..max_length``: widened on both sides (within
    the PWM) or cut to the ``max_length`` columns of most information."""
    if b - a > max_length:
        ic = np.convolve(information_content(pwm[a:b]), np.ones(max_length), "valid")
        a += int(np.argmax(ic))
        return a, a + max_length
    while b - a < min(min_length, pwm.shape[0]):
        if (a > 0 and (b - a) % 2) or b == pwm.shape[0]:
            a -= 1
        else:
            b += 1
    return a, b


def _motif_columns(pwm, n_sites, backgrounds, min_ic, alpha):
    """Columns informative (:func:`_informative`) against every one of ``backgrounds``."""
    keep = np.ones(pwm.shape[0], dtype=bool)
    for bg in backgrounds:
        keep &= _informative(pwm, n_sites, bg, min_ic, alpha)
    return keep


def letter_frequencies(codes):
    """Letter frequencies of ``codes`` (one pseudocount per letter)."""
    counts = np.bincount(codes.ravel(), minlength=4)[:4] + 1.0
    return counts / counts.sum()


@dataclass(frozen=True)
class FitOptions:
    """The tuning of :func:`seqimp.motifs.refine_motifs` (see its parameters)."""

    pad: int
    flank: int
    fpr: float
    pseudocount: float
    seed_ic: float
    min_ic: float
    alpha: float
    max_iter: int
    tol: float
    max_grow: int
    max_length: int
    min_length: int = 1
    tune: bool = False
    em_letters: str = "negatives"
    held_out_seed: object = None
    keep_seed: bool = False
    held_out_controls: int = 0
    control_seed: int = 0


def fit_motif(motif, pos, neg, strands, background, positive_letters, o, controls=0):
    """Steps 1-3 of :mod:`seqimp.motifs._refine` for one motif: ``(pwm, starts)``, the EM's PWM and the
    0-based starts of its window, fitted on the positives ``pos`` (the negatives ``neg`` for a
    depleted motif) against the letter frequencies ``background`` (the negatives'), its end
    columns also against ``positive_letters`` (:func:`letter_frequencies` of ``pos``); with
    ``o.tune``, the tuning's threshold taken on ``neg`` and ``controls`` shuffles of each
    (:func:`tuning_negatives`)."""
    L = pos.shape[1]
    depleted = motif.direction == "depleted"
    train = neg if depleted else pos  # where the motif's sites are
    # a motif's column stands out from the negatives AND from the letters its sites sit in
    backgrounds = (background, background if depleted else positive_letters)
    # em_letters="positives": the EM weighs every window against the letters of the sequences the
    # sites sit in; against the negatives' (A/T-richer gene bodies beside CpG-island promoters)
    # every G/C-rich window would look like a site, and a position-free CCAAT seed drifts into a G/C run
    em_background = positive_letters if o.em_letters == "positives" and not depleted else background
    p = min(o.pad, (L - motif.length) // 2)
    seed = np.vstack([np.full((p, 4), 0.25), _sharpen(motif.pwm, o.seed_ic), np.full((p, 4), 0.25)])
    starts = _window(motif, seed.shape[0], L, p, o.flank)
    core = motif.pwm if o.keep_seed else None  # refine_motifs' keep_seed: the EM keeps the seed's core letters
    pwm, n_eff = _em(seed, train, starts, strands, em_background, o.pseudocount, o.max_iter, o.tol, core)
    for _ in range(o.max_grow):  # an informative end column: room to grow on that side
        a, b = _trim(pwm, _motif_columns(pwm, n_eff, backgrounds, o.min_ic, o.alpha))
        left = o.pad if a == 0 and starts[0] >= o.pad else 0
        right = o.pad if b == pwm.shape[0] and starts[-1] + pwm.shape[0] + o.pad <= L else 0
        if not (left or right) or pwm.shape[0] + left + right > o.max_length:
            break
        pwm = np.vstack([np.tile(em_background, (left, 1)), pwm, np.tile(em_background, (right, 1))])
        starts = starts - left
        pwm, n_eff = _em(pwm, train, starts, strands, em_background, o.pseudocount, o.max_iter, o.tol, core)
    a, b = _width_limits(pwm, *_trim(pwm, _motif_columns(pwm, n_eff, backgrounds, o.min_ic, o.alpha)),
                         o.min_length, o.max_length)
    pwm, starts = pwm[a:b], starts + a
    if motif.position_free:
        starts = np.arange(0, L - pwm.shape[0] + 1)
        if not depleted:
            starts = concentrated_window(pwm, pos, neg, starts, strands, background, o.fpr, o.flank)
    if o.tune and not depleted:  # refine_motifs' ``tune``: the PWM tuned at the site threshold
        pwm, starts = tune_pwm(pwm, pos, tuning_negatives(neg, controls, o.control_seed), starts, strands,
                               background, o.fpr)
    elif not depleted and starts.size < L - pwm.shape[0] + 1:  # a window (a position-free one's too)
        wider = _widen(pwm, pos, neg, starts, strands, background, o.fpr, o.flank, o.alpha)
        if wider.size > starts.size:  # sites beyond the window: the EM again on all of them
            pwm, _n = _em(pwm, train, wider, strands, background, o.pseudocount, o.max_iter, o.tol, core)
            starts = wider
    return pwm, starts


def tuning_negatives(neg, controls, seed):
    """``neg`` and, after them, ``controls`` dinucleotide shuffles of each (unknown bases in place;
    drawn from ``seed``): shape ((1 + controls) n, L); ``neg`` itself without controls."""
    if not controls or not len(neg):
        return neg
    from ..io import dinucleotide_shuffle

    more = dinucleotide_shuffle(np.tile(neg, (int(controls), 1)), random_state=seed)
    return np.vstack([neg, more.astype(neg.dtype)])


def held_out_sites(motif, pos, neg, strands, o, folds=2):
    """Sites of ``motif`` in sequences its PWM and threshold were not fitted on: ``(positives with
    a site, negatives with a site, positives tested, negatives tested, folds tested)``, pooled
    over ``folds`` folds (sequence i in fold i mod ``folds``). Each fold's PWM is fitted
    (:func:`fit_motif`) on ``strands`` and its threshold calibrated on the other folds' positives and negatives, as the motif's own PWM is (a motif
    whose sites lie on one strand: ``("+",)`` and ``motif`` turned to that strand). On the
    sequences the EM was fitted to, a motif always finds sites (it placed its windows where they
    fit best); a few dozen positives let it fit a composition or a chance pattern there, which
    the held-out sites do not show. With ``o.held_out_seed`` each fold starts from the seed
    that callable chooses on the fold's fitting half (``held_out_seed(positives, negatives,
    motif) -> Motif or None``; None: that fold's held-out sequences are not tested): a seed
    chosen on all the sequences, as the deeper search's most enriched word is, has seen the
    held-out half. With ``o.tune`` a fold's tuning takes its threshold on the fold's negatives and
    ``o.held_out_controls`` shuffles of each (:func:`tuning_negatives`); its sites are counted at
    the threshold of the fold's negatives alone."""
    hits = [0, 0, 0, 0, 0]
    fold_pos, fold_neg = np.arange(len(pos)) % folds, np.arange(len(neg)) % folds
    for f in range(folds):
        p_fit, n_fit = pos[fold_pos != f], neg[fold_neg != f]
        seed = motif if o.held_out_seed is None else o.held_out_seed(p_fit, n_fit, motif)
        if seed is None:  # the seed's choice, made on this fold's fitting half, found no copy of it
            continue
        hits[2] += int((fold_pos == f).sum())
        hits[3] += int((fold_neg == f).sum())
        hits[4] += 1
        background = letter_frequencies(n_fit)
        pwm, starts = fit_motif(seed, p_fit, n_fit, strands, background, letter_frequencies(p_fit), o,
                                o.held_out_controls)
        neg_best = best_site_scores(pwm, n_fit, starts, strands, background)
        threshold, inclusive = site_threshold(neg_best, o.fpr)
        for j, test in enumerate((pos[fold_pos == f], neg[fold_neg == f])):
            best = best_site_scores(pwm, test, starts, strands, background)
            hits[j] += int(has_site(best, threshold, inclusive).sum())
    return hits
