"""Driver of the exact POIM engine: chain quantities, level loops, memory planning.

The recursions and their meaning are documented in ``seqimp._poim_kernels`` and
``docs/poim.md``. Everything here is O(A**D * L) bookkeeping plus calls of the per-level
kernels, whose total work is O(sum_n A**n * L) over the levels n = 1..max(max_order, degree, D).
"""

from __future__ import annotations


import numpy as np

from ._dp_kernels import CERTAIN, bottom_up_level, top_down_level
from ..background._markov import inner_index
from .._sizes import format_size, memory_budget
from ..errors import SeqimpError

_DUMMY2 = np.zeros((1, 1))


def _cells(a, n, length):
    return a ** n * max(length - n + 1, 0)


def estimate_bytes(a, length, degree, order, max_order) -> int:
    """Peak working memory of :func:`exact_conditional` in bytes (outputs included)."""
    ntd, nbu = max(degree, order), max(max_order, degree, order)
    out = 2 * sum(_cells(a, m, length) for m in range(1, max_order + 1))
    td = 0
    for n in range(order, ntd + 1):
        if n == ntd and 1 <= n <= degree:
            continue                        # the top level reuses the weight table
        td += _cells(a, n, length) * (1 if order < n <= max_order else 3)
    td += 2 * _cells(a, max(ntd - 1, order), length)     # G of two neighbouring levels
    bu = 4 * (_cells(a, nbu - 1, length) + _cells(a, max(nbu - 2, 0), length))
    return 8 * (out + td + bu) + 8 * a ** (order + 1) * length * 4


def check_memory(a, length, degree, order, max_order, max_memory) -> None:
    """Raise SeqimpError if the estimate exceeds ``max_memory`` bytes (None: half the available RAM)."""
    limit = memory_budget(max_memory)
    need = estimate_bytes(a, length, degree, order, max_order)
    if need <= limit:
        return
    fit = 0
    for k in range(max_order - 1, 0, -1):
        if estimate_bytes(a, length, degree, order, k) <= limit:
            fit = k
            break
    smallest = estimate_bytes(a, length, 1, 0, 1)
    if fit:
        hint = f"the largest max_order that fits is {fit}"
    elif smallest > limit:
        hint = f"even the smallest POIM of length {length} needs {format_size(smallest)}; raise max_memory"
    else:
        hint = "even max_order=1 does not fit (the weights' degree or the background order is too large)"
    raise SeqimpError(f"poim with max_order={max_order} needs about {format_size(need)}, more than "
                      f"max_memory={format_size(limit)}; {hint}")


def chain_tables(background, length):
    """Forward and backward conditionals and the D-mer marginals of the background.

    Returns
    -------
    pf : ndarray of shape (L-D, A**D, A)
    pb : ndarray of shape (L, A, A**D); rows 0..L-D-1 are meaningful
    pd : ndarray of shape (L-D+1, A**D)
    """
    a, d = background.alphabet.size, background.order
    ad = a ** d
    pf = np.ascontiguousarray(background.transition_table(length), dtype=np.float64)
    pd = background.context_marginals(length)
    pb = np.zeros((length, a, ad))
    for i in range(length - d):
        joint = (pd[i][:, None] * pf[i]).reshape(a, ad)   # (D+1)-mer a*A**D + c at i
        den = pd[i + 1]
        pb[i] = np.where(den > 0, joint / np.where(den > 0, den, 1.0), 0.0)
    return pf, pb, pd


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


def _finish(cond, pi, es):
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


