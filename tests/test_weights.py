"""PositionalWeights: scoring, top table, save/load, and exact unfolding of kernel expansions."""

import numpy as np
import pytest
from sklearn.svm import SVC

from seqimp import PositionalWeights, SeqimpError, kmer_index, wd_features, wd_kernel
from seqimp.kernels._params import feature_offsets


def random_weights(rng, L, K, base=4):
    return PositionalWeights([rng.normal(size=(L - k + 1, base ** k)) for k in range(1, K + 1)],
                             bias=rng.normal())


def score_by_loop(w, seqs):
    out = []
    for x in seqs:
        s = w.bias
        for k, t in enumerate(w.tables, start=1):
            for i in range(len(x) - k + 1):
                s += t[i, kmer_index(x[i:i + k])]
        out.append(s)
    return np.array(out)


def test_score_matches_loop():
    rng = np.random.default_rng(0)
    w = random_weights(rng, 9, 3)
    seqs = ["".join(rng.choice(list("ACGT"), 9)) for _ in range(5)]
    np.testing.assert_allclose(w.score(seqs), score_by_loop(w, seqs), rtol=1e-13)
    assert (w.degree, w.length) == (3, 9)


def test_top_is_one_based_and_sorted():
    tables = [np.zeros((4, 4)), np.zeros((3, 16))]
    tables[1][2, kmer_index("GT")] = -5.0   # 0-based position 2
    tables[0][0, kmer_index("A")] = 3.0
    top = PositionalWeights(tables).top(2)
    assert list(top["oligomer"]) == ["GT", "A"]
    assert list(top["position"]) == [3, 1]
    assert list(top["order"]) == [2, 1]
    assert list(top["weight"]) == [-5.0, 3.0]
    assert len(PositionalWeights(tables).top(100)) == 4 * 4 + 3 * 16   # n capped at the table size
    with pytest.raises(SeqimpError, match="n must be a non-negative integer, got -1"):
        PositionalWeights(tables).top(-1)


def test_save_load_round_trip_exact(tmp_path):
    rng = np.random.default_rng(1)
    w = random_weights(rng, 12, 4)
    w.save(tmp_path / "w.npz", metadata={"degree": 4, "source": "test"})
    back = PositionalWeights.load(tmp_path / "w.npz")
    assert back.bias == w.bias and back.alphabet == w.alphabet
    for a, b in zip(w.tables, back.tables):
        np.testing.assert_array_equal(a, b)
    assert PositionalWeights.load_metadata(tmp_path / "w.npz") == {"degree": 4, "source": "test"}
    # numpy appends .npz; load accepts the name given to save
    w.save(tmp_path / "plain")
    np.testing.assert_array_equal(PositionalWeights.load(tmp_path / "plain").tables[3], w.tables[3])
    assert PositionalWeights.load_metadata(tmp_path / "plain") == {}
    with pytest.raises(SeqimpError, match="no such file"):
        PositionalWeights.load(tmp_path / "missing.npz")
    with pytest.raises(SeqimpError, match="metadata must be JSON-serialisable"):
        w.save(tmp_path / "bad.npz", metadata={"x": object()})


@pytest.mark.parametrize("K, S", [(1, 0), (2, 1), (3, 3), (4, 2), (4, 0)])
def test_kernel_expansion_is_exact(K, S):
    rng = np.random.default_rng(10 * K + S)
    L = 11
    sv = rng.integers(0, 2, (9, L)).astype(np.uint8)   # two symbols: many shifted matches
    coef = rng.normal(size=9)
    test = np.vstack([rng.integers(0, 4, (20, L)), sv[:3]]).astype(np.uint8)
    w = PositionalWeights.from_kernel_expansion(sv, coef, 0.25, degree=K, shifts=S)
    want = wd_kernel(test, sv, degree=K, shifts=S) @ coef + 0.25
    np.testing.assert_allclose(w.score(test), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("S", [0, 2])
def test_unfolds_sklearn_svc(S):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, (80, 15)).astype(np.uint8)
    y = (X[:, 4] == 2) ^ (rng.random(80) < 0.1)
    svm = SVC(kernel="precomputed", C=2.0).fit(wd_kernel(X, degree=4, shifts=S), y)
    w = PositionalWeights.from_kernel_expansion(X[svm.support_], svm.dual_coef_, svm.intercept_,
                                                degree=4, shifts=S)
    test = rng.integers(0, 4, (40, 15)).astype(np.uint8)
    want = svm.decision_function(wd_kernel(test, X, degree=4, shifts=S))
    np.testing.assert_allclose(w.score(test), want, rtol=1e-8)


def test_from_wd_coef_matches_features():
    rng = np.random.default_rng(6)
    L, K = 10, 3
    coef = rng.normal(size=feature_offsets(L, K)[-1])
    X = rng.integers(0, 4, (25, L)).astype(np.uint8)
    w = PositionalWeights.from_wd_coef(coef, [-1.5], length=L, degree=K)
    np.testing.assert_allclose(w.score(X), wd_features(X, degree=K) @ coef - 1.5, rtol=1e-12)
    with pytest.raises(SeqimpError, match="coef has 5 entries"):
        PositionalWeights.from_wd_coef(coef[:5], 0.0, length=L, degree=K)


