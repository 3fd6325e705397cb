"""PWMs for scanning (seqimp.motifs.scanning_motifs): the discriminative fit raises a PWM's
whole-sequence recall at 1% FPR on a GC-rich set (counted on sequences it was not fitted on),
and seqimp scan at the recorded threshold, from the files, finds exactly the recorded shares."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from seqimp.background import SiteBackground
from seqimp.background._site_background import read_bfile
from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, MotifSites, read_meme, scan_sequences, scanning_motifs, write_meme
from seqimp.motifs._scanning_pwm import _passing, quantised_pwm
from motif_helpers import word_pwm


def _planted():
    return Motif.from_consensus("p", "TTGACGTCAA", purity=0.85).pwm


def _gc_rich_set(seed, n, L=150, share=0.5):
    """n positives and n negatives of GC-rich letters (64% GC); the planted PWM anywhere, on
    either strand, in ``share`` of the positives."""
    rng = np.random.default_rng(seed)
    X = rng.choice(4, size=(2 * n, L), p=[0.18, 0.32, 0.32, 0.18]).astype(np.uint8)
    pwm = _planted()
    for i in rng.choice(n, int(share * n), replace=False):
        site = (rng.random((10, 1)) > np.cumsum(pwm, axis=1)).sum(axis=1)
        s = rng.integers(0, L - 10 + 1)
        X[i, s:s + 10] = site if rng.random() < 0.5 else (3 - site)[::-1]
    return X[:n], X[n:]


def _sites(pwm):
    return MotifSites([Motif("motif1", pwm, start=50)], pd.DataFrame({"name": ["motif1"]}), pd.DataFrame())


def test_fit_raises_whole_sequence_recall_on_a_gc_rich_set(caplog):
    """A PWM that lost its outer columns (uniform there: its core GACGTC alone matches by chance
    in GC-rich sequences) is fitted back towards the planted one: on a fresh set, at the
    score 1% of the fresh negatives pass, it recalls far more positives (349 -> about 640 of
    1,000; the planted PWM 685 at this seed). The log line gives both shares, each with the
    negatives it was counted against."""
    pos, neg = _gc_rich_set(1, 600)
    start = _planted()
    start[[0, 1, 8, 9]] = 0.25
    with caplog.at_level(logging.INFO, logger="seqimp"):
        out = scanning_motifs(_sites(start), pos, neg)
    row = out.stats.iloc[0]
    line = next(r.getMessage() for r in caplog.records if "PWM for scanning" in r.getMessage())
    assert (f"whole sequences at 1% FPR, {100 * row['scan_fraction_positive']:.1f}% of positives, "
            f"{100 * row['scan_held_out_fraction_positive']:.1f}% held out (at 1% FPR of the held-out negatives "
            "with draws from their Markov chain)") in line
    assert bool(row["scan_tuned"])
    test_pos, test_neg = _gc_rich_set(2, 1000)
    background = SiteBackground.fit(test_neg, 2)
    (before,) = _passing(start, (test_pos,), test_neg, background, 0.01)
    (after,) = _passing(out.scanning[0].pwm, (test_pos,), test_neg, background, 0.01)
    assert after >= 1.4 * before
    # the motif itself (its positional PWM) is left as it was
    np.testing.assert_array_equal(out.motifs[0].pwm, _sites(start).motifs[0].pwm)


def test_passing_counts_each_positive_set_against_one_threshold_of_the_negatives():
    """``_passing`` with several positive arrays: each count is the plain count -- best window of
    either strand above the (k+1)-th best negative, k = floor(0.01 n) -- computed here from
    ``site_scores``, the negatives scored once for all of them."""
    from seqimp.motifs._sites import site_scores

    pos, neg = _gc_rich_set(5, 300)
    other = np.ascontiguousarray(pos[::-1])
    background = SiteBackground.fit(neg, 2)
    pwm = _planted()
    starts = np.arange(pos.shape[1] - pwm.shape[0] + 1)

    def best(x):
        return site_scores(pwm, x, starts, ("+", "-"), background).max(axis=(1, 2))

    threshold = np.sort(best(neg))[::-1][int(np.floor(0.01 * len(neg)))]
    want = tuple(int((best(x) > threshold).sum()) for x in (pos, other[:150]))
    assert _passing(pwm, (pos, other[:150]), neg, background, 0.01) == want
    assert want[0] > 0 and want[1] > 0


def test_a_pwm_without_a_held_out_gain_is_kept_as_refined():
    """The planted PWM itself cannot be bettered: the fit is not kept, the PWM for scanning is
    the motif's own (rounded to six decimals)."""
    pos, neg = _gc_rich_set(3, 300)
    out = scanning_motifs(_sites(_planted()), pos, neg)
    assert not bool(out.stats["scan_tuned"].iloc[0])
    np.testing.assert_array_equal(out.scanning[0].pwm, quantised_pwm(_planted()))


