"""FIRM for tabular data: closed forms (eq. 10, 12, §2.4.1), gradients, estimators."""

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.svm import SVC, SVR, NuSVR

from seqimp.errors import SeqimpError
from seqimp.tabular import feature_indicator, feature_product, firm
from seqimp.tabular._gradients import analytic_gradient, numerical_gradient

SIGMA = np.array([[1.0, 0.8, 0.3], [0.8, 2.0, -0.4], [0.3, -0.4, 0.5]])
W = np.array([1.0, -0.5, -1.5])
MU = np.array([1.0, 0.0, -2.0])


def _gaussian(n, seed):
    return np.random.default_rng(seed).multivariate_normal(MU, SIGMA, size=n)


def _linear_model(X):
    return LinearRegression().fit(X, X @ W + 3.0)


def test_data_estimators_converge_to_closed_form_for_correlated_gaussians():
    n = 20000
    X = _gaussian(n, 0)
    model = _linear_model(X)
    exact = SIGMA @ W / np.sqrt(np.diag(SIGMA))  # Q = D^-1 Sigma w (eq. 12)
    sd_s = np.sqrt(W @ SIGMA @ W)
    tol = 4 * (np.sqrt(sd_s**2 + exact**2) / np.sqrt(n) + np.abs(exact) / np.sqrt(2 * n))
    slope = firm(model, X, method="slope").importances
    assert np.all(np.abs(slope - exact) < tol)
    # the tolerance separates eq. 12 from the correlation-blind D w
    assert np.all(np.abs(np.sqrt(np.diag(SIGMA)) * W - exact) > tol)
    shrunk = firm(model, X, method="gaussian", covariance="shrinkage").importances
    assert np.all(np.abs(shrunk - exact) < tol)
    binned = firm(model, X, method="binned", n_bins=40).importances
    # binning loses a little of Var q (2 % at 40 bins) and adds noise variance of order Var(s) * bins / n
    assert np.all(np.abs(binned - np.abs(exact)) < 0.02 * np.abs(exact) + sd_s * np.sqrt(40 / n) + tol)


def test_gaussian_with_known_or_empirical_covariance_is_exact():
    X = _gaussian(500, 1)
    model = _linear_model(X)
    exact = SIGMA @ W / np.sqrt(np.diag(SIGMA))
    np.testing.assert_allclose(firm(model, X, method="gaussian", covariance=SIGMA).importances, exact, rtol=1e-8)
    # with the sample covariance, eq. 12 is algebraically the slope estimator
    gauss = firm(model, X, method="gaussian", covariance="empirical")
    slope = firm(model, X, method="slope")
    np.testing.assert_allclose(gauss.importances, slope.importances, rtol=1e-9)
    taylor = firm(model, X, method="taylor", covariance="empirical", gradient="numerical")
    np.testing.assert_allclose(taylor.importances, gauss.importances, rtol=1e-6)
    assert list(firm(model, X).methods) == ["gaussian"] * 3


def test_standardize_divides_by_score_sd():
    X = _gaussian(400, 2)
    model = _linear_model(X)
    raw = firm(model, X, method="gaussian", covariance=SIGMA)
    std = firm(model, X, method="gaussian", covariance=SIGMA, standardize=True)
    np.testing.assert_allclose(std.importances, raw.importances / np.sqrt(W @ SIGMA @ W), rtol=1e-8)
    scaled = firm(lambda A: 7 * model.predict(A), X, method="slope", standardize=True)
    np.testing.assert_allclose(scaled.importances, firm(model, X, method="slope", standardize=True).importances)
    np.testing.assert_allclose(scaled.score_std, np.std(7 * model.predict(X)))


@pytest.mark.parametrize(
    "make",
    [
        lambda X, y: SVR(kernel="rbf", gamma=0.4).fit(X, y),
        lambda X, y: SVC(kernel="rbf", gamma="scale").fit(X, y > 0),
        lambda X, y: SVC(kernel="poly", degree=3, coef0=0.5, gamma=0.3).fit(X, y > 0),
        lambda X, y: SVR(kernel="sigmoid", gamma=0.1, coef0=0.2).fit(X, y),
        lambda X, y: NuSVR(kernel="linear").fit(X, y),
    ],
)
def test_analytic_svm_gradient_matches_central_differences(make):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    model = make(X, y)
    score = model.decision_function if hasattr(model, "decision_function") else model.predict
    for x in (X.mean(axis=0), X[5]):
        g = analytic_gradient(model, x, 3)
        num = numerical_gradient(lambda A: score(A).ravel(), x, np.full(3, 1e-5))
        np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)
    res = firm(model, X, method="taylor", covariance="empirical")
    cov = np.cov(X, rowvar=False, bias=True)
    np.testing.assert_allclose(res.importances, cov @ res.gradient / np.sqrt(np.diag(cov)))
    assert res.methods[0] == "taylor"


