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
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def _products(ratio, m, j, t, k, skip, prod):
    """prod[z] = product over the k-mer z's letters of ratio[row] (row = j + p - t inside the
    motif, else the row of ones; the motif row ``skip`` counts as 1)."""
    n = prod.shape[0]
    for z in range(n):
        value = 1.0
        for p in range(k):
            row = j + p - t
            if 0 <= row < m and row != skip:
                value *= ratio[row, (z >> (2 * (k - 1 - p))) & 3]
        prod[z] = value


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
