"""The deeper motif search: candidates tested one at a time after the model's rounds, each motif
found explained away before the next candidate, until three candidates in a row fail their
held-out test; E-values as the held-out p-value times the candidates tested."""

import json
import logging

import numpy as np
import pandas as pd
import pytest

from seqimp.io._labelled import LabelledSequences
from seqimp.motifs import Motif
from seqimp.motifs._copies import same_motif
from seqimp.motifs.search._depth import FAILURES, search_deeper
from seqimp.motifs.search._run import MotifRun, empty_sites, empty_stats
from seqimp.options import ModelOptions, MotifOptions
from seqimp.pipeline import run_motifs

DOMINANT, COFACTOR = "GTTACGCAAT", "AGGTCAGCTT"
OPTIONS = MotifOptions(scan_pwm=False)  # the PWMs for scanning are another module's


def _codes(word):
    return np.array(["ACGT".index(c) for c in word], dtype=np.uint8)


def _planted(seed=0, n=160, length=80):
    """``DOMINANT`` in 80% of the positives, ``COFACTOR`` in 25%, each anywhere on either strand
    (not overlapping); uniform letters elsewhere and in the negatives."""
    rng = np.random.default_rng(seed)
    pos = rng.integers(0, 4, (n, length)).astype(np.uint8)
    neg = rng.integers(0, 4, (n, length)).astype(np.uint8)
    half = length // 2
    for word, rate, lo, hi in ((DOMINANT, 0.8, 0, half), (COFACTOR, 0.25, half, length)):
        for i in np.flatnonzero(rng.random(n) < rate):
            w = _codes(word)
            if rng.random() < 0.5:
                w = (3 - w[::-1]).astype(np.uint8)
            start = rng.integers(lo, hi - len(w) + 1)
            pos[i, start:start + len(w)] = w
    return LabelledSequences(pos, neg)


def _empty_run():
    return MotifRun([], None, pd.DataFrame(), stats=empty_stats(), sites=empty_sites())


def _word_motif(word, name="truth"):
    pwm = np.full((len(word), 4), 0.01)
    pwm[np.arange(len(word)), _codes(word)] = 0.97
    return Motif(name, pwm, start=1, position_free=True)


def test_the_dominant_motif_and_its_cofactor_are_found_in_turn_then_the_search_stops(caplog):
    """Both planted words, the dominant first; each motif reported passed its held-out test and
    its sites were erased before the next candidate; the parameters say why the search ended."""
    with caplog.at_level(logging.INFO, logger="seqimp"):
        run = search_deeper(_empty_run(), _planted(), options=OPTIONS, random_state=0, first_round=2)
    assert len(run.motifs) == 2
    for motif, word in zip(run.motifs, (DOMINANT, COFACTOR)):
        assert same_motif(motif, _word_motif(word), strand="both")
    table = run.table()
    assert list(table["name"]) == ["motif1", "motif2"] and list(table["round"]) == [2, 3]
    assert (table["log10_held_out_p_value"] <= np.log10(0.05)).all()
    depth = run.parameters["depth"]
    assert depth["motifs_found"] == 2 and depth["candidates_tested"] == run.tested >= 2
    assert depth["failures_in_a_row"] <= FAILURES
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("candidate 1 (") and "motif1" in m and "passes" in m for m in messages)
    assert any(m.startswith("deeper search:") for m in messages)
    # E-value: the held-out p-value times the candidates tested
    assert np.allclose(table["log10_evalue"], table["log10_held_out_p_value"] + np.log10(run.tested))


def test_three_failing_candidates_in_a_row_end_the_search_and_a_pass_restarts_the_count():
    """A source of candidates: the planted words and random PWMs (noise: they fail held out).
    The search tests the dominant word (passes), noise twice, the co-factor's word (passes: the
    count starts again), then three noise candidates, and stops: 7 tested, 2 found."""
    rng = np.random.default_rng(1)
    queue = [DOMINANT, None, None, COFACTOR, None, None, None, None, None]  # None: a random PWM
    asked = []

    def source(pos, neg, *, strand, exclude, round, control):
        word = queue[len(asked)]
        asked.append(round)
        pwm = rng.dirichlet(np.ones(4), size=8) if word is None else _word_motif(word).pwm
        seed = Motif(f"round{round}_word1", pwm, start=1, position_free=True)
        return [seed], pd.DataFrame({"name": [seed.name], "word": [word or "noise"], "round": [round]})

    run = search_deeper(_empty_run(), _planted(), options=OPTIONS, random_state=0, first_round=4, source=source)
    assert asked == [4, 5, 6, 7, 8, 9, 10]
    assert len(run.motifs) == 2 and run.tested == 7 and list(run.table()["round"]) == [4, 7]
    for motif, word in zip(run.motifs, (DOMINANT, COFACTOR)):
        assert same_motif(motif, _word_motif(word), strand="both")
    assert run.parameters["depth"] == {"candidates_tested": 7, "motifs_found": 2, "failures_in_a_row": 3,
                                       "patience": 3, "word_lengths": [5, 6, 7, 8, 10],
                                       "gapped_words": ["3+1+3", "3+2+3", "3+3+3", "3+4+3", "3+5+3",
                                                        "3+6+3", "4+1+4", "4+2+4", "4+3+4"],
                                       "word_max_pvalue": 0.05, "held_out_choices": 3, "held_out_controls": 4,
                                       "stopped": "3 candidates in a row failed", "central_width": 0}


