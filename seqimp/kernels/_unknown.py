"""Unknown symbols (N, X and the ambiguity letters: a code >= the alphabet size) in rows of codes.

A positional k-mer that covers an unknown symbol is no feature of its sequence. The rolling k-mer index
of the scoring and ridge kernels reads an unknown symbol as 0 and skips the windows that cover one
(:func:`known_columns`); the solvers' addresses do the same in :func:`~._layout.row_addresses`.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["has_unknown", "known_symbol", "known_columns"]


@numba.njit(cache=True, nogil=True, inline="always")
def has_unknown(x, base):
    """Whether the row of codes ``x`` holds an unknown symbol (a code >= ``base``: N, X, ambiguity letters)."""
    for j in range(x.shape[0]):
        if x[j] >= base:
            return True
    return False


@numba.njit(cache=True, nogil=True, inline="always")
def known_symbol(c, base):
    """A code as the rolling k-mer index reads it: an unknown symbol as 0 (its windows are skipped)."""
    return np.int64(c) if c < base else np.int64(0)


@numba.njit(cache=True, nogil=True)
def known_columns(x, k, base, width, out):
    """The columns ``i * width + y`` (within order k's block) of the k-mers of ``x`` that cover no unknown
    symbol into ``out``; returns their number. The window rolls over an unknown symbol read as 0 and counts
    only where the last one lies before its start."""
    top = width // base
    idx = np.int64(0)
    last = -1                       # position of the last unknown symbol read
    n = 0
    for j in range(x.shape[0]):
        if j >= k:
            idx -= known_symbol(x[j - k], base) * top
        if x[j] >= base:
            last = j
        idx = idx * base + known_symbol(x[j], base)
        i = j - k + 1               # the window x[i:j+1]
        if i >= 0 and last < i:
            out[n] = i * width + idx
            n += 1
    return n
