"""Motif candidates from the differential POIM, and greedy assembly of positional oligomers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..io._alphabet import kmer_string
from ..errors import SeqimpError, check_choice
from .._tables import top_n
from ..importance._result import measure_tables
from ._motif import DIRECTIONS, Motif

__all__ = ["motif_candidates", "assemble_motif", "noise_level"]


def _tables(result, measure):
    from ..io._strand import require_dna

    tables = measure_tables(result, measure)
    require_dna(result.alphabet, "motif discovery", rna_ok=True)   # DNA motifs (JASPAR, reverse complements)
    return tables


def _peaks(result, min_order):
    """Local maxima of the differential POIM at orders >= ``min_order``: (ks 1-based, js 0-based, values)."""
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
    return ks + 1, js, omega[ks, js]


def noise_level(result, *, factor=5.0, min_order=2) -> float:
    """The noise level of a differential POIM: ``median + factor * 1.4826 * MAD`` of its entries.

    Over all orders k >= ``min_order`` and positions, nearly all entries Omega(k, j) of a
    trained model's differential POIM come from noise in the model's weights (a motif covers
    a few positions), so their median and median absolute deviation (MAD, scaled by 1.4826
    to estimate a standard deviation) describe the noise, and a motif's peaks stand
    ``factor`` robust standard deviations above it. (A noise-free POIM, e.g. the implied
    POIM of a few motifs, has MAD 0: every positive peak counts.)
    """
    values = result.differential[max(int(min_order), 1) - 1:]
    values = values[np.isfinite(values)]
    if values.size == 0:
        return 0.0
    med = float(np.median(values))
    return med + float(factor) * 1.4826 * float(np.median(np.abs(values - med)))


def motif_candidates(result, n=10, *, measure="poim", min_order=2):
    """Peaks of the differential POIM Omega(k, j): a motif's length k and start j.

    A candidate is an entry of Omega that is positive and not smaller than any of its
    neighbours at orders k±1 and positions j±1 (a local maximum of the order × position map).
    Orders below ``min_order`` are left out: Omega(1, j) is just the largest 1-mer importance.
    Omega is built from the largest *absolute* importance, so a peak may come from an
    oligomer that lowers the score (``direction`` depleted).

    Parameters
    ----------
    result : POIMResult
    n : int or None, default=10
        Largest number of candidates returned (strongest first); None: all peaks.
    measure : {"poim", "firm"}, default="poim"
        Table from which the candidate's top oligomer and its importance are taken.
    min_order : int, default=2

    Returns
    -------
    pandas.DataFrame
        Columns ``rank, oligomer`` (largest absolute importance at that order and position),
        ``order`` (= candidate length), ``position`` (1-based start), ``score`` (Omega(k, j)),
        ``importance`` (of the oligomer, signed), ``direction`` (``enriched`` where the
        importance is positive, ``depleted`` where negative).
    """
    tables = _tables(result, measure)
    ks, js, values = _peaks(result, min_order)
    order = top_n(values, len(values) if n is None else int(n))  # strongest first, ties in (order, position) order
    ks, js, values = ks[order], js[order], values[order]
    olig, imp = [], []
    for k, j in zip(ks, js):
        row = tables[k - 1][j]
        z = int(np.nanargmax(np.abs(row)))
        olig.append(kmer_string(z, k))
        imp.append(float(row[z]))
    imp = np.array(imp, dtype=np.float64)
    return pd.DataFrame({"rank": np.arange(1, len(ks) + 1, dtype=np.int64), "oligomer": olig,
                         "order": ks.astype(np.int64), "position": (js + 1).astype(np.int64),
                         "score": values.astype(np.float64), "importance": imp,
                         "direction": np.where(imp < 0, "depleted", "enriched").astype(object)})


def assemble_motif(result, order, position, *, measure="poim", fraction=0.75, max_mismatch=None,
                   name="motif", pseudocount=0.05, direction="enriched") -> Motif:
    """Greedy PWM from overlapping top positional oligomers around a seed.

    The seed is the most important k-mer (k = ``order``) at the 1-based ``position``. The
    assembly walks left and right one position at a time, taking the most important k-mer
    there while its importance lies between ``fraction`` and ``1 / fraction`` times the seed's
    (a much stronger k-mer belongs to another motif) and it agrees with the letters assembled so
    far on the overlap (at most ``max_mismatch`` differences, default k // 8). Every accepted
    k-mer adds its importance to the counts of its letters; the PWM is the normalised counts
    plus ``pseudocount`` times the largest column total.

    ``direction="depleted"`` assembles the k-mers of most negative importance instead
    (a motif that lowers the score).

    Returns
    -------
    Motif
        ``start`` 1-based, ``score`` the seed's absolute importance, ``direction`` as given.
    """
    tables = _tables(result, measure)
    check_choice(direction, "direction", DIRECTIONS)
    sign = -1.0 if direction == "depleted" else 1.0
    k = int(order)
    if not 1 <= k <= result.max_order:
        raise SeqimpError(f"order must lie in 1..{result.max_order}, got {order}")
    j0 = int(position) - 1
    if not 0 <= j0 <= result.length - k:
        raise SeqimpError(f"position {position} is outside 1..{result.length - k + 1} for order {k}")
    table = sign * np.asarray(tables[k - 1])
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
    return Motif(name, block / block.sum(axis=1, keepdims=True), start=lo + 1, score=seed_val, direction=direction)
