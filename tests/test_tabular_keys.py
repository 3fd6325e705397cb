"""Every tabular result has the keys of sklearn.inspection.permutation_importance's Bunch where
the quantity exists: importances_mean and importances_std of shape (n_features,), and
importances of shape (n_features, n_repeats) for the methods with repeats."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

from seqimp.tabular import firm, permutation_importance, relative_feature_importance, sensitivity_importance
from seqimp.tabular._rfi import table1_problem


@pytest.fixture(scope="module")
def linear():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    model = LinearRegression().fit(X, X @ [1.0, -0.5, 2.0] + 0.1 * rng.normal(size=80))
    return model, X, model.predict(X)


def _check_repeats(res, n_features, n_repeats):
    assert res.importances.shape == (n_features, n_repeats)
    assert res.importances_mean.shape == res.importances_std.shape == (n_features,)
    np.testing.assert_allclose(res.importances_mean, res.importances.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(res.importances_std, res.importances.std(axis=1), rtol=1e-12, atol=1e-15)  # ddof=0


def test_permutation_keys_are_the_mean_and_sd_over_repeats(linear):
    model, X, y = linear
    res = permutation_importance(model, X, y, n_repeats=4, random_state=0)
    _check_repeats(res, 3, 4)
    np.testing.assert_allclose(res.importances, res.permuted_loss - res.baseline_loss)


def test_sensitivity_keys_are_the_mean_and_sd_over_repeats(linear):
    model, X, y = linear
    res = sensitivity_importance(model, X, y, n_repeats=3, random_state=0)
    _check_repeats(res, 3, 3)
    np.testing.assert_allclose(res.importances, res.d_features / res.d_y)


def test_firm_has_no_repeats_so_its_sd_is_zero(linear):
    model, X, _ = linear
    res = firm(model, X, method="gaussian")
    assert res.importances.shape == res.importances_mean.shape == res.importances_std.shape == (3,)
    np.testing.assert_array_equal(res.importances_mean, res.importances)
    np.testing.assert_array_equal(res.importances_std, np.zeros(3))
    two = firm(model, X, features=[0, 2], method="slope")  # the requested features only
    assert two.importances_mean.shape == two.importances_std.shape == (2,)


def test_rfi_keys_are_the_waws_of_every_data_set_beside_the_ranks():
    X, y = table1_problem(60, random_state=1)
    res = relative_feature_importance(X, y, n_neighbors=3, n_datasets=4, random_state=0)
    _check_repeats(res, 4, 4)
    inside = np.zeros(4, dtype=bool)
    inside[res.optimal_subset] = True
    # the per-data-set WAWS that the ranking ANOVA compares; 0 outside the optimal subset
    np.testing.assert_array_equal(res.importances[inside], res.anova.ranking.waws.T)
    np.testing.assert_array_equal(res.importances[~inside], 0.0)
    np.testing.assert_array_equal(res.importances_mean[inside], res.waws_mean[inside])
    np.testing.assert_array_equal(res.importances_mean[~inside], 0.0)
    np.testing.assert_array_equal(res.ranks[~inside], 0)
    # the ranks follow importances_mean inside the subset: a larger mean never gets a lower rank
    sub = res.optimal_subset
    for i in sub:
        for j in sub:
            if res.importances_mean[i] < res.importances_mean[j]:
                assert res.ranks[i] <= res.ranks[j]
