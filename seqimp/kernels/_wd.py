"""Weighted-degree (WD) and weighted-degree-with-shifts (WDS) string kernels.

For sequences x, x' of equal length L, degree K and maximal shift S::

    k(x, x') = sum_{k=1..K} beta_k sum_{i=0..L-k} [ I(x[i:i+k] == x'[i:i+k])
               + sum_{s=1..S, i+s <= L-k} delta_s ( I(x[i+s:i+s+k] == x'[i:i+k])
                                                  + I(x[i:i+k] == x'[i+s:i+s+k]) ) ]

with beta_k = 2(K-k+1) / (K(K+1)) and delta_s = 1 / (2(s+1)) (Rätsch,
Sonnenburg & Schölkopf 2005). S = 0 is the WD kernel.

The Gram matrix is computed from run lengths of matching symbols: along one
diagonal (shift s, one direction) a run of r consecutive matches holds
sum_k beta_k (r-k+1)_+ matching k-mers, and that sum grows by
h[t] = sum_{k<=min(K,t)} beta_k at the t-th symbol of a run. One pass over
the L - s aligned symbols per diagonal gives O(L (2S+1)) work per pair,
independent of K.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from ..errors import SeqimpError
from ..io import get_alphabet
from ..io._check import check_sequences
from ._layout import row_addresses, row_buffers, row_count, solver_layout
from ._params import check_degree_shifts, feature_offsets, shift_weights, wd_beta

__all__ = ["wd_kernel", "wd_features"]


def _run_increments(degree: int, length: int) -> np.ndarray:
    """h[t] = sum_{k <= min(K, t)} beta_k for t = 0..L (h[0] = 0)."""
    h = np.zeros(length + 1)
    csum = np.cumsum(wd_beta(degree))
    t = np.arange(1, length + 1)
    h[1:] = csum[np.minimum(t, degree) - 1]
    return h


@numba.njit(cache=True, nogil=True)
def _pair(x, y, h, delta, shifts):
    """k(x, y): runs of matching symbols along each diagonal. ``y`` holds an unknown symbol as a code that
    no code of ``x`` equals (:func:`_unknown_apart`), so an unknown symbol matches nothing, not even another
    one, and ends a run (the k-mers that cover it are no features) at no cost in the loops."""
    length = x.shape[0]
    r = 0
    total = 0.0
    for j in range(length):
        r = r + 1 if x[j] == y[j] else 0
        total += h[r]
    for s in range(1, shifts + 1):
        r1 = 0
        r2 = 0
        acc = 0.0
        for j in range(length - s):
            r1 = r1 + 1 if x[j + s] == y[j] else 0
            r2 = r2 + 1 if x[j] == y[j + s] else 0
            acc += h[r1] + h[r2]
        total += delta[s] * acc
    return total


@numba.njit(cache=True, nogil=True)
def _upper_row(X, Xy, out, row, h, delta, shifts):
    """``out[row, row:]``: one row of the upper triangle, written along the row (``Xy``: ``X`` as the
    second argument of :func:`_pair` reads it)."""
    for j in range(row, X.shape[0]):
        out[row, j] = _pair(X[row], Xy[j], h, delta, shifts)


#: Side of the square tiles in which the upper triangle is copied to the lower one.
_TILE = 64


@numba.njit(cache=True, nogil=True)
def _mirror_tiles(out, bi):
    """``out[i, j] = out[j, i]`` for j < i in the rows of tile row ``bi``, tile by tile."""
    n = out.shape[0]
    i0 = bi * _TILE
    for j0 in range(0, i0 + 1, _TILE):
        for i in range(i0, min(i0 + _TILE, n)):
            for j in range(j0, min(j0 + _TILE, i)):
                out[i, j] = out[j, i]


@numba.njit(cache=True, parallel=True)
def _gram_sym(X, Xy, h, delta, shifts):
    n = X.shape[0]
    out = np.empty((n, n))
    # rows t and n-1-t together: every task does n+1 pairs (balanced triangle); each row of the
    # upper triangle is written along the row (writing the lower triangle at the same time went
    # down a column: a cache line per pair)
    for t in numba.prange((n + 1) // 2):
        _upper_row(X, Xy, out, t, h, delta, shifts)
        if n - 1 - t != t:
            _upper_row(X, Xy, out, n - 1 - t, h, delta, shifts)
    # then the lower triangle from the upper, tile by tile (a tile's rows and columns stay in
    # cache), tile rows b and nb-1-b together as above
    nb = (n + _TILE - 1) // _TILE
    for b in numba.prange((nb + 1) // 2):
        _mirror_tiles(out, b)
        if nb - 1 - b != b:
            _mirror_tiles(out, nb - 1 - b)
    return out


@numba.njit(cache=True, parallel=True)
def _gram(X, Y, h, delta, shifts):
    n = X.shape[0]
    m = Y.shape[0]
    out = np.empty((n, m))
    for i in numba.prange(n):
        for j in range(m):
            out[i, j] = _pair(X[i], Y[j], h, delta, shifts)
    return out


def _unknown_apart(codes, base):
    """``codes`` with the unknown code ``base`` written as ``base + 1``, which no code of the other sequence of
    a pair equals (``codes`` itself when it holds none: no copy)."""
    if codes.max() < base:
        return codes
    return np.where(codes >= base, base + 1, codes).astype(np.uint8)


def wd_kernel(X, Y=None, *, degree, shifts=0, normalize=False, alphabet="dna") -> np.ndarray:
    """Gram matrix of the weighted-degree kernel (with shifts when ``shifts > 0``).

    Parameters
    ----------
    X : list of str, SequenceSet or ndarray of shape (n, L)
        Sequences (strings or integer codes, A=0, C=1, G=2, T=3).
    Y : same types, shape (m, L), optional
        Second set; ``None`` means ``X`` (a symmetric Gram matrix).
    degree : int
        Largest k-mer length K, ``1 <= K <= L``.
    shifts : int, default=0
        Largest shift S, ``0 <= S < L``; 0 is the WD kernel, > 0 the WDS kernel.
    normalize : bool, default=False
        Divide by sqrt(k(x,x) k(x',x')). Only allowed for ``shifts=0``, where
        k(x,x) = sum_k beta_k (L-k+1) is the same constant for every x. With
        shifts, k(x,x) depends on x, and the normalised score is no longer
        linear in the positional k-mers of x, so a model trained on it could
        not be unfolded exactly into :class:`~seqimp.PositionalWeights`.
        A sequence with unknown symbols has a smaller k(x,x); the kernel is
        still divided by the constant of a sequence without any (so it stays
        linear in the positional k-mers and unfolds exactly), and its k(x,x)
        is then below 1.
    alphabet : str or Alphabet, default="dna"
        Used to encode strings and to tell the unknown code (``alphabet.size``:
        N and the IUPAC ambiguity letters) from the symbols; the kernel compares
        codes. An unknown symbol matches nothing, not even another unknown symbol:
        a k-mer that covers one is no feature of the sequence.

    Returns
    -------
    K : ndarray of shape (n, m), float64
        ``K[a, b] = k(X[a], Y[b])``.

    Raises
    ------
    SeqimpError
        Degree < 1 or > L, shifts < 0 or >= L, X and Y of different lengths,
        ``normalize=True`` with shifts.
    """
    alpha = get_alphabet(alphabet)
    Xc = check_sequences(X, "X", alpha, unknown=True)
    length = Xc.shape[1]
    degree, shifts = check_degree_shifts(degree, shifts, length)
    if normalize and shifts:
        raise SeqimpError("normalize=True is only available for shifts=0: with shifts the "
                          "normalised kernel cannot be unfolded into positional weights")
    h = _run_increments(degree, length)
    delta = shift_weights(shifts)
    if Y is None:
        gram = _gram_sym(Xc, _unknown_apart(Xc, alpha.size), h, delta, shifts)
    else:
        Yc = check_sequences(Y, "Y", alpha, length=length, unknown=True)
        gram = _gram(Xc, _unknown_apart(Yc, alpha.size), h, delta, shifts)
    if normalize:
        gram /= float(np.dot(wd_beta(degree), length - np.arange(degree)))
    return gram


@numba.njit(cache=True, parallel=True)
def _feature_counts(X, degree, base, lay):
    """The features (non-zeros) of every row: ``sum_k (L - k + 1)`` less the k-mers that cover an unknown symbol."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    rows = 256
    for c in numba.prange((n + rows - 1) // rows):
        buf, kmer = row_buffers(X.shape[1], degree)
        for r in range(c * rows, min((c + 1) * rows, n)):
            row_addresses(X[r], lay, degree, base, buf, kmer)
            total = 0
            for k in range(1, degree + 1):
                total += row_count(buf, degree, k)
            out[r] = total
    return out


@numba.njit(cache=True, parallel=True)
def _feature_indices(X, degree, base, lay, sqb, indptr, indices, data):
    n, length = X.shape
    rows = 256                        # per chunk of rows one scratch array, not one per row
    for c in numba.prange((n + rows - 1) // rows):
        buf, kmer = row_buffers(length, degree)
        for r in range(c * rows, min((c + 1) * rows, n)):
            row_addresses(X[r], lay, degree, base, buf, kmer)
            at = indptr[r]
            start = 0
            for k in range(1, degree + 1):
                for j in range(start, start + row_count(buf, degree, k)):
                    indices[at] = buf[j]
                    data[at] = sqb[k - 1]
                    at += 1
                start += length - k + 1


def wd_features(X, *, degree, alphabet="dna") -> sp.csr_matrix:
    """Explicit feature map of the WD kernel (shifts = 0).

    One column per (k, position, k-mer); a sequence has the value sqrt(beta_k)
    in the column of each of its positional k-mers, so that
    ``F @ F.T == wd_kernel(X, degree=K)``.

    Parameters
    ----------
    X : list of str, SequenceSet or ndarray of shape (n, L)
        A k-mer that covers an unknown symbol (N, an ambiguity letter; the code
        ``alphabet.size``) is no feature: the row has no column for it.
    degree : int
        Largest k-mer length K, ``1 <= K <= L``.
    alphabet : str or Alphabet, default="dna"
        Alphabet size A sets the number of k-mer columns.

    Returns
    -------
    F : scipy.sparse.csr_matrix of shape (n, sum_k (L-k+1) A**k), float64
        Column ``feature_offsets(L, K, A)[k-1] + i * A**k + y`` is k-mer index
        ``y`` at 0-based position ``i``; a row without unknown symbols has
        sum_k (L-k+1) non-zeros, with sorted column indices.
    """
    alpha = get_alphabet(alphabet)
    Xc = check_sequences(X, "X", alpha, unknown=True)
    n, length = Xc.shape
    degree, _ = check_degree_shifts(degree, 0, length)
    base = alpha.size
    offsets = feature_offsets(length, degree, base)
    n_cols = int(offsets[-1])
    nnz_row = int(sum(length - k + 1 for k in range(1, degree + 1)))
    # the columns of a row: the solver's address rule on the standard layout (one rule for both)
    table = solver_layout(length, degree, base, paired=False).table
    if Xc.max() < base:
        counts = None
        nnz = n * nnz_row
    else:
        counts = _feature_counts(Xc, degree, base, table)
        nnz = int(counts.sum())
    idx_dtype = np.int32 if n_cols < np.iinfo(np.int32).max and nnz < np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(n + 1, dtype=idx_dtype)
    if counts is None:
        indptr[:] = np.arange(n + 1, dtype=idx_dtype) * nnz_row
    else:
        np.cumsum(counts, out=indptr[1:])
    indices = np.empty(nnz, dtype=idx_dtype)
    data = np.empty(nnz)
    _feature_indices(Xc, degree, base, table, np.sqrt(wd_beta(degree)), indptr, indices, data)
    F = sp.csr_matrix((data, indices, indptr), shape=(n, n_cols), copy=False)
    F.has_sorted_indices = True
    return F
