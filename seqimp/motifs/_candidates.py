"""Motif candidates from the differential POIM, and greedy assembly of positional oligomers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..io._alphabet import kmer_string
from ..errors import SeqimpError
from .._tables import top_n
from ..importance._result import measure_tables
from ._motif import Motif

__all__ = ["motif_candidates", "assemble_motif"]


def _tables(result, measure):
    from ..io._strand import require_dna

    tables = measure_tables(result, measure)
    require_dna(result.alphabet, "motif discovery", rna_ok=True)   # DNA motifs (JASPAR, reverse complements)
    return tables


def motif_candidates(result, n=10, *, measure="poim", min_order=2):
    """Peaks of the differential POIM Omega(k, j): a motif's length k and start j.

    A candidate is an entry of Omega that is positive and not smaller than any of its
    neighbours at orders k±1 and positions j±1 (a local maximum of the order × position map).
    Orders below ``min_order`` are left out: Omega(1, j) is just the largest 1-mer importance.

    Parameters
    ----------
    result : POIMResult
    n : int, default=10
        Largest number of candidates returned (strongest first).
    measure : {"poim", "firm"}, default="poim"
        Table from which the candidate's top oligomer and its importance are taken.
    min_order : int, default=2

    Returns
    -------
    pandas.DataFrame
        Columns ``rank, oligomer`` (largest positive importance at that order and position),
        ``order`` (= candidate length), ``position`` (1-based start), ``score`` (Omega(k, j)),
        ``importance`` (of the oligomer).
    """
    tables = _tables(result, measure)
    omega = np.where(np.isnan(result.differential), -np.inf, result.differential)
    K, L = omega.shape
    padded = np.full((K + 2, L + 2), -np.inf)
    padded[1:-1, 1:-1] = omega
    peak = omega > 0
    for dk in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if dk or dj:
                peak &= omega >= padded[1 + dk:K + 1 + dk, 1 + dj:L + 1 + dj]
    peak[: max(int(min_order), 1) - 1] = False
    ks, js = np.nonzero(peak)
    order = top_n(omega[ks, js], int(n))  # strongest first, ties in (order, position) order
    ks, js = ks[order] + 1, js[order]
    olig, imp = [], []
    for k, j in zip(ks, js):
        row = tables[k - 1][j]
        z = int(np.nanargmax(row))
        olig.append(kmer_string(z, k))
        imp.append(float(row[z]))
    return pd.DataFrame({"rank": np.arange(1, len(ks) + 1, dtype=np.int64), "oligomer": olig,
                         "order": ks.astype(np.int64), "position": (js + 1).astype(np.int64),
                         "score": omega[ks - 1, js].astype(np.float64),
                         "importance": np.array(imp, dtype=np.float64)})


def assemble_motif(result, order, position, *, measure="poim", fraction=0.75, max_mismatch=None,
                   name="motif", pseudocount=0.05) -> Motif:
    """Greedy PWM from overlapping top positional oligomers around a seed.

    The seed is the most important k-mer (k = ``order``) at the 1-based ``position``. The
    assembly walks left and right one position at a time, taking the most important k-mer
    there while its importance lies between ``fraction`` and ``1 / fraction`` times the seed's
    (a much stronger k-mer belongs to another motif) and it agrees with the letters assembled so
    far on the overlap (at most ``max_mismatch`` differences, default k // 8). Every accepted
    k-mer adds its importance to the counts of its letters; the PWM is the normalised counts
    plus ``pseudocount`` times the largest column total.

    Returns
    -------
    Motif
        ``start`` 1-based, ``score`` the seed's importance.
    """
    tables = _tables(result, measure)
    k = int(order)
    if not 1 <= k <= result.max_order:
        raise SeqimpError(f"order must lie in 1..{result.max_order}, got {order}")
    j0 = int(position) - 1
    if not 0 <= j0 <= result.length - k:
        raise SeqimpError(f"position {position} is outside 1..{result.length - k + 1} for order {k}")
    table = tables[k - 1]
    max_mismatch = k // 8 if max_mismatch is None else int(max_mismatch)
    L = result.length
    counts = np.zeros((L, 4))

    def top(j):
        row = table[j]
        if not np.isfinite(row).any():
            return None, -np.inf
        z = int(np.nanargmax(row))
        return [(z >> (2 * (k - 1 - p))) & 3 for p in range(k)], float(row[z])

    def add(j, letters, value):
        counts[np.arange(j, j + k), letters] += value

    seed, seed_val = top(j0)
    if seed is None or seed_val <= 0:
        raise SeqimpError(f"no positive importance at order {k}, position {position}")
    add(j0, seed, seed_val)
    lo, hi = j0, j0 + k
    for step in (-1, 1):
        j = j0 + step
        while 0 <= j <= L - k:
            letters, value = top(j)
            # a much stronger k-mer belongs to another motif; a much weaker one is not part of it
            if letters is None or not fraction * seed_val <= value <= seed_val / fraction:
                break
            current = counts[j:j + k].argmax(axis=1)
            have = counts[j:j + k].sum(axis=1) > 0
            if np.count_nonzero(have & (current != np.array(letters))) > max_mismatch:
                break
            add(j, letters, value)
            lo, hi = min(lo, j), max(hi, j + k)
            j += step
    block = counts[lo:hi]
    block = block + pseudocount * block.sum(axis=1).max()
    return Motif(name, block / block.sum(axis=1, keepdims=True), start=lo + 1, score=seed_val)