def test_expansion_bad_input():
    sv = ["ACGTA", "ACGTT"]
    with pytest.raises(SeqimpError, match=r"one value per support sequence \(2\)"):
        PositionalWeights.from_kernel_expansion(sv, [1.0, 2.0, 3.0], 0.0, degree=2)
    with pytest.raises(SeqimpError, match="NaN or infinite"):
        PositionalWeights.from_kernel_expansion(sv, [1.0, np.nan], 0.0, degree=2)
    with pytest.raises(SeqimpError, match="intercept must be one finite number"):
        PositionalWeights.from_kernel_expansion(sv, [1.0, 2.0], [0.0, 1.0], degree=2)
    with pytest.raises(SeqimpError, match="shifts must be < the length 5 of the support"):
        PositionalWeights.from_kernel_expansion(sv, [1.0, 2.0], 0.0, degree=2, shifts=5)
    with pytest.raises(SeqimpError, match="positional weights .* use a smaller degree"):
        PositionalWeights.from_kernel_expansion(["ACDEFGHIKL"], [1.0], 0.0, degree=8,
                                                alphabet="protein")


def test_constructor_checks():
    with pytest.raises(SeqimpError, match="at least one table"):
        PositionalWeights([])
    with pytest.raises(SeqimpError, match=r"tables\[1\] must have shape"):
        PositionalWeights([np.zeros((5, 4)), np.zeros((5, 16))])


def test_save_stores_sparse_tables_and_loads_them_exactly(tmp_path):
    rng = np.random.default_rng(3)
    dense = rng.normal(size=(10, 4))
    sparse = np.zeros((9, 16))
    sparse[rng.integers(0, 9, 5), rng.integers(0, 16, 5)] = rng.normal(size=5)
    w = PositionalWeights([dense, sparse], bias=0.25)
    w.save(tmp_path / "w.npz")
    with np.load(tmp_path / "w.npz") as data:
        assert "table_1" in data.files and "sparse_2_index" in data.files and "table_2" not in data.files
    back = PositionalWeights.load(tmp_path / "w.npz")
    for a, b in zip(back.tables, w.tables):
        np.testing.assert_array_equal(a, b)
    assert back.bias == 0.25


def _entry_methods(path):
    import zipfile

    with zipfile.ZipFile(path) as zf:
        return {info.filename: info.compress_type for info in zf.infolist()}


def test_large_models_are_deflated_losslessly(tmp_path, monkeypatch):
    """Above COMPRESS_ABOVE bytes the entries are deflated; the tables load back bit for bit."""
    import zipfile

    import seqimp.kernels._weights as weights_module

    rng = np.random.default_rng(5)
    table = np.zeros((40, 256))
    table[rng.integers(0, 40, 300), rng.integers(0, 256, 300)] = rng.choice([0.5, -0.5, 0.25], 300)
    w = PositionalWeights([rng.normal(size=(43, 4)), rng.normal(size=(42, 16)), rng.normal(size=(41, 64)), table])
    w.save(tmp_path / "small.npz")  # far below 16 MiB: stored, as before
    assert set(_entry_methods(tmp_path / "small.npz").values()) == {zipfile.ZIP_STORED}
    monkeypatch.setattr(weights_module, "COMPRESS_ABOVE", 1000)
    w.save(tmp_path / "large.npz")
    assert set(_entry_methods(tmp_path / "large.npz").values()) == {zipfile.ZIP_DEFLATED}
    with np.load(tmp_path / "small.npz") as small, np.load(tmp_path / "large.npz") as large:
        assert int(small["format_version"]) == 2 and "sparse_4_index" in small.files
        # deflated: the flat indices as the steps between them, in the narrowest unsigned type
        assert int(large["format_version"]) == 3 and "sparse_4_index" not in large.files
        steps = large["sparse_4_step"]
        assert steps.dtype == np.min_scalar_type(int(steps.max()))
        np.testing.assert_array_equal(np.cumsum(steps), small["sparse_4_index"])
    assert (tmp_path / "large.npz").stat().st_size < (tmp_path / "small.npz").stat().st_size
    w.save(tmp_path / "forced.npz", compress=False)
    assert (tmp_path / "forced.npz").read_bytes() == (tmp_path / "small.npz").read_bytes()
    for name in ("small.npz", "large.npz"):
        back = PositionalWeights.load(tmp_path / name)
        for a, b in zip(back.tables, w.tables):
            np.testing.assert_array_equal(a, b)
    first = (tmp_path / "large.npz").read_bytes()
    w.save(tmp_path / "large.npz")
    assert (tmp_path / "large.npz").read_bytes() == first  # deflated files are reproducible too
