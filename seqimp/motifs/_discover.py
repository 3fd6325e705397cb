"""From a POIM to motifs: candidates, greedy starting PWMs, joint fit, trimming."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import SeqimpError
from ..importance._result import measure_tables
from ._candidates import assemble_motif, motif_candidates
from ._fit import MotifFit, fit_motifs, trim_motif
from ._motif import Motif

__all__ = ["discover_motifs", "MotifDiscovery", "motif_table"]


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
    fit : MotifFit
        The joint fit of the final motifs (after trimming).
    """

    motifs: list
    candidates: pd.DataFrame
    initial: list
    fit: MotifFit

    def table(self) -> pd.DataFrame:
        """``name, consensus, start`` (1-based), ``length, spread, score, sites``."""
        return motif_table(self.motifs)


def motif_table(motifs) -> pd.DataFrame:
    """Table of motifs: ``name, consensus, start`` (1-based), ``length, spread, score, sites``.

    ``sites`` is ``"NA"`` where the number of sites is unknown (a PWM fitted from a POIM
    alone, without sequences to count them in), never a misleading 0.
    """
    return pd.DataFrame({
        "name": [m.name for m in motifs],
        "consensus": [m.consensus for m in motifs],
        "start": np.array([m.start if m.start is not None else 0 for m in motifs], dtype=np.int64),
        "length": np.array([m.length for m in motifs], dtype=np.int64),
        "spread": np.array([m.spread for m in motifs], dtype=np.float64),
        "score": np.array([m.score for m in motifs], dtype=np.float64),
        "sites": np.array([m.sites if m.sites > 0 else "NA" for m in motifs], dtype=object),
    })


def _same(a: Motif, b: Motif, *, max_shift=3, min_agree=0.9) -> bool:
    """Is ``b`` a copy of ``a`` moved by at most ``max_shift`` positions? (Their consensus letters
    agree on at least ``min_agree`` of an overlap of half the shorter motif or more.)"""
    ca, cb = a.pwm.argmax(axis=1), b.pwm.argmax(axis=1)
    for d in range(-int(max_shift), int(max_shift) + 1):
        lo = max(a.start, b.start - d)
        hi = min(a.start + a.length, b.start - d + b.length)
        if hi - lo < max(0.5 * min(a.length, b.length), 1):
            continue
        if np.mean(ca[lo - a.start:hi - a.start] == cb[lo - b.start + d:hi - b.start + d]) >= min_agree:
            return True
    return False


def _seed(result, measure, k, j, min_seed):
    """A seed of at least ``min_seed`` letters for a candidate (k, j): the most important
    k'-mer whose window contains the candidate's span (short peaks make unreliable seeds)."""
    k2 = min(max(k, int(min_seed)), result.max_order)
    if k2 == k:
        return k, j
    table = measure_tables(result, measure)[k2 - 1]
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
    return Motif(m.name, pwm, start=m.start - left, score=m.score)


def discover_motifs(result, *, max_motifs=3, measure="poim", orders=None, n_candidates=20,
                    min_score=0.02, min_relative=0.05, noise_factor=5.0, pad=1, window=2, fraction=0.75,
                    trim=0.1, max_grow=8, max_length=30, min_seed=4, max_iter=30, per_order=False,
                    prefix="motif") -> MotifDiscovery:
    """Motifs that explain a POIM.

    1. candidates: peaks of the differential POIM (:func:`motif_candidates`) above the noise
       level (see ``noise_factor``);
    2. a greedy PWM around each candidate (:func:`assemble_motif`; k-mers of at least
       ``fraction`` of the seed's importance), skipping PWMs that repeat one already assembled,
       also moved by up to 3 positions (90% of the consensus letters equal over half
       of the shorter motif or more), until ``max_motifs``;
    3. a joint fit of all of them (:func:`fit_motifs`), grown at the ends while the end columns
       matter (see ``max_grow``), trimming of uninformative end columns
       (columns whose loss costs the fit less than ``trim`` times the motif's most important
       column's), and a second fit of the trimmed motifs;
    4. motifs whose score (share of the fitted POIM lost without them) is below ``min_score``
       or below ``min_relative`` times the best score are dropped.

    Parameters
    ----------
    result : POIMResult
    max_motifs : int, default=3
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
        Passed on to the steps above.
    min_score : float, default=0.02
    min_relative : float, default=0.05
        Motifs scoring below this fraction of the best motif's score are dropped too.
    noise_factor : float, default=5.0
        Candidates whose differential-POIM peak is below this multiple of the median |Omega(k, j)|
        over all orders k >= 2 and positions (the noise level of a trained model's POIM) are
        not used.
    trim : float, default=0.1
    prefix : str, default="motif"
        Motifs are named ``{prefix}1, {prefix}2, ...`` by decreasing score.

    Returns
    -------
    MotifDiscovery
    """
    if int(max_motifs) < 1:
        raise SeqimpError(f"max_motifs must be >= 1, got {max_motifs}")
    cands = motif_candidates(result, n_candidates, measure=measure)
    if len(cands) == 0:
        raise SeqimpError("the differential POIM has no positive peak: no motif candidates")
    omega = result.differential[1:]
    omega = np.abs(omega[np.isfinite(omega)])
    noise = float(np.median(omega)) if omega.size else 0.0
    best = float(cands["score"].iloc[0])
    initial = []
    for row in cands.to_dict("records"):
        if row["score"] < max(0.1 * best, noise_factor * noise) and initial:
            break
        k, j = _seed(result, measure, row["order"], row["position"] - 1, min_seed)
        m = assemble_motif(result, k, j + 1, measure=measure, fraction=fraction, name=f"candidate{row['rank']}")
        if any(_same(other, m, max_shift=3) for other in initial):
            continue
        initial.append(m)
        if len(initial) >= int(max_motifs):
            break
    current = [_pad(m, pad, result.length) for m in initial]
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
    ranked = sorted(range(len(final.motifs)), key=lambda i: -final.motifs[i].score)
    motifs = []
    for n, i in enumerate(ranked, start=1):
        m = final.motifs[i]
        motifs.append(Motif(f"{prefix}{n}", m.pwm, start=m.start, spread=m.spread, score=m.score))
    return MotifDiscovery(motifs, cands, initial, final)
