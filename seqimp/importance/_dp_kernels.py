"""Numba kernels of the exact POIM engine (see ``seqimp.importance`` and ``docs/poim.md``).

Notation (0-based; A = alphabet size; D = Markov order; a table of level n has shape
(L-n+1, A**n), row = start position, column = n-mer index, first symbol most significant):

* ``pb[i, a, c]`` = P(X[i] = a | X[i+1:i+1+D] = c)  (backward conditional), shape (L, A, A**D)
* ``pf[i-D, c, a]`` = P(X[i] = a | X[i-D:i] = c)    (forward conditional), shape (L-D, A**D, A)

For strings y with |y| = n >= D (so that the chain splits at y's ends):

* Lam_n(y, i): windows ending at i+n that start at or before i        (top-down, left extension)
* Rho_n(y, i): windows starting at i that end at or after i+n         (top-down, right extension)
* G_n(y, i):   windows starting at or before i that end after i+n     (top-down)
* C_n(y, i):   windows starting before i that end after i+n           (C = G - (Rho - W))
* Lx_m(z, j):  windows starting before j that end at or before j+m    (bottom-up, drop last symbol)
* Af_m(z, j):  windows starting at or after j                         (bottom-up, drop first symbol)
* Pre_m(z, j): windows starting at j that end at or before j+m        (bottom-up)

each as the expectation of the summed weights given y (z) at i (j). Then
E[s | z at j] = bias + Af + Lx + C: every window either starts at/after j (Af), or starts
before j and ends inside (Lx) or after (C) the occurrence.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["top_down_level", "bottom_up_level", "row_abs_max", "CERTAIN"]

#: Probabilities at or above this count as 1 (FIRM 0): the feature is (numerically) constant,
#: and Q * sqrt(pi / (1 - pi)) would only amplify rounding noise.
CERTAIN = 1.0 - 1e-12
_CERTAIN = CERTAIN


@njit(cache=True)
def top_down_level(n, D, A, L, W, has_w, lam1, rho1, g1, has_next, has_g, pb, pf, lam, rho, g, c):
    """One level n (>= D) of the top-down recursions.

    Reads level n+1 (``lam1, rho1``, shape (L-n, A**(n+1))) unless ``has_next`` is False
    (all zero), and ``g1`` unless ``has_g`` is False (zero: G vanishes at the top level);
    writes ``lam, rho, g, c`` of shape (L-n+1, A**n). ``W`` is the weight table of level n
    when ``has_w``. ``c`` may be the same array as another output only if
    it is not read afterwards.
    """
    rows = L - n + 1
    nz = A ** n
    ad = A ** D
    hi = A ** (n - D)
    for i in range(rows):
        left = has_next and i >= 1
        right = has_next and i + n < L
        cl = 0          # y // hi: the first D symbols of y (counters avoid divisions)
        cl_run = 0
        cr = 0          # y % ad: the last D symbols of y
        for y in range(nz):
            w = W[i, y] if has_w else 0.0
            lv = w
            rv = w
            cv = 0.0
            if left:
                for a in range(A):
                    p = pb[i - 1, a, cl]
                    if p != 0.0:
                        lv += p * lam1[i - 1, a * nz + y]
                        if has_g:
                            cv += p * g1[i - 1, a * nz + y]
            if right:
                base = y * A
                for a in range(A):
                    rv += pf[i + n - D, cr, a] * rho1[i, base + a]
            lam[i, y] = lv
            rho[i, y] = rv
            g[i, y] = (rv - w) + cv
            c[i, y] = cv
            cl_run += 1
            if cl_run == hi:
                cl_run = 0
                cl += 1
            cr += 1
            if cr == ad:
                cr = 0


@njit(cache=True)
def bottom_up_level(m, D, A, L, bias, es, W, has_w, lam, rho, has_td, cc, has_c,
                    lx0, pre0, af0, p0, pf, lx, pre, af, p, keep_next,
                    poim, firm, store, cond, keep_cond, var_upto_w):
    """One level m (>= D+1) of the bottom-up recursions and the outputs of that level.

    Reads level m-1 (``lx0, pre0, af0, p0``) and the top-down tables of level m (``lam, rho``
    when ``has_td``, ``cc`` when ``has_c``); writes level m of ``lx, pre, af, p`` when ``keep_next``; writes
    ``poim`` (E[s | z at j] - es, NaN where P = 0) and ``firm`` when ``store``, and
    E[s | z at j] to ``cond`` when ``keep_cond``. ``poim`` may alias ``cc`` and ``firm`` may
    alias ``lam`` (each entry is read before it is written).

    Returns sum over (z, j) of P(z at j) * W[j, z] * Q(z, j) if ``var_upto_w`` and ``has_w``
    (this level's share of Var[s(X)]), else 0.
    """
    rows = L - m + 1
    nzp = A ** (m - 1)
    ad = A ** D
    low = A ** (m - 2) if m >= 2 else 1
    acc = 0.0
    for j in range(rows):
        t = j + m - 1 - D
        ctx = 0         # zp % ad
        zs_hi = 0       # (zp % low) * A: z % A**(m-1) = zs_hi + sym
        for zp in range(nzp):
            lx_p = lx0[j, zp]
            pre_p = pre0[j, zp]
            p_p = p0[j, zp]
            for sym in range(A):
                z = zp * A + sym
                w = W[j, z] if has_w else 0.0
                pr = p_p * pf[t, ctx, sym]
                lv = lx_p - w
                av = af0[j + 1, zs_hi + sym if m >= 2 else 0] + pre_p
                cv = 0.0
                if has_td:
                    lv += lam[j, z]
                    av += rho[j, z]
                if has_c:
                    cv = cc[j, z]
                if keep_next:
                    lx[j, z] = lv
                    af[j, z] = av
                    pre[j, z] = pre_p + w
                    p[j, z] = pr
                e = bias + av + lv + cv
                q = e - es
                if keep_cond:
                    cond[j, z] = e
                if store:
                    if pr > 0.0:
                        poim[j, z] = q
                        firm[j, z] = 0.0 if pr >= _CERTAIN else q * np.sqrt(pr / (1.0 - pr))
                    else:
                        poim[j, z] = np.nan
                        firm[j, z] = 0.0
                if var_upto_w and has_w and pr > 0.0:
                    acc += pr * w * q
            ctx += 1
            if ctx == ad:
                ctx = 0
            zs_hi += A
            if zs_hi == low * A:
                zs_hi = 0
    return acc


@njit(cache=True)
def row_abs_max(table, out):
    """``out[j] = max_z |table[j, z]|`` ignoring NaN (NaN if the whole row is NaN)."""
    for j in range(table.shape[0]):
        best = -1.0
        for z in range(table.shape[1]):
            v = abs(table[j, z])
            if v > best:          # False for NaN
                best = v
        out[j] = best if best >= 0.0 else np.nan
