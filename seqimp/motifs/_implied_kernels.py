"""Numba kernels of the implied POIM (:mod:`seqimp.motifs._implied_poim`).

A motif placed at start t changes the implied POIM of the k-mer at j only where the k-mer
overlaps the motif (t - k < j < t + m): elsewhere every factor of the product is 1 and the
term ``prod - 1`` is 0. The kernels visit only the overlapping starts of every row (at most
m + k - 1 of them), where the NumPy formulation built (rows, starts, 4**k) arrays over all
starts -- a position-free motif has a start at every position. ``ratio`` is ``4 * pwm`` with
a last row of ones (a letter outside the motif); ``positions`` are the 0-based rows j; the
output of order k is (rows, 4**k) flattened row-major, k-mer index = base-4 number, first
letter most significant. ``tests/test_motifs_fit.py`` checks them against the NumPy
formulation.

:func:`column_sweep_kernel` fits every column of a PWM in turn to the observed POIM (the PWM
step of :func:`seqimp.motifs.fit_motifs`): the column's affine design (as
:func:`column_kernel`), the normal equations of its weighted least squares and their optimum
on the probability simplex (:func:`simplex_faces`, the kernel of
:func:`seqimp.motifs._fit.simplex_lstsq`), without leaving numba between columns.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _products(ratio, m, j, t, k, skip, prod):
    """prod[z] = product over the k-mer z's letters of ratio[row] (row = j + p - t inside the
    motif, else the row of ones; the motif row ``skip`` counts as 1), ``prod`` of shape (4**k,).

    Built letter by letter as products of prefixes: after letter p, ``prod[y]`` holds the
    product over the first p + 1 letters of every (p+1)-mer ``y``, and the next letter's
    products are ``prod[y] * ratio[row, x]`` at ``4 y + x``, filled from the highest index down
    so that no prefix is overwritten before it is read (``(4 y + x) >> 2 = y``). A k-mer's
    factors are multiplied in the same order, from the first letter, as a loop over its letters
    would (a letter outside the motif or at ``skip`` is no multiplication, as there): the same
    bits in about 4/3 4**k multiplications instead of k 4**k."""
    size = 1
    prod[0] = 1.0
    for p in range(k):
        row = j + p - t
        if 0 <= row < m and row != skip:
            for z in range(4 * size - 1, -1, -1):
                prod[z] = prod[z >> 2] * ratio[row, z & 3]
        else:
            for z in range(4 * size - 1, -1, -1):
                prod[z] = prod[z >> 2]
        size *= 4


@njit(cache=True)
def contribution_kernel(ratio, starts, weights, a, k, positions, out):
    """out[j, z] += a * sum_t w_t (prod_t(j, z) - 1) over the overlapping starts; out (rows, 4**k)."""
    m = ratio.shape[0] - 1
    prod = out[0].copy()
    for r in range(positions.shape[0]):
        j = positions[r]
        for i in range(starts.shape[0]):
            t = starts[i]
            if t - k >= j or j >= t + m or weights[i] == 0.0:
                continue
            _products(ratio, m, j, t, k, -1, prod)
            for z in range(prod.shape[0]):
                out[r, z] += a * weights[i] * (prod[z] - 1.0)


@njit(cache=True)
def per_start_kernel(ratio, starts, a, k, positions, out):
    """out[j, z, i] = a * (prod_{t_i}(j, z) - 1); out (rows, 4**k, len(starts)), zero where no overlap."""
    m = ratio.shape[0] - 1
    prod = out[0, :, 0].copy()
    for r in range(positions.shape[0]):
        j = positions[r]
        for i in range(starts.shape[0]):
            t = starts[i]
            if t - k >= j or j >= t + m:
                continue
            _products(ratio, m, j, t, k, -1, prod)
            for z in range(prod.shape[0]):
                out[r, z, i] = a * (prod[z] - 1.0)


@njit(cache=True)
def column_kernel(ratio, col, starts, weights, a, k, positions, base, G):
    """The implied POIM of order k as ``base + G @ pwm[col]``: base (rows, 4**k), G (rows, 4**k, 4).

    For a start whose k-mer window holds column ``col`` (at offset p), the term is
    ``w (prod_without_col * 4 r_col(z_p) - 1)``: the product goes into G at letter z_p and -w
    into base; for any other overlapping start, ``w (prod - 1)`` into base. Starts without
    overlap add 0."""
    m = ratio.shape[0] - 1
    prod = base[0].copy()
    for r in range(positions.shape[0]):
        j = positions[r]
        for i in range(starts.shape[0]):
            t = starts[i]
            w = weights[i]
            if t - k >= j or j >= t + m or w == 0.0:
                continue
            p = col + t - j  # the column's offset inside the k-mer
            inside = 0 <= p < k
            _products(ratio, m, j, t, k, col if inside else -1, prod)
            for z in range(prod.shape[0]):
                if inside:
                    G[r, z, (z >> (2 * (k - 1 - p))) & 3] += 4.0 * a * w * prod[z]
                    base[r, z] -= a * w
                else:
                    base[r, z] += a * w * (prod[z] - 1.0)


@njit(cache=True)
def simplex_faces(H, g, scale):
    """:func:`simplex_lstsq` on ``min x'Hx - 2g'x`` over the simplex: faces in the order of
    ``itertools.combinations`` from the largest down; on each the equality-constrained optimum
    ``x = H_S^-1 (g_S - nu 1)``, ``sum(x) = 1``; the first feasible point meeting the KKT
    conditions (no letter outside the face lowers the objective) is returned, else the best
    feasible point met."""
    d = H.shape[0]
    best = np.full(d, 1.0 / d)
    best_val = np.inf
    idx = np.empty(d, dtype=np.intp)
    inside = np.empty(d, dtype=np.bool_)
    for size in range(d, 0, -1):  # larger faces first: the optimum is usually interior or near it
        for t in range(size):
            idx[t] = t
        while True:
            HS = np.empty((size, size))
            rhs = np.empty((size, 2))
            for a in range(size):
                rhs[a, 0] = g[idx[a]]
                rhs[a, 1] = 1.0
                for b in range(size):
                    HS[a, b] = H[idx[a], idx[b]]
            uv = np.linalg.solve(HS, rhs)
            nu = (1.0 - uv[:, 0].sum()) / uv[:, 1].sum()
            sol = uv[:, 0] + nu * uv[:, 1]
            if sol.min() >= -1e-12:
                x = np.zeros(d)
                inside[:] = False
                for a in range(size):
                    x[idx[a]] = max(sol[a], 0.0)
                    inside[idx[a]] = True
                x /= x.sum()
                grad = H @ x - g
                if size == d:
                    return x
                mean_in = 0.0
                min_out = np.inf
                for a in range(d):
                    if inside[a]:
                        mean_in += grad[a]
                    elif grad[a] < min_out:
                        min_out = grad[a]
                if min_out >= mean_in / size - 1e-9 * scale:
                    return x
                val = x @ (H @ x) - 2.0 * (g @ x)
                if val < best_val:
                    best, best_val = x, val
            t = size - 1  # the next face of this size, in lexicographic order
            while t >= 0 and idx[t] == d - size + t:
                t -= 1
            if t < 0:
                break
            idx[t] += 1
            for a in range(t + 1, size):
                idx[a] = idx[a - 1] + 1
    return best


@njit(cache=True)
def ridged_simplex(H, g, ridge):
    """The optimum of ``x'Hx - 2g'x`` on the simplex with :func:`seqimp.motifs._fit.simplex_lstsq`'s
    ridge towards its centre: ``lam = max(ridge trace(H) / d, 1e-300)`` added to H's diagonal
    and ``lam / d`` to g (in place), then :func:`simplex_faces`."""
    d = H.shape[0]
    trace = 0.0
    for x in range(d):
        trace += H[x, x]
    lam = max(ridge * trace / d, 1e-300)
    for x in range(d):
        H[x, x] += lam
        g[x] += lam / d
    return simplex_faces(H, g, np.abs(H).max() + np.abs(g).max())


@njit(cache=True)
def column_sweep_kernel(pwm, starts, weights, alpha, orders, positions, pos_offsets, entry_offsets, w, target, sign,
                        ridge):
    """Set every column of ``pwm`` (m, 4) in turn, in place, to ``argmin ||G x - c||^2`` on the
    simplex, where ``sign * w * (base + G x)`` is the motif's implied POIM as an affine function
    of the column (:func:`column_kernel` over all orders) and ``c = target - sign * w * base``;
    the ridge and the face search of :func:`seqimp.motifs._fit.simplex_lstsq`. ``orders`` (K,),
    ``alpha`` (K,) their scales; ``positions`` the rows of all orders concatenated, order q's
    being ``positions[pos_offsets[q]:pos_offsets[q + 1]]``; the entries of order q (rows x 4**k,
    row-major) start at ``entry_offsets[q]`` of ``w`` and ``target``."""
    m = pwm.shape[0]
    ratio = np.ones((m + 1, 4))
    for c in range(m):
        for x in range(4):
            ratio[c, x] = 4.0 * pwm[c, x]
    n_entries = entry_offsets[-1]
    base = np.empty(n_entries)
    G = np.empty((n_entries, 4))
    for col in range(m):
        base[:] = 0.0
        G[:] = 0.0
        for q in range(orders.shape[0]):  # order q's block of the design, as column_kernel writes it
            rows = pos_offsets[q + 1] - pos_offsets[q]
            if rows == 0:
                continue
            nz = 4 ** orders[q]
            e0, e1 = entry_offsets[q], entry_offsets[q + 1]
            column_kernel(ratio, col, starts, weights, alpha[q], orders[q], positions[pos_offsets[q]:pos_offsets[q + 1]],
                          base[e0:e1].reshape((rows, nz)), G[e0:e1].reshape((rows, nz, 4)))
        H = np.zeros((4, 4))
        g = np.zeros(4)
        for e in range(n_entries):
            if G[e, 0] == 0.0 and G[e, 1] == 0.0 and G[e, 2] == 0.0 and G[e, 3] == 0.0:
                continue  # adds +-0 to every sum, which leaves it as it is (none is -0): the same bits
            s = sign * w[e]
            ce = target[e] - s * base[e]
            for x in range(4):
                gx = s * G[e, x]
                g[x] += gx * ce
                for x2 in range(4):
                    H[x, x2] += gx * (s * G[e, x2])
        sol = ridged_simplex(H, g, ridge)
        for x in range(4):
            pwm[col, x] = sol[x]
            ratio[col, x] = 4.0 * sol[x]