def test_pure_noise_reports_no_motif():
    rng = np.random.default_rng(5)
    data = LabelledSequences(rng.integers(0, 4, (160, 80)).astype(np.uint8),
                             rng.integers(0, 4, (160, 80)).astype(np.uint8))
    run = search_deeper(_empty_run(), data, options=OPTIONS, random_state=0, first_round=2)
    assert run.motifs == [] and len(run.table()) == 0
    assert run.parameters["depth"]["motifs_found"] == 0


@pytest.fixture(scope="module")
def gkm_runs(tmp_path_factory):
    """``seqimp motifs`` on the planted set (gkm route), twice with the same seed."""
    data = _planted(seed=2)
    model = ModelOptions(kind="gkm", test_fraction=0, word_length=8, informative=4)
    return [run_motifs(tmp_path_factory.mktemp(f"run{k}"), positive=data.positive, negative=data.negative,
                       model=model, motifs=MotifOptions(scan_pwm=False), random_state=0) for k in range(2)]


def test_a_run_reports_held_out_p_and_e_values_and_repeats_bit_for_bit(gkm_runs):
    first, second = gkm_runs
    folder = first.files[0].parent
    table = pd.read_csv(folder / "motifs.tsv", sep="\t")
    assert len(table) >= 2
    assert list(table.columns[-3:]) == ["evalue", "log10_evalue", "strand"]  # appended after every earlier column
    assert (table["log10_held_out_p_value"] <= np.log10(0.05)).all()
    tested = json.loads((folder / "motifs.json").read_text())["parameters"]["candidates_tested"]
    assert tested == first.tested and tested >= len(table)
    assert np.allclose(table["log10_evalue"], table["log10_held_out_p_value"] + np.log10(tested))
    for name in ("motifs.tsv", "motif_sites.tsv", "motifs.meme", "motif_candidates.tsv"):
        assert (folder / name).read_bytes() == (second.files[0].parent / name).read_bytes(), name


@pytest.mark.parametrize("length", [300, 120])
def test_a_positional_run_searches_position_free_after_its_rounds(tmp_path, length):
    """TGACTCA at 21 in every positive (the WD model's POIM finds it) and the co-factor's word
    anywhere on either strand in 40% (the rounds' word fallback finds it): at either length the
    deeper search follows the rounds (recorded, its candidates counted) and adds nothing."""
    rng = np.random.default_rng(3)
    n = 100
    pos = rng.integers(0, 4, (n, length)).astype(np.uint8)
    neg = rng.integers(0, 4, (n, length)).astype(np.uint8)
    pos[:, 20:27] = _codes("TGACTCA")
    for i in np.flatnonzero(rng.random(n) < 0.4):
        w = _codes(COFACTOR) if rng.random() < 0.5 else (3 - _codes(COFACTOR)[::-1]).astype(np.uint8)
        start = rng.integers(40, length - len(w))
        pos[i, start:start + len(w)] = w
    run = run_motifs(tmp_path, positive=pos, negative=neg, model=ModelOptions(kind="wd", degree=4, test_fraction=0),
                     motifs=MotifOptions(rounds=2, scan_pwm=False), random_state=0)
    table = run.table()
    assert len(table) == 2 and "TGACTCA" in table["consensus"].iloc[0]
    assert same_motif(run.motifs[1], _word_motif(COFACTOR), strand="both")
    assert (table["log10_held_out_p_value"] <= np.log10(0.05)).all()
    assert (tmp_path / "motifs_poim.npz").exists()  # the parked POIM moved into place
    assert run.parameters["candidates_tested"] == run.tested >= 2
    assert run.parameters["depth"]["motifs_found"] == 0
    assert run.parameters["depth"]["candidates_tested"] <= FAILURES


