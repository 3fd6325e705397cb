"""Numba kernels of both exact POIM engines (``docs/poim.md``): the in-memory one
(:mod:`seqimp.importance._poim_memory`) and the streaming one (:mod:`seqimp.importance._poim_stream`).

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

The streaming kernels run the same recursions with the same notation; the differences are
where the numbers go:

* :func:`level_block` is one bottom-up level m (D < m <= d' = max(degree, D)) for a block
  of start rows ``j0 .. j0+n_out-1`` (the first ``n_own`` rows are the block's own, the rest
  a halo the next level needs), rows in parallel;
* :func:`extend_block` does every level m > d' of the block's own rows without level
  tables: above d' the top-down terms vanish, so with h = d'

      E[s | z at j] = bias + L_m(z, j) + Af_h(z[-h:], j+m-h),
      L_h(y, j) = Lx_h(y, j),  L_{m+1}(z.a, j) = L_m(z, j) + Pre_h(z[-h:], j+m-h),
      P_{m+1}(z.a, j) = P_m(z, j) * Pfwd(a | z[-D:]),

  a prefix extension walked tile by tile (``tile`` h-mers at a time) per row;
* instead of tables, each entry (z, j) of an output level is *reduced*: the row's maximal
  |POIM| and its first arg-max, per-row heaps of the N entries of largest |POIM| and of
  largest |FIRM| (ties: smaller k-mer index first), the row's share of Var[s(X)], and the
  entry itself only where a level is stored (``soff[m-1] >= 0``: k <= 4, or full tables).

Every reduction is per row, so the results do not depend on the block size or on the
number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["top_down_level", "bottom_up_level", "row_abs_max", "level_block", "extend_block", "CERTAIN"]

#: Probabilities at or above this count as 1 (FIRM 0): the feature is (numerically) constant,
#: and Q * sqrt(pi / (1 - pi)) would only amplify rounding noise.
CERTAIN = 1.0 - 1e-12
_CERTAIN = CERTAIN


@njit(cache=True, parallel=True)
def top_down_level(n, D, A, L, W, has_w, lam1, rho1, g1, has_next, has_g, pb, pf, lam, rho, g, c):
    """One level n (>= D) of the top-down recursions, rows in parallel.

    Reads level n+1 (``lam1, rho1``, shape (L-n, A**(n+1))) unless ``has_next`` is False
    (all zero), and ``g1`` unless ``has_g`` is False (zero: G vanishes at the top level);
    writes ``lam, rho, g, c`` of shape (L-n+1, A**n). ``W`` is the weight table of level n
    when ``has_w``. ``c`` may be the same array as another output only if
    it is not read afterwards. Each row is computed by one thread, in the same order whatever
    the thread count.
    """
    rows = L - n + 1
    nz = A ** n
    ad = A ** D
    hi = A ** (n - D)
    for i in prange(rows):
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


@njit(cache=True, parallel=True)
def bottom_up_level(m, D, A, L, bias, es, W, has_w, lam, rho, has_td, cc, has_c,
                    lx0, pre0, af0, p0, pf, lx, pre, af, p, keep_next,
                    poim, firm, store, var_rows):
    """One level m (>= D+1) of the bottom-up recursions and the outputs of that level, rows
    in parallel.

    Reads level m-1 (``lx0, pre0, af0, p0``) and the top-down tables of level m (``lam, rho``
    when ``has_td``, ``cc`` when ``has_c``); writes level m of ``lx, pre, af, p`` when
    ``keep_next``, and ``poim`` (E[s | z at j] - es, NaN where P = 0) and ``firm`` when
    ``store``. ``poim`` may alias ``cc`` and ``firm`` may alias ``lam`` (each entry is read
    before it is written).

    If ``has_w``, ``var_rows[j]`` (j = 0..L-m) is set to row j's share of Var[s(X)],
    sum over z of P(z at j) * W[j, z] * Q(z, j), summed over z in index order (as the streaming
    engine's :func:`level_block` does), so that the sum does not depend on the thread count.
    """
    rows = L - m + 1
    nzp = A ** (m - 1)
    ad = A ** D
    low = A ** (m - 2) if m >= 2 else 1
    for j in prange(rows):
        t = j + m - 1 - D
        ctx = 0         # zp % ad
        zs_hi = 0       # (zp % low) * A: z % A**(m-1) = zs_hi + sym
        acc = 0.0
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
                if store:
                    if pr > 0.0:
                        poim[j, z] = q
                        firm[j, z] = 0.0 if pr >= _CERTAIN else q * np.sqrt(pr / (1.0 - pr))
                    else:
                        poim[j, z] = np.nan
                        firm[j, z] = 0.0
                if has_w and pr > 0.0:
                    acc += pr * w * q
            ctx += 1
            if ctx == ad:
                ctx = 0
            zs_hi += A
            if zs_hi == low * A:
                zs_hi = 0
        if has_w:
            var_rows[j] = acc


@njit(cache=True, parallel=True)
def row_abs_max(table, out):
    """``out[j] = max_z |table[j, z]|`` ignoring NaN (NaN if the whole row is NaN); rows in parallel."""
    for j in prange(table.shape[0]):
        best = -1.0
        for z in range(table.shape[1]):
            v = abs(table[j, z])
            if v > best:          # False for NaN
                best = v
        out[j] = best if best >= 0.0 else np.nan


# ---------------------------------------------------------------- streaming: reduce, do not store
@njit(cache=True, inline="always")
def _worse(k1, z1, k2, z2):
    """Entry 1 ranks below entry 2: smaller key, or equal key and larger k-mer index."""
    return k1 < k2 or (k1 == k2 and z1 > z2)


@njit(cache=True, inline="always")
def _move(li, s, r, src, dst, hkey, hz, hq, hf):
    """Heap slot ``src`` to slot ``dst`` (all four fields)."""
    hkey[li, s, r, dst] = hkey[li, s, r, src]
    hz[li, s, r, dst] = hz[li, s, r, src]
    hq[li, s, r, dst] = hq[li, s, r, src]
    hf[li, s, r, dst] = hf[li, s, r, src]


@njit(cache=True)
def _heap_offer(li, s, r, key, z, q, f, hkey, hz, hq, hf, hcnt, cap):
    """Offer (key, z) to the min-heap (worst entry at slot 0) of level li, measure s, row r."""
    cnt = hcnt[li, s, r]
    if cnt < cap:
        i = cnt
        hcnt[li, s, r] = cnt + 1
        while i > 0:                                   # sift up
            parent = (i - 1) // 2
            if _worse(key, z, hkey[li, s, r, parent], hz[li, s, r, parent]):
                _move(li, s, r, parent, i, hkey, hz, hq, hf)
                i = parent
            else:
                break
    else:
        if not _worse(hkey[li, s, r, 0], hz[li, s, r, 0], key, z):
            return                                     # not better than the worst kept
        i = 0
        while True:                                    # sift down from the root
            c = 2 * i + 1
            if c >= cap:
                break
            if c + 1 < cap and _worse(hkey[li, s, r, c + 1], hz[li, s, r, c + 1], hkey[li, s, r, c], hz[li, s, r, c]):
                c += 1
            if _worse(hkey[li, s, r, c], hz[li, s, r, c], key, z):
                _move(li, s, r, c, i, hkey, hz, hq, hf)
                i = c
            else:
                break
    hkey[li, s, r, i] = key
    hz[li, s, r, i] = z
    hq[li, s, r, i] = q
    hf[li, s, r, i] = f


@njit(cache=True, inline="always")
def _offer(li, r, z, q, f, possible, gthr, hkey, hz, hq, hf, hcnt, cap):
    """Offer one entry to the |POIM| (if possible, i.e. P > 0) and |FIRM| heaps of its row.

    ``gthr[li, s]`` is the key of the N-th entry kept from earlier blocks (0 while fewer):
    an entry below it cannot enter the final top N.
    """
    if possible:
        kq = abs(q)
        if kq >= gthr[li, 0]:
            cnt = hcnt[li, 0, r]
            if cnt < cap or kq >= hkey[li, 0, r, 0]:
                _heap_offer(li, 0, r, kq, z, q, f, hkey, hz, hq, hf, hcnt, cap)
    kf = abs(f)
    if kf >= gthr[li, 1]:
        cnt = hcnt[li, 1, r]
        if cnt < cap or kf >= hkey[li, 1, r, 0]:
            _heap_offer(li, 1, r, kf, z, q, f, hkey, hz, hq, hf, hcnt, cap)


@njit(cache=True, inline="always")
def _poim_firm(e, es, pr):
    """POIM (NaN where P = 0) and FIRM of one entry, as in the in-memory engine."""
    if pr > 0.0:
        q = e - es
        f = 0.0 if pr >= _CERTAIN else q * np.sqrt(pr / (1.0 - pr))
        return q, f
    return np.nan, 0.0


@njit(cache=True, inline="always")
def _reduce(li, r, z, e, es, pr, best, bestz, at, gthr, hkey, hz, hq, hf, hcnt, cap, store_q, store_f):
    """Reduce one entry (E[s | z at j] = e, P = pr) of row r, order li+1: the running maximal
    |POIM| (first arg-max), the heaps, and the stores at ``at + z`` when ``at >= 0``."""
    q, f = _poim_firm(e, es, pr)
    if pr > 0.0:
        aq = abs(q)
        if aq > best:
            best = aq
            bestz = z
    _offer(li, r, z, q, f, pr > 0.0, gthr, hkey, hz, hq, hf, hcnt, cap)
    if at >= 0:
        store_q[at + z] = q
        store_f[at + z] = f
    return best, bestz


@njit(cache=True, parallel=True)
def level_block(m, D, A, bias, es, j0, n_out, n_own, W, lam, rho, cc, has_c,
                lx0, pre0, af0, p0, o0, pf, lx, pre, af, p, keep_next,
                reduce_on, var_on, var_rows, maximal, argmax,
                gthr, hkey, hz, hq, hf, hcnt, cap, store_q, store_f, soff):
    """Bottom-up level m (D < m <= d') for rows j0 .. j0+n_out-1, rows in parallel.

    Level m-1 (``lx0, pre0, af0, p0``) holds rows from ``o0`` on; ``W, lam, rho, cc`` are
    full tables (global rows); level m is written to ``lx, pre, af, p`` (rows from j0) when
    ``keep_next``. The first ``n_own`` rows are reduced (when ``reduce_on``), add their
    share of Var[s(X)] to ``var_rows[m-1, j]`` (when ``var_on``) and, where
    ``soff[m-1] >= 0``, write POIM/FIRM to ``store_q/store_f`` at
    ``soff[m-1] + r * A**m + z``.
    """
    nzp = A ** (m - 1)
    nz = nzp * A
    ad = A ** D
    low = A ** (m - 2) if m >= 2 else 1
    li = m - 1
    so = soff[li]
    for r in prange(n_out):
        j = j0 + r
        own = r < n_own
        red = own and reduce_on
        at = so + r * nz if so >= 0 else -1
        t = j + m - 1 - D
        i0 = j - o0
        ctx = 0
        zs_hi = 0
        best = -1.0
        bestz = -1
        acc = 0.0
        for zp in range(nzp):
            lx_p = lx0[i0, zp]
            pre_p = pre0[i0, zp]
            p_p = p0[i0, zp]
            for sym in range(A):
                z = zp * A + sym
                w = W[j, z]
                pr = p_p * pf[t, ctx, sym]
                lv = lx_p - w + lam[j, z]
                av = af0[i0 + 1, zs_hi + sym if m >= 2 else 0] + pre_p + rho[j, z]
                cv = cc[j, z] if has_c else 0.0
                if keep_next:
                    lx[r, z] = lv
                    af[r, z] = av
                    pre[r, z] = pre_p + w
                    p[r, z] = pr
                if own:
                    e = bias + av + lv + cv
                    if var_on and pr > 0.0:
                        acc += pr * w * (e - es)
                    if red:
                        best, bestz = _reduce(li, r, z, e, es, pr, best, bestz, at, gthr, hkey, hz, hq, hf, hcnt,
                                              cap, store_q, store_f)
            ctx += 1
            if ctx == ad:
                ctx = 0
            zs_hi += A
            if zs_hi == low * A:
                zs_hi = 0
        if own:
            if var_on:
                var_rows[li, j] = acc
            if red:
                maximal[li, j] = best if best >= 0.0 else np.nan
                argmax[li, j] = bestz


@njit(cache=True, parallel=True)
def extend_block(h, K, D, A, L, bias, es, j0, n_own, lxh, preh, afh, ph, pf, tile,
                 maximal, argmax, gthr, hkey, hz, hq, hf, hcnt, cap, store_q, store_f, soff):
    """Levels h+1 .. K (h = d') of rows j0 .. j0+n_own-1, rows in parallel.

    ``lxh, preh, afh, ph`` are level h for rows j0 .. min(j0+n_own-1+K-h, L-h) (row 0 = j0);
    row j gets levels h+1 .. min(K, L-j).
    ``tile`` (a power of A dividing A**h) h-mer prefixes are extended at a time, so the
    scratch per row is ``2 * 8 * tile * sum_{m<K} A**(m-h)`` bytes.
    """
    nh = A ** h
    ad = A ** D
    nlev = K - h                      # levels h+1..K
    offs = np.zeros(nlev + 1, dtype=np.int64)   # scratch offsets of levels h..K-1
    for i in range(1, nlev + 1):
        offs[i] = offs[i - 1] + tile * A ** (i - 1)
    size = offs[nlev]
    for r in prange(n_own):
        j = j0 + r
        kk = min(K, L - j)
        lb = np.empty(size)
        pb = np.empty(size)
        best = np.full(nlev, -1.0)
        bestz = np.full(nlev, -1, dtype=np.int64)
        for y0 in range(0, nh, tile):
            for t in range(tile):
                lb[t] = lxh[r, y0 + t]
                pb[t] = ph[r, y0 + t]
            for m in range(h + 1, kk + 1):
                li = m - 1
                lv = m - h - 1                  # scratch slot of the parent level m-1
                n_par = tile * A ** lv
                pbase = y0 * A ** lv
                row_pre = r + m - 1 - h
                row_af = r + m - h
                prow = j + m - 1 - D
                nz = A ** m
                so = soff[li]
                at = so + r * nz if so >= 0 else -1
                last = m == kk
                op = offs[lv]
                oc = offs[lv + 1] if not last else 0
                b = best[lv]
                bz = bestz[lv]
                for t in range(n_par):
                    zg = pbase + t
                    suf = zg % nh
                    lnew = lb[op + t] + preh[row_pre, suf]
                    pp = pb[op + t]
                    ctx = zg % ad
                    cbase = (suf * A) % nh
                    for a in range(A):
                        z = zg * A + a
                        e = bias + lnew + afh[row_af, cbase + a]
                        pr = pp * pf[prow, ctx, a]
                        b, bz = _reduce(li, r, z, e, es, pr, b, bz, at, gthr, hkey, hz, hq, hf, hcnt, cap, store_q,
                                        store_f)
                        if not last:
                            lb[oc + t * A + a] = lnew
                            pb[oc + t * A + a] = pr
                best[lv] = b
                bestz[lv] = bz
        for lv in range(kk - h):
            maximal[h + lv, j] = best[lv] if best[lv] >= 0.0 else np.nan
            argmax[h + lv, j] = bestz[lv]
