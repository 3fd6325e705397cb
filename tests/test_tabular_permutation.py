"""Permutation importance: closed forms, brute force at small n, scikit-learn agreement."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.inspection import permutation_importance as sk_permutation_importance
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.metrics import roc_auc_score

from seqimp.errors import SeqimpError
from seqimp.tabular import permutation_importance


def _linear_data(n, w, sd, seed, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, len(w))) * sd
    y = X @ w + noise * rng.normal(size=n)
    return X, y


W = np.array([1.5, -1.0, 0.5, 0.0])
SD = np.array([1.0, 2.0, 1.0, 1.0])


def test_all_pairs_equals_closed_form_for_ols_on_its_training_data():
    # With OLS residuals orthogonal to centred x, e_switch - e_orig = 2 w_j^2 s_j^2 exactly (ddof=1).
    X, y = _linear_data(300, W, SD, 0)
    model = LinearRegression().fit(X, y)
    res = permutation_importance(model, X, y, strategy="all_pairs", n_repeats=3, batch_rows=5000)
    exact = 2 * model.coef_**2 * X.var(axis=0, ddof=1)
    np.testing.assert_allclose(res.importances_mean, exact, rtol=1e-9, atol=1e-12)
    assert res.importances.shape == (4, 3)
    np.testing.assert_array_equal(res.importances_std, 0)


def test_shuffle_converges_to_two_w_squared_var():
    # the true linear model, so that only the data and the permutations are random
    n, n_rep = 4000, 10
    X, y = _linear_data(n, W, SD, 1)
    res = permutation_importance(lambda A: A @ W, X, y, n_repeats=n_rep, random_state=0)
    target = 2 * W**2 * SD**2 * (n - 1) / n  # a shuffle leaves 1/n of the rows in place
    # sd of one repeat: w^2 mean((x_i - x_pi(i))^2) has sd w^2 s^2 sqrt(8/n); the cross term 2|w| s sqrt(2/n)
    sd = np.sqrt((W**2 * SD**2) ** 2 * 8 / n + (2 * np.abs(W) * SD) ** 2 * 2 / n)
    assert np.all(np.abs(res.importances_mean - target) <= 4 * sd)
    # the tolerance rejects the factor-2 slip w^2 Var(x)
    assert np.all(np.abs(res.importances_mean[:3] - target[:3] / 2) > 4 * sd[:3])


def test_shuffle_expectation_by_enumerating_all_permutations():
    # E[shuffle loss] = e_orig / n + (n-1)/n * e_switch, exact over the n! permutations.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(5, 3))
    y = rng.normal(size=5)
    f = lambda A: np.tanh(A[:, 0] * A[:, 1]) + A[:, 2] ** 2  # noqa: E731
    mae = lambda yy, p: np.mean(np.abs(yy - p))  # noqa: E731
    e_orig = mae(y, f(X))
    res = permutation_importance(f, X, y, loss="mae", strategy="all_pairs", n_repeats=1, groups=[[0], [1, 2]])
    for u, cols in enumerate([[0], [1, 2]]):
        total = 0.0
        perms = list(itertools.permutations(range(5)))
        for p in perms:
            Xp = X.copy()
            Xp[:, cols] = X[list(p)][:, cols]
            total += mae(y, f(Xp))
        expected = e_orig / 5 + 4 / 5 * res.permuted_loss[u, 0]
        assert total / len(perms) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("loss", ["mse", "log_loss", "1-auc", "zero_one"])
def test_all_pairs_matches_explicit_double_loop(loss):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(9, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=9) > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    res = permutation_importance(model, X, y, loss=loss, strategy="all_pairs", n_repeats=2, batch_rows=7)
    rows, labels = [], []
    for j in range(3):
        Xp, yp = [], []
        for i in range(9):
            for k in range(9):
                if i != k:
                    row = X[i].copy()
                    row[j] = X[k, j]
                    Xp.append(row)
                    yp.append(y[i])
        rows.append(np.array(Xp))
        labels.append(np.array(yp))
    for j in range(3):
        Xp, yp = rows[j], labels[j]
        if loss == "mse":
            v = np.mean((yp - model.predict(Xp)) ** 2)
        elif loss == "log_loss":
            v = -np.mean(np.log(model.predict_proba(Xp)[np.arange(len(yp)), yp]))
        elif loss == "1-auc":
            v = 1 - roc_auc_score(yp, model.decision_function(Xp))
        else:
            v = np.mean(yp != model.predict(Xp))
        assert res.permuted_loss[j, 0] == pytest.approx(v, rel=1e-12, abs=1e-15)


def test_half_swap_is_unbiased_for_all_pairs():
    X, y = _linear_data(20, W[:2], SD[:2], 4)
    f = lambda A: A[:, 0] * A[:, 1]  # noqa: E731
    exact = permutation_importance(f, X, y, strategy="all_pairs", n_repeats=1)
    swap = permutation_importance(f, X, y, strategy="half_swap", n_repeats=400, random_state=1)
    se = swap.importances.std(axis=1, ddof=1) / np.sqrt(400)
    assert np.all(np.abs(swap.importances_mean - exact.importances_mean) < 4 * se)
    shuf = permutation_importance(f, X, y, strategy="shuffle", n_repeats=400, random_state=1)
    se = shuf.importances.std(axis=1, ddof=1) / np.sqrt(400)
    assert np.all(np.abs(shuf.importances_mean - 19 / 20 * exact.importances_mean) < 4 * se)


def test_agrees_with_sklearn_in_expectation():
    X, y = _linear_data(400, W, SD, 5)
    model = Ridge(alpha=1.0).fit(X[:200], y[:200])
    Xv, yv = X[200:], y[200:]
    n_rep = 30
    ours = permutation_importance(model, Xv, yv, n_repeats=n_rep, random_state=0)
    sk = sk_permutation_importance(model, Xv, yv, scoring="neg_mean_squared_error", n_repeats=n_rep, random_state=0)
    se = np.sqrt((ours.importances.var(axis=1, ddof=1) + sk.importances.var(axis=1, ddof=1)) / n_rep)
    assert np.all(np.abs(ours.importances_mean - sk.importances_mean) <= 4 * se + 1e-12)
    assert ours.baseline_loss == pytest.approx(np.mean((yv - model.predict(Xv)) ** 2))


def test_groups_are_permuted_jointly():
    rng = np.random.default_rng(6)
    a = rng.normal(size=50)
    X = np.column_stack([a, a, rng.normal(size=50)])
    f = lambda A: A[:, 0] - A[:, 1] + A[:, 2]  # noqa: E731
    y = f(X)
    joint = permutation_importance(f, X, y, groups={"pair": [0, 1], "x3": 2}, n_repeats=3, random_state=0)
    np.testing.assert_allclose(joint.importances[0], 0, atol=1e-12)
    assert list(joint.feature_names) == ["pair", "x3"]
    apart = permutation_importance(f, X, y, n_repeats=3, random_state=0)
    assert np.all(apart.importances[:2] > 0.1)


def test_each_feature_has_its_own_stream_and_runs_are_reproducible():
    rng = np.random.default_rng(7)
    a = rng.normal(size=60)
    X = np.column_stack([a, a])
    f = lambda A: A[:, 0] + A[:, 1]  # noqa: E731
    y = f(X)
    r1 = permutation_importance(f, X, y, n_repeats=4, random_state=3)
    assert not np.allclose(r1.importances[0], r1.importances[1])  # different permutations
    r2 = permutation_importance(f, X, y, n_repeats=4, random_state=3, n_jobs=2)
    np.testing.assert_array_equal(r1.importances, r2.importances)


def test_ratio_max_samples_and_dataframe_names():
    X, y = _linear_data(101, W, SD, 8)
    df = pd.DataFrame(X, columns=["age", "bmi", "bp", "unused"])
    model = LinearRegression().fit(df, y)
    res = permutation_importance(model, df, y, compare="ratio", max_samples=0.5, n_repeats=4, random_state=0,
                                 strategy="half_swap")
    assert list(res.feature_names) == ["age", "bmi", "bp", "unused"]
    fixed = permutation_importance(lambda A: A[:, :3] @ W[:3], df, y, compare="ratio", strategy="half_swap",
                                   max_samples=0.5, n_repeats=4, random_state=0)
    np.testing.assert_allclose(fixed.importances[3], 1.0, rtol=1e-12)  # column never read: ratio 1
    assert np.all(fixed.importances[:2] > 1.5)
    diff = permutation_importance(model, df, y, groups=[["age", "bmi"]], max_samples=40, n_repeats=3,
                                  random_state=0)
    assert diff.feature_names[0] == "age+bmi" and diff.importances.shape == (1, 3)
    unused = permutation_importance(lambda A: A[:, 0], X, y, max_samples=30, n_repeats=3, random_state=0)
    np.testing.assert_array_equal(unused.importances[1:], 0)  # paired baseline on the same rows


def test_confidence_interval_is_student_t():
    X, y = _linear_data(80, W, SD, 9)
    model = LinearRegression().fit(X, y)
    res = permutation_importance(model, X, y, n_repeats=6, random_state=0, confidence_level=0.9)
    half = stats.t.ppf(0.95, 5) * res.importances.std(axis=1, ddof=1) / np.sqrt(6)
    np.testing.assert_allclose(res.ci_high - res.importances_mean, half)
    np.testing.assert_allclose(res.importances_mean - res.ci_low, half)
    one = permutation_importance(model, X, y, n_repeats=1, random_state=0)
    assert np.all(np.isnan(one.ci_low)) and np.all(np.isnan(one.ci_high))


def test_callable_loss_and_batching_do_not_change_all_pairs():
    X, y = _linear_data(30, W, SD, 10)
    model = LinearRegression().fit(X, y)
    med = lambda yy, p: float(np.median(np.abs(yy - p)))  # noqa: E731
    big = permutation_importance(model, X, y, loss=med, strategy="all_pairs", n_repeats=1)
    small = permutation_importance(model, X, y, loss=med, strategy="all_pairs", n_repeats=1, batch_rows=17)
    np.testing.assert_allclose(big.importances, small.importances, rtol=1e-12)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"strategy": "swap"}, "strategy must be one of"),
        ({"loss": "rmse"}, "loss: must be one of"),
        ({"compare": "diff"}, "compare must be one of"),
        ({"n_repeats": 0}, "n_repeats must be a positive integer, got 0"),
        ({"max_samples": 1000}, "max_samples: must be between 1 and"),
        ({"groups": [[7]]}, r"groups\[0\]: column index 7 out of range"),
        ({"groups": {"g": ["nope"]}}, r"groups\[g\]: unknown column 'nope'"),
        ({"loss": "log_loss"}, "estimator LinearRegression has no predict_proba"),
        ({"confidence_level": 1.5}, r"confidence_level must be a number in \(0, 1\), got 1.5"),
    ],
)
def test_bad_arguments(kwargs, match):
    X, y = _linear_data(20, W, SD, 11)
    model = LinearRegression().fit(X, y)
    with pytest.raises(SeqimpError, match=match):
        permutation_importance(model, X, y, **kwargs)


def test_bad_data():
    model = LinearRegression().fit(np.eye(3), [0, 1, 2])
    with pytest.raises(SeqimpError, match=r"y: expected shape \(3,\)"):
        permutation_importance(model, np.eye(3), [1, 2])
    with pytest.raises(SeqimpError, match="X: non-finite value at row 2, column 1"):
        permutation_importance(model, [[0, 0, 0], [np.nan, 0, 0], [1, 1, 1]], [1, 2, 3])


def test_progress_reports_on_stderr(capsys):
    X, y = _linear_data(30, W, SD, 12)
    permutation_importance(lambda A: A @ W, X, y, n_repeats=2, random_state=0, progress=True)
    err = capsys.readouterr().err
    assert "permutation importance (shuffle)" in err and "4/4" in err