def test_gapped_words_count_every_sequence_once_as_enumeration_does():
    """The gapped words' canonical indices and the sequences holding each, against a plain
    enumeration of the strings (N for the gap, a word and its reverse complement one, no word
    whose halves cover an unknown base)."""
    from seqimp.motifs.search._gapped_words import _text, gapped_words, rows_holding

    rng = np.random.default_rng(4)
    codes = rng.integers(0, 4, (30, 25)).astype(np.uint8)
    codes[rng.random(codes.shape) < 0.05] = 4  # unknown bases: no word covers one in its halves
    comp = str.maketrans("ACGTN", "TGCAN")
    for h, g in ((3, 2), (4, 1)):
        canon = gapped_words(codes, h, g)[0]
        counts = rows_holding(canon, 4 ** (2 * h))
        expected = {}
        for row in codes:
            text = "".join("ACGTX"[c] for c in row)
            seen = set()
            for j in range(len(text) - 2 * h - g + 1):
                w = text[j:j + h] + "N" * g + text[j + h + g:j + 2 * h + g]
                if "X" not in w:
                    seen.add(min(w, w.translate(comp)[::-1]))
            for w in seen:
                expected[w] = expected.get(w, 0) + 1
        got = {_text(i, h, g): int(c) for i, c in enumerate(counts) if c}
        assert got == expected


def test_gapped_word_indices_as_read_and_reverse_complemented():
    """Every window's gapped index as read (halves' letters, first most significant) and its
    reverse complement's, ``4**(2h)`` where a half covers an unknown base; ``both=False`` gives
    the index as read; sequences shorter than the pattern give no window."""
    from seqimp.motifs.search._gapped_words import gapped_words

    rng = np.random.default_rng(8)
    codes = rng.integers(0, 4, (12, 20)).astype(np.uint8)
    codes[rng.random(codes.shape) < 0.08] = 4

    def index(letters):
        return sum(int(x) * 4 ** (len(letters) - 1 - c) for c, x in enumerate(letters))

    for h, g in ((3, 1), (4, 3)):
        canon, fwd, rev = gapped_words(codes, h, g)
        plain = gapped_words(codes, h, g, both=False)[0]
        for i in range(12):
            for j in range(20 - 2 * h - g + 1):
                halves = np.r_[codes[i, j:j + h], codes[i, j + h + g:j + 2 * h + g]]
                if (halves > 3).any():
                    assert canon[i, j] == fwd[i, j] == rev[i, j] == plain[i, j] == 4 ** (2 * h)
                    continue
                assert fwd[i, j] == plain[i, j] == index(halves)
                assert rev[i, j] == index(3 - halves[::-1])
                assert canon[i, j] == min(fwd[i, j], rev[i, j])
    assert gapped_words(codes[:, :6], 3, 1)[0].shape == (12, 0)


def test_a_motif_with_a_variable_spacer_seeds_a_gapped_candidate():
    """CACG-NNN-CGTA (the middle random) in 40% of the positives: its contiguous words are spread
    over 64 spacers, its gapped word is one; the candidate is that gapped word."""
    from seqimp.motifs.search._depth import word_candidate

    rng = np.random.default_rng(6)
    pos = rng.integers(0, 4, (200, 60)).astype(np.uint8)
    neg = rng.integers(0, 4, (200, 60)).astype(np.uint8)
    for i in np.flatnonzero(rng.random(200) < 0.4):
        start = rng.integers(0, 49)
        pos[i, start:start + 4], pos[i, start + 7:start + 11] = _codes("CACG"), _codes("CGTA")
        pos[i, start + 4:start + 7] = rng.integers(0, 4, 3)
    seeds, candidates = word_candidate(pos, neg, strand="given", exclude=(), round=3)
    assert candidates["word"].iloc[0] == "CACGNNNCGTA" and candidates["name"].iloc[0] == "round3_gapped1"
    assert seeds[0].position_free and seeds[0].length == 11 + 6


def test_the_report_cards_show_the_held_out_p_and_e_value(gkm_runs):
    from seqimp.report._motif_cards import motif_cards

    folder = gkm_runs[0].files[0].parent
    table = pd.read_csv(folder / "motifs.tsv", sep="\t", dtype=str)
    html = motif_cards(folder, lambda path: path.exists(), False)
    for row in table.to_dict("records"):
        assert f"held-out p = {row['held_out_p_value']}, E = {row['evalue']}" in html


