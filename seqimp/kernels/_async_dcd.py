"""Dual coordinate descent on shared weights, several threads at once (PASSCoDe-style).

One pass of :func:`~seqimp.kernels._dcd.dcd_svm` is a chain of coordinate steps, each reading the
weights the previous one wrote. :class:`AsyncPasses` runs a pass on K threads of one process with
one weight vector (Hsieh, Yu and Dhillon, ICML 2015, "PASSCoDe-Wild"): the pass's order of the
active rows is cut into K contiguous slices, and each thread steps its slice row after row as the
one-thread solver does -- gather ``w.phi``, step the row's dual variable, scatter ``w += d phi`` --
reading and writing the shared higher orders of ``w`` without locks, meetings or barriers. A step may
miss the last few updates of the other threads' rows, and on the rare occasion that two threads add to
the same weight at the same instant one addition is lost.

The lowest orders (:func:`low_orders`: 1..4 for DNA at degree 8) and the bias are the weights every
row touches. Shared, the threads would write the same cache lines at every step (each write taking
the line from the other core) and lose additions there all the time. So each thread reads and adds
them in a copy of its own, keeps its own additions apart, and every ``refresh_rows`` rows sets its
copy to their value at the pass's start plus every thread's additions; at the end of the pass they
are set in ``w`` to that sum, exactly those of the dual variables.

The dual variables stay in their box whatever the scheduling (each row is stepped by one thread),
and the threads' steps follow the same rule as the one-thread solver's, so the passes go to the
same optimum; the exact route certifies it as the one-thread solver does after the last pass
(:func:`rebuild_weights` recomputes ``w(a)``, then one-thread passes until liblinear's rule holds).
What the threads do in which order depends on the scheduler: two runs give the same model up to the
last digits, not bit for bit (``deterministic=True`` in :class:`~seqimp.WDClassifier` keeps the
one-thread chain).

Threads are Python threads running a numba kernel that releases the GIL (one per slice).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, wait

import numba
import numpy as np

from ._dual_step import projected_gradient, widen
from ._layout import _dot_split, row_addresses, row_buffers, row_count, row_norm2_buf

__all__ = ["AsyncPasses", "rebuild_weights"]


@numba.njit(cache=True, nogil=True, inline="always")
def _split_add(buf, w, mine, own, c, sqb, degree, length, k0):
    """``w += c phi`` of one row (no bias); orders 1..k0 go to this thread's copy ``mine`` and its own additions
    ``own`` instead of ``w``."""
    start = 0
    for k in range(1, degree + 1):
        ck = c * sqb[k - 1]
        stop = start + row_count(buf, degree, k)
        if k <= k0:
            for j in range(start, stop):
                mine[buf[j]] += ck
                own[buf[j]] += ck
        else:
            for j in range(start, stop):
                w[buf[j]] += ck
        start += length - k + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _refresh(mine, additions, start):
    """This thread's copy of the low orders and bias: their value at the pass's start plus every thread's
    additions so far (threads in order; the others' may be a few rows behind)."""
    for a in range(mine.shape[0]):
        total = start[a]
        for t in range(additions.shape[0]):
            total += additions[t, a]
        mine[a] = total


@numba.njit(cache=True, nogil=True)
def _shared_steps(codes, sign, alpha, upper, w, mine, additions, t, start, refresh, done, k0, lay, sqb, degree, base,
                  qd, order, lo, hi, pg_max_old, pg_min_old, pg, buf, kmer):
    """Coordinate steps of liblinear's L1-loss SVM dual on the rows ``order[lo:hi]``, on a ``w`` (bias last)
    other threads step too. Orders 1..``k0`` and the bias are read from and added to this thread's copy
    ``mine`` (the bias in its last slot), never to ``w``; the additions also go to ``additions[t]``, and every
    ``refresh`` rows ``mine`` is set to ``start`` plus all threads' additions (:func:`_refresh`). ``done[t]``
    counts the rows visited (for a progress bar). Shrinking as :func:`~seqimp.kernels._dcd._svm_steps`; the
    kept rows end up first in ``order[lo:hi]`` (in their order), the shrunk ones last. ``pg``: this thread's
    running (max, min) projected gradient. Returns the number kept."""
    length = codes.shape[1]
    own = additions[t]
    bias = mine.shape[0] - 1
    kept = lo
    shrunk = hi
    j = lo
    visited = 0
    while j < shrunk:
        visited += 1
        if visited % refresh == 0:
            _refresh(mine, additions, start)
            done[t] = visited
        i = order[j]
        full = row_addresses(codes[i], lay, degree, base, buf, kmer)
        yi = sign[i]
        g = yi * (_dot_split(buf, w, mine, sqb, degree, length, k0) + mine[bias]) - 1.0
        c = upper[i]
        a = alpha[i]
        out, proj = projected_gradient(g, a, c, pg_max_old, pg_min_old)
        if out:                                   # swap to the end of the slice; order[j] is unvisited now
            shrunk -= 1
            order[j] = order[shrunk]
            order[shrunk] = i
            continue
        order[kept] = i
        kept += 1
        j += 1
        widen(pg, proj)
        if abs(proj) > 1.0e-12:
            q = qd if full else row_norm2_buf(buf, sqb, degree) + 1.0
            new = min(max(a - g / q, 0.0), c)
            alpha[i] = new
            d = (new - a) * yi
            if d != 0.0:
                _split_add(buf, w, mine, own, d, sqb, degree, length, k0)
                mine[bias] += d
                own[bias] += d
    done[t] = visited
    return kept - lo


@numba.njit(cache=True, nogil=True, inline="always")
def _add_positions(x, c, w, lay, sqb, degree, base, width, lo, hi):
    """``w += c phi(x)`` (no bias) at the positions ``lo..hi-1`` (the k-mers starting there, those that cover no
    unknown symbol); ``width[k] = base^(k-1)``."""
    length = x.shape[0]
    for i in range(lo, hi):
        y = np.int64(0)
        for k in range(1, min(degree, length - i) + 1):
            prev = y
            xc = np.int64(x[i + k - 1])
            if xc >= base:              # this k-mer and the longer ones at i cover an unknown symbol
                break
            y = prev * base + xc
            if lay[2, k - 1]:
                addr = lay[0, k - 1] + (i * width[k] + prev) * lay[1, k - 1] + 1 + xc
            else:
                addr = lay[0, k - 1] + (i * width[k] * base + y) * lay[1, k - 1]
            w[addr] += c * sqb[k - 1]


@numba.njit(cache=True, parallel=True)
def _rebuild(codes, coef, w, lay, sqb, degree, base, blocks, rows_per_chunk):
    """``w += sum_r coef[r] phi_r`` (not the bias): the positions are cut into ``blocks`` ranges and each
    range's weights are added by one thread, rows in order, so every weight gets the same additions in
    the same order whatever the threads (and as one thread adding row after row would). The rows go in
    chunks whose codes stay in the shared cache while every range reads them."""
    n, length = codes.shape
    width = _widths(degree, base)
    size = (length + blocks - 1) // blocks
    for r0 in range(0, n, rows_per_chunk):
        r1 = min(n, r0 + rows_per_chunk)
        for b in numba.prange(blocks):
            lo = b * size
            hi = min(length, lo + size)
            for r in range(r0, r1):
                if coef[r] != 0.0:
                    _add_positions(codes[r], coef[r], w, lay, sqb, degree, base, width, lo, hi)


@numba.njit(cache=True)
def _widths(degree, base):
    """``width[k] = base^(k-1)``, k = 0..degree (width[0] unused)."""
    width = np.ones(degree + 1, dtype=np.int64)
    for k in range(2, degree + 1):
        width[k] = width[k - 1] * base
    return width


def _with_threads(threads, fn, *args):
    """``fn(*args)`` with numba's thread count set to ``threads`` (put back after)."""
    previous = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        return fn(*args)
    finally:
        numba.set_num_threads(previous)


def rebuild_weights(X, sign, alpha, w, layout, sqb, degree, base, n_threads=None):
    """``w`` <- ``w(a) = sum_i y_i a_i (phi_i, 1)`` exactly, in place, on ``n_threads`` threads (None: numba's);
    bit for bit the same for every thread count (:func:`_rebuild`)."""
    threads = numba.get_num_threads() if n_threads is None else n_threads
    coef = sign * alpha
    w[:] = 0.0
    _with_threads(threads, _rebuild, X, coef, w, layout.table, sqb, degree, base,
                  min(X.shape[1], 4 * max(1, int(threads))), 4096)
    w[-1] = float(np.sum(coef))


#: the low orders that each thread keeps a copy of (the weights every row touches) take at most this many
#: weights (1 MB: the copies stay in the cores' caches)
LOW_WEIGHTS = 1 << 17
#: rows a thread steps between two refreshes of its copy of the low orders
REFRESH_ROWS = 512
#: ... and at most this share of its slice of a pass, so that the other threads' steps a copy misses stay a
#: small part of the pass also on few rows (a copy a whole pass old, on every thread, overshoots and diverges)
STALE_SHARE = 64


def low_orders(layout, max_weights=LOW_WEIGHTS):
    """``(k0, end)``: the orders 1..k0 that :class:`AsyncPasses` keeps a copy of per thread, the largest k0 whose weights
    ``w[:end]`` number at most ``max_weights`` and end on a record boundary (with paired orders, k0 even or
    the degree); ``(0, 0)`` when even order 1 is larger."""
    table, degree = layout.table, layout.degree
    best = (0, 0)
    for k in range(1, degree + 1):
        if k < degree and table[2, k]:          # order k + 1 shares order k's records: no boundary here
            continue
        end = int(table[0, k]) if k < degree else int(layout.size)
        if end <= max_weights:
            best = (k, end)
    return best


class AsyncPasses:
    """Passes of dual coordinate descent on K threads sharing one weight vector (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n, L), uint8
        Codes (or a read-only memory map).
    sign, upper : ndarray of shape (n,)
        Labels as +-1 and the bounds C_i.
    alpha : ndarray of shape (n,)
        Dual variables, updated in place (each row by the thread whose slice holds it).
    layout, sqb, degree, base, qd
        The solver's constants (:func:`~seqimp.kernels._dcd.svm_start`).
    n_threads : int
        K >= 2.
    refresh_rows : int, default=REFRESH_ROWS
        Rows each thread steps between two refreshes of its copy of the low orders (fewer on small
        slices: at most 1/STALE_SHARE of a thread's slice).
    """

    def __init__(self, X, sign, alpha, upper, layout, sqb, degree, base, qd, n_threads, refresh_rows=REFRESH_ROWS):
        self.X, self.sign, self.alpha, self.upper = X, sign, alpha, upper
        self.lay, self.sqb, self.degree, self.base, self.qd = layout.table, sqb, degree, base, float(qd)
        self.K = int(n_threads)
        self.refresh_rows = int(refresh_rows)
        self.k0, self.end = low_orders(layout)
        stride = (self.end + 1 + 15) // 8 * 8          # rows of whole cache lines: no line written by two threads
        self.additions = np.zeros((self.K, stride))[:, :self.end + 1]     # each thread's additions: orders 1..k0, bias
        self.mines = np.zeros((self.K, stride))[:, :self.end + 1]         # each thread's copy of them
        self.done = np.zeros(self.K, dtype=np.int64)
        self.bufs = [row_buffers(X.shape[1], degree) for _ in range(self.K)]

    def _steps(self, k, w, start, refresh, order, a, b, pg, pg_max_old, pg_min_old):
        buf, kmer = self.bufs[k]
        if a >= b:
            return 0
        return _shared_steps(self.X, self.sign, self.alpha, self.upper, w, self.mines[k], self.additions, k, start,
                             refresh, self.done, self.k0, self.lay, self.sqb, self.degree, self.base,
                             self.qd, order, a, b, pg_max_old, pg_min_old, pg, buf, kmer)

    def run(self, w, order, active, pg_max_old, pg_min_old, bar=None):
        """One pass over ``order[:active]`` (shuffled by the caller) on the weights ``w`` (the solver's layout,
        bias last; in place). The rows that stay active are moved to the front of ``order``. Returns
        ``(active, pg_max, pg_min)``: the rows still active and the projected-gradient range of the pass over
        all threads (liblinear's shrinking thresholds for the next pass)."""
        K = self.K
        start = np.concatenate([w[:self.end], w[-1:]])
        self.additions[:] = 0.0
        self.mines[:] = start
        self.done[:] = 0
        bounds = np.linspace(0, active, K + 1).round().astype(np.int64)
        spans = [(int(bounds[k]), int(bounds[k + 1])) for k in range(K)]
        refresh = max(1, min(self.refresh_rows, (active // K) // STALE_SHARE))
        pgs = [np.array([-np.inf, np.inf]) for _ in range(K)]
        with ThreadPoolExecutor(K) as pool:
            jobs = [pool.submit(self._steps, k, w, start, refresh, order, *spans[k], pgs[k], pg_max_old, pg_min_old)
                    for k in range(K)]
            shown = 0
            while wait(jobs, timeout=0.5).not_done:
                if bar is not None:
                    now = int(self.done.sum())
                    bar.update(now - shown)
                    shown = now
            kept = [job.result() for job in jobs]
        if bar is not None:
            bar.update(active - shown)
        exact = start + self.additions.sum(axis=0)
        w[:self.end] = exact[:-1]
        w[-1] = exact[-1]
        n_kept = int(sum(kept))
        if n_kept < active:
            order[:active] = np.concatenate([order[a:a + m] for (a, _), m in zip(spans, kept)]
                                            + [order[a + m:b] for (a, b), m in zip(spans, kept)])
        return n_kept, max(pg[0] for pg in pgs), min(pg[1] for pg in pgs)
