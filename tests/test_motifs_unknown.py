"""Unknown bases (N and the IUPAC codes, code 4) in the motif stage: a PWM window or a seed word
that covers one is never scored, a site or a seed, and no record is dropped. Every check here
compares with a plain count over all windows written in the test."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from seqimp.background import SiteBackground
from seqimp.motifs import Motif, refine_motifs, scan_sequences, scanning_motifs
from seqimp.motifs._gkm_seeds import _word_codes, gkm_seeds, word_counts
from seqimp.motifs._sites import (best_site_scores, em_step, has_site, mask_sites,
                                  reverse_complement_codes, site_scores, weighted_counts, window_letters)
from seqimp.motifs._tune import _apply_column, _letter_best, tune_pwm
from seqimp.motifs._word_seeds import _presence, word_seeds

N = 4  # the unknown code


def _with_unknown(rng, n, L, share=0.05):
    """Random codes with about ``share`` of the bases unknown, runs of 1-3 included."""
    X = rng.integers(0, 4, size=(n, L)).astype(np.uint8)
    for _ in range(int(share * n * L / 2)):
        i, s, r = rng.integers(n), rng.integers(L), rng.integers(1, 4)
        X[i, s:s + r] = N
    return X


def _plain_scores(pwm, X, starts, background):
    """log2-odds of every window on + and - by a loop over the letters; -inf over an unknown base."""
    m = pwm.shape[0]
    out = np.full((len(X), len(starts), 2), -np.inf)
    for i in range(len(X)):
        for j, s in enumerate(starts):
            w = [int(x) for x in X[i, s:s + m]]
            if max(w) > 3:
                continue
            null = sum(np.log2(background[x]) for x in w)
            out[i, j, 0] = sum(np.log2(pwm[c, x]) for c, x in enumerate(w)) - null
            rc = [3 - x for x in w[::-1]]
            out[i, j, 1] = sum(np.log2(pwm[c, x]) for c, x in enumerate(rc)) - null
    return out


def _pwm(rng, m):
    p = rng.random((m, 4)) + 0.1
    return p / p.sum(axis=1, keepdims=True)


def test_reverse_complement_keeps_an_unknown_base_unknown():
    x = np.array([[0, 1, 2, 3, N]], dtype=np.uint8)
    np.testing.assert_array_equal(reverse_complement_codes(x), [[N, 0, 1, 2, 3]])
    letters = window_letters(x, np.array([0, 1]), 4, "-")
    np.testing.assert_array_equal(letters, [[[0, 1, 2, 3], [N, 0, 1, 2]]])


@pytest.mark.parametrize("strands", [("+",), ("-",), ("+", "-")])
def test_site_scores_leave_windows_over_unknown_bases_unscored(strands):
    rng = np.random.default_rng(3)
    X = _with_unknown(rng, 12, 40, share=0.15)
    pwm, bg = _pwm(rng, 6), np.array([0.3, 0.2, 0.2, 0.3])
    starts = np.arange(40 - 6 + 1)
    plain = _plain_scores(pwm, X, starts, bg)[:, :, [0 if s == "+" else 1 for s in strands]]
    got = site_scores(pwm, X, starts, strands, bg)
    assert np.isneginf(plain).any() and np.isfinite(plain).any()
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(plain))
    np.testing.assert_allclose(got[np.isfinite(plain)], plain[np.isfinite(plain)], rtol=0, atol=1e-9)
    np.testing.assert_array_equal(best_site_scores(pwm, X, starts, strands, bg), got.max(axis=(1, 2)))


def test_markov_scores_equal_the_scan_with_the_unknown_windows_dropped():
    """Against an order-2 background: a window without an unknown base scores what it scores
    when every unknown base is replaced by a letter (its terms lie inside the window), and a
    window over one scores -inf; the best score of a row is the best over its known windows."""
    rng = np.random.default_rng(4)
    X = _with_unknown(rng, 15, 50, share=0.1)
    X[0] = N  # a record of unknown bases only: no window, kept
    background = SiteBackground.fit(rng.integers(0, 4, size=(40, 60)).astype(np.uint8), 2)
    pwm, starts = _pwm(rng, 7), np.arange(50 - 7 + 1)
    got = site_scores(pwm, X, starts, ("+", "-"), background)
    for letter in range(4):
        filled = np.where(X == N, letter, X).astype(np.uint8)
        ref = site_scores(pwm, filled, starts, ("+", "-"), background)
        covered = np.array([[(X[i, s:s + 7] == N).any() for s in starts] for i in range(len(X))])
        np.testing.assert_array_equal(got[~covered], ref[~covered])
        assert np.isneginf(got[covered]).all()
    best = best_site_scores(pwm, X, starts, ("+", "-"), background)
    np.testing.assert_array_equal(best, got.max(axis=(1, 2)))
    assert best[0] == -np.inf
    assert not has_site(best[:1], -np.inf, True)[0]  # a row without a window is never a site


def test_em_step_and_counts_read_no_unknown_base():
    """One EM step equals its definition written out: the posteriors of the scored windows
    (natural-log odds, prior gamma over the places, 1 - gamma for none), letter counts of the
    windows weighted by them; a row without a known window adds log(1 - gamma) and nothing else."""
    rng = np.random.default_rng(5)
    X = _with_unknown(rng, 10, 30, share=0.2)
    X[3] = N
    pwm, bg, gamma = _pwm(rng, 5), np.array([0.25, 0.25, 0.25, 0.25]), 0.4
    starts = np.arange(30 - 5 + 1)
    odds = np.exp(_plain_scores(pwm, X, starts, bg) * np.log(2.0))  # 0 over an unknown base
    prior = gamma / (len(starts) * 2)
    den = (1 - gamma) + prior * odds.sum(axis=(1, 2))
    post = prior * odds / den[:, None, None]
    counts, loglik, mass = em_step(pwm, X, starts, ("+", "-"), bg, gamma)
    np.testing.assert_allclose(loglik, np.log(den).sum(), rtol=1e-10)
    np.testing.assert_allclose(mass, post.sum(), rtol=1e-10)
    plain = np.zeros((5, 4))
    for i, j, k in zip(*np.nonzero(post)):
        w = X[i, starts[j]:starts[j] + 5]
        assert (w < 4).all()
        for c, x in enumerate(w if k == 0 else 3 - w[::-1]):
            plain[c, x] += post[i, j, k]
    np.testing.assert_allclose(counts, plain, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weighted_counts(post, X, starts, 5), plain, rtol=1e-10, atol=1e-12)
    # weights given by hand to windows over unknown bases count for no letter
    ones = np.ones_like(post)
    total = weighted_counts(ones, X, starts, 5).sum(axis=1)
    known = sum(int((X[i, s:s + 5] < 4).sum()) for i in range(len(X)) for s in starts)
    np.testing.assert_allclose(total.sum(), 2 * known)


def test_tuning_kernels_skip_windows_over_unknown_bases():
    rng = np.random.default_rng(6)
    X = _with_unknown(rng, 8, 25, share=0.2).astype(np.intp)
    pwm, bg = _pwm(rng, 4), np.full(4, 0.25)
    starts = np.arange(25 - 4 + 1)
    base = site_scores(pwm, X, starts, ("+", "-"), bg)
    for column in range(4):
        out = np.empty((len(X), 4))
        _letter_best(base, X, starts, 4, column, np.arange(len(X)), out)
        plain = np.full((len(X), 4), -np.inf)
        for i in range(len(X)):
            for j, s in enumerate(starts):
                for k in range(2):
                    if np.isfinite(base[i, j, k]):
                        x = X[i, s + column] if k == 0 else 3 - X[i, s + 3 - column]
                        plain[i, x] = max(plain[i, x], base[i, j, k])
        np.testing.assert_array_equal(out, plain)
    shift = np.array([0.5, -1.0, 0.0, 2.0])
    moved = base.copy()
    _apply_column(moved, X, starts, 4, 1, shift)
    assert np.array_equal(np.isneginf(moved), np.isneginf(base))
    shifted = pwm.copy()
    shifted[1] *= 2.0 ** shift  # the log2-odds of column 1 moved by shift
    ref = site_scores(shifted, X, starts, ("+", "-"), bg)
    np.testing.assert_allclose(moved[np.isfinite(base)], ref[np.isfinite(base)], atol=1e-9)


def _planted_set(seed, n=120, L=80, word="TGACTCAG"):
    """Positives holding ``word`` in half of them (either strand), negatives without; unknown
    bases sprinkled over both, some over a planted word."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(2 * n, L)).astype(np.uint8)
    code = np.array(["ACGT".index(c) for c in word], dtype=np.uint8)
    planted = []
    for i in range(0, n, 2):
        s = int(rng.integers(0, L - len(code)))
        X[i, s:s + len(code)] = code if i % 4 else (3 - code)[::-1]
        planted.append((i, s))
    X = np.where(rng.random(X.shape) < 0.03, N, X).astype(np.uint8)
    for i, s in planted[:6]:  # an unknown base inside the word: that copy is no site
        X[i, s + 3] = N
    return X[:n], X[n:]


