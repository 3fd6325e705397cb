"""The gkm solver's fast paths against slow ones: shrinking against the unshrunk dual coordinate
descent and the KKT conditions of an explicit kernel matrix, the half-strand dot products
against explicit gapped-k-mer counts, the norm cache against fresh norms, and the margin start
of the fit on all sequences (pipeline/_model_route.py)."""

from itertools import combinations

import numpy as np
import pytest

import seqimp.kernels.gkm._estimator as estimator
from seqimp.kernels import GKMClassifier, gkm_kernel
from seqimp.kernels.gkm._kernel import GkmTables, ragged_codes
from seqimp.kernels.gkm._estimator import squared_norms
from test_gkm import _features, planted


def _dual(clf):
    """The hinge-loss dual's objective ``0.5 ||w||^2 - sum alpha`` (bias as a feature)."""
    return 0.5 * (clf.coef_ @ clf.coef_ + (clf.intercept_ / clf.bias) ** 2) - np.abs(clf.dual_coef_).sum()


def test_shrinking_reaches_the_unshrunk_optimum(monkeypatch):
    X, y = planted(240, L=40, seed=6, share=0.6)
    visited = []
    run = estimator.dcd_pass

    def counted(*args):
        visited.append(args[5].size)
        return run(*args)

    monkeypatch.setattr(estimator, "dcd_pass", counted)
    fits = {}
    for shrinking in (False, True):
        visited.clear()
        fits[shrinking] = GKMClassifier(6, 4, tol=1e-6, max_iter=5000, shrinking=shrinking).fit(X, y)
        fits[shrinking].visits = sum(visited)
    plain, shrunk = fits[False], fits[True]
    assert shrunk.visits < plain.visits  # variables were shrunk (the test would not see them else)
    assert shrunk.visits < shrunk.n_iter_ * len(y)
    # the same optimum: dual objectives within 1e-9 relative, decision values within 1e-5
    assert _dual(shrunk) == pytest.approx(_dual(plain), rel=1e-9)
    np.testing.assert_allclose(shrunk.decision_function(X), plain.decision_function(X), atol=1e-5)
    # and it is the optimum: the KKT conditions on the explicit kernel matrix (plus the bias
    # feature), to the stopping tolerance
    sign = np.where(y == 1, 1.0, -1.0)
    Q = (gkm_kernel(X, word_length=6, informative=4) + 1.0) * np.outer(sign, sign)
    alpha = np.abs(shrunk.dual_coef_)
    grad = Q @ alpha - 1.0
    assert (grad[alpha == 0] >= -1e-5).all() and (grad[alpha == shrunk.C] <= 1e-5).all()
    inner = (alpha > 0) & (alpha < shrunk.C)
    assert inner.any() and np.abs(grad[inner]).max() <= 1e-5


def test_without_shrinking_the_passes_visit_every_sequence(monkeypatch):
    X, y = planted(80, L=30, seed=2)
    visited = []
    run = estimator.dcd_pass
    monkeypatch.setattr(estimator, "dcd_pass", lambda *a: visited.append(a[5].size) or run(*a))
    clf = GKMClassifier(5, 3, tol=1e-3, shrinking=False).fit(X, y)
    assert visited == [len(y)] * clf.n_iter_


def _reverse_feature(l, k):
    """``R f`` of every feature ``f = c * 4**k + u``: its columns mirrored, its letters complemented."""
    cols = [tuple(c) for c in combinations(range(l), k)]
    where = {c: i for i, c in enumerate(cols)}
    out = np.empty(len(cols) * 4 ** k, dtype=np.int64)
    for c, cc in enumerate(cols):
        mirrored = tuple(sorted(l - 1 - j for j in cc))
        for u in range(4 ** k):
            letters = [(u >> (2 * (k - 1 - t))) & 3 for t in range(k)]
            # column cc[t] becomes l-1-cc[t]: in mirrored order the letters run backwards
            v = sum((3 - letters[k - 1 - t]) * 4 ** (k - 1 - t) for t in range(k))
            out[c * 4 ** k + u] = where[mirrored] * 4 ** k + v
    return out


