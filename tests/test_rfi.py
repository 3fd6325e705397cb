"""Tests of Relative Feature Importance (Holz & Loew), seqimp.tabular._rfi."""

import itertools

import numpy as np
import pytest
from scipy import stats

from seqimp.errors import SeqimpError
from seqimp.tabular import relative_feature_importance
from seqimp.tabular import _scatter
from seqimp.tabular._rfi_stats import block_anova, distinct_groups, mcb_critical_value
from seqimp.tabular._rfi import table1_problem

# ---------------------------------------------------------------- slow references


def _slow_metric(X, distance):
    n, d = X.shape
    mean = [sum(X[i, f] for i in range(n)) / n for f in range(d)]
    C = np.zeros((d, d))
    for i in range(n):
        for a in range(d):
            for b in range(d):
                C[a, b] += (X[i, a] - mean[a]) * (X[i, b] - mean[b])
    if distance == "euclidean":
        M = np.diag(1.0 / (np.diag(C) / n))
    else:
        M = np.linalg.inv(C / (n - 1))

    def dist(i, j):
        diff = X[i] - X[j]
        return float(np.sqrt(diff @ M @ diff))

    return dist


def _slow_scatter(X, y, k, within, between, distance, exponent):
    """Equations (1)-(6) and the parametric forms, one sample at a time."""
    n, d = X.shape
    dist = _slow_metric(X, distance)
    classes = sorted(set(y.tolist()))
    S_w = np.zeros((d, d))
    S_b = np.zeros((d, d))
    for j in range(n):
        own = sorted((dist(j, i), i) for i in range(n) if i != j and y[i] == y[j])[:k]
        out = sorted((dist(j, i), i) for i in range(n) if y[i] != y[j])[:k]
        dw, db = own[-1][0] ** exponent, out[-1][0] ** exponent
        w = min(dw, db) / (dw + db)
        m_own = sum(X[i] for _, i in own) / k
        m_out = sum(X[i] for _, i in out) / k
        S_w += w * np.outer(X[j] - m_own, X[j] - m_own) / n
        S_b += w * np.outer(X[j] - m_out, X[j] - m_out) / n
    if within == "parametric":
        S_w = np.zeros((d, d))
        for c in classes:
            Xc = X[y == c]
            mc = Xc.mean(axis=0)
            cov = sum(np.outer(x - mc, x - mc) for x in Xc) / (len(Xc) - 1)
            S_w += len(Xc) / n * cov
    if between == "parametric":
        m0 = X.mean(axis=0)
        S_b = sum(
            np.sum(y == c) / n * np.outer(X[y == c].mean(axis=0) - m0, X[y == c].mean(axis=0) - m0)
            for c in classes
        )
    return S_w, S_b


@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(21, 3)) * [1.0, 3.0, 0.5] + [0.0, 10.0, -2.0]
    y = np.repeat([0, 1, 2], 7)
    X[y == 1, 0] += 1.5
    X[y == 2, 1] -= 2.0
    return X, y


@pytest.mark.parametrize("distance", ["euclidean", "mahalanobis"])
@pytest.mark.parametrize("within,between", [("nonparametric", "nonparametric"), ("parametric", "parametric"), ("parametric", "nonparametric")])
@pytest.mark.parametrize("k", [1, 3])
def test_scatter_matrices_match_slow_loops(tiny, distance, within, between, k):
    X, y = tiny
    got = _scatter.scatter_matrices(X, y, 3, n_neighbors=k, within=within, between=between, distance=distance)
    want = _slow_scatter(X, y, k, within, between, distance, _scatter.WEIGHT_EXPONENT)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("depth", [None, 4, 6])
