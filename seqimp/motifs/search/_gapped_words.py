"""Gapped words for the deeper search (:mod:`._depth`): two halves of ``h`` letters with ``g``
letters of any kind between them (``CACNNGTG``: h = 3, g = 2), as gkm-SVM's gapped k-mers and
HOMER's and DREME's gapped seeds count them. A motif with a variable middle (a dimer's spacer,
the degenerate centre of a palindrome) spreads its contiguous words over many variants; its
gapped word gathers them.

:func:`gapped_seed`: for every pattern of :data:`GAPPED_PATTERNS`, the sequences holding each
gapped word in the positives and the negatives (with ``strand="both"`` a word and its reverse
complement, ``rc(right) N^g rc(left)``, are one), the one-sided Fisher p-value of the positives'
share times the number of words of that pattern (Bonferroni); the most significant word at most
``max_pvalue`` after that, not a copy of a motif of ``exclude``, seeds a position-free PWM: its
occurrences in the positives on the word's strand with ``pad`` letters on each side, one
pseudocount per letter and column (the gap columns hold the letters found there).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit, prange

from .._gkm_seeds import _word_codes, round_named, rows_holding
from .._word_seeds import enriched_words, occurrence_pwm, word_log10_pvalues

__all__ = ["gapped_seed", "gapped_words", "GAPPED_PATTERNS"]

#: (half length h, gap g) of the gapped words counted: 3 + 1..6 + 3 and 4 + 1..3 + 4 letters.
GAPPED_PATTERNS = tuple((3, g) for g in range(1, 7)) + tuple((4, g) for g in range(1, 4))

_COLUMNS = ["name", "word", "positives", "negatives", "log10_p_value"]


def gapped_words(codes, h, g, *, both=True):
    """The gapped word (h letters, g any, h letters) of every window of ``codes`` (n, L): its
    index ``left * 4**h + right``, shape (n, L - 2h - g + 1), and that of its reverse complement
    (``rc(right) * 4**h + rc(left)``); with ``both`` the first is the smaller of the two. A window
    whose halves cover an unknown base (code 4) is no word: ``4**(2h)`` in all three (the gap
    may hold one)."""
    fwd_h, rev_h = _word_codes(codes, h)  # 4**h where a half covers an unknown base
    width = max(codes.shape[1] - 2 * h - g + 1, 0)
    out = np.empty((3, codes.shape[0], width), dtype=np.int64)
    if out.size:
        _gapped_kernel(fwd_h, rev_h, h, h + g, both, out)
    return out[0], out[1], out[2]


@njit(cache=True, parallel=True)
def _gapped_kernel(fwd_h, rev_h, h, span, both, out):
    """:func:`gapped_words` from the halves' indices: ``out[0]`` the (canonical) word, ``out[1]``
    its index as read, ``out[2]`` its reverse complement's."""
    size = 4 ** h
    for i in prange(out.shape[1]):
        for j in range(out.shape[2]):
            left, right = fwd_h[i, j], fwd_h[i, j + span]
            if left == size or right == size:
                out[0, i, j] = out[1, i, j] = out[2, i, j] = size * size
                continue
            f = left * size + right
            r = rev_h[i, j + span] * size + rev_h[i, j]
            out[1, i, j] = f
            out[2, i, j] = r
            out[0, i, j] = min(f, r) if both else f


def _text(index, h, g):
    from ...io import kmer_string

    return kmer_string(int(index) // 4 ** h, h) + "N" * g + kmer_string(int(index) % 4 ** h, h)


def gapped_seed(positive, negative, *, strand="both", max_pvalue=0.05, min_occurrences=5, pad=3, exclude=(),
                round=1, patterns=GAPPED_PATTERNS, control=None, max_motifs=1):
    """The seed of the most enriched gapped word (module docstring), or none; with ``max_motifs``
    the seeds of that many, most enriched first.

    Parameters
    ----------
    positive, negative : ndarray of shape (n, L), (m, L'), uint8
        Codes (A=0, C=1, G=2, T=3; 4 unknown: a word whose halves cover one is not counted).
    strand : {"both", "given"}, default="both"
    max_pvalue : float, default=0.05
        The most a word's p-value may be after Bonferroni over the words of its pattern.
    min_occurrences : int, default=5
        The fewest positives that must hold it.
    pad : int, default=3
    exclude : sequence of Motif
        A seed that copies one of them (:func:`seqimp.motifs._copies.same_motif`) is skipped.
    round : int, default=1
        Seeds of a later round are named ``round<r>_gapped1``.
    patterns : sequence of (int, int)
        (h, g) of the words counted.
    control : ndarray of shape (c, L''), uint8, optional
        Composition controls of the positives: a word must be enriched against them too
        (:func:`seqimp.motifs._word_seeds.word_log10_pvalues`).
    max_motifs : int, default=1

    Returns
    -------
    seeds : list of Motif
        At most ``max_motifs``, ``gapped1, gapped2, ...``, position-free; ``score`` is -log10 of
        the adjusted p.
    candidates : DataFrame
        Their rows: ``name, word`` (gap letters as N), ``positives, negatives`` (sequences holding
        it), ``log10_p_value`` (adjusted) and ``round``.
    """
    from .._copies import copied_motif

    both = strand == "both"
    n_pos, n_neg = len(positive), len(negative)
    ranked = []  # (log10 adjusted p, -positives, h, g, word)
    for h, g in patterns:
        if positive.shape[1] < 2 * h + g + 2 * pad or negative.shape[1] < 2 * h + g:
            continue
        size = 4 ** (2 * h)
        a = rows_holding(gapped_words(positive, h, g, both=both)[0], size)
        b = rows_holding(gapped_words(negative, h, g, both=both)[0], size)
        c = None if control is None else rows_holding(gapped_words(control, h, g, both=both)[0], size)
        n_ctrl = None if control is None else len(control)
        tested = enriched_words(a, b, n_pos, n_neg, min_occurrences, c, n_ctrl)
        if not len(tested):
            continue
        n_words = (size + 4 ** h) // 2 if both else size  # a word and its reverse complement are one
        log_adj = word_log10_pvalues(a, b, n_pos, n_neg, tested, n_words, c, n_ctrl)
        keep = log_adj <= np.log10(max_pvalue)
        ranked += [(min(float(lp), 0.0), -int(a[w]), h, g, int(w), int(b[w]))
                   for lp, w in zip(log_adj[keep], tested[keep])]
    windows = {}  # (h, g) -> the windows' words of both strands, made once
    seeds, rows = [], []
    for log_adj, minus_a, h, g, w, negatives in sorted(ranked):
        if len(seeds) >= max_motifs:
            break
        if (h, g) not in windows:
            windows[h, g] = gapped_words(positive, h, g, both=both)[1:]
        seed = occurrence_pwm(positive, *windows[h, g], 2 * h + g, w, pad, both, name=f"gapped{len(seeds) + 1}")
        if seed is None or copied_motif(seed, exclude, strand="both" if both else "given") is not None:
            continue
        seed.score = -log_adj
        seeds.append(seed)
        rows.append({"name": seed.name, "word": _text(w, h, g), "positives": -minus_a, "negatives": negatives,
                     "log10_p_value": log_adj})
    candidates = pd.DataFrame(rows, columns=_COLUMNS)
    return round_named(seeds, candidates, round), candidates
