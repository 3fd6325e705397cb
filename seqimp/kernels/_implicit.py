"""WD features computed on demand: what the matrix-free solvers and scoring share.

The WD feature vector of a sequence x of length L (degree K) has the value
sqrt(beta_k) in column ``feature_offsets(L, K)[k-1] + i * A**k + y`` for each k-mer
index y at position i (exactly the layout of :func:`~seqimp.wd_features`). These
column indices are base-A numbers of x's k-mers, so numba kernels compute them on
demand from the (n, L) uint8 codes: a dot product w.phi(x) and an update
w += c phi(x) each touch sum_k (L-k+1) weights and read one row of codes; nothing is
stored per non-zero. The codes may be a read-only memory map.

* :func:`wd_scores`: ``phi(x).w + b`` for many sequences, in parallel over rows;
* :func:`check_codes`, :func:`implicit_layout`, :func:`row_norm2`: the checks and
  constants of a fit.

The solvers: :mod:`._dcd` (the hinge-loss SVM by dual coordinate descent) and
:mod:`._ridge` (ridge regression by conjugate gradients).
"""

from __future__ import annotations

import sys

import numba
import numpy as np

from ..errors import SeqimpError
from ..io import get_alphabet
from ..io._check import check_sequences
from ._params import check_degree_shifts, wd_beta
from ._unknown import has_unknown, known_columns

__all__ = ["wd_scores", "check_codes", "implicit_layout", "row_norm2"]


@numba.njit(cache=True, nogil=True, inline="always")
def _dot(x, w, offsets, sqb, degree, base):
    """phi(x).w[:p] for one row of codes (a k-mer that covers an unknown symbol is no feature: :func:`_dot_known`)."""
    if has_unknown(x, base):
        return _dot_known(x, w, offsets, sqb, degree, base)
    length = x.shape[0]
    total = 0.0
    width = 1
    for k in range(1, degree + 1):
        width *= base
        top = width // base
        off = offsets[k - 1]
        idx = 0
        for t in range(k):
            idx = idx * base + x[t]
        acc = w[off + idx]
        for i in range(1, length - k + 1):
            # roll the window: drop x[i-1], append x[i+k-1] (no division in the inner loop)
            idx = (idx - x[i - 1] * top) * base + x[i + k - 1]
            acc += w[off + i * width + idx]
        total += sqb[k - 1] * acc
    return total


@numba.njit(cache=True, nogil=True)
def _dot_known(x, w, offsets, sqb, degree, base):
    """:func:`_dot` of a row with unknown symbols (:func:`known_columns`)."""
    cols = np.empty(x.shape[0], dtype=np.int64)
    total = 0.0
    width = 1
    for k in range(1, degree + 1):
        width *= base
        off = offsets[k - 1]
        acc = 0.0
        for j in range(known_columns(x, k, base, width, cols)):
            acc += w[off + cols[j]]
        total += sqb[k - 1] * acc
    return total


@numba.njit(cache=True, parallel=True)
def _scores(codes, w, offsets, sqb, degree, base, out):
    for r in numba.prange(codes.shape[0]):
        out[r] = _dot(codes[r], w, offsets, sqb, degree, base)


def implicit_layout(length, degree, alphabet="dna"):
    """``(offsets, sqrt(beta), base)`` of the WD feature layout; refuses tables over 2^31 entries."""
    from ._unfold import check_table_size

    base = get_alphabet(alphabet).size
    offsets = check_table_size(length, degree, base)
    return offsets.astype(np.int64), np.sqrt(wd_beta(degree)), base


def row_norm2(length, degree) -> float:
    """||phi(x)||^2 = sum_k beta_k (L-k+1), the same for every sequence without unknown symbols (one with
    some has fewer features: :func:`~seqimp.kernels._layout.row_norm2_buf`)."""
    return float(np.dot(wd_beta(degree), length - np.arange(degree)))


def check_codes(codes, name="X", alphabet="dna"):
    """(n, L) uint8 codes, as :func:`~seqimp.io._check.check_sequences`, but a uint8 array or memory map is
    checked in blocks of rows and never copied (a memory map stays a view of the file). The unknown code
    (``alphabet.unknown``: N and the ambiguity letters) is accepted: the WD kernels leave out the k-mers
    that cover it."""
    alpha = get_alphabet(alphabet)
    if isinstance(codes, np.ndarray) and codes.dtype == np.uint8 and codes.ndim == 2 and codes.size:
        arr = np.asarray(codes)
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        rows = 1 << 16
        top = alpha.unknown if alpha.ambiguous else alpha.size - 1
        unknown = f"; {top} is unknown" if alpha.ambiguous else ""
        for a in range(0, arr.shape[0], rows):
            block = arr[a:a + rows]
            if block.max() > top:
                r, pos = divmod(int(np.flatnonzero((block > top).ravel())[0]), arr.shape[1])
                raise SeqimpError(f"{name}: sequence {a + r}: code {block[r, pos]} at position {pos + 1} is outside "
                                  f"0..{top} (alphabet {alpha.name}{unknown})")
        return arr
    return check_sequences(codes, name, alpha, unknown=True)


def lines_shown(verbose) -> bool:
    """Whether :func:`solver_line` shows anything for ``verbose``: with ``"log"``, only while the
    ``seqimp.kernels`` log takes DEBUG lines (a solver computes a line's figures only then)."""
    if isinstance(verbose, str) and verbose == "log":
        import logging

        return logging.getLogger("seqimp.kernels").isEnabledFor(logging.DEBUG)
    return bool(verbose)


def solver_line(verbose, msg):
    """A solver's progress line (one pass, one iteration) on stderr when ``verbose``; with
    ``verbose="log"`` (the pipeline) at DEBUG level on the ``seqimp`` log instead (``seqimp -v``)."""
    if isinstance(verbose, str) and verbose == "log":
        import logging

        logging.getLogger("seqimp.kernels").debug(msg)
    elif verbose:
        print(msg, file=sys.stderr, flush=True)


def wd_scores(codes, coef, intercept=0.0, *, degree, alphabet="dna") -> np.ndarray:
    """``phi(x).coef + intercept`` for each row of ``codes``, without a feature matrix.

    Parameters
    ----------
    codes : ndarray of shape (n, L), uint8 (or a memory map), or sequences
    coef : ndarray of shape (p,)
        Weights in the :func:`~seqimp.wd_features` layout for length L and ``degree``.
    intercept : float, default=0.0

    Returns
    -------
    scores : ndarray of shape (n,)
    """
    alpha_ = get_alphabet(alphabet)
    X = check_codes(codes, "X", alpha_)
    length = X.shape[1]
    degree, _ = check_degree_shifts(degree, 0, length)
    offsets, sqb, base = implicit_layout(length, degree, alpha_)
    coef = np.ascontiguousarray(coef, dtype=np.float64).ravel()
    if coef.shape[0] != offsets[-1]:
        raise SeqimpError(f"coef has {coef.shape[0]} entries, the WD features of degree {degree} and "
                          f"length {length} have {int(offsets[-1])}")
    out = np.empty(X.shape[0])
    _scores(X, coef, offsets, sqb, degree, base, out)
    return out + float(intercept)
