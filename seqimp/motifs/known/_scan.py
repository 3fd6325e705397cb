"""Scanning sequences with PWMs: every window on both strands, p-values from the exact
score distribution, q-values (the method of FIMO, Grant, Bailey & Noble 2011).

A PWM becomes a log-odds matrix ``log2((p + c b) / (1 + c) / b)`` (pseudocount ``c`` spread by
the background ``b``), scaled to integers (``SCALE`` units per bit). The null distribution of
a window's integer score under the background (letters independent with frequencies ``b``)
is exact: a dynamic programme over the columns convolves one column's score distribution at
a time (:func:`score_distribution`), and a score's p-value is the null probability of that
score or more. Scores reported are the integer scores over ``SCALE`` (log2-odds in bits,
resolved to 1/SCALE). Windows holding a letter other than A, C, G, T are not scored.

q-values are per motif, over every window scored on every strand (the number of tests):
Benjamini-Hochberg, or Storey's (BH times the estimated share of true nulls
``pi0 = #{p > 0.5} / (0.5 N)``, at most 1). Both are exact from the hits alone, since the
windows not reported have larger p-values than every hit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from ...errors import SeqimpError, check_choice, check_number
from .._context_scores import push_hit
from .._motif import DNA_LETTERS, Motif

__all__ = ["scan_sequences", "score_matrix", "score_distribution", "score_pvalues", "encode_any_length",
           "best_sequence_scores", "motif_null", "pvalue_threshold", "background_frequencies", "SCALE", "PSEUDOCOUNT",
           "Q_METHODS", "HIT_COLUMNS"]

#: integer score units per bit
SCALE = 100
#: pseudocount spread by the background over every column (FIMO's --motif-pseudo)
PSEUDOCOUNT = 0.1
#: q-value methods
Q_METHODS = ("bh", "storey")
#: columns of :func:`scan_sequences`' table
HIT_COLUMNS = ["motif", "sequence", "id", "position", "strand", "score", "p_value", "q_value", "matched"]
_STOREY_LAMBDA = 0.5
_LOOKUP = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(DNA_LETTERS):
    _LOOKUP[ord(_c)] = _LOOKUP[ord(_c.lower())] = _i
_LOOKUP[ord("U")] = _LOOKUP[ord("u")] = 3


def background_frequencies(background, codes=None) -> np.ndarray:
    """Letter frequencies A, C, G, T, shape (4,): ``"uniform"``, ``"sequences"`` (the letters of
    ``codes``, a flat uint8 array with 255 for other letters, both strands counted, so the
    frequencies are strand-symmetric), four numbers (normalised) or a
    :class:`seqimp.background.SiteBackground` (its letter frequencies)."""
    if hasattr(background, "window_log2"):
        return background.letters
    if isinstance(background, str):
        kind = check_choice(background, "background", ("uniform", "sequences"))
        if kind == "uniform":
            return np.full(4, 0.25)
        counts = np.bincount(codes[codes < 4], minlength=4).astype(np.float64)
        counts = counts + counts[::-1] + 1.0  # both strands, one pseudo-letter each
        return counts / counts.sum()
    bg = np.asarray(background, dtype=np.float64)
    if bg.shape != (4,) or not np.all(np.isfinite(bg)) or (bg <= 0).any():
        raise SeqimpError(f"background must be 4 positive frequencies (A, C, G, T), got {background!r}")
    return bg / bg.sum()


def score_matrix(motif, background, *, pseudocount=PSEUDOCOUNT, scale=SCALE) -> np.ndarray:
    """Integer log-odds matrix of a motif, shape (m, 4), int64.

    ``round(scale * log2(((p + c b) / (1 + c)) / b))`` for PWM ``p`` (m, 4), background ``b``
    (4,) and pseudocount ``c``. Every entry is finite (``c > 0`` or a PWM without zeros).
    """
    pwm = motif.pwm if isinstance(motif, Motif) else np.asarray(motif, dtype=np.float64)
    bg = np.asarray(background, dtype=np.float64)
    p = (pwm + pseudocount * bg) / (1.0 + pseudocount)
    if (p <= 0).any():
        raise SeqimpError("a PWM with zero probabilities needs a pseudocount > 0")
    return np.rint(scale * np.log2(p / bg)).astype(np.int64)


def score_distribution(matrix, background) -> tuple[np.ndarray, np.ndarray]:
    """The exact null distribution of a window's integer score.

    Parameters
    ----------
    matrix : ndarray of shape (m, 4), int
        Integer score matrix (:func:`score_matrix`).
    background : ndarray of shape (4,)
        Letter probabilities; letters of a window are independent.

    Returns
    -------
    (low, prob) : int, ndarray of shape (R,)
        ``prob[i]`` is the probability of the score ``low + i`` (``low`` = sum of the column
        minima); R = the score range + 1.
    """
    matrix = np.asarray(matrix, dtype=np.int64)
    shifted = matrix - matrix.min(axis=1, keepdims=True)
    return int(matrix.min(axis=1).sum()), _distribution(shifted, np.asarray(background, dtype=np.float64))


@njit(cache=True)
def _distribution(shifted, bg):
    m = shifted.shape[0]
    total = 0
    for j in range(m):
        total += shifted[j].max()
    prob = np.zeros(total + 1)
    prob[0] = 1.0
    top = 0
    for j in range(m):
        nxt = np.zeros(total + 1)
        for s in range(top + 1):
            if prob[s] == 0.0:
                continue
            for a in range(4):
                nxt[s + shifted[j, a]] += prob[s] * bg[a]
        top += shifted[j].max()
        prob = nxt
    return prob


def score_pvalues(matrix, background) -> tuple[int, np.ndarray]:
    """``(low, tail)``: ``tail[i]`` = P(score >= low + i) under the background, shape (R,)
    (:func:`score_distribution`; the survival function, 1 at ``low``)."""
    low, prob = score_distribution(matrix, background)
    tail = np.cumsum(prob[::-1])[::-1]
    return low, np.minimum(tail, 1.0)


def pvalue_threshold(low, tail, pvalue) -> int:
    """The smallest integer score whose p-value is at most ``pvalue`` (one above the highest
    score when none is)."""
    ok = np.flatnonzero(tail <= pvalue)
    return int(low + (ok[0] if ok.size else tail.size))


def encode_any_length(sequences) -> tuple[np.ndarray, np.ndarray]:
    """Sequences of any lengths as ``(codes, offsets)``: one flat uint8 array (0..3 for A, C, G,
    T/U, 255 for every other letter) and offsets of shape (n + 1,).

    ``sequences``: strings, a SequenceSet, or a code matrix of shape (n, L)."""
    matrix = getattr(sequences, "codes", None)
    if matrix is None and isinstance(sequences, np.ndarray):
        matrix = sequences
    if matrix is not None:
        matrix = np.asarray(matrix)
        if matrix.ndim != 2:
            raise SeqimpError(f"codes must have shape (n, L), got {matrix.shape}")
        codes = np.where(matrix.astype(np.int64) < 4, matrix, 255).astype(np.uint8).ravel()
        return codes, np.arange(matrix.shape[0] + 1, dtype=np.int64) * matrix.shape[1]
    seqs = [str(s) for s in sequences]
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(s) for s in seqs])
    raw = np.frombuffer("".join(seqs).encode("latin-1", "replace"), dtype=np.uint8)
    return _LOOKUP[raw], offsets


def _strand_matrices(matrix, strands):
    """Integer matrices of the strands scanned, shape (S, m, 4): the motif, its reverse complement."""
    mats = [matrix if s == "+" else matrix[::-1, ::-1] for s in strands]
    return np.ascontiguousarray(np.stack(mats), dtype=np.int64)


@njit(cache=True)
def _window_score(codes, start, mat):
    s = 0
    for j in range(mat.shape[0]):
        c = codes[start + j]
        if c > 3:
            return -(2 ** 62)
        s += mat[j, c]
    return s


@njit(cache=True)
def _scan_kernel(codes, offsets, mats, thresholds, lam_scores, capacity):
    """Hits (score >= threshold of its strand) in one pass, into arrays that double when full;
    also the number of windows scored per strand and of windows scoring below ``lam_scores``
    (p > lambda)."""
    n_strands, m = mats.shape[0], mats.shape[1]
    n = offsets.size - 1
    tests = np.zeros(n_strands, np.int64)
    above_lam = np.zeros(n_strands, np.int64)
    out = np.empty((max(capacity, 16), 4), np.int64)  # sequence, position, strand, score
    k = 0
    for r in range(n):
        for p in range(offsets[r], offsets[r + 1] - m + 1):
            for s in range(n_strands):
                sc = _window_score(codes, p, mats[s])
                if sc < -(2 ** 61):
                    continue
                tests[s] += 1
                if sc < lam_scores[s]:
                    above_lam[s] += 1
                if sc >= thresholds[s]:
                    out = push_hit(out, k, r, p - offsets[r], s, sc)
                    k += 1
    return out[:k, 0].copy(), out[:k, 1].copy(), out[:k, 2].copy(), out[:k, 3].copy(), tests, above_lam


@njit(cache=True)
def _best_kernel(codes, offsets, mats):
    n, n_strands, m = offsets.size - 1, mats.shape[0], mats.shape[1]
    best = np.full(n, -(2 ** 62), np.int64)
    for r in range(n):
        for p in range(offsets[r], offsets[r + 1] - m + 1):
            for s in range(n_strands):
                sc = _window_score(codes, p, mats[s])
                if sc > best[r]:
                    best[r] = sc
    return best


def _check_motifs(motifs):
    motifs = [motifs] if isinstance(motifs, Motif) else list(motifs)
    if not motifs:
        raise SeqimpError("no motifs to scan with")
    for m in motifs:
        if not isinstance(m, Motif):
            raise SeqimpError(f"motifs must be seqimp Motif objects, got {type(m).__name__}")
    return motifs


def _strands(strand):
    return ("+", "-") if check_choice(strand, "strand", ("both", "given")) == "both" else ("+",)


def best_sequence_scores(motif, codes, offsets, background, *, strand="both", pseudocount=PSEUDOCOUNT):
    """The best integer window score of every sequence (either strand), shape (n,), int64;
    ``-2**62`` for a sequence without a scorable window. ``codes, offsets``: from
    :func:`encode_any_length`; ``background`` of shape (4,) or a
    :class:`seqimp.background.SiteBackground` (order k >= 1: :mod:`._context_scores`)."""
    strands = _strands(strand)
    if _is_markov(background):
        from .._context_scores import context_best, context_table

        table = context_table(_pwm(motif), background, pseudocount=pseudocount, scale=SCALE)
        return context_best(table, background.order, codes, offsets, len(strands))
    background = background.letters if hasattr(background, "letters") else background
    mats = _strand_matrices(score_matrix(motif, background, pseudocount=pseudocount), strands)
    return _best_kernel(np.ascontiguousarray(codes, np.uint8), np.ascontiguousarray(offsets, np.int64), mats)


def _is_markov(background) -> bool:
    """A :class:`seqimp.background.SiteBackground` of order >= 1 (order 0 is its letters)."""
    return hasattr(background, "window_log2") and background.order > 0


def _pwm(motif):
    return motif.pwm if isinstance(motif, Motif) else np.asarray(motif, dtype=np.float64)


def motif_null(motif, background, *, pseudocount=PSEUDOCOUNT) -> tuple[int, np.ndarray]:
    """``(low, tail)`` of a motif's window score under ``background`` (4 frequencies or a
    :class:`seqimp.background.SiteBackground`): :func:`score_pvalues` of its
    :func:`score_matrix`, or the Markov chain's exact null (:mod:`._context_scores`)."""
    if _is_markov(background):
        from .._context_scores import context_pvalues, context_table

        return context_pvalues(context_table(_pwm(motif), background, pseudocount=pseudocount, scale=SCALE),
                               background)
    background = background.letters if hasattr(background, "letters") else background
    return score_pvalues(score_matrix(motif, background, pseudocount=pseudocount), background)


