"""Naive overlap-sum POIM for order-0 backgrounds: a slow reference for tests and benchmarks.

Q(z, j) = sum over every window (k, i) that overlaps [j, j+m) of
E[W_k[i, X[i:i+k]] | z at j] - E[W_k[i, X[i:i+k]]], each conditional expectation summed
over all settings of the window's symbols outside the occurrence. Work per (z, j) grows
like sum over overlapping windows of A**(free symbols): this is what the exact engine avoids.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from seqimp.errors import SeqimpError

__all__ = ["naive_poim_order0"]


@njit(cache=True)
def _window_mean(W, i, k, probs, A):
    total = 0.0
    for y in range(A ** k):
        pr = 1.0
        rest = y
        for t in range(k - 1, -1, -1):
            pr *= probs[i + t, rest % A]
            rest //= A
        total += pr * W[i, y]
    return total


@njit(cache=True)
def _naive_level(flat_w, offsets, degree, L, A, probs, means, m, positions, out):
    for r in range(positions.shape[0]):
        j = positions[r]
        for z in range(A ** m):
            q = 0.0
            for k in range(1, degree + 1):
                cols = A ** k
                lo = max(0, j - k + 1)
                hi = min(j + m - 1, L - k)
                for i in range(lo, hi + 1):
                    a0 = max(i, j)
                    a1 = min(i + k, j + m)
                    lf = a0 - i
                    rf = i + k - a1
                    ov = a1 - a0
                    zsub = (z // A ** (j + m - a1)) % A ** ov
                    cond = 0.0
                    for f in range(A ** (lf + rf)):
                        left = f // A ** rf
                        right = f % A ** rf
                        y = (left * A ** ov + zsub) * A ** rf + right
                        pr = 1.0
                        rest = right
                        for t in range(rf):
                            pr *= probs[i + k - 1 - t, rest % A]
                            rest //= A
                        rest = left
                        for t in range(lf):
                            pr *= probs[a0 - 1 - t, rest % A]
                            rest //= A
                        cond += pr * flat_w[offsets[k - 1] + i * cols + y]
                    q += cond - means[k - 1, i]
            out[r, z] = q


def naive_poim_order0(weights, probs, max_order, positions=None):
    """POIM of order-0 backgrounds by the overlap sum.

    Parameters
    ----------
    weights : PositionalWeights
    probs : ndarray of shape (L, A)
        Symbol probabilities per position (rows sum to 1).
    max_order : int
    positions : array-like of int, optional
        Starts to evaluate (default all); entries beyond L-m are skipped for order m.

    Returns
    -------
    list of ndarray
        Element m-1 of shape (len(positions valid for m), A**m).
    """
    tables = weights.tables
    length, degree, a = weights.length, weights.degree, weights.alphabet.size
    probs = np.ascontiguousarray(probs, dtype=np.float64)
    if probs.shape != (length, a):
        raise SeqimpError(f"probs must have shape ({length}, {a}), got {probs.shape}")
    flat = np.concatenate([t.ravel() for t in tables])
    offsets = np.cumsum([0] + [t.size for t in tables]).astype(np.int64)
    means = np.zeros((degree, length))
    for k in range(1, degree + 1):
        for i in range(length - k + 1):
            means[k - 1, i] = _window_mean(tables[k - 1], i, k, probs, a)
    positions = np.arange(length) if positions is None else np.asarray(positions, dtype=np.int64)
    out = []
    for m in range(1, max_order + 1):
        pos = positions[positions <= length - m].astype(np.int64)
        level = np.zeros((pos.size, a ** m))
        _naive_level(flat, offsets, degree, length, a, probs, means, m, pos, level)
        out.append(level)
    return out