def exact_conditional(tables, bias, background, max_order, *, progress=None):
    """Exact POIM and FIRM tables for orders 1..max_order.

    Parameters
    ----------
    tables : list of ndarray
        ``tables[k-1]`` of shape (L-k+1, A**k), float64, C-contiguous.
    bias : float
    background : MarkovBackground
    max_order : int
    progress : tqdm bar (:func:`seqimp._progress.progress_bar`), optional
        Updated once per level.

    Returns
    -------
    poim, firm : list of ndarray of shape (L-k+1, A**k)
    expected_score : float
    variance : float
        Var[s(X)] under the background.
    """
    a, d = background.alphabet.size, background.order
    length = tables[0].shape[0]
    n_w = len(tables)
    ntd, nbu = max(n_w, d), max(max_order, n_w, d)
    pf, pb, pd = chain_tables(background, length)
    poim_out = [np.empty((length - m + 1, a ** m)) for m in range(1, max_order + 1)]
    firm_out = [np.empty((length - m + 1, a ** m)) for m in range(1, max_order + 1)]

    def tick():
        if progress is not None:
            progress.update()

    # ---- top-down: Lam, Rho, C for levels ntd .. D. At the top level Lam = Rho = W and
    # G = C = 0 (no longer windows), so nothing is computed or allocated there.
    lam, rho, cc = {}, {}, {}
    g_next = None
    for n in range(ntd, d - 1, -1):
        has_w = 1 <= n <= n_w
        if n == ntd and has_w:
            lam[n] = rho[n] = tables[n - 1]
            tick()
            continue
        shape = (length - n + 1, a ** n)
        aliased = d < n <= max_order
        c_n = poim_out[n - 1] if aliased else np.empty(shape)
        lam_n = firm_out[n - 1] if aliased else np.empty(shape)
        rho_n, g_n = np.empty(shape), np.empty(shape)
        has_next = n + 1 in lam
        has_g = g_next is not None
        top_down_level(n, d, a, length, tables[n - 1] if has_w else _DUMMY2, has_w,
                       lam.get(n + 1, _DUMMY2), rho.get(n + 1, _DUMMY2),
                       g_next if has_g else _DUMMY2, has_next, has_g, pb, pf, lam_n, rho_n, g_n, c_n)
        lam[n], rho[n], cc[n], g_next = lam_n, rho_n, c_n, g_n
        tick()
    del g_next
    # ---- base level D
    zeros1 = np.zeros((length - d, a ** (d + 1)))
    lx, af, pre = _base_level(tables, a, d, length, pf, pb, lam.get(d + 1, zeros1), rho.get(d + 1, zeros1))
    cond_d = bias + lx + af + cc.pop(d, 0.0)
    lam.pop(d), rho.pop(d)
    es = float(pd[0] @ cond_d[0])
    variance = 0.0
    # ---- levels below and at D (D >= 1): averaging the D-mer results
    if d >= 1:
        upto = min(d - 1, max(max_order, n_w))
        levels = list(zip(range(1, upto + 1), _short_levels(cond_d, pd, a, d, length, upto)))
        levels.append((d, (cond_d, pd)))
        for m, (cond, pi) in levels:
            q, firm = _finish(cond, pi, es)
            if m <= n_w:
                variance += float(np.nansum(pi * tables[m - 1] * np.where(pi > 0, q, 0.0)))
            if m <= max_order:
                poim_out[m - 1][...] = q
                firm_out[m - 1][...] = firm
            tick()
    del cond_d
    # ---- bottom-up: levels D+1 .. nbu
    p_prev = pd
    for m in range(d + 1, nbu + 1):
        shape = (length - m + 1, a ** m)
        keep_next = m < nbu
        nxt = [np.empty(shape) for _ in range(4)] if keep_next else [_DUMMY2] * 4
        has_td = m <= ntd
        has_c = m in cc
        has_w = m <= n_w
        store = m <= max_order
        variance += bottom_up_level(
            m, d, a, length, float(bias), es, tables[m - 1] if has_w else _DUMMY2, has_w,
            lam.pop(m, _DUMMY2), rho.pop(m, _DUMMY2), has_td, cc.pop(m, _DUMMY2), has_c,
            lx, pre, af, p_prev, pf, nxt[0], nxt[1], nxt[2], nxt[3], keep_next,
            poim_out[m - 1] if store else _DUMMY2, firm_out[m - 1] if store else _DUMMY2, store,
            _DUMMY2, False, True)
        lx, pre, af, p_prev = nxt
        tick()
    return poim_out, firm_out, es, max(variance, 0.0)


def n_levels(n_w, d, max_order) -> int:
    """How many progress ticks :func:`exact_conditional` makes."""
    ntd, nbu = max(n_w, d), max(max_order, n_w, d)
    short = min(d - 1, max(max_order, n_w)) + 1 if d >= 1 else 0
    return (ntd - d + 1) + short + (nbu - d)


def check_lengths(length, background, max_order):
    """Validate max_order against L and the background's length (:func:`check_poim_job` without memory)."""
    check_poim_job(length, background_order=background.order, max_order=max_order,
                   background_length=background.length)


def check_poim_job(length, *, max_order, background_order=0, degree=None, max_memory=None, alphabet_size=4,
                   background_length=None) -> None:
    """Refuse a POIM job that cannot run, before any work: the checks :func:`seqimp.poim` makes.

    Parameters
    ----------
    length : int
        Sequence length L.
    max_order : int
        Longest oligomer; must lie in 1..L.
    background_order : int, default=0
        Markov order D of the background; needs L > D.
    degree : int, optional
        Degree of the weights; with it, the tables' memory is estimated and checked.
    max_memory : int, optional
        Bytes the tables may take (None: half the available RAM).
    alphabet_size : int, default=4
    background_length : int, optional
        Length of a position-specific background; must equal L.

    Raises
    ------
    SeqimpError
        One line naming what does not fit.
    """
    if background_length is not None and background_length != length:
        raise SeqimpError(f"background: the position-specific background has length {background_length}, "
                          f"but the weights have length {length}")
    if length < background_order + 1:
        raise SeqimpError(f"background: order {background_order} needs sequences longer than {background_order}, "
                          f"the weights have length {length}")
    if not 1 <= max_order <= length:
        raise SeqimpError(f"max_order must lie in 1..{length} (the sequence length), got {max_order}")
    if degree is not None:
        check_memory(alphabet_size, length, degree, background_order, max_order, max_memory)