def test_taylor_of_a_nonlinear_callable_matches_eq_9():
    X = _gaussian(300, 4)
    a = np.array([0.3, -0.2, 0.5])
    s = lambda A: np.exp(A @ a)  # noqa: E731
    res = firm(s, X, method="taylor", covariance=SIGMA)
    mu = X.mean(axis=0)
    grad = a * np.exp(mu @ a)
    np.testing.assert_allclose(res.importances, SIGMA @ grad / np.sqrt(np.diag(SIGMA)), rtol=1e-6)
    # the curve is s(E[X | x_j = t]) exactly, for every grid point
    c = res.curves[0]
    direction = SIGMA[:, 0] / SIGMA[0, 0]
    np.testing.assert_allclose(c.q, s(mu + (c.t - mu[0])[:, None] * direction))


def _cube(d):
    return np.array(list(itertools.product([-1.0, 1.0], repeat=d)))


def test_binary_uniform_linear_closed_forms_of_section_2_4_1():
    X = _cube(3)
    w = np.array([0.7, -1.2, 0.4])
    s = X @ w + 0.5
    res = firm(s, X, method="binary")
    np.testing.assert_allclose(res.importances, w)  # Q_j = w_j
    conj = {f"{j}&{k}": (lambda A, j=j, k=k: ((A[:, j] > 0) & (A[:, k] > 0)).astype(float))
            for j, k in [(0, 1), (0, 2), (1, 2)]}
    q = firm(s, X, features=conj).importances
    np.testing.assert_allclose(q, [(w[0] + w[1]) / np.sqrt(3), (w[0] + w[2]) / np.sqrt(3), (w[1] + w[2]) / np.sqrt(3)])
    xor = firm(s, X, features=[lambda A: (A[:, 0] != A[:, 1]).astype(float)], method="binary")
    np.testing.assert_allclose(xor.importances, 0, atol=1e-12)


def test_binary_slope_binned_and_exact_formula_agree():
    rng = np.random.default_rng(5)
    X = (rng.random((300, 4)) < [0.2, 0.5, 0.7, 0.9]).astype(float)
    s = np.tanh(X @ [1.0, -2.0, 0.5, 1.5]) + X[:, 0] * X[:, 1] + 0.1 * rng.normal(size=300)
    exact = firm(s, X, method="binary")
    hi = X == 1
    p = hi.mean(axis=0)
    by_hand = [(s[hi[:, j]].mean() - s[~hi[:, j]].mean()) * np.sqrt(p[j] * (1 - p[j])) for j in range(4)]
    np.testing.assert_allclose(exact.importances, by_hand, rtol=1e-12)
    np.testing.assert_allclose(firm(s, X, method="slope").importances, exact.importances, rtol=1e-10)
    np.testing.assert_allclose(firm(s, X, method="binned").importances, np.abs(exact.importances), rtol=1e-10)
    # invariant to the coding of the two values (here {-3, 5} instead of {0, 1})
    recoded = firm(s, 8 * X - 3, method="binary").importances
    np.testing.assert_allclose(recoded, exact.importances, rtol=1e-12)
    # README erratum to §2.3: FIRM = POIM * sqrt(pi / (1 - pi)), pi = Pr(feature on), POIM = q_on - E[s]
    poim = np.array([s[hi[:, j]].mean() - s.mean() for j in range(4)])
    np.testing.assert_allclose(exact.importances, poim * np.sqrt(p / (1 - p)), rtol=1e-10)


def test_feature_functions_names_and_curves():
    rng = np.random.default_rng(6)
    df = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    model = LinearRegression().fit(df, df["a"] - 2 * df["b"])
    res = firm(model, df, features=["b", ("a", "c"), feature_product(0, 1), feature_indicator(2, 0.0),
                                    lambda A: A[:, 0] ** 2])
    assert list(res.feature_names) == ["b", "a*c", "x1*x2", "I(x3 > 0)", "<lambda>"]
    assert list(res.methods) == ["gaussian", "slope", "slope", "binary", "slope"]
    assert res.feature_values.shape == (200, 5) and res.scores.shape == (200,)
    np.testing.assert_allclose(res.feature_values[:, 1], df["a"] * df["c"])
    ind = res.curves[3]
    on = df["c"].to_numpy() > 0
    np.testing.assert_allclose(ind.q, [res.scores[~on].mean(), res.scores[on].mean()])
    np.testing.assert_allclose(ind.weight, [1 - on.mean(), on.mean()])
    named = firm(model, df, features={"minus b": "b"}, method="slope")
    assert named.feature_names[0] == "minus b" and named.importances[0] < 0
    line = named.curves[0]
    assert np.ptp(np.diff(line.q) / np.diff(line.t)) < 1e-9  # a straight line


