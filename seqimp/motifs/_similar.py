"""Are two motifs the same? PWMs compared over offsets and both strands.

A motif with a variable start gives POIM peaks at several starts, and a motif planted on
both strands gives peaks for both orientations; :func:`pwm_similarity` recognises such
copies and :func:`merge_similar` keeps one motif per group.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pwm_similarity", "same_motif", "merge_similar"]


def pwm_similarity(a, b, *, strands="both"):
    """Best alignment of two PWMs: cosine similarity of their centred matrices.

    Every column is centred on the uniform distribution (``p - 1/4``, so an uninformative
    column contributes nothing); for each offset ``d`` (column 0 of ``b`` against column ``d``
    of ``a``) and, with ``strands="both"``, for ``b``'s reverse complement too, the sum of the
    products of the overlapping centred columns is divided by the norms of the *whole* centred
    matrices. The value lies in [-1, 1]; 1 means one PWM is the other (in its scale),
    aligned completely; a short overlap cannot score high.

    Parameters
    ----------
    a, b : ndarray of shape (m, 4)
    strands : {"both", "given"}, default="both"

    Returns
    -------
    similarity : float
    offset : int
        Column of ``a`` that column 0 of (the oriented) ``b`` aligns with (may be negative).
    strand : {"+", "-"}
        ``"-"`` when ``b``'s reverse complement aligns best.
    """
    ca = np.asarray(a, dtype=np.float64) - 0.25
    best = (-np.inf, 0, "+")
    norm_a = np.sqrt((ca ** 2).sum())
    for strand in ("+", "-") if strands == "both" else ("+",):
        pb = np.asarray(b, dtype=np.float64)
        cb = (pb[::-1, ::-1] if strand == "-" else pb) - 0.25
        denom = norm_a * np.sqrt((cb ** 2).sum())
        if denom <= 0:
            continue
        ma, mb = ca.shape[0], cb.shape[0]
        for d in range(-mb + 1, ma):
            lo, hi = max(d, 0), min(ma, d + mb)
            value = float((ca[lo:hi] * cb[lo - d:hi - d]).sum() / denom)
            if value > best[0] + 1e-12:
                best = (value, d, strand)
    if not np.isfinite(best[0]):
        return 0.0, 0, "+"
    return best


def same_motif(a, b, *, min_similarity=0.5, max_shift=3, strands="both") -> bool:
    """Is motif ``b`` a copy of ``a``: similar PWMs (:func:`pwm_similarity` at least
    ``min_similarity``, the same direction) that also align in the sequences (where the PWMs
    align, ``b``'s start lies within ``max_shift`` plus twice the larger spread of where ``a``
    puts it; position-free motifs -- either start None -- align anywhere)?"""
    if a.direction != b.direction:
        return False
    sim, offset, _ = pwm_similarity(a.pwm, b.pwm, strands=strands)
    if sim < min_similarity:
        return False
    if a.start is None or b.start is None or a.position_free or b.position_free:
        return True
    reach = max_shift + 2 * max(a.spread, b.spread)
    return abs(b.start - (a.start + offset)) <= reach


def merge_similar(motifs, **kwargs) -> list:
    """Keep the first motif of every group of copies (:func:`same_motif`); order is kept, so
    sort strongest first before calling."""
    kept = []
    for m in motifs:
        if not any(same_motif(k, m, **kwargs) for k in kept):
            kept.append(m)
    return kept
