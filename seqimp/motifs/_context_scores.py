"""Integer window scores against a Markov background of order k >= 1 (a
:class:`seqimp.background.SiteBackground`), and their exact null distribution: what
:func:`seqimp.motifs.scan_sequences` and :func:`seqimp.motifs.enrich_motifs` use when given such
a background (order 0 stays :mod:`._scan`'s matrix).

A window read on its strand as ``y_1 .. y_m`` scores ``sum_c T[c, y_{c-k'} .. y_c]`` with
k' = min(c - 1, k) letters of context inside the window and

    T[c, word] = round(SCALE * (log2 p'[c, y_c] - log2 P(y_c | the k' letters before it))),

``p' = (p + c b) / (1 + c)`` the PWM with the pseudocount spread by the background's letter
frequencies ``b``: the log-likelihood ratio of the window, PWM against background, in integer
units (for k = 0 exactly :func:`seqimp.motifs.known._scan.score_matrix`). The null distribution of that score
for a window drawn from the background itself is exact: a dynamic programme over the columns
whose state is the score so far and the last k letters (:func:`context_pvalues`). Both strands
share it: a read on either strand is a window of the background, whose counts cover both strands.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["context_table", "context_pvalues", "context_best", "context_hits"]

_UNSCORED = -(2 ** 62)


@njit(cache=True, inline="always")
def push_hit(out, k, sequence, start, strand, score):
    """Row ``k`` of a hit table (sequence, start, strand, score; int64) set, the table doubled first
    when full: the table to keep using (the scan kernels here and in :mod:`._scan`)."""
    if k == out.shape[0]:
        grown = np.empty((2 * k, 4), np.int64)
        grown[:k] = out
        out = grown
    out[k, 0], out[k, 1], out[k, 2], out[k, 3] = sequence, start, strand, score
    return out


def context_table(pwm, background, *, pseudocount, scale) -> np.ndarray:
    """``T`` of the module docstring, shape (m, 4**(k+1)), int64 (columns past the words of the
    first k columns' shorter contexts are 0, never read)."""
    from ..errors import SeqimpError

    pwm = np.asarray(pwm, dtype=np.float64)
    b = background.letters
    p = (pwm + pseudocount * b) / (1.0 + pseudocount)
    if (p <= 0).any():
        raise SeqimpError("a PWM with zero probabilities needs a pseudocount > 0")
    k = background.order
    size = 4 ** (k + 1)
    table = np.zeros((pwm.shape[0], size), dtype=np.int64)
    logp = np.log2(p)
    logcond = np.log2(background.conditional)
    for c in range(pwm.shape[0]):
        kk = min(c, k)
        words = np.arange(4 ** (kk + 1))
        table[c, :words.size] = np.rint(scale * (logp[c, words % 4] - logcond[kk, words]))
    return table


@njit(cache=True)
def _null_kernel(table, cond, order):
    m = table.shape[0]
    lows = np.zeros(m, np.int64)
    span = 0
    for c in range(m):
        kk = c if c < order else order
        n_words = 4 ** (kk + 1)
        lo = table[c, 0]
        hi = table[c, 0]
        for w in range(n_words):
            lo = min(lo, table[c, w])
            hi = max(hi, table[c, w])
        lows[c] = lo
        span += hi - lo
    n_ctx = 4 ** order
    prob = np.zeros((n_ctx, span + 1))
    prob[0, 0] = 1.0
    top = 0
    for c in range(m):
        kk = c if c < order else order  # context letters of column c
        keep = c + 1 if c + 1 < order else order  # context letters after it
        nxt = np.zeros((n_ctx, span + 1))
        reach = 0
        for ctx in range(4 ** kk):
            for s in range(top + 1):
                q = prob[ctx, s]
                if q == 0.0:
                    continue
                for a in range(4):
                    word = ctx * 4 + a
                    t = s + table[c, word] - lows[c]
                    nxt[word % (4 ** keep), t] += q * cond[kk, word]
                    if t > reach:
                        reach = t
        top = reach
        prob = nxt
    total = np.zeros(span + 1)
    for ctx in range(n_ctx):
        for s in range(span + 1):
            total[s] += prob[ctx, s]
    return lows.sum(), total


def context_pvalues(table, background) -> tuple[int, np.ndarray]:
    """``(low, tail)``: ``tail[i]`` = P(score >= low + i) for a window drawn from the
    background (the order-k chain, its first letters from the shorter words' frequencies), as
    :func:`seqimp.motifs.known._scan.score_pvalues` gives it for independent letters."""
    low, prob = _null_kernel(np.ascontiguousarray(table, dtype=np.int64),
                             np.ascontiguousarray(background.conditional), int(background.order))
    tail = np.cumsum(prob[::-1])[::-1]
    return int(low), np.minimum(tail, 1.0)


@njit(cache=True)
def _window(codes, start, table, order, minus):
    """The score of the window at ``start`` read on the + (``minus`` False) or - strand."""
    m = table.shape[0]
    size = table.shape[1]
    idx = 0
    total = 0
    for c in range(m):
        x = codes[start + c] if not minus else codes[start + m - 1 - c]
        if x > 3:
            return _UNSCORED
        if minus:
            x = 3 - x
        idx = (idx * 4 + x) % size
        kk = c if c < order else order
        total += table[c, idx % (4 ** (kk + 1))]
    return total


@njit(cache=True)
def _best_kernel(codes, offsets, table, order, n_strands):
    n, m = offsets.size - 1, table.shape[0]
    best = np.full(n, _UNSCORED, np.int64)
    for r in range(n):
        for p in range(offsets[r], offsets[r + 1] - m + 1):
            for s in range(n_strands):
                sc = _window(codes, p, table, order, s == 1)
                if sc > best[r]:
                    best[r] = sc
    return best


def context_best(table, order, codes, offsets, n_strands) -> np.ndarray:
    """The best window score of every sequence (``codes, offsets`` of
    :func:`seqimp.motifs.known._scan.encode_any_length`), shape (n,), int64; -2**62 without a window."""
    return _best_kernel(np.ascontiguousarray(codes, np.uint8), np.ascontiguousarray(offsets, np.int64),
                        np.ascontiguousarray(table, np.int64), int(order), int(n_strands))


@njit(cache=True)
def _hits_kernel(codes, offsets, table, order, n_strands, threshold, lam_score, capacity):
    n, m = offsets.size - 1, table.shape[0]
    tests = np.zeros(n_strands, np.int64)
    above_lam = np.zeros(n_strands, np.int64)
    out = np.empty((max(capacity, 16), 4), np.int64)
    k = 0
    for r in range(n):
        for p in range(offsets[r], offsets[r + 1] - m + 1):
            for s in range(n_strands):
                sc = _window(codes, p, table, order, s == 1)
                if sc == _UNSCORED:
                    continue
                tests[s] += 1
                if sc < lam_score:
                    above_lam[s] += 1
                if sc >= threshold:
                    out = push_hit(out, k, r, p - offsets[r], s, sc)
                    k += 1
    return out[:k, 0].copy(), out[:k, 1].copy(), out[:k, 2].copy(), out[:k, 3].copy(), tests, above_lam


def context_hits(table, order, codes, offsets, n_strands, threshold, lam_score, capacity):
    """Windows scoring at least ``threshold``: ``(sequence, start, strand, score, tests per strand,
    windows below lam_score per strand)``, as :mod:`._scan`'s scan kernel returns them."""
    return _hits_kernel(np.ascontiguousarray(codes, np.uint8), np.ascontiguousarray(offsets, np.int64),
                        np.ascontiguousarray(table, np.int64), int(order), int(n_strands), int(threshold),
                        int(lam_score), int(capacity))