@pytest.mark.parametrize(
    "model_kind, kwargs, match",
    [
        ("svr", {"method": "gaussian"}, "method='gaussian': SVR is not a linear model"),
        ("lin", {"method": "gaussian", "features": [(0, 1)]}, "feature x1\\*x2 is not a coordinate"),
        ("lin", {"method": "binary"}, "method='binary': feature x1 takes 50 distinct values, not 2"),
        ("lin", {"method": "slope", "features": [lambda A: A[:, 0] * 0]}, "feature <lambda>: constant on X"),
        ("lin", {"method": "fancy"}, "method must be one of"),
        ("lin", {"covariance": np.eye(2), "method": "gaussian"}, "covariance: expected a symmetric \\(3, 3\\)"),
        ("lin", {"features": [5]}, "features\\[0\\]: column index 5 out of range"),
        ("lin", {"features": ["zz"]}, "features\\[0\\]: unknown column 'zz'"),
        ("scores", {"method": "taylor"}, "needs a model or callable, not precomputed scores"),
        ("tree", {"method": "taylor", "gradient": "analytic"}, "no analytic gradient for DecisionTreeRegressor"),
    ],
)
def test_bad_arguments(model_kind, kwargs, match):
    from sklearn.tree import DecisionTreeRegressor

    X = _gaussian(50, 7)
    y = X @ W
    model = {
        "svr": lambda: SVR().fit(X, y),
        "lin": lambda: LinearRegression().fit(X, y),
        "scores": lambda: y,
        "tree": lambda: DecisionTreeRegressor(max_depth=2).fit(X, y),
    }[model_kind]()
    with pytest.raises(SeqimpError, match=match):
        firm(model, X, **kwargs)


def test_firm_is_callable_whatever_the_import_order():
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "import seqimp.tabular._firm\n"  # binds the module to the package attribute first
        "from seqimp.tabular import firm\n"
        "X = np.arange(20.0).reshape(10, 2) ** 1.5\n"
        "print(np.isclose(firm(lambda A: A[:, 0], X, method='slope').importances[0], X[:, 0].std()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_shrinkage_keeps_variances_and_does_not_depend_on_units():
    X = _gaussian(60, 9)
    res = firm(_linear_model(X), X, method="gaussian")
    # by hand: Ledoit-Wolf intensity on standardised columns, correlations shrunk towards 0
    n, d = X.shape
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    S = Z.T @ Z / n
    d2 = np.sum((S - np.eye(d)) ** 2)
    b2 = min(d2, sum(np.sum((np.outer(z, z) - S) ** 2) for z in Z) / n**2)
    R = (1 - b2 / d2) * S + b2 / d2 * np.eye(d)
    np.testing.assert_allclose(res.covariance, R * np.outer(X.std(axis=0), X.std(axis=0)), rtol=1e-10)
    # FIRM is unit-free (paper §2.3): the same score on rescaled columns has the same importances
    model = _linear_model(X)
    scales = np.array([1e-3, 1.0, 1e3])
    rescaled = _linear_model(X)
    rescaled.coef_ = model.coef_ / scales
    for method in ("gaussian", "taylor"):
        again = firm(rescaled, X * scales, method=method).importances
        np.testing.assert_allclose(again, firm(model, X, method=method).importances, rtol=1e-8)
    with pytest.raises(SeqimpError, match="X: feature 2 is constant, so its covariance cannot be estimated"):
        firm(lambda A: A[:, 0], np.column_stack([X[:, 0], np.ones(len(X))]), method="taylor")


def test_shrinkage_covariance_helps_with_more_features_than_samples():
    rng = np.random.default_rng(8)
    d, n = 40, 30
    w = rng.normal(size=d)
    X = rng.normal(size=(n, d))  # Sigma = I, so the true FIRM is D^-1 Sigma w = w
    model = LinearRegression().fit(X, X @ w)
    shrunk = firm(model, X, method="gaussian", covariance="shrinkage")
    sample = firm(model, X, method="gaussian", covariance="empirical")
    assert np.all(np.isfinite(shrunk.importances)) and shrunk.covariance.shape == (d, d)
    err_shrunk = np.linalg.norm(shrunk.importances - model.coef_)
    err_sample = np.linalg.norm(sample.importances - model.coef_)
    assert err_shrunk < 0.5 * err_sample


def test_auto_uses_binned_for_nonlinear_models_and_taylor_warns():
    from sklearn.svm import SVC

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] ** 2 + X[:, 1] > 1).astype(int)
    svm = SVC(kernel="rbf").fit(X, y)
    auto = firm(svm, X)
    assert list(auto.methods) == ["binned"] * 3
    np.testing.assert_allclose(auto.importances, firm(svm, X, method="binned").importances)
    with pytest.warns(UserWarning, match=r"method='taylor' .* exact only for models linear in the features; "
                                         r"SVC is not a linear model with coef_, and for non-linear models it can be far off"):
        firm(svm, X, method="taylor")
    linear = SVC(kernel="linear").fit(X, y)
    assert list(firm(linear, X).methods) == ["gaussian"] * 3  # linear models: no warning, eq. 12
