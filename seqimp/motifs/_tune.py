"""Discriminative tuning of a position-free PWM at the site threshold (the last refinement step
of the gkm model's motifs, :func:`tune_pwm`, run by :func:`seqimp.motifs.refine_motifs` with
``tune=True``).

Why: the EM of :func:`~seqimp.motifs.refine_motifs` gives the maximum-likelihood PWM of the
sites (on the ``anywhere`` set of motif_benchmark_2 it is close to the planted FOXA2 matrix),
but a site is then called when a sequence's best window passes the score that ``fpr`` (1%) of
the negatives' best windows pass -- over every start of 250-nt sequences on both strands. An
8-column motif's best word (TGTAAACA) alone occurs in 1.1% of those negatives, so the
threshold lands on the best possible score and only exact consensus words are sites: the
planted matrix itself, and the EM's PWM, then cover 35 of 360 planted sites (0.097), while at
2% FPR they cover 0.28. What a PWM should do at that threshold is rank the windows so that as
many positives as possible pass it; that is what a discriminative motif finder optimises
(STREME's PWM covers 0.222 at the same threshold).

How: the PWM gets ``pad`` background columns on each side (log-odds 0: the same scores), then
coordinate ascent on its log2-odds entries: for every column and letter, adding each of
``(-2 s, -s, s, 2 s)`` bits (step ``s`` from ``steps``) is tried and the change that gives the
most positives with a site at the threshold of the same trial's negatives is kept when it adds
at least ``min_gain`` of them; sweeps over all entries repeat while one is kept (at most
``sweeps`` per step). The trials cost no rescoring: one pass over the windows' cached scores
per column gives every sequence's best window among those reading each letter there
(:func:`_letter_best`, numba), from which the best score after any change of that column's
log-odds follows (:func:`_with_change`; the counts of all four changes of a letter in one kernel
call, :func:`_trial_counts`); a kept change updates the cached scores. A column's trials read
only the sequences whose best score is near the threshold (:func:`_band`: within twice the
largest change of it; the others cannot change a count), 6-31% of them on gen shuffled at
steps 1 to 0.25 -- tuning there took 2.1 s instead of 3.6 s, the same PWMs. Pad columns
that stayed at log-odds 0 are cut again. Adding a constant to a column's log-odds shifts every
window's score equally, so the tuned log-odds ``S`` are written as the PWM
``background * 2**S`` normalised per column: the same windows pass. With ``more_negatives``
the ascent runs against each of those negatives as well, from the same start, and the log-odds
are the mean of all (bagging over drawn controls, :func:`seqimp.motifs.scanning_motifs`).

The tuned PWM is kept only where it passes more positives than the EM's PWM itself: a short
motif's EM PWM whose best word alone is in more than ``fpr`` of the negatives calls the windows
reaching that best score sites (the site rule of :func:`seqimp.motifs._sites.site_threshold`, which the trials share),
at a higher share of negatives -- SOX2's 7-column CCATTGT, anywhere in 25% of 250-nt
positives, passes 72 positives and 32 of 1,000 negatives (held-out p = 3.5e-5), where the
tuned CCCATTGTT passes 43 and 10 (held-out p = 0.07). The tuning runs inside each held-out
fold of ``refine_motifs`` as well, so the motif's held-out p-value measures the tuned motif on
sequences it was not tuned on (on ``anywhere``, fitted on one half: 0.18-0.20 of the other
half's planted sites at 1% FPR against 0.10-0.18 untuned; it does lose recall at 2-5% FPR, the
price of fitting the 1% operating point).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..errors import SeqimpError
from ._sites import (WindowTerms, _cut, _is_site, best_site_scores, site_rank, site_scores, sites_passing,
                     strict_threshold)

__all__ = ["tune_pwm"]


@njit(cache=True, parallel=True)
def _letter_best(base, codes, starts, m, column, rows, out):
    """Best current window score of the sequences ``rows`` (int, shape (r,)) among the windows
    (and strands) that read letter ``a`` in ``column``: ``out[j, a]`` for sequence ``rows[j]``
    (-inf where none does). ``base`` (n, W, K): the windows' scores, K = 1 (+ strand) or 2 (+ and
    -; on - the window's reverse complement is read). Adding ``delta`` to the log-odds of ``a``
    in ``column`` makes the sequence's best score ``max(out[j, a] + delta, max over b != a of
    out[j, b])``."""
    W, K = base.shape[1], base.shape[2]
    for j in prange(rows.size):
        i = np.uint64(rows[j])  # indices unsigned: numba skips its negative-index check (same bits)
        for a in range(4):
            out[j, a] = -np.inf
        for w in range(W):
            s = starts[w]
            for k in range(K):
                score = base[i, w, k]
                if score == -np.inf:  # a window covering an unknown base (code 4): no letter to read
                    continue
                if k == 0:
                    x = np.uint64(codes[i, np.uint64(s + column)])
                else:
                    x = np.uint64(3 - codes[i, np.uint64(s + m - 1 - column)])
                if score > out[j, x]:
                    out[j, x] = score


@njit(cache=True, parallel=True)
def _row_best(base, out):
    """Each sequence's best window score, ``base.max(axis=(1, 2))`` into ``out`` (shape (n,)),
    returned."""
    n, W, K = base.shape
    for i in prange(n):
        b = -np.inf
        for w in range(W):
            for k in range(K):
                if base[i, w, k] > b:
                    b = base[i, w, k]
        out[i] = b
    return out


#: Whether the trials of a column read only the sequences whose best score is near the site
#: threshold (:func:`_band`); False reads every sequence (the same counts, for tests).
BAND = True
#: Added to the band's half-width: rounding of the scores is far below it.
BAND_SLACK = 1e-6


def _band(lo_pos, hi_pos, lo_neg, hi_neg, k, reach):
    """The sequences whose trials can change a count, from bounds ``lo_* <= best <= hi_*`` on each
    sequence's best score at the column's start, when every window's score moves by at most
    ``reach`` (a column's trials and kept changes: a window reads one letter of the column, and
    each letter gets one change), so that every best score stays within ``reach`` of where it
    was. The threshold, the (k+1)-th best negative, is then at least ``t - reach`` (``t``: the
    (k+1)-th largest ``lo_neg``): a negative below ``t - 2 reach`` stays below the k + 1
    negatives now at or above ``t`` and never changes the threshold nor the tie rule, which read
    the k + 1 best (:func:`seqimp.motifs._sites._cut`); a positive below it never passes, one
    above ``T + 2 reach`` (``T``: the (k+1)-th largest ``hi_neg``) always does. Returns
    ``(pos_rows, neg_rows, always)``: the positives and negatives to score and the count of
    positives that pass whatever the trial."""
    j = lo_neg.size - k - 1
    low = np.partition(lo_neg, j)[j] - 2.0 * reach - BAND_SLACK
    high = np.partition(hi_neg, j)[j] + 2.0 * reach + BAND_SLACK
    pos_rows = np.flatnonzero((hi_pos >= low) & (lo_pos <= high))
    neg_rows = np.flatnonzero(hi_neg >= low)
    return pos_rows, neg_rows, int((lo_pos > high).sum())


def _with_change(best, letter, delta):
    """Every sequence's best score after adding ``delta`` to ``letter``'s log-odds (see
    :func:`_letter_best`), shape (n,)."""
    others = np.delete(best, letter, axis=1).max(axis=1)
    return np.maximum(best[:, letter] + delta, others)


@njit(cache=True)
def _best_of_others(best, letter):
    """Each row's best score over the letters other than ``letter``, shape (n,)."""
    n = best.shape[0]
    out = np.empty(n)
    for i in range(n):
        o = -np.inf
        for b in range(4):
            if b != letter and best[i, b] > o:
                o = best[i, b]
        out[i] = o
    return out