def test_scan_at_the_recorded_threshold_reproduces_the_shares(tmp_path):
    """Written (motifs.meme, background.txt) and read back, seqimp scan with the recorded
    scan_threshold finds a hit in exactly the recorded shares of positives and negatives."""
    pos, neg = _gc_rich_set(4, 300)
    start = _planted()
    start[[0, 9]] = 0.25
    out = scanning_motifs(_sites(start), pos, neg)
    row = out.stats.iloc[0]
    write_meme(out.scanning, tmp_path / "motifs.meme")
    SiteBackground.fit(neg, 2).write(tmp_path / "background.txt")
    motif = read_meme(tmp_path / "motifs.meme")[0]
    background = read_bfile(tmp_path / "background.txt")
    for codes, share in ((pos, row["scan_fraction_positive"]), (neg, row["scan_fraction_negative"])):
        hits = scan_sequences(motif, codes, background=background, pseudocount=0.0,
                              min_scores={"motif1": row["scan_threshold"]})
        assert hits["sequence"].nunique() / len(codes) == pytest.approx(share, abs=1e-12)
    assert 0 < row["scan_fraction_negative"] <= 0.01


def test_the_control_is_drawn_once_for_all_motifs(monkeypatch):
    """The drawn control sequences depend on the seed only: drawn once and shared by every
    motif's fit (the same draws, so a motif given twice gets the same PWM for scanning twice)."""
    from seqimp.background import MarkovBackground

    pos, neg = _gc_rich_set(4, 200)
    start = _planted()
    start[[0, 9]] = 0.25
    calls = []
    sample = MarkovBackground.sample
    monkeypatch.setattr(MarkovBackground, "sample", lambda self, *a, **k: calls.append(a) or sample(self, *a, **k))
    one = scanning_motifs(_sites(start), pos, neg)
    drawn = len(calls)
    two = MotifSites([Motif("motif1", start, start=50), Motif("motif2", start, start=50)],
                     pd.DataFrame({"name": ["motif1", "motif2"]}), pd.DataFrame())
    calls.clear()
    out = scanning_motifs(two, pos, neg)
    assert drawn >= 3 and len(calls) == drawn
    for scan in out.scanning:
        np.testing.assert_array_equal(scan.pwm, one.scanning[0].pwm)
    assert out.stats.iloc[1]["scan_threshold"] == one.stats.iloc[0]["scan_threshold"]


def _fisher_threshold(pos_best, control_best):
    """The enrichment threshold by brute force: every distinct best score t, Fisher's exact test
    (scipy.stats.fisher_exact, one-sided) of the positives and controls scoring at least t;
    the t of the smallest p-value, the highest t among equal ones."""
    from scipy.stats import fisher_exact

    best_t, best_p = None, np.inf
    for t in np.unique(np.concatenate([pos_best, control_best]))[::-1]:
        a, c = int((pos_best >= t).sum()), int((control_best >= t).sum())
        p = fisher_exact([[a, len(pos_best) - a], [c, len(control_best) - c]], alternative="greater")[1]
        if p < best_p * (1 - 1e-9):  # strictly smaller beyond rounding: the highest t of a tie stays
            best_t, best_p = t, p
    return best_t, best_p


