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
removed from row i (one scatter per clipped row). ``a'`` is dual-feasible and ``w' = w(a')``,
so the point is an iterate of the same problem; it is kept only when ``D(a') > D(a)``
(the clip can cost more than the step gains), else the pass's own iterate stays.

Memory: one more weight vector (``w_prev``, 8 (q + 1) bytes) and one more vector of n dual
variables.
"""

from __future__ import annotations

import numba
import numpy as np

from ._layout import row_addresses

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


@numba.njit(cache=True, parallel=True)
def _step_into(w, w_prev, t):
    """``w_prev <- w + t (w - w_prev)`` (the unclipped extrapolated weights, written over ``w_prev``);
    returns their squared norm (64 fixed chunks, as :func:`_direction_products`)."""
    n = w.shape[0]
    chunks = 64
    size = (n + chunks - 1) // chunks
    parts = np.zeros(chunks)
    for ch in numba.prange(chunks):
        acc = 0.0
        for q in range(ch * size, min(n, (ch + 1) * size)):
            new = w[q] + t * (w[q] - w_prev[q])
            w_prev[q] = new
            acc += new * new
        parts[ch] = acc
    total = 0.0
    for ch in range(chunks):
        total += parts[ch]
    return total


@numba.njit(cache=True, nogil=True)
def _clip_step(codes, sign, alpha, alpha_prev, upper, rows, t, out_alpha, w, lay, sqb, degree, base):
    """``out_alpha[i] = clip(alpha[i] + t d_i, 0, C_i)`` on ``rows`` (d = alpha - alpha_prev); for every
    clipped row, ``w -= e_i y_i (phi_i, 1)`` with ``e_i`` the part the clip removed. Returns the
    number of clipped rows and the change of ``||w||^2`` by their updates (added up as they are made)."""
    p = w.shape[0] - 1
    length = codes.shape[1]
    nnz = 0
    for k in range(1, degree + 1):
        nnz += length - k + 1
    buf = np.empty(nnz, dtype=np.int64)
    kmer = np.empty(length, dtype=np.int64)
    clipped = 0
    norm_change = 0.0
    for j in range(rows.shape[0]):
        i = rows[j]
        raw = alpha[i] + t * (alpha[i] - alpha_prev[i])
        new = min(max(raw, 0.0), upper[i])
        out_alpha[i] = new
        excess = raw - new
        if excess != 0.0:
            clipped += 1
            c = -excess * sign[i]
            row_addresses(codes[i], lay, degree, base, buf, kmer)
            start = 0
            for k in range(1, degree + 1):
                ck = c * sqb[k - 1]
                stop = start + length - k + 1
                for q in range(start, stop):
                    old = w[buf[q]]
                    norm_change += ck * (2.0 * old + ck)
                    w[buf[q]] = old + ck
                start = stop
            norm_change += c * (2.0 * w[p] + c)
            w[p] += c
    return clipped, norm_change


def extrapolate_pass(X, sign, alpha, alpha_prev, upper, rows, w, w_prev, layout, sqb, degree, base, *,
                     max_step=10.0):
    """Line search of the dual along the last pass's move (module docstring), in place.

    Parameters
    ----------
    X : ndarray of shape (n, L), uint8
    sign : ndarray of shape (n,)
        Labels as +-1.
    alpha, alpha_prev : ndarray of shape (n,)
        Dual variables after and before the pass; ``alpha`` is overwritten by the new point
        when it is kept, ``alpha_prev`` is scratch afterwards.
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
        Largest step t along the pass's move (the pass itself is t = 1 from ``alpha_prev``).

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
    d_sum = float(np.sum(alpha[rows]) - np.sum(alpha_prev[rows]))
    ww, wd, dd = _direction_products(w, w_prev)
    if not dd > 0.0:
        return w, 0.0, 0.0, 0
    t = min((d_sum - wd) / dd, max_step)
    if not t > 0.0:
        return w, 0.0, 0.0, 0
    before = float(np.sum(alpha)) - 0.5 * ww
    norm2 = _step_into(w, w_prev, t)
    new_alpha = alpha.copy()
    clipped, norm_change = _clip_step(X, sign, alpha, alpha_prev, upper, rows, t, new_alpha, w_prev, layout.table,
                                      sqb, degree, base)
    after = float(np.sum(new_alpha)) - 0.5 * (norm2 + norm_change)
    if not after > before:
        return w, 0.0, 0.0, int(clipped)
    alpha[:] = new_alpha
    return w_prev, float(t), after - before, int(clipped)