@njit(cache=True)
def _top(values, k, top):
    """The ``k + 1`` largest of ``values`` (with their repeats) into ``top``, ascending: ``top[0]``
    is ``sorted(values)[-k - 1]``, ``top[k]`` the largest -- what :func:`seqimp.motifs._sites._cut`
    reads of a full sort, in one pass (``values.size > k``)."""
    filled = 0
    for v in values:
        if filled <= k:  # filling: insertion
            j = filled
            filled += 1
            while j > 0 and top[j - 1] > v:
                top[j] = top[j - 1]
                j -= 1
            top[j] = v
        elif v > top[0]:  # full: drop top[0], shift the smaller ones down
            j = 0
            while j < k and top[j + 1] < v:
                top[j] = top[j + 1]
                j += 1
            top[j] = v


@njit(cache=True)
def _trial_counts(best_pos, best_neg, letter, deltas, k, strict, out):
    """For every ``deltas[j]`` added to ``letter``'s log-odds: the positives passing the site
    threshold of the negatives (:func:`sites_passing` of :func:`_with_change` on both, at
    ``k = floor(fpr * n_neg)``) into ``out[j]``; the same scores by the same operations, so
    the same counts (the threshold from the k + 1 largest negatives, :func:`_top`, instead of a
    sort of all). ``best_pos``, ``best_neg``: :func:`_letter_best`'s tables. ``strict``:
    only scores above the threshold count, where the site rule would count those reaching a
    threshold that is the negatives' top score (then more than k negatives pass). One thread:
    four trials are too little work for a parallel region."""
    n_neg = best_neg.shape[0]
    n_pos = best_pos.shape[0]
    others_neg = _best_of_others(best_neg, letter)
    others_pos = _best_of_others(best_pos, letter)
    vals = np.empty(n_neg)
    top = np.empty(k + 1)
    for j in range(deltas.size):
        d = deltas[j]
        for i in range(n_neg):
            vals[i] = max(best_neg[i, letter] + d, others_neg[i])
        _top(vals, k, top)
        threshold, inclusive = _cut(top, k)
        inclusive = inclusive and not strict
        count = 0
        for i in range(n_pos):
            if _is_site(max(best_pos[i, letter] + d, others_pos[i]), threshold, inclusive):
                count += 1
        out[j] = count


