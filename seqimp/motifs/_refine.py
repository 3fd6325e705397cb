"""Motifs refined on the sequences: EM (ZOOPS) within the motif's window, calibrated sites.

A POIM fixes a motif's consensus, position and letter preferences, but hardly its
sharpness (an SVM's score has no natural unit), and it mixes the two orientations of a motif
planted on both strands. With the sequences at hand, :func:`refine_motifs` re-estimates every
motif from its sites:

1. **EM, zero or one occurrence per sequence (ZOOPS).** The motif's PWM, padded with ``pad``
   uniform columns on each side and sharpened to ``seed_ic`` bits per column on average, may
   sit at any start within ``start ± (2·spread + flank)`` (every start for a position-free
   motif), on the given strand or, with ``strand="both"``, on either. Each sequence holds one
   site with probability gamma, its place uniform over the window and strands. The E-step
   gives every place its posterior probability; the M-step sets every column to the
   posterior-weighted letter counts plus ``pseudocount`` letters spread as the background
   (the negatives' letter frequencies; the positives' with ``em_letters="positives"``, as
   the deeper search fits its candidates), and gamma to the mean posterior mass. Iterated to
   convergence; the log-likelihood never decreases. For a depleted motif the roles of the
   positives and the negatives are swapped (its sites are in the negatives).
2. **Grow and trim.** While an end column is informative, ``pad`` more columns are added on
   that side and the EM runs again; then end columns that are not are trimmed. A column is
   informative when it carries ``min_ic`` bits relative to the background and its letters
   differ from the background significantly for the EM's expected number of sites (G-test,
   ``G = 2 n ln 2 IC``, 3 degrees of freedom, level ``alpha``): with a few dozen sites the EM
   finds a fraction of a bit in noise columns next to the motif. It must be so against both
   backgrounds: the negatives' letter frequencies (else it does not discriminate) and those
   of the sequences the sites sit in (else it is their composition, not the motif: the
   A/T-rich flanks of a bacterial -10 box against G/C-richer negatives).
3. **Window.** A position-free motif whose sites sit in a positional window is given that
   window (their median start ± (2·sd + ``flank``), sd from the interquartile range), kept
   only where it finds sites better held out, on the other half of the sequences, than every
   start does (:mod:`seqimp.motifs._placement`); it is then reported placed. While the sites
   at the outermost ``flank`` starts on a side of the window are enriched over the
   negatives' sites there (one-sided binomial test, level ``alpha``), the window grows by
   ``flank`` on that side (a motif whose start varies more than the POIM's placement said);
   when it grew, the EM runs once more on the wider window.
4. **Sites** (:mod:`seqimp.motifs._sites`). A sequence's motif score is its best log-odds
   window (``log2 PWM / background`` summed over the columns, both strands with
   ``strand="both"``) in the window. A positive whose best window scores above the threshold
   has a site; the threshold lets at most a share ``fpr`` of the negatives have one (where
   even the best possible score occurs in more negatives, as for a short position-free motif,
   the windows reaching that score are sites and the negatives' real share is reported). The
   written PWM is the EM's: the posterior-weighted letter counts plus the pseudocount (no exact
   zeros), the maximum-likelihood PWM of the ZOOPS model. Counting the letters of the sites above the threshold instead would
   select for the consensus (a window passes because it matches it) and sharpen the PWM -- to a
   one-hot where only exact matches pass, as for a short motif anywhere in long sequences. A
   site is never claimed by two motifs: places overlapping a site of a stronger motif are not
   counted -- of a stronger motif whose sites are enriched in the positives (direction
   enriched, and its p-value at most ``max_held_out_pvalue`` where given): a depleted motif's
   evidence is its absence from the positives, and a candidate that fails its p-value is not
   reported, so neither may take a reported motif's sites. On motif_benchmark_2/composite
   (ELK1 + 2 nt + RUNX1 in every positive, one half anywhere in each negative) the ELK1 half,
   depleted in the positives (the negatives carry it everywhere), came first and held the best
   windows of 182 positives, which the composite motif then lost (813 sites; 995 without).
5. **Held out.** The sites of step 4 sit in the sequences the EM was fitted to, where a
   motif always finds some: with a few dozen positives it can fit their composition or a
   chance pattern (an A/T-rich stretch of the 53 UCI promoters: sites in 15 positives and
   1 negative, p = 1e-4). So every motif is fitted again (steps 1-3) on half of the
   positives and negatives (sequence i in half i mod 2), its threshold calibrated on that
   half's negatives, and its sites counted in the other half; both ways, pooled, tested
   with Fisher's exact test (the same A/T stretch: 3 positives against 1 negative, p = 0.31).
6. **Composition.** A motif that only reflects the positives' letter and letter-pair
   composition (an A/T-rich stretch in A/T-richer positives) has as many sites in the
   positives' dinucleotide shuffles (:func:`seqimp.io.dinucleotide_shuffle`: every sequence's
   letter pairs kept, any motif destroyed) as in the positives themselves; the site counts are
   compared with Fisher's test at the same threshold (``log10_composition_p_value``), and
   :func:`seqimp.motifs.select_motifs` flags the motif as composition where they do not differ.

Every p-value is computed as its log10 (:func:`seqimp.motifs._stats.fisher_log10`): beside
``p_value`` (a float, 0 where it underflows) the ``log10_*`` columns stay exact.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .._utils.renamed import renamed_keywords
from ..errors import SeqimpError, check_choice, check_int, check_number, check_random_state
from ..io._check import check_sequences
from ._sites import best_site_scores, best_windows, has_site, site_threshold
from ._stats import fisher_log10, is_palindromic
from ._zoops_fit import FitOptions, fit_motif, held_out_sites, letter_frequencies

__all__ = ["MotifSites", "refine_motifs"]

STRANDS = ("given", "both")


@dataclass
class MotifSites:
    """Result of :func:`refine_motifs` (and of :func:`seqimp.motifs.select_motifs`, which keeps
    the enriched motifs of one).

    Attributes
    ----------
    motifs : list of Motif
        Refined motifs (same order as given, enriched or not; a position-free motif given a
        window in step 3 is placed: ``position_free`` False); ``sites`` = positives with a
        site, ``evalue`` = ``p_value`` times the number of motifs tested (``log10_evalue`` its
        log10, finite where ``evalue`` underflows).
    stats : pandas.DataFrame
        One row per motif: ``name, sites, positives, fraction_positive, negative_sites,
        fraction_negative, p_value`` (Fisher's exact test, one-sided in the motif's direction),
        ``log10_p_value`` (its log10, finite where ``p_value`` underflows to 0),
        ``plus_strand`` (share of sites on the given strand), ``palindromic`` (the PWM is its
        own reverse complement, :func:`seqimp.motifs._stats.is_palindromic`: the strand share
        says nothing), ``threshold`` (log2 odds score of the 1 - fpr quantile of the
        negatives), ``inclusive`` (sites reach the threshold rather than pass it),
        ``window_start, window_end`` (1-based first and last start searched),
        ``shuffled_sites, log10_composition_p_value`` (step 6; NaN for a depleted motif),
        ``taken_sites, taken_by`` (positives whose best window, places of stronger motifs'
        sites included, passes the threshold but lies on a site of a stronger motif; the name
        of the motif that took most of them, "" for none), with ``held_out``,
        ``held_out_sites, held_out_negative_sites`` (positives and negatives with a site under
        the PWM and threshold fitted on the other half, step 5), ``held_out_p_value`` and
        ``log10_held_out_p_value`` (their Fisher test, one-sided in the motif's direction;
        NaN with fewer than 2 positives or negatives), ``held_out_folds`` (the folds tested: 2,
        fewer where ``held_out_seed`` gave a fold no seed; NaN untested), and last ``strand``:
        the strands the sites were called on, ``"both"`` or ``"given"`` (with ``strand="both"``, an enriched motif
        whose sites lie on one strand, :func:`one_strand`, is called on that one and written in that
        orientation: ``plus_strand`` is then 1).
    sites : pandas.DataFrame
        One row per site in the positives: ``motif, sequence`` (0-based index), ``id``,
        ``position`` (1-based start of the written PWM's window), ``strand`` (``+``/``-``),
        ``score`` (log2 odds).
    scanning : list of Motif or None
        The PWMs for scanning whole sequences, one per motif, same names
        (:func:`seqimp.motifs.scanning_motifs`); None before that step.
    tests : pandas.DataFrame or None
        What :func:`seqimp.motifs.select_motifs` decided of every candidate it was given, one row
        each in their order: ``candidate`` (its name), ``consensus``, ``sites``, ``log10_p_value``,
        ``log10_held_out_p_value``, ``outcome`` (:data:`seqimp.motifs._select.OUTCOMES`) and ``motif``
        (the name it is reported under, or the motif it copies; "" for none); None before that step.
    """

    motifs: list
    stats: pd.DataFrame
    sites: pd.DataFrame
    scanning: list | None = None
    tests: pd.DataFrame | None = None


@renamed_keywords(held_out_max_pvalue="max_held_out_pvalue")
def refine_motifs(motifs, positive, negative, *, strand="given", pad=3, flank=3, fpr=0.01, pseudocount=1.0,
                  seed_ic=1.0, min_ic=0.15, alpha=1e-3, max_iter=100, tol=1e-7, max_grow=5, max_length=30,
                  ids=None, held_out=True, random_state=None, min_length=1, tune=False,
                  max_held_out_pvalue=None, em_letters="negatives", held_out_seed=None, keep_seed=False,
                  held_out_controls=0) -> MotifSites:
    """Refine motifs on the sequences (EM, ZOOPS) and find their sites (see the module docstring).

    Parameters
    ----------
    motifs : sequence of Motif
        Strongest first, each with a 1-based ``start`` (and ``spread``, ``position_free``,
        ``direction``), e.g. from :func:`seqimp.motifs.discover_motifs`.
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L)
    strand : {"given", "both"}, default="given"
        Sites on the given strand only, or on either strand.
    pad : int, default=3
        Uniform columns added on each side before the EM (room to grow).
    flank : int, default=3
    fpr : float, default=0.01
        Share of the negatives allowed to carry a site: the site threshold.
    pseudocount : float, default=1.0
        Letters added to every column, spread as the background (no exact zeros).
    seed_ic : float, default=1.0
        Mean information content (bits) the starting PWM is sharpened to.
    min_ic : float, default=0.15
        Bits relative to the background; an end column is informative (kept, and grown from)
        with at least this much information relative to the negatives' letter frequencies and
        to those of the sequences that hold the sites (the positives; the negatives for a
        depleted motif) ...
    alpha : float, default=1e-3
        ... and letter frequencies that differ from the background at this level for the EM's
        expected number of sites (G-test, 3 degrees of freedom): the G-test alone needs
        11.7 / n bits from n sites (0.59 bit from 20 sites, noise there; 0.03 bit from 400),
        and ``min_ic`` keeps faint columns of large site sets out. 0.15 bit keeps the T at
        intron position +6 of splice donors (0.16 bit over all 762 UCI donors).
    max_grow, max_length : int, default=5, 30
        While an end column of the EM's PWM is still informative, ``pad`` columns are added on
        that side and the EM runs again, at most ``max_grow`` times and up to ``max_length``
        columns.
    max_iter, tol :
        EM iterations and relative log-likelihood tolerance.
    min_length : int, default=1
        Narrowest motif: the kept columns are widened on both sides to at least this many
        (``max_length`` also cuts a wider motif to its most informative columns).
    ids : sequence of str, optional
        Positive sequence ids for the site table (default ``pos1, pos2, ...``).
    held_out : bool, default=True
        Also count each motif's sites out of sample (step 5 of the module docstring): the
        ``held_out_*`` columns of ``stats``.
    random_state : int, Generator or None
        Seed of the positives' dinucleotide shuffles (step 6; None: 0).
    max_held_out_pvalue : float or None, default=None
        (``MotifOptions``' name; the old keyword ``held_out_max_pvalue`` still works, with a DeprecationWarning.)
        With ``held_out``, refit held out only the motifs whose p-value (in the positives) is at
        most this; the others' ``held_out_*`` columns are NaN (not tested). A motif is reported
        only when both p-values pass (:func:`seqimp.motifs.select_motifs`), so one whose own
        p-value fails needs no held-out refits: they are two thirds of the EM work of a noise
        candidate; nor does it claim its sites' places (step 4). None: every motif is tested
        held out, and every enriched motif claims.
    tune : bool, default=False
        Replaces step 3 for an enriched motif, in the main fit and in every held-out fold, with
        the discriminative tuning of its PWM at the site threshold on the sequences of that fit
        (:func:`seqimp.motifs._tune.tune_pwm`; the gkm model's motifs use it).
    em_letters : {"negatives", "positives"}, default="negatives"
        The letter frequencies the EM (step 1) weighs a window against: the negatives' (the
        site scores' background), or those of the sequences the sites sit in (MEME's choice; the
        deeper search's candidates, :mod:`seqimp.motifs.search._depth`: in G/C-rich promoters
        against A/T-richer gene bodies every G/C-rich window beats the negatives' letters, and a
        CCAAT seed anywhere in the sequence drifts into a G/C run).
    held_out_seed : callable, optional
        ``held_out_seed(positives, negatives, motif) -> Motif or None``: the seed of each
        held-out fold's fit (step 5), chosen on the sequences that fold is fitted on, so that
        the held-out half plays no part in it (the deeper search's words,
        :func:`seqimp.motifs.search._depth.word_candidate`); where it returns None that fold's
        held-out sequences are left out of the test (no fold left: held-out p-value 1). A
        callable with an attribute ``choices`` picks its seed among that many made on the fold's
        fitting half: the held-out p-value is multiplied by ``choices`` for every fold tested
        (Bonferroni over the seeds it could have taken; at most 1).
        Default: every fold starts from the motif.
    keep_seed : bool, default=False
        The EM (step 1, and each held-out fold's) stops before an iteration whose PWM no longer
        holds its seed's core -- every column of the seed carrying at least a bit, with its
        letter, somewhere in the PWM (:func:`seqimp.motifs._copies.holds_core`). The deeper
        search's candidates are their words: in Klf1 and NFE2 peaks together, the EM from GATA's
        word AGATAA turned its T into the A of a GA repeat by the fifth iteration (AGAGAGAAAAGGA,
        then tuned to a C/T run matching no JASPAR motif), where the fourth still held GAGATAAG.
        The tuning (``tune``) is not held to the seed: it moves a letter where more positives
        than negatives' share pass (NFY's CCAATCA tuned to CCAATCG on the mouse promoters: 208
        sites where the untuned PWM had 127).

    held_out_controls : int, default=0
        With ``tune``, each held-out fold's tuning takes its threshold on the fold's negatives and
        this many dinucleotide shuffles of each (:func:`seqimp.motifs._zoops_fit.tuning_negatives`);
        its sites are still counted at the fold's negatives' own threshold, and the main fit is
        tuned on the negatives alone. At 1% of a few hundred negatives the tuning's threshold
        rests on a handful of them, which a long PWM learns: on Klf1 and NFE2 peaks together a
        fold's THAP11 PWM, tuned against 774 shuffles, let 7 of them pass and 43 of the 774
        held-out ones, and the motif failed its test (p = 0.083); the deeper search takes 4.

    Returns
    -------
    MotifSites
    """
    from ..io import dinucleotide_shuffle

    check_choice(strand, "strand", STRANDS)
    if not 0 < fpr < 1:
        raise SeqimpError(f"fpr must lie in (0, 1), got {fpr}")
    if not pseudocount > 0:
        raise SeqimpError(f"pseudocount must be > 0, got {pseudocount}")
    # a seed sharpened to 2 bits a column is one-hot: its zeros are -inf scores, every window ties
    check_number(seed_ic, "seed_ic", low=0.0, high=2.0, high_open=True)
    check_number(min_ic, "min_ic", low=0.0)
    check_number(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    check_number(tol, "tol", low=0.0)
    max_iter = check_int(max_iter, "max_iter", 1)  # no iteration: the padded seed's one best column
    pad, flank, max_grow = (check_int(v, name, 0) for v, name in ((pad, "pad"), (flank, "flank"),
                                                                  (max_grow, "max_grow")))
    max_length = check_int(max_length, "max_length", 1)
    min_length = check_int(min_length, "min_length", 1, max_length)
    # letter codes 0..3, 4 for an unknown base (no window covering one is a site): the kernels read bytes
    pos = check_sequences(positive, "positive", unknown=True).astype(np.uint8)
    neg = check_sequences(negative, "negative", unknown=True).astype(np.uint8)
    L = pos.shape[1]
    if neg.shape[1] != L:
        raise SeqimpError(f"positive sequences have length {L}, negative {neg.shape[1]}")
    ids = [f"pos{i + 1}" for i in range(len(pos))] if ids is None else list(ids)
    background = letter_frequencies(neg)
    positive_letters = letter_frequencies(pos)  # what a (non-depleted) motif's sites sit in
    check_choice(em_letters, "em_letters", ("negatives", "positives"))
    held_out_controls = check_int(held_out_controls, "held_out_controls", 0, 64)
    # the controls' seed, drawn only where they are made (a Generator's later draws unchanged otherwise)
    control_seed = int(check_random_state(random_state).integers(2 ** 31)) if tune and held_out_controls else 0
    opts = FitOptions(pad, flank, fpr, pseudocount, seed_ic, min_ic, alpha, max_iter, tol, max_grow, max_length,
                      min_length, tune, em_letters, held_out_seed, bool(keep_seed), held_out_controls, control_seed)
    strands = ("+", "-") if strand == "both" else ("+",)
    # composition-matched controls: the positives' dinucleotide shuffles (step 6)
    shuffled = dinucleotide_shuffle(pos, random_state=random_state) if len(pos) else pos
    owner = np.full(pos.shape, -1, dtype=np.intp)  # which stronger motif's site covers a position
    out, rows, site_rows = [], [], []
    for motif in motifs:
        if motif.start is None:
            raise SeqimpError(f"motif {motif.name}: refining on the sequences needs a start position")
        if motif.length > L:
            raise SeqimpError(f"motif {motif.name} (length {motif.length}) is longer than the sequences ({L})")
        depleted = motif.direction == "depleted"
        pwm, starts = fit_motif(motif, pos, neg, strands, background, positive_letters, opts)
        # the written PWM is the EM's (posterior-weighted letter counts plus the pseudocount):
        # recounting only the sites above the threshold would select for the consensus and
        # sharpen the PWM (to a one-hot where only exact matches pass)
        neg_best, threshold, inclusive, best, at, on, has = _called(pwm, pos, neg, starts, strands, background, fpr,
                                                                     owner >= 0)
        n_sites = int(has.sum())
        minus = int((has & (on == 1)).sum())
        pwm_flipped = strand == "both" and minus * 2 > n_sites
        if pwm_flipped:  # write the orientation most sites have
            pwm = pwm[::-1, ::-1].copy()
            on = 1 - on
            minus = n_sites - minus
        called, seed = strands, motif  # the strands its sites are called on, the seed of its fits
        # an enriched motif whose sites lie on one strand (not a palindrome: its strands are one)
        lone = strand == "both" and not depleted and not is_palindromic(pwm)
        if lone and _one_strand_sites(pwm, pos, starts, strands, background, threshold, inclusive, owner >= 0,
                                      n_sites - minus, n_sites):
            # its sites lie on one strand (now the given one): fitted again there, as --strand given
            # fits it (the EM on both strands drew half its evidence from windows of the strand
            # the motif never uses), from the seed turned to that strand, and called there, at the
            # threshold of the negatives' given strand alone; its held-out fits the same way
            called = ("+",)
            if pwm_flipped:
                seed = motif.reverse_complement()
            pwm, starts = fit_motif(seed, pos, neg, called, background, positive_letters, opts)
            neg_best, threshold, inclusive, best, at, on, has = _called(pwm, pos, neg, starts, called, background,
                                                                         fpr, owner >= 0)
            n_sites, minus = int(has.sum()), 0
        neg_sites = int(has_site(neg_best, threshold, inclusive).sum())
        side = "less" if depleted else "greater"
        log_p = fisher_log10(n_sites, len(pos) - n_sites, neg_sites, len(neg) - neg_sites, side)
        untested = max_held_out_pvalue is not None and not log_p <= _log10(max_held_out_pvalue)
        # not tested held out: a half without positives or negatives, or failing in the positives
        if held_out and (min(len(pos), len(neg)) < 2 or untested):
            held = {"held_out_sites": np.nan, "held_out_negative_sites": np.nan, "held_out_p_value": np.nan,
                    "log10_held_out_p_value": np.nan, "held_out_folds": np.nan}
        elif held_out:
            kept_pos, kept_neg, tested_pos, tested_neg, folds = held_out_sites(seed, pos, neg, called, opts)
            log_held = (fisher_log10(kept_pos, tested_pos - kept_pos, kept_neg, tested_neg - kept_neg, side)
                        if tested_pos and tested_neg else 0.0)  # no fold tested: p = 1
            # Bonferroni over the seeds each fold tested could have taken (``held_out_seed.choices``)
            log_held = min(log_held + folds * np.log10(getattr(held_out_seed, "choices", 1)), 0.0)
            held = {"held_out_sites": kept_pos, "held_out_negative_sites": kept_neg,
                    "held_out_p_value": 10.0 ** log_held, "log10_held_out_p_value": log_held, "held_out_folds": folds}
        else:
            held = {}
        where = at[has]
        if n_sites:
            start = int(np.sort(where)[(n_sites - 1) // 2]) + 1  # the median site start (1-based)
            spread = float(np.std(where))
        else:
            start, spread = motif.start, motif.spread
        # a position-free candidate given a window (step 3, ``concentrated_window``) is placed from now on
        placed = motif.position_free and starts.size < L - pwm.shape[0] + 1
        out.append(replace(motif, pwm=pwm, start=start, spread=spread, sites=n_sites,
                           position_free=motif.position_free and not placed))
        rows.append({"name": motif.name, "sites": n_sites, "positives": len(pos),
                     "fraction_positive": n_sites / len(pos), "negative_sites": neg_sites,
                     "fraction_negative": neg_sites / len(neg), "p_value": 10.0 ** log_p, "log10_p_value": log_p,
                     "plus_strand": (n_sites - minus) / n_sites if n_sites else float("nan"),
                     "palindromic": is_palindromic(pwm), "threshold": threshold, "inclusive": inclusive,
                     "window_start": int(starts[0]) + 1, "window_end": int(starts[-1]) + 1,
                     **_composition(pwm, pos, shuffled, starts, called, background, threshold, inclusive, depleted),
                     **_taken(pwm, pos, starts, called, background, threshold, inclusive, owner, out[:-1]),
                     **held, "strand": "both" if len(called) == 2 else "given"})
        # only a motif whose sites are enriched in the positives claims their places: a depleted
        # motif's evidence is in the negatives, and a candidate failing its p-value is not reported
        claims = not depleted and (max_held_out_pvalue is None or log_p <= _log10(max_held_out_pvalue))
        for i in np.flatnonzero(has):
            site_rows.append((motif.name, int(i), ids[i], int(at[i]) + 1, "+-"[int(on[i])], float(best[i])))
            if claims:
                owner[i, at[i]:at[i] + pwm.shape[0]] = len(out) - 1
    for m, r in zip(out, rows):  # Bonferroni over the motifs tested
        m.log10_evalue = min(r["log10_p_value"] + np.log10(len(out)), 0.0) if len(out) else np.nan
        m.evalue = 10.0 ** m.log10_evalue
    sites = pd.DataFrame(site_rows, columns=["motif", "sequence", "id", "position", "strand", "score"])
    return MotifSites(out, pd.DataFrame(rows), sites)


#: The level of the test that a motif's sites lie on one strand (:func:`one_strand`)
ONE_STRAND_PVALUE = 1e-3


def one_strand(plus, n, level=ONE_STRAND_PVALUE) -> bool:
    """Whether ``plus`` of ``n`` sites on one strand say that the sites lie on one strand: the
    two-sided binomial test of an even split (each site on either strand with probability
    1/2) rejects it at ``level``, ``2 P(X <= min(plus, n - plus)) <= level``, X ~ Bin(n, 1/2).
    At 1e-3 it takes 11 sites of 11, 14 of 15, 56 of 80. A motif whose sites lie on one strand
    (a splice site; a motif read on the RNA's strand) then has its sites counted on that strand
    alone, at the threshold of the negatives' same strand."""
    from scipy.stats import binom

    plus, n = int(plus), int(n)
    if n == 0:
        return False
    return bool(min(2.0 * binom.cdf(min(plus, n - plus), n, 0.5), 1.0) <= level)


def _one_strand_sites(pwm, pos, starts, strands, background, threshold, inclusive, claimed, plus, n):
    """Whether the sites of ``pwm`` (as written: most of them on its strand) lie on one strand
    (:func:`one_strand`), counted with the places of stronger motifs' sites open: a stronger
    motif that took the sites of one orientation (a composite's half placed on it) leaves the
    others on one strand, which says nothing of this motif. ``plus``, ``n``: the counts with
    those places closed, used where none is claimed."""
    if claimed.any():
        best, _at, on = best_windows(pwm, pos, starts, strands, background, None)
        has = has_site(best, threshold, inclusive)
        n = int(has.sum())
        plus = int((has & (on == 0)).sum())
    return one_strand(plus, n)


def _called(pwm, pos, neg, starts, strands, background, fpr, claimed):
    """The sites of ``pwm`` on ``strands``: ``(negatives' best scores, threshold, inclusive,
    positives' best scores, starts, strands, has a site)`` (step 4)."""
    neg_best = best_site_scores(pwm, neg, starts, strands, background)
    threshold, inclusive = site_threshold(neg_best, fpr)
    best, at, on = best_windows(pwm, pos, starts, strands, background, claimed)
    return neg_best, threshold, inclusive, best, at, on, has_site(best, threshold, inclusive)


def _log10(p):
    """log10 of a p-value level; -inf for 0."""
    return float(np.log10(p)) if p > 0 else -np.inf


def _composition(pwm, pos, shuffled, starts, strands, background, threshold, inclusive, depleted):
    """Step 6: the motif's sites in the positives against its sites (same threshold) in their
    dinucleotide shuffles: ``shuffled_sites`` and ``log10_composition_p_value`` (Fisher,
    one-sided: more sites in the positives). NaN for a depleted motif (its sites are in the
    negatives)."""
    if depleted or len(pos) == 0:
        return {"shuffled_sites": np.nan, "log10_composition_p_value": np.nan}
    hits = int(has_site(best_site_scores(pwm, pos, starts, strands, background), threshold,
                        inclusive).sum())
    control = int(has_site(best_site_scores(pwm, shuffled, starts, strands, background), threshold,
                           inclusive).sum())
    n = len(pos)
    return {"shuffled_sites": control, "log10_composition_p_value": fisher_log10(hits, n - hits, control, n - control)}


def _taken(pwm, pos, starts, strands, background, threshold, inclusive, owner, stronger):
    """Sites a stronger motif took: the positives whose best window, ignoring the places of
    stronger motifs' sites, passes the threshold but lies on such a site (``taken_sites``), and
    the stronger motif that holds most of them (``taken_by``, its name; "" when none)."""
    if not stronger:
        return {"taken_sites": 0, "taken_by": ""}
    best, at, _ = best_windows(pwm, pos, starts, strands, background, None)
    m = pwm.shape[0]
    lost = np.flatnonzero(has_site(best, threshold, inclusive))
    holders = [owner[i, at[i]:at[i] + m].max() for i in lost]
    holders = np.array([h for h in holders if h >= 0], dtype=np.intp)
    if holders.size == 0:
        return {"taken_sites": 0, "taken_by": ""}
    return {"taken_sites": int(holders.size), "taken_by": stronger[int(np.bincount(holders).argmax())].name}
