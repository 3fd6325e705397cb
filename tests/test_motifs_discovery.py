"""Motif discovery a biologist can trust: determinism, reverse complements, palindromes,
start/PWM alignment, no-zero PWMs, depleted and position-free motifs, separate peaks, sites."""

import os
from pathlib import Path

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.importance._result import POIMResult
from seqimp.motifs import Motif, discover_motifs, implied_poim, read_motifs, refine_motifs, site_scores
from seqimp.motifs._candidates import noise_level
from seqimp.motifs._copies import pwm_similarity, same_motif
from seqimp.options import ModelOptions, MotifOptions
from seqimp.pipeline import run_motifs

DATA = Path(__file__).resolve().parent / "data"
# ../shared beside the repository (CI); SEQIMP_SHARED_DATA points elsewhere (a worktree)
SHARED = Path(os.environ.get("SEQIMP_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))
SHARED = SHARED / "motif_benchmark"
COMP = str.maketrans("ACGT", "TGCA")


def _result(tables):
    return POIMResult(tables, tables, expected_score=0.0, score_std=1.0)


def _codes(text):
    return np.array(["ACGT".index(c) for c in text])


def _plant(rng, n, L, word, *, start=None, both=False, rate=1.0):
    """n random sequences of length L carrying ``word`` (at 0-based ``start``, else anywhere),
    on a random strand with ``both``, in a share ``rate`` of them."""
    X = rng.integers(0, 4, (n, L))
    for i in range(n):
        if rng.random() >= rate:
            continue
        w = word.translate(COMP)[::-1] if both and rng.random() < 0.5 else word
        s = start if start is not None else int(rng.integers(0, L - len(w) + 1))
        X[i, s:s + len(w)] = _codes(w)
    return X.astype(np.uint8)


def test_site_scores_against_a_loop():
    rng = np.random.default_rng(0)
    pwm = rng.dirichlet(np.ones(4), 5)
    X = rng.integers(0, 4, (7, 20)).astype(np.intp)
    bg = np.array([0.4, 0.1, 0.2, 0.3])
    starts = np.arange(3, 12)
    fast = site_scores(pwm, X, starts, ("+", "-"), bg)
    rc = pwm[::-1, ::-1]
    for i in range(7):
        for a, t in enumerate(starts):
            for s, p in enumerate((pwm, rc)):  # the reverse strand: the PWM's reverse complement reads the window
                slow = sum(np.log2(p[l, X[i, t + l]] / bg[X[i, t + l]]) for l in range(5))
                assert fast[i, a, s] == pytest.approx(slow, rel=1e-12, abs=1e-12)


def test_weighted_counts_against_a_loop():
    from seqimp.motifs._sites import weighted_counts, window_letters

    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, (6, 25)).astype(np.uint8)
    starts = np.arange(2, 15)
    for strands in (("+",), ("+", "-")):
        post = rng.random((6, starts.size, len(strands)))
        slow = np.zeros((4, 4))
        for s, strand in enumerate(strands):
            letters = window_letters(X.astype(np.intp), starts, 4, strand)
            for i in range(6):
                for a in range(starts.size):
                    for c in range(4):
                        slow[c, letters[i, a, c]] += post[i, a, s]
        assert np.allclose(weighted_counts(post, X, starts, 4), slow, rtol=1e-12, atol=1e-12)


def test_em_step_against_scores_and_counts():
    """One fused EM iteration equals the E-step from site_scores and the M-step's weighted_counts."""
    from seqimp.motifs._sites import em_step, weighted_counts

    rng = np.random.default_rng(2)
    X = rng.integers(0, 4, (9, 30)).astype(np.intp)
    pwm = rng.dirichlet(np.ones(4), 6)
    bg = np.array([0.3, 0.2, 0.2, 0.3])
    starts = np.arange(4, 20)
    for strands in (("+",), ("+", "-")):
        gamma = 0.3
        llr = site_scores(pwm, X, starts, strands, bg) * np.log(2)
        top = llr.max(axis=(1, 2), keepdims=True)
        num = np.exp(llr - top) * (gamma / (starts.size * len(strands)))
        den = (1 - gamma) * np.exp(-top[:, 0, 0]) + num.sum(axis=(1, 2))
        post = num / den[:, None, None]
        counts, loglik, mass = em_step(pwm, X, starts, strands, bg, gamma)
        assert np.allclose(counts, weighted_counts(post, X, starts, 6), rtol=1e-12, atol=1e-12)
        assert loglik == pytest.approx(float(np.sum(np.log(den) + top[:, 0, 0])), rel=1e-12)
        assert mass == pytest.approx(float(post.sum()), rel=1e-12)


def test_em_step_in_chunks_is_the_same_bits_on_any_thread_count():
    """Rows in fixed chunks (EM_CHUNK_ROWS), summed chunk by chunk: 1 and 2 threads agree to the
    last bit, and the sums over several chunks equal the E-step from site_scores."""
    import numba

    from seqimp.motifs._sites import EM_CHUNK_ROWS, em_step, weighted_counts

    rng = np.random.default_rng(4)
    n = 2 * EM_CHUNK_ROWS + 37
    X = rng.integers(0, 4, (n, 40)).astype(np.intp)
    pwm = rng.dirichlet(np.ones(4), 7)
    bg = np.array([0.3, 0.2, 0.2, 0.3])
    starts = np.arange(0, 34)
    before = numba.get_num_threads()
    try:
        runs = []
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            runs.append(em_step(pwm, X, starts, ("+", "-"), bg, 0.4))
    finally:
        numba.set_num_threads(before)
    (c1, l1, m1), (c2, l2, m2) = runs
    assert c1.tobytes() == c2.tobytes() and l1 == l2 and m1 == m2
    llr = site_scores(pwm, X, starts, ("+", "-"), bg) * np.log(2)
    top = llr.max(axis=(1, 2), keepdims=True)
    num = np.exp(llr - top) * (0.4 / (starts.size * 2))
    den = 0.6 * np.exp(-top[:, 0, 0]) + num.sum(axis=(1, 2))
    assert np.allclose(c1, weighted_counts(num / den[:, None, None], X, starts, 7), rtol=1e-12, atol=1e-12)
    assert l1 == pytest.approx(float(np.sum(np.log(den) + top[:, 0, 0])), rel=1e-12)


def test_similarity_over_offsets_and_strands():
    a = Motif.from_consensus("a", "GGATTACACC", purity=0.9).pwm
    b = Motif.from_consensus("b", "ATTACA", purity=0.9).pwm
    sim, off, strand = pwm_similarity(a, b)
    assert (off, strand) == (2, "+") and 0.7 < sim < 0.8  # 6 of 10 informative columns: sqrt(6/10)
    sim, off, strand = pwm_similarity(a, b[::-1, ::-1])
    assert (off, strand) == (2, "-") and sim > 0.7
    assert pwm_similarity(a, a)[0] == pytest.approx(1.0, abs=1e-12)
    assert pwm_similarity(a, b[::-1, ::-1], strand="given")[0] < 0.5  # below the merge threshold
    x = Motif.from_consensus("x", "TTGACA", start=10)
    assert same_motif(x, x.reverse_complement())
    assert not same_motif(x, Motif.from_consensus("y", "TTGACA", start=30))  # same PWM, elsewhere
    assert not same_motif(x, Motif.from_consensus("z", "TTGACA", start=10, direction="depleted"))


def test_two_separate_peaks_are_two_motifs():
    """A -35 box 17 nt upstream of a -10 box: two motifs, at their places."""
    truth = [Motif.from_consensus("a", "TTGACA", purity=0.9, start=10),
             Motif.from_consensus("b", "TATAAT", purity=0.9, start=33)]
    found = discover_motifs(_result(implied_poim(truth, 50, 4, alpha=[[1] * 4, [0.4] * 4])))
    by = {m.consensus: m for m in found.motifs}
    assert set(by) == {"TTGACA", "TATAAT"}
    assert by["TTGACA"].start == 10 and by["TATAAT"].start == 33
    assert found.motifs[0].consensus == "TTGACA"  # the stronger first
    for m in found.motifs:
        assert 0 <= m.score <= 1
    assert sum(m.score for m in found.motifs) <= 1 + 1e-9


def test_depleted_motif_is_reported_and_labelled():
    truth = [Motif.from_consensus("a", "GATTACA", purity=0.9, start=5),
             Motif.from_consensus("b", "CCGCGG", purity=0.9, start=25)]
    tables = implied_poim(truth, 40, 4, alpha=[[1] * 4, [-0.8] * 4])
    found = discover_motifs(_result(tables))
    by = {m.consensus: m for m in found.motifs}
    assert by["GATTACA"].direction == "enriched" and by["CCGCGG"].direction == "depleted"
    assert by["CCGCGG"].start == 25
    assert list(found.table()["direction"]) == [m.direction for m in found.motifs]


def test_noise_level_is_median_plus_mad():
    rng = np.random.default_rng(1)
    tables = [rng.normal(0, 1, (30 - k + 1, 4 ** k)) for k in range(1, 4)]
    r = _result(tables)
    omega = r.differential[1:][np.isfinite(r.differential[1:])]
    med = np.median(omega)
    assert noise_level(r, factor=2.0) == pytest.approx(med + 2 * 1.4826 * np.median(np.abs(omega - med)))


def test_reverse_complements_merge_into_one_motif():
    """A non-palindromic 9-mer on both strands: one motif, half of the sites on each strand."""
    rng = np.random.default_rng(2)
    word = "TGACGCATT"
    pos, neg = _plant(rng, 400, 40, word, start=15, both=True), _plant(rng, 400, 40, word, rate=0)
    half = Motif.from_consensus("m", "TGACG", purity=0.6, start=16)
    res = refine_motifs([half], pos, neg, strand="both")
    m = res.motifs[0]
    assert m.consensus in (word, word.translate(COMP)[::-1])
    assert m.start == 16 and m.sites >= 390
    assert 0.4 < res.stats["plus_strand"][0] <= 0.6
    # given strand only: one PWM must describe both orientations, a blurred mixture
    given = refine_motifs([half], pos, neg, strand="given").motifs[0]
    assert given.information_content().sum() < m.information_content().sum() - 4


def test_palindrome_start_and_pwm_alignment(tmp_path):
    """A palindromic E-box CACGTG at 21..26: start 21 (not 2 positions early), sites at 21."""
    rng = np.random.default_rng(3)
    pos, neg = _plant(rng, 300, 50, "CACGTG", start=20), _plant(rng, 300, 50, "CACGTG", rate=0)
    run = run_motifs(tmp_path / "m", positive=pos, negative=neg, model=ModelOptions(degree=4),
                     motifs=MotifOptions(strand="both"))
    m = run.motifs[0]
    assert m.consensus == "CACGTG" and m.start == 21
    assert (run.sites.loc[run.sites["motif"] == m.name, "position"] == 21).mean() > 0.95


def test_sites_align_with_the_written_pwm(tmp_path):
    """Every site of motif_sites.tsv scores, with the PWM read back from motifs.meme, exactly its
    reported score; consensus = the PWM's argmax; no exact zero; E-values, never E= 0."""
    rng = np.random.default_rng(4)
    pos = _plant(rng, 300, 40, "GGATTACAT", start=9, both=True)
    neg = _plant(rng, 300, 40, "A", rate=0)
    out = tmp_path / "m"
    run = run_motifs(out, positive=pos, negative=neg, model=ModelOptions(degree=4), motifs=MotifOptions(strand="both"))
    written = {m.name: m for m in read_motifs(out / "motifs.meme")}
    table = run.table()
    bg = np.bincount(neg.ravel(), minlength=4) + 1.0
    bg = bg / bg.sum()
    for row in table.to_dict("records"):
        m = written[row["name"]]
        assert (m.pwm > 0).all()
        assert row["consensus"] == "".join("ACGT"[i] for i in m.pwm.argmax(axis=1))
        assert 0 <= row["poim_share"] <= 1 and row["score"] == max(-row["log10_held_out_p_value"], 0.0)
        sites = run.sites[run.sites["motif"] == row["name"]]
        assert len(sites) == row["sites"]
        for s in sites.head(50).to_dict("records"):
            i = int(s["id"][3:]) - 1
            window = pos[i, s["position"] - 1:s["position"] - 1 + m.length]
            p = m.pwm if s["strand"] == "+" else m.pwm[::-1, ::-1]
            # the MEME file keeps 6 decimals
            assert np.log2(p[np.arange(m.length), window] / bg[window]).sum() == pytest.approx(s["score"], abs=1e-3)
    text = (out / "motifs.meme").read_text()
    assert "E= 0\n" not in text and "E= " in text
    bed = (out / "motif_sites.bed").read_text().splitlines()
    assert len(bed) == len(run.sites) and bed[0].split("\t")[0].startswith("pos")


def test_a_site_is_never_claimed_by_two_motifs():
    rng = np.random.default_rng(5)
    pos, neg = _plant(rng, 300, 40, "GATTACAGG", start=10), _plant(rng, 300, 40, "A", rate=0)
    a = Motif.from_consensus("a", "GATTA", purity=0.7, start=11)
    b = Motif.from_consensus("b", "TACAGG", purity=0.7, start=14)  # the same site's other half
    res = refine_motifs([a, b], pos, neg)
    assert res.motifs[0].sites > 280
    assert res.motifs[1].sites < 10


def test_site_threshold_is_calibrated_on_the_negatives():
    rng = np.random.default_rng(6)
    pos, neg = _plant(rng, 500, 60, "TTGACGTCAA", rate=0.5), _plant(rng, 500, 60, "A", rate=0)
    m = Motif.from_consensus("m", "TTGACGTCAA", purity=0.7, start=1, position_free=True, spread=15)
    res = refine_motifs([m], pos, neg, fpr=0.02)
    row = res.stats.iloc[0]
    assert row["fraction_negative"] <= 0.02
    assert 0.45 < row["fraction_positive"] < 0.6 and row["p_value"] < 1e-50
    with pytest.raises(SeqimpError, match="fpr must lie in"):
        refine_motifs([m], pos, neg, fpr=0)
    with pytest.raises(SeqimpError, match="strand must be one of"):
        refine_motifs([m], pos, neg, strand="minus")


@pytest.mark.parametrize("kwargs, name", [(dict(seed_ic=2.0), "seed_ic"), (dict(seed_ic=-0.1), "seed_ic"),
                                          (dict(max_iter=0), "max_iter"), (dict(alpha=1.0), "alpha"),
                                          (dict(min_ic=-1), "min_ic"), (dict(tol=float("nan")), "tol"),
                                          (dict(pad=-1), "pad"), (dict(max_grow=1.5), "max_grow"),
                                          (dict(max_length=8, min_length=9), "min_length")])
def test_refine_motifs_refuses_settings_that_leave_no_motif(kwargs, name):
    """A seed sharpened to 2 bits a column (one-hot: its zeros score -inf, every window ties) and
    an EM of no iteration (the padded seed's single best column) gave a one-letter motif; each
    bad setting is one error naming it."""
    rng = np.random.default_rng(6)
    pos, neg = _plant(rng, 60, 40, "TTGACGTCAA", rate=0.5), _plant(rng, 60, 40, "A", rate=0)
    m = Motif.from_consensus("m", "TTGACGTCAA", purity=0.7, start=1, position_free=True, spread=15)
    with pytest.raises(SeqimpError, match=f"^{name} must be"):
        refine_motifs([m], pos, neg, **kwargs)
    assert refine_motifs([m], pos, neg, seed_ic=1.99, max_iter=1).motifs[0].length > 1


def test_position_free_motif_is_found(tmp_path):
    """A motif at random places: reported as position-free, with its spread, not dropped."""
    rng = np.random.default_rng(7)
    pos, neg = _plant(rng, 600, 40, "AGATAAGG", both=True), _plant(rng, 600, 40, "A", rate=0)
    run = run_motifs(tmp_path / "m", positive=pos, negative=neg, model=ModelOptions(degree=6),
                     motifs=MotifOptions(strand="both"))
    free = [m for m in run.motifs if m.position_free]
    assert free and free[0].consensus in ("AGATAAGG", "CCTTATCT") or \
        "GATAA" in free[0].consensus or "TTATC" in free[0].consensus
    assert free[0].spread > 5 and free[0].sites > 300


def test_same_command_twice_and_other_seed(tmp_path):
    """Byte-identical files on a rerun; another seed gives the same motifs (the importance comes
    from a model trained on all sequences)."""
    from seqimp.io._fasta import read_fasta

    pos, neg = read_fasta(DATA / "planted_pos.fa"), read_fasta(DATA / "planted_neg.fa")
    runs = [run_motifs(tmp_path / f"r{i}", positive=pos, negative=neg, model=ModelOptions(degree=4), random_state=seed)
            for i, seed in enumerate((0, 0, 5))]
    for name in ("motifs.tsv", "motifs.meme", "motif_sites.tsv", "motif_sites.bed"):
        assert (tmp_path / "r0" / name).read_bytes() == (tmp_path / "r1" / name).read_bytes()
    assert runs[0].table()[["consensus", "start", "length", "sites"]].equals(
        runs[2].table()[["consensus", "start", "length", "sites"]])
    assert '"seed": 0' in (tmp_path / "r0" / "motifs.json").read_text()


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/motif_benchmark is not present")
def test_planted_ctcf_both_strands(tmp_path):
    """CTCF planted on both strands at 27-33: one long motif with sites in >= 90% of positives."""
    from seqimp.io._fasta import read_fasta

    pos, neg = read_fasta(SHARED / "planted_pos.fa"), read_fasta(SHARED / "planted_neg.fa")
    run = run_motifs(tmp_path / "m", positive=pos, negative=neg, motifs=MotifOptions(strand="both"))
    streme = read_motifs(SHARED / "streme_planted.txt", "meme")[0]
    best = max(run.motifs, key=lambda m: pwm_similarity(m.pwm, streme.pwm)[0])
    assert best is run.motifs[0] and pwm_similarity(best.pwm, streme.pwm)[0] > 0.8
    assert (best.information_content() >= 0.5).sum() >= 12 and best.sites >= 0.9 * len(pos)
    assert 27 <= best.start <= 36
    assert any(m.position_free for m in run.motifs)


def test_written_pwm_is_not_sharpened_by_the_site_threshold():
    """Sites sampled from a degenerate PWM anywhere in long sequences (a short motif whose best
    score occurs by chance in more than 1 % of the negatives, so only near-exact matches pass
    the threshold): the written PWM keeps the planted letter frequencies (the EM estimate),
    not a one-hot of the exact matches."""
    rng = np.random.default_rng(8)
    truth = np.array([[0.05, 0.85, 0.05, 0.05], [0.05, 0.05, 0.05, 0.85], [0.6, 0.05, 0.05, 0.3],
                      [0.85, 0.05, 0.05, 0.05], [0.05, 0.05, 0.05, 0.85], [0.05, 0.85, 0.05, 0.05]])
    n, L = 1500, 100
    pos, neg = rng.integers(0, 4, (n, L)).astype(np.uint8), rng.integers(0, 4, (n, L)).astype(np.uint8)
    for i in range(n):
        site = (rng.random((6, 1)) > np.cumsum(truth, axis=1)).sum(axis=1)
        s = int(rng.integers(0, L - 6 + 1))
        pos[i, s:s + 6] = site
    seed = Motif.from_consensus("m", "CTAATC", purity=0.7, start=1, position_free=True, spread=25)
    res = refine_motifs([seed], pos, neg, strand="given")
    m = res.motifs[0]
    col = m.consensus.find("CTAATC")
    assert col >= 0, m.consensus
    est = m.pwm[col:col + 6]
    # 1,500 sites: the EM frequencies lie within 0.08 of the planted ones (a one-hot of exact
    # matches would put 0.95+ on the consensus letter of the 0.6 / 0.3 column)
    assert np.abs(est - truth).max() < 0.08, np.round(est, 2)
    assert (m.pwm > 0).all()


def test_informative_columns_are_a_g_test_against_the_background():
    """A column is informative when it has min_ic bits over the background and its letters
    differ from the background at level alpha: scipy's G-test of the expected site counts."""
    from scipy.stats import power_divergence

    from seqimp.motifs._zoops_fit import _informative

    rng = np.random.default_rng(9)
    bg = np.array([0.3, 0.2, 0.2, 0.3])
    pwm = np.vstack([rng.dirichlet(np.full(4, a), 6) for a in (0.5, 5.0, 50.0, 500.0)])
    for n_sites in (15.0, 60.0, 400.0):
        fast = _informative(pwm, n_sites, bg, 0.25, 1e-3)
        for col, flag in zip(pwm, fast):
            g, p = power_divergence(n_sites * col, n_sites * bg, lambda_="log-likelihood")
            bits = float(np.sum(col * np.log2(col / bg)))
            assert flag == (bits >= 0.25 and p <= 1e-3), (col, n_sites, p, bits)
    # the same 0.4-bit column: noise from 15 sites, a motif column from 400
    col = np.array([[0.55, 0.15, 0.15, 0.15]])
    assert not _informative(col, 15.0, np.full(4, 0.25), 0.25, 1e-3)[0]
    assert _informative(col, 400.0, np.full(4, 0.25), 0.25, 1e-3)[0]


def test_merged_copies_give_the_group_placement():
    """Copies of one motif at other starts (either strand, other lengths): the kept motif's
    start and spread are the mean and sd of where each copy puts its first column."""
    from seqimp.motifs._copies import merge_similar

    word = "GGATTACACCT"
    rc = word.translate(COMP)[::-1]
    a = Motif.from_consensus("a", word, purity=0.9, start=31, spread=1.0, score=0.4)
    b = Motif.from_consensus("b", word[2:9], purity=0.9, start=40, spread=0.0, score=0.2)  # a at 38
    c = Motif.from_consensus("c", rc[1:10], purity=0.9, start=22, spread=2.0, score=0.2)  # rc: a at 22 + 9 - 11 + 1
    other = Motif.from_consensus("d", "CCCCGGGG", purity=0.9, start=10, score=0.1)
    out = merge_similar([a, b, c, other], strand="both", max_shift=20)
    assert [m.name for m in out] == ["a", "d"]
    starts, w = np.array([31, 38, 21]), np.array([0.5, 0.25, 0.25])
    mean = w @ starts
    sd = np.sqrt(w @ (np.array([1.0, 0.0, 2.0]) ** 2 + (starts - mean) ** 2))
    assert out[0].start == round(mean) and out[0].spread == pytest.approx(sd, rel=1e-12)
    assert out[1].start == 10 and out[1].spread == 0.0


def test_window_grows_to_the_sites_of_a_jittered_motif():
    """Sites start anywhere in 11..31 but the motif comes with start 21, spread 1 (a POIM whose
    placement saw the middle only): the window grows until its edges hold no enriched sites,
    so nearly every site is found and the start is the median planted start."""
    rng = np.random.default_rng(10)
    n, L, word = 800, 60, "GGATTACAT"
    pos, neg = rng.integers(0, 4, (n, L)).astype(np.uint8), rng.integers(0, 4, (n, L)).astype(np.uint8)
    planted = rng.integers(10, 31, n)
    for i, s in enumerate(planted):
        pos[i, s:s + len(word)] = _codes(word)
    seed = Motif.from_consensus("m", word, purity=0.8, start=21, spread=1.0)
    res = refine_motifs([seed], pos, neg)
    m, sites = res.motifs[0], res.sites
    assert m.consensus.find(word) >= 0 and m.sites >= 0.95 * n
    col = m.consensus.find(word)
    true_start = dict(zip(range(n), planted + 1 - col))
    assert (sites["position"] == sites["sequence"].map(true_start)).mean() > 0.98
    assert m.start == np.sort(planted)[(n - 1) // 2] + 1 - col
    assert res.stats["fraction_negative"][0] <= 0.01


def test_refinement_does_not_grow_into_the_composition_of_the_positives():
    """CACGTG planted at 16 in A/T-rich positives (A, T 0.4; C, G 0.1) against uniform negatives:
    the flanks carry 0.28 bit against the negatives, but nothing against the positives' own
    letters, so the refined motif stays the planted 6 columns at its place."""
    rng = np.random.default_rng(11)
    n, L, word = 600, 40, "CACGTG"
    pos = rng.choice(4, size=(n, L), p=[0.4, 0.1, 0.1, 0.4]).astype(np.uint8)
    neg = rng.integers(0, 4, (n, L)).astype(np.uint8)
    pos[:, 15:21] = _codes(word)
    seed = Motif.from_consensus("m", word, purity=0.8, start=16, spread=0.0)
    m = refine_motifs([seed], pos, neg, strand="given").motifs[0]
    assert (m.consensus, m.start) == (word, 16), (m.consensus, m.start)
    # a column that stands out in both respects (T after every site) is the motif's and is kept
    pos[:, 21] = 3
    m = refine_motifs([seed], pos, neg, strand="given").motifs[0]
    assert (m.consensus, m.start) == (word + "T", 16), (m.consensus, m.start)


def test_held_out_sites_are_counted_with_the_pwm_fitted_on_the_other_half():
    """Positives and negatives in identical pairs (sequence 2i == 2i + 1): each half is then
    the other's copy, so the held-out counts are twice the sites that refining on one half
    finds in that half -- a separate call of the whole refinement."""
    rng = np.random.default_rng(12)
    half_pos, half_neg = _plant(rng, 80, 40, "TGACTCA", start=12, rate=0.6), _plant(rng, 80, 40, "A", rate=0)
    pos, neg = np.repeat(half_pos, 2, axis=0), np.repeat(half_neg, 2, axis=0)
    seed = Motif.from_consensus("m", "TGACTCA", purity=0.7, start=13)
    one = refine_motifs([seed], half_pos, half_neg, held_out=False).stats.iloc[0]
    assert "held_out_p_value" not in one
    row = refine_motifs([seed], pos, neg).stats.iloc[0]
    assert (row["held_out_sites"], row["held_out_negative_sites"]) == (2 * one["sites"], 2 * one["negative_sites"])
    assert 80 < row["held_out_sites"] < 110 and row["held_out_p_value"] < 1e-20
    # one positive: no half to fit on, so no held-out test (NaN), not a made-up p-value
    tiny = refine_motifs([seed], pos[:1], neg[:3]).stats.iloc[0]
    assert np.isnan(tiny["held_out_p_value"]) and np.isnan(tiny["held_out_sites"])