@njit(cache=True, parallel=True)
def _apply_column(base, codes, starts, m, column, shift):
    """``base`` updated in place for ``shift[a]`` added to the log-odds of each letter ``a`` in
    ``column`` (a window reads one letter there, so it gets one addition)."""
    n, W, K = base.shape
    for i in prange(n):
        for w in range(W):
            s = starts[w]
            for k in range(K):
                if base[i, w, k] == -np.inf:  # a window covering an unknown base stays unscored
                    continue
                x = codes[i, s + column] if k == 0 else 3 - codes[i, s + m - 1 - column]
                if shift[x] != 0.0:
                    base[i, w, k] += shift[x]


def _trimmed(best, passing, lo, hi, min_length):
    """``(count, pwm, starts)`` with end columns cut while a cut passes more positives."""
    count, pwm, _win = best
    while pwm.shape[0] > max(min_length, 1):
        trials = []
        for cut in (pwm[1:], pwm[:-1]):
            win = np.arange(lo, hi - cut.shape[0] + 1, dtype=np.intp)
            trials.append((passing(cut, win), cut, win))
        top = max(trials, key=lambda t: t[0])
        if top[0] <= count:
            break
        count, pwm, _win = top
        best = top
    return best


def _n_passing(best_pos, best_neg, fpr, strict):
    """Positives passing the negatives' threshold, from the best window scores."""
    if strict:
        return int((best_pos > strict_threshold(best_neg, fpr)).sum())
    return sites_passing(best_pos, best_neg, fpr)


