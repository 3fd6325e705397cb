"""Motifs past the first one: explaining away finds a planted second motif that a
single search misses; a set without signal gives "no motif" (exit 0, empty motif files); the
statistics a reader sees (log10 p-values against exact fractions, E-values never 0,
palindromes); NNLS on the Cholesky factor against scipy's NNLS on the whole problem."""

import logging
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from seqimp.cli import main
from seqimp.motifs import Motif, MotifDatabase, read_motifs, write_meme
from seqimp.motifs._copies import same_motif
from seqimp.motifs._stats import fisher_log10, format_pvalue, is_palindromic
from seqimp.options import ModelOptions, MotifOptions
from seqimp.pipeline import run_motifs


def _plant(rng, X, word, start, rate=1.0, purity=1.0):
    codes = np.array(["ACGT".index(c) for c in word])
    for i in range(len(X)):
        if rng.random() < rate:
            w = codes.copy()
            noisy = rng.random(len(w)) > purity
            w[noisy] = rng.integers(0, 4, noisy.sum())
            X[i, start:start + len(w)] = w
    return X


def _messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name.startswith("seqimp")]


def test_explaining_away_finds_the_second_motif_the_first_search_misses(tmp_path, caplog):
    """GGATTACAT at 6 in every positive, TGACGTCA at 26 (90% pure) in half of them: the first
    search (round 1, what a single pass reports) finds GGATTACAT only; with its sites erased the
    retrained model shows TGACGTCA (round 2); GGATTACAT does not come back as a shifted copy."""
    rng = np.random.default_rng(0)
    pos = rng.integers(0, 4, (300, 40)).astype(np.uint8)
    pos = _plant(rng, pos, "GGATTACAT", 5)
    pos = _plant(rng, pos, "TGACGTCA", 25, rate=0.5, purity=0.9)
    neg = rng.integers(0, 4, (300, 40)).astype(np.uint8)
    with caplog.at_level(logging.INFO, logger="seqimp"):
        run = run_motifs(tmp_path, positive=pos, negative=neg, model=ModelOptions(degree=4, test_fraction=0),
                         motifs=MotifOptions(rounds=3, strand="given"))  # planted on one strand
    table = run.table()
    assert list(table["consensus"]) == ["GGATTACAT", "TGACGTCA"]
    assert list(table["start"]) == [6, 26] and list(table["round"]) == [1, 2]
    assert list(table["name"]) == ["motif1", "motif2"]
    assert 100 <= table["sites"].iloc[1] <= 165        # about 150 planted, 10% of them degraded
    dominant = run.motifs[0]
    assert not any(same_motif(dominant, m, strand="given") for m in run.motifs[1:])
    messages = _messages(caplog)
    assert any(m.startswith("explaining motif1 (GGATTACAT) away: its sites erased in 300 positives") for m in messages)
    assert messages.count("round 2: 1 new motif(s)") == 1
    assert run.parameters["rounds_run"] == 3
    # the first round's POIM, parked in the folder during rounds 2-3, moved into place: the bytes
    # its save writes, and nothing left behind
    from seqimp.motifs.search._rounds import PARKED_POIM

    assert run.result_file == tmp_path / "motifs_poim.npz" and not (tmp_path / PARKED_POIM).exists()
    run.result.save(tmp_path / "again.npz")
    assert (tmp_path / "again.npz").read_bytes() == (tmp_path / "motifs_poim.npz").read_bytes()
    # round 1 alone (a single search) reports GGATTACAT only
    (tmp_path / "single").mkdir()
    single = run_motifs(tmp_path / "single", positive=pos, negative=neg,
                        model=ModelOptions(degree=4, test_fraction=0), motifs=MotifOptions(rounds=1))
    assert [m.consensus for m in single.motifs] == ["GGATTACAT"]


