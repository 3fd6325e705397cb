"""The depth of a motif search: after the model's rounds of explaining away (:mod:`._rounds`),
candidates keep being tested one at a time, as STREME tests its candidates, until
:data:`FAILURES` (3) of them in a row fail.

Every motif reported so far has its sites erased in copies of the positives and negatives
(:func:`seqimp.motifs._sites.mask_sites`); the word most enriched in what is left (lengths
:data:`DEPTH_WORD_LENGTHS`, or gapped: :data:`~._gapped_words.GAPPED_PATTERNS`; either strand
with ``strand="both"``; a Fisher p-value at most :data:`DEPTH_WORD_PVALUE` Bonferroni-adjusted
over the words, lengths and patterns, against the negatives and against dinucleotide shuffles of
the positives, not a copy of a motif reported nor of a candidate that failed; where the longest
record is at least :data:`CENTRAL_SHARE` times ``MotifOptions.central_width`` (100) long, counted
over whole records and, as a second view with the bound halved, over their central 100 nt, where
ChIP-seq peaks hold their factors' sites; :func:`word_candidate`) seeds one candidate, which the
ending every route shares refines and tests (:func:`~._run.refined_run`: EM, the PWM tuned at the site threshold,
its sites counted, and the held-out test of :func:`seqimp.motifs.refine_motifs` -- each half of
the sequences scored with the PWM and threshold fitted on the other, from a word chosen on that
other half alone (:func:`half_seed`) --, then
:func:`seqimp.motifs.select_motifs`). A candidate that passes (p-value at most
``max_pvalue``, held-out p-value at most ``max_held_out_pvalue``, not a copy of a motif
reported) is reported, its sites erased, and the count of failures starts again; a candidate
that fails adds one. The search stops after :data:`FAILURES` consecutive failures, or when no
word is enriched any more.

Every candidate refined in the run counts as one test (``MotifRun.tested``: the model's seeds
and these): a motif's E-value is its held-out p-value times that number (``motifs.tsv``:
``evalue``), as STREME's E-value is its p-value times the candidates it tested.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd

from ._gapped_words import GAPPED_PATTERNS
from ._run import joined_tests, refined_run

__all__ = ["search_deeper", "word_candidate", "half_seed", "same_word", "erase_sites", "central_windows",
           "counts_central", "FAILURES", "DEPTH_WORD_LENGTHS", "DEPTH_WORD_PVALUE", "CONTROL_SHUFFLES", "HALF_CHOICES",
           "HELD_OUT_CONTROLS", "CENTRAL_WIDTH", "CENTRAL_SHARE"]

logger = logging.getLogger(__name__)

#: The search stops after this many candidates in a row fail their tests (as STREME's ``--patience``).
FAILURES = 3
#: The word lengths the candidates come from (words of 12 letters cost 0.5 GB of counts).
DEPTH_WORD_LENGTHS = (5, 6, 7, 8, 10)
#: The most a candidate word's p-value may be, Bonferroni-adjusted over the words of its length
#: (or gapped pattern) and over the lengths and patterns: on a set without motifs the chance that any word qualifies is at most this.
#: The held-out test decides for the rest. The seed word is chosen on all sequences, both halves
#: of the held-out test included, so on random sequences the most enriched word, taken without
#: this bound, passed the held-out test on two sets of three (the rounds' fallback keeps the
#: stricter :data:`seqimp.motifs._word_seeds.WORD_MAX_PVALUE`).
DEPTH_WORD_PVALUE = 0.05
#: Dinucleotide shuffles of the positives (each, this many times) that a candidate word must
#: also be enriched against: composition alone (GC and CpG in promoters against gene bodies)
#: makes GC-rich words the most enriched against the negatives, and their candidates grow into
#: copies of the GC-rich motif already reported, ending the search before NFY's CCAAT or CREB's
#: TGACGTCA is tried.
CONTROL_SHUFFLES = 2
#: A held-out fold's tuning takes its threshold on the fold's negatives and this many dinucleotide
#: shuffles of each (:func:`seqimp.motifs.refine_motifs`' ``held_out_controls``): at 1% of a
#: fold's few hundred negatives a tuned PWM learns the handful above its threshold and passes five
#: times as many held-out negatives (THAP11 in Klf1 and NFE2 peaks together). The candidate's own
#: fit is tuned on the negatives alone: tuned against the shuffles too, the mouse promoters' CREB
#: and the NFE2 peaks' NRF1 were lost (docs/benchmarks/motifs.md).
HELD_OUT_CONTROLS = 4
#: A held-out fold of a candidate takes its seed among this many of the words most enriched in
#: its fitting half (:func:`half_seed`), its held-out p-value multiplied by this for every fold
#: tested. On the mouse TATA promoters CREB's TGACGTCA was the most enriched contiguous word of
#: one half and the third of the other, but a gapped G/C word or an E-box was the first of each
#: half: with one choice its held-out test had no fold.
HALF_CHOICES = 3
#: Words are also counted in the central this many letters of every record (of the positives, the
#: negatives and the controls; ``MotifOptions.central_width``'s default), as MEME-ChIP searches the
#: central 100 nt of ChIP-seq peaks, where the factors' sites gather and the flanks' background is
#: left out (:func:`central_windows`). NFY's CCAAT box in NFE2 peaks pooled with 500-nt Klf1 peaks:
#: over whole records no CCAAT word was among the 25 most enriched where the deeper search ended (a
#: 6- to 8-letter word is in many 500-nt records by chance); counted in the central 100 nt too,
#: ATTGGC is tried and NFY reported.
CENTRAL_WIDTH = 100
#: The central words are counted where the longest positive record is at least this many times
#: the central width: a central window of a third of a record or less (at 100 nt: Klf1's 500-nt
#: peaks; not the 235-nt NFE2 peaks or 251-nt promoters, whose words are counted whole only).
CENTRAL_SHARE = 3


def word_candidate(positive, negative, *, strand, exclude, round, control=None, max_pvalue=None, top=1,
                   central=CENTRAL_WIDTH):
    """The next candidate of the deeper search: the most enriched word, contiguous (lengths
    :data:`DEPTH_WORD_LENGTHS`, :func:`seqimp.motifs.word_seeds`) or gapped
    (:data:`~._gapped_words.GAPPED_PATTERNS`, :func:`~._gapped_words.gapped_seed`), whose
    p-value, Bonferroni-adjusted over the words of its kind and over the lengths and patterns,
    is at most :data:`DEPTH_WORD_PVALUE`, and that is not a copy of ``exclude``; ``(seeds,
    candidates)``, no seed where no word qualifies. With ``control`` (dinucleotide shuffles of
    the positives) a word's p-value is the larger of its test against the negatives and against
    the controls (:func:`seqimp.motifs._word_seeds.word_log10_pvalues`). ``max_pvalue``
    replaces :data:`DEPTH_WORD_PVALUE` (a held-out fold's choice, :func:`half_seed`, takes the
    most enriched word whatever its p-value). With ``top``, at most ``top`` words: the ``top``
    most enriched of each kind, contiguous and gapped, merged most enriched first, a word that is
    the same word as one before it (:func:`same_word`) left out (the first seed is the one of
    ``top=1``). Where the positives are at least :data:`CENTRAL_SHARE` times ``central`` (default
    :data:`CENTRAL_WIDTH`; 0: never) letters wide, the words are also counted in every record's
    central ``central`` letters
    (:func:`central_windows`: positives, negatives and controls alike; the seed's PWM from the
    occurrences there), two more kinds, and the bound is halved for the two views; the
    candidates' ``window`` column says which view a word was most enriched in (``"whole"`` or
    ``"central 100 nt"``)."""
    from .. import word_seeds
    from ._gapped_words import gapped_seed

    bound = DEPTH_WORD_PVALUE if max_pvalue is None else max_pvalue
    level = bound / (len(DEPTH_WORD_LENGTHS) + len(GAPPED_PATTERNS))
    strand = "both" if strand == "both" else "given"
    views = [("whole", positive, negative, control)]
    if counts_central(positive.shape[1], central):
        views.append((f"central {central} nt",) + tuple(
            None if x is None else central_windows(x, central) for x in (positive, negative, control)))
    level /= len(views)
    found, windows = [], []
    for window, pos, neg, ctrl in views:
        found += [word_seeds(pos, neg, lengths=DEPTH_WORD_LENGTHS, strand=strand, max_motifs=top,
                             max_pvalue=level, exclude=exclude, round=round, control=ctrl),
                  gapped_seed(pos, neg, strand=strand, max_pvalue=level, exclude=exclude, round=round,
                              control=ctrl, max_motifs=top)]
        windows += [window, window]
    # contiguous words first: of two words equally enriched the contiguous one (as ``min`` chose)
    ranked = sorted((float(rows["log10_p_value"].iloc[i]), -int(rows["positives"].iloc[i]), kind, i)
                    for kind, (seeds, rows) in enumerate(found) for i in range(len(seeds)))
    chosen = []
    for *_, kind, i in ranked:
        word = found[kind][1]["word"].iloc[i]
        if len(chosen) < top and not any(same_word(word, found[k][1]["word"].iloc[j], both=strand == "both")
                                         for k, j in chosen):
            chosen.append((kind, i))
    if not chosen:
        return [], pd.DataFrame(columns=["name", "word", "round", "window"])
    rows = pd.concat([found[k][1].iloc[[i]] for k, i in chosen], ignore_index=True)
    rows["window"] = [windows[k] for k, _ in chosen]
    return [found[k][0][i] for k, i in chosen], rows


def counts_central(length, central):
    """Whether words are also counted in the records' central ``central`` letters: ``central`` is
    positive and the longest record (``length``) at least :data:`CENTRAL_SHARE` times it."""
    return central > 0 and length >= CENTRAL_SHARE * central


def central_windows(codes, width):
    """``codes`` (n, L) with every letter outside each row's central ``width`` letters made
    unknown (code 4), so that no word or site is counted there. A row's length is up to its last
    known letter (records padded to one length end in unknown letters); the window starts at
    ``(length - width) // 2`` and a row no longer than ``width`` is kept whole. Unknown letters
    inside the window stay unknown."""
    codes = np.asarray(codes)
    length = codes.shape[1]
    known = codes != 4
    ends = np.where(known.any(axis=1), length - np.argmax(known[:, ::-1], axis=1), 0)
    starts = np.maximum((ends - width) // 2, 0)
    cols = np.arange(length)
    out = codes.copy()
    out[(cols < starts[:, None]) | (cols >= (starts + width)[:, None])] = 4
    return out


def search_deeper(run, data, *, options, random_state, first_round, source=None):
    """Candidates from the enriched words, tested one at a time after ``run``'s motifs (module
    docstring), until :data:`FAILURES` in a row fail; ``run`` with the motifs found joined to it.

    Parameters
    ----------
    run : MotifRun
        The search so far (its motifs, ``stats``, ``sites``, ``candidates``, ``tested``).
    data : LabelledSequences
        The positives and negatives (codes); not changed (the sites are erased in copies).
    options : MotifOptions
        Strand, fpr, the p-value cuts; ``rounds == 1`` (a single search): nothing is added.
    random_state : int or None
        The letters that erase the sites; the composition controls and the PWMs for scanning.
    first_round : int
        The ``round`` of the first candidate tested here (the rounds before it: the model's).
    source : callable, optional
        Default :func:`word_candidate` with ``central=options.central_width``.
        ``source(positive, negative, strand=, exclude=, round=, control=) -> (seeds, candidates)``: the
        next candidate (one seed, its row of ``candidates`` with a ``word`` column), not a
        variant of ``exclude`` (the motifs reported and the candidates that failed), enriched
        against ``control`` too (:data:`CONTROL_SHUFFLES` dinucleotide shuffles of each positive,
        its sites erased so far); no seed: the search ends.

    Returns
    -------
    MotifRun
        ``run``, changed: ``motifs``, ``scanning``, ``stats``, ``sites``, ``candidates`` joined,
        ``tested`` counted on; ``parameters["depth"]`` records what was tested and why it stopped.
    """
    from ...errors import check_random_state
    from ...io import dinucleotide_shuffle
    from .._gkm_seeds import EM_ITERATIONS

    if options.rounds < 2 or data.positive is None:
        return run
    if source is None:
        source = partial(word_candidate, central=options.central_width)
    pos, neg = data.positive.copy(), data.negative.copy()
    rng = check_random_state(random_state)
    strands = ("+", "-") if options.strand == "both" else ("+",)
    accepted = list(run.motifs)
    erase_sites(accepted, run.stats, run.sites, pos, neg, strands, rng)
    failed, steps, failures, number = [], [], 0, int(first_round)
    stop = f"{FAILURES} candidates in a row failed"
    while failures < FAILURES:
        control = dinucleotide_shuffle(np.tile(pos, (CONTROL_SHUFFLES, 1)), random_state=rng)
        exclude = accepted + failed
        seeds, candidates = source(pos, neg, strand=options.strand, exclude=exclude, round=number, control=control)
        if not seeds:
            stop = f"no further candidate (no word enriched in the positives at Bonferroni p <= {DEPTH_WORD_PVALUE:g})"
            break
        masked = replace(data, positive=pos, negative=neg)
        word = candidates["word"].iloc[0]
        window = candidates["window"].iloc[0] if "window" in candidates else "whole"
        label = word if window == "whole" else f"{word} in the {window}"
        step = refined_run(seeds, masked, options, candidates=candidates, result=None, parameters={}, round=number,
                           accepted=accepted, match=False, random_state=random_state, max_iter=EM_ITERATIONS,
                           tune=True, max_held_out_pvalue=options.max_pvalue,  # a seed failing p is not refitted
                           em_letters="positives", keep_seed=True,  # the candidate is its word
                           held_out_controls=HELD_OUT_CONTROLS,
                           held_out_seed=half_seed(word, strand=options.strand, exclude=exclude, round=number,
                                                   central=options.central_width,
                                                   random_state=int(rng.integers(2 ** 31))))
        steps.append(step)
        if step.motifs:
            failures = 0
            accepted += step.motifs
            erase_sites(step.motifs, step.stats, step.sites, pos, neg, strands, rng, log=False)
            m = step.motifs[0]
            logger.info(f"candidate {run.tested + len(steps)} ({label}, round {number}): {m.name} ({m.consensus}) "
                        f"passes; its sites erased")
        else:
            failures += 1
            failed += seeds
            logger.info(f"candidate {run.tested + len(steps)} ({label}, round {number}) fails "
                        f"({failures} of {FAILURES} in a row)")
        number += 1
    tested = len(steps)
    found = sum(len(s.motifs) for s in steps)
    logger.info(f"deeper search: {tested} candidate(s) tested, {found} motif(s) found; stopped: {stop}")
    run.parameters["depth"] = {"candidates_tested": tested, "motifs_found": found, "failures_in_a_row": failures,
                               "patience": FAILURES, "word_lengths": list(DEPTH_WORD_LENGTHS),
                               "gapped_words": [f"{h}+{g}+{h}" for h, g in GAPPED_PATTERNS],
                               "word_max_pvalue": DEPTH_WORD_PVALUE, "held_out_choices": HALF_CHOICES,
                               "held_out_controls": HELD_OUT_CONTROLS, "stopped": stop,
                               "central_width": (options.central_width
                                                 if counts_central(data.positive.shape[1], options.central_width)
                                                 else 0)}
    run.tested += tested
    run.candidate_tests = joined_tests([run] + steps)
    if not found:
        run.candidates = pd.concat([run.candidates] + [s.candidates for s in steps], ignore_index=True)
        return run
    run.motifs = accepted
    run.scanning = list(run.scanning) + [m for s in steps for m in s.scanning]
    run.stats = pd.concat([x for x in [run.stats] + [s.stats for s in steps] if len(x)], ignore_index=True)
    run.sites = pd.concat([x for x in [run.sites] + [s.sites for s in steps] if len(x)], ignore_index=True)
    run.candidates = pd.concat([run.candidates] + [s.candidates for s in steps], ignore_index=True)
    if run.background is None:
        run.background = next((s.background for s in steps if s.background is not None), None)
    return run


def half_seed(word, *, strand, exclude, round, random_state, choices=HALF_CHOICES, central=CENTRAL_WIDTH):
    """The seed of a held-out fold of a deeper-search candidate, chosen blind to the held-out
    half: :func:`word_candidate` run on the fold's fitting half alone, with its own composition
    controls (:data:`CONTROL_SHUFFLES` shuffles drawn from ``random_state``), taking its
    ``choices`` most enriched words whatever their p-value (half the sequences seldom carry a
    co-factor's word past the bound that all of them do; the held-out test decides). The seed
    is the first of them whose word is the candidate's ``word`` (:func:`same_word`), turned to
    the candidate's orientation; none of them: None (the fold's held-out half is not tested).
    The candidate's word was chosen on all the sequences: a held-out half that helped choose it
    is not held out (on random sequences the most enriched word, taken without the word's bound,
    passed the held-out test on two sets of three), and which of the ``choices`` words the fold
    takes is that choice: the callable's ``choices`` attribute makes the held-out p-value
    Bonferroni-adjusted for it (:func:`seqimp.motifs.refine_motifs`)."""
    from ...io import dinucleotide_shuffle
    from .._copies import pwm_similarity

    def seed(positive, negative, motif):
        control = dinucleotide_shuffle(np.tile(positive, (CONTROL_SHUFFLES, 1)), random_state=random_state)
        seeds, found = word_candidate(positive, negative, strand=strand, exclude=exclude, round=round, central=central,
                                      control=control, max_pvalue=np.inf, top=choices)
        same = [i for i, w in enumerate(found["word"]) if same_word(w, word, both=strand == "both")]
        if not same:
            return None
        chosen = seeds[same[0]]
        return chosen.reverse_complement() if pwm_similarity(motif.pwm, chosen.pwm, strand="both")[2] == "-" else chosen

    seed.choices = int(choices)
    return seed


def same_word(a, b, *, both=True, run=5):
    """Whether words ``a`` and ``b`` are one: aligned (shifted or not; either strand with
    ``both``) they agree on at least ``run`` letters and disagree on none -- a gap letter N
    agrees with any -- or, the same length and unshifted, on one letter at most. Looser rules
    call short words of different motifs one (CACGTG, an E-box, and ACGTCAC, CREB's half site,
    agree on ACGT and disagree next to it); a gapped word and its variant with one gap letter
    more or less (CGCANGCGC, CGCNNGCG: NRF1) are one."""
    comp = str.maketrans("ACGTN", "TGCAN")
    for o in (b, b.translate(comp)[::-1]) if both else (b,):
        for d in range(-len(a) + 1, len(o)):
            pairs = [(x, y) for x, y in zip(o[max(d, 0):], a[max(-d, 0):]) if "N" not in (x, y)]
            agree = sum(x == y for x, y in pairs)
            allowed = 1 if (d == 0 and len(a) == len(o)) else 0
            if agree >= run and len(pairs) - agree <= allowed:
                return True
    return False


def erase_sites(motifs, stats, sites, pos, neg, strands, rng, *, log=True):
    """The sites of ``motifs`` erased in ``pos`` and ``neg`` (in place,
    :func:`seqimp.motifs._sites.mask_sites`: random letters of the negatives' frequencies), each
    by its row of ``stats`` and its rows of ``sites``; one log line per motif (``log``)."""
    from .._sites import mask_sites

    for m in motifs:
        row = stats[stats["name"] == m.name].iloc[0].to_dict()
        n_pos, n_neg = mask_sites(m, row, pos, neg, sites[sites["motif"] == m.name], strands=strands,
                                  random_state=rng)
        if log:
            logger.info(f"explaining {m.name} ({m.consensus}) away: its sites erased in {n_pos} positives and "
                        f"{n_neg} negatives")
