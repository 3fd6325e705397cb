"""PWMs for scanning: every reported motif's PWM fitted to separate the positives from the
control wherever it is scanned (:func:`scanning_motifs`, the step after
:func:`seqimp.motifs.select_motifs`).

Why: a refined motif's PWM is the EM's letter frequencies of its sites inside its window
(:func:`seqimp.motifs.refine_motifs`), and its sites are called there. But a motif file is taken
to FIMO, HOMER or ``seqimp scan`` and scanned over every window of both strands of whole
sequences, where only the PWM counts: at the score that 1% of the control sequences' best
windows pass, the frequencies of the sites rank chance windows in long, GC-rich or repetitive
sequences high, and recall fewer carriers than a PWM fitted to the task does (STREME fits its
PWMs discriminatively over all positions against an order-2 background).

How: for every enriched motif,

1. **Background.** The control's order-``order`` Markov background, counted on both strands
   (:class:`seqimp.background.SiteBackground`): a window's score is its log-likelihood ratio,
   PWM against that background, so a GC-rich motif in GC-rich DNA is scored against GC-rich DNA.
2. **Start.** The letter frequencies of the motif's sites (:func:`site_pwm`: the windows the
   refinement called sites, plus one pseudo-letter at the background's frequencies). The
   refined PWM is the EM's posterior-weighted frequencies over its window, weak windows
   included, and was fitted on all sequences; its sites' frequencies are sharper, and those of
   one half's sites know nothing of the other half (step 4). Where a half holds fewer than
   :data:`MIN_SITES` sites (or no site table is given), the refined PWM is the start.
3. **Fit.** Three fits are tried (:data:`FIT_KINDS`), each over every start of both strands.
   Sharpened (:func:`sharpened_pwm`): the letter frequencies of the positives' best windows
   that pass a threshold, repeated to a fixed point -- the sites that tell the positives from
   the control; the threshold is the score at which the positives are most enriched over the
   control (STREME's rule, "sharpened") or the one ``fpr`` of the control's best windows pass
   ("sharpened at the FPR"). Tuned: :func:`seqimp.motifs._tune.tune_pwm`: coordinate
   ascent on the PWM's log-odds for the most positives whose best window passes the threshold
   that ``fpr`` of the negatives' best windows pass, ``pad`` columns of room on each side and end
   columns cut while that passes more positives (the width). At 1% of a few hundred negatives
   that threshold rests on a handful of sequences, which such a fit learns rather than the
   motif; so it is taken on the negatives and ``control_factor`` times as many sequences drawn
   from their Markov chain, in steps of 1 and 0.5 bit that each pass at least ``min_gain``
   more positives.
4. **Held out.** Each fit runs on each half of the sequences (sequence i in half i mod 2), from
   that half's start, and is counted on the other half, at the threshold of that half's
   negatives and ``control_factor`` times as many drawn from their chain (the same for every
   PWM). The tuned fit, or the sharpened one that passes the most held-out positives where it
   passes clearly more of them than the tuned one (by at least 2 and :data:`MARGIN_SD` of a
   standard deviation of the difference, the square root of their sum), is kept only where,
   pooled, it passes clearly more held-out positives than the starts do; a fit that is no longer
   the motif it started from (:func:`still_the_motif`) is not taken, and every count is
   weighed against the same PWM's count in dinucleotide shuffles of the held-out positives (a
   gain there is the positives' composition, not the motif: :func:`chosen_fit`). Then
   it is fitted on all sequences, from the start on all of them -- a tuned fit as the mean
   log-odds of ``bag`` ascents, each against the negatives and a control drawn for it (one
   ascent learns its control's few best windows too: on ``gen weaklong``, over six control
   draws, single ascents recalled 0.297-0.328 of the planted sites on fresh sets, bags of four
   0.321-0.345; ``scripts/scanning_fit_spread.py``) --; else that start
   is the PWM for scanning (``scan_pwm`` names it). ``held_out`` shares are counted that way;
   ``scan_fraction_*`` at the real negatives' threshold. A start fitted on both halves (the
   refined PWM) is counted on sequences it has seen: on ``gen atac`` it and its tuned fit passed
   as many held-out positives as the sharpened fit (181, 175, 175) while recalling fewer
   planted sites on fresh sets of the same kind (0.530, 0.567, 0.610), and the tuned fit was kept;
   from the sites, the written PWM recalls 0.651 there (docs/benchmarks/motifs.md).
5. **Threshold.** The PWM is rounded to the six decimals motif files hold, and its threshold is
   computed as ``seqimp scan`` scores (integer units of 1/100 bit, no pseudocount, the same
   background: :func:`seqimp.motifs.scan_sequences`): ``scan_threshold`` is the smallest score
   above the (k+1)-th best negative's (k = floor(fpr n)), which at most a share ``fpr`` of the
   negatives reach -- strictly: a PWM whose best word alone is in more of them recalls nothing
   there, where the site rule of the refinement calls the windows reaching the top score sites --, so that ``seqimp scan
   --motif-thresholds`` with the run's ``background.txt`` finds the sites counted here exactly.
   HOMER's detection threshold at the same false-positive rate is computed too (natural log
   against a uniform background, HOMER's score).

The motif itself -- its PWM, sites, window and statistics -- is left as it is: the positional
sites stay those of the refinement.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np

from ..errors import SeqimpError, check_int, check_random_state
from ..io._check import check_sequences
from ..io import dinucleotide_shuffle
from ._refine import MotifSites
from .known._scan import SCALE, best_sequence_scores, encode_any_length
from ._sites import (WindowTerms, best_site_scores, best_windows, enrichment_threshold, site_scores, strict_threshold,
                     window_letter_counts)
from ._copies import still_the_motif
from ._tune import tune_pwm

__all__ = ["scanning_motifs", "quantised_pwm", "strict_threshold", "sharpened_pwm", "site_pwm", "SCAN_COLUMNS"]

logger = logging.getLogger(__name__)

#: the columns :func:`scanning_motifs` adds to ``stats``
SCAN_COLUMNS = ["scan_threshold", "scan_fraction_positive", "scan_fraction_negative",
                "scan_held_out_fraction_positive", "scan_tuned", "scan_length", "scan_homer_threshold", "scan_pwm"]
_BOTH = ("+", "-")
#: a motif narrower than this gets room to grow to it (pad columns on each side)
_ROOM = 12
#: the most windows (sequences times length) of the negatives, real and drawn, that a fit's
#: threshold is taken on: 8,000 sequences of 500 nt
MAX_CONTROL_WINDOWS = 4_000_000
#: the fits tried for a PWM for scanning, in the order preferred on a tie (:func:`_fitted`): tuned,
#: sharpened at the enrichment threshold, sharpened at the FPR. Both sharpenings are kept: at the
#: enrichment threshold recalls more on gcrich and repeats, at the FPR on ``anywhere`` (FOXA2:
#: 0.208 against 0.197). The sharpened PWM tuned as well was tried and not kept: on ``masked`` it
#: won the held-out count by a few sequences and then recalled fewer planted GATA4 sites (0.371 against 0.411)
FIT_KINDS = ("tuned", "sharpened", "sharpened at the FPR")
#: rounds of :func:`sharpened_pwm` at most, and its pseudocount (letters at the background's frequencies)
SHARPEN_ITER = 10
SHARPEN_PSEUDOCOUNT = 1.0
#: the fewest of a motif's sites in each half for their letter frequencies to start the fits
#: (:func:`site_pwm`); with fewer, the fits start from the refined PWM
MIN_SITES = 10
#: the tuned fit written is the mean of this many ascents, each against its own drawn control
#: (:func:`scanning_motifs`' ``bag``), drawn with seeds from BAG_SEED on (the held-out check's are 1-4)
BAG, BAG_SEED = 4, 5
#: what ``scan_pwm`` says of a PWM for scanning that is not a fit of :data:`FIT_KINDS`
SITES, REFINED = "site frequencies", "as refined"
#: "clearly more" held-out positives (:func:`_clearly_more`): by at least 2 and this many
#: standard deviations of the difference of two counts (the square root of their sum)
MARGIN_SD = 0.5


def quantised_pwm(pwm) -> np.ndarray:
    """``pwm`` in whole millionths (the six decimals of motif files), none zero, each row
    summing to exactly one million: written and read back, the same numbers."""
    micro = np.maximum(np.rint(np.asarray(pwm, dtype=np.float64) * 1e6), 1.0)
    top = micro.argmax(axis=1)
    micro[np.arange(len(micro)), top] += 1e6 - micro.sum(axis=1)
    return micro / 1e6


def site_pwm(site_table, positive, length, letters, pseudocount=SHARPEN_PSEUDOCOUNT, rows=None) -> np.ndarray:
    """The letter frequencies of a motif's sites: ``length`` letters from each site of
    ``site_table`` (a motif's rows of :attr:`MotifSites.sites`: ``sequence`` 0-based,
    ``position`` 1-based, ``strand`` ``+``/``-`` relative to the written PWM) in ``positive``,
    plus ``pseudocount`` letters at the frequencies ``letters``; only the sites in the
    sequences ``rows`` where given. Shape (length, 4).

    The refined PWM is the EM's posterior-weighted frequencies over its window, weak windows
    included; the sites' own frequencies are sharper, and their share of each half of the
    sequences is a start for the fits that knows nothing of the other half."""
    positive = check_sequences(positive, "positive", unknown=True)
    length = check_int(length, "length", 1)
    missing = [c for c in ("sequence", "position", "strand") if c not in site_table]
    if missing:
        raise SeqimpError(f"site table: no column {', '.join(missing)} (a motif's rows of MotifSites.sites)")
    seqs, at, on = _site_windows(site_table)
    if np.any((at < 0) | (at > positive.shape[1] - length)) or np.any((seqs < 0) | (seqs >= len(positive))):
        raise SeqimpError(f"a site of a motif of length {length} lies outside the {positive.shape} positives")
    keep = slice(None) if rows is None else np.isin(seqs, rows)
    return _window_frequencies(positive, seqs[keep], at[keep], on[keep], length, letters, pseudocount)


def _site_windows(site_table):
    """``(sequence, start, on)`` of the sites of ``site_table``: 0-based sequences and starts,
    ``on`` 1 for the minus strand."""
    return (np.asarray(site_table["sequence"], dtype=np.intp), np.asarray(site_table["position"], dtype=np.intp) - 1,
            (np.asarray(site_table["strand"]) == "-").astype(np.intp))


def _window_frequencies(codes, seqs, at, on, length, letters, pseudocount) -> np.ndarray:
    """The letter frequencies of the windows of width ``length`` starting at ``at`` in the
    sequences ``seqs`` of ``codes`` (0..3, 4 unknown: not counted), the reverse complement where ``on`` is 1, plus
    ``pseudocount`` letters at the frequencies ``letters``: shape (length, 4). The sites' PWM
    (:func:`site_pwm`) and every round of :func:`sharpened_pwm` count them so."""
    # a site on - is the reverse complement; an unknown base (4; a site never covers one, a window
    # given by hand may) is no letter
    counts = window_letter_counts(codes, seqs, at, length, on == 1)
    letters = np.asarray(letters, dtype=np.float64)
    return (counts + pseudocount * letters) / (counts.sum(axis=1, keepdims=True) + pseudocount)


def scanning_motifs(sites, positive, negative, *, fpr=0.01, order=2, held_out=True, pad=2, min_gain=2,
                    min_length=4, steps=(1.0, 0.5), control_factor=8, bag=BAG, random_state=None) -> MotifSites:
    """PWMs for scanning (module docstring): ``sites`` with ``scanning`` set (one Motif per
    motif, same name and order) and the columns :data:`SCAN_COLUMNS` added to ``stats``.

    Parameters
    ----------
    sites : MotifSites
        The reported motifs (:func:`seqimp.motifs.select_motifs`); the fits start from the
        letter frequencies of the motifs' sites in its site table (step 2).
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L)
        The sequences the motifs were refined on.
    fpr : float, default=0.01
    order : int, default=2
        Order of the control's Markov background (0..2 as MEME's tools; up to 5).
    held_out : bool, default=True
        Keep a fitted PWM only where it passes more held-out positives (step 4).
    pad, min_gain, min_length, steps
        Of :func:`seqimp.motifs._tune.tune_pwm` (``pad`` at least enough for a motif to grow to
        12 columns); its count is strict (:func:`strict_threshold`).
    control_factor : float, default=8
        The fit's threshold is taken on the negatives and this many times as many sequences
        drawn from their Markov chain (same order; at most 4,000,000 windows in all, 8,000
        sequences of 500 nt): at 1% of a few hundred negatives it rests on a handful of them,
        which the fit would otherwise learn. With 4 instead of 8, the tuned PWM of ``gen
        weaklong`` recalled 0.261-0.308 of the planted sites on fresh sets over six draws
        (mean 0.290), with 8 0.308-0.331 (0.323).
    bag : int, default=4
        The tuned fit on all sequences (the one written) is the mean log-odds of this many
        ascents, each against the negatives and a control drawn for it (``more_negatives`` of
        :func:`seqimp.motifs._tune.tune_pwm`); 1: one ascent. The held-out check counts single
        ascents (step 4).
    random_state : int, Generator or None
        Seed of those draws (None: 0).

    Returns
    -------
    MotifSites
        ``stats`` gains ``scan_threshold`` (bits against the control's background: the
        smallest score of a hit), ``scan_fraction_positive``/``scan_fraction_negative``
        (sequences whose best window reaches it), ``scan_held_out_fraction_positive`` (the
        same for the PWM fitted on the other half, pooled; of the starts where the fit was not
        kept), ``scan_tuned`` (the fit was kept), ``scan_length``, ``scan_homer_threshold``
        (nats, HOMER's score) and ``scan_pwm`` (which PWM is the one for scanning: one of
        :data:`FIT_KINDS`, ``"site frequencies"`` or ``"as refined"``).
    """
    from ..background import MarkovBackground, SiteBackground

    if not 0 < fpr < 1:
        raise SeqimpError(f"fpr must lie in (0, 1), got {fpr}")
    order = check_int(order, "order", 0, 5)
    bag = check_int(bag, "bag", 1, 64)
    random_seed = int(check_random_state(random_state).integers(2 ** 31))
    pos = check_sequences(positive, "positive", unknown=True).astype(np.uint8)
    neg = check_sequences(negative, "negative", unknown=True).astype(np.uint8)
    background = SiteBackground.fit(neg, order)
    chain = MarkovBackground(order=order).fit(neg) if control_factor > 0 and len(neg) else None

    controls = {}  # seed -> (negatives, control): the same for every motif, drawn once

    def control(negatives, seed):
        """The negatives and ``control_factor`` times as many drawn from the control's chain."""
        if chain is None:
            return negatives
        if seed in controls and np.array_equal(controls[seed][0], negatives):
            return controls[seed][1]
        n = min(int(control_factor * len(negatives)),
                max(MAX_CONTROL_WINDOWS // max(negatives.shape[1], 1) - len(negatives), 0))
        drawn = chain.sample(n, length=negatives.shape[1], random_state=np.random.default_rng([random_seed, seed]))
        controls[seed] = (negatives, np.vstack([negatives, drawn.astype(np.uint8)]))
        return controls[seed][1]

    shuffles = {}  # half -> its dinucleotide shuffles: the same for every motif, made once

    def composition(held, half):
        """Dinucleotide shuffles of the held-out positives ``held`` (half ``half``): their letters
        and letter pairs without their motifs."""
        if half not in shuffles:
            shuffles[half] = dinucleotide_shuffle(held, random_state=half + 5)
        return shuffles[half]

    flat = (encode_any_length(pos), encode_any_length(neg))
    table = sites.sites if sites.sites is not None and len(sites.sites) else None
    rows, scanning = [], []
    for motif, row in zip(sites.motifs, sites.stats.to_dict("records")):
        own = np.clip(motif.pwm, 1e-6, None)
        own = own / own.sum(axis=1, keepdims=True)
        fit = motif.direction == "enriched" and motif.length <= pos.shape[1] and len(pos) and len(neg)
        pwm, tuned, held, kind = own, False, np.nan, REFINED
        if fit:
            room = max(pad, (_ROOM - motif.length + 1) // 2)  # a short motif may grow to _ROOM columns
            own_sites = table[table["motif"] == motif.name] if table is not None else table
            pwm, tuned, held, kind = _fitted(own, own_sites, pos, neg, background, fpr, held_out,
                                             dict(pad=room, min_gain=min_gain, min_length=min_length, steps=steps),
                                             control, composition, bag)
        pwm = quantised_pwm(pwm)
        scan = replace(motif, pwm=pwm)
        rows.append({**_threshold_row(scan, flat, pos, neg, background, fpr, held, tuned), "scan_pwm": kind})
        scanning.append(scan)
        if fit:
            logger.info(f"{motif.name}: PWM for scanning {f'fitted ({kind})' if tuned else kind} "
                        f"({scan.consensus}): "
                        f"whole sequences at {100 * fpr:g}% FPR, {100 * rows[-1]['scan_fraction_positive']:.1f}% of "
                        f"positives" + ("" if np.isnan(held) else f", {100 * held:.1f}% held out (at {100 * fpr:g}% "
                                                                      f"FPR of the held-out negatives with draws "
                                                                      f"from their Markov chain)"))
    stats = sites.stats.copy()
    for col in SCAN_COLUMNS:
        stats[col] = [r[col] for r in rows] if rows else []
    return MotifSites(list(sites.motifs), stats, sites.sites, scanning=scanning, tests=sites.tests)


def sharpened_pwm(pwm, positive, control, background, fpr, *, sites="enrichment", max_iter=SHARPEN_ITER,
                  pseudocount=SHARPEN_PSEUDOCOUNT):
    """The letter frequencies of the sites a PWM passes, to a fixed point (as STREME builds its
    PWMs from the sites above its threshold): every positive's best window of either strand
    that passes the threshold is a site; the new PWM is their letter counts plus
    ``pseudocount`` letters at the background's frequencies, over the count plus ``pseudocount``;
    repeated until no entry moves by 1e-4 or ``max_iter`` times, or while fewer than 5 sites
    pass. Scores against ``background`` (a :class:`seqimp.background.SiteBackground`), every start.
    The threshold, with ``sites``:

    * ``"enrichment"`` (default) -- the best score at which the positives are most enriched over
      the ``control`` (:func:`seqimp.motifs._sites.enrichment_threshold`, STREME's rule), set
      anew every round;
    * ``"fpr"`` -- scores above the one ``fpr`` of the ``control``'s best windows pass
      (:func:`strict_threshold`): only the sites that decide a scan at that rate.

    Unlike the EM's frequencies, which weigh every window by its posterior and so keep the weak
    ones in, these are the windows the PWM tells apart from the control's: a sharper PWM where
    chance windows of the background (repeats) sit near the threshold. At ``fpr`` = 1% they are
    few for a weak motif (a tenth of the positives on ``gen gcrich``) and the PWM learns them;
    the enrichment threshold takes the share of sites the control's best windows support. Shape
    (m, 4), like ``pwm``."""
    if not 0 < fpr < 1:
        raise SeqimpError(f"fpr must lie in (0, 1), got {fpr}")
    if sites not in ("enrichment", "fpr"):
        raise SeqimpError(f"sites must be 'enrichment' or 'fpr', got {sites!r}")
    pwm = np.asarray(pwm, dtype=np.float64)
    positive = check_sequences(positive, "positive", unknown=True).astype(np.uint8)
    control = check_sequences(control, "control", unknown=True).astype(np.uint8)
    m = pwm.shape[0]
    if pwm.ndim != 2 or pwm.shape[1] != 4 or not m <= min(positive.shape[1], control.shape[1]):
        raise SeqimpError(f"pwm: need shape (m, 4) with m at most the sequences' length, got {pwm.shape}")
    return _sharpened(pwm, positive, control, background, fpr, sites, max_iter, pseudocount, WindowTerms(background))


def _sharpened(pwm, positive, control, background, fpr, sites, max_iter, pseudocount, terms):
    """:func:`sharpened_pwm` on checked input (uint8 codes); ``terms``: the memo of the
    background's window terms (:class:`seqimp.motifs._sites.WindowTerms`)."""
    m = pwm.shape[0]
    starts = np.arange(positive.shape[1] - m + 1)
    null_pos, null_control = terms(positive, starts, m), terms(control, starts, m)
    letters = np.asarray(background.letters, dtype=np.float64)
    for _ in range(max_iter):
        best_control = best_site_scores(pwm, control, starts, _BOTH, background, null_control)
        best, at, on = best_windows(pwm, positive, starts, _BOTH, background, None, null=null_pos)
        if sites == "fpr":
            rows = np.flatnonzero(best > strict_threshold(best_control, fpr))
        else:
            rows = np.flatnonzero(best >= enrichment_threshold(best, best_control)[0])
        if rows.size < 5:
            break
        new = _window_frequencies(positive, rows, at[rows], on[rows], m, letters, pseudocount)  # start = index
        moved = np.abs(new - pwm).max()
        pwm = new
        if moved < 1e-4:
            break
    return pwm


def _fitted(own, own_sites, pos, neg, background, fpr, held_out, options, control, composition, bag=1):
    """``(pwm, fitted, held-out share, kind)`` (step 4). The fits start from the letter
    frequencies of the motif's sites (:func:`site_pwm`) -- on each half, of that half's sites
    alone -- or, where a half holds fewer than :data:`MIN_SITES` of them (or ``own_sites`` is
    None), from the refined PWM ``own``. The fits of :data:`FIT_KINDS` are tried: the start
    tuned (:func:`seqimp.motifs._tune.tune_pwm`) and sharpened (:func:`sharpened_pwm`, at each
    threshold); the tuned fit, or the one passing the most held-out positives where it passes
    clearly more (:func:`_clearly_more`) than the tuned one, is fitted on all sequences where it
    passes clearly more of them than the start does, else the start (on all sequences) is the
    PWM for scanning.
    ``control(negatives, seed)``: the negatives the fit's threshold is taken on;
    ``composition(held, half)``: the held-out positives' shuffles (:func:`chosen_fit`). The
    background's window terms are computed once per array and width (:class:`WindowTerms`:
    the fits and counts of one width read the same ones)."""
    starts = np.arange(pos.shape[1] - own.shape[0] + 1)
    terms = WindowTerms(background)
    m = own.shape[0]

    def fits(start, p, n, seed, kinds=FIT_KINDS, bag=1):
        ctrl = control(n, seed)

        def tune():
            more = [control(n, BAG_SEED + j) for j in range(bag - 1)] if ctrl is not n else []
            return tune_pwm(start, p, ctrl, starts, _BOTH, background, fpr, trim=True, strict=True,
                            window_terms=terms, more_negatives=more, **options)[0]

        def sharpen(sites):
            return _sharpened(start, p, ctrl, background, fpr, sites, SHARPEN_ITER, SHARPEN_PSEUDOCOUNT, terms)

        make = {"tuned": tune, "sharpened": lambda: sharpen("enrichment"),
                "sharpened at the FPR": lambda: sharpen("fpr")}
        return {kind: make[kind]() for kind in kinds}

    name, begin = REFINED, [own, own, own]  # the start on half 0, half 1, all sequences
    if own_sites is not None:
        seqs, at, on = _site_windows(own_sites)
        in_half = seqs % 2
        if min((in_half == 0).sum(), (in_half == 1).sum()) >= MIN_SITES:
            name = SITES
            begin = [_window_frequencies(pos, seqs[keep], at[keep], on[keep], m, background.letters,
                                         SHARPEN_PSEUDOCOUNT) for keep in (in_half == 0, in_half == 1, slice(None))]
    held = np.nan
    if held_out and min(len(pos), len(neg)) >= 4:
        passed, shuffled = dict.fromkeys(FIT_KINDS, 0), dict.fromkeys(FIT_KINDS, 0)
        start_held, start_shuffled, drifted = 0, 0, set()
        halves = [(np.ascontiguousarray(pos[h::2]), neg[h::2]) for h in (0, 1)]  # contiguous: read many times
        for h in (0, 1):
            candidates = fits(begin[h], halves[h][0], halves[h][1], h + 1)
            held_pos, held_neg = halves[1 - h][0], control(halves[1 - h][1], h + 3)
            # the held-out positives' composition without their motifs: what a fit passes there it
            # passes for the letters and letter pairs of the positives, not for the motif
            shuffled_pos = composition(held_pos, h)
            for kind, pwm in candidates.items():
                if not still_the_motif(begin[h], pwm):
                    drifted.add(kind)
                    continue
                held_count, shuffled_count = _passing(pwm, (held_pos, shuffled_pos), held_neg, background, fpr, terms)
                passed[kind] += held_count
                shuffled[kind] += shuffled_count
            held_count, shuffled_count = _passing(begin[h], (held_pos, shuffled_pos), held_neg, background, fpr, terms)
            start_held += held_count
            start_shuffled += shuffled_count
        eligible = [k for k in FIT_KINDS if k not in drifted]
        logger.debug(f"held-out positives (their shuffles) passing: {name} {start_held} ({start_shuffled}), "
                     + ", ".join(f"{k} {v} ({shuffled[k]})" if k in eligible else f"{k} (another motif)"
                                 for k, v in passed.items()))
        kind = chosen_fit(passed, shuffled, start_held, start_shuffled, eligible)
        if kind is None:
            return begin[2], False, start_held / len(pos), name
        held = passed[kind] / len(pos)
    else:
        kind = FIT_KINDS[0]  # without the held-out check: the first kind
    final = fits(begin[2], pos, neg, 0, (kind,), bag)[kind]
    if not still_the_motif(begin[2], final):
        return begin[2], False, held, name
    return final, True, held, kind


def chosen_fit(passed, shuffled, start_passed, start_shuffled, eligible):
    """The fit kind taken for scanning (step 4), or None for the start. ``passed`` and
    ``shuffled``: per kind, the held-out positives and the held-out positives' dinucleotide
    shuffles its PWM passes; ``start_*`` the start's; ``eligible``: the kinds still their motif,
    in :data:`FIT_KINDS` order. A fit's gain over another counts beyond what it gains in the
    shuffles (the letters and letter pairs of the positives, without their motifs): the first
    eligible kind, or the one of largest net gain where it gains clearly more (:func:`_clearly_more`
    of the two sums ``a + shuffled_b`` and ``b + shuffled_a``); then taken only where it gains
    clearly more than the start does. Where the negatives have the positives' composition the
    shuffles pass what the negatives do and this is the plain count; in G/C-rich promoters
    against gene bodies a fit's G/C flank columns gain in the shuffles as much as in the promoters."""
    if not eligible:
        return None

    def gains_over(a, b):
        return _clearly_more(passed[a] + (start_shuffled if b is None else shuffled[b]),
                             (start_passed if b is None else passed[b]) + shuffled[a])

    best = max(eligible, key=lambda k: passed[k] - shuffled[k])  # the first of FIT_KINDS among equals
    kind = best if gains_over(best, eligible[0]) else eligible[0]
    return kind if gains_over(kind, None) else None


def _clearly_more(a, b) -> bool:
    """Whether the count ``a`` is clearly more than ``b``: by at least 2 and :data:`MARGIN_SD`
    standard deviations of their difference."""
    return a - b >= max(2.0, MARGIN_SD * np.sqrt(a + b))


def _passing(pwm, positives, neg, background, fpr, terms=None) -> tuple:
    """For each array of ``positives``, the sequences whose best window scores above the (k+1)-th
    best negative, k = floor(fpr n): at most a share ``fpr`` of the negatives does (strictly: a
    PWM whose best word alone is in more negatives passes no positive on it); the negatives scored
    once for all of them. ``terms``: a :class:`WindowTerms` memo to read. Every window of each array."""
    m = pwm.shape[0]

    def best(x):
        starts = np.arange(x.shape[1] - m + 1)
        return best_site_scores(pwm, x, starts, _BOTH, background, None if terms is None else terms(x, starts, m))

    threshold = strict_threshold(best(neg), fpr)
    return tuple(int((best(x) > threshold).sum()) for x in positives)


def _threshold_row(motif, flat, pos, neg, background, fpr, held, tuned) -> dict:
    """Step 5: the threshold as ``seqimp scan`` scores, the shares reaching it, HOMER's threshold."""
    best_pos, best_neg = (best_sequence_scores(motif, codes, offsets, background, strand="both", pseudocount=0.0)
                          for codes, offsets in flat)
    cut = int(strict_threshold(best_neg, fpr)) + 1  # the smallest integer score reported
    starts = np.arange(pos.shape[1] - motif.length + 1)
    homer = site_scores(motif.pwm, neg, starts, _BOTH, np.full(4, 0.25)).max(axis=(1, 2)) * np.log(2.0)
    # HOMER counts scores at least its threshold: written with 6 decimals, just above the (k+1)-th negative
    h_written = (np.floor(strict_threshold(homer, fpr) * 1e6) + 1) / 1e6
    return {"scan_threshold": cut / SCALE, "scan_fraction_positive": float(np.mean(best_pos >= cut)),
            "scan_fraction_negative": float(np.mean(best_neg >= cut)), "scan_held_out_fraction_positive": held,
            "scan_tuned": bool(tuned), "scan_length": motif.length, "scan_homer_threshold": float(h_written)}
