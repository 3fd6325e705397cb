"""Motif candidates, the first step of discovery: the motifs the fit starts from.

* :func:`motif_candidates` -- peaks of the differential POIM (a motif's length and start),
  above :func:`noise_level`;
* :func:`assemble_motif` -- a greedy PWM from the overlapping top positional oligomers around
  a peak;
* :func:`position_free_candidates` -- k-mers whose importance is spread over the positions.
  A model that scores a motif wherever it lies (a WDS kernel with shifts, or a WD kernel
  trained on sites at random places) gives the motif's k-mers a small importance at every
  position and no differential-POIM peak above the noise. Summed over the positions no
  positional motif covers, such a k-mer stands out from the other k-mers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..io import kmer_string
from ..io._strand import reverse_complement_index
from .._utils.renamed import renamed_keywords
from ..errors import SeqimpError, check_choice
from .._utils.tables import top_n
from ..importance._result import measure_tables
from ._motif import DIRECTIONS, Motif

__all__ = ["motif_candidates", "assemble_motif", "noise_level", "position_free_candidates"]


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


@renamed_keywords(strands="strand:strands")
def position_free_candidates(result, covered=(), *, order=None, measure="poim", factor=8.0, strands="both",
                             min_spread=0.25, max_motifs=2, pad=2, purity=0.7, prefix="free"):
    """Motifs whose importance is spread over the positions.

    For the k-mers of ``order`` (default min(6, max_order)), the POIM is summed over every
    start outside ``covered`` (0-based half-open spans of the positional motifs) -- with
    ``strand="both"`` a k-mer's sum includes its reverse complement's. A k-mer is a
    candidate when its sum lies ``factor`` robust standard deviations (1.4826 MAD) from the
    median over all k-mers and its importance is spread: the effective number of positions
    carrying it, ``(sum |q|)^2 / sum q^2``, is at least ``min_spread`` times the number of
    positions summed. Candidates that overlap a stronger one by k-2 letters (either strand)
    are the same motif.

    Returns
    -------
    list of Motif
        ``position_free=True``; PWM = the k-mer at ``purity`` with ``pad`` uniform columns on
        each side; ``start``/``spread`` the importance-weighted mean (1-based) and standard
        deviation of its starts; ``score`` the robust z-score; ``direction`` from the sign.
    """
    k = min(6 if order is None else int(order), result.max_order)
    if k < 3:
        return []
    table = np.asarray(measure_tables(result, measure)[k - 1], dtype=np.float64)
    n_rows = table.shape[0]
    keep = np.ones(n_rows, dtype=bool)
    for lo, hi in covered:
        keep[max(lo - k + 1, 0):max(min(hi, n_rows), 0)] = False
    if keep.sum() < 2 * k:
        return []
    rows = np.nan_to_num(table[keep])
    total = rows.sum(axis=0)
    if strands == "both":
        total = total + total[reverse_complement_index(k)]
    med = np.median(total)
    mad = 1.4826 * np.median(np.abs(total - med))
    if mad <= 0:
        return []
    z = (total - med) / mad
    out, used = [], []
    for idx in np.argsort(-np.abs(z), kind="stable"):
        if abs(z[idx]) < factor or len(out) >= max_motifs:
            break
        q = rows[:, idx] * np.sign(z[idx])
        eff = np.abs(q).sum() ** 2 / max((q ** 2).sum(), 1e-300)
        if eff < min_spread * rows.shape[0]:
            continue
        word = kmer_string(int(idx), k)
        if any(_overlaps(word, w, k - 2, strands) for w in used):
            continue
        used.append(word)
        starts = np.flatnonzero(keep)
        w = np.clip(q, 0, None)
        w = w / w.sum() if w.sum() > 0 else np.full(q.size, 1.0 / q.size)
        mean = float(w @ starts)
        sd = float(np.sqrt(w @ (starts - mean) ** 2))
        pwm = np.full((k + 2 * pad, 4), 0.25)
        pwm[pad:pad + k] = (1 - purity) / 3
        pwm[pad + np.arange(k), ["ACGT".index(c) for c in word]] = purity
        start = int(min(max(round(mean) - pad, 0), result.length - pwm.shape[0])) + 1
        out.append(Motif(f"{prefix}{len(out) + 1}", pwm, start=start, spread=sd, score=float(abs(z[idx])),
                         direction="depleted" if z[idx] < 0 else "enriched", position_free=True))
    return out


def _overlaps(a, b, min_overlap, strands):
    comp = str.maketrans("ACGT", "TGCA")
    others = [b, b.translate(comp)[::-1]] if strands == "both" else [b]
    for o in others:
        for d in range(-(len(a) - min_overlap), len(o) - min_overlap + 1):
            lo, hi = max(0, d), min(len(o), d + len(a))
            if hi - lo >= min_overlap and o[lo:hi] == a[lo - d:hi - d]:
                return True
    return False