def _ascent(S, base_pos, pos, neg, base_neg, win, fpr, strict, steps, sweeps, min_gain):
    """Coordinate ascent of the log-odds ``S`` (module docstring; changed in place, as are the
    windows' cached scores ``base_pos``, ``base_neg`` of shape (n, W, strands)) against the
    negatives ``neg``: ``(S, the positives passing)``."""
    m = S.shape[0]
    current = _n_passing(*(_row_best(b, np.empty(b.shape[0])) for b in (base_pos, base_neg)), fpr, strict)
    best_pos = np.empty((len(pos), 4))
    best_neg = np.empty((len(neg), 4))
    # bounds on each sequence's best score (exact after _row_best, widened by the changes kept
    # since for the sequences a column did not read)
    lo_pos, lo_neg = np.empty(len(pos)), np.empty(len(neg))
    k = site_rank(fpr, len(neg))
    counts = np.empty(4, dtype=np.int64)
    for step in steps:
        deltas = np.array([-2.0 * step, -step, step, 2.0 * step])
        reach = float(np.abs(deltas).max())
        for _ in range(sweeps):
            kept = False
            if BAND:
                _row_best(base_pos, lo_pos)
                _row_best(base_neg, lo_neg)
                hi_pos, hi_neg = lo_pos.copy(), lo_neg.copy()
            for column in range(m):
                if BAND:  # only the sequences near the threshold (_band): the same counts
                    pos_rows, neg_rows, always = _band(lo_pos, hi_pos, lo_neg, hi_neg, k, reach)
                else:
                    pos_rows, neg_rows, always = np.arange(len(pos)), np.arange(len(neg)), 0
                bp, bn = best_pos[:pos_rows.size], best_neg[:neg_rows.size]
                _letter_best(base_pos, pos, win, m, column, pos_rows, bp)
                _letter_best(base_neg, neg, win, m, column, neg_rows, bn)
                shift = np.zeros(4)  # the changes kept, applied to the windows once the column is done
                for letter in range(4):
                    _trial_counts(bp, bn, letter, deltas, k, strict, counts)
                    counts += always
                    d = int(np.argmax(counts))
                    if counts[d] >= current + min_gain:
                        S[column, letter] += deltas[d]
                        # the windows reading this letter here all move by the same amount
                        bp[:, letter] += deltas[d]
                        bn[:, letter] += deltas[d]
                        shift[letter] = deltas[d]
                        current = int(counts[d])
                        kept = True
                if shift.any():
                    _apply_column(base_pos, pos, win, m, column, shift)
                    _apply_column(base_neg, neg, win, m, column, shift)
                moved = float(np.abs(shift).max())  # a window moved by one kept change at most
                if BAND and moved:
                    for low, high, rows, b in ((lo_pos, hi_pos, pos_rows, bp), (lo_neg, hi_neg, neg_rows, bn)):
                        low -= moved
                        high += moved
                        low[rows] = high[rows] = b.max(axis=1)  # every window reads one letter here
            if not kept:
                break
    return S, current


def _pwm_of(S, background):
    p = background[None, :] * 2.0 ** S
    return p / p.sum(axis=1, keepdims=True)


