"""Huh & Lee sensitivity importance: standardized coefficients, exact expectations, Clementine variant."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

from seqimp.errors import SeqimpError
from seqimp.tabular import sensitivity_importance


def _huh_lee(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    return X, X @ [4.0, 3.0, 2.0, 1.0] + rng.normal(size=n)


def _mean_abs_diff(v):
    """E|v_a - v_b| over independent uniform picks a, b (ties included)."""
    return np.abs(v[:, None] - v[None, :]).mean()


def test_linear_regression_gives_standardized_coefficients():
    n = 4000
    X, y = _huh_lee(n, 0)
    model = LinearRegression().fit(X, y)
    res = sensitivity_importance(model, X, y, n_repeats=5, random_state=0)
    beta = np.abs(model.coef_) * X.std(axis=0) / y.std()
    # for Gaussian x and y, E|a - b| = 2 sd / sqrt(pi) on both sides of the ratio
    np.testing.assert_allclose(res.importances_mean, beta, rtol=0.04)
    assert res.importances.shape == (4, 5)
    # and 4 % rejects the unstandardized |w| sd(x) / D_y
    assert np.all(np.abs(np.abs(model.coef_) * X.std(axis=0) / res.d_y - beta) > 0.04 * beta)


def test_pairs_match_exact_expectation_by_brute_force():
    n, n_rep = 30, 300
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 3))
    f = lambda A: np.sin(A[:, 0]) * A[:, 1] + np.abs(A[:, 2])  # noqa: E731
    y = f(X) + 0.1 * rng.normal(size=n)
    res = sensitivity_importance(f, X, y, n_repeats=n_rep, random_state=2, n_pairs_y=200_000)
    for j in range(3):
        expected = 0.0
        for i in range(n):
            Xi = np.repeat(X[i : i + 1], n, axis=0)
            Xi[:, j] = X[:, j]
            expected += _mean_abs_diff(f(Xi)) / n
        se = res.d_features[j].std(ddof=1) / np.sqrt(n_rep)
        assert abs(res.d_features[j].mean() - expected) < 4 * se
    assert res.d_y == pytest.approx(_mean_abs_diff(y), rel=0.02)


def test_without_y_the_model_outputs_give_d_y():
    X, y = _huh_lee(200, 3)
    model = LinearRegression().fit(X, y)
    a = sensitivity_importance(model, X, n_repeats=2, random_state=0)
    b = sensitivity_importance(model, X, model.predict(X), n_repeats=2, random_state=0)
    np.testing.assert_array_equal(a.importances, b.importances)
    assert a.d_y == b.d_y


def test_range_variant_linear_and_categorical():
    X, y = _huh_lee(300, 4)
    model = LinearRegression().fit(X, y)
    res = sensitivity_importance(model, X, y, variant="range", n_repeats=3)
    np.testing.assert_allclose(res.importances[:, 0], np.abs(model.coef_) * np.ptp(X, axis=0) / np.ptp(y))
    np.testing.assert_allclose(res.importances_std, 0, atol=1e-12)
    assert res.d_y == pytest.approx(np.ptp(y))

    rng = np.random.default_rng(5)
    Z = np.column_stack([rng.integers(0, 4, 40), rng.normal(size=40)])
    g = lambda A: np.where(A[:, 0] == 2, 3.0, 0.0) + A[:, 0] * A[:, 1] ** 2  # noqa: E731
    out = g(Z)
    cat = sensitivity_importance(g, pd.DataFrame(Z, columns=["crop", "rain"]), out, variant="range",
                                 categorical_features=["crop"], n_levels=7)
    levels = [np.unique(Z[:, 0]), np.linspace(Z[:, 1].min(), Z[:, 1].max(), 7)]
    for j in range(2):
        spread = []
        for i in range(40):
            rows = np.repeat(Z[i : i + 1], len(levels[j]), axis=0)
            rows[:, j] = levels[j]
            spread.append(np.ptp(g(rows)))
        assert cat.importances[j, 0] == pytest.approx(np.mean(spread) / np.ptp(out))
    assert list(cat.feature_names) == ["crop", "rain"]


def test_streams_are_per_feature_and_reproducible():
    rng = np.random.default_rng(6)
    a = rng.normal(size=100)
    X = np.column_stack([a, a])
    f = lambda A: A[:, 0] + A[:, 1]  # noqa: E731
    r1 = sensitivity_importance(f, X, n_repeats=3, random_state=9)
    r2 = sensitivity_importance(f, X, n_repeats=3, random_state=9)
    np.testing.assert_array_equal(r1.importances, r2.importances)
    assert not np.allclose(r1.importances[0], r1.importances[1])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"variant": "max"}, "variant must be one of"),
        ({"n_repeats": 0}, "n_repeats must be a positive integer, got 0"),
        ({"categorical_features": [9]}, "categorical_features: column index 9 out of range"),
        ({"categorical_features": ["nope"]}, "categorical_features: unknown column 'nope'"),
        ({"n_levels": 1}, "n_levels: need at least 2 levels"),
    ],
)
def test_bad_arguments(kwargs, match):
    X, y = _huh_lee(20, 7)
    with pytest.raises(SeqimpError, match=match):
        sensitivity_importance(LinearRegression().fit(X, y), X, y, **kwargs)


def test_constant_output_is_an_error():
    X, _ = _huh_lee(20, 8)
    with pytest.raises(SeqimpError, match="y: all outputs are equal"):
        sensitivity_importance(lambda A: A[:, 0], X, np.ones(20))
    with pytest.raises(SeqimpError, match="model_or_fn: expected a fitted estimator or a callable"):
        sensitivity_importance(3, X)
