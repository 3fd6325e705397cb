"""The gapped-k-mer kernel and GKMClassifier against explicit counts in Python."""

from collections import Counter
from itertools import combinations, product
from math import comb

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from seqimp.errors import SeqimpError
from seqimp.kernels import GKMClassifier, gkm_kernel, spectrum_kernel


def _features(x, l, k, rc):
    """Brute force: every gapped k-mer (columns, letters) of every l-mer, of both strands with ``rc``."""
    count = Counter()
    strands = [list(x)] + ([[3 - b for b in x[::-1]]] if rc else [])
    for s in strands:
        for p in range(len(s) - l + 1):
            for cols in combinations(range(l), k):
                count[cols, tuple(s[p + j] for j in cols)] += 1
    return count


def _brute_kernel(X, l, k, rc):
    F = [_features(x, l, k, rc) for x in X]
    return np.array([[sum(v * b.get(f, 0) for f, v in a.items()) for b in F] for a in F], dtype=float)


def _mismatch_kernel(X, l, k):
    """LS-GKM's route (-t 0): the + strand l-mers of one sequence against both strands' of the
    other, each pair adding C(l - m, k) for m mismatches."""
    def lmers(x, rc):
        s = [3 - b for b in x[::-1]] if rc else list(x)
        return [s[p:p + l] for p in range(len(s) - l + 1)]

    G = np.zeros((len(X), len(X)))
    for i, a in enumerate(X):
        for j, b in enumerate(X):
            for u in lmers(a, False):
                for v in lmers(b, False) + lmers(b, True):
                    m = sum(p != q for p, q in zip(u, v))
                    G[i, j] += comb(l - m, k) if l - m >= k else 0
    return G


@pytest.fixture(scope="module")
def ragged():
    rng = np.random.default_rng(1)
    return [rng.integers(0, 4, n).astype(np.uint8) for n in (12, 15, 20, 9, 9)]


@pytest.mark.parametrize("l,k", [(5, 3), (4, 2), (6, 6), (7, 4)])
@pytest.mark.parametrize("rc", [True, False])
def test_kernel_equals_explicit_counts(ragged, l, k, rc):
    G = gkm_kernel(ragged, word_length=l, informative=k, reverse_complement=rc, normalize=False)
    np.testing.assert_array_equal(G, _brute_kernel(ragged, l, k, rc))  # integer counts: exact


def test_kernel_is_twice_the_mismatch_route_and_normalised_equal(ragged):
    l, k = 6, 3
    raw = gkm_kernel(ragged, word_length=l, informative=k, normalize=False)
    M = _mismatch_kernel(ragged, l, k)
    np.testing.assert_array_equal(raw, 2 * M)
    norm = gkm_kernel(ragged, word_length=l, informative=k)
    d = np.sqrt(np.diag(M))
    np.testing.assert_allclose(norm, M / np.outer(d, d), rtol=1e-12)
    np.testing.assert_allclose(np.diag(norm), 1.0, rtol=1e-12)


def test_spectrum_kernel_counts_contiguous_kmers(ragged):
    X = ragged[:3]
    G = spectrum_kernel(X, k=3, reverse_complement=False, normalize=False)
    counts = [Counter(tuple(x[p:p + 3]) for p in range(len(x) - 2)) for x in X]
    B = [[sum(v * b[f] for f, v in a.items()) for b in counts] for a in counts]
    np.testing.assert_array_equal(G, np.array(B, dtype=float))


def test_kernel_of_rows_against_other_set(ragged):
    X = np.stack([r[:9] for r in ragged])
    Y = X[:2]
    full = gkm_kernel(X, word_length=5, informative=3)
    np.testing.assert_allclose(gkm_kernel(X, Y, word_length=5, informative=3), full[:, :2], rtol=1e-12)


