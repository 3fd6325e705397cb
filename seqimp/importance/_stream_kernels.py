"""Numba kernels of the streaming exact POIM (:mod:`seqimp.importance._streaming`).

Same recursions and notation as :mod:`seqimp.importance._dp_kernels` (read that module's
docstring first); the differences are where the numbers go:

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

from ._dp_kernels import CERTAIN

__all__ = ["level_block", "extend_block"]

_CERTAIN = CERTAIN


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
