"""One pass of the gkm SVM's dual coordinate descent (:class:`~seqimp.kernels.GKMClassifier`), on
every thread numba runs, the same bits for every thread count.

A row's step reads ``<phi(x), w>`` over its l-mer windows and column choices and, when its dual
variable moves, adds to the same weights: about 10^5 look-ups a row for 500 nt at l = 10, k = 6.
With both strands only the weights of a choice and not of its mirror are kept
(:func:`~seqimp.kernels._gkm.own_choices`: half the additions), and filled in at the end of the fit.
The column choices own disjoint features (``c * 4**k + u``), so the work of one row is cut into
:data:`CHUNKS` ranges of the kept choices, run at once where a row has enough of it (:data:`PARALLEL_FROM`
look-ups): the dot product is the sum of the ranges' partial sums, added in range order, and each
weight gets its additions in window order within its range -- the chain of steps and every number in
it the same as on one thread, whatever the thread count (the partial sums are taken the same way on one
thread).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._dual_step import projected_gradient
from ._gkm import _halves

__all__ = ["dcd_pass", "CHUNKS", "PARALLEL_FROM"]

#: ranges of column choices a row's dot product is summed over (fixed: the bits do not depend on the threads)
CHUNKS = 32
#: look-ups (windows x column choices) from which a row's ranges run on the threads
PARALLEL_FROM = 16_384


@njit(cache=True, nogil=True)
def _dot_range(buf, n, half, left_t, right_t, w, choices, both, lo, hi):
    """``sum`` of ``w`` over the column choices ``choices[lo:hi]``: a choice with ``both[j]`` over the
    first ``n`` window rows of ``buf`` (both strands), one without over the first ``half`` (``left_t``,
    ``right_t``: the half tables transposed, a choice's row contiguous; a choice's features, its two
    table rows and its weights stay in the core's first-level cache)."""
    total = 0.0
    for j in range(lo, hi):
        c = choices[j]
        lc = left_t[c]
        rc = right_t[c]
        rows = n if both[j] else half
        for t in range(rows):
            total += w[lc[buf[t, 0]] + rc[buf[t, 1]]]
    return total


@njit(cache=True, nogil=True)
def _add_range(buf, n, left_t, right_t, w, value, choices, lo, hi):
    """``w += value`` at the features of the first ``n`` window rows of ``buf`` and the choices
    ``choices[lo:hi]`` (choice by choice; each weight belongs to one choice and gets its additions
    in window order)."""
    for j in range(lo, hi):
        c = choices[j]
        lc = left_t[c]
        rc = right_t[c]
        for t in range(n):
            w[lc[buf[t, 0]] + rc[buf[t, 1]]] += value


@njit(cache=True, parallel=True)
def _pass(codes, offsets, y, scale, qii, order, alpha, w, bias_w, C, bias, l, left_t, right_t, rc, choices, both,
          buf, pg_max_old, pg_min_old, keep, chunks, parallel_from):
    n_choice = choices.size
    step = (n_choice + chunks - 1) // chunks
    partial = np.zeros(chunks)
    pg_max = -np.inf
    pg_min = np.inf
    for t in range(order.size):
        i = order[t]
        m = _halves(codes, offsets[i], offsets[i + 1], l, rc, buf)
        half = m // 2 if rc else m
        if m * n_choice >= parallel_from:
            for ch in prange(chunks):
                partial[ch] = _dot_range(buf, m, half, left_t, right_t, w, choices, both, ch * step,
                                         min(n_choice, (ch + 1) * step))
        else:
            for ch in range(chunks):
                partial[ch] = _dot_range(buf, m, half, left_t, right_t, w, choices, both, ch * step,
                                         min(n_choice, (ch + 1) * step))
        dot = 0.0
        for ch in range(chunks):
            dot += partial[ch]
        if rc:
            dot *= 2.0
        g = y[i] * (scale[i] * dot + bias * bias_w[0]) - 1.0
        a = alpha[i]
        shrink, pg = projected_gradient(g, a, C, pg_max_old, pg_min_old)
        keep[t] = 0 if shrink else 1
        if shrink:
            continue
        pg_max = max(pg_max, pg)
        pg_min = min(pg_min, pg)
        if pg != 0.0:
            new = min(max(a - g / qii[i], 0.0), C)
            d = (new - a) * y[i]
            alpha[i] = new
            if d != 0.0:
                value = d * scale[i]
                if m * n_choice >= parallel_from:
                    for ch in prange(chunks):
                        _add_range(buf, m, left_t, right_t, w, value, choices, ch * step,
                                   min(n_choice, (ch + 1) * step))
                else:
                    _add_range(buf, m, left_t, right_t, w, value, choices, 0, n_choice)
                bias_w[0] += d * bias
    return pg_max, pg_min


def dcd_pass(codes, offsets, y, scale, qii, order, alpha, w, bias_w, C, bias, l, left, right, rc, buf,
             pg_max_old, pg_min_old, keep, choices, both):
    """One pass of dual coordinate descent for the hinge-loss SVM (L1-loss dual, as liblinear's)
    over the rows in ``order``; the bias is a constant feature of value ``bias`` (weight
    ``bias_w[0]``). ``w`` holds the weights of the column choices ``choices`` only: with ``rc``
    those of :func:`~seqimp.kernels._gkm.own_choices` (``both``: which read both strands), without
    every choice (``both`` all 1). Shrinking (liblinear's, Hsieh et al. 2008, section 3.2): a
    variable at 0 whose gradient exceeds ``pg_max_old``, or at ``C`` whose gradient is below
    ``pg_min_old`` (the last pass's largest and smallest projected gradient), is left where it is
    and marked ``keep[t] = 0`` (``keep[t] = 1`` for the others); ``pg_max_old = inf``, ``pg_min_old
    = -inf`` shrink nothing. Returns the largest and smallest projected gradient of the rows not
    shrunk. Every thread numba runs takes part; the result is the same for any number."""
    return _pass(codes, offsets, y, scale, qii, order, alpha, w, bias_w, C, bias, l, np.ascontiguousarray(left.T, dtype=np.int32),
                 np.ascontiguousarray(right.T, dtype=np.int32), rc, choices, both, buf, pg_max_old, pg_min_old, keep,
                 min(CHUNKS, choices.size), PARALLEL_FROM)