def _covers_unknown(X, i, start, m):
    return bool((X[i, start:start + m] == N).any())


def test_refined_sites_never_cover_an_unknown_base():
    pos, neg = _planted_set(7)
    seed = Motif.from_consensus("ap1", "TGACTCAG", purity=0.8)
    seed.start = 30
    seed.position_free = True
    out = refine_motifs([seed], pos, neg, strand="both", held_out=False)
    assert out.stats.loc[0, "positives"] == len(pos)  # no record dropped
    sites = out.sites
    assert len(sites) >= 20
    m = out.motifs[0].length
    assert not any(_covers_unknown(pos, i, p - 1, m) for i, p in zip(sites["sequence"], sites["position"]))


def test_pwm_for_scanning_runs_over_unknown_bases():
    pos, neg = _planted_set(8, n=160)
    pwm = Motif.from_consensus("ap1", "TGACTCAG", purity=0.85).pwm
    sites = pd.DataFrame({"name": ["motif1"]})
    from seqimp.motifs import MotifSites

    out = scanning_motifs(MotifSites([Motif("motif1", pwm, start=30)], sites, pd.DataFrame()), pos, neg,
                          control_factor=2)
    row = out.stats.iloc[0]
    assert 0.3 < row["scan_fraction_positive"] <= 1.0
    assert row["scan_fraction_negative"] <= 0.01 + 1e-12