def _gc_rich_with_ccaat(seed=7, n=300, length=120, gc=0.72, rate=0.25):
    """Positives whose letters are G or C with probability ``gc`` (CpG-island-like) and hold
    CCAATCA in ``rate`` of them, anywhere on either strand; negatives at G/C 0.42 (gene bodies)."""
    rng = np.random.default_rng(seed)

    def letters(count, p_gc):
        probs = np.array([1 - p_gc, p_gc, p_gc, 1 - p_gc]) / 2
        return rng.choice(4, size=(count, length), p=probs).astype(np.uint8)

    pos, neg = letters(n, gc), letters(n, 0.42)
    for i in np.flatnonzero(rng.random(n) < rate):
        w = _codes("CCAATCA") if rng.random() < 0.5 else _codes("TGATTGG")
        start = rng.integers(0, length - 7)
        pos[i, start:start + 7] = w
    return pos, neg


def test_candidate_words_must_beat_the_positives_shuffles_too():
    """In G/C-rich positives against A/T-richer negatives the most enriched word is a G/C word;
    enriched against the positives' dinucleotide shuffles as well, it is the planted CCAAT word.
    The p-value is the larger of the two Fisher tests (scipy's hypergeometric tail), times the
    words tested."""
    from scipy.stats import hypergeom

    from seqimp.io import dinucleotide_shuffle, kmer_string
    from seqimp.motifs._word_seeds import _presence, word_log10_pvalues
    from seqimp.motifs.search._depth import word_candidate

    pos, neg = _gc_rich_with_ccaat()
    control = dinucleotide_shuffle(np.tile(pos, (2, 1)), random_state=0)
    plain = word_candidate(pos, neg, strand="both", exclude=(), round=2)[1]["word"].iloc[0]
    assert set(plain.replace("N", "")) <= set("CG"), plain
    word = word_candidate(pos, neg, strand="both", exclude=(), round=2, control=control)[1]["word"].iloc[0]
    assert "CCAAT" in word or "ATTGG" in word, word

    a, b, c = (_presence(x, 6)[0] for x in (pos, neg, control))
    tested = np.array([int("".join(str("ACGT".index(ch)) for ch in w), 4) for w in ("CCAATC", "GCGCGC", "CGGCGC")])
    got = word_log10_pvalues(a, b, len(pos), len(neg), tested, 4 ** 6, c, len(control))
    for w, value in zip(tested, got):
        tails = [hypergeom.sf(a[w] - 1, len(pos) + n_other, len(pos), a[w] + other[w])
                 for other, n_other in ((b, len(neg)), (c, len(control)))]
        assert value == pytest.approx(np.log10(max(tails)) + 6 * np.log10(4), abs=1e-6), kmer_string(int(w), 6)


@pytest.mark.parametrize("letters", ["positives", "negatives"])
def test_a_position_free_em_stays_on_its_word_against_the_positives_letters(letters):
    """The EM of a position-free CCAATCA seed in G/C-rich positives against A/T-richer
    negatives: weighing the windows against the positives' own letters (the deeper search's
    ``em_letters``) it keeps CCAAT; against the negatives' it drifts into a G/C run."""
    from seqimp.motifs._copies import still_the_motif
    from seqimp.motifs._zoops_fit import FitOptions, fit_motif, letter_frequencies

    pos, neg = _gc_rich_with_ccaat()
    seed = _word_motif("CCAATCA", name="word1")
    o = FitOptions(pad=3, flank=3, fpr=0.01, pseudocount=1.0, seed_ic=1.0, min_ic=0.15, alpha=1e-3, max_iter=5,
                   tol=1e-7, max_grow=5, max_length=30, em_letters=letters)
    pwm, _starts = fit_motif(seed, pos, neg, ("+", "-"), letter_frequencies(neg), letter_frequencies(pos), o)
    assert still_the_motif(_word_motif("CCAATCA").pwm, pwm) == (letters == "positives")


