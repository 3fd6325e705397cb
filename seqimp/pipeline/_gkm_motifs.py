"""The motif step of the position-free (gkm) route: a gapped-k-mer classifier's l-mer weights and
per-base attributions -> seeds -> the refinement, sites and selection that every motif run uses
(:func:`seqimp.motifs.refine_motifs`, :func:`seqimp.motifs.select_motifs`).

Seeds from the l-mer weights (:func:`lmer_seeds`, the route's default for l <= 12): the score of
every l-mer on its own (:meth:`~seqimp.kernels.GKMClassifier.lmer_scores`, the l-mer weights
gkm-SVM lists) as a robust z-score (median and 1.4826 MAD over all 4**l l-mers); the best l-mer
with ``z >= min_z`` (7: random sequences reach 4.7, a motif in 30% of 250-nt positives 9.7) is a
seed when at least ``min_occurrences`` (3) positives hold it (either strand: with both strands
counted, a palindrome such as TACAATTGTA holds SOX2's ACAAT on both and outscores the motif's
own words while no sequence holds it), its PWM the l-mer's core at ``purity`` with ``pad``
uniform columns on each side; then the next one that is not a variant of a seed (either
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
(:func:`seqimp.pipeline._gkm_refine.tune_pwm`, kept where more positives pass): the EM's
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

import numpy as np
import pandas as pd

from ..errors import SeqimpError

__all__ = ["gkm_seeds", "lmer_seeds", "find_gkm_motifs", "attribution_result"]

logger = logging.getLogger(__name__)

#: EM iterations per fit of :func:`seqimp.motifs.refine_motifs` for the gkm seeds.
EM_ITERATIONS = 5

#: A seed l-mer's core: its columns from the first to the last whose letter carries at least this
#: share of the largest column's score (:func:`_core`).
CORE_SHARE = 0.7


def _word_codes(codes, m):
    """Index of every m-mer window, shape (n, L - m + 1), and of its reverse complement."""
    n, L = codes.shape
    fwd = np.zeros((n, L - m + 1), dtype=np.int64)
    rev = np.zeros_like(fwd)
    for j in range(m):
        fwd = fwd * 4 + codes[:, j:L - m + 1 + j]
        rev = rev + (3 - codes[:, j:L - m + 1 + j].astype(np.int64)) * 4 ** j
    return fwd, rev


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


def _core(scores, idx, l, share=0.5):
    """The columns of l-mer ``idx`` that carry its score: a column's weight is the score lost when
    its letter is replaced (mean over the three others); the core runs from the first to the last
    column with at least ``share`` of the largest weight. Returns ``(lo, hi)``, 0-based half-open."""
    loss = np.empty(l)
    for j in range(l):
        step = 4 ** (l - 1 - j)
        letter = (idx // step) % 4
        others = [idx + (b - letter) * step for b in range(4) if b != letter]
        loss[j] = scores[idx] - scores[others].mean()
    keep = np.flatnonzero(loss >= share * loss.max())
    return int(keep[0]), int(keep[-1]) + 1


def lmer_seeds(model, seqlets, positive, *, max_motifs=3, min_z=7.0, pad=2, purity=0.7, min_occurrences=3):
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

    Returns
    -------
    seeds : list of Motif
        ``position_free=True``, named ``gkm1, gkm2, ...``; ``score`` is the robust z.
    candidates : DataFrame
        One row per seed: ``name, word, z, seqlets`` (seqlets holding the word on either strand),
        ``occurrences`` (positives holding it) (``motif_candidates.tsv``).
    """
    from ..io import kmer_string
    from ..motifs import Motif

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
    seeds, rows, used = [], [], []
    for idx in np.argsort(-z, kind="stable"):
        if not z[idx] >= min_z or len(seeds) >= max_motifs:
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
        pwm[pad:pad + hi - lo] = (1 - purity) / 3
        pwm[pad + np.arange(hi - lo), ["ACGT".index(c) for c in word[lo:hi]]] = purity
        start = int(min(max(round(float(np.median(starts))) + lo - pad, 0), L - pwm.shape[0])) + 1
        name = f"gkm{len(seeds) + 1}"
        seeds.append(Motif(name, pwm, start=start, spread=float(starts.std()), score=float(z[idx]),
                           position_free=True))
        rows.append({"name": name, "word": word, "core": word[lo:hi], "z": float(z[idx]),
                     "seqlets": len(in_seqlets), "occurrences": int(hit.any(axis=1).sum())})
    return seeds, pd.DataFrame(rows, columns=columns)


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
    from ..motifs import Motif

    L = positive.shape[1]
    if L < word + 2 * pad:
        raise SeqimpError(f"sequences of length {L} are too short for seeds of {word} letters and {pad} flanks")
    pf, pr = _word_codes(positive, word)
    canon_p = np.minimum(pf, pr)
    nf, nr = _word_codes(negative, word)
    neg_counts = np.bincount(np.minimum(nf, nr).ravel(), minlength=4 ** word).astype(np.float64)
    neg_windows = nf.size
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
        observed = np.bincount(pairs[:, 1], minlength=4 ** word).astype(np.float64)
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
        starts = []
        seen = set()
        for k, i, j in occ[hits]:
            if k in seen:
                continue
            seen.add(k)
            forward = pf[i, j] == chosen
            lo = j - pad
            if lo < 0 or j + word + pad > L:
                continue
            window = positive[i, lo:j + word + pad]
            if not forward:
                window = 3 - window[::-1]
            counts[np.arange(window.size), window] += 1
            starts.append(lo)
        if not starts:
            active[list(seen)] = False
            continue
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