def tune_pwm(pwm, positive, negative, starts, strands, background, fpr, *, pad=1, steps=(1.0, 0.5, 0.25),
             sweeps=3, min_gain=1, trim=False, min_length=4, strict=False, window_terms=None,
             more_negatives=()):
    """Tune a PWM's log-odds so that most positives have a site at the ``fpr`` threshold of the
    negatives (module docstring); the signature of :func:`seqimp.motifs.refine_motifs`' ``tune``.

    Parameters
    ----------
    pwm : ndarray of shape (m, 4)
    positive, negative : ndarray of shape (n, L), (n_neg, L), int
        Codes A=0 C=1 G=2 T=3, 4 for an unknown base (a window covering one is never a site).
    starts : ndarray of shape (W,), int
        0-based starts searched (every start of a position-free motif).
    strands : tuple of str
        ``("+",)`` or ``("+", "-")``.
    background : ndarray of shape (4,) or SiteBackground
        Letter frequencies the log-odds are taken against, or a Markov background
        (:class:`seqimp.background.SiteBackground`: every window's score is its log-likelihood
        ratio against it, :func:`seqimp.motifs.site_scores`; ``S`` is then taken against its
        letter frequencies, and a change of ``S`` moves the same windows by the same amount).
    fpr : float in (0, 1)
    pad, steps, sweeps, min_gain
        As in the module docstring.
    strict : bool, default=False
        Count only the positives scoring above the (k+1)-th best negative (at most k negatives
        do): a PWM whose best word alone is in more than k negatives then counts none, where
        the site rule counts those reaching that top score.
    trim : bool, default=False
        After the ascent, cut an end column (the better of the two ends, again and again, down
        to ``min_length`` columns) while that passes more positives: a column that only adds
        chance matches over long sequences goes.

    window_terms : WindowTerms, optional
        The memo of the background's window terms to read and fill
        (:class:`seqimp.motifs._sites.WindowTerms`; a caller scoring the same sequences with
        other fits shares it); by default one of this call's own.
    more_negatives : sequence of ndarray of shape (n', L), optional
        Other negatives (e.g. the control drawn again): the ascent runs once against
        ``negative`` and once against each of these, from the same start, and the tuned
        log-odds are the mean of all (bagging: a single ascent learns its negatives' few best
        windows as well as the motif); the pad columns' cut, ``trim`` and the final comparison
        count against ``negative``. Their background terms are computed for the ascent and not
        kept in ``window_terms``.

    Returns
    -------
    pwm : ndarray of shape (m', 4)
        m <= m' <= m + 2 pad; the given PWM where tuning passes no more positives.
    starts : ndarray of shape (W',), int
        The starts searched for the returned width (the same span of the sequences).
    """
    pwm = np.asarray(pwm, dtype=np.float64)
    if hasattr(background, "window_log2"):  # a SiteBackground: log-odds against its letters
        letters = background.letters
    else:
        background = letters = np.asarray(background, dtype=np.float64)
    pos = np.ascontiguousarray(positive, dtype=np.intp)
    neg = np.ascontiguousarray(negative, dtype=np.intp)
    starts = np.asarray(starts, dtype=np.intp)
    if pwm.ndim != 2 or pwm.shape[1] != 4 or not (pwm > 0).all():
        raise SeqimpError(f"tune_pwm: pwm must be (m, 4) with positive entries, got shape {pwm.shape}")
    if len(pos) == 0 or len(neg) == 0:
        return pwm, starts
    L = pos.shape[1]

    if window_terms is not None and window_terms.strands != tuple(strands):
        raise SeqimpError(f"tune_pwm: window_terms are of strands {window_terms.strands}, the fit reads {tuple(strands)}")
    terms = WindowTerms(background, strands) if window_terms is None else window_terms

    def null_of(codes, m, win):
        """The Markov background term of the windows of width ``m`` at ``win`` of ``codes``
        (``pos`` or ``neg``: of the arrays given), computed once (None against letter frequencies)."""
        return terms(positive if codes is pos else negative, win, m)

    def scores(p, codes, win):
        return site_scores(p, codes, win, strands, background, null_of(codes, p.shape[0], win))

    def best_of(p, codes, win):
        """``scores(p, codes, win).max(axis=(1, 2))`` in one kernel (:func:`best_site_scores`)."""
        return best_site_scores(p, codes, win, strands, background, null_of(codes, p.shape[0], win))

    def passing(p, win):
        return _n_passing(best_of(p, pos, win), best_of(p, neg, win), fpr, strict)

    untuned = passing(pwm, starts)  # the EM's PWM as sites are called (a tie at the top included)
    lo, hi = int(starts[0]), int(starts[-1]) + pwm.shape[0]  # the span the windows cover
    # the pad columns widen the span where the sequences have room, else the windows' cores
    # keep ``pad`` letters off its ends
    lo, hi = max(lo - pad, 0), min(hi + pad, L)
    S = np.vstack([np.zeros((pad, 4)), np.log2(pwm / letters), np.zeros((pad, 4))])
    m = S.shape[0]
    win = np.arange(lo, hi - m + 1, dtype=np.intp)
    if win.size == 0:
        return pwm, starts
    base_pos = scores(_pwm_of(S, letters), pos, win)
    first_pos = base_pos.copy() if len(more_negatives) else base_pos  # the ascent changes it
    fits = [_ascent(S.copy(), first_pos, pos, neg, scores(_pwm_of(S, letters), neg, win), win, fpr, strict, steps,
                    sweeps, min_gain)]
    for more in more_negatives:  # each against its own negatives; their terms are not kept
        other = np.ascontiguousarray(more, dtype=np.intp)
        null = WindowTerms(background, strands)(more, win, m)  # None against letter frequencies
        fits.append(_ascent(S.copy(), base_pos.copy(), pos, other,
                            site_scores(_pwm_of(S, letters), other, win, strands, background, null), win, fpr,
                            strict, steps, sweeps, min_gain))
    S = fits[0][0] if len(fits) == 1 else np.mean([f[0] for f in fits], axis=0)
    current = fits[0][1] if len(fits) == 1 else passing(_pwm_of(S, letters), win)
    # pad columns left at log-odds 0 carry nothing: cut them (the windows then reach the span's
    # ends again, which can move the threshold: kept only where no fewer positives pass)
    a, b = 0, m
    while a < pad and not S[a].any():
        a += 1
    while b > m - pad and not S[b - 1].any():
        b -= 1
    best = (current, _pwm_of(S, letters), win)
    if b - a < m:
        cut = S[a:b]
        wider = np.arange(lo, hi - cut.shape[0] + 1, dtype=np.intp)
        tuned = _pwm_of(cut, letters)
        count = passing(tuned, wider)
        if count >= current:
            best = (count, tuned, wider)
    if trim:
        best = _trimmed(best, passing, lo, hi, min_length)
    # a tuning that passes no more positives than the EM's PWM is not kept
    return (best[1], best[2]) if best[0] > untuned else (pwm, starts)