def test_holds_core_is_the_seeds_core_word_in_the_consensus_of_either_strand():
    """holds_core against a string search: the seed's core (its columns of at least a bit, N
    elsewhere) as a pattern over the PWM's consensus and its reverse complement's, on 300
    random pairs; and by hand: a PWM grown far past the word holds it, one letter changed or
    the core's end cut off does not."""
    import re

    from motif_helpers import word_pwm as pwm_of
    from seqimp.motifs._copies import holds_core

    rng = np.random.default_rng(5)
    agree = {True: 0, False: 0}
    for _ in range(300):
        word = "".join(rng.choice(list("ACGTN"), size=rng.integers(3, 7), p=[0.22, 0.22, 0.22, 0.22, 0.12]))
        if word.strip("N") == "":
            continue
        pwm = rng.dirichlet(np.full(4, 0.3), size=rng.integers(2, 12))
        if rng.random() < 0.5 and len(pwm) >= len(word):  # plant the word, sometimes one letter off
            at = rng.integers(0, len(pwm) - len(word) + 1)
            for j, ch in enumerate(word):
                if ch != "N":
                    pwm[at + j] = pwm_of(ch, 0.7)[0]
            if rng.random() < 0.3:
                j = int(rng.choice([j for j, ch in enumerate(word) if ch != "N"]))
                pwm[at + j] = pwm_of("ACGT"[("ACGT".index(word[j]) + 1) % 4], 0.7)[0]
        consensus = "".join("ACGT"[i] for i in pwm.argmax(axis=1))
        reverse = "".join("ACGT"[i] for i in pwm[::-1, ::-1].argmax(axis=1))
        core = word.strip("N").replace("N", ".")
        expected = any(re.search(f"(?=({core}))", text) for text in (consensus, reverse))
        assert holds_core(pwm_of(word, 0.9), pwm) == expected, (word, consensus)
        agree[expected] += 1
    assert min(agree.values()) >= 30  # both answers were put to the test
    seed = pwm_of("NCCAATCAN", 0.95)
    assert holds_core(seed, pwm_of("GGCTTTGGCCAATCAGCGCAAATTTGG", 0.8))  # grown far past the word
    assert holds_core(seed, pwm_of("GCTGATTGGCC", 0.8))  # the other strand
    assert not holds_core(seed, pwm_of("GGCCACTCAGG", 0.8))  # CCAAT lost
    assert not holds_core(seed, pwm_of("CCAATC", 0.8))  # the core's end cut off


def test_keep_seed_stops_the_em_at_its_last_iteration_that_holds_the_seed():
    """The EM of a position-free CCAATCA seed against the negatives' letters drifts into a G/C
    run (previous test); with ``keep_seed`` it stops before the first iteration whose PWM no
    longer holds CCAATCA: the same PWM, bit for bit, as that many iterations without the guard
    (counted here one run per count), and the whole fit (grown, trimmed) holds the word."""
    from seqimp.motifs._copies import holds_core
    from seqimp.motifs._zoops_fit import FitOptions, _em, _sharpen, fit_motif, letter_frequencies

    pos, neg = _gc_rich_with_ccaat()
    seed = _word_motif("CCAATCA", name="word1")
    background = letter_frequencies(neg)
    start = np.vstack([np.full((3, 4), 0.25), _sharpen(seed.pwm, 1.0), np.full((3, 4), 0.25)])
    starts = np.arange(pos.shape[1] - start.shape[0] + 1)
    args = (pos, starts, ("+", "-"), background, 1.0)
    runs = [_em(start, *args, j, 0.0) for j in range(1, 6)]
    held = [holds_core(seed.pwm, pwm) for pwm, _mass in runs]
    kept = held.index(False)  # iterations before the first that loses the word
    assert kept >= 1 and not any(held[kept:])
    guarded = _em(start, *args, 5, 0.0, seed.pwm)
    expected = runs[kept - 1]
    assert np.array_equal(guarded[0], expected[0])
    assert guarded[1] == _em(start, *args, kept + 1, 0.0)[1]  # the expected sites of the PWM kept
    for keep in (False, True):
        o = FitOptions(pad=3, flank=3, fpr=0.01, pseudocount=1.0, seed_ic=1.0, min_ic=0.15, alpha=1e-3, max_iter=5,
                       tol=1e-7, max_grow=5, max_length=30, em_letters="negatives", keep_seed=keep)
        pwm, _starts = fit_motif(seed, pos, neg, ("+", "-"), background, letter_frequencies(pos), o)
        assert holds_core(seed.pwm, pwm) == keep


def test_tuning_negatives_are_the_negatives_then_their_dinucleotide_shuffles():
    """tuning_negatives: the negatives first, then ``controls`` shuffles of each (row j of the
    additions shuffles negative j mod n: the same letter pairs, unknown bases in place), the same
    draw for the same seed; no controls, the negatives themselves."""
    from seqimp.motifs._zoops_fit import tuning_negatives

    rng = np.random.default_rng(3)
    neg = rng.integers(0, 4, (30, 40)).astype(np.uint8)
    neg[::4, 5:9] = 4
    out = tuning_negatives(neg, 3, 11)
    assert out.shape == (120, 40) and out.dtype == neg.dtype and np.array_equal(out[:30], neg)

    def pairs(row):
        return sorted(zip(row[:-1].tolist(), row[1:].tolist()))

    for j in range(30, 120):
        source = neg[j % 30]
        assert pairs(out[j]) == pairs(source) and np.array_equal(out[j] == 4, source == 4)
    assert not np.array_equal(out[30:60], neg)  # shuffled, not copied
    assert np.array_equal(tuning_negatives(neg, 3, 11), out)
    assert tuning_negatives(neg, 0, 11) is neg


