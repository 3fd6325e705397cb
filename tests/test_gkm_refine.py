"""The gkm route's refinement: the discriminative tuning of a PWM at the site threshold
(pipeline/_gkm_refine.py) against plain rescoring, the l-mer seeds' occurrence rule, and
explaining away on the gkm route (a second position-free motif found in round 2)."""

import numpy as np
import pandas as pd
import pytest

from seqimp.motifs._sites import site_scores
from seqimp.motifs._sites import site_threshold
from seqimp.motifs._tune import _apply_column, _letter_best, _top, _trial_counts, _with_change, sites_passing, tune_pwm

pytestmark = pytest.mark.filterwarnings("ignore:the model is close to chance")

STRANDS = ("+", "-")


def _codes(n, L, seed):
    return np.random.default_rng(seed).integers(0, 4, (n, L)).astype(np.intp)


def _plant(X, motif, rows, rng):
    m = np.array(["ACGT".index(c) for c in motif])
    for i in rows:
        p = rng.integers(0, X.shape[1] - m.size + 1)
        X[i, p:p + m.size] = m if rng.random() < 0.5 else 3 - m[::-1]


def _odds_pwm(S, bg):
    p = bg * 2.0 ** S
    return p / p.sum(axis=1, keepdims=True)


def test_trial_and_apply_equal_rescoring():
    rng = np.random.default_rng(1)
    X = _codes(7, 23, 2)
    bg = np.array([0.3, 0.2, 0.2, 0.3])
    S = rng.normal(size=(5, 4))
    starts = np.arange(2, 23 - 5 + 1)
    for strands in (("+",), STRANDS):
        base = site_scores(_odds_pwm(S, bg), X, starts, strands, bg)
        best = np.empty((len(X), 4))
        for column in (0, 3, 4):
            _letter_best(base, X, starts, 5, column, np.arange(len(X)), best)
            for letter in range(4):
                for delta in (-1.5, -0.25, 0.5, 2.0):
                    T = S.copy()
                    T[column, letter] += delta
                    # the row's normalisation shifts every window by one constant: compare differences
                    full = site_scores(_odds_pwm(T, bg), X, starts, strands, bg).max(axis=(1, 2))
                    shift = np.log2((bg * 2.0 ** T).sum(axis=1)).sum() - np.log2((bg * 2.0 ** S).sum(axis=1)).sum()
                    np.testing.assert_allclose(_with_change(best, letter, delta), full + shift, atol=1e-9)
        T = S.copy()
        T[1, 1] += 0.75
        _apply_column(base, X, starts, 5, 1, np.array([0.0, 0.75, 0.0, 0.0]))  # letter 1 of column 1
        shift = np.log2((bg * 2.0 ** T).sum(axis=1)).sum() - np.log2((bg * 2.0 ** S).sum(axis=1)).sum()
        np.testing.assert_allclose(base, site_scores(_odds_pwm(T, bg), X, starts, strands, bg) + shift, atol=1e-9)


