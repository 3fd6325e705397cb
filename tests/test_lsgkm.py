"""LS-GKM model files: the kernels against brute force in plain Python, the scores against
gkmpredict's (committed references, tests/data/lsgkm/README.md, and LS-GKM's NFE2 example when
../shared/data/lsgkm_nfe2 is present), GKMClassifier -> LS-GKM file -> scores, and bad files."""

from __future__ import annotations

import gzip
import math
import warnings
from functools import lru_cache
from itertools import combinations, product
from pathlib import Path

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.io._fasta import iter_fasta
from seqimp.kernels import GKMClassifier, gkm_kernel
from seqimp.kernels.gkm._lsgkm import LSGKMModel, read_lsgkm_model, write_lsgkm_model
from seqimp.kernels.gkm._lsgkm_kernel import KERNEL_NAMES, mismatch_weights, position_weights

DATA = Path(__file__).parent / "data" / "lsgkm"
NFE2 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "lsgkm_nfe2"

#: the committed LS-GKM models (tests/data/lsgkm/README.md)
REFERENCE_MODELS = ["t0_l6k4d2.model.txt", "t0_l6k4d1.model.txt", "t1_l6k4d2.model.txt", "t2_l6k4d2.model.txt",
                    "t2_l8k5d3.model.txt", "t3_l6k4d2_g2.model.txt", "t4_l6k4d2_M10H6.model.txt",
                    "t5_l6k4d2_M10H6_g1.5.model.txt", "t2_l6k4d2_norc.model.txt", "t2_l6k4d2_gz.model.txt.gz",
                    "seqimp_gkm.model.txt", "seqimp_lmers.model.txt.gz"]


def _fasta(path):
    return [s for _, s in iter_fasta(Path(path))]


def _scores(path):
    """gkmpredict's output: (scores as float, scores as printed)."""
    text = [line.rstrip("\n").split("\t")[1] for line in open(path)]
    return np.array(text, dtype=float), text


def _clean(seq):
    return "".join(c if c in "ACGT" else "A" for c in seq.upper())


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


# --- brute force --------------------------------------------------------------------------


def _rc(s):
    return s[::-1].translate(str.maketrans("ACGT", "TGCA"))


def _mismatches(a, b):
    return sum(x != y for x, y in zip(a, b))


def _estimate_weights(l, k):
    """Weight of a gapped k-mer whose letters differ from the estimated l-mer at i of its columns."""
    ball = [sum(math.comb(l, j) * 3 ** j for j in range(r + 1)) for r in range(k + 1)]
    return [(-1) ** i * (math.comb(l - k + i - 1, i) if i else 1) / math.comb(k, i) * ball[k - i]
            / (math.comb(l, k) * 4 ** l) for i in range(k + 1)]


@lru_cache(maxsize=None)
def _pair_weight(t, l, k, a, b):
    """The weight of l-mers a and b: t = 0 the gapped k-mers they share (column choices where
    they agree); else the product of their estimated l-mer counts summed over every l-mer z, each
    count summed over the gapped k-mers (column choices) of the l-mer."""
    cols = list(combinations(range(l), k))
    if t == 0:
        return float(sum(all(a[c] == b[c] for c in cs) for cs in cols))
    wm = _estimate_weights(l, k)

    def h(m):  # an l-mer and one at m mismatches from it
        u, z = "A" * l, "C" * m + "A" * (l - m)
        return sum(wm[sum(u[c] != z[c] for c in cs)] for cs in cols)

    hs = [h(m) for m in range(l + 1)]
    if t >= 2:
        cut = next((m for m in range(l + 1) if hs[m] < 1e-50), l + 1)
        hs = [v if m < cut else 0.0 for m, v in enumerate(hs)]
    return sum(hs[_mismatches(a, z)] * hs[_mismatches(b, z)] for z in map("".join, product("ACGT", repeat=l)))