@pytest.mark.parametrize("normalize", [True, False])
def test_weights_are_their_own_reverse_complement_and_scores_equal_explicit_counts(normalize):
    X, y = planted(60, L=24, seed=3)
    l, k = 5, 3
    clf = GKMClassifier(l, k, normalize=normalize).fit(X, y)
    R = _reverse_feature(l, k)
    np.testing.assert_array_equal(clf.coef_[R], clf.coef_)  # to the last bit
    # decision values (half the strand look-ups) against the explicit counts of both strands
    W = clf.gapped_kmer_weights()
    where = {tuple(c): i for i, c in enumerate(clf.columns_)}
    for x, d in zip(X[:6], clf.decision_function(X[:6])):
        feats = _features(x, l, k, True)
        raw = sum(v * W[where[cols], int("".join(map(str, letters)), 4)] for (cols, letters), v in feats.items())
        norm = np.sqrt(sum(v * v for v in feats.values())) if normalize else 1.0
        assert d == pytest.approx(raw / norm + clf.intercept_, rel=1e-10, abs=1e-12)
    # one strand only: no symmetry assumed, the same explicit check
    one = GKMClassifier(l, k, reverse_complement=False).fit(X, y)
    W1 = one.gapped_kmer_weights()
    feats = _features(X[0], l, k, False)
    raw = sum(v * W1[where[cols], int("".join(map(str, letters)), 4)] for (cols, letters), v in feats.items())
    norm = np.sqrt(sum(v * v for v in feats.values()))
    assert one.decision_function(X[:1])[0] == pytest.approx(raw / norm + one.intercept_, rel=1e-10)


def test_norm_cache_equals_fresh_norms(monkeypatch):
    rng = np.random.default_rng(0)
    seqs = [rng.integers(0, 4, n).astype(np.uint8) for n in (9, 14, 20, 14)]
    tables = GkmTables(5, 3)
    fresh = np.diag(gkm_kernel(seqs, word_length=5, informative=3, normalize=False))
    monkeypatch.setattr(estimator, "_NORMS", {})
    monkeypatch.setattr(estimator, "_NORM_BYTES", {})
    codes, offsets = ragged_codes(seqs)
    np.testing.assert_allclose(squared_norms(codes, offsets, tables, True), fresh, rtol=1e-12)
    assert len(estimator._NORMS[5, 3, True]) == 4
    again = squared_norms(codes, offsets, tables, True)  # all from the cache
    np.testing.assert_array_equal(again, squared_norms(codes, offsets, tables, True))
    np.testing.assert_allclose(again, fresh, rtol=1e-12)
    seqs[1] = seqs[1].copy()
    seqs[1][3:8] = 0  # a sequence with erased letters is another sequence
    codes, offsets = ragged_codes(seqs)
    np.testing.assert_allclose(squared_norms(codes, offsets, tables, True),
                               np.diag(gkm_kernel(seqs, word_length=5, informative=3, normalize=False)), rtol=1e-12)
    one = np.diag(gkm_kernel(seqs, word_length=5, informative=3, normalize=False, reverse_complement=False))
    np.testing.assert_allclose(squared_norms(codes, offsets, tables, False), one, rtol=1e-12)
    # past the size limit the cache starts again, with the same answers
    monkeypatch.setattr(estimator, "NORM_CACHE_BYTES", 30)
    seqs.append(rng.integers(0, 4, 25).astype(np.uint8))
    codes, offsets = ragged_codes(seqs)
    norms = squared_norms(codes, offsets, tables, True)
    assert len(estimator._NORMS[5, 3, True]) == 1
    np.testing.assert_allclose(norms, np.diag(gkm_kernel(seqs, word_length=5, informative=3, normalize=False)),
                               rtol=1e-12)


def test_held_out_start_reaches_the_same_optimum():
    from seqimp.training._gkm import held_out_start

    X, y = planted(200, L=40, seed=8, share=0.6)
    test = np.arange(1, 200, 5)  # a fifth held out, as the route's split
    train = np.setdiff1d(np.arange(200), test)
    held = GKMClassifier(6, 4, tol=1e-6, max_iter=5000).fit(X[train], y[train])
    decision = held.decision_function(X[test])
    start = held_out_start(held, train, test, decision, y)
    margin = np.where(y[test] == 1, 1.0, -1.0) * decision
    np.testing.assert_array_equal(start[test], np.where(margin < 1, 1.0, 0.0))
    np.testing.assert_array_equal(start[train], np.abs(held.dual_coef_))
    cold = GKMClassifier(6, 4, tol=1e-6, max_iter=5000).fit(X, y)
    warm = GKMClassifier(6, 4, tol=1e-6, max_iter=5000).fit(X, y, alpha_init=start)
    assert _dual(warm) == pytest.approx(_dual(cold), rel=1e-9)
    np.testing.assert_allclose(warm.decision_function(X), cold.decision_function(X), atol=1e-5)