def test_a_motif_the_retrained_positional_model_misses_is_seeded_by_its_words(tmp_path, caplog):
    """GGATTACAT at 6 in every positive, TGACGTCAT anywhere after it on either strand in half of
    them: round 2's retrained WD model (positions) shows nothing above the noise, and the round
    falls back on the words most enriched in the masked positives, which find TGACGTCAT as a
    position-free motif; round 3 finds neither a peak nor an enriched word, and the rounds stop."""
    rng = np.random.default_rng(0)
    pos = _plant(rng, rng.integers(0, 4, (300, 60)).astype(np.uint8), "GGATTACAT", 5)
    code = np.array(["ACGT".index(c) for c in "TGACGTCAT"], dtype=np.uint8)
    carriers = np.flatnonzero(rng.random(300) < 0.5)
    for i in carriers:
        j = int(rng.integers(15, 60 - 9 + 1))
        pos[i, j:j + 9] = code if rng.random() < 0.5 else 3 - code[::-1]
    neg = rng.integers(0, 4, (300, 60)).astype(np.uint8)
    with caplog.at_level(logging.INFO, logger="seqimp"):
        run = run_motifs(tmp_path, positive=pos, negative=neg, model=ModelOptions(degree=4, test_fraction=0),
                         motifs=MotifOptions(rounds=3, strand="both"))
    table = run.table()
    assert list(table["name"]) == ["motif1", "motif2"] and list(table["round"]) == [1, 2]
    assert table["consensus"].iloc[0] == "GGATTACAT" and not table["position_free"].iloc[0]
    assert "TGACGTCA" in table["consensus"].iloc[1] and table["position_free"].iloc[1]
    assert 0.85 * len(carriers) <= table["sites"].iloc[1] <= len(carriers) + 5
    messages = _messages(caplog)
    assert any(m.startswith("1 seed(s) from the words most enriched in the positives: TGACGTCA (round 2)")
               for m in messages)
    assert "no word is enriched in the positives beyond the motifs found (Bonferroni p <= 1e-06) (round 3)" in messages
    assert run.parameters["rounds_run"] == 3
    # the round's seeds beside its POIM peaks in motif_candidates.tsv
    candidates = pd.read_csv(tmp_path / "motif_candidates.tsv", sep="\t")
    assert list(candidates.loc[candidates["word"].notna(), "name"]) == ["round2_word1"]


def test_an_error_after_the_rounds_leaves_no_parked_poim(tmp_path, monkeypatch):
    import seqimp.motifs.search._trained_search as trained_search
    from seqimp.motifs.search._rounds import PARKED_POIM

    rng = np.random.default_rng(1)
    pos = _plant(rng, rng.integers(0, 4, (120, 30)).astype(np.uint8), "GGATTACAT", 5)
    neg = rng.integers(0, 4, (120, 30)).astype(np.uint8)

    def fail(*args, **kwargs):
        assert (tmp_path / PARKED_POIM).exists()  # parked while the rounds ran, still there
        raise RuntimeError("stop")

    monkeypatch.setattr(trained_search, "motif_matches", fail)
    with pytest.raises(RuntimeError, match="stop"):
        run_motifs(tmp_path, positive=pos, negative=neg, model=ModelOptions(degree=3, test_fraction=0),
                   motifs=MotifOptions(rounds=2))
    assert not (tmp_path / PARKED_POIM).exists() and not (tmp_path / "motifs_poim.npz").exists()


def test_no_signal_is_no_motif_with_exit_0_and_empty_motif_files(tmp_path, capsys):
    rng = np.random.default_rng(1)
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("pos", "neg"):
        X = rng.integers(0, 4, (150, 30))
        (folder / f"{name}.fa").write_text("".join(f">{name}{i}\n{''.join('ACGT'[c] for c in x)}\n"
                                                   for i, x in enumerate(X)))
    out = tmp_path / "out"
    assert main(["motifs", "--positive", str(folder / "pos.fa"), "--negative", str(folder / "neg.fa"),
                 "--out", str(out), "--degree", "4", "--strand", "both"]) == 0
    printed = capsys.readouterr()
    assert "no motif found" in printed.out
    lines = (out / "motifs.tsv").read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("name\tconsensus\tstart\tlength")
    assert "MOTIF" not in (out / "motifs.meme").read_text()
    assert (out / "motif_sites.tsv").read_text().splitlines() == ["motif\tid\tposition\tstrand\tscore"]


def _exact_fisher(a, b, c, d, alternative):
    """The one-sided Fisher p-value as an exact fraction (hypergeometric terms in integers)."""
    total, column, row = a + b + c + d, a + c, a + b
    xs = range(a, min(row, column) + 1) if alternative == "greater" else range(max(0, row - (total - column)), a + 1)
    return Fraction(sum(math.comb(column, x) * math.comb(total - column, row - x) for x in xs), math.comb(total, row))


