"""The score of every l-mer on its own under a gkm model's weights
(:meth:`~seqimp.kernels.GKMClassifier.lmer_scores`, the l-mer weights gkm-SVM lists), by the
halves of the l-mer instead of one l-mer at a time.

An l-mer ``u = (x, y)`` (``x`` its first ``l // 2`` letters, ``y`` the rest) scores
``sum_c w[left[x, c] + right[y, c]]`` over the ``C(l, k)`` column choices (:class:`~._gkm.GkmTables`).
A choice reads only the letters of ``x`` at its columns in the left half, ``A(c)``; the choices
with the same ``A`` form a group, and within a group the partial row
``R_A[x_A, y] = sum_{c in A} w[left[x, c] + right[y, c]]`` over every right half ``y`` is the same for
all ``4**(l//2 - |A|)`` left halves ``x`` that agree at ``A``. So each group computes its
``4**|A|`` rows once (the gathers of one choice fall in its ``4**k`` weights) and adds each row to
the l-mers that share it: for l = 10, k = 6 about 2.5e7 gathers and 3.2e7 additions instead of
2.2e8 scattered gathers (``4**l * C(l, k)``). Rows are summed choice by choice in choice order,
groups in the order of their columns, each l-mer's sum the same for any thread count.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit, prange

from ._kernel import gkm_columns

__all__ = ["lmer_groups", "lmer_scores"]


@lru_cache(maxsize=8)
def lmer_groups(word_length, informative):
    """The groups of column choices by their columns in the left half (module docstring), for
    the choices of :func:`~._gkm.gkm_columns`.

    Returns
    -------
    choices : ndarray of int64, the choices group by group (ascending in a group)
    choice_off : ndarray of shape (n_groups + 1,), int64; group g's choices are
        ``choices[choice_off[g]:choice_off[g + 1]]``
    rows : ndarray of int64, group by group: the left half of each row, its letters outside the
        group's columns 0 (``4**|A|`` rows a group); ``row_off`` of shape (n_groups + 1,)
    members : ndarray of int64, row by row: the left halves that share the row
        (``4**(l//2 - |A|)`` each, ascending); ``member_off`` of shape (n_rows + 1,)
    """
    h1 = word_length // 2
    keys = [tuple(int(p) for p in row if p < h1) for row in gkm_columns(word_length, informative)]
    halves = np.arange(4 ** h1, dtype=np.int64)
    choices, choice_off, rows, row_off, members, member_off = [], [0], [], [0], [], [0]
    for g in sorted(set(keys)):
        choices.extend(c for c, key in enumerate(keys) if key == g)
        choice_off.append(len(choices))
        shared = halves & sum(3 << (2 * (h1 - 1 - p)) for p in g)
        order = np.argsort(shared, kind="stable")  # the halves of one row together, ascending
        share = 4 ** (h1 - len(g))
        rows.extend(shared[order[::share]].tolist())
        row_off.append(len(rows))
        members.extend(order.tolist())
        member_off.extend(range(member_off[-1] + share, member_off[-1] + order.size + 1, share))
    return tuple(np.asarray(v, dtype=np.int64) for v in (choices, choice_off, rows, row_off, members, member_off))


@njit(cache=True, parallel=True)
def _lmer_scores(left, right_t, w, factor, choices, choice_off, rows, row_off, members, member_off):
    """Every l-mer's score times ``factor``, shape (4**l,), from the groups of :func:`lmer_groups`:
    group by group, each of its rows (in parallel: their members are disjoint) summed over the
    group's choices and added to the l-mers of its members."""
    n_right = right_t.shape[1]
    out = np.zeros(left.shape[0] * n_right)
    for g in range(choice_off.size - 1):
        for r in prange(row_off[g], row_off[g + 1]):
            x = rows[r]
            row = np.zeros(n_right)
            for t in range(choice_off[g], choice_off[g + 1]):
                c = choices[t]
                base = left[x, c]
                rt = right_t[c]
                for y in range(n_right):
                    row[y] += w[base + rt[y]]
            for m in range(member_off[r], member_off[r + 1]):
                o = members[m] * n_right
                for y in range(n_right):
                    out[o + y] += row[y]
    if factor != 1.0:
        for u in prange(out.size):
            out[u] *= factor
    return out


@njit(cache=True, parallel=True)
def _same_for_reverse_complements(out, l):
    """Each l-mer's entry set to that of the lower index of it and its reverse complement (which
    is never written here)."""
    for u in prange(out.size):
        v = 0
        for p in range(l):
            v = (v << 2) | (3 - ((u >> (2 * p)) & 3))
        if v < u:
            out[u] = out[v]


def lmer_scores(tables, w, rc):
    """``<phi(u), w>`` of every l-mer ``u`` alone, by l-mer index, shape (4**l,); with ``rc``
    (``w`` its own reverse complement) twice the + strand's sum, the score of ``phi(u) +
    phi(rc(u))``, which is the score of ``rc(u)`` too: both get the sum computed for the lower
    index of the two, so they are equal to the last bit (a ranking's tie between them goes to
    the lower index, not to rounding). ``tables``: the model's :class:`~._gkm.GkmTables`."""
    groups = lmer_groups(tables.word_length, tables.informative)
    out = _lmer_scores(tables.left, tables.right_t, np.ascontiguousarray(w, dtype=np.float64),
                       2.0 if rc else 1.0, *groups)
    if rc:
        _same_for_reverse_complements(out, tables.word_length)
    return out
