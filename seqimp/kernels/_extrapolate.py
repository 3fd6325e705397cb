"""A line search of the SVM dual along the last pass's direction (the fast route's ``extrapolate``).

Dual coordinate descent's gains decay geometrically, at a rate that worsens with n (0.7 a pass
at 10^5 sequences, about 0.9 at 10^6, ``docs/training-at-scale.md``): late in a fit the error
is mostly a few slow directions, and each pass moves along them by a similar step. After a
pass that moved the dual variables by ``d = a - a_prev`` and the weights by
``dw = w - w_prev`` (``w`` is linear in ``a``: ``dw = sum_i d_i y_i (phi_i, 1)``),
:func:`extrapolate_pass` looks further along that direction. The dual

    D(a) = sum(a) - ||w(a)||^2 / 2

is a concave quadratic along ``a + t d``: ``D(t) = D(0) + t (sum(d) - w.dw) - t^2 ||dw||^2 / 2``,
largest at ``t* = (sum(d) - w.dw) / ||dw||^2``. The step taken is ``t = t*`` (at most
``max_step``), projected on the box: ``a' = clip(a + t d, 0, C)``, and the weights follow
exactly, ``w' = w + t dw - sum_(clipped i) e_i y_i (phi_i, 1)`` with ``e_i`` what the clip
removed from row i (one row update per clipped row; most of them rows that the pass moved to
0). ``a'`` is dual-feasible and ``w' = w(a')``, so the point is an iterate of the same
problem; it is kept only when ``D(a') > D(a)`` (the clip can cost more than the step gains),
else the pass's own iterate stays. (Leaving the rows that the pass moved onto a bound out of
the direction before the search, instead of clipping them after it, was measured too: the
same passes at 10^5 and 10^6, ``docs/training-at-scale.md``.)

Memory: one more weight vector (``w_prev``, 8 (q + 1) bytes) and a few vectors over the
training rows.
"""

from __future__ import annotations

import numba
import numpy as np

from ._layout import _add_buf, _dot_buf
from ._implicit import row_norm2
from ._layout import row_addresses, row_buffers, row_norm2_buf
from ._sgd_rule import combine_into

__all__ = ["extrapolate_pass"]


@numba.njit(cache=True, parallel=True)
def _direction_products(w, w_prev):
    """``(w.w, w.dw, dw.dw)`` with ``dw = w - w_prev``, in one sweep over 64 fixed chunks added in order
    (the sums do not depend on the number of threads)."""
    n = w.shape[0]
    chunks = 64
    size = (n + chunks - 1) // chunks
    parts = np.zeros((chunks, 3))
    for ch in numba.prange(chunks):
        ww = 0.0
        wd = 0.0
        dd = 0.0
        for q in range(ch * size, min(n, (ch + 1) * size)):
            delta = w[q] - w_prev[q]
            ww += w[q] * w[q]
            wd += w[q] * delta
            dd += delta * delta
        parts[ch, 0] = ww
        parts[ch, 1] = wd
        parts[ch, 2] = dd
    ww = 0.0
    wd = 0.0
    dd = 0.0
    for ch in range(chunks):
        ww += parts[ch, 0]
        wd += parts[ch, 1]
        dd += parts[ch, 2]
    return ww, wd, dd


@numba.njit(cache=True, nogil=True)
def _add_rows(codes, rows, coef, w, lay, sqb, degree, base, norm2_phi):
    """``w += coef[j] (phi_i, 1)`` for ``i = rows[j]``, one row after the other; returns the change of
    ``||w||^2``, ``2 c w.(phi, 1) + c^2 ||(phi, 1)||^2`` per row (``norm2_phi = ||(phi, 1)||^2`` of a row without
    unknown symbols; a row with some has its own)."""
    p = w.shape[0] - 1
    length = codes.shape[1]
    buf, kmer = row_buffers(length, degree)
    norm_change = 0.0
    for j in range(rows.shape[0]):
        c = coef[j]
        full = row_addresses(codes[rows[j]], lay, degree, base, buf, kmer)
        norm2 = norm2_phi if full else row_norm2_buf(buf, sqb, degree) + 1.0     # a row with unknown symbols
        norm_change += c * (2.0 * (_dot_buf(buf, w, sqb, degree, length) + w[p]) + c * norm2)
        _add_buf(buf, w, c, sqb, degree, length)
        w[p] += c
    return norm_change