@pytest.mark.parametrize("table", [(5, 10, 1, 20), (0, 5, 3, 4), (12, 0, 0, 12), (7, 7, 7, 7), (1, 0, 0, 0),
                                   (900, 100, 2, 998), (3000, 0, 0, 3000)])
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_fisher_log10_against_exact_fractions(table, alternative):
    exact = _exact_fisher(*table, alternative)
    want = math.log10(exact.numerator) - math.log10(exact.denominator)  # big integers: no underflow
    assert fisher_log10(*table, alternative=alternative) == pytest.approx(want, abs=1e-9, rel=1e-9)


def test_p_and_e_values_never_print_0(tmp_path):
    assert format_pvalue(-345.08) == "8.3e-346" and format_pvalue(-1.30103) == "0.05"
    assert format_pvalue(-4.00001) == "1.0e-04" and format_pvalue(float("nan")) == "nan"
    assert format_pvalue(-1806.2, digits=3) == "6.31e-1807"
    m = Motif.from_consensus("motif1", "GATTACA", purity=0.9, sites=3000, evalue=0.0, log10_evalue=-1806.2)
    text = write_meme([m], tmp_path / "m.meme")
    assert "E= 6.31e-1807" in text and "E= 0" not in text
    assert read_motifs(tmp_path / "m.meme")[0].consensus == "GATTACA"
    plain = Motif.from_consensus("motif2", "GATTACA", evalue=0.012)
    assert "E= 1.20e-02" in write_meme([plain])


def test_palindromes():
    assert is_palindromic(Motif.from_consensus("max", "CACGTG", purity=0.9).pwm)
    assert is_palindromic(Motif.from_consensus("cebpb", "TTGCGCAA", purity=0.85).pwm)
    assert not is_palindromic(Motif.from_consensus("box", "TTGACA", purity=0.9).pwm)
    assert not is_palindromic(np.full((6, 4), 0.25))  # nothing informative: no palindrome


def test_nnls_on_the_cholesky_factor_equals_nnls_on_the_whole_problem():
    from scipy.optimize import nnls

    from seqimp.motifs._fit import _nnls

    rng = np.random.default_rng(2)
    for n, d, density in ((400, 15, 0.3), (2000, 60, 0.3), (6000, 80, 0.1)):  # the last: the sparse product
        A = rng.random((n, d)) * (rng.random((n, d)) < density)
        b = A @ np.maximum(rng.normal(size=d), 0.0) + 0.1 * rng.normal(size=n)
        slow = nnls(A, b, maxiter=50 * d)[0]
        fast = _nnls(A, b)
        assert np.allclose(fast, slow, atol=1e-8)
        assert np.linalg.norm(A @ fast - b) == pytest.approx(np.linalg.norm(A @ slow - b), rel=1e-10)


