"""Seed motifs of a position-free gapped-k-mer (gkm) classifier: its l-mer weights and per-base
attributions -> seed PWMs (:func:`gkm_seed_motifs`), which the refinement, sites and selection
that every motif search uses then take (:func:`seqimp.motifs.refine_motifs` with ``tune=True``,
:func:`seqimp.motifs.select_motifs`).

Seeds from the l-mer weights (:func:`lmer_seeds`, the route's default for l <= 12): the score of
every l-mer on its own (:meth:`~seqimp.kernels.GKMClassifier.lmer_scores`, the l-mer weights
gkm-SVM lists) as a robust z-score (median and 1.4826 MAD over all 4**l l-mers); the best l-mer
with ``z >= min_z`` (7: random sequences reach 4.7, a motif in 30% of 250-nt positives 9.7) is a
seed when at least ``min_occurrences`` (3) positives hold it (either strand: with both strands
counted, a palindrome such as TACAATTGTA holds SOX2's ACAAT on both and outscores the motif's
own words while no sequence holds it), its PWM the l-mer's core with ``pad`` uniform columns
on each side, each core column as pure as its letter matters to the model (``purity`` at the
column whose letter loses the most score when replaced, towards 1/4 where nothing is lost: the
EM's few iterations keep a seed's columns, and a column at full purity that the model ignores
stays a preference -- HNF1A's centre letter, uniform in the planted matrix, came out at 0.6-0.7
bit and passed 0.591-0.651 of the planted sites alone on fresh ``gen atac`` sets, 0.610-0.651 graded;
``graded``); then the next one that is not a variant of a seed (either
strand, shifted, overlapping it by at least l - 4 letters with at most a quarter of them
different), up to ``max_motifs``. Where the seed's word (either strand) lies in seqlets
(:func:`~seqimp.importance._gkmexplain.find_seqlets`), their starts give the seed's place and
spread, else its occurrences in the positives. Where no l-mer stands out (or l > 12), the words
of the seqlets seed instead (:func:`gkm_seeds`). The weights come first because they pool every
occurrence: with a motif in 30% of 250-nt positives (held-out auROC 0.51-0.57) the top l-mers
were all the motif's, while the seqlets' words were noise. The core (:func:`_core`) runs from
the first to the last column whose letter carries at least :data:`CORE_SHARE` (0.7) of the
largest column's score: with SOX2 anywhere in 250 nt the top word ATTCCATTGT has the core
CCATTGT, the motif's, where half the largest score kept the two T's before it (the tuned
motif's sites then covered 0.08 of the planted ones instead of 0.14). The refinement's EM runs
:data:`EM_ITERATIONS` iterations per fit: on that set, run to convergence from the exact motif
(TGTTTACA) over all 243 starts, the EM moved to G-rich low-complexity stretches of the
background (AGGCCCAGGGGGGAAGCC, not enriched held out), while 1-10 iterations kept the motif
(TGTAAACA, held-out p = 3e-13). Last, the PWM is tuned at the site threshold
(:func:`seqimp.motifs._tune.tune_pwm`, kept where more positives pass): the EM's
maximum-likelihood PWM of an 8-column motif puts the 1% threshold on its consensus word alone
(0.097 of FOXA2's planted sites there; 0.225 tuned).

Seeds from seqlets (:func:`gkm_seeds`): the words of length ``word`` in the seqlets of the positives
(:func:`seqimp.importance._gkmexplain.find_seqlets`), both strands counted as one, are
compared with their count in every window of the negatives scaled to the seqlets' size
(``z = (observed - expected) / sqrt(expected + 1)``). The best word's occurrences in the
seqlets, aligned on its strand with ``pad`` letters on each side, give the seed PWM
(position-free: its sites may start anywhere; ``start`` and ``spread`` describe where they
lie). The seqlets holding it are then set aside and the next word is taken, while it occurs in
at least ``min_seqlets`` seqlets with ``z >= min_z``, up to ``max_motifs`` seeds; a word that
overlaps an earlier seed's word by ``word - 2`` letters (either strand) is a shifted copy and
skipped.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from numba import njit, prange

from ..errors import SeqimpError
from ._copies import copied_motif
from ._motif import Motif
from ._sites import window_letter_counts

__all__ = ["gkm_seeds", "lmer_seeds", "gkm_seed_motifs", "GkmSeeds", "EM_ITERATIONS", "CORE_SHARE"]

logger = logging.getLogger(__name__)

#: EM iterations per fit of :func:`seqimp.motifs.refine_motifs` for the gkm seeds.
EM_ITERATIONS = 5

#: A seed l-mer's core: its columns from the first to the last whose letter carries at least this
#: share of the largest column's score (:func:`_core`).
CORE_SHARE = 0.7


@njit(cache=True, parallel=True)
def _word_codes_kernel(codes, m, fwd, rev):
    """Rolling m-mer indices of every row (:func:`_word_codes`): the index drops its first letter
    and takes the next; the reverse complement's the other way round. A run of known letters
    shorter than m (after an unknown base) gives ``4**m``."""
    n, L = codes.shape
    size = 4 ** m
    top = 4 ** (m - 1)
    for i in prange(n):
        f = 0
        r = 0
        run = 0
        for p in range(L):
            x = np.int64(codes[i, p])
            if x > 3:
                run = 0
                f = 0
                r = 0
            else:
                run += 1
                f = (f * 4 + x) % size
                r = r // 4 + (3 - x) * top
            if p >= m - 1:
                j = p - m + 1
                if run >= m:
                    fwd[i, j] = f
                    rev[i, j] = r
                else:
                    fwd[i, j] = size
                    rev[i, j] = size


def _word_codes(codes, m):
    """Index of every m-mer window, shape (n, L - m + 1), and of its reverse complement; a window
    covering an unknown base (code 4, N) is no word: ``4**m`` in both (one past every word's
    index; :func:`word_counts` leaves it out)."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    n, L = codes.shape
    fwd = np.empty((n, max(L - m + 1, 0)), dtype=np.int64)
    rev = np.empty_like(fwd)
    if fwd.size:
        _word_codes_kernel(codes, int(m), fwd, rev)
    return fwd, rev


