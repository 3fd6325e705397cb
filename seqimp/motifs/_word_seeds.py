"""Seed motifs from words enriched in the positives: no model, no positions.

A positional model can miss a motif that the sequences plainly hold: with the first motif of
a set explained away, a second one planted at a jittered place on either strand in 60% of the
positives left the retrained WD model near chance (held-out auROC 0.52-0.59 on the generated
``masked`` sets of seeds 1, 3 and 4), and its POIM rose above the noise on one seed only -- while
its 7-letter consensus word lay in 13% of the positives and 0.2% of the negatives. Counting
the words is what STREME and HOMER seed from, and it costs a fraction of a second.

:func:`word_seeds`: for every word length of ``lengths``, the sequences holding each word
(with ``strand="both"`` a word and its reverse complement are one word) in the positives and
in the negatives; the one-sided hypergeometric (Fisher) p-value of the positives' share, times
the number of words of that length (Bonferroni). Words at most ``max_pvalue`` (1e-6) after that, with
at least ``min_occurrences`` positives, seed motifs, the most significant first (over all
lengths); a word that is a variant of a seed already taken (either strand, shifted, at most a
quarter of the overlap different) is skipped. A seed's PWM is the word's occurrences in the
positives, on the word's strand, with ``pad`` letters on each side, one pseudocount per letter
and column; it is position-free (``start`` and ``spread`` say where its occurrences lie).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import SeqimpError, check_choice
from ..io._strand import reverse_complement_index
from ._gkm_seeds import _variant, _word_codes, round_named, rows_holding
from ._motif import Motif
from ._sites import _tail_kernel, window_letter_counts

__all__ = ["word_seeds", "enriched_words", "word_log10_pvalues", "occurrence_pwm", "WORD_LENGTHS",
           "WORD_MAX_PVALUE"]

#: Word lengths counted by :func:`word_seeds`
WORD_LENGTHS = (6, 8, 10)
#: The most a seed word's Bonferroni-adjusted p-value may be. The words are a positional run's
#: last resort, after its retrained model found nothing: a motif the model missed stands out
#: there (HNF4A's CAAAGTCC at 1e-65 on ``gen masked``), while at 0.05 the weak sites of a motif
#: already reported and not called (CTCF planted with a third of its letters random on ``gen
#: weaklong``: ACCGCC at 5e-4) seeded a position-free remnant of it beside it, and chance words
#: (CCGTGA at 8e-3) cost a refinement each
WORD_MAX_PVALUE = 1e-6

_COLUMNS = ["name", "word", "positives", "negatives", "log10_p_value"]


def enriched_words(a, b, n_pos, n_neg, min_occurrences, c=None, n_ctrl=None):
    """The word indices held by at least ``min_occurrences`` positives (``a``: per word, the
    positives holding it) and by a larger share of the positives than of the negatives (``b``)
    -- and, with controls, than of the controls (``c`` of ``n_ctrl``)."""
    keep = (a >= min_occurrences) & (a * n_neg > b * n_pos)
    if c is not None:
        keep &= a * n_ctrl > c * n_pos
    return np.flatnonzero(keep)


def word_log10_pvalues(a, b, n_pos, n_neg, tested, n_words, c=None, n_ctrl=None):
    """log10 of the Bonferroni-adjusted (times ``n_words``) one-sided Fisher p-value of the
    words ``tested``: the exact hypergeometric tail of the positives among the sequences holding
    the word, positives (``a`` of ``n_pos``) against negatives (``b`` of ``n_neg``). With
    composition controls (``c`` of ``n_ctrl``: dinucleotide shuffles of the positives) the larger
    of that and the same test against the controls: a word enriched only because the positives'
    letters and letter pairs are (a GC-rich word in CpG-island promoters against gene bodies)
    does not pass."""
    def log10_tail(other, n_other):
        out = np.empty(len(tested))
        _tail_kernel(a[tested].astype(np.int64), (a[tested] + other[tested]).astype(np.int64), n_pos + n_other, n_pos,
                     out)
        return out / np.log(10)

    log_p = log10_tail(b, n_neg)
    if c is not None:
        log_p = np.maximum(log_p, log10_tail(c, n_ctrl))
    return log_p + np.log10(n_words)


def occurrence_pwm(positive, fwd, rev, m, w, pad, both, *, name):
    """The position-free PWM of word ``w`` (``m`` letters, a gapped word's gap included) at its
    occurrences in ``positive`` (``fwd``, ``rev``: the word index of every window on each
    strand), on the word's strand (``both``: the reverse strand's occurrences too), with ``pad``
    letters on each side and one pseudocount per letter and column; ``start`` is the median
    occurrence (1-based), ``spread`` their standard deviation. None where every occurrence lies
    too near an end."""
    L = positive.shape[1]
    M = m + 2 * pad
    counts = np.ones((M, 4))
    starts = []
    for hits, forward in ((fwd == w, True), (rev == w, False)) if both else ((fwd == w, True),):
        rows, at = np.nonzero(hits)
        keep = (at >= pad) & (at + m + pad <= L)  # the occurrences with room for their flanks
        rows, lo = rows[keep], at[keep] - pad
        counts += window_letter_counts(positive, rows, lo, M, not forward)  # an unknown base adds no letter
        starts.append(lo)
    starts = np.concatenate(starts).astype(np.float64)
    if not starts.size:
        return None
    start = int(min(max(int(np.round(np.median(starts))), 0), L - counts.shape[0])) + 1  # half to even, as round
    return Motif(name, counts / counts.sum(axis=1, keepdims=True), start=start, spread=float(starts.std()),
                 position_free=True)


def _presence(codes, m, canonical=None):
    """Per m-mer index (4**m), the number of sequences of ``codes`` holding it, and the windows'
    word indices (n, L - m + 1) of both strands. With ``canonical`` (per m-mer index, the smaller
    of it and its reverse complement's) either strand counts: the count is stored at both a
    word's index and its reverse complement's."""
    fwd, rev = _word_codes(codes, m)
    words = np.minimum(fwd, rev) if canonical is not None else fwd
    counts = rows_holding(words, 4 ** m)  # once per sequence; windows covering an unknown base left out
    if canonical is not None:  # the canonical count, read at either orientation
        counts = counts[canonical]
    return counts, fwd, rev


def word_seeds(positive, negative, *, lengths=WORD_LENGTHS, strand="both", max_motifs=3, max_pvalue=WORD_MAX_PVALUE,
               min_occurrences=5, pad=3, exclude=(), round=1, control=None):
    """Seed motifs from the words most enriched in ``positive`` (module docstring).

    Parameters
    ----------
    positive, negative : ndarray of shape (n, L), (m, L'), uint8
        Encoded sequences (A=0, C=1, G=2, T=3, 4 unknown: a word covering it is not counted).
    lengths : sequence of int, default=(6, 8, 10)
        Word lengths counted.
    strand : {"both", "given"}, default="both"
        "both": a word and its reverse complement count as one.
    max_motifs : int, default=3
    max_pvalue : float, default=1e-6
        The most a word's Bonferroni-adjusted p-value may be (:data:`WORD_MAX_PVALUE`).
    min_occurrences : int, default=5
        The fewest positives that must hold a seed word.
    pad : int, default=3
        Letters on each side of the word in the seed's PWM.
    exclude : sequence of Motif
        Motifs already found: a seed that copies one (:func:`seqimp.motifs._copies.same_motif`) is
        not returned.
    round : int, default=1
        The round of explaining away: later rounds' seeds are named ``round<r>_word1, ...``.
    control : ndarray of shape (c, L''), uint8, optional
        Composition controls of the positives (dinucleotide shuffles): a word must also be
        enriched against them, and its p-value is the larger of the two (:func:`word_log10_pvalues`).

    Returns
    -------
    seeds : list of Motif
        ``position_free=True``, named ``word1, word2, ...``; ``score`` is -log10 of the adjusted p.
    candidates : DataFrame
        One row per seed: ``name, word, positives, negatives`` (sequences holding it),
        ``log10_p_value`` (adjusted) and ``round``.
    """
    from ..io import kmer_string
    from ._copies import copied_motif

    check_choice(strand, "strand", ("both", "given"))
    positive, negative = np.asarray(positive), np.asarray(negative)
    if positive.ndim != 2 or negative.ndim != 2 or not len(positive) or not len(negative):
        raise SeqimpError("word seeds need positive and negative sequences as 2-d arrays of codes")
    n_pos, n_neg = len(positive), len(negative)
    n_ctrl = None if control is None else len(control)
    ranked = []  # (log10 adjusted p, -positives, length, word index)
    codes = {}
    for m in sorted({int(x) for x in lengths}):
        if m < 1 or positive.shape[1] < m + 2 * pad or negative.shape[1] < m:
            continue
        canonical = None
        if strand == "both":
            idx = np.arange(4 ** m, dtype=np.int64)
            canonical = np.minimum(idx, reverse_complement_index(m))
        a, fwd, rev = _presence(positive, m, canonical)
        b = _presence(negative, m, canonical)[0]
        codes[m] = (fwd, rev, b)
        c = None if control is None else _presence(control, m, canonical)[0]
        tested = enriched_words(a, b, n_pos, n_neg, min_occurrences, c, n_ctrl)
        if canonical is not None:  # one of each word and its reverse complement: the smaller index
            tested = tested[tested == canonical[tested]]
        if not len(tested):
            continue
        n_words = 4 ** m if strand == "given" else (4 ** m + (4 ** (m // 2) if m % 2 == 0 else 0)) // 2
        log_adj = word_log10_pvalues(a, b, n_pos, n_neg, tested, n_words, c, n_ctrl)
        keep = log_adj <= np.log10(max_pvalue)
        log_adj = np.minimum(log_adj[keep], 0.0)
        ranked += [(float(lp), -int(a[w]), m, int(w)) for lp, w in zip(log_adj, tested[keep])]
    seeds, rows, used = [], [], []
    for log_adj, minus_a, m, w in sorted(ranked):
        if len(seeds) >= max_motifs:
            break
        text = kmer_string(w, m)
        if any(_variant(text, u) or _variant(u, text) for u in used):
            continue
        used.append(text)
        fwd, rev, b = codes[m]
        seed = occurrence_pwm(positive, fwd, rev, m, w, pad, strand == "both", name=f"word{len(seeds) + 1}")
        if seed is None:
            continue
        seed.score = -log_adj
        if copied_motif(seed, exclude, strand=strand) is not None:
            continue
        seeds.append(seed)
        rows.append({"name": seed.name, "word": text, "positives": -minus_a,
                     "negatives": int(b[w]), "log10_p_value": log_adj})
    candidates = pd.DataFrame(rows, columns=_COLUMNS)
    return round_named(seeds, candidates, round), candidates