def test_masked_sites_are_erased():
    pos, neg = _planted_set(9)
    seed = Motif.from_consensus("ap1", "TGACTCAG", purity=0.8)
    seed.start, seed.position_free = 30, True
    out = refine_motifs([seed], pos, neg, strand="both", held_out=False)
    motif, stats = out.motifs[0], out.stats.iloc[0].to_dict()
    p, n = pos.copy(), neg.copy()
    k_pos, _k_neg = mask_sites(motif, stats, p, n, out.sites, strands=("+", "-"), erase="unknown")
    assert k_pos == len(out.sites)
    starts = np.arange(int(stats["window_start"]) - 1, int(stats["window_end"]))
    for i, at in zip(out.sites["sequence"], out.sites["position"]):
        assert (p[i, at - 1:at - 1 + motif.length] == N).all()  # erased: no base there now
    # no window over an erased site is scored any more
    scores = site_scores(motif.pwm, p, starts, ("+", "-"), np.full(4, 0.25))
    for i, at in zip(out.sites["sequence"], out.sites["position"]):
        assert np.isneginf(scores[i, (starts > at - 1 - motif.length) & (starts < at - 1 + motif.length)]).all()
    assert np.array_equal(p[pos == N], pos[pos == N])  # unknown bases stay unknown
    q = pos.copy()
    mask_sites(motif, stats, q, neg.copy(), out.sites, strands=("+", "-"), random_state=0)
    touched = q != pos
    assert not (q[touched] == N).any()  # random letters: known ones


