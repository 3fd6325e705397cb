"""Per-base importance of a gapped-k-mer model (gkmexplain-style) and its seqlets.

:meth:`seqimp.kernels.GKMClassifier.attributions` credits every gapped k-mer occurrence's
contribution to the decision value evenly to its k informative bases (Shrikumar et al. 2019
distribute a kernel SVM's score over the bases of matching gapped k-mers the same way; here the
model is linear in the gapped-k-mer counts, so the split is exact and the attributions of a
sequence sum to its decision value minus the intercept). :func:`gkm_attributions` checks the
model and the input once; :func:`find_seqlets` cuts the stretches where the attributions of a
positive sequence exceed what the negatives reach: the seqlets that motif seeds are built from
(:func:`seqimp.motifs.gkm_seed_motifs`); :func:`attribution_profile` averages them per position and
letter (the importance logo of the gkm route).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import SeqimpError, check_int, check_number
from ..io._check import check_sequences

__all__ = ["gkm_attributions", "find_seqlets", "attribution_profile", "attribution_result"]


def gkm_attributions(model, X) -> np.ndarray:
    """Per-base attributions of a fitted :class:`~seqimp.kernels.GKMClassifier`.

    Parameters
    ----------
    model : GKMClassifier
        Fitted.
    X : ndarray of shape (n, L), SequenceSet or sequence of str
        DNA sequences of one length.

    Returns
    -------
    ndarray of shape (n, L), float64
        Row sums equal ``model.decision_function(X) - model.intercept_``.
    """
    from ..kernels import GKMClassifier

    if not isinstance(model, GKMClassifier):
        raise SeqimpError(f"model must be a fitted GKMClassifier, got {type(model).__name__}")
    codes = check_sequences(X, "X", unknown=True)   # N: no l-mer covers it, its attribution is 0
    return np.asarray(model.attributions(codes), dtype=np.float64)


def _window_sums(attr, width):
    """Sums of ``width`` consecutive attributions, shape (n, L - width + 1)."""
    c = np.cumsum(np.pad(attr, ((0, 0), (1, 0))), axis=1)
    return c[:, width:] - c[:, :-width]


def find_seqlets(positive_attr, negative_attr, *, width=10, quantile=0.9, per_sequence=3) -> pd.DataFrame:
    """Seqlets: windows of ``width`` bases whose summed attribution exceeds the negatives'.

    The threshold is the ``quantile`` of the negatives' best window sums (one per negative
    sequence), so about ``1 - quantile`` of the negatives would hold a seqlet. In every
    positive, the best window above the threshold is taken, the windows overlapping it are
    excluded, and so on, at most ``per_sequence`` times.

    Parameters
    ----------
    positive_attr, negative_attr : ndarray of shape (n, L) and (m, L)
    width : int, default=10
    quantile : float in (0, 1), default=0.9
    per_sequence : int, default=3

    Returns
    -------
    pandas.DataFrame
        One row per seqlet, strongest first: ``sequence`` (0-based), ``start`` (0-based),
        ``end`` (exclusive), ``score`` (summed attribution); ``.attrs["threshold"]``.
    """
    pos = np.asarray(positive_attr, dtype=np.float64)
    neg = np.asarray(negative_attr, dtype=np.float64)
    if pos.ndim != 2 or neg.ndim != 2 or pos.shape[1] != neg.shape[1]:
        raise SeqimpError(f"attributions must be 2-D of one length, got shapes {pos.shape} and {neg.shape}")
    width = check_int(width, "width", maximum=pos.shape[1])
    check_number(quantile, "quantile", low=0.0, high=1.0, low_open=True, high_open=True)
    per_sequence = check_int(per_sequence, "per_sequence")
    threshold = float(np.quantile(_window_sums(neg, width).max(axis=1), quantile))
    sums = _window_sums(pos, width)
    rows = []
    for i in range(sums.shape[0]):
        s = sums[i].copy()
        for _ in range(per_sequence):
            j = int(np.argmax(s))
            if not s[j] > threshold:
                break
            rows.append((i, j, j + width, float(s[j])))
            s[max(j - width + 1, 0):j + width] = -np.inf
    table = pd.DataFrame(rows, columns=["sequence", "start", "end", "score"])
    table = table.sort_values("score", ascending=False, kind="stable").reset_index(drop=True)
    table.attrs["threshold"] = threshold
    return table


def attribution_profile(attr, codes) -> np.ndarray:
    """Mean attribution of each letter at each position, shape (L, 4): entry ``[j, a]`` averages
    the attribution at j over the sequences with letter a there (0 where none has it)."""
    attr = np.asarray(attr, dtype=np.float64)
    codes = check_sequences(codes, "codes", length=attr.shape[1], unknown=True)   # N: in no letter's mean
    if codes.shape[0] != attr.shape[0]:
        raise SeqimpError(f"codes has {codes.shape[0]} sequences, attributions {attr.shape[0]}")
    out = np.zeros((attr.shape[1], 4))
    for a in range(4):
        hit = codes == a
        n = hit.sum(axis=0)
        out[:, a] = np.where(n > 0, (attr * hit).sum(axis=0) / np.maximum(n, 1), 0.0)
    return out


def attribution_result(model, positive, positive_attr, negative_attr):
    """The gkm route's importance as a :class:`~seqimp.importance.POIMResult` of order 1: the mean
    attribution of each letter at each position over the positives
    (:func:`attribution_profile`; ``poim`` and ``firm`` both hold
    it), for the importance logo of the motif files. ``expected_score``/``score_std``: the mean
    and standard deviation of the decision values of all sequences (each sequence's
    attributions sum to its decision value minus the intercept)."""
    from ._result import POIMResult

    profile = attribution_profile(positive_attr, positive)
    scores = np.concatenate([positive_attr.sum(axis=1), negative_attr.sum(axis=1)]) + model.intercept_
    return POIMResult([profile], [profile.copy()], expected_score=float(scores.mean()),
                      score_std=float(scores.std()), method="gkmexplain (mean attribution per position and letter)",
                      meta={"model": "gkm", "word_length": int(model.word_length),
                            "informative": int(model.informative)})
