"""From a POIM to motifs in one call: candidates (:mod:`seqimp.motifs._candidates`), greedy
starting PWMs, joint fit (:mod:`seqimp.motifs._fit`), trimming, copies merged
(:mod:`seqimp.motifs._copies`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .._utils.renamed import renamed_keywords
from ..errors import SeqimpError
from ..importance._result import measure_tables
from ._candidates import assemble_motif, motif_candidates, noise_level, position_free_candidates
from ._copies import merge_similar, same_motif
from ._fit import MotifFit, fit_motifs, trim_motif
from ._motif import Motif

__all__ = ["discover_motifs", "MotifDiscovery", "motif_table"]

logger = logging.getLogger(__name__)


@dataclass
class MotifDiscovery:
    """Result of :func:`discover_motifs`.

    Attributes
    ----------
    motifs : list of Motif
        Final motifs, strongest (largest ``score``) first; ``start`` is 1-based.
    candidates : pandas.DataFrame
        Differential-POIM peaks (see :func:`motif_candidates`).
    initial : list of Motif
        The greedy assemblies the fit started from.
    fit : MotifFit or None
        The joint fit of the final positional motifs (after trimming); None without any.
    noise : float
        The noise level of the differential POIM (:func:`seqimp.motifs._candidates.noise_level`).
    """

    motifs: list
    candidates: pd.DataFrame
    initial: list
    fit: MotifFit
    noise: float = 0.0

    def table(self) -> pd.DataFrame:
        """See :func:`motif_table`."""
        return motif_table(self.motifs)


def motif_table(motifs) -> pd.DataFrame:
    """Table of motifs: ``name, consensus, start`` (1-based), ``length, direction, position_free,
    spread, score, sites``.

    ``sites`` is ``"NA"`` where the number of sites is unknown (a PWM fitted from a POIM
    alone, without sequences to count them in), never a misleading 0.
    """
    return pd.DataFrame({
        "name": [m.name for m in motifs],
        "consensus": [m.consensus for m in motifs],
        "start": np.array([m.start if m.start is not None else 0 for m in motifs], dtype=np.int64),
        "length": np.array([m.length for m in motifs], dtype=np.int64),
        "direction": [m.direction for m in motifs],
        "position_free": [bool(m.position_free) for m in motifs],
        "spread": np.array([m.spread for m in motifs], dtype=np.float64),
        "score": np.array([m.score for m in motifs], dtype=np.float64),
        "sites": np.array([m.sites if m.sites > 0 else "NA" for m in motifs], dtype=object),
    })


def _seed(result, measure, k, j, min_seed, direction="enriched"):
    """A seed of at least ``min_seed`` letters for a candidate (k, j): the most important
    k'-mer whose window contains the candidate's span (short peaks make unreliable seeds)."""
    k2 = min(max(k, int(min_seed)), result.max_order)
    if k2 == k:
        return k, j
    table = measure_tables(result, measure)[k2 - 1] * (-1.0 if direction == "depleted" else 1.0)
    starts = np.arange(max(j + k - k2, 0), min(j, result.length - k2) + 1)
    if starts.size == 0:
        return k, j
    best = np.nanmax(table[starts], axis=1)
    return k2, int(starts[int(np.nanargmax(best))])


def _pad(m: Motif, pad: int, length: int, *, left=None, right=None) -> Motif:
    """Add up to ``pad`` (or ``left``/``right``) uniform columns on the sides, within the sequences."""
    left = min(pad if left is None else left, m.start - 1)
    right = min(pad if right is None else right, length - (m.start - 1 + m.length))
    pwm = np.vstack([np.full((left, 4), 0.25), m.pwm, np.full((max(right, 0), 4), 0.25)])
    return replace(m, pwm=pwm, start=m.start - left)


def _explains(m: Motif, word, j, strands, *, min_agree=0.75):
    """Does motif ``m`` (moved by up to 2 spread + 1 positions, either orientation with
    ``strand="both"``) carry the oligomer ``word`` at 0-based ``j``: its consensus agrees with
    at least ``min_agree`` of the letters on an overlap of half the oligomer or more?"""
    k, reach = len(word), int(np.ceil(2 * m.spread)) + 1
    texts = [m.consensus]
    if strands == "both":
        texts.append(m.consensus[::-1].translate(str.maketrans("ACGT", "TGCA")))
    for text in texts:
        for d in range(-reach, reach + 1):
            s = m.start - 1 + d
            lo, hi = max(j, s), min(j + k, s + len(text))
            if hi - lo < max(2, (k + 1) // 2):
                continue
            agree = sum(word[p - j] == text[p - s] for p in range(lo, hi))
            if agree >= min_agree * (hi - lo):
                return True
    return False


def _span(m: Motif, margin=0):
    """0-based half-open span of a positional motif's sites (start ± 2 spread, plus ``margin``)."""
    reach = int(np.ceil(2 * m.spread)) + margin
    return m.start - 1 - reach, m.start - 1 + m.length + reach


