"""Copies of a motif: PWMs compared over offsets and both strands.

A motif with a variable start gives POIM peaks at several starts, and a motif planted on
both strands gives peaks for both orientations; :func:`pwm_similarity` recognises such
copies, :func:`same_motif` tells whether one motif copies another and :func:`merge_similar`
keeps one motif per group. Discovery merges the copies among the fitted motifs
(:func:`seqimp.motifs.discover_motifs`), selection those among the refined ones
(:func:`seqimp.motifs.select_motifs`).
"""

from __future__ import annotations

import numpy as np

from .._utils.renamed import renamed_keywords

__all__ = ["pwm_similarity", "same_motif", "copied_motif", "merge_similar", "still_the_motif", "holds_core", "SAME_MOTIF_SIMILARITY",
           "CORE_BITS"]

#: The least :func:`seqimp.motifs._copies.pwm_similarity` of a fit to the motif it was
#: fitted from (:func:`still_the_motif`; the similarity at which motifs are copies, :func:`seqimp.motifs._copies.same_motif`)
SAME_MOTIF_SIMILARITY = 0.5
#: A column of the motif carrying at least this many bits is its core: a fit from it (a PWM for
#: scanning, an EM that keeps its seed) keeps its most probable letter there (:func:`still_the_motif`)
CORE_BITS = 1.0


@renamed_keywords(strands="strand:strands")
def pwm_similarity(a, b, *, strands="both"):
    """Best alignment of two PWMs: cosine similarity of their centred matrices.

    Every column is centred on the uniform distribution (``p - 1/4``, so an uninformative
    column contributes nothing); for each offset ``d`` (column 0 of ``b`` against column ``d``
    of ``a``) and, with ``strand="both"``, for ``b``'s reverse complement too, the sum of the
    products of the overlapping centred columns is divided by the norms of the *whole* centred
    matrices. The value lies in [-1, 1]; 1 means one PWM is the other (in its scale),
    aligned completely; a short overlap cannot score high.

    Parameters
    ----------
    a, b : ndarray of shape (m, 4)
    strand : {"both", "given"}, default="both"
        (The old keyword ``strands`` still works, with a DeprecationWarning.)

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


@renamed_keywords(strands="strand:strands")
def same_motif(a, b, *, min_similarity=0.5, max_shift=3, strands="both") -> bool:
    """Is motif ``b`` a copy of ``a``: similar PWMs (:func:`pwm_similarity` at least
    ``min_similarity``, the same direction) that also align in the sequences (where the PWMs
    align, ``b``'s start lies within ``max_shift`` plus twice the larger spread of where ``a``
    puts it; position-free motifs -- either start None -- align anywhere)?"""
    if a.direction != b.direction:
        return False
    sim, offset, _ = pwm_similarity(a.pwm, b.pwm, strand=strands)
    if sim < min_similarity:
        return False
    if a.start is None or b.start is None or a.position_free or b.position_free:
        return True
    reach = max_shift + 2 * max(a.spread, b.spread)
    return abs(b.start - (a.start + offset)) <= reach


def copied_motif(motif, reported, *, strand="both"):
    """The first motif of ``reported`` that ``motif`` copies (:func:`same_motif`), or None: a
    seed or candidate explained by a motif already reported."""
    return next((r for r in reported if same_motif(r, motif, strand=strand)), None)


@renamed_keywords(strands="strand:strands")
def merge_similar(motifs, **kwargs) -> list:
    """Keep the first motif of every group of copies (:func:`same_motif`); order is kept, so
    sort strongest first before calling.

    Copies of a positional motif at other starts are evidence of where its sites lie (a motif
    whose start varies by more than the fit's window gives peaks, and fitted copies, at several
    starts): the kept motif takes the placement of the whole group -- ``start`` the rounded
    mean and ``spread`` the standard deviation of the mixture of the members' placements
    (each member's start moved to where it puts the kept motif's first column, weighted by its
    score). Position-free members leave the placement as it is.
    """
    from dataclasses import replace

    kept, groups = [], []
    for m in motifs:
        for g, k in enumerate(kept):
            if same_motif(k, m, **{("strand" if key == "strands" else key): v for key, v in kwargs.items()}):
                groups[g].append(m)
                break
        else:
            kept.append(m)
            groups.append([m])
    out = []
    for k, group in zip(kept, groups):
        if len(group) > 1 and not any(m.position_free or m.start is None for m in group):
            start, spread = _group_placement(group, kwargs.get("strands", "both"))
            k = replace(k, start=start, spread=spread)
        out.append(k)
    return out


def _group_placement(group, strands):
    """Rounded mean start (1-based) and standard deviation of a group of copies' placements,
    in the frame of the first member's PWM."""
    first = group[0]
    starts, spreads, weights = [], [], []
    for m in group:
        _sim, offset, strand = pwm_similarity(first.pwm, m.pwm, strand=strands)
        # where m puts first's column 0: m's column 0 is first's column `offset`; on "-" m's
        # reverse complement is, and first's reverse complement then starts
        # m.length - first.length + offset after m (the same positions on the other strand)
        starts.append(m.start - offset if strand == "+" else m.start + m.length - first.length + offset)
        spreads.append(m.spread)
        weights.append(m.score if np.isfinite(m.score) and m.score > 0 else 0.0)
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum() if w.sum() > 0 else np.full(len(group), 1.0 / len(group))
    t, sd = np.asarray(starts, dtype=np.float64), np.asarray(spreads, dtype=np.float64)
    mean = float(w @ t)
    spread = float(np.sqrt(w @ (sd ** 2 + (t - mean) ** 2)))
    return int(np.clip(round(mean), 1, None)), spread