def test_weights_of_in_parallel_equal_the_serial_sum():
    from seqimp.kernels.gkm._kernel import _add, _halves, _weights_of, buffer_rows

    rng = np.random.default_rng(5)
    seqs = [rng.integers(0, 4, n).astype(np.uint8) for n in (11, 17, 30, 8, 25)]
    codes, offsets = ragged_codes(seqs)
    tables = GkmTables(6, 4)
    coef = np.array([0.3, -1.7, 0.0, 2.5e-3, -0.9])
    rows = buffer_rows(offsets, 6)
    for rc in (True, False):
        serial = np.zeros(tables.n_features)
        buf = np.empty((rows, 2), dtype=np.int64)
        for i, value in enumerate(coef):
            if value != 0:
                m = _halves(codes, offsets[i], offsets[i + 1], 6, rc, buf)
                _add(buf, m, tables.left, tables.right, serial, value)
        for chunks in (1, 2, 3):
            w = np.zeros(tables.n_features)
            _weights_of(codes, offsets, 6, tables.left_t, tables.right_t, rc, coef, w, rows, chunks,
                        np.arange(tables.columns.shape[0]))
            np.testing.assert_array_equal(w, serial)  # the same additions in the same order


def test_float32_running_weights_reach_the_float64_optimum(monkeypatch):
    """The passes add to float32 weights (RUNNING_DTYPE); the optimum is the one of float64
    running weights, and coef_ / intercept_ are the exact primal of the final dual variables."""
    X, y = planted(200, L=40, seed=12, share=0.6)
    fits = {}
    for dtype in (np.float64, np.float32):
        monkeypatch.setattr(estimator, "RUNNING_DTYPE", dtype)
        fits[dtype] = GKMClassifier(6, 4, tol=1e-6, max_iter=5000).fit(X, y)
    f32, f64 = fits[np.float32], fits[np.float64]
    assert _dual(f32) == pytest.approx(_dual(f64), rel=1e-9)
    np.testing.assert_allclose(f32.decision_function(X), f64.decision_function(X), atol=1e-5)
    assert f32.coef_.dtype == np.float64 and not np.array_equal(f32.dual_coef_, f64.dual_coef_)  # other steps
    # the primal of the dual variables, from explicit gapped-k-mer counts
    codes, offsets = ragged_codes(X)
    scale = 1.0 / np.sqrt(squared_norms(codes, offsets, GkmTables(6, 4), True))
    where = {tuple(c): i for i, c in enumerate(f32.columns_.tolist())}
    F = np.zeros((len(X), f32.coef_.size))
    for i, x in enumerate(X):
        for (cols, letters), n in _features(x, 6, 4, True).items():
            F[i, where[cols] * 4 ** 4 + int("".join(map(str, letters)), 4)] += n
    np.testing.assert_allclose(f32.coef_, (f32.dual_coef_ * scale) @ F, rtol=1e-12, atol=1e-12)
    assert f32.intercept_ == pytest.approx(f32.dual_coef_.sum() * f32.bias ** 2, rel=1e-12)


def test_unsigned_indices_give_the_bits_of_signed_ones():
    """The half tables (and the fit's window rows, which take their dtype) are unsigned, for
    speed only: a fit with them cast to int32 is the same model to the bit."""
    tables = GkmTables(6, 4)
    assert all(t.dtype == np.uint32 for t in (tables.left, tables.right, tables.left_t, tables.right_t))

    class Signed(GKMClassifier):
        def _tables(self):
            t = super()._tables()
            t.left_t, t.right_t = t.left_t.astype(np.int32), t.right_t.astype(np.int32)
            return t

    X, y = planted(120, L=40, seed=21, share=0.6)
    signed, unsigned = (cls(6, 4, tol=1e-3, random_state=0).fit(X, y) for cls in (Signed, GKMClassifier))
    assert signed.n_iter_ == unsigned.n_iter_
    np.testing.assert_array_equal(signed.coef_, unsigned.coef_)
    np.testing.assert_array_equal(signed.dual_coef_, unsigned.dual_coef_)