class _Masked:
    """A POIM whose tables are 0 on the starts of given spans (what positional motifs explain)."""

    def __init__(self, result, spans, measure, max_order=None):
        self.length = result.length
        self.max_order = result.max_order if max_order is None else min(int(max_order), result.max_order)
        tables = []
        for k, t in enumerate(measure_tables(result, measure)[:self.max_order], start=1):  # the fitted orders only
            t = np.array(t, dtype=np.float64)
            for lo, hi in spans:
                t[max(lo - k + 1, 0):max(min(hi, t.shape[0]), 0)] = 0.0
            tables.append(t)
        setattr(self, measure, tables)


def _masked(result, spans, measure, max_order=None):
    return _Masked(result, spans, measure, max_order)


@renamed_keywords(strands="strand:strands")
def discover_motifs(result, *, max_motifs=None, measure="poim", orders=None, n_candidates=None,
                    min_score=0.0, min_relative=0.0, noise_factor=5.0, pad=1, window=2, fraction=0.75,
                    trim=0.1, max_grow=8, max_length=30, min_seed=4, max_iter=30, per_order=False,
                    position_free=True, strands="both", free_factor=3.0, prefix="motif") -> MotifDiscovery:
    """Motifs that explain a POIM.

    1. candidates: peaks of the differential POIM (:func:`motif_candidates`) above the noise
       level (:func:`noise_level`: median + ``noise_factor`` robust standard deviations of all
       entries at orders >= 2); a peak of an oligomer with negative importance gives a ``depleted`` motif;
    2. a greedy PWM around every candidate that no motif so far explains (no motif's
       consensus, moved by up to 2 spread + 1 or reverse-complemented, carries its oligomer)
       (:func:`assemble_motif`; k-mers of at least ``fraction`` of the seed's
       importance), skipping PWMs that copy one already assembled (moved, or its reverse
       complement, :func:`seqimp.motifs._copies.same_motif`), up to ``max_motifs``;
    3. with ``position_free``, k-mers whose importance is spread over the positions no
       positional motif covers (:func:`seqimp.motifs._candidates.position_free_candidates`, ``free_factor``
       robust standard deviations);
    4. a joint fit of the positional motifs (:func:`fit_motifs`), grown at the ends while the
       end columns matter (see ``max_grow``), trimming
       of uninformative end columns (columns whose loss costs the fit less than ``trim``
       times the motif's most important column's), and a second fit of the trimmed motifs;
    5. every position-free motif is fitted alone, placed anywhere, to the POIM with the
       positional motifs' spans set to 0;
    6. ``score`` = the motif's share of the observed POIM explained (:class:`MotifFit`, in
       [0, 1]; for a position-free motif, of the POIM outside the positional motifs); motifs
       below ``min_score`` or ``min_relative`` times the best are dropped,
       copies merged, the rest ranked by score.

    Parameters
    ----------
    result : POIMResult
    max_motifs : int or None, default=None
        Most positional motifs (None: every candidate above the noise that no motif explains).
    measure : {"poim", "firm"}, default="poim"
    orders : sequence of int, optional
        POIM orders used by the fit (default 1..min(3, max_order)).
    min_seed : int, default=4
        A candidate shorter than this seeds the greedy PWM with the most important
        ``min_seed``-mer whose window contains it (2-mer peaks make unreliable seeds).
    pad : int, default=1
        Uniform columns added on both sides of every greedy PWM before the fit.
    max_grow, max_length : int, default=8, 30
        While an end column of a fitted motif still matters (scores at least ``trim`` times the
        best column), a uniform column is added on that side and the motifs are fitted again,
        at most ``max_grow`` times and up to ``max_length`` columns.
    window : int, default=2
        Placement weight may sit on starts within ``start ± window`` of the greedy PWM's.
    n_candidates, fraction, max_iter, per_order
        Passed on to the steps above (``n_candidates`` None: all peaks).
    min_score, min_relative : float, default=0.0
    noise_factor : float, default=5.0
    position_free : bool, default=True
    strand : {"both", "given"}, default="both"
        (The old keyword ``strands`` still works, with a DeprecationWarning.)
        Whether reverse complements count as the same motif.
    free_factor : float, default=3.0
    trim : float, default=0.1
    prefix : str, default="motif"
        Motifs are named ``{prefix}1, {prefix}2, ...`` by decreasing score.

    Returns
    -------
    MotifDiscovery
    """
    if max_motifs is not None and int(max_motifs) < 1:
        raise SeqimpError(f"max_motifs must be >= 1, got {max_motifs}")
    cands = motif_candidates(result, n_candidates, measure=measure)
    if len(cands) == 0:
        raise SeqimpError("the differential POIM has no positive peak: no motif candidates")
    noise = noise_level(result, factor=noise_factor)
    initial = []
    for row in cands.to_dict("records"):
        if row["score"] <= noise or (max_motifs is not None and len(initial) >= int(max_motifs)):
            break
        if any(_explains(m, row["oligomer"], row["position"] - 1, strands) for m in initial):
            continue  # explained by a motif already assembled
        k, j = _seed(result, measure, row["order"], row["position"] - 1, min_seed, row["direction"])
        m = assemble_motif(result, k, j + 1, measure=measure, fraction=fraction, name=f"candidate{row['rank']}",
                           direction=row["direction"])
        if any(same_motif(other, m, strand=strands) for other in initial):
            continue
        initial.append(m)
    if not initial:
        logger.info(f"no positional motif: no differential-POIM peak above the noise level {noise:.3g}")
    free = []
    if position_free:
        free = position_free_candidates(result, [_span(m, pad) for m in initial], measure=measure,
                                        factor=free_factor, strand=strands)
    if not initial and not free:
        row = cands.iloc[0]
        logger.info(f"nothing above the noise; reporting the strongest peak {row['oligomer']} at {row['position']}")
        k, j = _seed(result, measure, int(row["order"]), int(row["position"]) - 1, min_seed, row["direction"])
        initial = [assemble_motif(result, k, j + 1, measure=measure, fraction=fraction, name="candidate1",
                                  direction=row["direction"])]
    current = [_pad(m, pad, result.length) for m in initial]
    fitted = []
    if current:
        for _ in range(int(max_grow) + 1):
            first = fit_motifs(result, current, orders=orders, measure=measure, window=window, max_iter=max_iter,
                               per_order=per_order)
            current, grew = [], False
            for m, score in zip(first.motifs, first.column_scores):
                important = score >= trim * score.max()
                left, right = int(important[0]), int(important[-1])  # an end still matters: room to grow
                grown = _pad(m, 0, result.length, left=left, right=right) if m.length < max_length else m
                grew |= grown.length > m.length
                current.append(grown)
            if not grew:
                break
        trimmed = [trim_motif(m, fraction=trim, column_scores=c) for m, c in zip(first.motifs, first.column_scores)]
        top = max(m.score for m in trimmed)
        kept = [m for m in trimmed if m.score >= max(min_score, min_relative * top)] or \
            [max(trimmed, key=lambda m: m.score)]
        final = fit_motifs(result, kept, orders=orders, measure=measure, window=window, max_iter=max_iter,
                           per_order=per_order)
        fitted = list(final.motifs)
    else:
        final = None
    masked, masked_for = None, -1
    for m in free:  # fitted alone to the POIM outside the earlier motifs' spans, placed anywhere
        if masked_for != len(fitted):  # copies of the fitted orders' tables only, remade when a motif was added
            fit_orders = list(range(1, min(3, result.max_order) + 1)) if orders is None else list(orders)
            masked, masked_for = _masked(result, [_span(p, pad) for p in fitted], measure, max(fit_orders)), len(fitted)
        one = fit_motifs(masked, [m], orders=orders, measure=measure, window=result.length, max_iter=10,
                         per_order=per_order)
        if one.motifs[0].score > max(min_score, 0.0):  # keep the k-mer seed: its sites refine it
            fitted.append(replace(m, score=one.motifs[0].score))
    ranked = merge_similar(sorted(fitted, key=lambda m: -m.score), strand=strands)
    motifs = [replace(m, name=f"{prefix}{n}") for n, m in enumerate(ranked, start=1)]
    return MotifDiscovery(motifs, cands, initial + free, final, noise)