def test_sparse_normal_equations_equal_scipys_sparse_product_bitwise():
    """The normal equations of a mostly-zero design from its rows' non-zero entries: the bits of
    scipy's ``S.T @ S`` and ``S.T @ b`` (each entry summed over the rows in increasing order),
    with empty columns and runs of zeros and non-zeros of any lengths."""
    from scipy.sparse import csc_matrix

    from seqimp.motifs._fit import _sparse_normal

    rng = np.random.default_rng(7)
    for n, d, density in ((50, 7, 0.2), (3000, 40, 0.05), (800, 25, 0.6)):
        A = rng.normal(size=(n, d)) * (rng.random((n, d)) < density)
        A[:, 3] = 0.0  # a column without entries
        A[n // 4: n // 4 + 20, 1] = rng.normal(size=20)  # a long run
        b = rng.normal(size=n)
        S = csc_matrix(A)
        H, g = _sparse_normal(A, b)
        assert H.tobytes() == (S.T @ S).toarray().tobytes() and g.tobytes() == (S.T @ b).tobytes()


def test_a_motif_the_composition_explains_is_flagged_and_not_matched(caplog):
    """A/T-rich positives (70% A/T) against uniform negatives: an A/T stretch is enriched over the
    negatives, in and out of sample, but has about as many sites in the positives' dinucleotide
    shuffles (composition); a planted GGATTACAT in uniform positives has few there. The
    composition motif gets no database match."""
    from seqimp.motifs import refine_motifs, select_motifs
    from seqimp.pipeline import MotifRun
    from seqimp.motifs.search._run import motif_matches

    rng = np.random.default_rng(6)
    rich = rng.choice(4, size=(300, 40), p=[0.35, 0.15, 0.15, 0.35]).astype(np.uint8)
    neg = rng.integers(0, 4, (300, 40)).astype(np.uint8)
    at = refine_motifs([Motif.from_consensus("candidate1", "AATTTAAATT", purity=0.7, start=15, spread=5.0)],
                       rich, neg, strand="both")
    row = at.stats.iloc[0]
    assert row["log10_p_value"] < -20 and row["log10_held_out_p_value"] < -5       # enriched over the negatives
    assert row["log10_composition_p_value"] > -3 and row["shuffled_sites"] > 0.5 * row["sites"]
    with caplog.at_level(logging.INFO, logger="seqimp"):
        kept = select_motifs(at, strand="both")
    assert list(kept.stats["composition"]) == [True]
    assert any(m.startswith("motif1 (") and "is composition, not a motif" in m for m in _messages(caplog))
    planted = _plant(rng, rng.integers(0, 4, (300, 40)).astype(np.uint8), "GGATTACAT", 25, rate=0.6)
    real = refine_motifs([Motif.from_consensus("candidate1", "GGATTACAT", purity=0.9, start=26)], planted, neg,
                         strand="both")
    assert real.stats.iloc[0]["log10_composition_p_value"] < -20
    assert list(select_motifs(real, strand="both", first_number=2).stats["composition"]) == [False]
    database = MotifDatabase([Motif.from_consensus("AT_RICH", at.motifs[0].consensus, purity=0.9),
                              Motif.from_consensus("GATTA", "GGATTACAT", purity=0.9)])
    both = select_motifs(real, strand="both", first_number=2)
    run = MotifRun(kept.motifs + both.motifs, None, None, stats=pd.concat([kept.stats, both.stats], ignore_index=True),
                   sites=kept.sites)
    matches = motif_matches(run, MotifOptions(database=database))
    assert set(matches["query"]) == {"motif2"}                                      # motif1 is composition


@pytest.mark.parametrize("shifts", [0, 2])
def test_the_shifts_hint_only_where_it_applies(tmp_path, caplog, shifts):
    rng = np.random.default_rng(8)
    pos, neg = (rng.integers(0, 4, (120, 24)).astype(np.uint8) for _ in range(2))
    with caplog.at_level(logging.INFO, logger="seqimp"):
        run = run_motifs(tmp_path, positive=pos, negative=neg,
                         model=ModelOptions(degree=3, shifts=shifts, test_fraction=0))
    assert run.motifs == []
    hinted = [m for m in _messages(caplog) if m.startswith("hint:") and "--shifts" in m]
    assert len(hinted) == (1 if shifts == 0 else 0)


def test_the_rounds_end_at_a_round_that_reports_only_composition(monkeypatch, caplog):
    """A later round whose new motifs are all flagged as the positives' composition is reported
    and ends the model's rounds (the next would find more composition); a round with one motif
    that is not composition goes on. The search is a stand-in that reports what it is given."""
    from types import SimpleNamespace

    from seqimp.io._labelled import LabelledSequences
    from seqimp.motifs.search import _rounds

    monkeypatch.setattr(_rounds, "erase_sites", lambda *a, **k: None)

    def step(names, composition):
        stats = pd.DataFrame({"name": names, "composition": composition})
        motifs = [Motif(n, np.full((4, 4), 0.25)) for n in names]
        return SimpleNamespace(motifs=motifs, stats=stats, sites=pd.DataFrame(), candidates=pd.DataFrame(),
                               scanning=[], tested=len(names), parameters={}, result=None)

    data = LabelledSequences(np.zeros((4, 10), np.uint8), np.zeros((4, 10), np.uint8))
    for plan, rounds_run in (([(["m2"], [True]), (["m3"], [False])], 2),
                             ([(["m2", "m3"], [True, False]), (["m4"], [True]), (["m5"], [False])], 3)):
        later = iter(plan)
        first = step(["m1"], [False])
        with caplog.at_level(logging.INFO, logger="seqimp"):
            run = _rounds.explain_away(first, data, options=MotifOptions(rounds=5),
                                       search=lambda masked, number, accepted: step(*next(later)), random_state=0)
        assert run.parameters["rounds_run"] == rounds_run
        assert [m.name for m in run.motifs][-1] == ("m2" if rounds_run == 2 else "m4")
    assert "all the positives' composition" in caplog.records[-1].getMessage()
