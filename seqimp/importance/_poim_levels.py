"""The levels both exact POIM engines share: chain quantities, the top-down phase, the base
level D and the orders m <= D.

The recursions and their meaning are documented in :mod:`seqimp.importance._poim_kernels` and
``docs/poim.md``. The in-memory engine (:mod:`seqimp.importance._poim_memory`) and the streaming
engine (:mod:`seqimp.importance._poim_stream`) call :func:`top_down` and :func:`lower_levels`,
then run their own bottom-up pass over the levels m > D (whole tables, or blocks of start
positions). Everything here is O(A**D * L) bookkeeping plus calls of the per-level kernels.
"""

from __future__ import annotations

import numpy as np

from ..background._markov import inner_index
from ._poim_kernels import CERTAIN, top_down_level

__all__ = ["DUMMY2", "chain_tables", "top_down", "lower_levels", "finish"]

#: Stands for an array a kernel does not read (numba needs an array of the right rank).
DUMMY2 = np.zeros((1, 1))


def chain_tables(background, length):
    """Forward and backward conditionals and the D-mer marginals of the background.

    Returns
    -------
    pf : ndarray of shape (L-D, A**D, A), C-contiguous
    pb : ndarray of shape (L, A, A**D); rows 0..L-D-1 are meaningful
    pd : ndarray of shape (L-D+1, A**D)
    """
    a, d = background.alphabet.size, background.order
    ad = a ** d
    pf = np.ascontiguousarray(background.transition_table(length), dtype=np.float64)
    pd = background.context_marginals(length)
    pb = np.zeros((length, a, ad))
    n = length - d
    joint = (pd[:n, :, None] * pf[:n]).reshape(n, a, ad)    # (D+1)-mer a*A**D + c at i
    den = pd[1:n + 1, None, :]
    pb[:n] = np.where(den > 0, joint / np.where(den > 0, den, 1.0), 0.0)
    return pf, pb, pd


def top_down(tables, a, d, length, pb, pf, *, outputs=None, tick=None):
    """Lambda, Rho and C of the levels n = max(degree, D) .. D.

    At the top level Lambda = Rho = W and G = C = 0 (no longer windows), so nothing is
    computed or allocated there.

    Parameters
    ----------
    tables : list of ndarray
        The weights, ``tables[k-1]`` of shape (L-k+1, A**k).
    a, d, length : int
        Alphabet size, Markov order D, sequence length L.
    pb, pf : ndarray
        From :func:`chain_tables`.
    outputs : (list, list), optional
        The in-memory engine's POIM and FIRM tables: level n's C and Lambda are written into
        ``outputs[0][n-1]`` and ``outputs[1][n-1]`` for D < n <= len(outputs[0]) instead of new
        arrays (its bottom-up pass overwrites each entry with POIM and FIRM after reading it).
    tick : callable, optional
        Called once per level.

    Returns
    -------
    lam, rho, cc : dict
        Level n -> table of shape (L-n+1, A**n); ``cc`` lacks the top level.
    """
    n_w = len(tables)
    n_out = len(outputs[0]) if outputs is not None else 0
    lam, rho, cc = {}, {}, {}
    g_next = None
    for n in range(max(n_w, d), d - 1, -1):
        has_w = 1 <= n <= n_w
        if n == max(n_w, d) and has_w:
            lam[n] = rho[n] = tables[n - 1]
        else:
            shape = (length - n + 1, a ** n)
            aliased = d < n <= n_out
            c_n = outputs[0][n - 1] if aliased else np.empty(shape)
            lam_n = outputs[1][n - 1] if aliased else np.empty(shape)
            rho_n, g_n = np.empty(shape), np.empty(shape)
            has_next, has_g = n + 1 in lam, g_next is not None
            top_down_level(n, d, a, length, tables[n - 1] if has_w else DUMMY2, has_w, lam.get(n + 1, DUMMY2),
                           rho.get(n + 1, DUMMY2), g_next if has_g else DUMMY2, has_next, has_g, pb, pf,
                           lam_n, rho_n, g_n, c_n)
            lam[n], rho[n], cc[n], g_next = lam_n, rho_n, c_n, g_n
        if tick is not None:
            tick()
    return lam, rho, cc