def attribution_result(model, positive, positive_attr, negative_attr):
    """The gkm route's importance as a :class:`~seqimp.importance.POIMResult` of order 1: the mean
    attribution of each letter at each position over the positives
    (:func:`~seqimp.importance._gkmexplain.attribution_profile`; ``poim`` and ``firm`` both hold
    it), for the importance logo of the motif files. ``expected_score``/``score_std``: the mean
    and standard deviation of the decision values of all sequences (each sequence's
    attributions sum to its decision value minus the intercept)."""
    from ..importance import POIMResult
    from ..importance._gkmexplain import attribution_profile

    profile = attribution_profile(positive_attr, positive)
    scores = np.concatenate([positive_attr.sum(axis=1), negative_attr.sum(axis=1)]) + model.intercept_
    return POIMResult([profile], [profile.copy()], expected_score=float(scores.mean()),
                      score_std=float(scores.std()), method="gkmexplain (mean attribution per position and letter)",
                      meta={"model": "gkm", "word_length": int(model.word_length),
                            "informative": int(model.informative)})


def find_gkm_motifs(model, sequences, *, options, seqlet_quantile=0.9, round=1, accepted=(), match=True,
                    random_state=None, seqlets=True):
    """The motifs of a fitted :class:`~seqimp.kernels.GKMClassifier` on the run's sequences:
    attributions of positives and negatives, seqlets, seeds (:func:`lmer_seeds`, else
    :func:`gkm_seeds`), then :func:`seqimp.motifs.refine_motifs` (a few EM iterations, then the
    discriminative tuning of :func:`seqimp.pipeline._gkm_refine.tune_pwm`) and
    :func:`seqimp.motifs.select_motifs` with ``options`` (:class:`MotifOptions`: strand, fpr,
    p-value cuts, ``max_motifs`` (default 3 seeds), database), as
    :func:`~seqimp.pipeline.find_motifs` does for a POIM.

    ``round``, ``accepted``, ``match``: as :func:`~seqimp.pipeline.find_motifs`' (a later round
    of explaining away, :func:`gkm_explain_away`: seeds named ``round2_gkm1, ...``, motifs
    numbered on from ``accepted``, copies of them merged into them); ``random_state`` seeds the
    composition controls. ``seqlets=False`` (the later rounds): no attributions and no seqlets,
    seeds from the l-mer weights only and no ``result`` -- a word the retrained model's weights
    single out, or nothing: on 120 positives the seqlets' words of a round 2 seeded a noise
    motif (sites in 42 positives and 1 negative once tuned, held-out p = 0.025).

    Returns
    -------
    MotifRun
        Position-free motifs; ``result`` is :func:`attribution_result`; ``candidates`` the seeds.
    """
    from dataclasses import replace

    from ..importance._gkmexplain import find_seqlets, gkm_attributions
    from ..motifs import database_info, refine_motifs, select_motifs
    from ._gkm_refine import tune_pwm
    from ._motifs import MotifRun, _empty_sites, _empty_stats, motif_matches, with_database_loaded

    options = with_database_loaded(options)
    pos, neg = sequences.positive, sequences.negative
    if pos is None or neg is None:
        raise SeqimpError("the gkm motifs are refined on positive and negative sequences: give both")
    width = int(model.word_length)
    use_seqlets = seqlets
    if use_seqlets:
        pos_attr = gkm_attributions(model, pos)
        neg_attr = gkm_attributions(model, neg)
        seqlets = find_seqlets(pos_attr, neg_attr, width=width, quantile=seqlet_quantile)
        logger.info(f"{len(seqlets)} seqlets of {width} bases in {seqlets['sequence'].nunique()} positives "
                    f"(attribution above {seqlets.attrs['threshold']:.3g}, the {seqlet_quantile:g} quantile of the "
                    "negatives' best windows)")
    else:
        seqlets = pd.DataFrame(columns=["sequence", "start", "end", "score"])
        seqlets.attrs["threshold"] = float("nan")
    most = options.max_motifs or 3
    seeds, candidates = [], pd.DataFrame(columns=["name", "word", "core", "z", "seqlets", "occurrences"])
    if model.word_length <= 12:
        seeds, candidates = lmer_seeds(model, seqlets, pos, max_motifs=most)
    if seeds:
        logger.info(f"{len(seeds)} seed(s) from the model's l-mer weights: " + ", ".join(candidates["word"])
                    + (f" (round {round})" if round > 1 else ""))
    elif use_seqlets:  # no l-mer stands out (or l > 12): the words of the seqlets
        seeds, candidates = gkm_seeds(seqlets, pos, neg, max_motifs=most)
    if round > 1:
        seeds = [replace(m, name=f"round{round}_{m.name}") for m in seeds]
        candidates["name"] = [f"round{round}_{n}" for n in candidates["name"]]
    candidates["round"] = round
    if options.strand == "given" and model.reverse_complement and seeds:
        logger.info("hint: the gkm model counts both strands; --strand both finds the sites of its motifs on "
                    "either strand")
    motifs, stats, sites = [], _empty_stats(), _empty_sites()
    if seeds:
        logger.info(f"refining {len(seeds)} position-free seed(s) on the sequences (EM, strand {options.strand}, "
                    "then tuned at the site threshold)")
        # the EM stays near the model's motif: run to convergence over every start of long
        # sequences, it drifts to low-complexity stretches of the background (module docstring)
        refined = refine_motifs(seeds, pos, neg, strand=options.strand, fpr=options.fpr, ids=sequences.ids,
                                max_iter=EM_ITERATIONS, tune=tune_pwm, random_state=random_state)
        selected = select_motifs(refined, max_pvalue=options.max_pvalue,
                                 max_held_out_pvalue=options.max_held_out_pvalue, strands=options.strand,
                                 first_number=len(accepted) + 1, accepted=accepted)
        motifs, stats, sites = selected.motifs, selected.stats, selected.sites
        stats["round"] = round
    elif use_seqlets:
        logger.info("no seed word is enriched in the seqlets; no gkm motif")
    else:
        logger.info(f"round {round}: no l-mer of the retrained model stands out; no further gkm motif")
    parameters = {"strand": options.strand, "fpr": options.fpr, "max_pvalue": options.max_pvalue,
                  "max_held_out_pvalue": options.max_held_out_pvalue, "max_motifs": options.max_motifs,
                  "rounds": options.rounds, "seqlets": int(len(seqlets)),
                  "seqlet_threshold": float(seqlets.attrs["threshold"]), "database": database_info(options.database)}
    result = attribution_result(model, pos, pos_attr, neg_attr) if use_seqlets else None
    run = MotifRun(motifs, None, candidates, result=result, stats=stats, sites=sites, coords=sequences.coords,
                   parameters=parameters)
    if match:
        run.matches = motif_matches(run, options)
    return run


