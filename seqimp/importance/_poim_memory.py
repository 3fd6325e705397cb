"""The in-memory exact POIM engine: every POIM and FIRM table of every order.

The shared levels (:mod:`seqimp.importance._poim_levels`: top-down phase, base level D,
orders m <= D) and then the bottom-up levels m = D+1 .. max(max_order, degree, D), each a
whole table (:func:`~seqimp.importance._poim_kernels.bottom_up_level`), rows in parallel. The work is
O(sum_n A**n * L) over those levels; the peak memory is
:func:`~seqimp.importance._poim_plan.in_memory_bytes`.
"""

from __future__ import annotations

import numpy as np

from .._utils.progress import progress_bar
from ._poim_kernels import bottom_up_level
from ._poim_levels import DUMMY2, chain_tables, lower_levels, top_down
from ._result import POIMResult

__all__ = ["poim_in_memory", "n_levels"]


def n_levels(n_w, d, max_order) -> int:
    """How many progress ticks :func:`poim_in_memory` makes."""
    ntd, nbu = max(n_w, d), max(max_order, n_w, d)
    short = min(d - 1, max(max_order, n_w)) + 1 if d >= 1 else 0
    return (ntd - d + 1) + short + (nbu - d)


def poim_in_memory(weights, background, max_order, *, progress=False) -> POIMResult:
    """Exact POIM and FIRM tables for orders 1..max_order, inputs checked by :func:`seqimp.poim`.

    Parameters
    ----------
    weights : PositionalWeights
        ``tables[k-1]`` of shape (L-k+1, A**k), float64, C-contiguous.
    background : MarkovBackground
        Fitted, of the weights' alphabet and length.
    max_order : int
    progress : bool, default=False
        A progress bar on stderr, one step per level (:func:`n_levels` in all).

    Returns
    -------
    POIMResult
        ``poim[k-1]``, ``firm[k-1]`` of shape (L-k+1, A**k); E[s(X)] and sd(s(X)).
    """
    tables = weights.tables
    n_w, d = len(tables), background.order
    with progress_bar(n_levels(n_w, d, max_order), "poim levels", enabled=progress) as bar:
        poims, firms, es, variance = _tables(tables, weights.bias, background, max_order, bar.update)
    meta = {"background": background.describe(), "degree": n_w, "length": weights.length}
    return POIMResult(poims, firms, expected_score=es, score_std=float(np.sqrt(max(variance, 0.0))),
                      alphabet=weights.alphabet, method="exact", meta=meta)


def _tables(tables, bias, background, max_order, tick):
    """POIM and FIRM tables of orders 1..max_order, E[s(X)] and Var[s(X)]; ``tick()`` per level."""
    a, d = background.alphabet.size, background.order
    length = tables[0].shape[0]
    n_w = len(tables)
    nbu = max(max_order, n_w, d)
    pf, pb, pd = chain_tables(background, length)
    poim_out = [np.empty((length - m + 1, a ** m)) for m in range(1, max_order + 1)]
    firm_out = [np.empty((length - m + 1, a ** m)) for m in range(1, max_order + 1)]
    lam, rho, cc = top_down(tables, a, d, length, pb, pf, outputs=(poim_out, firm_out), tick=tick)

    def keep(m, q, firm):
        poim_out[m - 1][...] = q
        firm_out[m - 1][...] = firm

    lx, af, pre, es, variance = lower_levels(tables, bias, a, d, length, (pf, pb, pd), lam, rho, cc, max_order,
                                             keep, tick=tick)
    # ---- bottom-up: levels D+1 .. nbu, each a whole table; the rows' shares of Var[s(X)] are
    # kept per (level, row) and summed at the end, as the streaming engine does
    var_rows = np.zeros((max(n_w, d, 1), length))
    p_prev = pd
    for m in range(d + 1, nbu + 1):
        shape = (length - m + 1, a ** m)
        keep_next = m < nbu
        nxt = [np.empty(shape) for _ in range(4)] if keep_next else [DUMMY2] * 4
        has_td = m in lam
        has_c = m in cc
        has_w = m <= n_w
        store = m <= max_order
        bottom_up_level(
            m, d, a, length, float(bias), es, tables[m - 1] if has_w else DUMMY2, has_w,
            lam.pop(m, DUMMY2), rho.pop(m, DUMMY2), has_td, cc.pop(m, DUMMY2), has_c,
            lx, pre, af, p_prev, pf, nxt[0], nxt[1], nxt[2], nxt[3], keep_next,
            poim_out[m - 1] if store else DUMMY2, firm_out[m - 1] if store else DUMMY2, store,
            var_rows[m - 1] if has_w else var_rows[0])
        lx, pre, af, p_prev = nxt
        tick()
    variance += float(var_rows.sum())
    return poim_out, firm_out, es, variance
