"""In-silico mutagenesis: the score change of every single-symbol substitution."""

from __future__ import annotations

import numpy as np

from .._progress import progress_bar
from ..errors import check_int
from ..io._alphabet import get_alphabet
from ..io._check import check_sequences
from ._scorers import call_scorer

__all__ = ["ism"]


def ism(score_fn, X, *, alphabet="dna", batch_size=8192, progress=False) -> np.ndarray:
    """In-silico mutagenesis: the score change of every single-symbol substitution.

    Each sequence costs exactly ``(A-1)*L + 1`` rows of ``score_fn`` (A = alphabet size:
    ``3L + 1`` for DNA): the reference and every substitution, nothing twice. Rows of
    several sequences are scored together in calls of at most ``batch_size`` rows.

    Parameters
    ----------
    score_fn : callable
        ``score_fn(codes)`` with codes of shape (m, L), uint8; returns shape (m,).
    X : list of str, SequenceSet or ndarray of shape (n, L)
    alphabet : str or Alphabet, default="dna"
    batch_size : int, default=8192
    progress : bool, default=False

    Returns
    -------
    ndarray of shape (n, L, A), float64
        ``[i, p, a] = s(X_i with symbol a at position p) - s(X_i)``; 0 at the reference symbol.
    """
    alpha = get_alphabet(alphabet)
    codes = check_sequences(X, "X", alpha)
    batch_size = check_int(batch_size, "batch_size")
    n, length = codes.shape
    a = alpha.size
    per = (a - 1) * length + 1
    out = np.zeros((n, length, a))
    total = n * per
    ref = np.empty(n)
    # row r of a sequence: r = 0 reference, r >= 1 -> position (r-1)//(a-1), shift (r-1)%(a-1)+1
    with progress_bar(total, "ism", enabled=progress) as bar:
        for g0 in range(0, total, batch_size):
            g = np.arange(g0, min(g0 + batch_size, total))
            seq, r = np.divmod(g, per)
            Y = codes[seq]
            mut = np.flatnonzero(r > 0)
            pos, shift = np.divmod(r[mut] - 1, a - 1)
            alt = (codes[seq[mut], pos].astype(np.intp) + shift + 1) % a
            Y[mut, pos] = alt
            scores = call_scorer(score_fn, Y)
            # the reference row of a sequence precedes its mutants, so it was scored in this
            # call or an earlier one: keep the references in a (n,) array as they come
            ref_rows = np.flatnonzero(r == 0)
            ref[seq[ref_rows]] = scores[ref_rows]
            out[seq[mut], pos, alt] = scores[mut] - ref[seq[mut]]
            bar.update(g.size)
    return out