def gkm_explain_away(run, sequences, *, model, options, random_state=None, fitted=None):
    """Rounds 2, 3, ... of the gkm route (up to ``options.rounds``), as the WD route's
    (:func:`seqimp.pipeline.run_motifs`): the sites of the motifs the last round reported are
    erased in the positives and negatives (:func:`seqimp.motifs._sites.mask_sites`), a gkm
    model is trained again on what is left (:func:`~seqimp.pipeline._model_route.train_gkm`,
    ``model``'s l, k and C, no held-out split) and its motifs found (:func:`find_gkm_motifs`),
    until a round reports no new motif. ``run``: the first round's; returns it with the motifs,
    statistics, sites and candidates of all rounds joined and matched to ``options.database``.
    ``fitted``: the first round's GKMClassifier; each round's fit starts from the previous
    round's dual variables (the sequences are the same but for the erased sites).
    """
    from dataclasses import replace

    from ._motif_run import _rounds
    from ._motifs import motif_matches
    from ._model_route import train_gkm

    previous = [fitted]

    def search(masked, number, accepted):
        X, y = masked.labelled()
        start = None if previous[0] is None else np.abs(previous[0].dual_coef_)
        gkm, _info = train_gkm(X, y, model=replace(model, test_fraction=0.0), random_state=random_state,
                               alpha_init=start)
        previous[0] = gkm
        return find_gkm_motifs(gkm, masked, options=options, round=number, accepted=accepted, match=False,
                               random_state=random_state, seqlets=False)

    if run.motifs and options.rounds >= 2:
        run = _rounds(run, sequences, model=model, background=None, importance=None, motifs=options,
                      random_state=random_state, progress=False, search=search)
    run.matches = motif_matches(run, options)
    return run
