"""Letter counts of motif sites in the positive sequences.

A POIM fixes a motif's consensus, position and letter preferences, but not how sharp its
PWM is: an uncalibrated score (an SVM's margin) can be scaled at will, and a flatter PWM
with a larger scale implies nearly the same POIM. When the training sequences are at hand,
:func:`count_sites` turns a fitted motif into the counts of its sites: the best-scoring
window (PWM log-odds) near the motif's position in every positive sequence, kept when it
scores above what the negatives reach.
"""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError
from ..io._check import check_sequences
from ._fit import trim_motif
from ._motif import Motif

__all__ = ["count_sites"]


def _best_windows(codes, logodds, starts):
    m = logodds.shape[0]
    scores = np.zeros((codes.shape[0], starts.size))
    for l in range(m):
        scores += logodds[l][codes[:, starts + l]]
    best = scores.argmax(axis=1)
    return scores[np.arange(codes.shape[0]), best], starts[best]


def count_sites(motif, positive, negative, *, flank=1, quantile=0.99, min_sites=5, max_pvalue=1e-3,
                trim=0.25) -> Motif:
    """A motif re-estimated from the letter counts of its sites in the positive sequences.

    Parameters
    ----------
    motif : Motif
        With a 1-based ``start`` and a ``spread``.
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L)
    flank : int, default=1
        Windows start within ``start ± (2 * spread + flank)``.
    quantile : float, default=0.99
        A positive sequence's best window counts as a site when its log-odds score exceeds this
        quantile of the negatives' best scores over the same windows.
    min_sites : int, default=5
    max_pvalue : float, default=1e-3
        The motif is returned unchanged, with ``sites = 0``, when fewer than ``min_sites``
        positives carry a site or when sites are not enriched: the one-sided binomial p-value
        of the number of sites, against the negatives' rate ``1 - quantile``, exceeds this.
    trim : float or None, default=0.25
        Trim end columns of the counted PWM whose information content is below this fraction
        of the largest (:func:`seqimp.motifs.trim_motif`); None keeps all columns.

    Returns
    -------
    Motif
        Same name, spread and score; PWM = site letter frequencies (trimmed; the start moves
        with a trimmed left end), ``sites`` = number of sites (0 when there is no enriched site).
    """
    from scipy.stats import binom

    pos, neg = check_sequences(positive, "positive"), check_sequences(negative, "negative")
    L = pos.shape[1]
    if neg.shape[1] != L:
        raise SeqimpError(f"positive sequences have length {L}, negative {neg.shape[1]}")
    if motif.start is None:
        raise SeqimpError(f"motif {motif.name}: counting sites needs a start position")
    m = motif.length
    if m > L:
        raise SeqimpError(f"motif {motif.name} (length {m}) is longer than the sequences (length {L})")
    reach = int(np.ceil(2 * motif.spread)) + int(flank)
    first = max(motif.start - 1 - reach, 0)
    last = min(motif.start - 1 + reach, L - m)
    if last < first:
        first = last = min(max(motif.start - 1, 0), L - m)
    starts = np.arange(first, last + 1)
    logodds = np.log((motif.pwm + 1e-3) / 0.25)
    pos_score, pos_at = _best_windows(pos.astype(np.intp), logodds, starts)
    neg_score, _ = _best_windows(neg.astype(np.intp), logodds, starts)
    keep = pos_score > np.quantile(neg_score, quantile)
    n_sites = int(np.count_nonzero(keep))
    if n_sites < int(min_sites) or binom.sf(n_sites - 1, len(pos), 1.0 - quantile) > max_pvalue:
        return Motif(motif.name, motif.pwm, start=motif.start, spread=motif.spread, score=motif.score,
                     sites=0, description=motif.description)
    sites = pos[keep][:, None, :]
    offsets = pos_at[keep][:, None] + np.arange(m)[None, :]
    letters = np.take_along_axis(sites[:, 0, :], offsets, axis=1)
    counts = np.stack([(letters == a).sum(axis=0) for a in range(4)], axis=1).astype(np.float64)
    counted = Motif(motif.name, counts / counts.sum(axis=1, keepdims=True), start=motif.start,
                    spread=motif.spread, score=motif.score, sites=n_sites, description=motif.description)
    return counted if trim is None else trim_motif(counted, fraction=trim)
