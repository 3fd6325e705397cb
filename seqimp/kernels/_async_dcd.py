"""Dual coordinate descent on shared weights, several threads at once (PASSCoDe-style).

One pass of :func:`~seqimp.kernels._dcd.dcd_svm` is a chain of coordinate steps, each reading the
weights the previous one wrote. :class:`AsyncPasses` runs a pass on K threads of one process with
one weight vector (Hsieh, Yu and Dhillon, ICML 2015, "PASSCoDe-Wild"): the pass's order of the
active rows is cut into K contiguous slices, and each thread steps its slice row after row as the
one-thread solver does -- gather ``w.phi``, step the row's dual variable, scatter ``w += d phi`` --
reading and writing the shared ``w`` without locks or barriers. The threads meet only at the end of
the pass. A step reads weights that another thread may be changing, so it may miss the last few
updates of the other rows (the staleness is a handful of rows at K threads); on the rare occasion
that two threads add to the same weight at the same instant one addition is lost, so ``w`` drifts
from ``w(a) = sum_i y_i a_i (phi_i, 1)`` by a little (measured in ``docs/multicore.md``). The bias,
the one weight every step changes, is put back to ``sum_i y_i a_i`` after every pass.

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

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from ._dual_step import projected_gradient
from ._layout import _dot_buf, row_addresses, row_buffers

__all__ = ["AsyncPasses", "rebuild_weights"]


@numba.njit(cache=True, nogil=True, inline="always")
def _tracked_add(buf, w, low, c, sqb, degree, length, k0):
    """``w += c phi`` of one row, and orders 1..k0 also into ``low`` (this thread's own record of them)."""
    start = 0
    for k in range(1, degree + 1):
        ck = c * sqb[k - 1]
        stop = start + length - k + 1
        if k <= k0:
            for j in range(start, stop):
                w[buf[j]] += ck
                low[buf[j]] += ck
        else:
            for j in range(start, stop):
                w[buf[j]] += ck
        start = stop


@numba.njit(cache=True, nogil=True)
def _shared_steps(codes, sign, alpha, upper, w, low, k0, lay, sqb, degree, base, qd, order, lo, hi,
                  pg_max_old, pg_min_old, pg, buf, kmer):
    """Coordinate steps of liblinear's L1-loss SVM dual on the rows ``order[lo:hi]``, on a ``w`` (bias last)
    other threads step too; the additions to orders 1..``k0`` and to the bias are also added to this
    thread's own ``low`` (the bias in its last slot). Shrinking as :func:`~seqimp.kernels._dcd._svm_steps`; the kept rows end up first in
    ``order[lo:hi]`` (in their order), the shrunk ones last. ``pg``: this thread's running (max, min)
    projected gradient. Returns the number kept."""
    p = w.shape[0] - 1
    length = codes.shape[1]
    kept = lo
    shrunk = hi
    j = lo
    while j < shrunk:
        i = order[j]
        row_addresses(codes[i], lay, degree, base, buf, kmer)
        yi = sign[i]
        g = yi * (_dot_buf(buf, w, sqb, degree, length) + w[p]) - 1.0
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
        if proj > pg[0]:
            pg[0] = proj
        if proj < pg[1]:
            pg[1] = proj
        if abs(proj) > 1.0e-12:
            new = min(max(a - g / qd, 0.0), c)
            alpha[i] = new
            d = (new - a) * yi
            if d != 0.0:
                _tracked_add(buf, w, low, d, sqb, degree, length, k0)
                w[p] += d
                low[low.shape[0] - 1] += d
    return kept - lo


@numba.njit(cache=True, parallel=True)
def _rebuild(codes, coef, w, lay, sqb, degree, base, blocks, rows_per_chunk):
    """``w += sum_r coef[r] phi_r`` (not the bias): the positions are cut into ``blocks`` ranges and each
    range's weights are added by one thread, rows in order, so every weight gets the same additions in
    the same order whatever the threads (and as one thread adding row after row would). The rows go in
    chunks whose codes stay in the shared cache while every range reads them."""
    n, length = codes.shape
    width = np.ones(degree + 1, dtype=np.int64)          # width[k] = base^(k-1)
    for k in range(2, degree + 1):
        width[k] = width[k - 1] * base
    size = (length + blocks - 1) // blocks
    for r0 in range(0, n, rows_per_chunk):
        r1 = min(n, r0 + rows_per_chunk)
        for b in numba.prange(blocks):
            lo = b * size
            hi = min(length, lo + size)
            for r in range(r0, r1):
                c = coef[r]
                if c == 0.0:
                    continue
                for i in range(lo, hi):
                    y = np.int64(0)
                    for k in range(1, min(degree, length - i) + 1):
                        prev = y
                        x = np.int64(codes[r, i + k - 1])
                        y = prev * base + x
                        if lay[2, k - 1]:
                            addr = lay[0, k - 1] + (i * width[k] + prev) * lay[1, k - 1] + 1 + x
                        else:
                            addr = lay[0, k - 1] + (i * width[k] * base + y) * lay[1, k - 1]
                        w[addr] += c * sqb[k - 1]


def rebuild_weights(X, sign, alpha, w, layout, sqb, degree, base, n_threads=None):
    """``w`` <- ``w(a) = sum_i y_i a_i (phi_i, 1)`` exactly, in place, on ``n_threads`` threads (None: numba's);
    bit for bit the same for every thread count (:func:`_rebuild`)."""
    previous = numba.get_num_threads()
    threads = previous if n_threads is None else max(1, min(int(n_threads), numba.config.NUMBA_NUM_THREADS))
    coef = sign * alpha
    w[:] = 0.0
    numba.set_num_threads(threads)
    try:
        _rebuild(X, coef, w, layout.table, sqb, degree, base, min(X.shape[1], 4 * threads), 4096)
    finally:
        numba.set_num_threads(previous)
    w[-1] = float(np.sum(coef))


#: the low orders whose additions each thread also keeps to itself (and which are put right at every
#: merge) take at most this many weights (1 MB: they stay in the cores' caches)
LOW_WEIGHTS = 1 << 17
#: rows each thread steps between two merges
SYNC_ROWS = 4096


def low_orders(layout, max_weights=LOW_WEIGHTS):
    """``(k0, end)``: the orders 1..k0 that :class:`AsyncPasses` keeps exact, the largest k0 whose weights
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

    The pass's rows are cut into K slices; the threads step theirs on the shared ``w`` without locks,
    meeting every ``sync_rows`` rows each. The lowest orders (:func:`low_orders`: 1..4 for DNA at
    degree 8, the weights every row touches) are where two threads' additions collide and one is
    lost; each thread also adds its updates of those orders and of the bias to a vector of its own,
    and where the threads meet those weights are set to their exact value (their value at the last
    meeting plus every thread's own additions). The higher orders keep the rare lost addition.

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
    sync_rows : int, default=SYNC_ROWS
        Rows each thread steps between two meetings.
    """

    def __init__(self, X, sign, alpha, upper, layout, sqb, degree, base, qd, n_threads, sync_rows=SYNC_ROWS):
        self.X, self.sign, self.alpha, self.upper = X, sign, alpha, upper
        self.lay, self.sqb, self.degree, self.base, self.qd = layout.table, sqb, degree, base, float(qd)
        self.K = int(n_threads)
        self.sync_rows = int(sync_rows)
        self.k0, self.end = low_orders(layout)
        self.lows = [np.zeros(self.end + 1) for _ in range(self.K)]     # each thread's additions: orders 1..k0, bias
        self.base_low = np.zeros(self.end + 1)
        self.bufs = [row_buffers(X.shape[1], degree) for _ in range(self.K)]

    def _low_view(self, w):
        """The weights kept exact, as one vector: ``w[:end]`` and the bias."""
        return np.concatenate([w[:self.end], w[-1:]])

    def _merge(self, w):
        """The low orders and the bias of ``w`` set to their exact value: their value at the last meeting plus
        every thread's own additions since (threads in order); the threads' records back to 0."""
        exact = self.base_low
        for low in self.lows:
            exact += low
            low[:] = 0.0
        w[:self.end] = exact[:-1]
        w[-1] = exact[-1]

    def _steps(self, k, w, order, a, b, pg, pg_max_old, pg_min_old):
        buf, kmer = self.bufs[k]
        if a >= b:
            return 0
        return _shared_steps(self.X, self.sign, self.alpha, self.upper, w, self.lows[k], self.k0, self.lay, self.sqb,
                             self.degree, self.base, self.qd, order, a, b, pg_max_old, pg_min_old, pg, buf, kmer)

    def run(self, w, order, active, pg_max_old, pg_min_old, bar=None):
        """One pass over ``order[:active]`` (shuffled by the caller) on the weights ``w`` (the solver's layout,
        bias last; in place). The rows that stay active are moved to the front of ``order``. Returns
        ``(active, pg_max, pg_min)``: the rows still active and the projected-gradient range of the pass over
        all threads (liblinear's shrinking thresholds for the next pass)."""
        K, step = self.K, self.sync_rows
        self.base_low = self._low_view(w)
        for low in self.lows:
            low[:] = 0.0
        bounds = np.linspace(0, active, K + 1).round().astype(np.int64)
        pgs = [np.array([-np.inf, np.inf]) for _ in range(K)]
        pieces = []
        rounds = max(-(-int(bounds[k + 1] - bounds[k]) // step) for k in range(K))
        with ThreadPoolExecutor(K) as pool:
            for r in range(rounds):
                spans = [(int(min(bounds[k] + r * step, bounds[k + 1])), int(min(bounds[k] + (r + 1) * step,
                                                                                  bounds[k + 1]))) for k in range(K)]
                kept = list(pool.map(lambda k, spans=spans: self._steps(k, w, order, *spans[k], pgs[k], pg_max_old,
                                                                          pg_min_old),
                                     range(K)))
                self._merge(w)
                pieces.extend((a, b, m) for (a, b), m in zip(spans, kept) if b > a)
                if bar is not None:
                    bar.update(sum(b - a for a, b in spans))
        n_kept = int(sum(m for _, _, m in pieces))
        if n_kept < active:
            order[:active] = np.concatenate([order[a:a + m] for a, _, m in pieces]
                                            + [order[a + m:b] for a, b, m in pieces])
        return n_kept, max(pg[0] for pg in pgs), min(pg[1] for pg in pgs)