#: with this many clipped rows or more, a step whose first quarter of clipped rows, scaled up, undoes
#: the step's gain is refused before the other rows' updates are paid for
QUICK_REJECT_ROWS = 4096


def extrapolate_pass(X, sign, alpha, alpha_prev, upper, rows, w, w_prev, layout, sqb, degree, base, *,
                     max_step=10.0, quick_reject_rows=QUICK_REJECT_ROWS):
    """Line search of the dual along the last pass's move (module docstring), in place.

    Parameters
    ----------
    X : ndarray of shape (n, L), uint8
    sign : ndarray of shape (n,)
        Labels as +-1.
    alpha, alpha_prev : ndarray of shape (n,)
        Dual variables after and before the pass; ``alpha`` is overwritten by the new point
        when it is kept.
    upper : ndarray of shape (n,)
        Bounds C_i.
    rows : ndarray of int64
        The training rows (the only ones whose dual variables move).
    w, w_prev : ndarray of shape (q + 1,)
        The solver's weights after and before the pass (layout of ``layout``, bias last);
        ``w_prev`` is overwritten (scratch).
    layout : SolverLayout
    sqb : ndarray of shape (degree,)
    degree, base : int
    max_step : float, default=10.0
        Largest step t along the move (the pass itself is t = 1 from ``alpha_prev``).
    quick_reject_rows : int, default=QUICK_REJECT_ROWS
        From this many clipped rows on, their updates are made in two parts: after the
        first quarter (in the order of ``rows``) the dual's change so far, scaled up to all
        of them, is compared with the step's gain, and a step it undoes is refused there
        (refusing is always safe; a step is kept only on the exact dual of all its rows).
        Early in a fit, when many rows are leaving the support vectors, most steps are
        refused with hundreds of thousands of clipped rows (10^6-10^7 sequences).

    Returns
    -------
    w : ndarray
        The weights to go on with: ``w_prev``'s buffer holding the new point when it was kept,
        else ``w``.
    step : float
        The step t taken (0.0 when none).
    gain : float
        The dual's rise over the pass's own iterate (0.0 when none).
    clipped : int
        Rows whose step the box clipped.
    """
    rows = np.asarray(rows, dtype=np.int64)
    a = alpha[rows]
    d = a - alpha_prev[rows]
    ww, wd, dd = _direction_products(w, w_prev)
    if not dd > 0.0:
        return w, 0.0, 0.0, 0
    t = min((float(d.sum()) - wd) / dd, max_step)
    if not t > 0.0:
        return w, 0.0, 0.0, 0
    total = float(np.sum(alpha))
    before = total - 0.5 * ww
    _, norm2, _ = combine_into(w_prev, -t, w, 1.0 + t, w, 0.0)       # w_prev <- w + t (w - w_prev)
    raw = a + t * d
    new = np.minimum(np.maximum(raw, 0.0), upper[rows])
    out = raw != new
    clipped = rows[out]
    m = int(clipped.shape[0])
    unclipped = total - float(np.sum(a)) + float(np.sum(raw)) - 0.5 * norm2      # D(a + t d), before the clip
    removed = new[out] - raw[out]                                               # -e_i
    coef = removed * sign[clipped]
    norm2_phi = row_norm2(X.shape[1], degree) + 1.0
    first = m // 4 if m >= quick_reject_rows else m
    change = float(np.sum(removed[:first])) - 0.5 * _add_rows(X, clipped[:first], coef[:first], w_prev,
                                                              layout.table, sqb, degree, base, norm2_phi)
    if first < m:
        if not unclipped + change * (m / first) > before:
            return w, 0.0, 0.0, m
        change += float(np.sum(removed[first:])) - 0.5 * _add_rows(X, clipped[first:], coef[first:], w_prev,
                                                                   layout.table, sqb, degree, base, norm2_phi)
    after = unclipped + change
    if not after > before:
        return w, 0.0, 0.0, m
    alpha[rows] = new
    return w_prev, float(t), after - before, m
