"""Background-aware site scores (seqimp.background.SiteBackground): the window scores of the site
calls, of scan and of enrich against an order-k Markov background equal a brute-force
log-likelihood ratio, and scan's p-values under it equal enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from seqimp.background import SiteBackground
from seqimp.background._site_background import read_bfile
from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, scan_sequences
from seqimp.motifs._context_scores import context_pvalues, context_table
from seqimp.motifs.known._scan import SCALE, best_sequence_scores, encode_any_length
from seqimp.motifs._sites import best_site_scores, site_scores


def _gc_rich(rng, n, L):
    return rng.choice(4, size=(n, L), p=[0.15, 0.35, 0.35, 0.15]).astype(np.uint8)


def _brute_counts(codes, order):
    """Word frequencies of lengths 1..order+1 on both strands, +1 each, by dictionaries."""
    freqs = []
    for length in range(1, order + 2):
        counts = {w: 1.0 for w in itertools.product(range(4), repeat=length)}
        for row in codes:
            rc = [3 - x for x in row[::-1]]
            for seq in (list(row), rc):
                for s in range(len(seq) - length + 1):
                    counts[tuple(seq[s:s + length])] += 1.0
        freqs.append(counts)
    return freqs


def _brute_log2_window(read, freqs, order):
    """log2 P(read) under the chain: each letter given the (at most ``order``) letters before it."""
    total = 0.0
    for c, x in enumerate(read):
        ctx = tuple(read[max(0, c - order):c])
        table = freqs[len(ctx)]
        total += np.log2(table[ctx + (x,)] / sum(table[ctx + (a,)] for a in range(4)))
    return total


@pytest.mark.parametrize("order", [1, 2])
def test_site_scores_equal_brute_force_llr(order):
    rng = np.random.default_rng(3)
    codes = _gc_rich(rng, 6, 23)
    bg = SiteBackground.fit(codes, order)
    freqs = _brute_counts(codes, order)
    pwm = rng.dirichlet(np.ones(4), size=5)
    starts = np.arange(0, 23 - 5 + 1)
    got = site_scores(pwm, codes, starts, ("+", "-"), bg)
    for i in range(len(codes)):
        for j, s in enumerate(starts):
            window = list(codes[i, s:s + 5])
            for t, read in enumerate((window, [3 - x for x in window[::-1]])):
                llr = sum(np.log2(pwm[c, x]) for c, x in enumerate(read)) - _brute_log2_window(read, freqs, order)
                assert got[i, j, t] == pytest.approx(llr, abs=1e-5)  # frequencies kept to 7 digits


@pytest.mark.parametrize("order", [0, 2])
def test_best_site_scores_are_the_bits_of_the_scores_maximum(order):
    """The fused best-window kernel: the same bits as site_scores' array and its maximum, against
    letter frequencies or a Markov background, with its background term given or not."""
    rng = np.random.default_rng(7)
    codes = _gc_rich(rng, 40, 50)
    bg = SiteBackground.fit(codes, order)
    pwm = rng.dirichlet(np.ones(4), size=7)
    starts = np.arange(3, 40)
    for strands in (("+",), ("+", "-"), ("-",)):
        for background in (bg, bg.letters):
            want = site_scores(pwm, codes, starts, strands, background).max(axis=(1, 2))
            got = best_site_scores(pwm, codes.astype(np.intp), starts, strands, background)
            assert got.tobytes() == want.tobytes()
        null = bg.window_log2(codes, starts, 7, strands)
        got = best_site_scores(pwm, codes, starts, strands, bg, null=null if order else None)
        assert got.tobytes() == site_scores(pwm, codes, starts, strands, bg).max(axis=(1, 2)).tobytes()


def test_windows_outside_the_sequences_are_refused():
    """The kernels index a window's letters unsigned: a negative start (or, for the background's
    term, a window past the end) is refused with the starts named, not read."""
    codes = np.zeros((2, 10), dtype=np.uint8)
    pwm = np.full((3, 4), 0.25)
    bg = SiteBackground.fit(codes + np.arange(10, dtype=np.uint8) % 4, 1)
    for starts in (np.array([-1, 0]), np.array([0, 8])):
        with pytest.raises(SeqimpError, match="starts"):
            bg.window_log2(codes, starts, 3)
    with pytest.raises(SeqimpError, match="start -1 is negative"):
        site_scores(pwm, codes, np.array([-1, 0]), ("+",), np.full(4, 0.25))
    with pytest.raises(SeqimpError, match="start -2 is negative"):
        best_site_scores(pwm, codes, np.array([-2]), ("+", "-"), np.full(4, 0.25))


def test_order_zero_is_the_letter_frequencies():
    rng = np.random.default_rng(4)
    codes = _gc_rich(rng, 5, 30)
    bg = SiteBackground.fit(codes, 0)
    pwm = rng.dirichlet(np.ones(4), size=6)
    starts = np.arange(25)
    np.testing.assert_array_equal(site_scores(pwm, codes, starts, ("+", "-"), bg),
                                  site_scores(pwm, codes, starts, ("+", "-"), bg.letters))
    # counted on both strands: A = T and C = G
    assert bg.letters[0] == pytest.approx(bg.letters[3]) and bg.letters[1] == pytest.approx(bg.letters[2])


def test_bfile_round_trip(tmp_path):
    rng = np.random.default_rng(5)
    bg = SiteBackground.fit(_gc_rich(rng, 4, 50), 2)
    path = bg.write(tmp_path / "bg.txt")
    back = read_bfile(path)
    assert back.order == 2
    np.testing.assert_array_equal(back.conditional, bg.conditional)  # read back: the same background
    (tmp_path / "bad.txt").write_text("A 0.3\nC 0.2\nG 0.2\n")
    with pytest.raises(Exception, match="no frequency for the word T"):
        read_bfile(tmp_path / "bad.txt")


def test_scan_scores_and_pvalues_against_a_markov_background():
    """scan's integer scores are the rounded table's sums; its null equals enumeration of all
    4**m windows under the chain."""
    rng = np.random.default_rng(6)
    codes = _gc_rich(rng, 8, 40)
    bg = SiteBackground.fit(codes, 2)
    pwm = rng.dirichlet(np.ones(4) * 0.5, size=5)
    table = context_table(pwm, bg, pseudocount=0.1, scale=SCALE)
    low, tail = context_pvalues(table, bg)
    # enumeration: every window, its probability under the chain and its score
    cond = bg.conditional
    dist = {}
    for word in itertools.product(range(4), repeat=5):
        prob, score, idx = 1.0, 0, 0
        for c, x in enumerate(word):
            idx = idx * 4 + x
            k = min(c, 2)
            w = idx % 4 ** (k + 1)
            prob *= cond[k, w]
            score += table[c, w]
        dist[score] = dist.get(score, 0.0) + prob
    for score in sorted(dist)[::7]:
        expected = sum(p for s, p in dist.items() if s >= score)
        assert tail[score - low] == pytest.approx(expected, rel=1e-9, abs=1e-15)
    # the best score of each sequence: the table against a float log-likelihood ratio, rounded
    flat, offsets = encode_any_length(codes)
    best = best_sequence_scores(pwm, flat, offsets, bg, pseudocount=0.1)
    p = (pwm + 0.1 * bg.letters) / 1.1
    floats = site_scores(p, codes, np.arange(36), ("+", "-"), bg).max(axis=(1, 2))
    assert np.all(np.abs(best / SCALE - floats) <= 5 * 0.005 + 1e-9)  # at most half a unit per column
    # a score threshold reports exactly the windows reaching it
    motif = Motif("m", pwm)
    hits = scan_sequences(motif, codes, background=bg, min_scores={"m": best.max() / SCALE})
    assert len(hits) >= 1 and set(hits["sequence"]) == set(np.flatnonzero(best == best.max()))
    assert (hits["score"] >= best.max() / SCALE - 1e-12).all()


@pytest.mark.parametrize("order", [0, 2])
def test_unknown_letters_count_in_no_word_and_make_their_windows_nan(order):
    """N (code 4) breaks the words the background counts, and a window holding one has no background
    probability (NaN: no site); every other window's term is the one of the same letters without N."""
    rng = np.random.default_rng(11)
    codes = _gc_rich(rng, 5, 30)
    holes = codes.copy()
    holes[0, 7] = holes[2, 0] = holes[3, 29] = 4
    holes[4, 12:15] = 4
    bg = SiteBackground.fit(holes, order)
    runs = [run[run < 4] for row in holes for run in np.split(row, np.flatnonzero(row == 4))]
    brute = _brute_counts([run for run in runs if run.size], order)  # every run of known letters, a record
    for j, table in enumerate(brute):
        words = np.array([table[w] for w in itertools.product(range(4), repeat=j + 1)])
        np.testing.assert_allclose(bg.frequencies[j], words / words.sum(), rtol=1e-6)
    m = 6
    starts = np.arange(0, 30 - m + 1)
    got = bg.window_log2(holes, starts, m)
    plain = bg.window_log2(codes, starts, m)
    for i in range(5):
        for j, s in enumerate(starts):
            if (holes[i, s:s + m] == 4).any():
                assert np.isnan(got[i, j]).all()
            else:
                np.testing.assert_array_equal(got[i, j], plain[i, j])
    assert np.isnan(got).any(axis=2).sum() == 6 + 1 + 1 + 8  # windows over each N
