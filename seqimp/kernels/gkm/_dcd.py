"""One pass of the gkm SVM's dual coordinate descent (:class:`~seqimp.kernels.GKMClassifier`), on
every thread numba runs, the same bits for every thread count.

A row's step reads ``<phi(x), w>`` over its l-mer windows and column choices and, when its dual
variable moves, adds to the same weights: about 10^5 look-ups a row for 500 nt at l = 10, k = 6.
With both strands only the weights of a choice and not of its mirror are kept
(:func:`~seqimp.kernels.gkm._kernel.own_choices`: half the additions), and filled in at the end of the fit.
The column choices own disjoint features (``c * 4**k + u``), so the work of one row is cut into
:data:`CHUNKS` ranges of the kept choices, run at once where a row has enough of it (:data:`PARALLEL_FROM`
look-ups): the dot product is the sum of the ranges' partial sums, added in range order, and each
weight gets its additions in window order within its range -- the chain of steps and every number in
it the same as on one thread, whatever the thread count (the partial sums are taken the same way on one
thread). A row's update and the next row's dot product are one walk over the choices
(:func:`_sweep`): a choice's weights, just written, are read again while they are in the core's
first-level cache (on 2,000 random 200-mers, one thread: 0.75 s instead of 0.9 s for the walks).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._dual_step import projected_gradient
from ._kernel import _halves

__all__ = ["dcd_pass", "CHUNKS", "PARALLEL_FROM"]

#: ranges of column choices a row's dot product is summed over (fixed: the bits do not depend on the threads)
CHUNKS = 32
#: look-ups (windows x column choices) from which a row's ranges run on the threads
PARALLEL_FROM = 16_384


@njit(cache=True, nogil=True)
def _sweep(add_buf, n_add, value, dot_buf, n_dot, half_dot, left_t, right_t, w, choices, both, lo, hi):
    """At the column choices ``choices[lo:hi]``, choice by choice: ``w += value`` at the features of
    the first ``n_add`` window rows of ``add_buf`` (one row's update; none where ``value`` is 0),
    then the sum of ``w`` over the next row's windows in ``dot_buf`` -- its first ``n_dot`` rows
    (both strands) at a choice with ``both[j]``, its first ``half_dot`` at one without. A choice's
    weights are read right after they were written, while they are in the core's first-level
    cache; each weight gets its additions in window order, and the next row's dot product reads
    it after them, as two separate walks would. ``left_t``, ``right_t``: the half tables
    transposed, a choice's row contiguous."""
    total = 0.0
    for j in range(lo, hi):
        c = choices[j]
        lc = left_t[c]
        rc = right_t[c]
        if value != 0.0:
            for t in range(n_add):
                w[lc[add_buf[t, 0]] + rc[add_buf[t, 1]]] += value
        rows = n_dot if both[j] else half_dot
        for t in range(rows):
            total += w[lc[dot_buf[t, 0]] + rc[dot_buf[t, 1]]]
    return total


@njit(cache=True, parallel=True)
def _pass(codes, offsets, y, scale, qii, order, alpha, w, bias_w, C, bias, l, left_t, right_t, rc, choices, both,
          buf, next_buf, pg_max_old, pg_min_old, keep, chunks, parallel_from):
    n_choice = choices.size
    step = (n_choice + chunks - 1) // chunks
    partial = np.zeros(chunks)
    pg_max = -np.inf
    pg_min = np.inf
    if order.size == 0:
        return pg_max, pg_min
    # the first row's dot product alone; every later row's comes with the update of the row before it
    m = _halves(codes, offsets[order[0]], offsets[order[0] + 1], l, rc, buf)
    for ch in range(chunks):
        partial[ch] = _sweep(buf, 0, 0.0, buf, m, m // 2 if rc else m, left_t, right_t, w, choices, both,
                             ch * step, min(n_choice, (ch + 1) * step))
    for t in range(order.size):
        i = order[t]
        dot = 0.0
        for ch in range(chunks):
            dot += partial[ch]
        if rc:
            dot *= 2.0
        g = y[i] * (scale[i] * dot + bias * bias_w[0]) - 1.0
        a = alpha[i]
        shrink, pg = projected_gradient(g, a, C, pg_max_old, pg_min_old)
        keep[t] = 0 if shrink else 1
        value = 0.0
        if not shrink:
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            if pg != 0.0:
                new = min(max(a - g / qii[i], 0.0), C)
                d = (new - a) * y[i]
                alpha[i] = new
                if d != 0.0:
                    value = d * scale[i]
                    bias_w[0] += d * bias
        m_next = 0
        if t + 1 < order.size:
            nxt = order[t + 1]
            m_next = _halves(codes, offsets[nxt], offsets[nxt + 1], l, rc, next_buf)
        half_next = m_next // 2 if rc else m_next
        n_add = m if value != 0.0 else 0
        if (n_add + m_next) * n_choice >= parallel_from:
            for ch in prange(chunks):
                partial[ch] = _sweep(buf, n_add, value, next_buf, m_next, half_next, left_t, right_t, w, choices,
                                     both, ch * step, min(n_choice, (ch + 1) * step))
        elif n_add + m_next > 0:
            for ch in range(chunks):
                partial[ch] = _sweep(buf, n_add, value, next_buf, m_next, half_next, left_t, right_t, w, choices,
                                     both, ch * step, min(n_choice, (ch + 1) * step))
        buf, next_buf = next_buf, buf
        m = m_next
    return pg_max, pg_min


def dcd_pass(codes, offsets, y, scale, qii, order, alpha, w, bias_w, C, bias, l, left_t, right_t, rc, buf,
             pg_max_old, pg_min_old, keep, choices, both):
    """One pass of dual coordinate descent for the hinge-loss SVM (L1-loss dual, as liblinear's)
    over the rows in ``order``; the bias is a constant feature of value ``bias`` (weight
    ``bias_w[0]``). ``w`` holds the weights of the column choices ``choices`` only: with ``rc``
    those of :func:`~seqimp.kernels.gkm._kernel.own_choices` (``both``: which read both strands), without
    every choice (``both`` all 1). Shrinking (liblinear's, Hsieh et al. 2008, section 3.2): a
    variable at 0 whose gradient exceeds ``pg_max_old``, or at ``C`` whose gradient is below
    ``pg_min_old`` (the last pass's largest and smallest projected gradient), is left where it is
    and marked ``keep[t] = 0`` (``keep[t] = 1`` for the others); ``pg_max_old = inf``, ``pg_min_old
    = -inf`` shrink nothing. Returns the largest and smallest projected gradient of the rows not
    shrunk. ``left_t``, ``right_t``: the half tables transposed (:class:`~seqimp.kernels.gkm._kernel.GkmTables`).
    A row's windows are those of :func:`~seqimp.kernels.gkm._kernel._halves`: the l-mers that cover no unknown base.
    Every thread numba runs takes part; the result is the same for any number."""
    return _pass(codes, offsets, y, scale, qii, order, alpha, w, bias_w, C, bias, l, left_t, right_t, rc,
                 choices, both, buf, np.empty_like(buf), pg_max_old, pg_min_old, keep,
                 min(CHUNKS, choices.size), PARALLEL_FROM)
