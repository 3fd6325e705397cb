"""LS-GKM's kernels (Lee 2016; ``gkmtrain -t 0..5``) computed from mismatch profiles, in numba.

Every LS-GKM kernel compares l-mers. For two sequences ``x`` and ``y`` with l-mer windows
``a_i`` (``x``, + strand) and ``b_j`` (``y``, + strand, and with reverse complements also the
reverse complement of each window), the raw kernel is

    K(x, y) = sum_i sum_j w_i w_j g[m(a_i, b_j)]      over the pairs with m(a_i, b_j) <= d,

``m`` the number of mismatches of two l-mers, ``g`` the kernel's mismatch weights
(:func:`mismatch_weights`) and ``w`` the l-mers' position weights: 1, or with the
center-weighted kernels (``wgkm``, ``wgkmrbf``) the weight :func:`position_weights` of the
window's distance to the sequence's central window (a window and its reverse complement carry
the same weight). The kernel LS-GKM scores with is normalised, ``k(x, y) = K(x, y) /
sqrt(K(x, x) K(y, y))``, and the RBF kernels (``gkmrbf``, ``wgkmrbf``) are ``exp(gamma (k(x, y) -
1))``. A decision value is ``sum_s coef_s k(x, sv_s) - rho`` over the support vectors.

Counting ``x``'s + strand against both strands of ``y`` (and never ``x``'s reverse strand)
is LS-GKM's convention; it is symmetric, since ``m(a, rc(b)) = m(rc(a), b)``.

L-mers are held as integers of 2 bits a letter (A=0, C=1, G=2, T=3; first letter most
significant), so ``m(a, b)`` is the number of non-zero 2-bit groups of ``a ^ b``
(:func:`_mismatch_count`). The mismatch profile of a pair of sequences (the summed weights
``w_i w_j`` at each ``m <= d``) is an exact integer; it is dotted with ``g`` in the order
``m = 0..d``.

The RBF kernels need ``K(x, sv_s)`` for every support vector: the support vectors' windows
are indexed by l-mer once (:func:`window_index`), and every window of ``x`` looks up its
neighbours within ``d`` mismatches there (:func:`indexed_sv_kernels`), so a sequence costs
``(|x| - l + 1) sum_{m<=d} C(l, m) 3**m`` look-ups and one addition for each support-vector
window found (LS-GKM walks a tree of the support vectors' l-mers instead).

A linear kernel's decision values need one table: ``S[a] = sum_b g[m(a, b)] C[b]`` over all
``4**l`` l-mers, where ``C[b]`` sums ``coef_s w / sqrt(K(sv_s, sv_s))`` over the windows ``b`` of
the support vectors (both strands with reverse complements). ``S`` is the convolution of ``C``
with a function of ``a xor b`` that depends only on the number of mismatches, so the Walsh-
Hadamard transform over the ``2 l`` bits diagonalises it (:func:`smoothed_table`); the decision
value of ``x`` is then ``sum_i w_i S[a_i] / sqrt(K(x, x)) - rho``: one look-up a window.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np
from numba import njit, prange

__all__ = ["KERNEL_NAMES", "mismatch_weights", "position_weights", "hadamard_eigenvalues", "mismatch_masks"]

#: LS-GKM's kernel names, by ``-t`` number (the ``kernel_type`` line of a model file).
KERNEL_NAMES = ("gkm_cnt", "gkm_estfull", "gkm_esttrunc", "gkmrbf", "wgkm", "wgkmrbf")
#: The kernel types (``-t``) that weight windows by their distance to the centre.
WEIGHTED_TYPES = (4, 5)
#: The kernel types (``-t``) that apply the RBF to the normalised kernel.
RBF_TYPES = (3, 5)


# --- the weights (exact rationals, then float64) --------------------------------------------


def _lmer_estimate_filter(l, k) -> list:
    """The filter ``h[m]``, ``m = 0..l``, of the estimated l-mer counts (Ghandi et al. 2014): the
    count of l-mer ``z`` estimated from the gapped k-mer counts of a sequence is ``sum_a h[m(a,
    z)]`` over its l-mers ``a``. A gapped k-mer whose k letters differ from ``z`` at ``i`` of its
    columns enters the estimate with weight ``v[i] = (-1)**i prod_{t<i} (l - k + t) / (k - t) *
    B(k - i) / (C(l, k) 4**l)``, ``B(r) = sum_{j<=r} C(l, j) 3**j`` the number of l-mers within
    ``r`` mismatches of one; an l-mer ``a`` at ``m`` mismatches from ``z`` has ``C(m, i) C(l - m,
    k - i)`` gapped k-mers with ``i`` mismatches. Exact rationals."""
    ball = [sum(comb(l, j) * 3 ** j for j in range(r + 1)) for r in range(k + 1)]
    scale = Fraction(1, comb(l, k) * 4 ** l)
    v = []
    for i in range(k + 1):
        factor = Fraction(1)
        for t in range(i):
            factor *= Fraction(k - t - l, k - t)
        v.append(factor * ball[k - i] * scale)
    return [sum((v[i] * comb(m, i) * comb(l - m, k - i) for i in range(min(m, k) + 1)), Fraction(0))
            for m in range(l + 1)]


def _filter_product(h, l, mismatches) -> Fraction:
    """``sum_z h[m(a, z)] h[m(b, z)]`` over all ``4**l`` l-mers ``z`` for two l-mers ``a``, ``b``
    at ``mismatches`` mismatches: ``z`` differs from both at ``t`` of their ``l - D`` common
    letters (3 letters each), and of the ``D`` differing columns equals ``b`` at ``p``, ``a`` at
    ``q`` and neither at the other ``r`` (2 letters each)."""
    D = mismatches
    total = Fraction(0)
    for t in range(l - D + 1):
        same = comb(l - D, t) * 3 ** t
        for p in range(D + 1):
            for q in range(D - p + 1):
                r = D - p - q
                count = same * comb(D, p) * comb(D - p, q) * 2 ** r
                total += count * h[t + p + r] * h[t + q + r]
    return total


@lru_cache(maxsize=64)
def _weights(t, l, k, d) -> tuple:
    if t == 0:
        return tuple(float(comb(l - m, k)) if l - m >= k else 0.0 for m in range(d + 1))
    h = _lmer_estimate_filter(l, k)
    if t != 1:  # truncated filter: from its first value below 1e-50 on, 0
        cut = next((m for m in range(l + 1) if h[m] < Fraction(1, 10 ** 50)), l + 1)
        h = [h[m] if m < cut else Fraction(0) for m in range(l + 1)]
    return tuple(float(_filter_product(h, l, m)) for m in range(d + 1))


def mismatch_weights(t, l, k, d) -> np.ndarray:
    """The weight ``g[m]`` of a pair of l-mers at ``m`` mismatches, ``m = 0..d``, of LS-GKM's
    kernel type ``t`` (``-t``).

    * ``t = 0`` (``gkm_cnt``): ``C(l - m, k)``, the gapped k-mers two such l-mers share; with
      ``d = l - k`` the kernel counts every shared gapped k-mer (``K = <phi(x), phi(y)>``, the
      kernel of :func:`~seqimp.kernels.gkm_kernel`), with a smaller ``d`` it leaves out the pairs
      with more mismatches.
    * ``t = 1`` (``gkm_estfull``): the inner product of estimated l-mer counts,
      ``sum_z h[m(a, z)] h[m(b, z)]`` (:func:`_lmer_estimate_filter`).
    * ``t = 2..5``: the same with the filter truncated at its first value below 1e-50 (LS-GKM's
      ``gkm_esttrunc``, also the base of ``gkmrbf``, ``wgkm`` and ``wgkmrbf``).

    Returns
    -------
    ndarray of shape (d + 1,), float64
        Computed in exact rationals and rounded once. The scale is the one of the definition
        (the normalised kernel does not depend on it).
    """
    return np.array(_weights(int(t), int(l), int(k), int(d)), dtype=np.float64)


def position_weights(n_windows, M, H) -> np.ndarray:
    """The weights of the ``n_windows`` l-mer windows of a sequence under a center-weighted
    kernel (``-t 4``, ``-t 5``): window ``i`` at distance ``D = |n_windows // 2 - i|`` from the
    central one weighs ``floor(M exp(-ln(2) D / H) + 1)``, at most ``M``, as an 8-bit unsigned
    integer (LS-GKM's: the value ``256``, reached at ``D = 0`` when ``M = 255``, is stored as 0, as an
    x86-64 build of LS-GKM stores it).

    Returns
    -------
    ndarray of shape (n_windows,), int64
    """
    center = n_windows // 2
    out = np.empty(max(n_windows, 0), dtype=np.int64)
    for i in range(n_windows):
        value = int(math.floor(M * math.exp(-math.log(2) * abs(center - i) / H) + 1)) & 0xFF
        out[i] = min(value, M)
    return out


def hadamard_eigenvalues(g, l) -> np.ndarray:
    """The eigenvalue of the mismatch-weight convolution ``f(z) = g[m(z)]`` (``m(z) <= d``; 0
    beyond) on the Walsh-Hadamard basis function of weight ``w`` (``w`` non-zero 2-bit groups),
    ``w = 0..l``: ``sum_m g[m] K_m(w)`` with the Krawtchouk values ``K_m(w) = sum_j (-1)**j
    3**(m - j) C(w, j) C(l - w, m - j)`` (the coefficient of ``x**m`` in ``(1 + 3x)**(l - w) (1 -
    x)**w``).

    Returns
    -------
    ndarray of shape (l + 1,), float64
    """
    out = np.zeros(l + 1)
    for w in range(l + 1):
        total = 0.0
        for m in range(len(g)):
            kraw = sum((-1) ** j * 3 ** (m - j) * comb(w, j) * comb(l - w, m - j) for j in range(min(w, m) + 1))
            total += g[m] * kraw
        out[w] = total
    return out


def mismatch_masks(l, d) -> tuple[np.ndarray, np.ndarray]:
    """Every xor mask of an l-mer with at most ``d`` mismatches (``b = a ^ z`` runs over the
    l-mers within ``d`` mismatches of ``a``) and its number of mismatches, in increasing order of
    the mask (the l-mers ``a ^ z`` of masks with the same first letters are near each other).

    Returns
    -------
    masks : ndarray of shape (sum_{m<=d} C(l, m) 3**m,), int64
    counts : ndarray of the same shape, int64
    """
    masks, counts = [0], [0]
    frontier = [(0, -1)]  # (mask, last column changed)
    for m in range(1, d + 1):
        grown = []
        for mask, last in frontier:
            for col in range(last + 1, l):
                for letter in (1, 2, 3):
                    grown.append((mask | (letter << (2 * (l - 1 - col))), col))
        masks += [g[0] for g in grown]
        counts += [m] * len(grown)
        frontier = grown
    masks, counts = np.array(masks, dtype=np.int64), np.array(counts, dtype=np.int64)
    order = np.argsort(masks)
    return masks[order], counts[order]


# --- numba kernels -----------------------------------------------------------------------


@njit(cache=True)
def _mismatch_count(x):
    """The non-zero 2-bit groups of ``x`` (``x < 2**24``): the mismatches of two l-mers ``a ^ b``."""
    t = (x | (x >> 1)) & 0x555555
    t = (t & 0x333333) + ((t >> 2) & 0x333333)
    t = (t + (t >> 4)) & 0x0F0F0F
    return (t + (t >> 8) + (t >> 16)) & 0xFF


@njit(cache=True)
def windows(codes, lo, hi, l, fwd, rev):
    """The l-mer codes of the windows of ``codes[lo:hi]`` into ``fwd`` (+ strand, window ``i``
    starting at ``lo + i``) and ``rev`` (the reverse complement of window ``i``). Returns the
    number of windows (``hi - lo - l + 1``)."""
    mask = (1 << (2 * l)) - 1
    top = 2 * (l - 1)
    code = 0
    rcode = 0
    for p in range(lo, hi):
        b = np.int64(codes[p])
        code = ((code << 2) | b) & mask
        rcode = (rcode >> 2) | ((3 - b) << top)
        i = p - lo - l + 1
        if i >= 0:
            fwd[i] = code
            rev[i] = rcode
    return max(hi - lo - l + 1, 0)


@njit(cache=True)
def all_windows(codes, offsets, l):
    """The windows (:func:`windows`) of every sequence ``codes[offsets[s]:offsets[s + 1]]``.

    Returns
    -------
    fwd, rev : ndarray of shape (n_windows,), int64
        Sequence ``s``'s windows are ``fwd[woff[s]:woff[s + 1]]`` (and their reverse complements).
    woff : ndarray of shape (n + 1,), int64
    """
    n = offsets.size - 1
    woff = np.zeros(n + 1, dtype=np.int64)
    for s in range(n):
        woff[s + 1] = woff[s] + max(offsets[s + 1] - offsets[s] - l + 1, 0)
    fwd = np.empty(woff[n], dtype=np.int64)
    rev = np.empty(woff[n], dtype=np.int64)
    for s in range(n):
        windows(codes, offsets[s], offsets[s + 1], l, fwd[woff[s]:woff[s + 1]], rev[woff[s]:woff[s + 1]])
    return fwd, rev, woff


@njit(cache=True)
def _profile_dot(fa, wa, na, fb, rb, wb, nb, rc, g, d):
    """``K`` of two sequences from their windows (``fa``, ``wa``: + strand codes and weights of
    the first ``na``; ``fb``, ``rb``, ``wb``: both strands of the second): the integer mismatch
    profile dotted with ``g``."""
    prof = np.zeros(d + 1, dtype=np.int64)
    for i in range(na):
        a = fa[i]
        w = wa[i]
        for j in range(nb):
            m = _mismatch_count(a ^ fb[j])
            if m <= d:
                prof[m] += w * wb[j]
            if rc:
                m = _mismatch_count(a ^ rb[j])
                if m <= d:
                    prof[m] += w * wb[j]
    total = 0.0
    for m in range(d + 1):
        total += g[m] * prof[m]
    return total


@njit(cache=True, parallel=True)
def self_kernels(fwd, rev, wts, woff, rc, g, d):
    """``K(x, x)`` of every sequence, shape (n,); sequence ``s``'s windows are
    ``fwd/rev/wts[woff[s]:woff[s + 1]]``."""
    n = woff.size - 1
    out = np.empty(n)
    for s in prange(n):
        a, b = woff[s], woff[s + 1]
        out[s] = _profile_dot(fwd[a:b], wts[a:b], b - a, fwd[a:b], rev[a:b], wts[a:b], b - a, rc, g, d)
    return out


@njit(cache=True, parallel=True)
def cross_kernels(xf, xw, xoff, yf, yr, yw, yoff, rc, g, d):
    """``K(x_i, y_j)`` of every pair, shape (n, m) (windows as :func:`self_kernels`)."""
    n, m = xoff.size - 1, yoff.size - 1
    out = np.empty((n, m))
    for i in prange(n):
        a, b = xoff[i], xoff[i + 1]
        for j in range(m):
            c, e = yoff[j], yoff[j + 1]
            out[i, j] = _profile_dot(xf[a:b], xw[a:b], b - a, yf[c:e], yr[c:e], yw[c:e], e - c, rc, g, d)
    return out


@njit(cache=True)
def coefficient_table(fwd, rev, wts, woff, coef, rc, l):
    """``C[b] = sum_s coef[s] sum_{windows b of sv_s} w``, shape (4**l,) (both strands with ``rc``);
    ``coef`` already divided by ``sqrt(K(sv_s, sv_s))``."""
    table = np.zeros(1 << (2 * l))
    for s in range(woff.size - 1):
        c = coef[s]
        for i in range(woff[s], woff[s + 1]):
            table[fwd[i]] += c * wts[i]
            if rc:
                table[rev[i]] += c * wts[i]
    return table


@njit(cache=True)
def _hadamard(x):
    """The Walsh-Hadamard transform of ``x`` (length a power of 2) in place, unnormalised."""
    n = x.size
    h = 1
    while h < n:
        for i in range(0, n, 2 * h):
            for j in range(i, i + h):
                a = x[j]
                b = x[j + h]
                x[j] = a + b
                x[j + h] = a - b
        h *= 2


@njit(cache=True)
def smoothed_table(table, eigen):
    """``S[a] = sum_b g[m(a, b)] table[b]`` for every l-mer ``a`` (``m <= d``), in place: the
    transform of ``table``, times ``eigen[w(u)] / 4**l`` (:func:`hadamard_eigenvalues`, ``w(u)``
    the non-zero 2-bit groups of index ``u``), transformed back. Returns ``table``."""
    _hadamard(table)
    n = table.size
    for u in range(n):
        table[u] *= eigen[_mismatch_count(u)] / n
    _hadamard(table)
    return table


@njit(cache=True, parallel=True)
def linear_scores(fwd, wts, woff, sq, table, rho):
    """``sum_i w_i S[a_i] / sqrt(K(x, x)) - rho`` of every sequence, shape (n,) (``sq``: the
    ``K(x, x)``; ``S`` = :func:`smoothed_table`; + strand windows only)."""
    n = woff.size - 1
    out = np.empty(n)
    for s in prange(n):
        total = 0.0
        for i in range(woff[s], woff[s + 1]):
            total += wts[i] * table[fwd[i]]
        out[s] = total / math.sqrt(sq[s]) - rho
    return out


def window_index(fwd, rev, wts, woff, rc, l):
    """The support vectors' windows by l-mer: entries ``head[b]..head[b + 1] - 1`` of ``sv`` and
    ``wt`` are the support vector and weight of every window ``b`` (both strands with ``rc``).

    Returns
    -------
    head : ndarray of shape (4**l + 1,), int32 (int64 beyond 2**31 entries)
    sv : ndarray of shape (n_entries,), int32
    wt : ndarray of shape (n_entries,), int64
    """
    owner = np.repeat(np.arange(woff.size - 1, dtype=np.int32), np.diff(woff))
    codes = np.concatenate([fwd, rev]) if rc else fwd
    owner = np.concatenate([owner, owner]) if rc else owner
    weight = np.concatenate([wts, wts]) if rc else wts
    order = np.argsort(codes, kind="stable")
    head = np.zeros((1 << (2 * l)) + 1, dtype=np.int32 if codes.size < 2 ** 31 else np.int64)
    np.cumsum(np.bincount(codes, minlength=1 << (2 * l)), out=head[1:])
    return head, owner[order], weight[order]


@njit(cache=True, parallel=True)
def indexed_sv_kernels(fwd, wts, woff, head, sv, wt, n_sv, masks, counts, g, d):
    """``K(x, sv_s)`` of every sequence and support vector, shape (n, n_sv): for every + strand
    window ``a`` of ``x`` and every l-mer ``b = a ^ z`` within ``d`` mismatches (``masks``, with
    their ``counts`` of mismatches), the support vectors' windows ``b`` (:func:`window_index`)
    add ``w_a w_b`` to the integer mismatch profile of their support vector, dotted with ``g``
    at the end."""
    n = woff.size - 1
    out = np.empty((n, n_sv))
    for s in prange(n):
        prof = np.zeros((n_sv, d + 1), dtype=np.int64)
        for i in range(woff[s], woff[s + 1]):
            code = fwd[i]
            w = wts[i]
            for j in range(masks.size):
                b = code ^ masks[j]
                m = counts[j]
                for e in range(head[b], head[b + 1]):
                    prof[sv[e], m] += w * wt[e]
        for v in range(n_sv):
            total = 0.0
            for m in range(d + 1):
                total += g[m] * prof[v, m]
            out[s, v] = total
    return out