def _plain_presence(X, m):
    """Sequences holding every word (a window without an unknown base), by a dictionary."""
    held = {}
    for i, row in enumerate(X):
        for s in range(X.shape[1] - m + 1):
            w = row[s:s + m]
            if (w < 4).all():
                held.setdefault(int(sum(int(x) * 4 ** (m - 1 - c) for c, x in enumerate(w))), set()).add(i)
    return held


def test_word_presence_counts_no_word_over_an_unknown_base():
    rng = np.random.default_rng(10)
    X = _with_unknown(rng, 30, 20, share=0.2)
    for m in (2, 3):
        counts, fwd, rev = _presence(X, m)
        plain = np.zeros(4 ** m, dtype=np.int64)
        for w, rows in _plain_presence(X, m).items():
            plain[w] = len(rows)
        np.testing.assert_array_equal(counts, plain)
        covered = np.array([[(X[i, s:s + m] == N).any() for s in range(20 - m + 1)] for i in range(30)])
        assert (fwd[covered] == 4 ** m).all() and (rev[covered] == 4 ** m).all()
        assert (fwd[~covered] < 4 ** m).all()
    fwd, _rev = _word_codes(X, 3)
    assert word_counts(fwd, 3).sum() == (fwd < 64).sum()


def test_word_codes_equal_the_windows_read_as_strings():
    """The rolling indices of every window and of its reverse complement against each window's
    letters read one by one (first letter most significant), 4**m over an unknown base; rows
    shorter than m give no window."""
    rng = np.random.default_rng(12)
    X = _with_unknown(rng, 25, 17, share=0.15)
    for m in (1, 2, 5, 8, 17):
        fwd, rev = _word_codes(X, m)
        assert fwd.shape == rev.shape == (25, 17 - m + 1)
        for i in range(25):
            for s in range(17 - m + 1):
                w = X[i, s:s + m].astype(int)
                if (w == N).any():
                    assert fwd[i, s] == rev[i, s] == 4 ** m
                    continue
                assert fwd[i, s] == sum(x * 4 ** (m - 1 - c) for c, x in enumerate(w))
                assert rev[i, s] == sum((3 - x) * 4 ** (m - 1 - c) for c, x in enumerate(w[::-1]))
    assert _word_codes(X, 18)[0].shape == (25, 0)


def test_word_seeds_skip_copies_interrupted_by_unknown_bases():
    """The planted word seeds a motif; its count of positives is that of a plain count of
    copies without an unknown base (the six copies with N inside are not counted)."""
    pos, neg = _planted_set(11, n=200)
    seeds, table = word_seeds(pos, neg, lengths=(8,), strand="both", max_motifs=1, pad=2)
    assert table.loc[0, "word"] in ("TGACTCAG", "CTGAGTCA")
    word = np.array(["ACGT".index(c) for c in "TGACTCAG"])
    plain = sum(any((row[s:s + 8] == word).all() or (row[s:s + 8] == (3 - word)[::-1]).all()
                    for s in range(pos.shape[1] - 7)) for row in pos)
    assert table.loc[0, "positives"] == plain
    assert np.isfinite(seeds[0].pwm).all() and np.allclose(seeds[0].pwm.sum(axis=1), 1.0)