def planted(n=200, L=100, *, seed=0, motif="TTACGTAA", share=0.5):
    """Position-free signal: ``motif`` (either strand) at a random place in ``share`` of the positives."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, L)).astype(np.uint8)
    y = np.r_[np.ones(n // 2), np.zeros(n - n // 2)].astype(int)
    m = np.array(["ACGT".index(c) for c in motif], dtype=np.uint8)
    for i in range(n // 2):
        if rng.random() < share:
            p = rng.integers(0, L - m.size + 1)
            X[i, p:p + m.size] = m if rng.random() < 0.5 else 3 - m[::-1]
    return X, y


def test_learns_position_free_motif_where_wd_is_near_chance():
    from seqimp import WDClassifier

    X, y = planted(400, seed=3, share=0.7)
    test = np.zeros(y.size, dtype=bool)
    test[::4] = True
    gkm = GKMClassifier(8, 5).fit(X[~test], y[~test])
    wd = WDClassifier(degree=6).fit(X[~test], y[~test])
    auc_gkm = roc_auc_score(y[test], gkm.decision_function(X[test]))
    auc_wd = roc_auc_score(y[test], wd.decision_function(X[test]))
    # 70% of the positives carry the motif: the best possible auROC is about 0.85
    assert auc_gkm > 0.75
    assert auc_wd < 0.65
    assert gkm.n_iter_ < gkm.max_iter


def test_attributions_sum_to_decision_minus_intercept(ragged):
    X, y = planted(60, L=40, seed=1)
    clf = GKMClassifier(6, 4).fit(X, y)
    for data in (X[:7], ragged):
        attr = clf.attributions(data)
        sums = np.array([a.sum() for a in attr])
        np.testing.assert_allclose(sums, clf.decision_function(data) - clf.intercept_, rtol=1e-9, atol=1e-12)
    assert isinstance(clf.attributions(ragged), list)


def test_attributions_brute_force():
    """Each base's share, recomputed in Python from the weights and the explicit features."""
    X, y = planted(40, L=20, seed=2)
    clf = GKMClassifier(5, 3, normalize=True).fit(X, y)
    l, k = 5, 3
    W = clf.gapped_kmer_weights()
    cols = [tuple(c) for c in clf.columns_]
    x = X[0]
    norm = np.sqrt(sum(v * v for v in _features(x, l, k, True).values()))
    expect = np.zeros(x.size)
    for strand in (0, 1):
        s = list(x) if strand == 0 else [3 - b for b in x[::-1]]
        for p in range(x.size - l + 1):
            for c, cc in enumerate(cols):
                u = sum(s[p + j] * 4 ** (k - 1 - t) for t, j in enumerate(cc))
                for j in cc:
                    where = p + j if strand == 0 else x.size - 1 - (p + j)
                    expect[where] += W[c, u] / norm / k
    np.testing.assert_allclose(clf.attributions(X[:1])[0], expect, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("l, k, rc", [(5, 3, True), (5, 3, False), (6, 4, True), (7, 4, False), (4, 4, True),
                                      (3, 2, True)])
def test_lmer_scores_are_scores_of_lone_lmers(l, k, rc):
    """Every l-mer's score from the halves' shared rows (seqimp.kernels.gkm._lmers) against the
    model's decision function on that l-mer alone (no normalisation, no bias)."""
    X, y = planted(40, L=20, seed=2)
    clf = GKMClassifier(l, k, normalize=False, bias=0.0, reverse_complement=rc, max_iter=5000).fit(X, y)
    scores = clf.lmer_scores()
    assert scores.shape == (4 ** l,)
    words = np.array(list(product(range(4), repeat=l)), dtype=np.uint8)  # in l-mer index order
    np.testing.assert_allclose(scores, clf.decision_function(words), rtol=1e-12, atol=1e-12 * np.abs(scores).max())
    if rc:  # an l-mer and its reverse complement score the same, to the last bit
        from seqimp.io._strand import reverse_complement_index
        np.testing.assert_array_equal(scores, scores[reverse_complement_index(l)])


def test_fit_is_reproducible():
    X, y = planted(80, L=30, seed=4)
    a = GKMClassifier(5, 3, random_state=7).fit(X, y).coef_
    b = GKMClassifier(5, 3, random_state=7).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)


def test_warm_start_reaches_the_same_optimum():
    X, y = planted(160, L=40, seed=5)
    cold = GKMClassifier(6, 4, tol=1e-4, max_iter=2000).fit(X, y)
    # the weights rebuilt from the optimum's dual variables are the optimum's: one pass confirms it
    # (its steps are within the tolerance; the weights are about 0.1)
    again = GKMClassifier(6, 4, tol=1e-4, max_iter=2000).fit(X, y, alpha_init=np.abs(cold.dual_coef_))
    assert again.n_iter_ == 1
    np.testing.assert_allclose(again.coef_, cold.coef_, atol=1e-4)
    assert again.intercept_ == pytest.approx(cold.intercept_, abs=1e-4)
    # from a fit on three quarters of the sequences: the same decision values within the tolerance
    part = GKMClassifier(6, 4, tol=1e-4, max_iter=2000).fit(X[:120], y[:120])
    start = np.r_[np.abs(part.dual_coef_), np.zeros(40)]
    warm = GKMClassifier(6, 4, tol=1e-4, max_iter=2000).fit(X, y, alpha_init=start)
    np.testing.assert_allclose(warm.decision_function(X), cold.decision_function(X), atol=1e-2)
    with pytest.raises(SeqimpError, match="alpha_init must hold 160 finite values, got shape"):
        GKMClassifier(6, 4).fit(X, y, alpha_init=np.zeros(3))


def test_errors():
    X, y = planted(20, L=12, seed=0)
    with pytest.raises(SeqimpError, match="informative must be <= word_length"):
        GKMClassifier(4, 5).fit(X, y)
    with pytest.raises(SeqimpError, match="more than 67108864"):
        gkm_kernel(X, word_length=16, informative=12)
    with pytest.raises(SeqimpError, match="X: sequence 0 has length 12, shorter than word_length=13"):
        GKMClassifier(13, 4).fit(X, y)
    with pytest.raises(SeqimpError, match="X has 20 sequences but y has 19 labels"):
        GKMClassifier(5, 3).fit(X, y[:-1])
    with pytest.raises(SeqimpError, match="y must hold two classes"):
        GKMClassifier(5, 3).fit(X, np.arange(20) % 3)
    with pytest.raises(SeqimpError, match="X sequence 1"):
        gkm_kernel(["ACGTACGT", "ACG-ACGT"], word_length=3, informative=2)
    with pytest.raises(SeqimpError, match="C must be"):
        GKMClassifier(5, 3, C=0).fit(X, y)
