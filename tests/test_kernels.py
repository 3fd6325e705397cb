"""WD / WDS kernels and WD features against a plain-Python reading of the definition."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from seqimp import SeqimpError, SequenceSet, kmer_index, wd_features, wd_kernel
from seqimp.kernels._params import feature_offsets, wd_beta


def kernel_by_definition(x, y, K, S):
    """k(x, y) read literally off the definition (strings, no shortcuts)."""
    L = len(x)
    total = 0.0
    for k in range(1, K + 1):
        beta = 2.0 * (K - k + 1) / (K * (K + 1))
        for i in range(L - k + 1):
            total += beta * (x[i:i + k] == y[i:i + k])
            for s in range(1, S + 1):
                if i + s <= L - k:
                    delta = 1.0 / (2 * (s + 1))
                    total += beta * delta * ((x[i + s:i + s + k] == y[i:i + k])
                                             + (x[i:i + k] == y[i + s:i + s + k]))
    return total


def random_strings(rng, n, L, letters="ACGT"):
    return ["".join(rng.choice(list(letters), L)) for _ in range(n)]


VALID = [(L, K, S) for L in (1, 2, 3, 5, 8) for K in range(1, 5) for S in range(4)
         if K <= L and S < L]


@pytest.mark.parametrize("L, K, S", VALID)
def test_kernel_matches_definition(L, K, S):
    rng = np.random.default_rng(100 * L + 10 * K + S)
    # two letters only, so that long matches and shifted matches are frequent
    X = random_strings(rng, 6, L, "AC")
    Y = random_strings(rng, 3, L, "AC")
    want_xx = np.array([[kernel_by_definition(a, b, K, S) for b in X] for a in X])
    want_xy = np.array([[kernel_by_definition(a, b, K, S) for b in Y] for a in X])
    np.testing.assert_allclose(wd_kernel(X, degree=K, shifts=S), want_xx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(wd_kernel(X, Y, degree=K, shifts=S), want_xy, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), L=st.integers(1, 12), n=st.integers(1, 5))
def test_kernel_matches_definition_hypothesis(data, L, n):
    K = data.draw(st.integers(1, L))
    S = data.draw(st.integers(0, L - 1))
    seqs = [data.draw(st.text("ACGT", min_size=L, max_size=L)) for _ in range(n)]
    want = np.array([[kernel_by_definition(a, b, K, S) for b in seqs] for a in seqs])
    np.testing.assert_allclose(wd_kernel(seqs, degree=K, shifts=S), want, rtol=1e-12, atol=1e-12)


def test_self_similarity_closed_form():
    # shifts=0: k(x, x) = sum_k beta_k (L-k+1) for every x; normalize=True divides by it
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, (7, 30)).astype(np.uint8)
    K = 6
    const = float(np.sum(wd_beta(K) * (30 - np.arange(K))))
    np.testing.assert_allclose(np.diag(wd_kernel(X, degree=K)), const, rtol=1e-13)
    np.testing.assert_allclose(np.diag(wd_kernel(X, degree=K, normalize=True)), 1.0, rtol=1e-13)
    # all-different sequences share nothing
    assert wd_kernel(["AAAA"], ["CCCC"], degree=3, shifts=2)[0, 0] == 0.0


@pytest.mark.parametrize("n", [1, 4, 5, 64, 65, 130])
def test_symmetric_and_general_paths_agree(n):
    """The symmetric path computes the upper triangle and copies it down in 64 x 64 tiles
    (n = 64, 65, 130: one tile, a partial tile, tile rows paired across the threads)."""
    rng = np.random.default_rng(n)
    X = rng.integers(0, 4, (n, 25)).astype(np.uint8)
    G = wd_kernel(X, degree=5, shifts=3)
    np.testing.assert_array_equal(G, G.T)
    np.testing.assert_allclose(G, wd_kernel(X, X.copy(), degree=5, shifts=3), rtol=1e-14)


def test_positive_semidefinite():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, (60, 20)).astype(np.uint8)
    for S in (0, 3):
        eig = np.linalg.eigvalsh(wd_kernel(X, degree=5, shifts=S))
        assert eig.min() > -1e-10 * eig.max()


def test_features_reproduce_kernel():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, (30, 17)).astype(np.uint8)
    for K in (1, 3, 6):
        F = wd_features(X, degree=K)
        assert F.shape == (30, feature_offsets(17, K)[-1])
        np.testing.assert_allclose((F @ F.T).toarray(), wd_kernel(X, degree=K), rtol=1e-12)


def test_feature_layout():
    F = wd_features(["GATTACA"], degree=3)
    off = feature_offsets(7, 3)
    beta = wd_beta(3)
    # 'TAC' at 0-based position 3 is column offsets[2] + 3 * 4**3 + index('TAC')
    col = off[2] + 3 * 64 + kmer_index("TAC")
    assert F[0, col] == pytest.approx(np.sqrt(beta[2]))
    assert F.nnz == 7 + 6 + 5
    assert F.has_sorted_indices
    np.testing.assert_array_equal(np.diff(F.indices) > 0, True)


def test_features_protein_alphabet():
    X = ["ACDWY", "ACDWW", "MKLWY"]
    F = wd_features(X, degree=2, alphabet="protein")
    assert F.shape[1] == 5 * 20 + 4 * 400
    np.testing.assert_allclose((F @ F.T).toarray(), wd_kernel(X, degree=2, alphabet="protein"))


@pytest.mark.parametrize("kwargs, match", [
    (dict(degree=0), "degree must be a positive integer, got 0"),
    (dict(degree=7), "degree 7 exceeds the length 6"),
    (dict(degree=2, shifts=6), "shifts must be < the length 6"),
    (dict(degree=2, shifts=-1), "shifts must be an integer >= 0, got -1"),
    (dict(degree=2.5), "degree must be a positive integer, got 2.5"),
    (dict(degree=2, shifts=1, normalize=True), "normalize=True is only available for shifts=0"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(SeqimpError, match=match):
        wd_kernel(["ACGTAC", "ACGTTT"], **kwargs)


def test_bad_sequences():
    with pytest.raises(SeqimpError, match="Y: sequence 0 has length 5, expected 6"):
        wd_kernel(["ACGTAC"], ["ACGTA"], degree=2)
    with pytest.raises(SeqimpError, match="X: sequence 1 has length 3"):
        wd_kernel(["ACGT", "ACG"], degree=2)
    with pytest.raises(SeqimpError, match="X: no sequences"):
        wd_kernel(np.zeros((0, 5), dtype=np.uint8), degree=2)
    protein = SequenceSet(np.array([[0, 19, 5]], dtype=np.uint8), alphabet="protein")
    with pytest.raises(SeqimpError, match="X is a protein SequenceSet, but alphabet='dna'"):
        wd_features(protein, degree=2)
    assert wd_kernel(protein, degree=2, alphabet="protein")[0, 0] == pytest.approx(2 / 3 * 3 + 1 / 3 * 2)
    with pytest.raises(SeqimpError, match="degree 9 exceeds"):
        wd_features(["ACGT"], degree=9)