def test_block_neighbours_equal_a_search_inside_each_block(depth):
    """One search on all samples, filtered per block (with the fallback when too shallow)."""
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(90, 3))
    y = rng.integers(0, 3, size=90)
    blocks = [np.sort(rng.choice(90, size=70, replace=False)) for _ in range(4)]
    got = _scatter.block_class_neighbours(Z, y, 3, 3, blocks, depth=depth)
    for rows, nb in zip(blocks, got):
        want = _scatter.class_neighbours(Z[rows], y[rows], 3, 3)
        for field in ("within", "between"):
            np.testing.assert_array_equal(nb[field], want[field])
        for field in ("d_within", "d_between"):
            np.testing.assert_allclose(nb[field], want[field], rtol=1e-12)
    # the reference itself against brute force on one block
    rows = blocks[0]
    Zb, yb = Z[rows], y[rows]
    for i in range(len(rows)):
        d = np.sqrt(((Zb - Zb[i]) ** 2).sum(axis=1))
        own = [j for j in np.argsort(d, kind="stable") if yb[j] == yb[i] and j != i][:3]
        out = [j for j in np.argsort(d, kind="stable") if yb[j] != yb[i]][:3]
        assert got[0].within[i].tolist() == own and got[0].between[i].tolist() == out


def test_boundary_weight_exponent_one_is_fukunaga_mantock():
    dw = np.array([1.0, 2.0, 0.0, 3.0])
    db = np.array([3.0, 2.0, 0.0, 1e-300])
    np.testing.assert_allclose(_scatter.boundary_weights(dw, db, 1), [0.25, 0.5, 0.5, 1e-300 / 3.0])
    # large exponents neither overflow nor underflow into NaN
    w = _scatter.boundary_weights(np.array([1e200, 1e-200]), np.array([2e200, 1e-200]), 4)
    np.testing.assert_allclose(w, [1 / 17, 0.5])


def test_extraction_solves_generalised_eigenproblem_and_waws(tiny):
    X, y = tiny
    S_w, S_b = _scatter.scatter_matrices(X, y, 3, n_neighbors=3, within="nonparametric", between="nonparametric", distance="euclidean")
    ext = _scatter.extract(S_w, S_b, [0, 1, 2])
    V, lam = ext.transform, ext.eigenvalues
    np.testing.assert_allclose(S_b @ V, S_w @ V * lam, atol=1e-10 * np.abs(S_b).max())
    np.testing.assert_allclose(V.T @ S_w @ V, np.eye(3), atol=1e-9)
    # eigenvalues of S_w^-1 S_b (eq. 7), trace J
    np.testing.assert_allclose(np.sort(np.linalg.eigvals(np.linalg.solve(S_w, S_b)).real), lam, rtol=1e-8, atol=1e-12)
    # WAWS by hand: unit eigenvectors in within-standardised units, weighted by normalised eigenvalues
    scale = np.sqrt(np.diag(S_w))
    want = np.zeros(3)
    for m in range(3):
        u = V[:, m] * scale
        u = u / np.sqrt(np.sum(u**2))
        for f in range(3):
            want[f] += lam[m] / lam.sum() * abs(u[f])
    np.testing.assert_allclose(_scatter.waws(lam, ext.components), want, rtol=1e-10)


def test_singular_within_scatter_is_a_clear_error():
    X, y = table1_problem(20, random_state=0)
    X = np.column_stack([X[:, :2], 2 * X[:, 0] - X[:, 1] + 1.0])
    with pytest.raises(SeqimpError, match=r"within-class scatter matrix of features \[1, 2, 3\] is singular"):
        relative_feature_importance(X, y, n_neighbors=3, n_datasets=2, random_state=0)


def test_singular_total_covariance_with_mahalanobis_is_a_clear_error():
    X, y = table1_problem(20, random_state=0)
    X = np.column_stack([X[:, :2], X[:, 0] + X[:, 1]])
    with pytest.raises(SeqimpError, match="X: the total covariance is singular, so the Mahalanobis distance"):
        relative_feature_importance(X, y, distance="mahalanobis", n_neighbors=3, n_datasets=2, random_state=0)