def _prefix_sums(tables, a, d, length):
    """Pre_D (windows starting at j inside the D-mer) and U_D at the last start."""
    n_w = len(tables)
    ad = a ** d
    y = np.arange(ad)
    pre = np.zeros((length - d + 1, ad))
    for k in range(1, min(d, n_w) + 1):
        pre += tables[k - 1][: length - d + 1, y // a ** (d - k)]
    inside = np.zeros(ad)
    for i in range(d):
        for k in range(1, min(n_w, d - i) + 1):
            inside += tables[k - 1][length - d + i, (y // a ** (d - i - k)) % a ** k]
    return pre, inside


def _base_level(tables, a, d, length, pf, pb, lam1, rho1):
    """Lx_D, Af_D and Pre_D by recursions over positions (D-mer contexts)."""
    ad = a ** d
    pre, inside = _prefix_sums(tables, a, d, length)
    c = np.arange(ad)
    left = (np.arange(a)[:, None] * ad + c[None, :])           # (a, c): (D+1)-mer a.c
    left_ctx = left // a                                        # its first D symbols
    right = c[:, None] * a + np.arange(a)[None, :]              # (c, a): (D+1)-mer c.a
    right_ctx = right % ad                                      # its last D symbols
    lx = np.zeros((length - d + 1, ad))
    for j in range(1, length - d + 1):
        term = lx[j - 1][left_ctx] + lam1[j - 1][left] + pre[j - 1][left_ctx]
        lx[j] = (pb[j - 1] * term).sum(axis=0)
    af = np.zeros((length - d + 1, ad))
    af[length - d] = inside
    for j in range(length - d - 1, -1, -1):
        term = af[j + 1][right_ctx] + pre[j][:, None] + rho1[j][right]
        af[j] = (pf[j] * term).sum(axis=1)
    return lx, af, pre


def finish(cond, pi, es):
    """POIM and FIRM tables from E[s | z at j] and P(z at j)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(pi > 0, cond - es, np.nan)
        firm = np.where((pi > 0) & (pi < CERTAIN), q * np.sqrt(pi / (1.0 - pi)), 0.0)
    return q, firm


def _short_levels(cond_d, pd, a, d, length, upto):
    """E[s | z at j] and P(z at j) for m < D by averaging the D-mer results."""
    out = []
    for m in range(1, upto + 1):
        cond = np.zeros((length - m + 1, a ** m))
        pi = np.zeros_like(cond)
        for j in range(length - m + 1):
            s0 = min(j, length - d)
            z = inner_index(d, m, j - s0, a)
            pi[j] = np.bincount(z, weights=pd[s0], minlength=a ** m)
            num = np.bincount(z, weights=pd[s0] * cond_d[s0], minlength=a ** m)
            cond[j] = np.where(pi[j] > 0, num / np.where(pi[j] > 0, pi[j], 1.0), 0.0)
        out.append((cond, pi))
    return out


def lower_levels(tables, bias, a, d, length, chain, lam, rho, cc, max_order, emit, *, tick=None):
    """The base level D and the orders m <= D: E[s(X)], their share of Var[s(X)], and the
    bottom-up state of level D.

    Parameters
    ----------
    tables, bias : the weights
    a, d, length : int
    chain : (pf, pb, pd) from :func:`chain_tables`
    lam, rho, cc : dict
        From :func:`top_down`; level D is taken out of them.
    max_order : int
    emit : callable
        ``emit(m, poim, firm)`` for each order m <= min(D, max_order), tables of shape
        (L-m+1, A**m).
    tick : callable, optional
        Called once per level m <= D (D >= 1).

    Returns
    -------
    lx, af, pre : ndarray of shape (L-D+1, A**D)
        Level D of the bottom-up recursions.
    expected_score : float
    variance : float
        The share of Var[s(X)] of the orders m <= min(D, degree).
    """
    pf, pb, pd = chain
    n_w = len(tables)
    zeros1 = np.zeros((length - d, a ** (d + 1)))
    lx, af, pre = _base_level(tables, a, d, length, pf, pb, lam.get(d + 1, zeros1), rho.get(d + 1, zeros1))
    cond_d = bias + lx + af + cc.pop(d, 0.0)
    lam.pop(d, None), rho.pop(d, None)
    es = float(pd[0] @ cond_d[0])
    variance = 0.0
    if d >= 1:                          # orders below and at D: averaging the D-mer results
        upto = min(d - 1, max(max_order, n_w))
        levels = list(zip(range(1, upto + 1), _short_levels(cond_d, pd, a, d, length, upto)))
        levels.append((d, (cond_d, pd)))
        for m, (cond, pi) in levels:
            q, firm = finish(cond, pi, es)
            if m <= n_w:
                variance += float(np.nansum(pi * tables[m - 1] * np.where(pi > 0, q, 0.0)))
            if m <= max_order:
                emit(m, q, firm)
            if tick is not None:
                tick()
    return lx, af, pre, es, variance
