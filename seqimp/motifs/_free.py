"""Position-free motifs: a k-mer whose importance is spread over many positions.

A model that scores a motif wherever it lies (a WDS kernel with shifts, or a WD kernel
trained on sites at random places) gives the motif's k-mers a small importance at every
position and no differential-POIM peak above the noise. Summed over the positions no
positional motif covers, such a k-mer stands out from the other k-mers.
"""

from __future__ import annotations

import numpy as np

from ..importance._result import measure_tables
from ..io._alphabet import kmer_string
from ._motif import Motif

__all__ = ["position_free_candidates"]


def _revcomp_index(k):
    z = np.arange(4 ** k)
    out = np.zeros_like(z)
    for p in range(k):
        letter = (z >> (2 * (k - 1 - p))) & 3
        out |= (3 - letter) << (2 * p)
    return out


def position_free_candidates(result, covered=(), *, order=None, measure="poim", factor=8.0, strands="both",
                             min_spread=0.25, max_motifs=2, pad=2, purity=0.7, prefix="free"):
    """Motifs whose importance is spread over the positions.

    For the k-mers of ``order`` (default min(6, max_order)), the POIM is summed over every
    start outside ``covered`` (0-based half-open spans of the positional motifs) -- with
    ``strands="both"`` a k-mer's sum includes its reverse complement's. A k-mer is a
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
        total = total + total[_revcomp_index(k)]
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