@njit(cache=True)
def _rows_holding_kernel(words, size, counts):
    last = np.full(size, -1, dtype=np.int64)  # the last row that counted each word
    for i in range(words.shape[0]):
        for j in range(words.shape[1]):
            w = words[i, j]
            if w < size and last[w] != i:
                last[w] = i
                counts[w] += 1


def rows_holding(words, size):
    """Per word index ``0..size-1``, the number of rows of ``words`` (n, W), int, holding it (once
    per row), shape (size,) int64; the index ``size`` (no word: an unknown base) is not counted."""
    words = np.ascontiguousarray(words, dtype=np.int64)
    counts = np.zeros(int(size), dtype=np.int64)
    if words.size:
        _rows_holding_kernel(words, int(size), counts)
    return counts


def word_counts(words, m):
    """How often every m-mer index occurs in ``words`` (of :func:`_word_codes`): shape (4**m,),
    float; the windows covering an unknown base (index ``4**m``) are not counted."""
    return np.bincount(np.ravel(words), minlength=4 ** m + 1)[:4 ** m].astype(np.float64)


def _variant(a, b, least=None, share=0.25):
    """Whether word ``a`` is a variant of ``b`` (either strand): overlapping it, shifted or not, by
    at least ``least`` letters (default ``len(a) - 4``, at least 4) of which at most ``share``
    differ (0: a shifted copy)."""
    comp = str.maketrans("ACGT", "TGCA")
    least = max(len(a) - 4, 4) if least is None else least
    for o in (b, b.translate(comp)[::-1]):
        for d in range(-(len(a) - least), len(o) - least + 1):
            lo, hi = max(0, d), min(len(o), d + len(a))
            if hi - lo >= least and sum(x != y for x, y in zip(o[lo:hi], a[lo - d:hi - d])) <= share * (hi - lo):
                return True
    return False


def round_named(seeds, candidates, round):
    """Seeds of a later round of explaining away named ``round<r>_<name>`` (round 1: as they are),
    in ``seeds`` (returned) and in the ``name`` column of ``candidates`` (changed in place, which
    gains ``round``)."""
    if round > 1:
        seeds = [replace(m, name=f"round{round}_{m.name}") for m in seeds]
        candidates["name"] = [f"round{round}_{n}" for n in candidates["name"]]
    candidates["round"] = round
    return seeds


