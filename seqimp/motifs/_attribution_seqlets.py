"""Seqlets of any model's attributions (TF-MoDISco's inputs): one-hot sequences and hypothetical
contributions -> the windows where the contribution stands out, the first step of
:func:`seqimp.motifs._attribution_motifs.attribution_motifs` (the clusters and motifs made of
them: that module).

1. **Seqlets** (:func:`find_attribution_seqlets`). The contribution of a position is
   ``sum(onehot * hyp)``; windows of ``window`` positions are summed. The null is estimated from the
   map's own windows: a Laplace distribution fitted to the sharpest peak of the window sums
   (:func:`_laplace_null`: the narrowest interval holding 50 %, 25 % or 10 % of them; on noise the
   median's estimate, and where most windows overlap a site still the noise's peak), fitted again
   without the windows past the first threshold; every window gets the two-sided Laplace p-value,
   and windows pass at a Benjamini-Hochberg false discovery rate ``fdr``. In each sequence
   the strongest passing window is taken, the windows overlapping it are dropped, and so on; a
   seqlet is its window extended by ``flank`` positions on each side, its sign that of its sum
   (positive and negative seqlets are clustered apart). A map of pure noise has no window past the
   threshold: no seqlet, no motif.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from ..errors import SeqimpError

__all__ = ["check_attribution_arrays", "find_attribution_seqlets", "DEFAULTS"]

#: The defaults of :func:`seqimp.motifs._attribution_motifs.attribution_motifs` (recorded in ``motifs.json``).
DEFAULTS = dict(window=15, flank=5, fdr=0.05, max_shift=8, min_similarity=0.5, merge_similarity=0.7,
                contain_similarity=0.8, trim=0.25, min_seqlets=20, min_contribution=0.5, min_width=4)

#: Shares of the windows whose narrowest intervals measure the null (:func:`_laplace_null`).
_SHARES = (0.5, 0.25, 0.1)


def check_attribution_arrays(sequences, attributions, *, names=("sequences", "attributions")):
    """One-hot sequences and hypothetical contributions as two float arrays of shape (n, L, 4).

    Parameters
    ----------
    sequences : array-like of shape (n, 4, L) or (n, L, 4)
        One-hot DNA, A C G T (a position of all zeros is an N).
    attributions : array-like of shape (n, 4, L) or (n, L, 4)
        Hypothetical contributions (every letter's contribution at every position), in the same
        layout as ``sequences``.
    names : (str, str)
        How the two are named in error messages (a file and its option on the command line).

    Returns
    -------
    onehot, hyp : ndarray of shape (n, L, 4)
        float32, and float32 or float64 (float64 unless given in float32: a float32 map is
        not widened, which would double its memory and add no digit).

    Raises
    ------
    SeqimpError
        One line naming the array: not 3-dimensional, no axis of 4, shapes that differ, NaN or
        infinite values, a sequence array that is not one-hot.
    """
    out = []
    for name, array in zip(names, (sequences, attributions)):
        try:  # the given dtype kept until the end (no float64 copy of a float32 map before it is checked)
            a = np.asarray(array)
            if a.dtype.kind not in "biuf":
                a = a.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise SeqimpError(f"{name}: not a numeric array ({exc})") from None
        if a.ndim != 3 or 4 not in a.shape[1:]:
            raise SeqimpError(f"{name}: expected an array of shape (n, 4, L) or (n, L, 4), got {a.shape}")
        letters = 1 if a.shape[1] == 4 and a.shape[2] != 4 else 2
        if min(a.shape[0], a.shape[3 - letters]) == 0:
            raise SeqimpError(f"{name}: no sequence (shape {a.shape})")
        if a.dtype.kind == "f" and not np.isfinite(a).all():  # checked in the given layout (contiguous: faster)
            raise SeqimpError(f"{name}: holds NaN or infinite values")
        out.append((a, letters))
    (given, letters), (hyp, hyp_letters) = out
    onehot = given.transpose(0, 2, 1) if letters == 1 else given
    hyp = hyp.transpose(0, 2, 1) if hyp_letters == 1 else hyp
    if onehot.shape != hyp.shape:
        raise SeqimpError(f"{names[1]}: shape {hyp.shape} (as (n, L, 4)) differs from {names[0]}'s {onehot.shape}")
    if not (((given == 0) | (given == 1)).all() and (given.sum(axis=letters) <= 1).all()):
        raise SeqimpError(f"{names[0]}: not one-hot (every position must hold one 1 among A, C, G, T, or none for N)")
    return _contiguous(onehot, np.float32), _contiguous(hyp, np.float32 if hyp.dtype == np.float32 else np.float64)


def _contiguous(a, dtype):
    """``a`` (n, L, 4), possibly a transposed view, as a C-contiguous array of ``dtype``: copied one
    sequence at a time (a whole strided copy of the (n, 4, L) layout is many times slower)."""
    if a.flags.c_contiguous:
        return np.asarray(a, dtype=dtype)
    out = np.empty(a.shape, dtype=dtype)
    for i in range(a.shape[0]):
        out[i] = a[i]
    return out


@njit(cache=True)
def _pick_windows(scores, threshold, window):
    """Per sequence, the strongest windows whose |score| reaches ``threshold``, none overlapping an
    earlier one (ties: the earlier window first). ``scores``: (n, nw). Returns (sequence, window
    start) of the windows kept, the strongest of each sequence first."""
    n, nw = scores.shape
    seq = np.empty(n * (nw // window + 1), np.int64)
    pos = np.empty_like(seq)
    k = 0
    taken = np.zeros(nw, np.bool_)
    for i in range(n):
        strong = np.nonzero(np.abs(scores[i]) >= threshold)[0]
        if len(strong) == 0:
            continue
        order = strong[np.argsort(-np.abs(scores[i][strong]), kind="mergesort")]
        taken[:] = False
        for p in order:
            if taken[p]:
                continue
            seq[k] = i
            pos[k] = p
            k += 1
            for q in range(max(p - window + 1, 0), min(p + window, nw)):
                taken[q] = True
    return seq[:k], pos[:k]


def _laplace_null(values):
    """Centre and scale of the Laplace null of window sums ``values`` (sorted ascending): for each
    share q of :data:`_SHARES`, the narrowest interval holding that share of the windows (its
    midpoint a centre, its half-width ``b * -ln(1 - q)`` under a Laplace law of scale b); the share
    giving the smallest scale wins. For Laplace noise every share estimates the same scale; on
    Gaussian-like noise the half (the median's estimate) gives the smallest, so a map of noise keeps
    it. Where most windows hold some signal, the windows of noise still make the sharpest peak: a
    smaller share measures that peak, centred where the noise lies, not at the median that the
    signal moved."""
    n = len(values)
    best = (float(values[n // 2]) if n else 0.0, np.inf)
    for q in _SHARES:
        k = max(int(np.ceil(q * n)), 2)
        if k > n:
            continue
        widths = values[k - 1:] - values[:n - k + 1]
        i = int(np.argmin(widths))
        scale = float(widths[i]) / 2 / -np.log1p(-q)
        if scale < best[1]:
            best = (float(values[i] + values[i + k - 1]) / 2, scale)
    return best if best[1] < np.inf else (best[0], 0.0)  # too few windows: no null, no seqlet


def _laplace_threshold(sums, fdr):
    """The centre of the Laplace null, the smallest |window sum - centre| that passes
    Benjamini-Hochberg at ``fdr`` under it (inf where none passes) and its scale; the null is fitted
    again to the windows below the first threshold (the signal left out)."""
    values = np.sort(sums.ravel())
    centre, scale = _laplace_null(values)
    threshold = np.inf
    for _ in range(2):
        if not 0 < scale < np.inf:
            return centre, np.inf, scale
        # a window passing BH has p <= fdr, |x| >= b ln(1/fdr): only those are ranked (the largest
        # values, so their ranks among all windows are their ranks here)
        magnitudes = np.abs(values - centre)
        ranked = np.sort(magnitudes[magnitudes >= scale * np.log(1 / fdr)])[::-1]
        pvalues = np.exp(-ranked / scale)  # two-sided: 2 * 0.5 * exp(-|x| / b)
        passing = np.nonzero(pvalues <= fdr * np.arange(1, len(ranked) + 1) / len(values))[0]
        if not len(passing):
            return centre, np.inf, scale
        threshold = float(ranked[passing[-1]])
        centre, scale = _laplace_null(values[magnitudes < threshold])
    return centre, threshold, scale


def find_attribution_seqlets(onehot, hyp, *, window=15, flank=5, fdr=0.05) -> pd.DataFrame:
    """Seqlets: the windows whose summed contribution stands out of the map's own null.

    Parameters
    ----------
    onehot, hyp : ndarray of shape (n, L, 4)
        As :func:`check_attribution_arrays` returns them.
    window : int, default=15
        Width of the summed windows (a seqlet's core).
    flank : int, default=5
        Positions added on each side of the core (only windows whose flanks fit are summed).
    fdr : float, default=0.05
        False discovery rate of the windows under the Laplace null.

    Returns
    -------
    DataFrame
        One row per seqlet, strongest first: ``sequence`` (0-based row), ``start`` (0-based first
        position of the extended seqlet, width ``window + 2 * flank``), ``contribution`` (the core
        window's sum), ``sign`` (+1 or -1). ``attrs``: ``threshold``, ``scale``, ``median`` (the
        null's centre).
    """
    n, length, _ = onehot.shape
    if window > length:
        raise SeqimpError(f"window {window} exceeds the sequence length {length}")
    contribution = np.einsum("nlk,nlk->nl", onehot, hyp).astype(np.float64)  # summed in float64 below
    csum = np.concatenate([np.zeros((n, 1)), np.cumsum(contribution, axis=1)], axis=1)
    sums = csum[:, window:] - csum[:, :-window]
    sums = sums[:, flank:sums.shape[1] - flank]  # windows whose flanks fit in the sequence
    if sums.shape[1] == 0:
        raise SeqimpError(f"window {window} plus flanks of {flank} exceed the sequence length {length}")
    median, threshold, scale = _laplace_threshold(sums, fdr)
    centred = sums - median
    seq, pos = _pick_windows(centred, threshold, window)
    value = sums[seq, pos]  # window pos starts at pos + flank: its seqlet at pos
    table = pd.DataFrame({"sequence": seq, "start": pos, "contribution": value,
                          "sign": np.where(centred[seq, pos] >= 0, 1, -1)})
    table = table.iloc[np.lexsort((table["start"].to_numpy(), table["sequence"].to_numpy(),
                                   -np.abs(table["contribution"].to_numpy())))].reset_index(drop=True)
    table.attrs.update(threshold=threshold, scale=scale, median=median)
    return table