def still_the_motif(start, pwm) -> bool:
    """Whether a PWM for scanning is still the motif ``start`` it was fitted from: the two are
    copies (:func:`seqimp.motifs._copies.pwm_similarity` at least :data:`SAME_MOTIF_SIMILARITY`) and, at
    their best alignment, every column of the start that carries at least :data:`CORE_BITS` bits
    keeps its most probable letter in the fit. Over every window of G/C-rich promoters against
    gene bodies a fit from NFY's CCAAT box can grow G/C-rich flanks and turn CCAAT into CCACT,
    recalling more promoters: another motif (a G/C run, reported already), not this one's PWM; and
    a PWM that grows past the start (a refinement's EM) is judged by :func:`holds_core` instead."""
    from ._motif import information_content

    start, pwm = np.asarray(start, dtype=np.float64), np.asarray(pwm, dtype=np.float64)
    similarity, offset, strand = pwm_similarity(start, pwm, strand="both")
    if similarity < SAME_MOTIF_SIMILARITY:
        return False
    fit = pwm[::-1, ::-1] if strand == "-" else pwm
    for j in np.flatnonzero(information_content(start) >= CORE_BITS):
        k = j - offset  # the fit's column aligned with the start's column j
        if not 0 <= k < fit.shape[0] or fit[k].argmax() != start[j].argmax():
            return False
    return True


def holds_core(seed, pwm) -> bool:
    """Whether ``pwm`` still holds the core of the ``seed`` it was refined from: at some offset, on
    either strand, every column of the seed that carries at least :data:`CORE_BITS` bits lies
    inside ``pwm`` and has the same most probable letter there. A word's seed (its letters near
    certain, the pad columns not) is held by any refinement whose consensus contains the word,
    however far it grew around it (THAP11's CATTTCC in a 21-column ACTACATTTCCCA...); in peaks
    cut from a genome the EM from GATA's word AGATAA can turn its T into the A of a GA repeat,
    which holds it no longer (:func:`seqimp.motifs.refine_motifs`' ``keep_seed``). Unlike
    :func:`still_the_motif` there is no similarity bound: the PWM may be much longer."""
    from ._motif import information_content

    seed, pwm = np.asarray(seed, dtype=np.float64), np.asarray(pwm, dtype=np.float64)
    core = np.flatnonzero(information_content(seed) >= CORE_BITS)
    if core.size == 0:
        return True
    letters = seed[core].argmax(axis=1)
    core = core - core[0]
    for fit in (pwm, pwm[::-1, ::-1]):
        top = fit.argmax(axis=1)
        for d in range(fit.shape[0] - core[-1]):
            if np.array_equal(top[d + core], letters):
                return True
    return False
