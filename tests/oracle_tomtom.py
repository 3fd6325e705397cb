"""A slow, plain-numpy TOMTOM (Gupta et al. 2007, complete scores, Euclidean column distance, as
MEME's tomtom 5.5.8 runs by default): the reference that tests hold memelite's kernel to.

Every step is written the obvious way, one loop or one numpy call each:

1. column scores ``-||q_i - t_j||`` of every query column against every target column (both
   strands: the reverse complements are appended to the targets);
2. each query column's scores shifted by its median over the target columns (the lower median,
   MEME's ``SHIFT_QUANTILE`` 0.5), so an unaligned column scores 0;
3. all shifted scores mapped to integers 0..``bins``: ``offset`` = floor(min), ``scale`` =
   floor(bins / (max - offset)), score -> floor((x - offset) * scale + 0.5);
4. the null of every span of query columns: the convolution of its columns' score histograms
   (each target column equally likely);
5. for every target length, the distribution of the best complete score over all
   ``m + length - 1`` alignments and both strands, alignments taken as independent (the pmf of
   a maximum is built one alignment at a time from the two cumulative distributions);
6. a target's p-value: the upper tail of that distribution at its best complete score (over its
   own alignments and strands); ties between alignments go to the larger overlap.
"""

from __future__ import annotations

import numpy as np

__all__ = ["tomtom_slow"]


def _max_pmf(a, b):
    """pmf of max(X, Y) for independent X ~ a, Y ~ b on the same integer grid."""
    ca, cb = np.cumsum(a), np.cumsum(b)
    out = a * cb + b * ca - a * b
    return out


def tomtom_slow(query, targets, bins=100, reverse_complement=True):
    """p-value, offset, overlap and strand of ``query`` (m, 4) against every target (l, 4).

    Returns a list of ``(p, offset, overlap, strand)`` per target: ``offset`` is the target
    column under the first query column (negative when the query overhangs on the left; MEME's
    ``Optimal_offset``), ``strand`` is ``"+"`` or ``"-"`` (the target's reverse complement).
    """
    query = np.asarray(query, dtype=np.float64)
    m = len(query)
    oriented = [np.asarray(t, dtype=np.float64) for t in targets]
    if reverse_complement:
        oriented = oriented + [t[::-1, ::-1] for t in oriented]
    columns = np.concatenate(oriented)
    n = len(columns)

    scores = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            scores[i, j] = -np.sqrt(np.sum((query[i] - columns[j]) ** 2))
    for i in range(m):
        ranked = np.sort(scores[i])
        lo, hi = max(n // 2 - 1, 0), max(-(-n // 2) - 1, 0)
        scores[i] -= (ranked[lo] + ranked[hi]) / 2

    small, large = scores.min(), scores.max()
    if large == small:
        small = large - 1
    offset = np.floor(small)
    scale = np.floor(bins / (large - offset))
    ints = np.floor((scores - offset) * scale + 0.5).astype(np.int64)

    hist = np.zeros((m, bins + 1))
    for i in range(m):
        for j in range(n):
            hist[i, ints[i, j]] += 1.0 / n

    # complete score of an alignment = its integer sum + shift * (m - overlap), shift = -offset*scale;
    # every distribution below is indexed by complete score - m * offset * scale >= 0
    shift = int(round(-offset * scale))
    size = m * bins + 1 + m * shift
    span = {}
    for first in range(m):
        pmf = np.zeros(size)
        pmf[0] = 1.0
        for last in range(first, m):
            pmf = np.convolve(pmf, hist[last])[:size]
            placed = np.zeros(size)
            move = shift * (m - (last - first + 1))
            placed[move:] = pmf[:size - move]
            span[first, last] = placed

    def columns_of(k, length):  # query columns [first, last] in alignment k of a target of `length`
        if k < m:
            first = m - 1 - k
            return first, min(m, first + length) - 1
        return 0, min(m, length + m - k - 1) - 1

    tails = {}
    for length in sorted({len(t) for t in oriented}):
        best = np.zeros(size)
        best[0] = 1.0
        for k in range(m + length - 1):
            for _ in range(2 if reverse_complement else 1):
                best = _max_pmf(best, span[columns_of(k, length)])
        tails[length] = np.cumsum(best[::-1])[::-1]

    found = []
    start = 0
    for t in oriented:
        length = len(t)
        best_score, best_offset, best_overlap = None, 0, -1
        for k in range(m + length - 1):
            first, last = columns_of(k, length)
            target_first = 0 if k < m else k - m + 1
            total = sum(int(ints[first + u, start + target_first + u]) for u in range(last - first + 1))
            overlap = last - first + 1
            complete = total + shift * (m - overlap)  # in units of index above
            if best_score is None or complete > best_score or (complete == best_score and overlap > best_overlap):
                best_score, best_offset, best_overlap = complete, target_first - first, overlap
        found.append((float(tails[length][best_score]), best_offset, best_overlap))
        start += length
    out = []
    n_t = len(targets)
    for j in range(n_t):
        plus = found[j]
        minus = found[j + n_t] if reverse_complement else None
        if minus is not None and minus[0] < plus[0]:
            out.append((minus[0], minus[1], minus[2], "-"))
        else:
            out.append((plus[0], plus[1], plus[2], "+"))
    return out