def test_gkm_seqlet_seeds_count_no_word_over_an_unknown_base():
    pos, neg = _planted_set(12, n=100)
    # seqlets: every planted copy's place, some over the six copies with N inside
    word = np.array(["ACGT".index(c) for c in "TGACTCAG"])
    rows = []
    for i, row in enumerate(pos):
        for s in range(pos.shape[1] - 7):
            w = row[s:s + 8].copy()
            w[3] = word[3] if w[3] == N else w[3]
            if (w == word).all() or (w == (3 - word)[::-1]).all():
                rows.append((i, s, s + 8, 1.0))
    seqlets = pd.DataFrame(rows, columns=["sequence", "start", "end", "score"])
    seeds, table = gkm_seeds(seqlets, pos, neg, word=6, pad=1, max_motifs=1, min_seqlets=3)
    assert len(seeds) == 1 and np.allclose(seeds[0].pwm.sum(axis=1), 1.0)
    # the chosen word's seqlets: those holding it without an unknown base, counted plainly
    chosen = table.loc[0, "word"]
    code = np.array(["ACGT".index(c) for c in chosen])
    held = sum(any((pos[i, j:j + 6] == code).all() or (pos[i, j:j + 6] == (3 - code)[::-1]).all()
                   for j in range(s, e - 5)) for i, s, e, _ in rows)
    assert table.loc[0, "seqlets"] == held


@pytest.mark.parametrize("order", [None, 2])
def test_known_motif_scan_equals_the_scan_with_unknown_windows_dropped(order):
    """At p <= 1 every window is a hit: the hits are exactly the windows without an unknown base
    (each strand), and the windows tested count only those -- against letter frequencies and
    against an order-2 Markov background (whose scores there equal those of the same windows
    with the unknown bases replaced by letters)."""
    rng = np.random.default_rng(13)
    X = _with_unknown(rng, 10, 30, share=0.15)
    seqs = ["".join("ACGTN"[x] for x in row) for row in X]
    motif = Motif.from_consensus("m", "TGACT", purity=0.7)
    background = "uniform" if order is None else SiteBackground.fit(rng.integers(0, 4, (20, 50)).astype(np.uint8), 2)
    filled = scan_sequences([motif], np.where(X == N, 0, X).astype(np.uint8), threshold=1.0, background=background)
    scores = {(i, p, st): sc for i, p, st, sc in zip(filled["sequence"], filled["position"], filled["strand"],
                                                     filled["score"])}
    for given in (seqs, X):
        hits = scan_sequences([motif], given, threshold=1.0, background=background)
        assert all(sc == scores[(i, p, st)] for i, p, st, sc in zip(hits["sequence"], hits["position"],
                                                                      hits["strand"], hits["score"]))
        plain = {(i, s, strand) for i in range(10) for s in range(26) for strand in "+-"
                 if not _covers_unknown(X, i, s, 5)}
        assert set(zip(hits["sequence"], hits["position"] - 1, hits["strand"])) == plain
        assert hits.attrs["tests"]["m"] == len(plain)
        assert "N" not in "".join(hits["matched"])


def test_tuned_pwm_over_unknown_bases_passes_what_a_recount_passes():
    """tune_pwm on sequences with unknown bases: its returned PWM's passing positives, recounted
    from the scores of every window, are at least those of the start (it keeps the start
    otherwise)."""
    pos, neg = _planted_set(14, n=150)
    start = Motif.from_consensus("p", "TGACTCAG", purity=0.6).pwm
    starts = np.arange(pos.shape[1] - 8 + 1)
    bg = np.full(4, 0.25)
    pwm, win = tune_pwm(start, pos, neg, starts, ("+", "-"), bg, 0.02, pad=1, strict=True)

    def passing(p, w):
        b = [site_scores(p, x, w, ("+", "-"), bg).max(axis=(1, 2)) for x in (pos, neg)]
        k = int(np.floor(0.02 * len(neg)))
        return int((b[0] > np.sort(b[1])[len(neg) - k - 1]).sum())

    assert passing(pwm, win) >= passing(start, starts)