def scan_sequences(motifs, sequences, *, ids=None, background="uniform", threshold=1e-4, strand="both",
                   q_method="bh", pseudocount=PSEUDOCOUNT, min_scores=None) -> pd.DataFrame:
    """Every site of every motif in sequences of any lengths, with exact p-values and q-values.

    Parameters
    ----------
    motifs : Motif or sequence of Motif
    sequences : sequence of str, SequenceSet or ndarray of shape (n, L)
        Sequences of any lengths (strings); letters other than A, C, G, T/U make the
        windows that hold them unscored.
    ids : sequence of str, optional
        One per sequence (default: the SequenceSet's ids, else ``seq1, seq2, ...``).
    background : {"uniform", "sequences"}, array-like of shape (4,) or SiteBackground, default="uniform"
        The null letter frequencies (``"sequences"``: those of the scanned sequences, both
        strands), or a Markov background of order 0..2
        (:class:`seqimp.background.SiteBackground`, e.g. a MEME background file read by
        :func:`seqimp.background._site_background.read_bfile`): scores are then log-likelihood ratios against
        it and p-values exact under it (:mod:`seqimp.motifs._context_scores`).
    threshold : float, default=1e-4
        Report windows with p-value <= threshold (0 < threshold <= 1).
    strand : {"both", "given"}, default="both"
    q_method : {"bh", "storey"}, default="bh"
    pseudocount : float, default=0.1
    min_scores : dict, optional
        Motif name -> a score (bits): that motif's windows scoring at least this are reported
        instead of those passing ``threshold`` (e.g. the ``scan_threshold`` of a ``seqimp
        motifs`` run's motifs.tsv, which 1% of its control sequences' best windows reach).

    Returns
    -------
    pandas.DataFrame
        One row per hit, columns :data:`HIT_COLUMNS`: ``motif`` (name), ``sequence`` (0-based
        index), ``id``, ``position`` (1-based, leftmost base of the site on the + strand),
        ``strand``, ``score`` (log2-odds, bits), ``p_value``, ``q_value``, ``matched`` (the
        site as read on its strand); sorted by motif (in the order given), p-value, sequence
        and position. ``attrs["tests"]``: windows scored per motif (all strands);
        ``attrs["background"]``: the frequencies used; ``attrs["pi0"]``: Storey's pi0 per motif.
    """
    motifs = _check_motifs(motifs)
    threshold = check_number(threshold, "threshold", low=0.0, high=1.0, low_open=True)
    q_method = check_choice(q_method, "q_method", Q_METHODS)
    pseudocount = check_number(pseudocount, "pseudocount", low=0.0)
    strands = _strands(strand)
    if ids is None:
        ids = getattr(sequences, "ids", None)
    codes, offsets = encode_any_length(sequences)
    n = offsets.size - 1
    ids = [f"seq{r + 1}" for r in range(n)] if ids is None else [str(i) for i in ids]
    if len(ids) != n:
        raise SeqimpError(f"{len(ids)} ids for {n} sequences")
    bg = background if _is_markov(background) else background_frequencies(background, codes)
    min_scores = {} if min_scores is None else dict(min_scores)
    tables, tests, pi0s = [], {}, {}
    for motif in motifs:
        table, tests[motif.name], pi0s[motif.name] = _scan_one(motif, codes, offsets, ids, bg, strands, threshold,
                                                               q_method, pseudocount, min_scores.get(motif.name))
        tables.append(table)
    hits = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=HIT_COLUMNS)
    letters = bg.letters if _is_markov(bg) else bg
    hits.attrs.update(tests=tests, background=letters.tolist(), pi0=pi0s)
    if _is_markov(bg):
        hits.attrs["background_order"] = bg.order
    return hits