def test_top_holds_the_largest_values_of_a_sort():
    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 60, 500):
        for k in sorted({0, min(1, n - 1), n // 3, n - 1}):  # k < n, as k = floor(fpr n) with fpr < 1
            values = rng.integers(-3, 4, n) * 0.5  # ties everywhere
            values[rng.random(n) < 0.2] = -np.inf
            top = np.empty(k + 1)
            _top(values, k, top)
            assert top.tolist() == np.sort(values)[n - k - 1:].tolist()


def test_trial_counts_equal_sites_passing_of_each_change():
    rng = np.random.default_rng(3)
    deltas = np.array([-1.0, -0.5, 0.5, 1.0])
    for n_pos, n_neg, fpr in ((40, 150, 0.01), (25, 90, 0.05), (30, 60, 0.0)):
        # scores on a coarse grid (ties, also at the top) and letters no window reads (-inf)
        best_pos = rng.integers(-4, 5, (n_pos, 4)) * 0.5
        best_neg = rng.integers(-4, 5, (n_neg, 4)) * 0.5
        best_pos[rng.random((n_pos, 4)) < 0.1] = -np.inf
        best_neg[rng.random((n_neg, 4)) < 0.1] = -np.inf
        counts = np.empty(4, dtype=np.int64)
        k = int(np.floor(fpr * n_neg))
        for letter in range(4):
            _trial_counts(best_pos, best_neg, letter, deltas, k, False, counts)
            plain = [sites_passing(_with_change(best_pos, letter, d), _with_change(best_neg, letter, d), fpr)
                     for d in deltas]
            assert counts.tolist() == plain
            # strict: only scores above the threshold, also where it is the negatives' top score
            _trial_counts(best_pos, best_neg, letter, deltas, k, True, counts)
            above = [int((_with_change(best_pos, letter, d)
                          > site_threshold(_with_change(best_neg, letter, d), fpr)[0]).sum()) for d in deltas]
            assert counts.tolist() == above


def test_sites_passing_follows_the_site_rule():
    neg = np.arange(200, dtype=float)  # 1% of 200: two negatives may pass, so the threshold is 197
    assert sites_passing(np.array([197.0, 197.5, 199.0, 3.0]), neg, 0.01) == 2
    tied = np.full(200, 5.0)  # the best score in every negative: sites are the windows reaching it
    assert sites_passing(np.array([5.0, 4.0, 6.0]), tied, 0.01) == 2


def test_tune_pwm_passes_more_positives_and_never_fewer():
    rng = np.random.default_rng(4)
    pos, neg = _codes(150, 60, 5), _codes(150, 60, 6)
    _plant(pos, "TTACGTAA", range(0, 150, 2), rng)
    bg = np.full(4, 0.25)
    weak = np.full((8, 4), 0.25)
    weak[np.arange(8), ["ACGT".index(c) for c in "TTACGTAA"]] = 0.31  # a faint start
    starts = np.arange(60 - 8 + 1)

    def passing(pwm, win):
        return sites_passing(site_scores(pwm, pos, win, STRANDS, bg).max(axis=(1, 2)),
                             site_scores(pwm, neg, win, STRANDS, bg).max(axis=(1, 2)), 0.01)

    tuned, win = tune_pwm(weak, pos, neg, starts, STRANDS, bg, 0.01)
    assert 8 <= tuned.shape[0] <= 10 and np.allclose(tuned.sum(axis=1), 1.0)
    assert win[0] == 0 and win[-1] == 60 - tuned.shape[0]  # the span of the sequences, at the new width
    assert passing(tuned, win) >= passing(weak, starts)
    assert passing(tuned, win) >= 60  # 75 positives carry the motif; the start passes a handful
    sharp = np.full((8, 4), 0.01)
    sharp[np.arange(8), ["ACGT".index(c) for c in "TTACGTAA"]] = 0.97
    tuned, win = tune_pwm(sharp, pos, neg, starts, STRANDS, bg, 0.01)
    # kept only where more positives pass; else the PWM given comes back
    kept = tuned.shape != sharp.shape or not np.allclose(tuned, sharp)
    assert passing(tuned, win) > passing(sharp, starts) if kept else np.array_equal(win, starts)
    flat = np.full((8, 4), 0.25)  # log-odds 0 everywhere: every window ties, every positive passes
    same, win = tune_pwm(flat, pos, neg, starts, STRANDS, bg, 0.01)
    assert same is flat and np.array_equal(win, starts)


def test_tune_pwm_reads_only_the_band_and_gets_the_same_pwm(monkeypatch):
    """The trials read only the sequences near the threshold (_band); every count, so every
    tuned PWM, is the same as with all sequences read -- compared bitwise with BAND off, for
    both strand choices, letter and order-2 backgrounds, the strict rule, trimming and an fpr
    whose threshold ties."""
    from seqimp.background import SiteBackground
    import seqimp.motifs._tune as tune

    rng = np.random.default_rng(11)
    pos, neg = _codes(300, 80, 12), _codes(400, 80, 13)
    _plant(pos, "TGACGTCA", range(0, 300, 3), rng)
    _plant(neg, "TGACGT", range(0, 400, 9), rng)  # half-sites in the negatives: near-threshold scores
    start = np.full((8, 4), 0.2)
    start[np.arange(8), ["ACGT".index(c) for c in "TGACGTCA"]] = 0.4
    start /= start.sum(axis=1, keepdims=True)
    starts = np.arange(80 - 8 + 1)
    rows = []
    real = tune._letter_best

    def spy(base, codes, starts, m, column, rows_, out):
        rows.append((base.shape[0], rows_.size))
        return real(base, codes, starts, m, column, rows_, out)

    monkeypatch.setattr(tune, "_letter_best", spy)
    cases = [(STRANDS, np.full(4, 0.25), 0.01, False, False), (("+",), np.full(4, 0.25), 0.05, True, True),
             (STRANDS, SiteBackground.fit(neg, 2), 0.01, False, True), (STRANDS, np.full(4, 0.25), 0.0, True, False)]
    # random starts at a loose fpr: many sequences sit at the band's edges
    cases += [(STRANDS, np.full(4, 0.25), 0.1, False, False, rng.dirichlet(np.ones(4), 6)) for _ in range(6)]
    for strands, bg, fpr, strict, trim, *given in cases:
        start = given[0] if given else start
        got = {}
        for band in (True, False):
            monkeypatch.setattr(tune, "BAND", band)
            got[band] = tune_pwm(start, pos, neg, starts, strands, bg, fpr, strict=strict, trim=trim)
        assert got[True][0].tobytes() == got[False][0].tobytes()
        assert np.array_equal(got[True][1], got[False][1])
    assert any(r < n for n, r in rows)  # the band did leave sequences out


def test_tune_pwm_with_more_negatives_averages_the_ascents_log_odds():
    """Bagging: against negatives A and more_negatives [B], the tuned log-odds are the mean of
    the ascent against A and the one against B. With pad 0 and no trim nothing is cut, so
    log2(pwm / letters) of the bagged fit minus the mean of the two single fits' is one constant
    per column (the normalisation); with [A] again it is the single fit itself, bit for bit."""
    from seqimp.background import SiteBackground

    rng = np.random.default_rng(21)
    pos = _codes(200, 60, 22)
    _plant(pos, "TGACGTCA", range(0, 200, 2), rng)
    neg_a, neg_b = _codes(300, 60, 23), _codes(300, 60, 24)
    _plant(neg_b, "TGACG", range(0, 300, 5), rng)  # B differs from A near the threshold
    start = np.full((8, 4), 0.2)
    start[np.arange(8), ["ACGT".index(c) for c in "TGACGTCA"]] = 0.4
    start /= start.sum(axis=1, keepdims=True)
    starts = np.arange(60 - 8 + 1)
    for bg in (np.full(4, 0.25), SiteBackground.fit(neg_a, 2)):
        letters = bg.letters if hasattr(bg, "letters") else bg
        kw = dict(pad=0, strict=True)
        single_a, _ = tune_pwm(start, pos, neg_a, starts, STRANDS, bg, 0.01, **kw)
        single_b, _ = tune_pwm(start, pos, neg_b, starts, STRANDS, bg, 0.01, **kw)
        assert not np.allclose(single_a, start) and not np.allclose(single_b, start)  # both tuned
        assert not np.allclose(single_a, single_b)  # ... differently
        bagged, win = tune_pwm(start, pos, neg_a, starts, STRANDS, bg, 0.01, more_negatives=[neg_b], **kw)
        assert np.array_equal(win, starts)
        rest = np.log2(bagged / letters) - (np.log2(single_a / letters) + np.log2(single_b / letters)) / 2
        np.testing.assert_allclose(rest - rest[:, :1], 0.0, atol=1e-9)
        again, _ = tune_pwm(start, pos, neg_a, starts, STRANDS, bg, 0.01, more_negatives=[neg_a.copy()], **kw)
        assert again.tobytes() == single_a.tobytes()


def test_lmer_seeds_skip_words_no_positive_holds(lmer_scores_model):
    import pandas as pd

    from seqimp.io import kmer_index
    from seqimp.motifs._gkm_seeds import lmer_seeds

    Model = lmer_scores_model
    scores = np.random.default_rng(0).normal(size=4 ** 4)
    scores[kmer_index("ACGT")] = 50.0  # a palindrome that no positive holds
    scores[kmer_index("CCAG")] = 40.0
    pos = np.tile(np.array([[1, 1, 0, 2, 0, 0, 0, 0]], dtype=np.uint8), (5, 1))  # CCAGAAAA
    none = pd.DataFrame(columns=["sequence", "start", "end", "score"])
    seeds, table = lmer_seeds(Model(scores), none, pos, pad=1)
    assert list(table["word"]) == ["CCAG"] and table["occurrences"].iloc[0] == 5
    seeds, table = lmer_seeds(Model(scores), none, pos, pad=1, min_occurrences=0)
    assert list(table["word"])[:2] == ["ACGT", "CCAG"]


def test_gkm_route_explains_away_a_second_motif(tmp_path):
    from seqimp.options import ModelOptions, MotifOptions
    from seqimp.pipeline import run_motifs

    rng = np.random.default_rng(7)
    pos, neg = _codes(160, 80, 8).astype(np.uint8), _codes(160, 80, 9).astype(np.uint8)
    _plant(pos, "TTACGTAA", range(0, 96), rng)  # the stronger motif, in 60% of the positives
    _plant(pos, "GACCATGC", range(96, 160), rng)  # another one, in the other 40%
    rc = str.maketrans("ACGT", "TGCA")

    def holds(motif, word):
        return word in motif.consensus or word in motif.consensus[::-1].translate(rc)

    model = ModelOptions(kind="gkm", word_length=8, informative=5, test_fraction=0.0)
    # one seed per round: the first round can report the stronger motif only
    run = run_motifs(tmp_path / "two", positive=pos, negative=neg, model=model,
                            motifs=MotifOptions(strand="both", max_motifs=1))
    assert [m.name for m in run.motifs][:2] == ["motif1", "motif2"]
    assert holds(run.motifs[0], "ACGTA") and holds(run.motifs[1], "CCATG")
    assert list(run.stats["round"])[:2] == [1, 2] and run.parameters["rounds_run"] >= 2
    assert all(m.position_free for m in run.motifs)
    assert not any(holds(m, "ACGTA") for m in run.motifs[1:])  # the first motif does not come back
    table = (tmp_path / "two" / "motifs.tsv").read_text().splitlines()
    assert len(table) == 1 + len(run.motifs)



def test_gkm_seeds_failing_their_p_value_are_not_refitted_held_out(tmp_path, refined_stats):
    """As on the POIM route: a seed whose sites are not enriched enough in the positives (p above
    ``max_pvalue``) cannot be reported, so its held-out refits are skipped (NaN) and it claims no
    places; the others are tested held out. TTACGTAA in 60% of the positives (p about 1e-30),
    a CA repeat at 11-18 in the other 40% (about 1e-26): at ``max_pvalue`` 1e-28 the second fails."""
    from seqimp.options import ModelOptions, MotifOptions
    from seqimp.pipeline import run_motifs

    rng = np.random.default_rng(0)
    pos, neg = _codes(160, 80, 8).astype(np.uint8), _codes(160, 80, 9).astype(np.uint8)
    _plant(pos, "TTACGTAA", range(0, 96), rng)
    pos[96:, 10:18] = [0, 1, 0, 1, 0, 1, 0, 1]
    model = ModelOptions(kind="gkm", word_length=8, informative=5, test_fraction=0.0)
    options = MotifOptions(strand="both", max_motifs=3, max_pvalue=1e-28)
    run = run_motifs(tmp_path / "one", positive=pos, negative=neg, model=model, motifs=options)
    assert len(run.motifs) == 1 and "TACGTA" in run.motifs[0].consensus  # its own reverse complement
    stats = pd.concat(refined_stats, ignore_index=True)
    failing = stats["p_value"] > options.max_pvalue
    assert failing.any() and (~failing).any()  # both kinds were refined
    assert stats.loc[failing, "held_out_p_value"].isna().all()
    assert np.isfinite(stats.loc[~failing, "held_out_p_value"]).all()