def test_knn_error_matches_brute_force_leave_one_out():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(40, 2))
    y = rng.integers(0, 3, size=40)
    k = 4
    wrong = 0
    for i in range(40):
        d = [(np.sum((Z[i] - Z[j]) ** 2), j) for j in range(40) if j != i]
        near = [j for _, j in sorted(d)[:k]]
        votes = {c: sum(y[j] == c for j in near) for c in range(3)}
        top = max(votes.values())
        tied = [c for c in votes if votes[c] == top]
        pred = next(y[j] for j in near if y[j] in tied)  # nearest tied class wins
        wrong += pred != y[i]
    assert _scatter.knn_error(Z, y, 3, k) == pytest.approx(wrong / 40)


def test_block_anova_against_paired_t_and_table_values():
    rng = np.random.default_rng(5)
    Y = rng.normal(size=(8, 2)) + [0.0, 0.7] + rng.normal(size=(8, 1)) * 3
    a = block_anova(Y, 0.05)
    t = stats.ttest_rel(Y[:, 1], Y[:, 0])
    assert a.f_statistic == pytest.approx(t.statistic**2)
    assert a.p_value == pytest.approx(t.pvalue)
    # studentized range table (e.g. Montgomery, Table VII): q_0.05(3, 10) = 3.88
    a3 = block_anova(rng.normal(size=(6, 3)), 0.05)
    assert a3.df_error == 10
    assert a3.q_critical == pytest.approx(3.877, abs=2e-3)
    assert a3.critical_difference == pytest.approx(a3.q_critical * np.sqrt(a3.ms_error / 6))
    # the sums of squares add up
    Y = rng.normal(size=(5, 4))
    a = block_anova(Y, 0.05)
    ss_total = np.sum((Y - Y.mean()) ** 2)
    assert a.ms_treatment * 3 + a.ms_block * 4 + a.ms_error * 12 == pytest.approx(ss_total)


def test_mcb_critical_value_is_one_sided_dunnett():
    # two treatments: one comparison, Student's t quantile
    assert mcb_critical_value(0.05, 2, 9) == pytest.approx(stats.t.ppf(0.95, 9), rel=1e-9)
    # more: P(max T_i <= d) = 0.95 for equicorrelated (rho = 1/2) multivariate t, by scipy's own integration
    for t, df in ((4, 27), (6, 45)):
        d = mcb_critical_value(0.05, t, df)
        R = np.full((t - 1, t - 1), 0.5) + 0.5 * np.eye(t - 1)
        cover = stats.multivariate_t(loc=np.zeros(t - 1), shape=R, df=df).cdf(np.full(t - 1, d), random_state=0)
        assert cover == pytest.approx(0.95, abs=5e-4)


def test_distinct_groups_chains_and_orders():
    groups = distinct_groups([0.50, 0.10, 0.58, 0.12, 0.66, 1.0], 0.1)
    assert [g.tolist() for g in groups] == [[1, 3], [0, 2, 4], [5]]
    assert [g.tolist() for g in distinct_groups([1.0, 2.0], 0.0)] == [[0], [1]]


# ---------------------------------------------------------------- the whole method


def test_table1_ranks_several_seeds():
    """Holz & Loew Table 1 (600 samples per cluster): ranks [1, 3, 2, 0].

    At this sample size the kNN error separates {1,2,3} from {2,3} only
    narrowly: over seeds 0-19 the exact ranks come out on 13/20 and the
    ordering that the paper's ranks imply (noise out, feature 2 on top,
    feature 1 below 3) on 20/20. So the first four
    seeds, taken as they come, must all give the ordering, and at least one
    the exact ranks (were the exact ranks a 65% event, missing them on all
    four would happen 1.5% of the time).
    """
    exact = 0
    for seed in range(4):
        X, y = table1_problem(600, random_state=seed)
        res = relative_feature_importance(X, y, random_state=seed)
        r = res.ranks
        assert r[3] == 0 and r[1] == r.max() >= 2, (seed, r)  # noise out, feature 2 on top
        assert r[0] <= r[2] < r[1], (seed, r)
        assert res.optimal_subset.tolist() in ([0, 1, 2], [1, 2])
        assert res.subset_table["optimal"].sum() == 1
        exact += r.tolist() == [1, 3, 2, 0]
    assert exact >= 1