def test_held_out_folds_tune_against_their_negatives_and_shuffles_the_main_fit_against_its_own(monkeypatch):
    """refine_motifs(tune=True, held_out_controls=k): each held-out fold's tuning gets the fold's
    negatives and k shuffles of each, the main fit's tuning the negatives alone; the sites are
    called at the negatives' own threshold (at most 1% of them hold one); without controls
    every tuning gets the negatives alone."""
    import seqimp.motifs._zoops_fit as zoops
    from seqimp.motifs import refine_motifs

    data = _planted(seed=4, n=200)
    seen, tune = [], zoops.tune_pwm

    def spy(pwm, pos, neg, *args, **kwargs):
        seen.append((len(pos), len(neg)))
        return tune(pwm, pos, neg, *args, **kwargs)

    monkeypatch.setattr(zoops, "tune_pwm", spy)
    seed = [_word_motif(DOMINANT, name="word1")]
    refined = refine_motifs(seed, data.positive, data.negative, strand="both", tune=True, held_out_controls=2,
                            random_state=0)
    assert seen == [(200, 200), (100, 300), (100, 300)]
    assert refined.stats["fraction_negative"].iloc[0] <= 0.01
    seen.clear()
    refine_motifs(seed, data.positive, data.negative, strand="both", tune=True, random_state=0)
    assert seen == [(200, 200), (100, 100), (100, 100)]


def test_the_held_out_test_of_a_candidate_is_blind_to_the_choice_of_its_word(monkeypatch):
    """On six random sets, with the word's Bonferroni bound lifted (the most enriched word is a
    candidate whatever its p-value): when each held-out fold starts from the candidate's word,
    chosen on all the sequences, chance words pass on some sets; when each fold chooses its
    word on its own fitting half (``half_seed``), none does."""
    import seqimp.motifs.search._depth as depth

    monkeypatch.setattr(depth, "DEPTH_WORD_PVALUE", 1e12)

    def found(blind):
        if not blind:
            monkeypatch.setattr(depth, "half_seed", lambda *args, **kw: None)
        out = []
        for seed in range(6):
            rng = np.random.default_rng(100 + seed)
            data = LabelledSequences(rng.integers(0, 4, (150, 80)).astype(np.uint8),
                                     rng.integers(0, 4, (150, 80)).astype(np.uint8))
            run = search_deeper(_empty_run(), data, options=OPTIONS, random_state=0, first_round=2)
            assert run.parameters["depth"]["candidates_tested"] >= FAILURES
            out.append(len(run.motifs))
        return out

    assert sum(found(blind=True)) == 0
    assert sum(found(blind=False)) >= 1


def test_same_word_agrees_on_five_letters_or_differs_in_one():
    from seqimp.motifs.search._depth import same_word

    assert same_word("CCAATCA", "AGCCAAT") and same_word("CCAATCA", "CCAATCG")
    assert same_word("CGGAAG", "ACTTCCG") and not same_word("CGGAAG", "ACTTCCG", both=False)
    assert not same_word("CACGTG", "ACGTCAC")  # an E-box and CREB's half site share ACGT only
    assert not same_word("CCAATCA", "CCGATCG") and not same_word("GATA", "GATA" + "A")  # two letters; too short
    assert same_word("CGCANGCGC", "CGCNNGCG")  # a gap letter agrees with any