def _brute_raw(x, y, t, l, k, d, rc, M=None, H=None):
    """Every + strand l-mer of x against every l-mer of y (both strands with rc) within d mismatches."""
    def windows(s):
        n = len(s) - l + 1
        if t in (4, 5):
            w = [min(M, math.floor(M * 2 ** (-abs(n // 2 - i) / H) + 1)) for i in range(n)]
        else:
            w = [1] * n
        return [(s[i:i + l], w[i]) for i in range(n)]

    total = 0.0
    for a, wa in windows(x):
        for b, wb in windows(y):
            for bb in ([b, _rc(b)] if rc else [b]):
                if _mismatches(a, bb) <= d:
                    total += wa * wb * _pair_weight(t, l, k, a, bb)
    return total


def _brute_kernel(X, Y, t, l, k, d, rc=True, gamma=None, M=None, H=None):
    K = np.array([[_brute_raw(x, y, t, l, k, d, rc, M, H) for y in Y] for x in X])
    nx = np.sqrt([_brute_raw(x, x, t, l, k, d, rc, M, H) for x in X])
    ny = np.sqrt([_brute_raw(y, y, t, l, k, d, rc, M, H) for y in Y])
    K = K / np.outer(nx, ny)
    return np.exp(gamma * (K - 1)) if t in (3, 5) else K


def _random_sequences(rng, n, low, high):
    return ["".join(rng.choice(list("ACGT"), int(rng.integers(low, high + 1)))) for _ in range(n)]


CASES = [(0, 4, 2, 2), (0, 4, 2, 1), (1, 4, 2, 2), (2, 4, 2, 2), (2, 4, 3, 1), (3, 4, 2, 2), (4, 4, 2, 2),
         (5, 4, 2, 2)]


@pytest.mark.parametrize("t, l, k, d", CASES)
@pytest.mark.parametrize("rc", [True, False])
def test_each_kernel_against_brute_force(t, l, k, d, rc):
    rng = np.random.default_rng(10 * t + d + 7 * rc)
    extra = {"gamma": 1.7} if t in (3, 5) else {}
    if t in (4, 5):
        extra.update(M=10, H=2.5)  # 10 * 2**(-D/2.5) + 1 is never an integer: no rounding tie
    svs = _random_sequences(rng, 3, l, 9)
    coef = np.array([0.7, -1.1, 0.4])
    model = LSGKMModel(KERNEL_NAMES[t], l, k, d, svs, coef, 0.25, reverse_complement=rc, **extra)
    X = _random_sequences(rng, 4, l, 9) + ["ACGTACGT", "AAAA"]
    want = _brute_kernel(X, X, t, l, k, d, rc, **extra)
    np.testing.assert_allclose(model.kernel_matrix(X), want, rtol=1e-12, atol=1e-14)
    scores = _brute_kernel(X, svs, t, l, k, d, rc, **extra) @ coef - 0.25
    np.testing.assert_allclose(model.decision_function(X), scores, rtol=1e-12, atol=1e-13)


def test_the_kernel_weights_and_position_weights():
    # gkm_cnt: the gapped k-mers shared; the estimated kernels' weights as brute force builds them
    np.testing.assert_array_equal(mismatch_weights(0, 6, 4, 2), [15.0, 5.0, 1.0])
    for t in (1, 2):
        a = "ACGTAC"
        want = [_pair_weight(t, 6, 4, a, "T" * m + a[m:]) for m in range(3)]
        np.testing.assert_allclose(mismatch_weights(t, 6, 4, 2), want, rtol=1e-12)
    # the centre weights: at most M, falling to half every H windows from the central one
    np.testing.assert_array_equal(position_weights(7, 10, 2.5), [5, 6, 8, 10, 8, 6, 5])
    assert position_weights(3, 255, 10.0)[1] == 0  # 256 stored in 8 bits, as LS-GKM stores it


def test_gkm_cnt_with_d_of_l_minus_k_is_seqimps_gkm_kernel():
    rng = np.random.default_rng(3)
    X = _random_sequences(rng, 6, 8, 30)
    for rc in (True, False):
        model = LSGKMModel("gkm_cnt", 6, 4, 2, X[:1], [1.0], 0.0, reverse_complement=rc)
        np.testing.assert_allclose(model.kernel_matrix(X),
                                   gkm_kernel(X, word_length=6, informative=4, reverse_complement=rc), rtol=1e-12)


# --- gkmpredict's scores ------------------------------------------------------------------


@pytest.mark.parametrize("name", REFERENCE_MODELS)
def test_reference_models_score_as_gkmpredict(name):
    stem = name.split(".model")[0]
    model = _quiet(read_lsgkm_model, DATA / name)
    got = _quiet(model.decision_function, _fasta(DATA / "test.fa"))
    full, _ = _scores(DATA / f"{stem}.pred17.txt")
    np.testing.assert_allclose(got, full, rtol=1e-12, atol=1e-13)
    _, printed = _scores(DATA / f"{stem}.pred.txt")
    assert [f"{v:g}" for v in got] == printed


@pytest.mark.skipif(not NFE2.is_dir(), reason=f"LS-GKM's NFE2 example is not at {NFE2} (not in the repository)")
def test_the_nfe2_example_scores_as_its_files():
    model = read_lsgkm_model(NFE2 / "nfe2.model.txt")
    assert (model.kernel, model.l, model.k, model.d, model.n_support) == ("gkm_esttrunc", 10, 6, 3, 958)
    for fasta, pred in (("nfe2.test.fa", "nfe2.test.pred.txt"), ("nfe2.neg.test.fa", "nfe2.neg.test.pred.txt")):
        want, printed = _scores(NFE2 / pred)
        got = model.decision_function(_fasta(NFE2 / fasta))
        assert np.abs(got - want).max() < 1e-5
        assert [f"{v:g}" for v in got] == printed  # gkmpredict's 6 digits, every one


def test_letters_other_than_acgt_are_read_as_a_with_one_warning():
    model = _quiet(read_lsgkm_model, DATA / "t2_l6k4d2.model.txt")
    with pytest.warns(UserWarning, match=r"X: 3 letter\(s\) other than ACGT in 2 sequence\(s\).*'N'.*read as A") as rec:
        got = model.decision_function(["ACGTNACGTTG", "NNACGTACCA", "ACGTTGCA"])
    assert len(rec) == 1
    np.testing.assert_array_equal(got, model.decision_function(["ACGTAACGTTG", "AAACGTACCA", "ACGTTGCA"]))
    with pytest.warns(UserWarning, match="support vectors: 4 letter"):
        read_lsgkm_model(DATA / "t2_l6k4d2.model.txt")
    codes = np.array([[0, 1, 2, 3, 3, 2, 1, 0]], dtype=np.uint8)
    assert model(codes) == pytest.approx(model.decision_function(["ACGTTGCA"])[0], abs=0)


def test_the_parameters_of_a_file():
    model = _quiet(read_lsgkm_model, DATA / "t5_l6k4d2_M10H6_g1.5.model.txt")
    assert (model.kernel, model.t, model.l, model.k, model.d) == ("wgkmrbf", 5, 6, 4, 2)
    assert (model.gamma, model.M, model.H, model.reverse_complement) == (1.5, 10, 6.0, True)
    first = (DATA / "t5_l6k4d2_M10H6_g1.5.model.txt").read_text().split("SV\n")[1].split("\n")[0].split()
    assert model.support_vectors[0] == first[1] and model.dual_coef[0] == float(first[0])  # letters as in the file
    assert model.dual_coef.shape == (48,)
    assert model.labels == (1, -1) and np.array_equal(model.alphas, np.abs(model.dual_coef))
    assert not _quiet(read_lsgkm_model, DATA / "t2_l6k4d2_norc.model.txt").reverse_complement


# --- GKMClassifier -> LS-GKM file ---------------------------------------------------------


@pytest.fixture(scope="module")
def seqimp_fits():
    train = _fasta(DATA / "seqimp_train.fa")
    y = np.r_[np.ones(24), np.zeros(24)]
    return train, {lk: GKMClassifier(*lk, tol=1e-4, random_state=0).fit(train, y) for lk in ((6, 4), (5, 3))}


def test_gkmclassifier_scores_as_gkmpredict_scores_its_file(seqimp_fits):
    _, fits = seqimp_fits
    test = [_clean(s) for s in _fasta(DATA / "test.fa")]
    for lk, stem in (((6, 4), "seqimp_gkm"), ((5, 3), "seqimp_lmers")):
        want, _ = _scores(DATA / f"{stem}.pred17.txt")
        got = fits[lk].decision_function(test)
        assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()


@pytest.mark.parametrize("rc", [True, False])
def test_round_trip_gkmclassifier_lsgkm_file_scores(rc, seqimp_fits, tmp_path):
    train, fits = seqimp_fits
    y = np.r_[np.ones(24), np.zeros(24)]
    clf = fits[(6, 4)] if rc else GKMClassifier(6, 4, reverse_complement=False, tol=1e-4).fit(train, y)
    test = [_clean(s) for s in _fasta(DATA / "test.fa")] + _random_sequences(np.random.default_rng(1), 5, 6, 60)
    want = clf.decision_function(test)
    for path, sequences in ((tmp_path / "a.model.txt", train), (tmp_path / "b.model.txt.gz", None)):
        written = write_lsgkm_model(path, clf, sequences)
        back = read_lsgkm_model(path)
        assert (back.kernel, back.l, back.k, back.d, back.reverse_complement) == ("gkm_cnt", 6, 4, 2, rc)
        assert back.n_support == (np.count_nonzero(clf.dual_coef_) if sequences else 2080 if rc else 4096)
        np.testing.assert_allclose(back.decision_function(test), want, rtol=0, atol=1e-12)
        np.testing.assert_allclose(written.decision_function(test), want, rtol=0, atol=1e-12)
    assert gzip.open(tmp_path / "b.model.txt.gz").readline() == b"svm_type c_svc\n"
    lsgkm = read_lsgkm_model(tmp_path / "a.model.txt")
    write_lsgkm_model(tmp_path / "c.model.txt", lsgkm)  # an LSGKMModel written again: the same text
    assert (tmp_path / "c.model.txt").read_text() == (tmp_path / "a.model.txt").read_text()


def test_a_saved_gkm_model_exports_without_its_sequences(seqimp_fits, tmp_path):
    from seqimp.kernels.gkm._file import load_gkm, save_gkm

    save_gkm(tmp_path / "m.npz", seqimp_fits[1][(5, 3)])
    clf, _ = load_gkm(tmp_path / "m.npz")
    written = write_lsgkm_model(tmp_path / "m.model.txt", clf)
    test = _random_sequences(np.random.default_rng(2), 6, 5, 50)
    np.testing.assert_allclose(read_lsgkm_model(tmp_path / "m.model.txt").decision_function(test),
                               clf.decision_function(test), atol=1e-12)
    assert written.n_support == 512
    with pytest.raises(SeqimpError, match="keeps no dual coefficients"):
        write_lsgkm_model(tmp_path / "x.model.txt", clf, seqimp_fits[0])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_what_has_no_lsgkm_form(seqimp_fits, tmp_path):
    train, fits = seqimp_fits
    y = np.r_[np.ones(24), np.zeros(24)]
    with pytest.raises(SeqimpError, match="normalize=False has no LS-GKM form"):
        write_lsgkm_model(tmp_path / "x.txt", GKMClassifier(4, 3, normalize=False, max_iter=5).fit(train, y))
    with pytest.raises(SeqimpError, match="up to 12"):
        write_lsgkm_model(tmp_path / "x.txt", GKMClassifier(13, 2, max_iter=2).fit(train, y), train)
    with pytest.raises(SeqimpError, match="47 sequences, but the model was fitted on 48"):
        write_lsgkm_model(tmp_path / "x.txt", fits[(6, 4)], train[:-1])
    with pytest.raises(SeqimpError, match="the sequences it was fitted on"):
        write_lsgkm_model(tmp_path / "x.txt", fits[(6, 4)], train[::-1])


# --- bad files ----------------------------------------------------------------------------


def _bad(tmp_path, edit, name="bad.model.txt"):
    lines = (DATA / "t2_l6k4d2.model.txt").read_text().splitlines(keepends=True)
    path = tmp_path / name
    path.write_text("".join(edit(lines)))
    with pytest.raises(SeqimpError) as err, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_lsgkm_model(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{path}, line ")
    return message


def test_bad_files_say_file_line_and_what(tmp_path):
    assert _bad(tmp_path, lambda s: s[:-5]).endswith("line 55: the file ends after 42 of total_sv 47 support "
                                                       "vectors (cut short)")
    assert "line 30: support vector 18 of 47 needs a coefficient and a sequence, got 1 words" in \
        _bad(tmp_path, lambda s: s[:29] + [s[29].split()[0][:7]])
    assert "line 2: unknown kernel_type 'gkm_foo' (LS-GKM's: gkm_cnt, gkm_estfull" in \
        _bad(tmp_path, lambda s: [x.replace("gkm_esttrunc", "gkm_foo") for x in s])
    assert "line 14: coefficient '0.3x' is not a number" in \
        _bad(tmp_path, lambda s: s[:13] + ["0.3x " + s[13].split()[1] + "\n"] + s[14:])
    assert "line 14: coefficient 'nan' is not a finite number" in \
        _bad(tmp_path, lambda s: s[:13] + ["nan " + s[13].split()[1] + "\n"] + s[14:])
    assert "line 3: L 'six' is not an integer" in _bad(tmp_path, lambda s: [s[0], s[1], "L six\n"] + s[3:])
    assert "line 3: L 13 is outside LS-GKM's range 2..12" in _bad(tmp_path, lambda s: [s[0], s[1], "L 13\n"] + s[3:])
    assert "line 5: d 3 is outside 0..L-k (2)" in _bad(tmp_path, lambda s: s[:4] + ["d 3\n"] + s[5:])
    assert "line 4: unknown header line 'kk'" in _bad(tmp_path, lambda s: s[:3] + ["kk 4\n"] + s[4:])
    assert "line 12: the file ends before the SV line" in _bad(tmp_path, lambda s: s[:11])
    assert "line 60: more support vectors than total_sv 47" in _bad(tmp_path, lambda s: s + [s[-1]])
    data = gzip.compress((DATA / "t2_l6k4d2.model.txt").read_bytes())
    (tmp_path / "cut.model.txt.gz").write_bytes(data[:len(data) // 2])
    with pytest.raises(SeqimpError, match=r"cut\.model\.txt\.gz, line \d+: the compressed data is damaged or cut"):
        read_lsgkm_model(tmp_path / "cut.model.txt.gz")
    with pytest.raises(SeqimpError, match="no such file"):
        read_lsgkm_model(tmp_path / "missing.model.txt")


def test_load_model_file_reads_an_lsgkm_file():
    from seqimp.training._model_file import load_model_file

    model, kind, metadata = _quiet(load_model_file, DATA / "t2_l6k4d2_gz.model.txt.gz")
    assert kind == "lsgkm" and isinstance(model, LSGKMModel) and metadata == {}