@pytest.fixture(scope="module")
def small_table1():
    X, y = table1_problem(250, random_state=11)
    return X, y, relative_feature_importance(X, y, n_datasets=6, random_state=4)


def test_result_shapes(small_table1):
    X, y, res = small_table1
    assert res.ranks.shape == (4,) and res.ranks.dtype.kind == "i"
    assert res.waws_mean.shape == (4,)
    assert res.importances.shape == (4, 6)  # the WAWS on each data set; mean and sd: tests/test_tabular_keys.py
    assert res.importances_mean.shape == res.importances_std.shape == (4,)
    assert len(res.subset_table) == 15
    assert res.anova.subset.errors.shape == (6, 15)
    assert res.anova.subset.search == "exhaustive"
    assert res.anova.ranking.waws.shape == (6, len(res.optimal_subset))
    assert res.ranks[3] == 0  # the noise feature never enters the optimal subset
    groups = res.anova.ranking.groups
    assert sorted(np.concatenate(groups).tolist()) == res.optimal_subset.tolist()


def test_invariant_to_shift_scale_and_column_order(small_table1):
    X, y, res = small_table1
    perm = [2, 3, 0, 1]
    X2 = (X * [1e3, 0.01, 7.0, 250.0] + [5.0, -300.0, 1e4, 0.5])[:, perm]
    res2 = relative_feature_importance(X2, y, n_datasets=6, random_state=4)
    assert res2.ranks.tolist() == res.ranks[perm].tolist()
    np.testing.assert_allclose(res2.waws_mean, res.waws_mean[perm], rtol=1e-6)
    for dist in ("mahalanobis",):
        a = relative_feature_importance(X, y, distance=dist, n_datasets=3, random_state=1)
        b = relative_feature_importance(X2, y, distance=dist, n_datasets=3, random_state=1)
        assert b.ranks.tolist() == a.ranks[perm].tolist()


def test_floating_search_warns_and_agrees_with_exhaustive(small_table1):
    X, y, res = small_table1
    with pytest.warns(RuntimeWarning, match="not guaranteed to find the optimal subset"):
        fl = relative_feature_importance(X, y, n_datasets=6, max_exhaustive=3, random_state=4)
    assert fl.anova.subset.search == "floating"
    assert fl.optimal_subset.tolist() == res.optimal_subset.tolist()
    assert fl.ranks.tolist() == res.ranks.tolist()


def test_floating_search_reaches_the_best_subsets_of_a_known_criterion():
    from seqimp.tabular._rfi import _floating_search

    class Fake:
        # additive criterion with an interaction: {0, 3} together is best of size 2
        def mean_error(self, feats):
            feats = set(feats)
            e = 1.0 - 0.1 * len(feats & {0, 1, 2}) - (0.5 if {0, 3} <= feats else 0.0)
            return e + 0.01 * len(feats)

    found = _floating_search(Fake(), 5)
    brute = {}
    for m in range(1, 6):
        brute[m] = min(itertools.combinations(range(5), m), key=Fake().mean_error)
    assert found == [brute[m] for m in range(1, 6)]


def test_multiclass_problem():
    rng = np.random.default_rng(2)
    n = 150
    y = np.repeat([0, 1, 2], n)
    X = rng.normal(size=(3 * n, 3))
    X[y == 1, 0] += 4.0  # feature 1 separates class 1 from 0 and 2
    X[y == 2, 1] += 4.0  # feature 2 separates class 2 from 0 and 1
    res = relative_feature_importance(X, np.array(["a", "b", "c"])[y], n_datasets=5, random_state=0)
    assert res.optimal_subset.tolist() == [0, 1]
    assert res.ranks[2] == 0 and np.all(res.ranks[:2] >= 1)