def test_enrichment_threshold_is_the_score_of_the_smallest_fisher_p():
    """enrichment_threshold (sorted once, hypergeometric tails) against Fisher's exact test at
    every distinct score, on scores with many ties and on continuous ones."""
    from seqimp.motifs._sites import enrichment_threshold

    rng = np.random.default_rng(11)
    for trial in range(30):
        n_pos, n_ctrl = rng.integers(5, 60), rng.integers(5, 200)
        if trial % 2:
            pos_best, ctrl_best = rng.integers(0, 8, n_pos) + 1.0, rng.integers(0, 6, n_ctrl) * 1.0
        else:
            pos_best, ctrl_best = rng.normal(0.7, 1, n_pos), rng.normal(0, 1, n_ctrl)
        t, logp = enrichment_threshold(pos_best, ctrl_best)
        want_t, want_p = _fisher_threshold(pos_best, ctrl_best)
        assert t == want_t, trial
        np.testing.assert_allclose(np.exp(logp), want_p, rtol=1e-8)
    with pytest.raises(SeqimpError, match="enrichment_threshold"):
        enrichment_threshold([], [1.0])


def test_hypergeometric_log_tails_reach_far_below_the_smallest_float():
    """_log_tail against the log of the summed probabilities (scipy's logpmf, logsumexp) over
    small and large tables, tails far below the smallest float included, and at the edges of the support."""
    from scipy.special import logsumexp
    from scipy.stats import hypergeom

    from seqimp.motifs._sites import _log_tail

    for total, marked, drawn in [(20, 7, 9), (300, 40, 120), (6000, 1000, 700), (18000, 9000, 5000)]:
        lo, hi = max(0, drawn - (total - marked)), min(marked, drawn)
        for k in sorted({lo, lo + 1, (lo + hi) // 2, hi - 1, hi, hi - (hi - lo) // 5}):
            want = logsumexp(hypergeom.logpmf(np.arange(k, hi + 1), total, marked, drawn))
            got = _log_tail(k, total, marked, drawn)
            assert got == pytest.approx(min(want, 0.0), rel=1e-9, abs=1e-12), (total, marked, drawn, k)
        assert _log_tail(hi + 1, total, marked, drawn) == -np.inf
    assert -np.inf < _log_tail(4000, 18000, 9000, 5000) < np.log(1e-300)  # p = 1e-572, a number


class _CountingBackground(SiteBackground):
    """A Markov background that notes the width of every window_log2 call in ``calls``."""

    def __init__(self, frequencies, calls):
        super().__init__(frequencies)
        self.calls = calls

    def window_log2(self, codes, starts, m, strands=("+", "-")):
        self.calls.append(m)
        return super().window_log2(codes, starts, m, strands)


def test_window_terms_are_computed_once_and_equal_the_backgrounds():
    from seqimp.motifs._sites import WindowTerms

    pos, neg = _gc_rich_set(6, 30, L=40)
    background = SiteBackground.fit(neg, 2)
    calls = []
    terms = WindowTerms(_CountingBackground(background.frequencies, calls))
    starts = np.arange(40 - 10 + 1)
    first = terms(pos, starts, 10)
    np.testing.assert_array_equal(first, background.window_log2(pos, starts, 10))
    assert first.flags["C_CONTIGUOUS"] and first.shape == (len(pos), starts.size, 2)
    assert terms(pos, starts, 10) is first and len(calls) == 1
    terms(pos, starts[1:], 10), terms(neg, starts, 10), terms(pos, starts[:-1], 11)
    assert len(calls) == 4
    assert WindowTerms(SiteBackground.fit(neg, 0))(pos, starts, 10) is None
    from seqimp.motifs._tune import tune_pwm  # a memo of other strands than the fit reads is refused

    with pytest.raises(SeqimpError, match=r"window_terms are of strands \('\+', '-'\), the fit reads \('\+',\)"):
        tune_pwm(_planted(), pos, neg, starts, ("+",), background, 0.05, window_terms=WindowTerms(background))


def test_window_terms_hold_at_most_their_bound_and_let_go_the_least_recently_read():
    """The memo's bound: with room for two arrays, the third read lets go the one read longest
    ago (computed again, the same values, when read again); the newest is held even where it
    alone passes the bound."""
    from seqimp.motifs._sites import WindowTerms

    pos, _ = _gc_rich_set(6, 30, L=40)
    background = SiteBackground.fit(pos, 1)
    starts = np.arange(20)
    one = background.window_log2(pos, starts, 8).nbytes
    calls = []
    terms = WindowTerms(_CountingBackground(background.frequencies, calls), max_bytes=2 * one)
    a = terms(pos, starts, 8)
    terms(pos, starts, 9)
    assert terms(pos, starts, 8) is a and calls == [8, 9]  # read again: now the newest
    terms(pos, starts, 10)  # lets 9 go, the one read longest ago
    assert terms.nbytes == 2 * one and len(calls) == 3
    assert terms(pos, starts, 8) is a and len(calls) == 3
    again = terms(pos, starts, 9)
    assert calls == [8, 9, 10, 9]
    np.testing.assert_array_equal(again, background.window_log2(pos, starts, 9))
    small = WindowTerms(background, max_bytes=1)  # the newest alone is held
    b = small(pos, starts, 8)
    assert small(pos, starts, 8) is b and small.nbytes == one
    small(pos, starts, 9)
    assert small.nbytes == one
@pytest.mark.parametrize("sites", ["fpr", "enrichment"])
def test_one_round_of_sharpening_is_the_frequencies_of_the_passing_best_windows(sites):
    """sharpened_pwm, one round, against its definition written out: every positive's best
    window (either strand, every start; the first of equal ones) passing the threshold -- above
    the strict threshold of the control's best windows (``fpr``), or at least the score of the
    smallest Fisher p-value (``enrichment``, by brute force) --, its letters (reverse-complemented
    on -) counted, plus one pseudo-letter at the background's frequencies."""
    from seqimp.motifs._scanning_pwm import sharpened_pwm
    from seqimp.motifs._sites import site_scores, strict_threshold

    pos, neg = _gc_rich_set(6, 120, L=40)
    background = SiteBackground.fit(neg, 2)
    start = _planted()
    start[[0, 9]] = 0.25
    got = sharpened_pwm(start, pos, neg, background, 0.05, sites=sites, max_iter=1)
    starts = np.arange(40 - 10 + 1)
    neg_best = site_scores(start, neg, starts, ("+", "-"), background).max(axis=(1, 2))
    scores = site_scores(start, pos, starts, ("+", "-"), background)
    if sites == "fpr":
        passes = scores.max(axis=(1, 2)) > strict_threshold(neg_best, 0.05)
    else:
        passes = scores.max(axis=(1, 2)) >= _fisher_threshold(scores.max(axis=(1, 2)), neg_best)[0]
    counts = np.zeros((10, 4))
    for i in range(len(pos)):
        j, t = np.unravel_index(np.argmax(scores[i]), scores[i].shape)
        if passes[i]:
            window = pos[i, j:j + 10] if t == 0 else (3 - pos[i, j:j + 10])[::-1]
            counts[np.arange(10), window] += 1
    assert counts.sum() >= 50  # enough sites for the round to run
    want = (counts + background.letters) / (counts.sum(axis=1, keepdims=True) + 1.0)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_sharpening_refuses_bad_input_in_one_line():
    from seqimp.motifs._scanning_pwm import sharpened_pwm

    pos, neg = _gc_rich_set(6, 20, L=40)
    background = SiteBackground.fit(neg, 2)
    for kwargs, message in [(dict(fpr=0.0), r"^fpr must lie in \(0, 1\), got 0.0$"),
                            (dict(sites="best"), r"^sites must be 'enrichment' or 'fpr', got 'best'$"),
                            (dict(pwm=np.full((41, 4), 0.25)), r"^pwm: need shape \(m, 4\)")]:
        args = dict(pwm=_planted(), fpr=0.01) | kwargs
        with pytest.raises(SeqimpError, match=message):
            sharpened_pwm(args.pop("pwm"), pos, neg, background, args.pop("fpr"), **args)


def _with_poly_a(X, seed, share=0.4):
    """Poly-A runs of 12 letters at random places in ``share`` of the rows, in place."""
    rng = np.random.default_rng(seed)
    for i in rng.choice(len(X), int(share * len(X)), replace=False):
        s = rng.integers(0, X.shape[1] - 12 + 1)
        X[i, s:s + 12] = 0
    return X


def test_sharpening_a_pwm_drawn_to_a_repeat_raises_its_recall():
    """Poly-A runs in 40% of both classes; a PWM whose columns the runs drew towards A (as an
    EM's frequencies take in the windows of a repeat near the motif's score) and sharpened on
    one set recalls more positives of a fresh set at 1% of its negatives: the windows the sites
    are taken from (best windows at the score where the positives are most enriched over the
    negatives) are the motif's, not the runs', which are in the negatives too."""
    from seqimp.motifs._scanning_pwm import sharpened_pwm

    pos, neg = (_with_poly_a(X, seed) for X, seed in zip(_gc_rich_set(7, 600), (1, 2)))
    drawn = 0.6 * _planted() + 0.4 * np.eye(4)[np.zeros(10, dtype=int)]
    sharp = sharpened_pwm(drawn, pos, neg, SiteBackground.fit(neg, 2), 0.01)
    test_pos, test_neg = (_with_poly_a(X, seed) for X, seed in zip(_gc_rich_set(8, 1000), (3, 4)))
    test_background = SiteBackground.fit(test_neg, 2)
    (before,) = _passing(drawn, (test_pos,), test_neg, test_background, 0.01)
    (after,) = _passing(sharp, (test_pos,), test_neg, test_background, 0.01)
    assert after >= before + 50, (before, after)


def _site_table(pos, pwm, name="motif1", every=1):
    """A site table as refine_motifs writes it: each positive's best window (either strand) of
    ``pwm``, every ``every``-th positive."""
    from seqimp.motifs._sites import best_windows

    m = len(pwm)
    best, at, on = best_windows(pwm, pos, np.arange(pos.shape[1] - m + 1), ("+", "-"), np.full(4, 0.25), None)
    rows = np.arange(0, len(pos), every)
    return pd.DataFrame({"motif": name, "sequence": rows, "id": [f"s{i}" for i in rows], "position": at[rows] + 1,
                         "strand": np.array(["+", "-"])[on[rows]], "score": best[rows]})


def test_site_pwm_is_the_letter_frequencies_of_the_sites_windows():
    """site_pwm against the windows cut out and reverse-complemented by hand, counted letter by
    letter, with the pseudocount at the given letters; ``rows`` keeps the sites of those sequences."""
    from seqimp.motifs._scanning_pwm import site_pwm

    pos, _neg = _gc_rich_set(5, 40, L=60)
    table = _site_table(pos, _planted())
    assert set(table["strand"]) == {"+", "-"}
    letters = np.array([0.1, 0.4, 0.3, 0.2])
    for rows in (None, np.arange(1, 40, 2)):
        counts = np.zeros((10, 4))
        for s, p, strand in zip(table["sequence"], table["position"], table["strand"]):
            if rows is not None and s not in rows:
                continue
            window = pos[s, p - 1:p + 9]
            if strand == "-":
                window = 3 - window[::-1]
            counts[np.arange(10), window] += 1
        expected = (counts + 2.0 * letters) / (counts.sum(axis=1, keepdims=True) + 2.0)
        np.testing.assert_allclose(site_pwm(table, pos, 10, letters, 2.0, rows=rows), expected, rtol=0, atol=1e-15)
    # the sequences as strings: the same frequencies
    strings = ["".join("ACGT"[c] for c in row) for row in pos]
    np.testing.assert_array_equal(site_pwm(table, strings, 10, letters), site_pwm(table, pos, 10, letters))
    for bad, message in ((table.assign(position=table["position"] + 60), "lies outside"),
                         (table.drop(columns="strand"), "no column strand")):
        with pytest.raises(SeqimpError, match=message) as err:
            site_pwm(bad, pos, 10, letters)
        assert "\n" not in str(err.value)


def test_fits_start_from_each_halfs_own_sites(monkeypatch):
    """With a site table, every fit on a half starts from the letter frequencies of that half's
    sites alone (the refined PWM was fitted on both halves: a fit started from it is counted
    on sequences it has seen), the fit on all sequences from all sites; with too few sites in
    a half, from the refined PWM. The start is the PWM for scanning where no fit passes clearly
    more held-out positives (``scan_pwm`` says which)."""
    import seqimp.motifs._scanning_pwm as scanning
    from seqimp.background import SiteBackground
    from seqimp.motifs._scanning_pwm import site_pwm

    pos, neg = _gc_rich_set(6, 300)
    planted = _planted()
    table = _site_table(pos, planted)
    letters = SiteBackground.fit(np.asarray(neg, dtype=np.uint8), 2).letters
    starts = []
    tune = scanning.tune_pwm
    monkeypatch.setattr(scanning, "tune_pwm", lambda pwm, p, *a, **k: starts.append((len(p), pwm)) or tune(pwm, p, *a, **k))
    sites = MotifSites([Motif("motif1", planted, start=50)], pd.DataFrame({"name": ["motif1"]}), table)
    out = scanning_motifs(sites, pos, neg)
    halves = [site_pwm(table, pos, 10, letters, rows=np.arange(h, 300, 2)) for h in (0, 1)]
    assert [n for n, _ in starts[:2]] == [150, 150]
    for (_n, got), want in zip(starts, halves):
        np.testing.assert_array_equal(got, want)
    row = out.stats.iloc[0]  # the planted PWM's own sites: no fit passes clearly more
    assert row["scan_pwm"] == "site frequencies" and not bool(row["scan_tuned"])
    np.testing.assert_allclose(out.scanning[0].pwm, quantised_pwm(site_pwm(table, pos, 10, letters)), rtol=0,
                               atol=1e-15)
    # without the held-out check the first fit (tuned) is made on all sequences, from all sites
    starts.clear()
    out = scanning_motifs(sites, pos, neg, held_out=False)
    assert [n for n, _ in starts] == [300] and out.stats.iloc[0]["scan_pwm"] == "tuned"
    np.testing.assert_array_equal(starts[0][1], site_pwm(table, pos, 10, letters))
    # nine sites in half 1 (< MIN_SITES = 10): the fits start from the refined PWM, which stays
    few = table[(table["sequence"] % 2 == 0) | (table["sequence"] < 18)]
    starts.clear()
    out = scanning_motifs(MotifSites(sites.motifs, sites.stats, few), pos, neg)
    assert len(starts) == 2
    for _n, got in starts:
        np.testing.assert_array_equal(got, planted)
    assert out.stats.iloc[0]["scan_pwm"] == "as refined"
    np.testing.assert_array_equal(out.scanning[0].pwm, quantised_pwm(planted))


def test_the_tuned_fit_written_is_bagged_over_drawn_controls(monkeypatch):
    """The fit on all sequences runs against ``bag - 1`` more controls (the negatives and a
    control drawn for each, all different; tune_pwm's more_negatives), the held-out fits
    against one; bag=1 is one ascent. A bag below 1 is refused in one line."""
    import seqimp.motifs._scanning_pwm as scanning

    pos, neg = _gc_rich_set(4, 200)
    start = _planted()
    start[[0, 9]] = 0.25
    calls = []
    tune = scanning.tune_pwm
    monkeypatch.setattr(scanning, "tune_pwm",
                        lambda pwm, p, n, *a, **k: calls.append((len(p), n, k["more_negatives"])) or tune(pwm, p, n, *a, **k))
    for bag in (4, 1):
        calls.clear()  # without the held-out check: the tuned fit on all sequences
        out = scanning_motifs(_sites(start), pos, neg, bag=bag, held_out=False)
        assert out.stats.iloc[0]["scan_pwm"] == "tuned"
        [(n_all, control, more)] = calls
        assert n_all == 200 and len(more) == bag - 1
        for other in more:
            assert other.shape == control.shape and not np.array_equal(other, control)
            np.testing.assert_array_equal(other[:200], neg)  # the negatives, then the drawn ones
        assert all(not np.array_equal(a, b) for i, a in enumerate(more) for b in more[i + 1:])
    calls.clear()  # the held-out fits: one ascent each
    scanning_motifs(_sites(start), pos, neg)
    assert [len(m) for n, _c, m in calls if n == 100] == [0, 0]
    with pytest.raises(SeqimpError, match="bag") as err:
        scanning_motifs(_sites(start), pos, neg, bag=0)
    assert "\n" not in str(err.value)


def test_a_scanning_fit_that_changes_the_core_letters_is_another_motif():
    """still_the_motif: sharpened, flank-grown and reverse-complemented fits of NFY's CCAAT box
    stay the motif; a fit that turns CCAAT into CCACT, and a G/C run, do not."""
    from seqimp.motifs._copies import still_the_motif

    start = word_pwm("NGGCCAATCAN", 0.9)  # 1.37 bits a letter: every letter is core
    assert still_the_motif(start, word_pwm("NGGCCAATCAN", 0.95))
    assert still_the_motif(start, word_pwm("CCGGCCAATCAGC", 0.8))  # flanks grown
    assert still_the_motif(start, word_pwm("NTGATTGGCCN", 0.9))  # the other strand
    assert not still_the_motif(start, word_pwm("CGCGGCCACTCGGCGG", 0.8))  # CCAAT lost
    assert not still_the_motif(start, word_pwm("GGGGCGGGGCGG", 0.8))
    assert not still_the_motif(start, word_pwm("NGGCCAA", 0.9))  # the core's end cut off


def test_a_fit_must_gain_beyond_what_it_gains_in_the_positives_shuffles():
    """chosen_fit on counts: a tuned fit passing 300 held-out positives against the start's 200
    is taken when their shuffles pass about the same (20, 18); not when it passes 150 of the
    shuffles to the start's 20 (its gain is composition); among fits, the larger net gain."""
    from seqimp.motifs._scanning_pwm import FIT_KINDS, chosen_fit

    tuned, sharp = FIT_KINDS[0], FIT_KINDS[1]
    zero = dict.fromkeys(FIT_KINDS, 0)
    assert chosen_fit({**zero, tuned: 300}, {**zero, tuned: 20}, 200, 18, list(FIT_KINDS)) == tuned
    assert chosen_fit({**zero, tuned: 300}, {**zero, tuned: 150}, 200, 20, list(FIT_KINDS)) is None
    # the sharpened fit passes more positives, but by composition: the tuned one's net gain is larger
    passed, shuffled = {**zero, tuned: 260, sharp: 330}, {**zero, tuned: 15, sharp: 160}
    assert chosen_fit(passed, shuffled, 200, 15, list(FIT_KINDS)) == tuned
    assert chosen_fit(passed, shuffled, 200, 15, [sharp]) is None
    assert chosen_fit(passed, shuffled, 200, 15, []) is None