def _scan_one(motif, codes, offsets, ids, bg, strands, threshold, q_method, pseudocount, min_score=None):
    expected = int(threshold * codes.size * len(strands) * 2) + 1024  # room for twice the hits expected by chance
    if _is_markov(bg):  # one table for both strands' reads, one null (:mod:`._context_scores`)
        from .._context_scores import context_hits, context_pvalues, context_table

        table = context_table(motif.pwm, bg, pseudocount=pseudocount, scale=SCALE)
        low, tail = context_pvalues(table, bg)
        tails = [(low, tail)] * len(strands)
        cut = pvalue_threshold(low, tail, threshold) if min_score is None else _score_units(min_score)
        seq, pos, strand, score, tests, above = context_hits(table, bg.order, codes, offsets, len(strands), cut,
                                                             pvalue_threshold(low, tail, _STOREY_LAMBDA), expected)
    else:
        mats = _strand_matrices(score_matrix(motif, bg, pseudocount=pseudocount), strands)
        tails = [score_pvalues(mat, bg) for mat in mats]
        thresholds = np.array([pvalue_threshold(low, tail, threshold) if min_score is None else
                               _score_units(min_score) for low, tail in tails], np.int64)
        lam = np.array([pvalue_threshold(low, tail, _STOREY_LAMBDA) for low, tail in tails], np.int64)
        seq, pos, strand, score, tests, above = _scan_kernel(codes, offsets, mats, thresholds, lam, expected)
    pvals = np.empty(seq.size)
    for s, (low, tail) in enumerate(tails):
        on = strand == s
        pvals[on] = tail[np.clip(score[on] - low, 0, tail.size - 1)]
    n_tests = int(tests.sum())
    q = _qvalues(pvals, n_tests)
    pi0 = min(1.0, above.sum() / (n_tests * (1 - _STOREY_LAMBDA))) if n_tests else 1.0
    if q_method == "storey":
        q = np.minimum(q * pi0, 1.0)
    m = motif.length
    matched = _site_texts(codes, offsets[seq] + pos, m, strand == 1)
    table = pd.DataFrame({"motif": motif.name, "sequence": seq, "id": [ids[r] for r in seq], "position": pos + 1,
                          "strand": [strands[s] for s in strand], "score": score / SCALE, "p_value": pvals,
                          "q_value": q, "matched": matched}, columns=HIT_COLUMNS)
    table = table.sort_values(["p_value", "sequence", "position", "strand"], kind="stable").reset_index(drop=True)
    return table, n_tests, pi0


def _score_units(bits) -> int:
    """A score in bits as the integer units of the scores (:data:`SCALE` per bit)."""
    return int(np.rint(float(bits) * SCALE))


def _qvalues(p, n_tests) -> np.ndarray:
    """Benjamini-Hochberg q-values of the smallest p-values ``p`` among ``n_tests`` tests (the
    others larger than every one of them), monotone, at most 1."""
    if p.size == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    ranked = p[order] * n_tests / np.arange(1, p.size + 1)
    ranked = np.minimum.accumulate(ranked[::-1])[::-1]
    q = np.empty_like(ranked)
    q[order] = np.minimum(ranked, 1.0)
    return q


def _site_texts(codes, starts, m, minus) -> list:
    """The sites as read on their strand: the letters of ``codes[start:start + m]`` for every start
    (shape (h,)), reverse-complemented where ``minus``; a list of h strings."""
    if starts.size == 0:
        return []
    window = codes[starts[:, None] + np.arange(m)[None, :]]
    window = np.where(minus[:, None], 3 - window[:, ::-1], window)
    letters = np.frombuffer(DNA_LETTERS.encode(), np.uint8)[window]
    return [row.tobytes().decode("ascii") for row in letters]