def test_given_datasets_are_the_blocks():
    # the paper's design: independently drawn data sets, each one ANOVA block
    parts = [table1_problem(40, random_state=20 + b) for b in range(3)]
    X = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    labels = np.repeat(["s1", "s2", "s3"], 160)
    res = relative_feature_importance(X, y, datasets=labels)
    errors = res.anova.subset.errors
    assert errors.shape == (3, 15) and res.anova.ranking.waws.shape[0] == 3
    full = res.subset_table["features"].tolist().index("1,2,3,4")
    Z = _scatter.metric_coordinates(X, "euclidean")  # the metric of the whole sample
    for b in range(3):
        rows = np.flatnonzero(labels == f"s{b + 1}")
        nb = _scatter.class_neighbours(Z[rows], y[rows], 2, 5)  # searched inside the data set
        S_w, S_b = _scatter.scatter_matrices(
            X[rows], y[rows], 2, n_neighbors=5, within="nonparametric", between="nonparametric",
            distance="euclidean", neighbours=nb,
        )
        ext = _scatter.extract(S_w, S_b, range(4))
        assert errors[b, full] == _scatter.knn_error(X[rows] @ ext.transform, y[rows], 2, 5)
    with pytest.raises(SeqimpError, match="datasets: only one data set"):
        relative_feature_importance(X, y, datasets=np.zeros(len(X)))
    with pytest.raises(SeqimpError, match=r"datasets: data set 's3' has 0 samples of class number 1"):
        relative_feature_importance(X, y, datasets=np.where((labels == "s3") & (y == 0), "s1", labels))
    with pytest.raises(SeqimpError, match="datasets: must be 1-D with one label per row of X"):
        relative_feature_importance(X, y, datasets=labels[:-1])


def test_parametric_and_mahalanobis_options_run():
    X, y = table1_problem(100, random_state=3)
    for within, between, distance in itertools.product(["parametric", "nonparametric"], ["parametric", "nonparametric"], ["euclidean", "mahalanobis"]):
        res = relative_feature_importance(
            X, y, within=within, between=between, distance=distance, n_neighbors=1, n_datasets=3, random_state=0
        )
        assert res.ranks[1] >= 1  # feature 2, the best single feature, is always kept


# ---------------------------------------------------------------- bad input


def test_bad_input_messages():
    X, y = table1_problem(20, random_state=0)
    with pytest.raises(SeqimpError, match=r"y: only one class \(0\)"):
        relative_feature_importance(X, np.zeros(len(X), dtype=int))
    Xn = X.copy()
    Xn[5, 2] = np.nan
    with pytest.raises(SeqimpError, match="X: NaN or infinity at row 6, column 3"):
        relative_feature_importance(Xn, y)
    with pytest.raises(SeqimpError, match=r"y: class 0 has 40 samples; .* \(32\), fewer than n_neighbors\+1 = 41"):
        relative_feature_importance(X, y, n_neighbors=40)
    with pytest.raises(SeqimpError, match="y: must be 1-D with one label per row of X"):
        relative_feature_importance(X, y[:-1])
    with pytest.raises(SeqimpError, match="X: feature 2 is constant"):
        relative_feature_importance(np.column_stack([X[:, 0], np.ones(len(X))]), y)
    with pytest.raises(SeqimpError, match="within must be one of 'nonparametric', 'parametric', got 'local'"):
        relative_feature_importance(X, y, within="local")
    with pytest.raises(SeqimpError, match="distance must be one of 'euclidean', 'mahalanobis', got 'cityblock'"):
        relative_feature_importance(X, y, distance="cityblock")
    with pytest.raises(SeqimpError, match="n_datasets must be an integer >= 2, got 1"):
        relative_feature_importance(X, y, n_datasets=1)
    with pytest.raises(SeqimpError, match=r"alpha must be a number in \(0, 1\), got 1.5"):
        relative_feature_importance(X, y, alpha=1.5)
    with pytest.raises(SeqimpError, match="n_neighbors must be a positive integer, got 0"):
        relative_feature_importance(X, y, n_neighbors=0)
    with pytest.raises(SeqimpError, match="X: must be a non-empty 2-D array"):
        relative_feature_importance(X[:, 0], y)
