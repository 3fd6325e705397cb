"""Unknown bases (N and the IUPAC ambiguity letters, code 4) in the WD/WDS and gkm kernels, their
solvers, scoring and unfolding: a positional k-mer or an l-mer window that covers one is no feature.

Every fast path is checked against an oracle written here: the explicit features of each sequence
enumerated from its letters, those that cover an unknown base dropped."""

from __future__ import annotations

import warnings
from collections import Counter
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.svm import LinearSVC

from seqimp import PositionalWeights, WDClassifier, wd_features, wd_kernel
from seqimp.kernels import GKMClassifier, gkm_kernel
from seqimp.kernels._dcd import dcd_svm, svm_primal_objective
from seqimp.kernels._implicit import wd_scores
from seqimp.kernels._params import feature_offsets, shift_weights, wd_beta
from seqimp.kernels._ridge import cg_ridge
from seqimp.kernels._sgd import fast_svm

LETTERS = "ACGTN"


def with_unknown(n, length, seed, share=0.08):
    """Random codes (n, L) with about ``share`` of the bases unknown (code 4), one row all unknown at
    its start and one without any."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, length)).astype(np.uint8)
    X[rng.random((n, length)) < share] = 4
    X[0, : length // 2] = 4
    X[1] = rng.integers(0, 4, length)
    return X


def strings(X):
    return ["".join(LETTERS[c] for c in row) for row in X]


def wd_feature_dict(s, degree):
    """{(k, i, k-mer): sqrt(beta_k)} over the k-mers of ``s`` that cover no N."""
    beta = wd_beta(degree)
    return {(k, i, s[i:i + k]): np.sqrt(beta[k - 1]) for k in range(1, degree + 1)
            for i in range(len(s) - k + 1) if "N" not in s[i:i + k]}


def oracle_wd_kernel(a, b, degree, shifts):
    """sum over pairs of features (k, i, u) of a and (k, j, u) of b with |i - j| = s <= shifts of
    beta_k (s = 0) or beta_k delta_s (s > 0): the definition, on the features that cover no N."""
    beta, delta = wd_beta(degree), shift_weights(shifts)
    fa, fb = wd_feature_dict(a, degree), wd_feature_dict(b, degree)
    total = 0.0
    for (k, i, u) in fa:
        for s in range(shifts + 1):
            for j in {i - s, i + s}:
                if (k, j, u) in fb:
                    total += beta[k - 1] * (1.0 if s == 0 else delta[s])
    return total


def oracle_features(X, degree, base=4):
    """The explicit WD feature matrix of the codes, built from the enumerated features (column
    ``offsets[k-1] + i 4^k + y``, y the k-mer's base-4 number)."""
    length = X.shape[1]
    offsets = feature_offsets(length, degree, base)
    rows, cols, vals = [], [], []
    for r, s in enumerate(strings(X)):
        for (k, i, u), v in wd_feature_dict(s, degree).items():
            y = 0
            for ch in u:
                y = y * base + "ACGT".index(ch)
            rows.append(r)
            cols.append(offsets[k - 1] + i * base ** k + y)
            vals.append(v)
    return sp.csr_matrix((vals, (rows, cols)), shape=(X.shape[0], int(offsets[-1])))


def oracle_score(weights, s):
    """bias + the weights of the positional k-mers of ``s`` that cover no N."""
    total = weights.bias
    for k, table in enumerate(weights.tables, 1):
        for i in range(len(s) - k + 1):
            u = s[i:i + k]
            if "N" not in u:
                total += table[i, int("".join(str("ACGT".index(c)) for c in u), 4)]
    return total


@pytest.mark.parametrize("shifts", [0, 1, 3])
def test_wd_kernel_equals_the_features_that_cover_no_unknown_base(shifts):
    X = with_unknown(9, 14, seed=2)
    Y = with_unknown(5, 14, seed=3)
    sx, sy = strings(X), strings(Y)
    want = np.array([[oracle_wd_kernel(a, b, 4, shifts) for b in sy] for a in sx])
    np.testing.assert_allclose(wd_kernel(X, Y, degree=4, shifts=shifts), want, rtol=1e-12, atol=1e-12)
    sym = np.array([[oracle_wd_kernel(a, b, 4, shifts) for b in sx] for a in sx])
    np.testing.assert_allclose(wd_kernel(sx, degree=4, shifts=shifts), sym, rtol=1e-12, atol=1e-12)
    assert sym[0, 0] < sym[1, 1]          # the row with unknown bases has fewer features
    if shifts == 0:   # normalised by the constant of a sequence without unknown bases: still linear
        const = float(np.dot(wd_beta(4), 14 - np.arange(4)))
        np.testing.assert_allclose(wd_kernel(X, Y, degree=4, normalize=True), want / const, rtol=1e-12)
        assert sym[1, 1] == pytest.approx(const)


def test_iupac_letters_are_unknown_and_match_nothing():
    G = wd_kernel(["ACNTRA", "ACNTYA", "ACGTAA"], degree=3)
    # N against N and R against Y match nothing: the first two share A, C, T, A and AC only
    beta = wd_beta(3)
    assert G[0, 1] == pytest.approx(4 * beta[0] + beta[1])
    np.testing.assert_allclose(G, G.T)


def test_wd_features_leave_out_the_covering_kmers():
    X = with_unknown(12, 11, seed=4)
    F = wd_features(X, degree=4)
    ref = oracle_features(X, 4)
    assert F.has_sorted_indices
    np.testing.assert_array_equal(F.indptr, ref.indptr)
    np.testing.assert_array_equal(F.indices, ref.indices)
    np.testing.assert_allclose(F.data, ref.data, rtol=1e-15)
    np.testing.assert_allclose((F @ F.T).toarray(), wd_kernel(X, degree=4), rtol=1e-12)
    w = np.random.default_rng(0).normal(size=F.shape[1])
    np.testing.assert_allclose(wd_scores(X, w, 0.5, degree=4), ref @ w + 0.5, rtol=1e-12)


def _labels(X, seed):
    rng = np.random.default_rng(seed)
    y = ((X[:, 3] == 1) | (X[:, 4] == 2)).astype(np.int64)
    flip = rng.random(X.shape[0]) < 0.15
    return np.where(flip, 1 - y, y)


def test_dcd_with_unknown_bases_equals_liblinear_on_the_oracle_features():
    X = with_unknown(90, 10, seed=5)
    y = _labels(X, 5)
    ref = LinearSVC(C=0.5, loss="hinge", tol=1e-10, max_iter=400_000).fit(oracle_features(X, 3), y)
    sol = dcd_svm(X, y, degree=3, C=0.5, tol=1e-10, max_iter=200_000)
    assert sol.converged
    np.testing.assert_allclose(sol.coef, ref.coef_.ravel(), atol=1e-6)
    assert sol.intercept == pytest.approx(ref.intercept_[0], abs=1e-6)
    primal = svm_primal_objective(X, y, sol.coef, sol.intercept, degree=3, C=0.5)
    assert sol.dual_objective == pytest.approx(primal, rel=1e-6)     # zero gap: the rows' norms are their own
    threads = dcd_svm(X, y, degree=3, C=0.5, tol=1e-10, max_iter=200_000, n_jobs=2)
    np.testing.assert_allclose(threads.coef, ref.coef_.ravel(), atol=1e-6)


def test_kernel_steps_with_unknown_bases_equal_plain_dcd_on_the_oracle_features():
    from test_dcd import _kernel_passes, _one_at_a_time

    rng = np.random.default_rng(6)
    X = with_unknown(131, 12, seed=6, share=0.1)
    y = (X[:, 4] == 1) ^ (rng.random(131) < 0.2)
    sign = np.where(y, 1.0, -1.0)
    upper = np.full(131, 0.5)
    order = rng.permutation(131)
    ref_alpha, ref_w, ref_b = _one_at_a_time(oracle_features(X, 5), sign, upper, order, passes=3)
    for paired in (True, False):
        alpha, w, b, _ = _kernel_passes(X, sign, upper, order, 5, paired=paired)
        np.testing.assert_allclose(alpha, ref_alpha, rtol=0, atol=1e-12)
        np.testing.assert_allclose(w, ref_w, rtol=0, atol=1e-12)
        assert b == pytest.approx(ref_b, abs=1e-12)


def test_fast_route_and_ridge_with_unknown_bases():
    X = with_unknown(120, 10, seed=7)
    y = _labels(X, 7)
    F = oracle_features(X, 3)
    ref = LinearSVC(C=0.5, loss="hinge", tol=1e-10, max_iter=400_000).fit(F, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fast = fast_svm(X, y, degree=3, C=0.5, weight_tol=1e-9, validation_tol=1e-9, max_iter=3000, patience=3,
                        extrapolate=True, average=None)
    np.testing.assert_allclose(fast.coef, ref.coef_.ravel(), atol=1e-4)
    values = y + np.random.default_rng(1).normal(0, 0.1, y.size)
    coef, intercept, _ = cg_ridge(X, values, degree=3, alpha=2.0, tol=1e-12)
    ridge = Ridge(alpha=2.0, solver="cholesky").fit(F.toarray(), values)
    np.testing.assert_allclose(coef, ridge.coef_, atol=1e-8)
    assert intercept == pytest.approx(ridge.intercept_, abs=1e-8)


@pytest.mark.parametrize("shifts, method", [(0, "implicit"), (0, "linear"), (2, "kernel")])
def test_decision_function_is_the_unfolded_weights_of_the_known_kmers(shifts, method):
    X = with_unknown(80, 12, seed=8)
    y = _labels(X, 8)
    test = with_unknown(15, 12, seed=9, share=0.2)
    model = WDClassifier(degree=4, shifts=shifts, method=method, C=0.5).fit(X, y)
    weights = model.positional_weights()
    want = np.array([oracle_score(weights, s) for s in strings(test)])
    np.testing.assert_allclose(model.decision_function(test), want, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(weights.score(strings(test)), want, rtol=1e-9, atol=1e-9)
    if shifts:   # the kernel expansion itself, from the oracle kernel
        K = np.array([[oracle_wd_kernel(a, b, 4, shifts) for b in strings(model.support_codes_)]
                      for a in strings(test)])
        np.testing.assert_allclose(K @ model.dual_coef_ + model.intercept_, want, rtol=1e-9, atol=1e-9)


def test_positional_weights_score_leaves_out_covering_kmers():
    rng = np.random.default_rng(10)
    tables = [rng.normal(size=(9 - k + 1, 4 ** k)) for k in (1, 2, 3)]
    weights = PositionalWeights(tables, bias=0.25)
    seqs = ["ACGTNACGT", "NNNNNNNNN", "ACGTRYACG", "ACGTACGTA"]
    np.testing.assert_allclose(weights.score(seqs), [oracle_score(weights, s.replace("R", "N").replace("Y", "N"))
                                                     for s in seqs], rtol=1e-12)
    assert weights.score(["NNNNNNNNN"])[0] == 0.25


def gkm_counts(s, l, k, rc):
    """Counter of the gapped k-mers (columns, letters) of the l-mer windows of ``s`` (and of its reverse
    complement with ``rc``) that cover no N."""
    comp = {"A": "T", "C": "G", "G": "C", "T": "A", "N": "N"}
    out = Counter()
    for seq in (s, "".join(comp[c] for c in reversed(s))) if rc else (s,):
        for t in range(len(seq) - l + 1):
            window = seq[t:t + l]
            if "N" in window:
                continue
            for cols in combinations(range(l), k):
                out[cols, "".join(window[c] for c in cols)] += 1
    return out


def oracle_gkm(A, B, l, k, rc):
    ca = [gkm_counts(s, l, k, rc) for s in A]
    cb = [gkm_counts(s, l, k, rc) for s in B]
    return np.array([[sum(v * b.get(f, 0) for f, v in a.items()) for b in cb] for a in ca], dtype=float)


@pytest.mark.parametrize("rc", [True, False])
def test_gkm_kernel_equals_the_counts_of_the_windows_that_cover_no_unknown_base(rc):
    A = ["ACGTNACGTTGCA", "ACGTACGTTGCAAC", "NNNNNNNNNNNN", "GGCANTTACRGA"]
    B = ["TTGCANACGTAC", "ACGTACGTTGCA"]
    An = [s.replace("R", "N") for s in A]
    raw = oracle_gkm(An, B, 5, 3, rc)
    np.testing.assert_allclose(gkm_kernel(A, B, word_length=5, informative=3, reverse_complement=rc,
                                          normalize=False), raw, rtol=1e-12)
    na = np.diag(oracle_gkm(An, An, 5, 3, rc))
    nb = np.diag(oracle_gkm(B, B, 5, 3, rc))
    norms = np.sqrt(np.outer(na, nb))
    want = np.divide(raw, norms, out=np.zeros_like(raw), where=norms > 0)
    np.testing.assert_allclose(gkm_kernel(A, B, word_length=5, informative=3, reverse_complement=rc), want,
                               rtol=1e-12)
    assert (want[2] == 0).all()        # no l-mer of known bases: phi = 0


def gkm_sequences(n=60, length=30, seed=11):
    rng = np.random.default_rng(seed)
    seqs = []
    for i in range(n):
        s = list(rng.choice(list("ACGT"), length))
        if i % 2:
            s[10:16] = "GATTAC"
        for p in rng.integers(0, length, 2):
            s[p] = "N"
        s[int(rng.integers(0, length))] = "N" if rng.random() < 0.5 else "n"
        seqs.append("".join(s))
    seqs[0] = "N" * length                     # no l-mer at all: kept, phi = 0
    return seqs, np.arange(n) % 2


def test_gkm_classifier_with_unknown_bases():
    seqs, y = gkm_sequences()
    model = GKMClassifier(6, 3).fit(seqs, y)
    # the decision function: <phi(x), coef_> / ||phi(x)|| + b, phi from the oracle's counts
    cols = model.columns_
    w = model.gapped_kmer_weights()
    index = {tuple(c): j for j, c in enumerate(cols.tolist())}

    def raw(s):
        return sum(v * w[index[c], int("".join(str("ACGT".index(ch)) for ch in u), 4)]
                   for (c, u), v in gkm_counts(s, 6, 3, True).items())

    test = [s.upper() for s in seqs[:6]] + ["ACGTNNGATTACAGGT", "ACGTAAGATTACAGGT"]
    norms = np.sqrt([sum(v * v for v in gkm_counts(s, 6, 3, True).values()) for s in test])
    want = [raw(s) / n if n > 0 else 0.0 for s, n in zip(test, norms)]
    np.testing.assert_allclose(model.decision_function(test), np.array(want) + model.intercept_, rtol=1e-9,
                               atol=1e-12)
    attr = model.attributions(test)
    sums = [a.sum() for a in attr]
    np.testing.assert_allclose(sums, want, rtol=1e-9, atol=1e-12)
    assert all(a[[i for i, c in enumerate(s) if c == "N"]].sum() == 0 for a, s in zip(attr, test))
    assert model.score(seqs, y) > 0.9


def test_gkm_fit_with_unknown_bases_equals_liblinear_on_the_oracle_features():
    """The gkm SVM (bias a constant feature of value ``bias``) on sequences with N is liblinear's on the
    normalised oracle counts; the fit's running weights are float32 and stop at tol, hence 1e-4."""
    seqs, y = gkm_sequences(40, 24, seed=12)
    upper = [s.upper() for s in seqs]
    cols = list(combinations(range(5), 3))
    F = np.zeros((len(seqs), len(cols) * 64))
    for r, s in enumerate(upper):
        for (c, u), v in gkm_counts(s, 5, 3, True).items():
            F[r, cols.index(c) * 64 + int("".join(str("ACGT".index(ch)) for ch in u), 4)] = v
    norms = np.linalg.norm(F, axis=1)
    F = np.divide(F, norms[:, None], out=np.zeros_like(F), where=norms[:, None] > 0)
    ref = LinearSVC(C=0.5, loss="hinge", tol=1e-10, max_iter=400_000, intercept_scaling=1.0).fit(F, y)
    model = GKMClassifier(5, 3, C=0.5, tol=1e-7, max_iter=20_000).fit(seqs, y)
    np.testing.assert_allclose(model.coef_, ref.coef_.ravel(), atol=1e-4)
    assert model.intercept_ == pytest.approx(ref.intercept_[0], abs=1e-4)
    np.testing.assert_allclose(model.decision_function(seqs), ref.decision_function(F), atol=1e-4)


def _fasta_with_unknown(path, positive, n=40, length=30, seed=13):
    """n records of ``length`` nt with N, lower-case n and IUPAC letters; a planted GATTACA in the positives."""
    rng = np.random.default_rng(seed + positive)
    lines = []
    for i in range(n):
        s = list(rng.choice(list("ACGT"), length))
        if positive:
            s[12:19] = "GATTACA"
        s[int(rng.integers(0, length))] = "N"
        if i % 3 == 0:
            s[2:5] = "nRY"
        lines.append(f">{'pos' if positive else 'neg'}{i}\n{''.join(s)}\n")
    path.write_text("".join(lines))
    return str(path)


def test_cli_train_and_poim_keep_every_record_with_unknown_bases(tmp_path):
    import json

    from seqimp.cli import main
    from seqimp.io import read_fasta
    from seqimp.training import load_model

    pos = _fasta_with_unknown(tmp_path / "pos.fa", True)
    neg = _fasta_with_unknown(tmp_path / "neg.fa", False)
    model = tmp_path / "m.npz"
    assert main(["train", "--positive", pos, "--negative", neg, "--degree", "3", "--test-fraction", "0",
                 "--model-out", str(model), "-q"]) == 0
    weights, meta = load_model(model)
    assert meta["n_train"] == 80
    # the model of the library on the same 80 records, N read as unknown
    X = np.vstack([read_fasta(pos).codes, read_fasta(neg).codes])
    assert (X == 4).sum() >= 80
    y = np.r_[np.ones(40, dtype=int), np.zeros(40, dtype=int)]
    ref = WDClassifier(degree=3, random_state=0).fit(X, y)
    np.testing.assert_allclose(weights.score(X), ref.decision_function(X), rtol=1e-9, atol=1e-9)
    assert main(["predict", "--model-file", str(model), "--fasta", pos, "--out", str(tmp_path / "pred"), "-q"]) == 0
    table = np.genfromtxt(tmp_path / "pred" / "predictions.tsv", delimiter="\t", names=True, dtype=None,
                          encoding="utf-8")
    np.testing.assert_allclose(table["score"], weights.score(X[:40]), rtol=1e-5, atol=1e-6)   # 6 printed digits
    assert main(["poim", "--no-motifs", "--positive", pos, "--negative", neg, "--degree", "3", "--max-order", "3",
                 "--seed", "0", "--out", str(tmp_path / "poim"), "-q"]) == 0
    summary = json.loads((tmp_path / "poim" / "summary.json").read_text())
    assert summary["data"]["n_positive"] == summary["data"]["n_negative"] == 40
    assert summary["metrics"]["n_train"] + summary["metrics"]["n_test"] == 80
    assert summary["metrics"]["auroc"] > 0.9


def _substituted(s, p, letter):
    return s[:p] + letter + s[p + 1:]


@pytest.mark.parametrize("kind", ["wd", "gkm"])
def test_variant_effects_and_null_on_windows_with_unknown_bases(kind):
    from seqimp.importance._variants import snv_null, variant_effects

    X = with_unknown(40, 20, seed=14, share=0.1)
    y = _labels(X, 14)
    if kind == "wd":
        model = WDClassifier(degree=4, C=0.5).fit(X, y).positional_weights()

        def score(seqs):
            return np.array([oracle_score(model, s) for s in seqs])
    else:
        model = GKMClassifier(5, 3).fit(strings(X), y)

        def score(seqs):
            return model.decision_function(seqs)
    windows = strings(X[:6])
    variants, want = [], []
    for w, s in enumerate(windows):
        for p in (0, 7, 13, 19):
            if s[p] == "N":
                continue
            alt = "ACGT"[("ACGT".index(s[p]) + 1 + w % 3) % 4]
            variants.append((w, p, s[p], alt))
            want.append(score([_substituted(s, p, alt)])[0] - score([s])[0])
    got = variant_effects(model, X[:6], variants, p_values=False)
    np.testing.assert_allclose(got["delta"], want, rtol=1e-9, atol=1e-9)
    assert np.abs(want).max() > 1e-3
    null = snv_null(model, X[:6])
    base = score(windows)
    for w, s in enumerate(windows):
        for p, c in enumerate(s):
            if c == "N":
                assert np.isnan(null[w, 3 * p:3 * p + 3]).all()
                continue
            others = [b for b in "ACGT" if b != c]
            np.testing.assert_allclose(null[w, 3 * p:3 * p + 3],
                                       score([_substituted(s, p, b) for b in others]) - base[w], rtol=1e-9,
                                       atol=1e-9)


def test_deltasvm_and_gkmexplain_read_unknown_bases():
    from seqimp.importance._deltasvm import deltasvm_scores
    from seqimp.importance._gkmexplain import attribution_profile, gkm_attributions

    seqs, y = gkm_sequences(40, 24, seed=15)
    model = GKMClassifier(5, 3).fit(seqs, y)
    attr = gkm_attributions(model, seqs)
    np.testing.assert_allclose(attr.sum(axis=1), model.decision_function(seqs) - model.intercept_, atol=1e-12)
    profile = attribution_profile(attr, seqs)
    assert np.isfinite(profile).all()
    upper = [s.upper() for s in seqs]

    def lmer(u):   # deltaSVM's weight of an l-mer: the model's score of it alone; none for one that covers N
        return 0.0 if "N" in u else model.decision_function([u])[0]

    variants, want = [], []
    for w in (1, 2, 3):
        s = upper[w]
        p = next(i for i in range(4, 20) if s[i] != "N" and "N" in s[i - 4:i + 5])   # an N among its l-mers
        alt = "ACGT"[("ACGT".index(s[p]) + 1) % 4]
        variants.append((w, p, s[p], alt))
        t = _substituted(s, p, alt)
        want.append(sum(lmer(t[a:a + 5]) - lmer(s[a:a + 5]) for a in range(max(0, p - 4), min(p, 19) + 1)))
    np.testing.assert_allclose(deltasvm_scores(model, seqs, variants), want, rtol=1e-9, atol=1e-12)


def test_an_lsgkm_model_reads_unknown_codes_as_a_and_its_export_refuses_them():
    from seqimp.errors import SeqimpError
    from seqimp.kernels.gkm._lsgkm_export import lsgkm_from_gkm

    seqs, y = gkm_sequences(30, 20, seed=16)
    model = GKMClassifier(5, 3).fit(seqs, y)
    with pytest.warns(UserWarning, match="support vector 0 holds an unknown base .* l-mer support vectors"):
        written = lsgkm_from_gkm(model, seqs)     # LS-GKM would read its N as A: the exact l-mer form instead
    assert 0 < len(written.support_vectors) <= 4 ** 5 // 2 and all(len(s) == 5 for s in written.support_vectors)
    model.word_length = 11
    model.tables_.word_length = 11               # past the l-mer form's limit: refused in one line
    with pytest.raises(SeqimpError, match="support vector 0 holds an unknown base"):
        lsgkm_from_gkm(model, [s + "A" * 6 for s in seqs])
    model.word_length = model.tables_.word_length = 5
    clean = np.random.default_rng(17).integers(0, 4, (5, 20)).astype(np.uint8)
    np.testing.assert_allclose(written.decision_function(clean), model.decision_function(clean), atol=1e-6)
    codes = with_unknown(5, 20, seed=17)
    with pytest.warns(UserWarning, match=r"unknown base\(s\) .* read as A, as LS-GKM does"):
        got = written.decision_function(codes)
    np.testing.assert_allclose(got, written.decision_function(np.where(codes == 4, 0, codes).astype(np.uint8)))


@pytest.mark.parametrize("kind", ["wd", "gkm"])
def test_cross_validation_keeps_every_sequence_with_unknown_bases(kind):
    from seqimp.options import ModelOptions
    from seqimp.training import cross_validate

    X = with_unknown(60, 24, seed=18, share=0.05)
    X[1::2, 8:14] = [2, 0, 3, 3, 0, 1]          # GATTAC in the positives
    y = np.arange(60) % 2
    model = ModelOptions(degree=3) if kind == "wd" else ModelOptions(kind="gkm", word_length=5, informative=3)
    cv = cross_validate(X, y, folds=3, model=model, random_state=0)
    assert len(cv.predictions) == 60 and np.isfinite(cv.predictions["score"]).all()
    assert cv.summary()["mean_auroc"] > 0.8


def test_prediction_encodes_unknown_bases_for_the_models_that_read_them():
    from seqimp.errors import SeqimpError
    from seqimp.training._predict import encode_for_model, predictor_kind, score_in_batches

    X = with_unknown(40, 12, seed=19)
    y = _labels(X, 19)
    model = WDClassifier(degree=3).fit(X, y)
    texts = strings(X[:8])
    for m in (model, model.positional_weights()):
        ids, codes = encode_for_model(texts, None, m, predictor_kind(m))
        np.testing.assert_array_equal(codes, X[:8])
        np.testing.assert_allclose(score_in_batches(m, codes, kind=predictor_kind(m)),
                                   model.decision_function(X[:8]), rtol=1e-9, atol=1e-9)

    def scorer(codes):
        return codes.sum(axis=1).astype(float)

    with pytest.raises(SeqimpError, match="letter 'N' at position"):     # a score function is not asked to
        encode_for_model(texts, None, scorer, "scorer")


def test_base_importance_and_the_indel_oligomer_leave_out_windows_over_unknown_bases():
    from seqimp.importance._variants import _wd_top, base_importance

    rng = np.random.default_rng(17)
    length = 12
    weights = PositionalWeights([rng.normal(size=(length - k + 1, 4 ** k)) for k in range(1, 4)], bias=0.2)
    X = with_unknown(6, length, seed=17, share=0.15)
    X[2, 5] = 4                                 # an N inside a window, known bases around it
    got = base_importance(weights, X)
    for r, s in enumerate(strings(X)):          # each known k-mer's weight split evenly over its k bases
        want = np.zeros(length)
        for k, table in enumerate(weights.tables, 1):
            for i in range(length - k + 1):
                u = s[i:i + k]
                if "N" not in u:
                    want[i:i + k] += table[i, int("".join(str("ACGT".index(c)) for c in u), 4)] / k
        np.testing.assert_allclose(got[r], want, rtol=1e-12, atol=1e-12)
        assert got[r].sum() == pytest.approx(oracle_score(weights, s) - 0.2, abs=1e-12)
    assert (got[0, : length // 2] == 0).all()   # all unknown: no k-mer covers these bases

    def features(s):
        return {(k, i, s[i:i + k]): table[i, int("".join(str("ACGT".index(c)) for c in s[i:i + k]), 4)]
                for k, table in enumerate(weights.tables, 1) for i in range(length - k + 1) if "N" not in s[i:i + k]}

    for r in (2, 3, 4, 5):                      # the alt: one base to N, one N (or base) to another letter
        alt = X[r].copy()
        alt[3], alt[8] = 4, (alt[8] + 1) % 4 if alt[8] < 4 else 1
        fr, fa = features(strings(X[r:r + 1])[0]), features(strings(alt[None])[0])
        changes = [(abs(w), -k, -i, 1, (u, i + 1, -w)) for (k, i, u), w in fr.items() if (k, i, u) not in fa]
        changes += [(abs(w), -k, -i, 0, (u, i + 1, w)) for (k, i, u), w in fa.items() if (k, i, u) not in fr]
        want = max(changes)[4]
        text, start, change = _wd_top(weights, X[r], alt)
        assert (text, start) == want[:2] and change == pytest.approx(want[2], abs=1e-12)


def test_an_indel_that_pulls_an_unknown_base_into_the_window_is_refused_for_a_score_function():
    from seqimp.errors import SeqimpError
    from seqimp.importance._variant_table import alt_window
    from seqimp.importance._variants import variant_effects

    window = np.array([0, 1, 2, 3, 0, 1, 2, 3, 0], dtype=np.uint8)
    left, right = np.array([3, 4, 3], dtype=np.uint8), np.array([2, 2, 2], dtype=np.uint8)
    # the deletion before the centre pulls the left flank in, N included
    assert alt_window(window, left, right, 1, "CGT", "C").tolist() == [4, 3, 0, 1, 0, 1, 2, 3, 0]
    with pytest.raises(SeqimpError, match="unknown base"):
        alt_window(window, left, right, 1, "CGT", "C", unknown=False)
    assert alt_window(window, left, right, 5, "CGT", "C", unknown=False).tolist() == [0, 1, 2, 3, 0, 1, 0, 2, 2]

    calls = []

    def score(codes):
        calls.append(int(codes.max()))
        return codes.sum(axis=1).astype(float)

    flanks = (left[None, :], right[None, :])
    variants = pd.DataFrame({"window": [0], "offset": [1], "ref": ["CGT"], "alt": ["C"], "name": ["del 1"]})
    with pytest.raises(SeqimpError, match=r"^del 1: the re-cut window reaches an unknown base"):
        variant_effects(score, window[None, :], variants, flanks=flanks, p_values=False)
    assert calls == []                          # refused before any window is scored
    rng = np.random.default_rng(18)
    weights = PositionalWeights([rng.normal(size=(9 - k + 1, 4 ** k)) for k in range(1, 3)])
    got = variant_effects(weights, window[None, :], variants, flanks=flanks, p_values=False)
    assert got["delta"][0] == pytest.approx(oracle_score(weights, "NTACACGTA") - oracle_score(weights, "ACGTACGTA"),
                                            abs=1e-12)