def test_start_at_c_reaches_the_same_optimum():
    X, y = planted(160, L=40, seed=9, share=0.5)
    cold = GKMClassifier(6, 4, tol=1e-6, max_iter=5000).fit(X, y)
    at_c = GKMClassifier(6, 4, tol=1e-6, max_iter=5000).fit(X, y, alpha_init=np.full(len(y), 1.0))
    assert _dual(at_c) == pytest.approx(_dual(cold), rel=1e-9)
    np.testing.assert_allclose(at_c.decision_function(X), cold.decision_function(X), atol=1e-5)


@pytest.mark.parametrize("l,k", [(5, 3), (4, 4), (6, 2)])
def test_squared_norms_of_one_strand_equal_explicit_counts(l, k):
    from seqimp.kernels.gkm._kernel import _squared_norms, buffer_rows
    from test_gkm import _brute_kernel

    rng = np.random.default_rng(l * 10 + k)
    seqs = [rng.integers(0, 4, n).astype(np.uint8) for n in (l, 9, 16, 23)]
    codes, offsets = ragged_codes(seqs)
    tables = GkmTables(l, k)
    for rc in (True, False):
        norms = _squared_norms(codes, offsets, l, tables.left_t, tables.right_t, rc, tables.n_features, 2,
                               buffer_rows(offsets, l), *tables.kept_choices(rc))
        np.testing.assert_array_equal(norms, np.diag(_brute_kernel(seqs, l, k, rc)))  # integer counts: exact


def test_rows_cut_over_the_threads_give_the_same_bits_as_one_thread(monkeypatch):
    """Long rows run their ranges of column choices on the threads (seqimp/kernels/gkm/_dcd.py): the fit is
    bit for bit the one of one thread, and of the serial loop (every row below the threshold)."""
    import numba

    from seqimp.kernels.gkm import _dcd as _gkm_dcd

    X, y = planted(160, L=120, seed=7, share=0.6)
    fits = []
    for threads, parallel_from in ((1, 10**9), (1, 0), (2, 0)):
        monkeypatch.setattr(_gkm_dcd, "PARALLEL_FROM", parallel_from)
        previous = numba.get_num_threads()
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        try:
            fits.append(GKMClassifier(8, 5, tol=1e-3).fit(X, y))
        finally:
            numba.set_num_threads(previous)
    for fit in fits[1:]:
        assert fit.n_iter_ == fits[0].n_iter_
        np.testing.assert_array_equal(fit.coef_, fits[0].coef_)
        np.testing.assert_array_equal(fit.dual_coef_, fits[0].dual_coef_)


@pytest.mark.parametrize("l,k", [(5, 3), (10, 6), (4, 4), (6, 3)])
def test_kept_choices_and_their_mirrors(l, k):
    """own_choices keeps one choice of each mirrored pair and every self-mirrored one; weights
    written at the kept choices and filled in by mirror_weights are their own reverse complement."""
    from seqimp.kernels.gkm._kernel import mirror_weights, mirrored_choices, own_choices

    tables = GkmTables(l, k)
    mirror = mirrored_choices(tables.columns, l)
    for c, cols in enumerate(tables.columns.tolist()):
        assert sorted(l - 1 - j for j in cols) == tables.columns[mirror[c]].tolist()
    choices, both = own_choices(tables.columns, l)
    pairs = {frozenset((c, int(mirror[c]))) for c in range(mirror.size)}
    assert choices.size == len(pairs)  # one choice per pair (a self-mirrored choice is a pair of one)
    assert (both == (mirror[choices] != choices)).all()
    if (l, k) == (10, 6):  # the default model: 110 kept of 210, 10 of them their own mirror
        assert (choices.size, int((both == 0).sum())) == (110, 10)
        return
    rng = np.random.default_rng(l + k)
    w = np.zeros(tables.n_features)
    blocks = w.reshape(mirror.size, 4 ** k)
    R = _reverse_feature(l, k)
    for c, pair in zip(choices, both):
        blocks[c] = rng.normal(size=4 ** k)
        if not pair:  # a self-mirrored choice's weights are their own reverse complement within it
            start = c * 4 ** k
            blocks[c] = blocks[c] + blocks[c][R[start:start + 4 ** k] - start]
    mirror_weights(w, tables.columns, l, k)
    np.testing.assert_array_equal(w[R], w)
    assert np.count_nonzero(w) == w.size