def _column_loss(scores, idx, l):
    """Per column of l-mer ``idx``: the score lost when its letter is replaced (mean over the
    three others). Shape (l,)."""
    loss = np.empty(l)
    for j in range(l):
        step = 4 ** (l - 1 - j)
        letter = (idx // step) % 4
        others = [idx + (b - letter) * step for b in range(4) if b != letter]
        loss[j] = scores[idx] - scores[others].mean()
    return loss


def _core(scores, idx, l, share=0.5):
    """The columns of l-mer ``idx`` that carry its score (:func:`_column_loss`): the core runs
    from the first to the last column with at least ``share`` of the largest loss. Returns
    ``(lo, hi)``, 0-based half-open."""
    loss = _column_loss(scores, idx, l)
    keep = np.flatnonzero(loss >= share * loss.max())
    return int(keep[0]), int(keep[-1]) + 1


def lmer_seeds(model, seqlets, positive, *, max_motifs=3, min_z=7.0, pad=2, purity=0.7, min_occurrences=3,
               graded=True, exclude=()):
    """Seed motifs from a fitted GKMClassifier's l-mer scores (see the module docstring).

    Parameters
    ----------
    model : GKMClassifier
        Fitted, ``word_length <= 12``.
    seqlets : DataFrame
        Of :func:`~seqimp.importance._gkmexplain.find_seqlets` on ``positive``.
    positive : ndarray of shape (n, L), uint8
    max_motifs, min_z, pad, purity, min_occurrences
        As in the module docstring.
    graded : bool, default=True
        A core column's purity is ``1/4 + (purity - 1/4) * loss / max loss`` (its letter's
        loss, :func:`_column_loss`, over the largest of the core): as pure as the model's
        weights say its letter matters. False: ``purity`` at every core column.
    exclude : sequence of Motif
        Motifs reported in earlier rounds: an l-mer whose seed copies one of them
        (:func:`seqimp.motifs._copies.same_motif`, either strand) is skipped, and so are its
        variants, and the next l-mer takes its place; ``candidates.attrs["copies"]`` lists them
        (``"WORD (motif2)"``).

    Returns
    -------
    seeds : list of Motif
        ``position_free=True``, named ``gkm1, gkm2, ...``; ``score`` is the robust z.
    candidates : DataFrame
        One row per seed: ``name, word, z, seqlets`` (seqlets holding the word on either strand),
        ``occurrences`` (positives holding it) (``motif_candidates.tsv``).
    """
    from ..io import kmer_string

    l = int(model.word_length)
    n, L = positive.shape
    scores = model.lmer_scores()
    med = np.median(scores)
    mad = 1.4826 * np.median(np.abs(scores - med))
    columns = ["name", "word", "core", "z", "seqlets", "occurrences"]
    if not mad > 0 or L < l + 2 * pad:
        return [], pd.DataFrame(columns=columns)
    z = (scores - med) / mad
    fwd, rev = _word_codes(positive, l)
    seeds, rows, used, skipped = [], [], [], []
    above = np.flatnonzero(z >= min_z)  # the l-mers a seed may come from, best first (ties: lower index)
    for idx in above[np.argsort(-z[above], kind="stable")]:
        if len(seeds) >= max_motifs:
            break
        word = kmer_string(int(idx), l)
        if any(_variant(word, u) for u in used):
            continue
        hit = (fwd == idx) | (rev == idx)
        if hit.any(axis=1).sum() < min_occurrences:  # a word the data hardly hold (a palindrome
            continue                                 # that joins the motif's two strands)
        used.append(word)
        core = _core(scores, int(idx), l, share=CORE_SHARE)
        in_seqlets = [int(j) for s in seqlets.itertuples()
                      for j in np.flatnonzero(hit[s.sequence, s.start:max(s.end - l + 1, s.start)]) + s.start]
        starts = np.array(in_seqlets or list(np.nonzero(hit)[1]) or [(L - l) // 2], dtype=float)
        lo, hi = core
        pwm = np.full((hi - lo + 2 * pad, 4), 0.25)
        # a core column is as pure as its letter matters to the model: purity at the column
        # that loses the most when its letter is replaced, towards 1/4 where nothing is lost
        loss = np.clip(_column_loss(scores, int(idx), l)[lo:hi], 0.0, None)
        pure = 0.25 + (purity - 0.25) * (loss / loss.max() if graded and loss.max() > 0 else np.ones_like(loss))
        pwm[pad:pad + hi - lo] = ((1 - pure) / 3)[:, None]
        pwm[pad + np.arange(hi - lo), ["ACGT".index(c) for c in word[lo:hi]]] = pure
        start = int(min(max(round(float(np.median(starts))) + lo - pad, 0), L - pwm.shape[0])) + 1
        seed = Motif(f"gkm{len(seeds) + 1}", pwm, start=start, spread=float(starts.std()), score=float(z[idx]),
                     position_free=True)
        copied = copied_motif(seed, exclude)
        if copied is not None:  # explained away already
            skipped.append(f"{word} ({copied.name})")
            continue
        seeds.append(seed)
        rows.append({"name": seed.name, "word": word, "core": word[lo:hi], "z": float(z[idx]),
                     "seqlets": len(in_seqlets), "occurrences": int(hit.any(axis=1).sum())})
    table = pd.DataFrame(rows, columns=columns)
    table.attrs["copies"] = skipped  # the words left out as copies of ``exclude``, "WORD (motif)"
    return seeds, table


def gkm_seeds(seqlets, positive, negative, *, word=6, pad=3, max_motifs=3, min_seqlets=5, min_z=4.0):
    """Seed motifs from seqlets (see the module docstring).

    Parameters
    ----------
    seqlets : DataFrame
        Of :func:`~seqimp.importance._gkmexplain.find_seqlets` on the positives.
    positive, negative : ndarray of shape (n, L), (m, L), uint8
    word, pad, max_motifs, min_seqlets, min_z
        As in the module docstring.

    Returns
    -------
    seeds : list of Motif
        ``position_free=True``, named ``gkm1, gkm2, ...``; ``score`` is z.
    candidates : DataFrame
        One row per seed: ``name, word, seqlets, expected, z`` (``motif_candidates.tsv``).
    """
    from ..io import kmer_string

    L = positive.shape[1]
    if L < word + 2 * pad:
        raise SeqimpError(f"sequences of length {L} are too short for seeds of {word} letters and {pad} flanks")
    pf, pr = _word_codes(positive, word)
    canon_p = np.minimum(pf, pr)
    nf, nr = _word_codes(negative, word)
    neg_counts = word_counts(np.minimum(nf, nr), word)
    neg_windows = max(neg_counts.sum(), 1.0)  # the negatives' windows that are words (no unknown base)
    # the word windows that lie inside each seqlet
    rows = []
    for s in seqlets.itertuples():
        hi = min(s.end - word + 1, L - word + 1)
        for j in range(s.start, max(hi, s.start)):
            rows.append((s.Index, s.sequence, j))
    if not rows:
        return [], pd.DataFrame(columns=["name", "word", "seqlets", "expected", "z"])
    occ = np.array(rows, dtype=np.int64)
    words = canon_p[occ[:, 1], occ[:, 2]]
    active = np.ones(len(seqlets), dtype=bool)
    seeds, table, used = [], [], []
    while len(seeds) < max_motifs:
        live = active[occ[:, 0]]
        if not live.any():
            break
        # a word counts once per seqlet
        pairs = np.unique(np.stack([occ[live, 0], words[live]], axis=1), axis=0)
        observed = word_counts(pairs[:, 1], word)
        expected = neg_counts / neg_windows * live.sum()
        z = (observed - expected) / np.sqrt(expected + 1.0)
        z[observed < min_seqlets] = -np.inf
        chosen = None
        for best in np.argsort(-z, kind="stable"):
            if not z[best] >= min_z:
                break
            text = kmer_string(int(best), word)
            if not any(_variant(text, u, least=word - 2, share=0.0) for u in used):
                chosen = int(best)
                break
            active[np.unique(pairs[pairs[:, 1] == best, 0])] = False  # a copy's seqlets are its seed's
        if chosen is None:
            break
        text = kmer_string(chosen, word)
        hits = live & (words == chosen)
        counts = np.ones((word + 2 * pad, 4))  # one pseudocount letter per column
        starts, rows, forward = [], [], []
        seen = set()
        for k, i, j in occ[hits]:
            if k in seen:
                continue
            seen.add(k)
            lo = j - pad
            if lo < 0 or j + word + pad > L:
                continue
            starts.append(lo)
            rows.append(i)
            forward.append(pf[i, j] == chosen)
        if not starts:
            active[list(seen)] = False
            continue
        counts += window_letter_counts(positive, rows, starts, counts.shape[0], ~np.asarray(forward, dtype=bool))
        used.append(text)
        mean = float(np.mean(starts))
        start = int(min(max(round(float(np.median(starts))), 0), L - counts.shape[0])) + 1
        name = f"gkm{len(seeds) + 1}"
        seeds.append(Motif(name, counts / counts.sum(axis=1, keepdims=True), start=start,
                           spread=float(np.sqrt(np.mean((np.array(starts) - mean) ** 2))), score=float(z[chosen]),
                           position_free=True))
        table.append({"name": name, "word": text, "seqlets": int(observed[chosen]),
                      "expected": float(expected[chosen]), "z": float(z[chosen])})
        active[list(seen)] = False
    return seeds, pd.DataFrame(table, columns=["name", "word", "seqlets", "expected", "z"])


@dataclass
class GkmSeeds:
    """The seeds of :func:`gkm_seed_motifs`.

    Attributes
    ----------
    seeds : list of Motif
        Position-free seed PWMs, named ``gkm1, ...`` (``round<r>_gkm1, ...`` after round 1).
    candidates : DataFrame
        One row per seed (``motif_candidates.tsv``), with ``round``.
    seqlets : DataFrame
        The seqlets of the positives (empty without attributions), ``attrs["threshold"]``.
    positive_attr, negative_attr : ndarray of shape (n, L), or None
        Per-base attributions (None without them).
    """

    seeds: list
    candidates: pd.DataFrame
    seqlets: pd.DataFrame
    positive_attr: np.ndarray | None = None
    negative_attr: np.ndarray | None = None


def gkm_seed_motifs(model, positive, negative, *, max_motifs=3, round=1, seqlets=True, seqlet_quantile=0.9,
                    strand="given", exclude=()) -> GkmSeeds:
    """Seed motifs of a fitted :class:`~seqimp.kernels.GKMClassifier` (module docstring): the
    attributions of positives and negatives and their seqlets (``seqlets=True``), then seeds from
    the l-mer weights (:func:`lmer_seeds`, l <= 12), else from the seqlets' words
    (:func:`gkm_seeds`). ``seqlets=False`` (the later rounds of explaining away): no attributions
    and no seqlets, seeds from the l-mer weights only -- a word the retrained model's weights
    single out, or nothing: on 120 positives the seqlets' words of a second round seeded a noise
    motif (sites in 42 positives and 1 negative once tuned, held-out p = 0.025). ``strand``: the
    strand of the search, for a hint in the log only.

    Returns
    -------
    GkmSeeds
    """
    from ..importance import find_seqlets, gkm_attributions

    width = int(model.word_length)
    pos_attr = neg_attr = None
    if seqlets:
        pos_attr = gkm_attributions(model, positive)
        neg_attr = gkm_attributions(model, negative)
        found = find_seqlets(pos_attr, neg_attr, width=width, quantile=seqlet_quantile)
        logger.info(f"{len(found)} seqlets of {width} bases in {found['sequence'].nunique()} positives "
                    f"(attribution above {found.attrs['threshold']:.3g}, the {seqlet_quantile:g} quantile of the "
                    "negatives' best windows)")
    else:
        found = pd.DataFrame(columns=["sequence", "start", "end", "score"])
        found.attrs["threshold"] = float("nan")
    seeds, candidates = [], pd.DataFrame(columns=["name", "word", "core", "z", "seqlets", "occurrences"])
    if model.word_length <= 12:
        seeds, candidates = lmer_seeds(model, found, positive, max_motifs=max_motifs, exclude=exclude)
        copies = candidates.attrs.pop("copies", [])
        if copies:
            logger.info(f"{len(copies)} l-mer(s) of the model left out as copies of motifs already reported: "
                        + ", ".join(copies) + (f" (round {round})" if round > 1 else ""))
    if seeds:
        logger.info(f"{len(seeds)} seed(s) from the model's l-mer weights: " + ", ".join(candidates["word"])
                    + (f" (round {round})" if round > 1 else ""))
    elif seqlets:  # no l-mer stands out (or l > 12): the words of the seqlets
        seeds, candidates = gkm_seeds(found, positive, negative, max_motifs=max_motifs)
    seeds = round_named(seeds, candidates, round)
    if strand == "given" and model.reverse_complement and seeds:
        logger.info("hint: the gkm model counts both strands; --strand both finds the sites of its motifs on "
                    "either strand")
    return GkmSeeds(seeds, candidates, found, pos_attr, neg_attr)