def _two_words(seed=11, n=300, length=60):
    """Positives holding GTTACGCAAT in 40% and AGGTCAGCTT in 20% (each anywhere, given strand);
    uniform letters elsewhere and in the negatives: the first word is the most enriched, the
    second's words the next."""
    rng = np.random.default_rng(seed)
    pos = rng.integers(0, 4, (n, length)).astype(np.uint8)
    neg = rng.integers(0, 4, (n, length)).astype(np.uint8)
    for word, rate, lo in ((DOMINANT, 0.4, 0), (COFACTOR, 0.2, length // 2)):
        for i in np.flatnonzero(rng.random(n) < rate):
            start = rng.integers(lo, lo + length // 2 - len(word) + 1)
            pos[i, start:start + len(word)] = _codes(word)
    return pos, neg


def test_the_top_words_are_distinct_most_enriched_first_and_the_first_is_the_single_choice():
    """``word_candidate(top=3)``: three words, none the same word as one before it, their
    p-values in order, the first the seed of ``top=1``; ``gapped_seed(max_motifs=2)`` likewise
    starts with its single seed."""
    from seqimp.motifs.search._depth import same_word, word_candidate
    from seqimp.motifs.search._gapped_words import gapped_seed

    pos, neg = _two_words()
    one_seeds, one = word_candidate(pos, neg, strand="given", exclude=(), round=2)
    seeds, three = word_candidate(pos, neg, strand="given", exclude=(), round=2, top=3, max_pvalue=np.inf)
    assert len(seeds) == len(three) == 3 and len(one_seeds) == len(one) == 1
    assert three.iloc[0].to_dict() == one.iloc[0].to_dict()
    np.testing.assert_array_equal(seeds[0].pwm, one_seeds[0].pwm)
    words = list(three["word"])
    assert not any(same_word(a, b, both=False) for i, a in enumerate(words) for b in words[:i])
    assert list(three["log10_p_value"]) == sorted(three["log10_p_value"])
    assert any(same_word(w, DOMINANT, both=False) for w in words[:1])
    assert any(same_word(w, COFACTOR, both=False) for w in words[1:])
    g1 = gapped_seed(pos, neg, strand="given", max_pvalue=np.inf)[1]
    g2 = gapped_seed(pos, neg, strand="given", max_pvalue=np.inf, max_motifs=2)[1]
    assert len(g1) == 1 and len(g2) == 2 and g2.iloc[0].to_dict() == g1.iloc[0].to_dict()
    assert list(g2["name"]) == ["gapped1", "gapped2"]


def test_a_fold_seeds_from_the_first_of_its_top_words_that_is_the_candidates_word():
    """The co-factor's word is not its half's most enriched (the dominant motif's is): with one
    choice the fold has no seed, with three its seed is the co-factor's word; a word in none of
    the top three gives no seed. The callable records its choices for the held-out p-value."""
    from seqimp.motifs.search._depth import half_seed, same_word, word_candidate

    pos, neg = _two_words()
    top = word_candidate(pos, neg, strand="given", exclude=(), round=2, top=3, max_pvalue=np.inf)[1]
    cofactor = next(w for w in top["word"] if same_word(w, COFACTOR, both=False))
    truth = _word_motif(COFACTOR)
    single = half_seed(cofactor, strand="given", exclude=(), round=2, random_state=0, choices=1)
    three = half_seed(cofactor, strand="given", exclude=(), round=2, random_state=0)
    assert single.choices == 1 and three.choices == 3
    assert single(pos, neg, truth) is None
    chosen = three(pos, neg, truth)
    assert chosen is not None and same_motif(chosen, truth, strand="given")
    assert half_seed("CCCCCCCC", strand="given", exclude=(), round=2, random_state=0)(pos, neg, truth) is None


def test_the_held_out_p_value_pays_for_the_folds_choices():
    """A held-out seed choosing among ``choices`` words: the held-out p-value of the same fits
    is multiplied by ``choices`` for each fold tested (log10: + folds x log10 choices), at most 1."""
    from seqimp.motifs import refine_motifs

    pos, neg = _two_words()
    truth = _word_motif(COFACTOR)

    def seed(p, n, motif):
        return motif

    def chooser(choices):
        def pick(p, n, motif):
            return motif
        pick.choices = choices
        return pick

    runs = {c: refine_motifs([truth], pos, neg, strand="given", held_out_seed=s).stats.iloc[0]
            for c, s in ((1, seed), (3, chooser(3)), (10 ** 15, chooser(10 ** 15)))}
    assert runs[1]["log10_held_out_p_value"] < -2 * np.log10(3)
    assert runs[3]["log10_held_out_p_value"] == pytest.approx(runs[1]["log10_held_out_p_value"] + 2 * np.log10(3),
                                                              abs=1e-12)
    assert runs[10 ** 15]["log10_held_out_p_value"] == 0.0 and runs[10 ** 15]["held_out_p_value"] == 1.0
    assert runs[3]["held_out_sites"] == runs[1]["held_out_sites"]


def test_central_windows_keep_each_records_central_letters_as_a_loop_does():
    """Every row keeps its central ``width`` letters (its length: up to its last known letter)
    and all else is unknown; a row no longer than ``width`` and an all-unknown row stay whole."""
    from seqimp.motifs.search._depth import central_windows

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, (40, 61)).astype(np.uint8)
    lengths = rng.integers(1, 62, 40)
    lengths[:3] = (61, 9, 10)
    for i, n in enumerate(lengths):
        codes[i, n:] = 4                                   # padding
    codes[5, 20:24] = 4                                    # a gap inside a record
    codes[6] = 4                                           # nothing known
    got = central_windows(codes, 10)
    for i, row in enumerate(codes):
        known = np.flatnonzero(row != 4)
        end = known[-1] + 1 if len(known) else 0
        start = max((end - 10) // 2, 0)
        want = np.full_like(row, 4)
        want[start:start + 10] = row[start:start + 10]
        np.testing.assert_array_equal(got[i], want, err_msg=f"row {i}")
    np.testing.assert_array_equal(got[1], codes[1])
    assert got.dtype == codes.dtype and codes is not got


def _central_ccaat(seed=5, n=600, length=400, rate=0.25):
    """Uniform letters; CCAAT with random flanks in ``rate`` of the positives, either strand, in
    their central 100 nt only (5 letters, in 77% of 400-nt records by chance)."""
    rng = np.random.default_rng(seed)
    pos = rng.integers(0, 4, (n, length)).astype(np.uint8)
    neg = rng.integers(0, 4, (n, length)).astype(np.uint8)
    centre = (length - 100) // 2
    for i in np.flatnonzero(rng.random(n) < rate):
        w = _codes("CCAAT") if rng.random() < 0.5 else _codes("ATTGG")
        start = centre + rng.integers(0, 100 - 5 + 1)
        pos[i, start:start + 5] = w
    return pos, neg


def test_a_word_of_the_records_centres_is_a_candidate_on_long_records():
    """A CCAAT box in the central 100 nt of a quarter of 400-nt positives: over whole records no
    CCAAT word passes the bound (the chance ones swamp it); counted in the central 100 nt as
    well, the candidate is a CCAAT word, its window said."""
    from seqimp.motifs.search import _depth

    pos, neg = _central_ccaat()
    seeds, rows = _depth.word_candidate(pos, neg, strand="both", exclude=(), round=2)
    word = rows["word"].iloc[0]
    assert ("CCAAT" in word or "ATTGG" in word) and rows["window"].iloc[0] == "central 100 nt", rows
    assert seeds[0].position_free
    for central in (0, 134):  # whole records only: none asked for, or 400 nt < 3 x 134
        _, rows = _depth.word_candidate(pos, neg, strand="both", exclude=(), round=2, central=central)
        assert not any("CCAAT" in w or "ATTGG" in w for w in rows["word"]), rows
        assert set(rows["window"]) <= {"whole"}
    # the window a user sets: CCAAT lies in the central 100 of 400 nt, so in the central 120 too
    rows = _depth.word_candidate(pos, neg, strand="both", exclude=(), round=2, central=120)[1]
    assert rows["window"].iloc[0] == "central 120 nt" and "CCAAT" in rows["word"].iloc[0] + _rc(rows["word"].iloc[0])


def _rc(word):
    return word.translate(str.maketrans("ACGTN", "TGCAN"))[::-1]


def test_short_records_are_counted_whole_only():
    """Records under three times the central width have one view: the candidate is that of whole
    records; ``counts_central`` is that rule."""
    from seqimp.motifs.search._depth import CENTRAL_SHARE, CENTRAL_WIDTH, counts_central, word_candidate

    pos, neg = _two_words()
    assert pos.shape[1] < CENTRAL_SHARE * CENTRAL_WIDTH
    rows = word_candidate(pos, neg, strand="given", exclude=(), round=2, top=3, max_pvalue=np.inf)[1]
    assert list(rows["window"]) == ["whole"] * 3
    assert counts_central(300, 100) and not counts_central(299, 100) and not counts_central(10 ** 6, 0)
    assert counts_central(60, 20) and not counts_central(59, 20)


def test_the_central_width_is_an_option_recorded_with_the_search(caplog):
    """``MotifOptions.central_width`` reaches the deeper search (0 on 80-nt records: not counted;
    20: counted) and is recorded in ``parameters["depth"]``; a negative width is refused."""
    from seqimp.errors import SeqimpError

    data = _planted()
    for width, recorded in ((100, 0), (20, 20), (0, 0)):
        run = search_deeper(_empty_run(), data, options=MotifOptions(scan_pwm=False, central_width=width),
                            random_state=0, first_round=2)
        assert run.parameters["depth"]["central_width"] == recorded
    with pytest.raises(SeqimpError, match="central_width"):
        MotifOptions(central_width=-1)
